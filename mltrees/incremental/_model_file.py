"""Incremental trees in model files: their state checked as a whole (chapter 18).

Called by the ``_rebuild_caches`` hooks of the Hoeffding tree and of ID4/ID5R
when :func:`mltrees.io.load_model` has read a fitted state: the node arrays
(or nodes) must form a tree whose statistics are consistent, so that
``partial_fit`` continues exactly where it stopped.
"""

from __future__ import annotations

import math

import numpy as np

from mltrees.io.format import (
    binary_tree_levels,
    distinct_classes,
    expect,
    expect_array,
    expect_int,
)


def _rebuild_hoeffding(estimator) -> None:
    """The node arrays form a binary tree whose leaves own distinct rows of statistics."""
    path = "HoeffdingTreeClassifier"
    K, F = distinct_classes(estimator, path), estimator.n_features_in_
    nodes = [getattr(estimator, name) for name in type(estimator)._NODE_ARRAYS]
    n = nodes[0].shape[0] if isinstance(nodes[0], np.ndarray) else 0
    for name, array in zip(type(estimator)._NODE_ARRAYS, nodes, strict=True):
        kinds = "f" if name == "_threshold" else "iu"
        expect_array(array, f"{path}.{name}", kinds=kinds, shape=(n,))
    feature, threshold = estimator._feature, estimator._threshold
    left, right, depth, slot = estimator._left, estimator._right, estimator._depth, estimator._slot
    leaf = feature < 0
    expect(
        n >= 1 and (feature >= -1).all() and (feature < F).all(),
        f"{path}._feature",
        f"-1 or a feature in [0, {F})",
    )
    expect(np.array_equal(leaf, left < 0), f"{path}._left", "children at internal nodes only")
    levels = binary_tree_levels(left, right, f"{path}._left")
    expected_depth = np.zeros(n, dtype=np.int64)
    for d, level in enumerate(levels):
        expected_depth[level] = d
    expect(np.array_equal(depth, expected_depth), f"{path}._depth", "the depth of each node")
    expect(np.isfinite(threshold[~leaf]).all(), f"{path}._threshold", "finite at internal nodes")
    shapes = {"_class_w": (K,), "_present": (K,), **dict.fromkeys(("_g_n", "_g_mean"), (F, K))}
    shapes.update(dict.fromkeys(("_key_rank", "_estimator_rank"), (K,)))
    shapes.update(dict.fromkeys(("_g_m2", "_g_min", "_g_max"), (F, K)))
    n_slots = estimator._class_w.shape[0] if isinstance(estimator._class_w, np.ndarray) else 0
    n_rows = estimator._g_n.shape[0] if isinstance(estimator._g_n, np.ndarray) else 0
    arrays = [(name, n_slots) for name in type(estimator)._SLOT_ARRAYS]
    arrays += [(name, n_rows) for name in type(estimator)._STATS_ARRAYS]
    for name, length in arrays:
        kinds = {"_present": "b", "_active": "b", "_stats": "iu"}.get(name, "f")
        array = expect_array(
            getattr(estimator, name),
            f"{path}.{name}",
            kinds=kinds,
            shape=(length, *shapes.get(name, ())),
        )
        if kinds == "f":
            expect(not np.isnan(array).any(), f"{path}.{name}", "numbers, not NaN")
            if name in ("_key_rank", "_estimator_rank"):  # river's dictionary orders
                # a new leaf's keys keep its parent's estimator ranks (below K)
                # and add ranks after them: below 2K
                ranked = array[np.isfinite(array)]
                expect(
                    ((ranked >= 0) & (ranked < 2 * K) & (ranked == ranked.round())).all(),
                    f"{path}.{name}",
                    f"whole ranks in [0, {2 * K}) or inf",
                )
            elif name not in ("_g_min", "_g_max", "_g_mean"):
                expect(
                    (array >= 0).all() and np.isfinite(array).all(),
                    f"{path}.{name}",
                    "finite values >= 0",
                )
    used = slot[leaf]
    # Freed slots and rows may have been saved as NumPy integers.
    for name in ("_free_slots", "_free_stats"):
        free = getattr(estimator, name)
        expect(
            isinstance(free, list)
            and all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in free),
            f"{path}.{name}",
            "a list of rows",
        )
        setattr(estimator, name, [int(v) for v in free])
    taken = np.concatenate([used, np.asarray(estimator._free_slots, dtype=np.int64)])
    expect(
        (slot[~leaf] == -1).all()
        and ((taken >= 0) & (taken < n_slots)).all()
        and np.unique(taken).size == taken.size,
        f"{path}._slot",
        "a distinct statistics row per leaf",
    )
    # Active leaves own distinct rows of Gaussian estimates; inactive leaves none.
    rows = estimator._stats[used]
    active = estimator._active[used]
    held = np.concatenate([rows[active], np.asarray(estimator._free_stats, dtype=np.int64)])
    expect(
        (rows[~active] == -1).all()
        and ((held >= 0) & (held < n_rows)).all()
        and np.unique(held).size == held.size,
        f"{path}._stats",
        "a distinct row of Gaussian estimates per active leaf, -1 for an inactive one",
    )
    expect(
        isinstance(estimator._growth_allowed, bool | np.bool_),
        f"{path}._growth_allowed",
        "True or False",
    )
    seen = estimator.n_samples_seen_
    expect(isinstance(seen, float) and 0 <= seen < math.inf, f"{path}.n_samples_seen_", ">= 0")


