"""Tree ``tree_index`` of any fitted mltrees model, as the renderers of :mod:`export` read it.

``export_text``, ``to_dot`` and ``plot_tree`` draw one flat-array
:class:`~mltrees.tree.Tree`. A single tree estimator has one; an
ensemble has many, numbered as their owners number them (LightGBM's
``tree_index``, XGBoost's ``tree_idx``): forests, bagging and AdaBoost by
member; gradient boosting, XGBoost, LightGBM and oblivious boosting by round,
then by output within a round (``round * n_outputs + output``). The Hoeffding
tree and ID5R keep their own node structures and are converted here.

What a node shows depends on what its tree predicts: class distributions for
the trees of forests, bagging and AdaBoost (and the single classifiers), a
value for regression trees and for the trees of boosting, whose leaves add to
a margin (the learning rate included, as XGBoost and LightGBM draw them).
"""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from mltrees.tree._data import CATEGORICAL, FeatureSpec
from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, NUMERIC_NODE, Tree

__all__ = ["Drawable", "drawable"]


@dataclass
class Drawable:
    """One tree to draw and how to label it."""

    tree: Tree
    specs: list | None  # per feature: a FeatureSpec whose values name the category codes
    feature_names: list[str] | None  # None: the estimator has none, use feature_j
    class_names: list[str] | None  # None: nodes show a value
    criterion: str
    n_features: int


def _check_index(tree_index, n_trees: int, owner: str) -> int:
    if isinstance(tree_index, bool) or not isinstance(tree_index, numbers.Integral):
        raise TypeError(f"tree_index must be an int, got {tree_index!r}")
    if not -n_trees <= tree_index < n_trees:
        trees = "one tree (tree_index=0)" if n_trees == 1 else f"{n_trees} trees"
        raise ValueError(f"tree_index={tree_index} is out of range: {owner} has {trees}")
    return int(tree_index) % n_trees


def _feature_names(model) -> list[str] | None:
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(v) for v in names]


def _class_names(model) -> list[str] | None:
    classes = getattr(model, "classes_", None)
    return None if classes is None else [str(c) for c in classes]


def _as_values(tree: Tree, table) -> Tree:
    """The tree with ``table`` (its nodes' contributions) as the values it shows."""
    return replace(tree, value=np.asarray(table, dtype=np.float64).reshape(tree.node_count, -1))


def _single(model, tree_index) -> Drawable:
    """A single mltrees tree estimator (CART, C4.5, ID3, oblique)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "tree_")
    _check_index(tree_index, 1, type(model).__name__)
    criterion = str(getattr(model, "criterion", "impurity"))
    return Drawable(
        tree=model.tree_,
        specs=getattr(model, "_specs", None),
        feature_names=_feature_names(model),
        class_names=_class_names(model),
        criterion="entropy" if criterion == "log_loss" else criterion,
        n_features=int(model.n_features_in_),
    )


def _members(model, tree_index) -> Drawable:
    """Forests, bagging and AdaBoost: member ``tree_index``, an mltrees tree estimator."""
    from sklearn.utils.validation import check_is_fitted

    from mltrees.tree.builder import TreeBuilder

    check_is_fitted(model, "estimators_")
    i = _check_index(tree_index, len(model.estimators_), type(model).__name__)
    member = model.estimators_[i]
    if not TreeBuilder.accepts(member):
        raise TypeError(
            f"member {i} of {type(model).__name__} is a {type(member).__name__}, not an "
            "mltrees tree: it cannot be drawn"
        )
    drawn = _single(member, 0)
    drawn.feature_names = _feature_names(model)
    drawn.n_features = int(model.n_features_in_)
    return drawn


def _dask_forest(model, tree_index) -> Drawable:
    """The Dask forests: member ``tree_index``, a one-tree forest grown on a worker."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "estimators_")
    i = _check_index(tree_index, len(model.estimators_), type(model).__name__)
    drawn = _members(model.estimators_[i], 0)  # its classes: those its sample held
    drawn.feature_names = _feature_names(model)
    return drawn


def _boosted(model, trees, tables, tree_index, specs=None) -> Drawable:
    """A tree of a boosting model: its leaves show what they add to the margin."""
    i = _check_index(tree_index, len(trees), type(model).__name__)
    return Drawable(
        tree=_as_values(trees[i], tables[i]),
        specs=specs,
        feature_names=_feature_names(model),
        class_names=None,
        criterion="impurity",
        n_features=int(model.n_features_in_),
    )


def _gradient_boosting(model, tree_index) -> Drawable:
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "_stack")
    trees = [tree for stage in model._trees for tree in stage]
    lr = float(model.learning_rate)
    drawn = _boosted(model, trees, [lr * t.value[:, :1] for t in trees], tree_index, model._specs)
    drawn.criterion = "squared_error"
    return drawn


def _xgboost(model, tree_index) -> Drawable:
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "_stack")
    trees = [tree for stage in model._trees for tree in stage]  # leaves hold eta * w*
    return _boosted(model, trees, [t.value[:, :1] for t in trees], tree_index)


