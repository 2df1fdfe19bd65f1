"""Tree ``tree_index`` of any fitted mltrees model, as the renderers of :mod:`export` read it.

``export_text``, ``to_dot`` and ``plot_tree`` draw one flat-array
:class:`~mltrees.tree.Tree`. A single tree estimator has one; an
ensemble has many, numbered as their owners number them (LightGBM's
``tree_index``, XGBoost's ``tree_idx``): forests, bagging and AdaBoost by
member; gradient boosting, XGBoost, LightGBM and oblivious boosting by round,
then by output within a round (``round * n_outputs + output``). The Hoeffding
tree and ID5R keep their own node structures and are converted to one.

Each estimator hands one of its trees over in its own method
``_drawable_tree(self, tree_index) -> Drawable``, written next to the state
it reads (as it writes its ``_tree_model_view`` for the explainers); this
module holds what those methods share: the :class:`Drawable` record, the
check of ``tree_index``, labels, and the conversion of node lists to a
:class:`~mltrees.tree.Tree`.

What a node shows depends on what its tree predicts: class distributions for
the trees of forests, bagging and AdaBoost (and the single classifiers), a
value for regression trees and for the trees of boosting, whose leaves add to
a margin (the learning rate included, as XGBoost and LightGBM draw them).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import numpy as np

from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, Tree

__all__ = [
    "Drawable",
    "boosted_drawable",
    "check_tree_index",
    "class_distributions",
    "class_impurity",
    "class_names",
    "drawable",
    "feature_names",
    "forest_member_drawable",
    "member_drawable",
    "single_drawable",
    "tree_from_nodes",
]


@dataclass
class Drawable:
    """One tree to draw and how to label it."""

    tree: Tree
    specs: list | None  # per feature: a FeatureSpec whose values name the category codes
    feature_names: list[str] | None  # None: the estimator has none, use feature_j
    class_names: list[str] | None  # None: nodes show a value
    criterion: str
    n_features: int


def check_tree_index(tree_index, n_trees: int, owner: str) -> int:
    if isinstance(tree_index, bool) or not isinstance(tree_index, numbers.Integral):
        raise TypeError(f"tree_index must be an int, got {tree_index!r}")
    if not -n_trees <= tree_index < n_trees:
        trees = "one tree (tree_index=0)" if n_trees == 1 else f"{n_trees} trees"
        raise ValueError(f"tree_index={tree_index} is out of range: {owner} has {trees}")
    return int(tree_index) % n_trees


def feature_names(model) -> list[str] | None:
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(v) for v in names]


def class_names(model) -> list[str] | None:
    classes = getattr(model, "classes_", None)
    return None if classes is None else [str(c) for c in classes]


def _as_values(tree: Tree, table) -> Tree:
    """The tree with ``table`` (its nodes' contributions) as the values it shows."""
    return replace(tree, value=np.asarray(table, dtype=np.float64).reshape(tree.node_count, -1))


def single_drawable(model, tree_index) -> Drawable:
    """A single mltrees tree estimator (CART, C4.5, ID3, oblique)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "tree_")
    check_tree_index(tree_index, 1, type(model).__name__)
    criterion = str(getattr(model, "criterion", "impurity"))
    return Drawable(
        tree=model.tree_,
        specs=getattr(model, "_specs", None),
        feature_names=feature_names(model),
        class_names=class_names(model),
        criterion="entropy" if criterion == "log_loss" else criterion,
        n_features=int(model.n_features_in_),
    )


def member_drawable(model, tree_index, is_tree) -> Drawable:
    """Forests, bagging and AdaBoost: member ``tree_index``, an mltrees tree estimator.

    ``is_tree(member)`` says whether a member is a tree this module can draw
    (the ensemble passes ``TreeBuilder.accepts``: this module does not import
    the tree estimators, which import it).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "estimators_")
    i = check_tree_index(tree_index, len(model.estimators_), type(model).__name__)
    member = model.estimators_[i]
    if not is_tree(member):
        raise TypeError(
            f"member {i} of {type(model).__name__} is a {type(member).__name__}, not an "
            "mltrees tree: it cannot be drawn"
        )
    drawn = single_drawable(member, 0)
    drawn.feature_names = feature_names(model)
    drawn.n_features = int(model.n_features_in_)
    return drawn


def forest_member_drawable(model, tree_index, is_tree) -> Drawable:
    """The Dask forests: member ``tree_index``, a one-tree forest grown on a worker."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "estimators_")
    i = check_tree_index(tree_index, len(model.estimators_), type(model).__name__)
    drawn = member_drawable(model.estimators_[i], 0, is_tree)  # its classes: those its sample held
    drawn.feature_names = feature_names(model)
    return drawn


def boosted_drawable(model, trees, tables, tree_index, specs=None) -> Drawable:
    """A tree of a boosting model: its leaves show what they add to the margin."""
    i = check_tree_index(tree_index, len(trees), type(model).__name__)
    return Drawable(
        tree=_as_values(trees[i], tables[i]),
        specs=specs,
        feature_names=feature_names(model),
        class_names=None,
        criterion="impurity",
        n_features=int(model.n_features_in_),
    )


def tree_from_nodes(feature, threshold, kind, children, routes, value, n_samples, weight, impurity):
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


def class_impurity(counts: np.ndarray, criterion: str) -> np.ndarray:
    total = counts.sum(axis=1, keepdims=True)
    p = counts / np.where(total > 0, total, 1.0)
    if criterion == "gini":
        return 1.0 - (p**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 0.0 - np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)


def class_distributions(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(axis=1, keepdims=True)
    uniform = np.full_like(counts, 1.0 / max(counts.shape[1], 1))
    return np.where(total > 0, counts / np.where(total > 0, total, 1.0), uniform)


DRAWABLE = (
    "a fitted mltrees tree estimator (CART, C4.5, ID3, oblique, Hoeffding, ID5R) or tree ensemble "
    "(random forest, bagging, AdaBoost, gradient boosting, XGBoost, LightGBM, oblivious "
    "boosting, their Dask versions), or a model imported from XGBoost or LightGBM"
)


def drawable(model, tree_index: int, function: str) -> Drawable:
    """Tree ``tree_index`` of ``model`` with its labels; a TypeError for anything else."""
    hook = getattr(model, "_drawable_tree", None)
    if hook is not None:  # every mltrees tree model draws its own trees
        return hook(tree_index)
    hint = ""
    if type(model).__module__.startswith("sklearn."):
        sklearn_name = {"to_dot": "export_graphviz"}.get(function, function)
        hint = f"; for scikit-learn trees use sklearn.tree.{sklearn_name}"
    raise TypeError(f"{function} expects {DRAWABLE}, got {type(model).__name__}{hint}")
