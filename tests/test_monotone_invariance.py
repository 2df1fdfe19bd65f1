"""Trees are invariant under strictly monotone maps of a numeric feature (chapter 3).

The proposition of section "Strictly monotone transformations change nothing":
with an increasing map every node makes the same split of the training samples,
with the same statistics, and every threshold falls between the same two mapped
neighbouring values (CART: at their midpoint); with a decreasing map the two
children are exchanged. The neighbours are found here from the data, not read
from the code.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes

from mltrees import C45Classifier, CARTClassifier, CARTRegressor

INCREASING = [
    lambda z: (z - z.mean()) / z.std(),
    np.log1p,
    lambda z: z**3,
    lambda z: np.exp(z / np.abs(z).max()),
    np.arctan,
]


def _transform(X, maps):
    return np.column_stack([maps[j % len(maps)](X[:, j]) for j in range(X.shape[1])])


def _mapped_neighbours(model, X, X_mapped):
    """For every cut, the mapped values just below and just above it, from the node's samples."""
    tree = model.tree_
    reaches = model.decision_path(X).toarray().astype(bool)
    below = np.full(tree.node_count, np.nan)
    above = np.full(tree.node_count, np.nan)
    for node in np.flatnonzero(~tree.is_leaf):
        j, t = tree.feature[node], tree.threshold[node]
        values, mapped = X[reaches[:, node], j], X_mapped[reaches[:, node], j]
        below[node], above[node] = mapped[values <= t].max(), mapped[values > t].min()
    return below, above


@pytest.mark.parametrize(
    "model",
    [
        CARTClassifier(),
        CARTClassifier(criterion="entropy", max_depth=5),
        # The 1993 rules: release 8 (J48) treats values closer than 1e-5 as equal,
        # an absolute tolerance that a compressing map can cross (chapter 3).
        C45Classifier(pruning=None, release="1993"),
        C45Classifier(release="1993"),
    ],
    ids=["cart-gini", "cart-entropy", "c45-unpruned", "c45-pruned"],
)
def test_classifiers_grow_the_same_tree(model):
    X, y = load_breast_cancer(return_X_y=True)
    X_mapped = _transform(X, INCREASING)
    original, mapped = clone(model).fit(X, y), clone(model).fit(X_mapped, y)
    a, b = original.tree_, mapped.tree_
    assert a.node_count > 10
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.first_child, b.first_child)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    np.testing.assert_array_equal(a.value, b.value)
    np.testing.assert_array_equal(original.apply(X), mapped.apply(X_mapped))
    internal = ~a.is_leaf
    below, above = _mapped_neighbours(original, X, X_mapped)
    # The same cut in the new scale; CART puts it at the midpoint, while a learner
    # that reports C4.5's split point puts it on the value below.
    assert np.all(below[internal] <= b.threshold[internal])
    assert np.all(b.threshold[internal] < above[internal])
    if isinstance(model, CARTClassifier):
        np.testing.assert_allclose(
            b.threshold[internal], ((below + above) / 2)[internal], rtol=1e-12
        )


@pytest.mark.parametrize(
    ("criterion", "max_depth"), [("squared_error", None), ("absolute_error", 5)]
)
def test_regressors_grow_the_same_tree(criterion, max_depth):
    X, y = load_diabetes(return_X_y=True)
    X_mapped = _transform(X, INCREASING[2:])  # the diabetes features are centred: no log1p
    original = CARTRegressor(criterion=criterion, max_depth=max_depth).fit(X, y)
    mapped = CARTRegressor(criterion=criterion, max_depth=max_depth).fit(X_mapped, y)
    np.testing.assert_array_equal(original.tree_.feature, mapped.tree_.feature)
    np.testing.assert_array_equal(original.tree_.value, mapped.tree_.value)
    np.testing.assert_array_equal(original.predict(X), mapped.predict(X_mapped))


def test_affine_map_changes_no_prediction_on_new_data():
    X, y = load_breast_cancer(return_X_y=True)
    fit, new = np.arange(0, len(y), 2), np.arange(1, len(y), 2)
    centre, spread = X[fit].mean(axis=0), X[fit].std(axis=0)
    plain = CARTClassifier().fit(X[fit], y[fit])
    scaled = CARTClassifier().fit((X[fit] - centre) / spread, y[fit])
    np.testing.assert_array_equal(
        plain.predict_proba(X[new]), scaled.predict_proba((X[new] - centre) / spread)
    )


def test_decreasing_map_exchanges_the_children():
    X, y = load_breast_cancer(return_X_y=True)
    flipped = X.copy()
    flipped[:, :10] = -flipped[:, :10]
    plain, mirror = CARTClassifier().fit(X, y), CARTClassifier().fit(flipped, y)
    np.testing.assert_array_equal(plain.predict(X), mirror.predict(flipped))
    assert plain.get_n_leaves() == mirror.get_n_leaves()
    np.testing.assert_array_equal(
        np.sort(plain.tree_.n_node_samples), np.sort(mirror.tree_.n_node_samples)
    )


def test_a_non_monotone_map_changes_the_tree():
    # The invariance needs monotonicity: squaring a centred feature folds its axis.
    X, y = load_breast_cancer(return_X_y=True)
    folded = ((X - X.mean(axis=0)) / X.std(axis=0)) ** 2
    plain, bent = CARTClassifier().fit(X, y), CARTClassifier().fit(folded, y)
    assert plain.tree_.node_count != bent.tree_.node_count or not np.array_equal(
        plain.tree_.feature, bent.tree_.feature
    )