def _lightgbm_specs(model) -> list | None:
    """Names of the category bins of LightGBM's categorical features (bin 0: missing or rare)."""
    bins = getattr(model, "_categories", None)
    if not bins:
        return None
    names = _feature_names(model)
    categories = getattr(model, "_pandas_categories", {})
    specs = [None] * int(model.n_features_in_)
    for j, codes in bins.items():
        column = names[j] if names is not None else None
        known = categories.get(column) if column is not None else None
        if isinstance(known, pd.CategoricalDtype):
            known = np.asarray(known.categories)
        if known is None:  # integer codes given as numbers: the codes name themselves
            labels = [str(int(c)) for c in codes]
        else:
            labels = [str(known[int(c)]) if 0 <= int(c) < len(known) else str(c) for c in codes]
        specs[j] = FeatureSpec(CATEGORICAL, np.array(["(missing or rare)", *labels], dtype=object))
    return specs


def _lightgbm(model, tree_index) -> Drawable:
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "_stack")
    trees = [tree for stage in model._trees for tree in stage]
    tables = [t.value[:, :1] for t in trees]
    return _boosted(model, trees, tables, tree_index, _lightgbm_specs(model))


def _oblivious(model, tree_index) -> Drawable:
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "_trees")
    trees = model._binary_trees()
    stats = model._cat_stats
    specs = [None] * int(model.n_features_in_)
    if stats is not None:
        for c, j in enumerate(stats.features):
            values = np.append(np.asarray(stats.categories[c], dtype=object), "(unseen)")
            specs[j] = FeatureSpec(CATEGORICAL, values)
    drawn = _boosted(model, trees, [t.value for t in trees], tree_index, specs)
    return drawn


def _from_nodes(feature, threshold, kind, children, routes, value, n_samples, weight, impurity):
    """A :class:`Tree` from per-node lists; children numbered consecutively, breadth first.

    ``children[k]`` lists node ``k``'s children by slot; ``routes[k]`` maps a
    category code to a slot at a categorical node (-1: never seen there).
    """
    order, first = [0], {}
    position = 0
    while position < len(order):
        node = order[position]
        first[node] = len(order)
        order.extend(children[node])
        position += 1
    new_id = {old: new for new, old in enumerate(order)}
    n = len(order)
    parent = np.full(n, -1, dtype=np.intp)
    depth = np.zeros(n, dtype=np.intp)
    for old in order:
        for child in children[old]:
            parent[new_id[child]] = new_id[old]
            depth[new_id[child]] = depth[new_id[old]] + 1
    tables, offsets, sizes, offset = [], np.zeros(n, dtype=np.intp), np.zeros(n, dtype=np.intp), 0
    for new, old in enumerate(order):
        if children[old] and kind[old] == CATEGORICAL_NODE:
            table = np.asarray(routes[old], dtype=np.intp)
            offsets[new], sizes[new] = offset, table.size
            tables.append(table)
            offset += table.size
    pick = np.asarray(order)
    internal = np.array([len(children[old]) > 0 for old in order])
    return Tree(
        feature=np.where(internal, np.asarray(feature)[pick], LEAF).astype(np.intp),
        kind=np.where(internal, np.asarray(kind)[pick], -1).astype(np.int8),
        threshold=np.where(internal, np.asarray(threshold, dtype=np.float64)[pick], np.nan),
        first_child=np.array([first[old] if children[old] else -1 for old in order], np.intp),
        n_children=np.array([len(children[old]) for old in order], dtype=np.intp),
        route_offset=offsets,
        route_table=np.concatenate(tables) if tables else np.zeros(0, dtype=np.intp),
        n_categories=sizes,
        value=np.asarray(value, dtype=np.float64)[pick],
        impurity=np.asarray(impurity, dtype=np.float64)[pick],
        n_node_samples=np.rint(np.asarray(n_samples, dtype=np.float64)[pick]).astype(np.intp),
        weighted_n_node_samples=np.asarray(weight, dtype=np.float64)[pick],
        depth=depth,
        parent=parent,
    )


def _impurity(counts: np.ndarray, criterion: str) -> np.ndarray:
    total = counts.sum(axis=1, keepdims=True)
    p = counts / np.where(total > 0, total, 1.0)
    if criterion == "gini":
        return 1.0 - (p**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 0.0 - np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)


