"""The classes a model file may name, and how each estimator rebuilds its caches.

Adding an estimator is one call of
:func:`mltrees.io.serialize.register_estimator` in :func:`register_defaults`.
"""

from __future__ import annotations

import numpy as np

from mltrees.io.format import (
    ModelFormatError,
    check_finite,
    tree_cells,
    validate_feature_spec,
    validate_tree,
)
from mltrees.io.serialize import register_estimator, register_object


def _stacked(estimator, scale: float = 1.0) -> None:
    """The one-walk predictor of the boosted models, as their ``fit`` builds it."""
    from mltrees.ensemble._common import StackedTrees

    stages = estimator._trees
    if not stages:
        raise ModelFormatError("a boosted model holds at least one round of trees")
    width = len(stages[0])
    if any(len(stage) != width for stage in stages):
        raise ModelFormatError("every boosting round holds the same number of trees")
    flat = [tree for stage in stages for tree in stage]
    outputs = np.tile(np.arange(width), len(stages))
    values = [scale * t.value for t in flat] if scale != 1.0 else [t.value for t in flat]
    estimator._stack = StackedTrees(flat, values, outputs, width)


def _rebuild_gradient_boosting(estimator) -> None:
    _stacked(estimator, float(estimator.learning_rate))


def _rebuild_bagging(estimator) -> None:
    from mltrees.tree.builder import TreeBuilder

    if estimator._binned and TreeBuilder.accepts(estimator.estimator_):
        estimator._stack, estimator._stack_key = (
            estimator._build_stack(),
            estimator._walker_key(),
        )


def _rebuild_adaboost(estimator) -> None:
    estimator._stack = None
    if estimator._native:
        estimator._build_stack()


def _encode_seed(seed: np.random.SeedSequence) -> dict:
    return {
        "entropy": seed.entropy,
        "spawn_key": tuple(seed.spawn_key),
        "pool_size": seed.pool_size,
        "n_children_spawned": seed.n_children_spawned,
    }


def _decode_seed(state: dict, path: str) -> np.random.SeedSequence:
    entropy, key = state["entropy"], state["spawn_key"]
    pool, spawned = state["pool_size"], state["n_children_spawned"]

    def small_int(v, bits):
        return type(v) is int and 0 <= v < (1 << bits)

    ok = (
        (
            small_int(entropy, 256)
            or (
                isinstance(entropy, list)
                and len(entropy) <= 64
                and all(small_int(v, 64) for v in entropy)
            )
        )
        and isinstance(key, tuple)
        and len(key) <= 64
        and all(small_int(v, 64) for v in key)
        and type(pool) is int
        and 4 <= pool <= 64
        and small_int(spawned, 63)
    )
    if not ok:
        raise ModelFormatError(f"{path}: a SeedSequence with out-of-range state")
    return np.random.SeedSequence(
        entropy, spawn_key=key, pool_size=pool, n_children_spawned=spawned
    )


def _plain_state(obj, path: str) -> None:
    """A loss or objective holds numbers and strings only."""
    for name, value in vars(obj).items():
        if not (value is None or isinstance(value, (bool, int, float, str))) and not hasattr(
            value, "gradient"
        ):
            raise ModelFormatError(f"{path}.{name}: a number or a string")


def _check_condition(condition, path: str) -> None:
    ok = (
        type(condition.feature) is int
        and condition.feature >= 0
        and isinstance(condition.name, str)
        and condition.op in ("<=", ">", "in")
        and isinstance(condition.threshold, float)
        and isinstance(condition.codes, tuple)
        and isinstance(condition.categories, tuple)
    )
    if not ok:
        raise ModelFormatError(f"{path}: a Condition (feature, name, op, threshold, codes...)")


def _check_rule(rule, path: str) -> None:
    from mltrees.tree.rules import Condition

    if not isinstance(rule.conditions, list) or not all(
        type(c) is Condition for c in rule.conditions
    ):
        raise ModelFormatError(f"{path}: a Rule's conditions are a list of Condition")
    if not isinstance(rule.extra, dict):
        raise ModelFormatError(f"{path}: a Rule's extra is a dict")


def _check_oblique(tree, path):
    """An oblique tree: a valid tree plus one finite weight vector per node."""
    validate_tree(tree, path=path)
    coef = tree.coef
    if (
        not isinstance(coef, np.ndarray)
        or coef.ndim != 2
        or coef.shape[0] != tree.node_count
        or coef.dtype.kind != "f"
        or not np.isfinite(coef).all()
    ):
        raise ModelFormatError(f"{path}.coef: finite floats, one row per node")


def _check_oblivious_tree(tree, path):
    """Splits as integer arrays of one length d, 2**d leaves of finite values."""
    arrays = (tree.feature, tree.border_index, tree.value, tree.weight, tree.count, tree.gradient)
    if not all(isinstance(a, np.ndarray) for a in arrays):
        raise ModelFormatError(f"{path}: an ObliviousTree holds arrays")
    d = tree.feature.shape[0] if tree.feature.ndim == 1 else -1
    ok = (
        0 < d <= 16
        and tree.feature.dtype.kind == "i"
        and tree.border_index.shape == (d,)
        and tree.border_index.dtype.kind == "i"
        and (tree.feature >= 0).all()
        and (tree.border_index >= 0).all()
        and tree.value.ndim == 2
        and tree.value.shape[0] == 1 << d
        and tree.value.dtype.kind == "f"
        and np.isfinite(tree.value).all()
        and tree.weight.shape == (1 << d,)
        and tree.count.shape == (1 << d,)
        and tree.gradient.shape == tree.value.shape
    )
    if not ok:
        raise ModelFormatError(f"{path}: an ObliviousTree of depth d has d splits and 2**d leaves")


