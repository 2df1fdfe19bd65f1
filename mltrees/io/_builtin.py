"""mltrees' own classes in the model-file registry: the list of what a file may name.

:func:`register_builtin` runs once, on the first save or load
(:func:`mltrees.io.serialize._ensure_registry`). Each estimator is one call of
:func:`~mltrees.io.registry.register_estimator` with the class alone: what it
stores and how it checks and rebuilds a loaded state are its own hooks
(``_cache_attributes``, ``_non_finite_attributes``, ``_rebuild_caches``).
This module is the one allow-list of the format, so it imports every class a
file may name; it reads no estimator's internals. The objects an estimator
holds (trees, feature specifications, losses, rules, seeds, pandas
categories, ID5R's nodes, splitters) are registered here with their
validators, encoders and the cells one use of them costs
(:class:`~mltrees.io.format.Budget`).
"""

from __future__ import annotations

import numpy as np

from mltrees.io._estimator_state import _rebuild_linear
from mltrees.io.format import (
    ModelFormatError,
    check_finite,
    expect,
    expect_array,
    expect_int,
    tree_cells,
    validate_feature_spec,
    validate_tree,
)
from mltrees.io.registry import register_estimator, register_object


def _check_statistics(stats, path: str) -> None:
    """CatBoost's categorical columns: one entry per feature in every list, counts that count.

    Per feature: its sorted training categories; for a statistics (not
    one-hot) feature, the rows per category ``count`` and per category and
    target border ``class_count``. One border count and one name per column
    built: none for a feature of one category, a column per category of a
    one-hot feature, ``3 B + 1`` (the Borders statistics of each of the
    ``B`` target borders and the Counter) otherwise.
    """
    n = len(stats.features)
    for name in ("features", "categories", "one_hot", "class_count", "count", "n_borders", "names"):
        expect(isinstance(getattr(stats, name), list), f"{path}.{name}", "a list")
    for name in ("categories", "one_hot", "class_count", "count"):
        expect(len(getattr(stats, name)) == n, f"{path}.{name}", "one entry per feature")
    expect(all(type(f) is int and f >= 0 for f in stats.features), f"{path}.features", "indices")
    n_columns = 0
    for c in range(n):
        known = stats.categories[c]
        where = f"{path}.categories[{c}]"
        expect(
            isinstance(known, np.ndarray) and known.ndim == 1 and known.size >= 1,
            where,
            "a non-empty 1-D array",
        )
        try:
            ordered = bool((known[1:] > known[:-1]).all())
        except TypeError:
            ordered = False
        expect(ordered, where, "sorted distinct categories")
        expect(isinstance(stats.one_hot[c], bool), f"{path}.one_hot[{c}]", "a boolean")
        if known.size < 2:  # one category: CatBoost ignores the feature, no column
            continue
        if stats.one_hot[c]:
            n_columns += known.size
            continue
        count = expect_array(
            stats.count[c], f"{path}.count[{c}]", kinds="iuf", shape=(known.size,), low=0
        )
        table = expect_array(
            stats.class_count[c], f"{path}.class_count[{c}]", kinds="iuf", ndim=2, low=0
        )
        expect(table.shape[0] == known.size, f"{path}.class_count[{c}]", "a row per category")
        check_finite([count, table], f"{path}.count[{c}]")
        n_columns += 3 * table.shape[1] + 1
    expect(
        len(stats.n_borders) == n_columns
        and all(type(v) is int and v >= 0 for v in stats.n_borders),
        f"{path}.n_borders",
        f"a border count for each of the {n_columns} columns",
    )
    # CatBoost's numbers of a one-hot feature's categories: a permutation.
    expect(
        isinstance(stats.rank, list) and len(stats.rank) == n,
        f"{path}.rank",
        "one entry per feature",
    )
    for c in range(n):
        rank = stats.rank[c]
        if stats.one_hot[c] and stats.categories[c].size >= 2:
            expect(
                isinstance(rank, np.ndarray)
                and rank.dtype.kind in "iu"
                and np.array_equal(np.sort(rank), np.arange(stats.categories[c].size)),
                f"{path}.rank[{c}]",
                "a permutation of the category numbers",
            )
        else:
            expect(rank is None, f"{path}.rank[{c}]", "None (not a one-hot feature)")
    expect(
        len(stats.names) == n_columns and all(isinstance(v, str) for v in stats.names),
        f"{path}.names",
        "a name per column",
    )


