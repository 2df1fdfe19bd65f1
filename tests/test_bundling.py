"""Exclusive feature bundling: greedy bundles, merged codes, and histograms read back."""

import numpy as np
import pytest

from mltrees.hist.histogram import build_histograms
from mltrees.hist.lightgbm.bundling import (
    bundle_codes,
    bundled_stride,
    conflict_matrix,
    find_bundles,
    most_frequent_bins,
    unbundle_histogram,
)
from mltrees.hist.xgboost.splitting import SplitParams, find_best_splits


def _one_hot(categories, n_categories):
    return (categories[None, :] == np.arange(n_categories)[:, None]).astype(np.uint8)


def _rows_of(n_rows, nonzero):
    """Feature-major 0/1 codes from the non-default rows of each feature."""
    codes = np.zeros((len(nonzero), n_rows), dtype=np.uint8)
    for f, rows in enumerate(nonzero):
        codes[f, list(rows)] = 1
    return codes


def _mixed_data(n=3000, seed=0):
    """Two one-hot blocks, a sparse count feature with missing values, a dense feature."""
    rng = np.random.default_rng(seed)
    a = _one_hot(rng.integers(0, 9, n), 9)
    b = _one_hot(rng.integers(0, 5, n), 5)
    stride = 8  # bins 0..6, missing code 7
    sparse = np.where(rng.random(n) < 0.85, 3, rng.integers(0, 7, n)).astype(np.uint8)  # default 3
    sparse[rng.random(n) < 0.05] = 7  # missing values
    mostly_missing = np.where(rng.random(n) < 0.7, 7, rng.integers(0, 4, n)).astype(np.uint8)
    dense = rng.integers(0, 7, n).astype(np.uint8)
    codes = np.vstack([a, b, sparse, mostly_missing, dense])
    n_bins = np.array([2] * 14 + [7, 4, 7])
    return codes, n_bins, stride


def _groups(n, n_groups, rng):
    order = rng.permutation(n).astype(np.intp)
    cuts = np.sort(rng.choice(np.arange(1, n), n_groups - 1, replace=False))
    starts = np.r_[0, cuts].astype(np.intp)
    counts = np.diff(np.r_[starts, n]).astype(np.intp)
    return order, starts, counts


def test_most_frequent_bins():
    codes = np.array([[0, 1, 1, 2], [3, 3, 0, 0], [5, 5, 5, 1]], dtype=np.uint8)
    assert most_frequent_bins(codes, 8).tolist() == [1, 0, 5]  # a tie goes to the smaller code


def test_conflict_matrix_by_hand():
    codes = _rows_of(10, [{0, 1, 2, 3}, {3, 4, 5}, {0, 1, 6}, {7, 8}, {2, 4, 9}])
    expected = np.array(
        [
            [4, 1, 2, 0, 1],
            [1, 3, 0, 0, 1],
            [2, 0, 3, 0, 0],
            [0, 0, 0, 2, 0],
            [1, 1, 0, 0, 3],
        ]
    )
    np.testing.assert_array_equal(conflict_matrix(codes, np.zeros(5, dtype=int)), expected)


@pytest.mark.parametrize(
    ("rate", "order", "expected"),
    [
        # budget int(0.2 * 10) = 2 conflicting rows per bundle, worked out in the docstring below
        (0.2, "count", [[0, 1, 3], [2, 4]]),
        (0.0, "count", [[0, 3], [1, 2], [4]]),
        (0.0, "degree", [[0, 3], [1, 2], [4]]),
        (0.0, "input", [[0, 3], [1, 2], [4]]),
    ],
)
def test_greedy_by_hand(rate, order, expected):
    """Features f0..f4 non-default in rows {0,1,2,3}, {3,4,5}, {0,1,6}, {7,8}, {2,4,9}.

    Count order f0, f1, f2, f4, f3. With a budget of 2: f1 joins f0 (1
    conflict, row 3); f2 would add 2 more (rows 0, 1): new bundle; f4 would
    add rows 2 and 4 to the first, none to the second; f3 conflicts with
    nothing and joins the first. With no budget f1 opens a second bundle,
    f2 joins it, f4 conflicts with both.
    """
    codes = _rows_of(10, [{0, 1, 2, 3}, {3, 4, 5}, {0, 1, 6}, {7, 8}, {2, 4, 9}])
    bundles = find_bundles(codes, np.zeros(5, dtype=int), rate, order=order)
    assert [b.tolist() for b in bundles] == expected