def _rebuild_oblivious(estimator) -> None:
    """Check every split against the model's columns, then rebuild the predictor."""
    n_borders = np.asarray(estimator._n_borders)
    trees = estimator._trees
    if not trees or any(t.depth != estimator.depth for t in trees):
        raise ModelFormatError("an oblivious model holds trees of its own depth")
    for t in trees:
        if (t.feature >= len(n_borders)).any() or (t.border_index >= n_borders[t.feature]).any():
            raise ModelFormatError("an oblivious tree tests a column or border the model lacks")
    if len(estimator._borders) != len(estimator._numeric):
        raise ModelFormatError("one border list per numeric feature")
    estimator._compile()


def register_defaults() -> None:
    """Register every estimator and helper class of mltrees."""
    from mltrees import losses
    from mltrees.ensemble.adaboost import AdaBoostClassifier
    from mltrees.ensemble.bagging import BaggingClassifier, BaggingRegressor
    from mltrees.ensemble.catboost import ObliviousBoostingClassifier, ObliviousBoostingRegressor
    from mltrees.ensemble.forest import RandomForestClassifier, RandomForestRegressor
    from mltrees.ensemble.gradient_boosting import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
    )
    from mltrees.ensemble.lightgbm import LightGBMClassifier, LightGBMRegressor
    from mltrees.ensemble.lightgbm import _Objective as LightGBMObjective
    from mltrees.ensemble.logitboost import LogitBoostClassifier
    from mltrees.ensemble.xgboost import XGBoostClassifier, XGBoostRegressor, _Objective
    from mltrees.hist.oblivious import ObliviousTree
    from mltrees.hist.oblivious_ctr import CategoricalStatistics
    from mltrees.io.importers import ImportedTreeModel
    from mltrees.tree._data import FeatureSpec
    from mltrees.tree._tree import Tree
    from mltrees.tree.classes import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
    from mltrees.tree.oblique import ObliqueTree, ObliqueTreeClassifier, ObliqueTreeRegressor
    from mltrees.tree.rules import Condition, Rule, RuleSetClassifier

    register_object(
        Tree,
        # The tree's fields, without the walk caches it keeps between predictions.
        encode=lambda tree: tree.__getstate__(),
        validate=lambda tree, path: validate_tree(tree, path=path),
        cells=tree_cells,
    )
    register_object(FeatureSpec, validate=validate_feature_spec)
    register_object(Condition, validate=_check_condition)
    register_object(Rule, validate=_check_rule)
    register_object(_Objective, validate=_plain_state)
    # Two classes share the name _Objective: the LightGBM one is stored by its own name.
    register_object(LightGBMObjective, name="LightGBMObjective", validate=_plain_state)
    register_object(
        ObliqueTree, validate=_check_oblique, cells=lambda t: tree_cells(t) + t.coef.size
    )
    register_object(
        ObliviousTree,
        validate=_check_oblivious_tree,
        cells=lambda t: 2 * t.value.size + 3 * t.weight.size,
    )
    register_object(CategoricalStatistics)
    register_object(
        np.random.SeedSequence,
        attributes=("entropy", "spawn_key", "pool_size", "n_children_spawned"),
        encode=_encode_seed,
        decode=_decode_seed,
    )
    for loss in (
        losses.SquaredError,
        losses.AbsoluteError,
        losses.HuberLoss,
        losses.BinomialLogLoss,
        losses.MultinomialLogLoss,
        losses.ExponentialLoss,
        losses.PoissonLoss,
    ):
        register_object(loss, validate=_plain_state)
    # Single trees and rule sets: everything they hold is stored; members of
    # ensembles drop the split codes of the histogram walk (floats suffice).
    for cls in (ID3Classifier, C45Classifier, CARTClassifier, CARTRegressor):
        register_estimator(cls, skip=("_split_codes",))
    register_estimator(RuleSetClassifier)
    register_estimator(LogitBoostClassifier)
    register_estimator(AdaBoostClassifier, skip=("_stack",), rebuild=_rebuild_adaboost)
    for cls in (BaggingClassifier, BaggingRegressor, RandomForestClassifier, RandomForestRegressor):
        register_estimator(cls, skip=("_stack", "_stack_key"), rebuild=_rebuild_bagging)
    for cls in (GradientBoostingClassifier, GradientBoostingRegressor):
        register_estimator(cls, skip=("_stack",), rebuild=_rebuild_gradient_boosting)
    for cls in (XGBoostClassifier, XGBoostRegressor):
        register_estimator(cls, skip=("_stack", "_timings"), rebuild=_stacked)
    for cls in (LightGBMClassifier, LightGBMRegressor):
        register_estimator(cls, skip=("_stack", "_timings"), rebuild=_stacked)
    for cls in (ObliviousBoostingClassifier, ObliviousBoostingRegressor):
        register_estimator(cls, skip=("_tests", "_test_of", "_values"), rebuild=_rebuild_oblivious)
    register_estimator(ObliqueTreeClassifier)
    register_estimator(ObliqueTreeRegressor)
    register_estimator(ImportedTreeModel)