def _encode_id5r_node(root) -> dict:
    """An ID5R tree (nested nodes) as arrays, parents before children."""
    nodes, parent, value = [root], [-1], [-1]
    order = 0
    while order < len(nodes):
        for code, child in nodes[order].children.items():
            nodes.append(child)
            parent.append(order)
            value.append(code)
        order += 1
    rows = [node.rows for node in nodes]
    has_rows = np.array([r is not None for r in rows], dtype=bool)
    flat = [int(i) for r in rows if r is not None for i in r]
    sizes = [len(r) if r is not None else 0 for r in rows]
    return {
        "test": np.array([node.test for node in nodes], dtype=np.int64),
        "parent": np.array(parent, dtype=np.int64),
        "value": np.array(value, dtype=np.int64),
        "counts": np.stack([node.counts for node in nodes]),
        "dirty": np.array([node.dirty for node in nodes], dtype=bool),
        "has_rows": has_rows,
        "row_sizes": np.array(sizes, dtype=np.int64),
        "rows": np.array(flat, dtype=np.int64),
    }


def _decode_id5r_node(state: dict, path: str):
    """The nested nodes of an ID5R tree, after checking that the arrays describe a tree."""
    from mltrees.incremental.id5r import _Node

    test, parent, value = state["test"], state["parent"], state["value"]
    n = test.shape[0] if isinstance(test, np.ndarray) else 0
    expect_array(test, f"{path}.test", kinds="iu", shape=(n,), low=-1)
    expect_array(parent, f"{path}.parent", kinds="iu", shape=(n,))
    expect_array(value, f"{path}.value", kinds="iu", shape=(n,))
    counts = expect_array(state["counts"], f"{path}.counts", kinds="iu", ndim=4, low=0)
    expect(n >= 1 and counts.shape[0] == n, f"{path}.counts", "one table per node")
    for name in ("dirty", "has_rows"):
        expect_array(state[name], f"{path}.{name}", kinds="b", shape=(n,))
    sizes = expect_array(state["row_sizes"], f"{path}.row_sizes", kinds="iu", shape=(n,), low=0)
    rows = expect_array(state["rows"], f"{path}.rows", kinds="iu", shape=(int(sizes.sum()),), low=0)
    ids = np.arange(n)
    expect(
        parent[0] == -1
        and value[0] == -1
        and (parent[1:] >= 0).all()
        and (parent[1:] < ids[1:]).all(),
        f"{path}.parent",
        "the root first, every other node after its parent",
    )
    child = parent[1:]
    expect(
        (test[child] >= 0).all() and (value[1:] >= 0).all(),
        f"{path}.value",
        "children under decision nodes, by value code",
    )
    pairs = child * (int(value.max()) + 1) + value[1:]
    expect(np.unique(pairs).size == pairs.size, f"{path}.value", "one child per value")
    expect((sizes[~state["has_rows"]] == 0).all(), f"{path}.row_sizes", "rows at leaves only")
    nodes = []
    start = 0
    for i in range(n):  # one object per node: ID5R's own representation
        node = _Node(counts[i].copy(), None)
        node.test = int(test[i])
        node.dirty = bool(state["dirty"][i])
        if state["has_rows"][i]:
            node.rows = rows[start : start + sizes[i]].tolist()
        start += int(sizes[i])
        nodes.append(node)
        if i:
            nodes[parent[i]].children[int(value[i])] = node
    return nodes[0]


def _check_fold_average(average, path: str) -> None:
    """A stack's averaged fold models: a non-empty list, and None or a class count."""
    members = average.estimators_
    expect(
        isinstance(members, list) and 1 <= len(members) <= 1 << 20,
        f"{path}.estimators_",
        "a non-empty list of fold models",
    )
    n_classes = average.n_classes
    expect(
        n_classes is None or (type(n_classes) is int and 2 <= n_classes <= 1 << 20),
        f"{path}.n_classes",
        "None (regression) or a number of classes >= 2",
    )


def _check_splitter(splitter, path: str) -> None:
    ok = (
        type(splitter.n_splits) is int
        and 2 <= splitter.n_splits <= 1 << 20
        and type(splitter.shuffle) is bool
        and (splitter.random_state is None or type(splitter.random_state) is int)
    )
    expect(ok, path, "n_splits >= 2, shuffle a boolean, random_state None or an int")


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
        and small_int(spawned, 32)
    )
    if not ok:
        raise ModelFormatError(f"{path}: a SeedSequence with out-of-range state")
    return np.random.SeedSequence(
        entropy, spawn_key=key, pool_size=pool, n_children_spawned=spawned
    )


