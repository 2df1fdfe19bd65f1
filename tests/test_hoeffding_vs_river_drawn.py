"""HoeffdingTreeClassifier against river's, with parameters and data drawn together.

Chapter 8 states that, for river 0.26 and numeric streams learned in batches,
every split attempt falls on the row where river's does and decides as river's
does. The fixed streams of ``test_incremental_trees.py`` check a few settings;
here hypothesis draws the grace period, delta, tau, split criterion, leaf
prediction, depth limit, number of candidate points, batch size and the stream
itself (classes, features with few distinct values so that ties occur, a
constant column, weights) and compares the two trees node by node and their
predictions row by row. river learns one row at a time; mltrees in batches.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mltrees import HoeffdingTreeClassifier

river_tree = pytest.importorskip("river.tree")


def river_structure(model):
    """river's tree as nested (feature, threshold, left, right) tuples, from its public table."""
    nodes = model.to_dataframe()
    if nodes is None:
        return "leaf"

    def walk(k):
        if nodes.at[k, "is_leaf"]:
            return "leaf"
        left, right = nodes.index[nodes["parent"] == k]
        return (
            int(nodes.at[k, "feature"]),
            float(nodes.at[k, "threshold"]),
            walk(left),
            walk(right),
        )

    return walk(nodes.index[0])


@st.composite
def streams(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_rows = draw(st.integers(200, 1200))
    n_features = draw(st.integers(1, 4))
    n_classes = draw(st.integers(2, 3))
    levels = draw(st.sampled_from([None, 5, 20]))  # None: continuous values
    X = rng.normal(size=(n_rows, n_features))
    if levels is not None:
        X = np.round(X * levels / 4) / (levels / 4)  # few distinct values: ties
    if draw(st.booleans()):
        X = np.column_stack([X, np.full(n_rows, 1.5)])  # a constant column
    score = X[:, 0] + (X[:, -1] if X.shape[1] > 1 else 0) * 0.5
    cuts = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    y = np.searchsorted(cuts, score)
    y = np.where(
        rng.random(n_rows) < draw(st.sampled_from([0.0, 0.1, 0.3])),
        rng.integers(0, n_classes, n_rows),
        y,
    )
    weights = None
    if draw(st.booleans()):
        weights = rng.choice([0.5, 1.0, 2.0, 3.0], size=n_rows)
    params = {
        "grace_period": draw(st.integers(10, 120)),
        "delta": draw(st.sampled_from([1e-7, 1e-4, 1e-2, 0.1])),
        "tau": draw(st.sampled_from([0.01, 0.05, 0.2])),
        "split_criterion": draw(st.sampled_from(["info_gain", "gini"])),
        "leaf_prediction": draw(st.sampled_from(["mc", "nb", "nba"])),
        "max_depth": draw(st.sampled_from([None, 2, 5])),
    }
    n_split_points = draw(st.sampled_from([10, 4]))
    batch = draw(st.sampled_from([1, 37, 250, 1000]))
    return X, y, weights, params, n_split_points, batch


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(streams())
def test_same_tree_and_predictions_as_river_drawn(stream):
    X, y, weights, params, n_split_points, batch = stream
    reference = river_tree.HoeffdingTreeClassifier(
        splitter=river_tree.splitter.GaussianSplitter(n_splits=n_split_points), **params
    )
    ones = np.ones(len(y)) if weights is None else weights
    for row, label, weight in zip(X, y, ones, strict=True):
        reference.learn_one(dict(enumerate(row.tolist())), int(label), w=float(weight))
    model = HoeffdingTreeClassifier(n_split_points=n_split_points, **params)
    classes = np.unique(y)
    for start in range(0, len(y), batch):
        part = slice(start, start + batch)
        model.partial_fit(
            X[part],
            y[part],
            classes=classes,
            sample_weight=None if weights is None else weights[part],
        )
    assert model.structure() == river_structure(reference)
    expected = np.array([reference.predict_one(dict(enumerate(row.tolist()))) for row in X[:300]])
    np.testing.assert_array_equal(model.predict(X[:300]), expected)
