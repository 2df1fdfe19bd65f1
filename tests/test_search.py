"""The package's one value → bin search (mltrees._search.count_below)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from mltrees import _search
from mltrees._search import count_below


@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 255, 256, 1000, 70_000])
@pytest.mark.parametrize("inclusive", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_count_below_is_searchsorted_with_nan_at_zero(n, inclusive, dtype):
    rng = np.random.default_rng(n)
    table = np.unique(rng.normal(size=n).astype(dtype))
    x = np.concatenate([rng.normal(size=3000).astype(dtype), table, [np.nan, -np.inf]])
    x = x.astype(dtype)
    expected = np.searchsorted(table, x, side="right" if inclusive else "left")
    expected[np.isnan(x)] = 0
    got = count_below(table, x, inclusive=inclusive)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.intp


def test_ties_fall_on_the_side_the_comparison_says():
    table = np.array([1.0, 2.0, 2.0, 3.0])
    x = np.array([0.5, 1.0, 2.0, 2.5, 3.0, 9.0])
    np.testing.assert_array_equal(count_below(table, x), [0, 0, 1, 3, 3, 4])
    np.testing.assert_array_equal(count_below(table, x, inclusive=True), [0, 1, 3, 3, 4, 4])


def test_the_branch_free_search_is_written_once():
    """The halving loop lives in mltrees/_search.py only (it had four copies)."""
    root = pathlib.Path(_search.__file__).parent
    holders = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "padded.take(code + step)" in path.read_text(encoding="utf-8")
    )
    assert holders == ["_search.py"]