def _crown():
    """Crown graph: u_i and v_j conflict for i != j (one row per edge); u_i = 2i, v_i = 2i + 1.

    Every u has one more row of its own, so counts put all u's first.
    """
    nonzero = [set() for _ in range(8)]
    row = 0
    for i in range(4):
        for j in range(4):
            if i != j:
                nonzero[2 * i].add(row)
                nonzero[2 * j + 1].add(row)
                row += 1
    for i in range(4):
        nonzero[2 * i].add(row)
        row += 1
    return _rows_of(row, nonzero)


def test_order_matters_on_the_crown_graph():
    codes = _crown()
    zero = np.zeros(8, dtype=int)
    # column order alternates the two sides: every pair (u_i, v_i) needs a new bundle
    assert [b.tolist() for b in find_bundles(codes, zero, order="input")] == [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
    ]
    # equal degrees (3): the degree order is the column order
    assert len(find_bundles(codes, zero, order="degree")) == 4
    two = [[0, 2, 4, 6], [1, 3, 5, 7]]  # the two sides: an optimal colouring
    assert [b.tolist() for b in find_bundles(codes, zero, order="count")] == two
    assert [b.tolist() for b in find_bundles(codes, zero, order="lightgbm")] == two


def test_graph_colouring_reduction_gives_a_proper_colouring():
    # A 5-cycle as data: a row per edge, a feature per vertex; chromatic number 3.
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    codes = _rows_of(5, [{e for e, edge in enumerate(edges) if v in edge} for v in range(5)])
    bundles = find_bundles(codes, np.zeros(5, dtype=int), order="input")
    assert [b.tolist() for b in bundles] == [[0, 2], [1, 3], [4]]
    colour = np.empty(5, dtype=int)
    for c, b in enumerate(bundles):
        colour[b] = c
    assert all(colour[u] != colour[v] for u, v in edges)


@pytest.mark.parametrize("rate", [0.0, 0.01, 0.05, 0.2])
def test_conflict_budget_is_respected(rate):
    rng = np.random.default_rng(4)
    n, n_features = 2000, 40
    codes = (rng.random((n_features, n)) < rng.uniform(0.005, 0.08, (n_features, 1))).astype(
        np.uint8
    )
    bundles = find_bundles(codes, np.zeros(n_features, dtype=int), rate)
    assert sorted(np.concatenate(bundles).tolist()) == list(range(n_features))
    budget = int(rate * n)
    for b in bundles:
        per_row = (codes[b] != 0).sum(axis=0)
        assert np.maximum(per_row - 1, 0).sum() <= budget
    if rate > 0:
        assert len(bundles) < len(find_bundles(codes, np.zeros(n_features, dtype=int), 0.0))


def test_max_bins_per_bundle():
    rng = np.random.default_rng(0)
    codes = _one_hot(rng.integers(0, 10, 500), 10)
    n_bins = np.full(10, 2)
    bundles = find_bundles(codes, np.zeros(10, dtype=int), 0.0, n_bins, max_bins_per_bundle=6)
    assert [b.size for b in bundles] == [5, 5]  # code 0 and five one-slot features
    bundled, offsets = bundle_codes(codes, bundles, np.zeros(10, dtype=int), n_bins)
    assert [o[-1] for o in offsets] == [6, 6]
    assert bundled.max() == 5
    assert len(find_bundles(codes, np.zeros(10, dtype=int), 0.0, n_bins)) == 1


