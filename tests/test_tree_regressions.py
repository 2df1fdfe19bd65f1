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