def _plain_state(obj, path: str) -> None:
    """A loss or objective holds finite numbers and strings only (and an objective its loss)."""
    for name, value in vars(obj).items():
        if not (value is None or isinstance(value, (bool, int, float, str))) and not hasattr(
            value, "gradient"
        ):
            raise ModelFormatError(f"{path}.{name}: a number or a string")
        check_finite(value if isinstance(value, float) else 0.0, f"{path}.{name}")
    for name in ("n_classes", "n_outputs"):
        if name in vars(obj):
            expect_int(vars(obj)[name], f"{path}.{name}", 1, 1 << 20)


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


def _encode_categories(dtype) -> dict:
    return {"categories": np.asarray(dtype.categories), "ordered": bool(dtype.ordered)}


def _decode_categories(state: dict, path: str):
    """A pandas ``CategoricalDtype`` (LightGBM's categories of a DataFrame column)."""
    import pandas as pd

    values, ordered = state["categories"], state["ordered"]
    ok = (
        isinstance(values, np.ndarray)
        and values.ndim == 1
        and type(ordered) is bool
        and (values.dtype.kind in "iufbU" or all(type(v) in (str, int) for v in values.tolist()))
    )
    if not ok or (values.dtype.kind == "f" and not np.isfinite(values).all()):
        raise ModelFormatError(f"{path}: categories are a 1-D array of labels, ordered a boolean")
    if len(set(values.tolist())) != values.size:
        raise ModelFormatError(f"{path}: the categories are distinct")
    return pd.CategoricalDtype(
        pd.Index(values.tolist()) if values.dtype == object else values, ordered=ordered
    )


def register_builtin() -> None:
    """Register every estimator and helper class of mltrees."""
    import pandas as pd
    from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge, RidgeCV
    from sklearn.model_selection import KFold, StratifiedKFold

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
    from mltrees.ensemble.stacking import (
        BlendingClassifier,
        BlendingRegressor,
        FoldAverage,
        StackingClassifier,
        StackingRegressor,
    )
    from mltrees.ensemble.xgboost import XGBoostClassifier, XGBoostRegressor, _Objective
    from mltrees.hist.catboost.ctr import CategoricalStatistics
    from mltrees.hist.catboost.oblivious import ObliviousTree
    from mltrees.incremental.hoeffding import HoeffdingTreeClassifier
    from mltrees.incremental.id5r import ID4Classifier, ID5RClassifier, _Node
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
    register_object(
        CategoricalStatistics,
        validate=lambda stats, path: _check_statistics(stats, path),
    )
    register_object(
        pd.CategoricalDtype,
        attributes=("categories", "ordered"),
        encode=_encode_categories,
        decode=_decode_categories,
    )
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
    # Estimators: their own hooks say what they store and rebuild.
    for cls in (
        ID3Classifier,
        C45Classifier,
        CARTClassifier,
        CARTRegressor,
        RuleSetClassifier,
        LogitBoostClassifier,
        AdaBoostClassifier,
        BaggingClassifier,
        BaggingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        XGBoostClassifier,
        XGBoostRegressor,
        LightGBMClassifier,
        LightGBMRegressor,
        ObliviousBoostingClassifier,
        ObliviousBoostingRegressor,
        ObliqueTreeClassifier,
        ObliqueTreeRegressor,
        ImportedTreeModel,
        HoeffdingTreeClassifier,
        ID5RClassifier,
        ID4Classifier,
        StackingClassifier,
        StackingRegressor,
        BlendingClassifier,
        BlendingRegressor,
    ):
        register_estimator(cls)
    # Incremental trees: their whole state, so that partial_fit continues exactly.
    register_object(
        _Node,
        attributes=("test", "parent", "value", "counts", "dirty", "has_rows", "row_sizes", "rows"),
        encode=_encode_id5r_node,
        decode=_decode_id5r_node,
        name="ID5RNode",
    )
    # Stacking and blending hold folds and the scikit-learn linear models that are their
    # default final estimators (and the usual ones) and the usual splitters.
    register_object(
        FoldAverage, attributes=("estimators_", "n_classes"), validate=_check_fold_average
    )
    for cls in (LogisticRegression, RidgeCV, Ridge, LinearRegression):
        register_estimator(cls, rebuild=_rebuild_linear)
    for cls in (KFold, StratifiedKFold):
        register_object(
            cls, attributes=("n_splits", "shuffle", "random_state"), validate=_check_splitter
        )
