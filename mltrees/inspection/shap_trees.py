"""Hand an mltrees tree model to the ``shap`` package (chapter 17).

``shap.TreeExplainer`` accepts a model given as a dictionary of trees in its
own documented custom format (``children_left``, ``children_right``,
``children_default``, ``features``, ``thresholds``, ``values``,
``node_sample_weight``; binary trees testing ``x <= threshold``).
:func:`to_shap_trees` writes any model that :func:`~mltrees.inspection.tree_shap`
explains in that format, so that shap's own algorithms (its TreeSHAP, its
interaction values, its Saabas values, its plots) run on exactly the trees
mltrees grew.
"""

from __future__ import annotations

import numpy as np

from mltrees.tree._tree import CATEGORICAL_NODE, MISSING_ALL_BRANCHES
from mltrees.tree.view import view_of

__all__ = ["to_shap_trees"]

VANISHING = 1e-20  # cover ratio standing for 0, which shap refuses


def to_shap_trees(
    model, *, rows_without_missing: bool = False, single_precision: bool = False
) -> dict:
    """A fitted mltrees tree model as ``shap``'s custom-tree dictionary (chapter 17).

    ``shap.TreeExplainer(to_shap_trees(model))`` explains the same output as
    :func:`~mltrees.inspection.tree_shap` (its path-dependent game): the
    margin of boosting, the class probabilities of averaging classifiers.
    Rows are given to shap already encoded, as
    :func:`~mltrees.inspection.view_of` ``(model).encode(X)`` returns them
    (category codes, NaN for missing values).

    A numeric node becomes a node of the same test (NaN to its default child).
    A categorical or multiway node becomes a chain of threshold nodes on the
    same feature, one per run of consecutive category codes with the same
    branch; a branch reached by several runs is copied, each copy with an
    equal share of the branch's cover. On any path the chain's cover shares
    multiply to the branch's share of the node, and known values follow the
    chain to the branch they took, so the path-dependent game (and every
    Shapley and interaction value) is the one of the original tree. Codes the
    node never saw end in a leaf holding the node's value, with cover 0, and a
    branch that no code reaches keeps its cover behind a test no code passes.

    shap refuses covers of 0 (``fully_defined_weighting``); mltrees gives an
    edge into a node of cover 0 the share 0. A node of cover 0 at depth ``k``
    therefore gets the cover ``1e-20 ** (k + 1)``: its share of its parent is
    at most 1e-20 (and stays far from underflow up to depth 14).

    Parameters
    ----------
    model : fitted mltrees tree model, or a :class:`~mltrees.inspection.TreeModelView`
    rows_without_missing : bool, default False
        C4.5 trees send a missing value down every branch, shap's trees to
        one child. True: write such nodes anyway, sending missing values to
        the branch of the largest cover; shap's values then equal mltrees'
        only for rows without missing values at those nodes. False: refuse.
    single_precision : bool, default False
        shap 0.51's interventional kernel (``feature_perturbation=
        "interventional"``, ``tree_shap_indep`` in its ``tree_shap.h``) keeps
        thresholds in single precision, its path-dependent code in double. A
        test ``x < 11`` is written ``x <= 11^-`` (the largest double below
        11), which is 11 again in single precision: rows with the value 11
        take the wrong branch there. True: lower every threshold to the
        largest float32 not above it, so that every float32-representable
        value is routed as the model routes it in both precisions (integers of
        magnitude up to 2**24 among them), provided shap is given the rows as
        the model reads them: for a model that reads float32 (the
        XGBoost-style models), ``view_of(model).encode(X)``; a value strictly
        between that float32
        and the threshold would then take the other branch. Use True with
        the interventional kernel on such data, False otherwise. (shap keeps
        a random 100 rows of a background given as a plain array; pass
        ``shap.maskers.Independent(data, max_samples=len(data))`` to use
        them all.)

    Returns
    -------
    dict
        ``{"trees": [...], "base_offset": ndarray}``.

    Raises
    ------
    ValueError
        For C4.5 trees that send a missing value down every branch, unless
        ``rows_without_missing``.
    """
    view = view_of(model)
    if not isinstance(rows_without_missing, bool):
        raise TypeError(f"rows_without_missing must be True or False, got {rows_without_missing!r}")
    if view.splits_missing() and not rows_without_missing:
        raise ValueError(
            "this model sends missing values down every branch (C4.5), shap's trees to one "
            "child: pass rows_without_missing=True to explain rows without missing values"
        )
    if not isinstance(single_precision, bool):
        raise TypeError(f"single_precision must be True or False, got {single_precision!r}")
    trees = [
        _shap_tree(tree, np.asarray(table, dtype=np.float64), columns, view.n_outputs)
        for tree, table, columns in zip(view.trees, view.tables, view.columns, strict=True)
    ]
    if single_precision:
        for tree in trees:
            tree["thresholds"] = _float32_floor(tree["thresholds"])
    return {"trees": trees, "base_offset": np.asarray(view.base, dtype=np.float64)}