def _distributions(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(axis=1, keepdims=True)
    uniform = np.full_like(counts, 1.0 / max(counts.shape[1], 1))
    return np.where(total > 0, counts / np.where(total > 0, total, 1.0), uniform)


def _hoeffding(model, tree_index) -> Drawable:
    """The Hoeffding tree's arrays; an internal node shows the class weights of its leaves."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "classes_")
    _check_index(tree_index, 1, type(model).__name__)
    feature, left, right = model._feature, model._left, model._right
    n = feature.size
    counts = np.zeros((n, model.classes_.size))
    leaves = feature < 0
    counts[leaves] = model._class_w[model._slot[leaves]]
    for node in np.argsort(-model._depth):  # deepest first: children before parents
        if feature[node] >= 0:
            counts[node] = counts[left[node]] + counts[right[node]]
    children = [[int(left[k]), int(right[k])] if feature[k] >= 0 else [] for k in range(n)]
    criterion = "gini" if model.split_criterion == "gini" else "entropy"
    weight = counts.sum(axis=1)
    tree = _from_nodes(
        feature,
        model._threshold,
        np.full(n, NUMERIC_NODE),
        children,
        {},
        _distributions(counts),
        weight,
        weight,
        _impurity(counts, criterion),
    )
    return Drawable(
        tree=tree,
        specs=None,
        feature_names=_feature_names(model),
        class_names=_class_names(model),
        criterion=criterion,
        n_features=int(model.n_features_in_),
    )


def _id5r(model, tree_index) -> Drawable:
    """ID5R's nodes: multiway tests on categories, one child per value seen at the node."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "classes_")
    _check_index(tree_index, 1, type(model).__name__)
    test, child, counts = model._flatten()
    n = test.size
    children, routes = [], {}
    for k in range(n):
        if test[k] < 0:
            children.append([])
            continue
        values = np.flatnonzero(child[k] >= 0)
        children.append([int(c) for c in child[k, values]])
        route = np.full(len(model.categories_[test[k]]), -1, dtype=np.intp)
        route[values[values < route.size]] = np.arange(values.size)[values < route.size]
        routes[k] = route
    weight = counts.sum(axis=1)
    tree = _from_nodes(
        test,
        np.full(n, np.nan),
        np.full(n, CATEGORICAL_NODE),
        children,
        routes,
        _distributions(counts),
        weight,
        weight,
        _impurity(counts, "entropy"),
    )
    specs = [FeatureSpec(CATEGORICAL, np.asarray(c, dtype=object)) for c in model.categories_]
    return Drawable(
        tree=tree,
        specs=specs,
        feature_names=_feature_names(model),
        class_names=_class_names(model),
        criterion="entropy",
        n_features=int(model.n_features_in_),
    )


def _imported(model, tree_index) -> Drawable:
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "trees_")
    trees = list(model.trees_)
    return _boosted(model, trees, [t.value for t in trees], tree_index)


def _sources():
    from mltrees.ensemble.adaboost import AdaBoostClassifier
    from mltrees.ensemble.bagging import _ClassifierEnsemble, _RegressorEnsemble
    from mltrees.ensemble.catboost import _BaseObliviousBoosting
    from mltrees.ensemble.gradient_boosting import _BaseGradientBoosting
    from mltrees.ensemble.lightgbm import _BaseLightGBM
    from mltrees.ensemble.xgboost import _BaseXGBoost
    from mltrees.incremental.hoeffding import HoeffdingTreeClassifier
    from mltrees.incremental.id5r import ID5RClassifier
    from mltrees.io.importers import ImportedTreeModel
    from mltrees.tree.classes import _BaseTree
    from mltrees.tree.oblique import _BaseObliqueTree

    # A Dask forest exists only if its module was imported (dask is an extra,
    # and slow to import): look it up rather than import it.
    dask = sys.modules.get("mltrees.dask.forest")
    dask_forests = [] if dask is None else [(dask._DaskForest, _dask_forest)]
    return [
        *dask_forests,
        (_BaseTree, _single),
        (_BaseObliqueTree, _single),
        (_ClassifierEnsemble, _members),
        (_RegressorEnsemble, _members),
        (AdaBoostClassifier, _members),
        (_BaseGradientBoosting, _gradient_boosting),
        (_BaseXGBoost, _xgboost),
        (_BaseLightGBM, _lightgbm),
        (_BaseObliviousBoosting, _oblivious),
        (HoeffdingTreeClassifier, _hoeffding),
        (ID5RClassifier, _id5r),
        (ImportedTreeModel, _imported),
    ]


DRAWABLE = (
    "a fitted mltrees tree estimator (CART, C4.5, ID3, oblique, Hoeffding, ID5R) or tree ensemble "
    "(random forest, bagging, AdaBoost, gradient boosting, XGBoost, LightGBM, oblivious "
    "boosting, their Dask versions), or a model imported from XGBoost or LightGBM"
)


def drawable(model, tree_index: int, function: str) -> Drawable:
    """Tree ``tree_index`` of ``model`` with its labels; a TypeError for anything else."""
    for cls, source in _sources():
        if isinstance(model, cls):
            return source(model, tree_index)
    hint = ""
    if type(model).__module__.startswith("sklearn."):
        sklearn_name = {"to_dot": "export_graphviz"}.get(function, function)
        hint = f"; for scikit-learn trees use sklearn.tree.{sklearn_name}"
    raise TypeError(f"{function} expects {DRAWABLE}, got {type(model).__name__}{hint}")
