r"""What an explainer needs from a fitted tree model, and one adapter per model type.

Every explanation in :mod:`mltrees.inspection` works on a :class:`TreeModelView`:
the model's output written as a constant plus a sum of trees,

.. math:: F(x) = b + \\sum_t v_t(\\mathrm{leaf}_t(x)),

where each tree's leaf table ``v_t`` is already scaled (learning rate, vote,
``1/M`` of an average) and mapped to the output columns. Tree ensembles of
every kind in the book reduce to this form; a new model type plugs in with one
function that builds the view, registered with :func:`register_adapter`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mltrees.tree._tree import MISSING_ALL_BRANCHES, Tree

__all__ = ["TreeModelView", "register_adapter", "view_of"]


@dataclass
class TreeModelView:
    """A fitted tree model as ``base + sum of scaled trees`` (what TreeSHAP reads).

    Attributes
    ----------
    trees : list of Tree
        Flat-array trees (:class:`mltrees.tree._tree.Tree`); their features
        index the columns of :meth:`encode`'s output.
    tables : list of ndarray, shape (n_nodes_t, n_columns_t)
        What each node adds to the output when a row ends there (leaves; an
        internal node too when a row stops at it, e.g. an unseen category).
    columns : list of ndarray of int, shape (n_columns_t,)
        The output column each column of ``tables[t]`` adds to.
    n_outputs : int
        Number of output columns.
    base : ndarray of shape (n_outputs,)
        Constant part of the output (initial score, base margin).
    encode : callable
        ``encode(X) -> ndarray (n, n_features)`` of float64: the checked input
        as the trees read it (numbers, category codes, NaN for missing).
    output : callable
        ``output(X) -> ndarray (n, n_outputs)``: the model's own output that
        the view sums to (for checks of local accuracy).
    feature_names : list of str
    output_name : str
        Which output is explained, in words (for docstrings and plots).
    mixes_linearly : bool
        Whether a row split over several branches (C4.5's missing values) gets
        the weighted mix of its leaves' table rows. False for votes that are
        taken after mixing (SAMME's argmax, hard voting), which are not a sum
        over leaves.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mltrees import RandomForestClassifier
    >>> from mltrees.inspection import view_of
    >>> X, y = load_iris(return_X_y=True)
    >>> view = view_of(RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y))
    >>> len(view.trees), view.n_outputs, view.output_name
    (3, 3, 'predict_proba (one column per class)')
    """

    trees: list
    tables: list
    columns: list
    n_outputs: int
    base: np.ndarray
    encode: Callable
    output: Callable
    feature_names: list
    output_name: str
    mixes_linearly: bool = True
    squeeze: bool = field(default=False)  # one output column reported as (n, p)

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def splits_missing(self) -> bool:
        """Whether some tree sends a missing value down every branch (C4.5)."""
        return any((t.missing_slot == MISSING_ALL_BRANCHES).any() for t in self.trees)


_ADAPTERS: list[tuple[type, Callable]] = []


def register_adapter(cls: type) -> Callable:
    """Decorator: ``function(model) -> TreeModelView`` explains instances of ``cls``.

    The most recently registered class that matches (``isinstance``) wins,
    so a subclass may override its parent's adapter.

    Examples
    --------
    >>> from mltrees.inspection import register_adapter
    >>> class MyBoosting: ...
    >>> @register_adapter(MyBoosting)
    ... def _view(model):  # doctest: +SKIP
    ...     return TreeModelView(...)
    """

    def decorate(function: Callable) -> Callable:
        _ADAPTERS.append((cls, function))
        return function

    return decorate


def view_of(model) -> TreeModelView:
    """The :class:`TreeModelView` of a fitted model (TypeError if no adapter knows it)."""
    if isinstance(model, TreeModelView):
        return model
    for cls, function in reversed(_ADAPTERS):
        if isinstance(model, cls):
            return function(model)
    raise TypeError(
        f"model must be a fitted mltrees tree model (a tree, forest, bagging of mltrees trees, "
        f"AdaBoost, gradient boosting or XGBoost estimator), got {type(model).__name__}"
    )


def _names(model) -> list:
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(n) for n in names]
    return [f"x{j}" for j in range(model.n_features_in_)]


def _check_fitted(model, attribute: str):
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, attribute)


# ----------------------------------------------------------------- single trees
def _register_trees():
    from mltrees.tree.classes import _TreeClassifier, _TreeRegressor

    def encode(model):
        def run(X):
            values = model._values(X)
            model._check_numeric(values)
            return values

        return run

    @register_adapter(_TreeClassifier)
    def _classifier(model):
        _check_fitted(model, "tree_")
        K = model.tree_.value.shape[1]
        return TreeModelView(
            trees=[model.tree_],
            tables=[model.tree_.value],
            columns=[np.arange(K)],
            n_outputs=K,
            base=np.zeros(K),
            encode=encode(model),
            output=model.predict_proba,
            feature_names=_names(model),
            output_name="predict_proba (one column per class)",
        )

    @register_adapter(_TreeRegressor)
    def _regressor(model):
        _check_fitted(model, "tree_")
        return TreeModelView(
            trees=[model.tree_],
            tables=[model.tree_.value[:, :1]],
            columns=[np.zeros(1, dtype=np.intp)],
            n_outputs=1,
            base=np.zeros(1),
            encode=encode(model),
            output=lambda X: model.predict(X)[:, None],
            feature_names=_names(model),
            output_name="predict",
            squeeze=True,
        )


# ------------------------------------------------------ bagging, random forests
def _register_bagging():
    from mltrees.ensemble._common import prediction_values
    from mltrees.ensemble._tree_average import node_tables
    from mltrees.ensemble.bagging import _ClassifierEnsemble, _RegressorEnsemble
    from mltrees.tree.builder import TreeBuilder

    def common(model):
        _check_fitted(model, "estimators_")
        if not model._binned:
            raise TypeError(
                f"{type(model).__name__} holds members that are not mltrees trees; TreeSHAP "
                "needs the members' trees"
            )
        missing = TreeBuilder(model.estimator_).missing
        trees = [member.tree_ for member in model.estimators_]
        M = len(trees)

        def encode(X):
            values, check = prediction_values(
                model, X, "estimators_", allow_missing=missing != "error"
            )
            check(values)
            return values

        return trees, M, encode

    @register_adapter(_ClassifierEnsemble)
    def _classifier(model):
        trees, M, encode = common(model)
        K = len(model.classes_)
        return TreeModelView(
            trees=trees,
            tables=[table / M for table in node_tables(model)],
            columns=[np.arange(K)] * M,
            n_outputs=K,
            base=np.zeros(K),
            encode=encode,
            output=model.predict_proba,
            feature_names=_names(model),
            output_name="predict_proba (one column per class)",
            mixes_linearly=getattr(model, "voting", "soft") != "hard",
        )

    @register_adapter(_RegressorEnsemble)
    def _regressor(model):
        trees, M, encode = common(model)
        return TreeModelView(
            trees=trees,
            tables=[table[:, :1] / M for table in node_tables(model)],
            columns=[np.zeros(1, dtype=np.intp)] * M,
            n_outputs=1,
            base=np.zeros(1),
            encode=encode,
            output=lambda X: model.predict(X)[:, None],
            feature_names=_names(model),
            output_name="predict",
            squeeze=True,
        )


# ------------------------------------------------------------------- AdaBoost
def _register_adaboost():
    from mltrees.ensemble._common import prediction_values
    from mltrees.ensemble.adaboost import AdaBoostClassifier

    @register_adapter(AdaBoostClassifier)
    def _adaboost(model):
        _check_fitted(model, "estimators_")
        if not model._native:
            raise TypeError(
                "AdaBoostClassifier with weak learners that are not mltrees trees cannot be "
                "explained by TreeSHAP"
            )
        K = model.n_classes_
        total = model._vote_total()
        tables = []
        for learner, vote in zip(model.estimators_, model.estimator_weights_, strict=True):
            scale = vote if model.algorithm == "SAMME" else 1.0
            scores = model._node_scores(learner) * scale / total
            # decision_function: class 1's score minus class 0's for two classes.
            tables.append(scores[:, 1:2] - scores[:, :1] if K == 2 else scores)
        n_out = 1 if K == 2 else K
        missing = getattr(model, "_missing", "error")

        def encode(X):
            values, check = prediction_values(
                model, X, "estimators_", allow_missing=missing != "error"
            )
            check(values)
            return values

        def output(X):
            d = model.decision_function(X)
            return d[:, None] if d.ndim == 1 else d

        return TreeModelView(
            trees=[learner.tree_ for learner in model.estimators_],
            tables=tables,
            columns=[np.arange(n_out)] * len(tables),
            n_outputs=n_out,
            base=np.zeros(n_out),
            encode=encode,
            output=output,
            feature_names=_names(model),
            output_name="decision_function (weighted votes)",
            mixes_linearly=False,
            squeeze=K == 2,
        )


# ---------------------------------------------------------- gradient boosting
def _register_gradient_boosting():
    from mltrees.ensemble._common import prediction_values
    from mltrees.ensemble.gradient_boosting import (
        GradientBoostingClassifier,
        _BaseGradientBoosting,
    )

    @register_adapter(_BaseGradientBoosting)
    def _gradient_boosting(model):
        _check_fitted(model, "_stack")
        lr = float(model.learning_rate)
        K = model._n_outputs
        trees, tables, columns = [], [], []
        for stage in model._trees:
            for k, tree in enumerate(stage):
                trees.append(tree)
                tables.append(lr * tree.value[:, :1])
                columns.append(np.array([k]))

        def encode(X):
            # Every split learned a default direction (chapter 6): NaN is routed,
            # as in predict.
            values, check = prediction_values(model, X, "_stack", allow_missing=True)
            check(values)
            return values

        classifier = isinstance(model, GradientBoostingClassifier)

        def output(X):
            out = model.decision_function(X) if classifier else model.predict(X)
            return out[:, None] if out.ndim == 1 else out

        return TreeModelView(
            trees=trees,
            tables=tables,
            columns=columns,
            n_outputs=K,
            base=np.atleast_1d(np.asarray(model.init_, dtype=np.float64)),
            encode=encode,
            output=output,
            feature_names=_names(model),
            output_name="decision_function (raw score F)" if classifier else "predict",
            squeeze=K == 1,
        )


# ------------------------------------------------------------------- XGBoost
def _register_xgboost():
    from mltrees.ensemble.xgboost import XGBoostClassifier, _as_float32, _BaseXGBoost

    @register_adapter(_BaseXGBoost)
    def _xgboost(model):
        _check_fitted(model, "_stack")
        first, stop = model._used_rounds(None)
        K = model._objective.n_outputs
        trees, tables, columns = [], [], []
        for stage in model._trees[first:stop]:
            for k, tree in enumerate(stage):
                trees.append(tree)
                tables.append(tree.value[:, :1])
                columns.append(np.array([k]))

        def encode(X):
            return _as_float32(model, X, reset=False).astype(np.float64)

        classifier = isinstance(model, XGBoostClassifier)

        def output(X):
            margin = model._margin(X)
            return margin

        return TreeModelView(
            trees=trees,
            tables=tables,
            columns=columns,
            n_outputs=K,
            base=np.asarray(model.base_margin_, dtype=np.float64).reshape(K),
            encode=encode,
            output=output,
            feature_names=_names(model),
            output_name="margin (log-odds / raw score)" if classifier else "margin",
            squeeze=K == 1,
        )


# ------------------------------------------------------------------ LightGBM
def _register_lightgbm():
    from dataclasses import replace

    from mltrees.ensemble.lightgbm import LightGBMClassifier, _BaseLightGBM

    @register_adapter(_BaseLightGBM)
    def _lightgbm(model):
        _check_fitted(model, "_stack")
        rounds = model._rounds(None)
        K = model._objective.n_outputs
        trees, tables, columns = [], [], []
        for stage in model._trees[:rounds]:
            for k, tree in enumerate(stage):
                # LightGBM's own TreeSHAP weighs branches by row counts, not
                # by hessian sums (XGBoost's cover): use the counts, and keep
                # weight x impurity (the split gains) unchanged.
                counts = tree.n_node_samples.astype(np.float64)
                with np.errstate(divide="ignore", invalid="ignore"):
                    scale = np.where(counts > 0, tree.weighted_n_node_samples / counts, 0.0)
                trees.append(
                    replace(tree, weighted_n_node_samples=counts, impurity=tree.impurity * scale)
                )
                tables.append(tree.value[:, :1])
                columns.append(np.array([k]))
        classifier = isinstance(model, LightGBMClassifier)
        return TreeModelView(
            trees=trees,
            tables=tables,
            columns=columns,
            n_outputs=K,
            base=np.asarray(model.init_score_, dtype=np.float64).reshape(K),
            encode=model._values,  # category columns become the trees' bin codes
            output=lambda X: model._raw(X),
            feature_names=_names(model),
            output_name="raw score (log-odds)" if classifier else "raw score",
            squeeze=K == 1,
        )


# ---------------------------------------------------------- oblivious boosting
def _register_oblivious():
    from mltrees.ensemble.catboost import ObliviousBoostingClassifier, _BaseObliviousBoosting

    @register_adapter(_BaseObliviousBoosting)
    def _oblivious(model):
        _check_fitted(model, "_trees")
        trees = model._binary_trees()
        K = model._values.shape[2]
        classifier = isinstance(model, ObliviousBoostingClassifier)
        return TreeModelView(
            trees=trees,
            tables=[t.value for t in trees],
            columns=[np.arange(K)] * len(trees),
            n_outputs=K,
            base=np.asarray(model.init_score_, dtype=np.float64).reshape(K),
            encode=model._tree_inputs,
            output=lambda X: model._raw(X),
            feature_names=_names(model),
            output_name="raw score (log-odds)" if classifier else "raw score",
            squeeze=K == 1,
        )


_register_trees()
_register_bagging()
_register_adaboost()
_register_gradient_boosting()
_register_xgboost()
_register_lightgbm()
_register_oblivious()


def single_tree_view(tree: Tree, table=None, *, n_features: int, feature_names=None):
    """A view of one bare :class:`Tree` (rows given already encoded)."""
    table = tree.value if table is None else np.asarray(table, dtype=np.float64)
    if table.ndim == 1:
        table = table[:, None]
    m = table.shape[1]

    def output(values):
        values = np.asarray(values, dtype=np.float64)
        sample, node, weight = tree.apply_weighted(values)
        out = np.zeros((values.shape[0], m))
        for k in range(m):
            out[:, k] = np.bincount(sample, weights=weight * table[node, k], minlength=len(values))
        return out

    return TreeModelView(
        trees=[tree],
        tables=[table],
        columns=[np.arange(m)],
        n_outputs=m,
        base=np.zeros(m),
        encode=lambda X: np.asarray(X, dtype=np.float64),
        output=output,
        feature_names=list(feature_names)
        if feature_names is not None
        else [f"x{j}" for j in range(n_features)],
        output_name="node values",
        squeeze=m == 1,
    )