def _float32_floor(thresholds: np.ndarray) -> np.ndarray:
    """The largest float32 not above each threshold, as float64 (see ``single_precision``)."""
    single = thresholds.astype(np.float32)
    single = np.where(
        single.astype(np.float64) > thresholds, np.nextafter(single, np.float32(-np.inf)), single
    )
    return single.astype(np.float64)


def _shap_tree(tree, table, columns, m):
    """One tree as shap's custom-tree dictionary (see :func:`to_shap_trees`)."""
    nodes: list[dict] = []

    def new(cover, depth, value=None, feature=-2, threshold=0.0):
        nodes.append(
            {
                "feature": feature,
                "threshold": threshold,
                "left": -1,
                "right": -1,
                "default": -1,
                "value": np.zeros(m) if value is None else value,
                "cover": cover,
                "shap_cover": cover if cover > 0 else VANISHING ** (depth + 1),
            }
        )
        return len(nodes) - 1

    def full(node):
        value = np.zeros(m)
        value[columns] = table[node]
        return value

    def build(node, scale, depth):
        cover = float(tree.weighted_n_node_samples[node]) * scale
        if tree.is_leaf[node]:
            return new(cover, depth, full(node))
        feature = int(tree.feature[node])
        children = tree.first_child[node] + np.arange(tree.n_children[node])
        missing = int(tree.missing_slot[node])
        if tree.kind[node] != CATEGORICAL_NODE:
            at = new(cover, depth, feature=feature, threshold=float(tree.threshold[node]))
            nodes[at]["left"] = build(children[0], scale, depth + 1)
            nodes[at]["right"] = build(children[1], scale, depth + 1)
            if missing == MISSING_ALL_BRANCHES:  # rows_without_missing: the largest branch
                covers = tree.weighted_n_node_samples[children]
                missing = int(np.argmax(covers))
            nodes[at]["default"] = nodes[at]["right" if missing == 1 else "left"]
            return at
        codes = int(tree.n_categories[node])
        route = tree.route_table[tree.route_offset[node] + np.arange(codes)]
        runs = []  # (last code, slot); slot -1: the row stops at the node
        for code, slot in enumerate(route):
            if runs and runs[-1][1] == slot:
                runs[-1] = (code, slot)
            else:
                runs.append((code, int(slot)))
        runs.append((np.inf, -1))  # codes the node never saw
        # Branches that no code reaches at prediction still hold training
        # cover (CatBoost's ordered statistics route training rows by their
        # running statistic): a run below every code keeps their share.
        unreached = sorted(set(range(int(tree.n_children[node]))) - {s for _, s in runs})
        runs = [(-2.0, slot) for slot in unreached] + runs
        copies = {slot: sum(1 for _, s in runs if s == slot) for _, slot in runs}
        # the k-th chain node sits at depth + k, its run's element one deeper
        elements = [
            new(0.0, depth + k + 1, full(node))
            if slot < 0
            else build(children[slot], scale / copies[slot], depth + k + 1)
            for k, (_, slot) in enumerate(runs)
        ]
        covers = [nodes[e]["cover"] for e in elements]
        right = elements[-1]
        for k in range(len(runs) - 2, -1, -1):
            at = new(float(sum(covers[k:])), depth + k, feature=feature, threshold=runs[k][0] + 0.5)
            nodes[at]["left"], nodes[at]["right"] = elements[k], right
            nodes[at]["default"] = elements[k]
            right = at
        return right

    root = build(0, 1.0, 0)
    order = [root] + [i for i in range(len(nodes)) if i != root]  # shap reads node 0 as the root
    new_id = {old: new_index for new_index, old in enumerate(order)}

    def column(key, dtype, link=False):
        values = [nodes[i][key] for i in order]
        if link:
            values = [-1 if v < 0 else new_id[v] for v in values]
        return np.array(values, dtype=dtype)

    return {
        "children_left": column("left", np.int64, link=True),
        "children_right": column("right", np.int64, link=True),
        "children_default": column("default", np.int64, link=True),
        "features": column("feature", np.int64),
        "thresholds": column("threshold", np.float64),
        "values": column("value", np.float64),
        "node_sample_weight": column("shap_cover", np.float64),
    }