def _rebuild_id5r(estimator) -> None:
    """Counts, stored examples and category codes agree with the features and classes."""
    path = type(estimator).__name__
    K, F = distinct_classes(estimator, path), estimator.n_features_in_
    categories = estimator.categories_
    expect(
        isinstance(categories, list) and len(categories) == F,
        f"{path}.categories_",
        "one list of categories per feature",
    )
    for j, values in enumerate(categories):
        expect(isinstance(values, list), f"{path}.categories_[{j}]", "a list")
        try:
            distinct = len(set(values)) == len(values)
        except TypeError:
            distinct = False
        expect(distinct, f"{path}.categories_[{j}]", "distinct, hashable categories")
    V = expect_int(estimator._n_values, f"{path}._n_values", 1)
    expect(max(len(c) for c in categories) <= V, f"{path}._n_values", "room for every category")
    n = expect_int(estimator.n_examples_, f"{path}.n_examples_", 0)
    X = expect_array(estimator._X, f"{path}._X", kinds="iu", ndim=2, low=0)
    y = expect_array(estimator._y, f"{path}._y", kinds="iu", ndim=1, low=0, high=K - 1)
    expect(X.shape[1] == F and X.shape[0] == y.shape[0] >= n, f"{path}._X", "the examples")
    sizes = np.array([len(c) for c in categories])
    expect((X[:n] < sizes).all(), f"{path}._X", "codes of the categories")
    for name in ("n_transpositions_", "n_test_changes_", "n_discarded_"):
        if hasattr(estimator, name):
            expect_int(getattr(estimator, name), f"{path}.{name}", 0)
    stack = [estimator._root]
    while stack:
        node = stack.pop()
        expect(node.counts.shape == (F, V, K), f"{path}._root", "counts of shape (F, V, K)")
        per_feature = node.counts.sum(axis=1)
        expect(
            (per_feature == per_feature[0]).all() and per_feature[0].sum() > 0,
            f"{path}._root",
            "every node counts its examples once per feature",
        )
        expect(node.test < F, f"{path}._root", "tests of the features")
        expect(
            all(v < sizes[node.test] for v in node.children) if node.test >= 0 else True,
            f"{path}._root",
            "children by codes of the tested feature",
        )
        expect(
            node.rows is None or all(i < n for i in node.rows),
            f"{path}._root",
            "rows among the examples seen",
        )
        stack.extend(node.children.values())
    estimator._flat = None
    estimator._flatten()