def test_bundle_codes_by_hand_and_conflict_rule():
    # f0 non-default (bin 1) in rows 0 and 2, f1 (bin 2) in rows 1 and 2: row 2 conflicts.
    codes = np.array([[1, 0, 1, 0], [0, 2, 2, 0]], dtype=np.uint8)
    n_bins = np.array([3, 3])
    bundled, offsets = bundle_codes(codes, [np.array([0, 1])], np.array([0, 0]), n_bins, stride=4)
    assert offsets[0].tolist() == [1, 3, 5]  # f0 owns codes 1, 2 (bins 1, 2); f1 codes 3, 4
    assert bundled.tolist() == [[1, 4, 4, 0]]  # the later feature wins row 2
    # read back: row 2 is lost to f0 and counted in its default bin
    hist = build_histograms(bundled, 5, (None,))
    back = unbundle_histogram(hist, [np.array([0, 1])], offsets, [0, 0], n_bins, 4, [[4.0]])
    assert back[0, 0, :, 0].tolist() == [3.0, 1.0, 0.0, 0.0]
    assert back[0, 1, :, 0].tolist() == [2.0, 0.0, 2.0, 0.0]


def test_non_zero_default_and_missing_slots():
    # default bin 2 (of 4 bins) and missing values: slots for bins 0, 1, 3 and missing.
    codes = np.array([[2, 0, 2, 7, 3, 2], [0, 0, 1, 0, 0, 0]], dtype=np.uint8)
    n_bins = np.array([4, 2])
    bundled, offsets = bundle_codes(codes, [np.array([0, 1])], np.array([2, 0]), n_bins, stride=8)
    assert offsets[0].tolist() == [1, 5, 6]
    assert bundled.tolist() == [[0, 1, 5, 4, 3, 0]]  # bin 0 -> 1, bin 3 -> 3, missing -> 4


def test_single_feature_bundles_keep_their_codes():
    codes, n_bins, stride = _mixed_data(500)
    default = most_frequent_bins(codes, stride)
    bundles = [np.array([f]) for f in range(codes.shape[0])]
    bundled, offsets = bundle_codes(codes, bundles, default, n_bins, stride)
    np.testing.assert_array_equal(bundled, codes)
    assert bundled_stride(offsets) == stride


@pytest.mark.parametrize("order", ["count", "degree", "lightgbm"])
def test_lossless_at_zero_conflict_rate(order):
    codes, n_bins, stride = _mixed_data()
    n = codes.shape[1]
    default = most_frequent_bins(codes, stride)
    assert default[14] == 3
    assert default[15] == 7  # mostly missing: the missing code is the default
    bundles = find_bundles(codes, default, 0.0, n_bins, stride, order=order)
    assert len(bundles) < codes.shape[0]
    assert any(b.size > 1 for b in bundles)
    bundled, offsets = bundle_codes(codes, bundles, default, n_bins, stride)
    rng = np.random.default_rng(1)
    # integer statistics: every sum is exact, so equality must be exact
    g = rng.integers(-50, 50, n).astype(float)
    h = rng.integers(1, 9, n).astype(float)
    order_, starts, counts = _groups(n, 5, rng)
    stats = (g, h, None)
    original = build_histograms(codes, stride, stats, order_, starts, counts)
    merged = build_histograms(bundled, bundled_stride(offsets), stats, order_, starts, counts)
    totals = np.stack(
        [
            [g[order_[s : s + c]].sum(), h[order_[s : s + c]].sum(), c]
            for s, c in zip(starts, counts, strict=True)
        ]
    )
    back = unbundle_histogram(merged, bundles, offsets, default, n_bins, stride, totals)
    assert back.shape == original.shape
    np.testing.assert_array_equal(back, original)
    # float statistics: equal up to the rounding of total minus the rest
    g = rng.normal(size=n)
    original = build_histograms(codes, stride, (g,))
    merged = build_histograms(bundled, bundled_stride(offsets), (g,))
    back = unbundle_histogram(merged[0], bundles, offsets, default, n_bins, stride, [g.sum()])
    np.testing.assert_allclose(back, original[0], rtol=0, atol=1e-11)


