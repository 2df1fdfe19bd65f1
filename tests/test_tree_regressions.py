"""Regression tests for bugs found while writing the book."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mltrees import CARTClassifier


def test_dataframe_prediction_does_not_read_uninitialised_memory():
    """encode_features once checked its np.empty buffer for inf before filling it."""
    X = pd.DataFrame({"a": [0.0, 1, 2, 3], "b": [1.0, 0, 1, 0]})
    model = CARTClassifier().fit(X, [0, 1, 0, 1])
    for _ in range(50):
        junk = np.full((3, 2), np.inf, order="F")  # leave inf in freed memory
        del junk
        assert model.predict(X.iloc[:3]).tolist() == [0, 1, 0]


def test_apply_in_chunks_equals_apply_row_by_row_blocks():
    """Tree.apply splits large inputs into cache-sized chunks; results must not change."""
    from sklearn.datasets import make_classification

    from mltrees.tree._tree import APPLY_CHUNK

    X, y = make_classification(n_samples=2 * APPLY_CHUNK + 123, n_features=6, random_state=0)
    model = CARTClassifier(max_depth=8, max_bins=32).fit(X, y)
    whole = model.apply(X)
    pieces = np.concatenate(
        [model.apply(X[start : start + 1000]) for start in range(0, len(X), 1000)]
    )
    np.testing.assert_array_equal(whole, pieces)
    # decision_path does not chunk; its deepest node per row must be the applied leaf.
    path = model.decision_path(X).tocsr()
    deepest = np.array(
        [row.indices[np.argmax(model.tree_.depth[row.indices])] for row in path[:50]]
    )
    np.testing.assert_array_equal(deepest, whole[:50])
