"""The reference libraries' models, read the same way by the unit and the differential tests.

Raw scores (the margin before the link) of CatBoost and LightGBM models and of
their mltrees namesakes, how far two sets of raw scores are apart, and
XGBoost's JSON dump as one ``{nodeid: node}`` dict per tree.
``test_catboost.py``, ``test_lightgbm.py``, ``test_xgboost.py`` and their
counterparts in ``differential/`` share this module.
"""

from __future__ import annotations

import json

import numpy as np

from mltrees import (
    LightGBMRegressor,
    ObliviousBoostingClassifier,
    ObliviousBoostingRegressor,
)

LIGHTGBM_DETERMINISTIC = {
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "seed": 0,
    "verbose": -1,
}
"""LightGBM's parameters for a reproducible fit: one thread, row-wise histograms, a fixed seed."""


def catboost_raw(model, X):
    """Raw scores of a CatBoost model or of mltrees' oblivious boosting."""
    if isinstance(model, ObliviousBoostingClassifier):
        return model.decision_function(X)
    if isinstance(model, ObliviousBoostingRegressor):
        return model.predict(X)
    return model.predict(X, prediction_type="RawFormulaVal")


def lightgbm_raw(model, X):
    """Raw scores of a LightGBM model or of mltrees' LightGBM namesake (regression: predict)."""
    if isinstance(model, LightGBMRegressor):
        return model.predict(X)
    return model.predict(X, raw_score=True)


def relative_gap(a, b) -> float:
    """The largest ``|a - b| / max(1, |b|)``, 0 for empty arrays: raw scores' agreement."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)), initial=0.0))


def xgboost_trees(booster, *, with_stats: bool = False) -> list[dict]:
    """Every tree of an XGBoost booster as ``{nodeid: node}``, from its JSON dump."""
    trees = []
    for text in booster.get_dump(dump_format="json", with_stats=with_stats):
        nodes, stack = {}, [json.loads(text)]
        while stack:
            node = stack.pop()
            nodes[node["nodeid"]] = node
            stack.extend(node.get("children", []))
        trees.append(nodes)
    return trees