def test_same_best_splits_with_and_without_bundles():
    codes, n_bins, stride = _mixed_data(4000, seed=3)
    n = codes.shape[1]
    rng = np.random.default_rng(2)
    signal = codes[2] + 2 * (codes[10] == 1) - (codes[14] < 3) + 0.5 * (codes[16] > 3)
    g = -(signal + rng.normal(size=n))
    h = np.ones(n)
    default = most_frequent_bins(codes, stride)
    bundles = find_bundles(codes, default, 0.0, n_bins, stride)
    bundled, offsets = bundle_codes(codes, bundles, default, n_bins, stride)
    order_, starts, counts = _groups(n, 4, rng)
    original = build_histograms(codes, stride, (g, h), order_, starts, counts)
    merged = build_histograms(bundled, bundled_stride(offsets), (g, h), order_, starts, counts)
    totals = original[:, 0].sum(axis=1)
    back = unbundle_histogram(merged, bundles, offsets, default, n_bins, stride, totals)
    params = SplitParams(reg_lambda=1.0)
    a = find_best_splits(original, totals, n_bins, params)
    b = find_best_splits(back, totals, n_bins, params)
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.split_bin, b.split_bin)
    np.testing.assert_allclose(a.gain, b.gain, rtol=1e-12)


def test_bad_input():
    codes = np.zeros((3, 10), dtype=np.uint8)
    zero = np.zeros(3, dtype=int)
    with pytest.raises(ValueError, match="codes must have shape"):
        find_bundles(np.zeros(10, dtype=np.uint8), zero)
    with pytest.raises(TypeError, match="codes must be an integer array"):
        find_bundles(codes.astype(float), zero)
    with pytest.raises(ValueError, match="default_bins must be an integer array of shape"):
        find_bundles(codes, np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="max_conflict_rate"):
        find_bundles(codes, zero, 1.0)
    with pytest.raises(ValueError, match="order"):
        find_bundles(codes, zero, order="random")
    with pytest.raises(ValueError, match="max_bins_per_bundle"):
        find_bundles(codes, zero, 0.0, np.full(3, 2), max_bins_per_bundle=1)
    n_bins = np.full(3, 2)
    with pytest.raises(ValueError, match="exactly once"):
        bundle_codes(codes, [np.array([0, 1])], zero, n_bins)
    with pytest.raises(ValueError, match="exactly once"):
        bundle_codes(codes, [np.array([0, 1]), np.array([1, 2])], zero, n_bins)
    bad = codes.copy()
    bad[1, 0] = 2  # a bin code beyond n_bins = 2 that is not the missing code (3)?
    with pytest.raises(ValueError, match="exceed its n_bins"):
        bundle_codes(bad, [np.arange(3)], zero, n_bins, stride=4)
    with pytest.raises(ValueError, match="default_bins must be a bin"):
        bundle_codes(codes, [np.arange(3)], np.array([0, 2, 0]), n_bins, stride=4)
    bundled, offsets = bundle_codes(codes, [np.arange(3)], zero, n_bins)
    hist = build_histograms(bundled, bundled_stride(offsets), (None,))
    with pytest.raises(ValueError, match="totals must have shape"):
        unbundle_histogram(hist, [np.arange(3)], offsets, zero, n_bins, 3, [10.0])
    with pytest.raises(ValueError, match="bundle_hist must have shape"):
        unbundle_histogram(hist[0, 0], [np.arange(3)], offsets, zero, n_bins, 3, [10.0])
    with pytest.raises(ValueError, match="bundles"):
        unbundle_histogram(
            hist, [np.array([0]), np.array([1, 2])], offsets, zero, n_bins, 3, [[10.0]]
        )
