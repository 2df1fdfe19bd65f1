"""The subtraction trick, written once (mltrees.hist.histogram.children_histograms)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import mltrees.hist
from mltrees.hist.histogram import children_histograms


@pytest.mark.parametrize("n_pairs", [1, 2, 5])
def test_children_are_the_built_one_and_the_parent_minus_it(n_pairs):
    rng = np.random.default_rng(n_pairs)
    shape = (n_pairs, 4, 9, 2)
    # Magnitudes far apart: any other order of operations than one subtraction shows.
    parents = rng.normal(size=shape) * 10.0 ** rng.integers(-8, 8, size=shape)
    built = rng.normal(size=shape) * 10.0 ** rng.integers(-8, 8, size=shape)
    small_is_right = rng.random(n_pairs) < 0.5
    children = children_histograms(parents, built, small_is_right)
    assert children.shape == (2 * n_pairs, 4, 9, 2)
    for k in range(n_pairs):
        small, large = 2 * k + small_is_right[k], 2 * k + 1 - small_is_right[k]
        assert children[small].tobytes() == built[k].tobytes()
        assert children[large].tobytes() == (parents[k] - built[k]).tobytes()


def test_the_subtraction_trick_is_written_once():
    """The growers call children_histograms; none subtracts a built child itself."""
    root = pathlib.Path(mltrees.hist.__file__).parent
    callers = sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if "children_histograms(" in path.read_text()
    )
    assert callers == ["grower.py", "histogram.py", "lightgbm/leafwise.py"]
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert "- built" not in text, path.name
        assert "subtract(parent_hist" not in text, path.name
