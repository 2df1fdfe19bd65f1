"""Regression tests for bugs found while writing the book.

(The uninitialised-buffer regression of ``encode_features`` is tested
deterministically in test_tree_validation.py, with an ``np.empty`` that
returns memory holding inf.)
"""

from __future__ import annotations

import numpy as np

from mltrees import CARTClassifier


def test_apply_in_chunks_equals_apply_row_by_row_blocks():
    """Tree.apply splits large inputs into blocks, one per thread; results must not change."""
    from sklearn.datasets import make_classification

    from mltrees.tree._tree import APPLY_ROWS_PER_THREAD

    X, y = make_classification(
        n_samples=2 * APPLY_ROWS_PER_THREAD + 123, n_features=6, random_state=0
    )
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
