"""Single trees, rule sets and oblique trees in model files: their state checked (chapter 18).

The ``_rebuild_caches`` hooks of the tree estimators call these functions when
:func:`mltrees.io.load_model` has read a fitted state: what must agree between
the fitted attributes (shapes, indices into other attributes, classes) before
the model predicts. The format's own checks are in :mod:`mltrees.io.format`.
"""

from __future__ import annotations

import numpy as np

from mltrees.io.format import (
    distinct_classes,
    expect,
    expect_array,
    expect_int,
)


def _rebuild_single_tree(estimator) -> None:
    path = type(estimator).__name__
    expect_int(estimator.n_outputs_, f"{path}.n_outputs_", 1, 1)
    expect(hasattr(estimator, "_specs") and hasattr(estimator, "tree_"), path, "_specs and tree_")


def _rebuild_rules(estimator) -> None:
    """Conditions test features, codes and classes the model has; distributions sum to 1."""
    path = "RuleSetClassifier"
    base = estimator.tree_estimator_
    expect(
        hasattr(base, "tree_") and hasattr(base, "_specs"),
        f"{path}.tree_estimator_",
        "a fitted tree",
    )
    K = distinct_classes(estimator, path)
    expect(
        base.n_features_in_ == estimator.n_features_in_
        and np.array_equal(base.classes_.astype(object), estimator.classes_.astype(object)),
        f"{path}.tree_estimator_",
        "the features and classes of the rule set",
    )
    specs = base._specs
    labels = set(estimator.classes_.tolist())
    for r, rule in enumerate(estimator.rules_):
        where = f"{path}.rules_[{r}]"
        expect(rule.label in labels, where, "a label among classes_")
        for condition in rule.conditions:
            expect(
                condition.feature < len(specs), where, f"conditions test features < {len(specs)}"
            )
            n_codes = specs[condition.feature].n_codes
            expect(
                all(type(c) is int and 0 <= c < n_codes for c in condition.codes),
                where,
                "category codes of the tested feature",
            )
            expect(
                (condition.op == "in") == (specs[condition.feature].kind == 1),
                where,
                "'in' tests categorical features, '<=' and '>' numeric ones",
            )
    expect(estimator.default_class_ in labels, f"{path}.default_class_", "one of classes_")
    order = estimator.class_order_
    expect(
        isinstance(order, np.ndarray)
        and sorted(order.tolist(), key=str) == sorted(labels, key=str)
        and order.size == K,
        f"{path}.class_order_",
        "the classes in some order",
    )
    table = expect_array(
        estimator.class_distributions_,
        f"{path}.class_distributions_",
        shape=(len(estimator.rules_) + 1, K),
        low=0.0,
        high=1.0,
    )
    expect(
        np.allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-9),
        f"{path}.class_distributions_",
        "rows sum to 1",
    )


def _rebuild_oblique(estimator) -> None:
    path = type(estimator).__name__
    tree = estimator.tree_
    expect(
        tree.coef.shape[1] == estimator.n_features_in_,
        f"{path}.tree_.coef",
        "one weight per feature",
    )
    if hasattr(estimator, "classes_"):
        expect(tree.value.shape[1] == distinct_classes(estimator, path), path, "a column per class")
    else:
        expect(tree.value.shape[1] == 1, path, "one value column")
        expect(isinstance(estimator._y_mean, float), f"{path}._y_mean", "a float")
