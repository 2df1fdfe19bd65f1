"""One level of an oblivious tree, computed for all nodes and columns at once (chapter 15).

``grow_oblivious`` scores every candidate from one keyed histogram of all
nodes, columns and outputs. These tests hold it to the reference written
per column (:func:`~mltrees.hist.catboost.oblivious.level_scores` on histograms
built by ``np.bincount`` one column at a time): the scores must be the same
floats, not close ones, since an exact tie between candidates decides a
split as it does in CatBoost.
"""

from __future__ import annotations

import numpy as np
import pytest

import mltrees.hist.catboost.oblivious as oblivious
from mltrees.hist.catboost.oblivious import (
    HistogramLayout,
    _sum_in_order,
    grow_oblivious,
    leaf_index,
    level_scores,
)


def _table(seed: int, n_rows: int = 300):
    """Columns of 0 to 40 borders (binary, constant, wide), gradients and weights."""
    rng = np.random.default_rng(seed)
    n_borders = np.array([1, 0, 5, 40, 1, 17, 3, 40, 2])
    codes = np.stack([rng.integers(0, b + 1, n_rows) for b in n_borders]).astype(np.uint8)
    S = rng.normal(size=(n_rows, 4)) * 10.0 ** rng.integers(-3, 3, size=(n_rows, 1))
    W = rng.uniform(0.2, 3.0, n_rows)
    return codes, n_borders, S, W


def _reference_scores(codes, n_borders, S, W, node, n_nodes, lam, score_function):
    """level_scores of each column alone, on histograms summed by ``np.bincount``.

    A column of one border has two bins, whose sides CatBoost sums directly.
    """
    out = np.full((len(codes), int(n_borders.max())), -np.inf)
    for f, row in enumerate(codes):
        width = max(2, int(n_borders[f]) + 1)
        key = node * width + row

        def hist(values, key=key, width=width):
            return np.bincount(key, values, minlength=n_nodes * width).reshape(1, n_nodes, width)

        S_hist = np.stack([hist(S[:, k]) for k in range(S.shape[1])])
        scores = level_scores(
            S_hist, hist(W), S_hist, hist(W), n_borders[f : f + 1], lam, score_function
        )
        out[f, : width - 1] = scores[0]
    return out


@pytest.mark.parametrize("score_function", ["Cosine", "L2"])
@pytest.mark.parametrize("n_outputs", [1, 3, 4])
@pytest.mark.parametrize("chunked", [False, True])
def test_every_level_scores_as_the_per_column_reference(
    score_function, n_outputs, chunked, monkeypatch
):
    codes, n_borders, S, W = _table(seed=n_outputs)
    S = S[:, :n_outputs]
    if chunked:  # large-data path: a few columns per call, a few nodes per temporary
        monkeypatch.setattr(oblivious, "CHUNK_ENTRIES", 2 * codes.shape[1])
        monkeypatch.setattr(oblivious, "SCORE_CHUNK", 1)
    order = np.random.default_rng(7).permutation(len(n_borders))
    trace = []
    feature, border, n_levels = grow_oblivious(
        codes, n_borders, 4, S, W, 2.5, score_function, order=order, trace=trace
    )
    assert n_levels == 4
    for level, scores in enumerate(trace):
        node = leaf_index(codes, feature[:level], border[:level])
        expected = _reference_scores(codes, n_borders, S, W, node, 1 << level, 2.5, score_function)
        np.testing.assert_array_equal(scores, expected)
        # The first best candidate in the given column order was chosen.
        ranked = expected[order]
        f, b = divmod(int(np.argmax(ranked)), ranked.shape[1])
        assert (order[f], b) == (feature[level], border[level])


def test_unit_weights_count_rows_as_weights_of_one():
    codes, n_borders, S, _ = _table(seed=3)
    ones = np.ones(codes.shape[1])
    counted = grow_oblivious(codes, n_borders, 5, S[:, :1], None, 1.0, "Cosine")
    weighted = grow_oblivious(codes, n_borders, 5, S[:, :1], ones, 1.0, "Cosine")
    for a, b in zip(counted, weighted, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape", [(1, 5), (9, 1), (9, 2), (130, 3), (64, 1000), (3, 4, 7)])
def test_sums_in_order_add_one_term_after_the_other(shape):
    rng = np.random.default_rng(len(shape))
    terms = rng.normal(size=shape) * 10.0 ** rng.integers(-12, 12, size=shape)
    rows = terms.reshape(-1, shape[-1])
    expected = rows[0] + 1e-100
    for row in rows[1:]:
        expected = expected + row
    np.testing.assert_array_equal(_sum_in_order(terms.copy(), 1e-100), expected)


def test_layout_reads_each_candidate_in_the_given_order():
    codes, n_borders, _, _ = _table(seed=0)
    order = np.arange(len(n_borders))[::-1]
    layout = HistogramLayout.build(codes, n_borders, order)
    expected = [(f, b) for f in order for b in range(n_borders[f])]
    got = list(zip(layout.candidate_column.tolist(), layout.candidate_border.tolist(), strict=True))
    assert got == expected
    assert len(set(layout.candidate_cell.tolist())) == len(expected)
    assert layout.cell.max() < layout.size
