"""Worked examples from the literature, reproduced with mltrees.

Published values are rounded, so they are compared at 1.5e-3; the exact
values are compared at 1e-12 with an independent computation (SciPy's
entropy on the same counts).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy as scipy_entropy

from mltrees import C45Classifier, CARTClassifier, ID3Classifier, export_text
from mltrees.criteria import best_bipartition, gain_ratio, information_gain, intrinsic_value
from mltrees.datasets import load_watermelon, load_weather

PUBLISHED = 1.5e-3
EXACT = 1e-12


def _independent_gain(x, y) -> float:
    """H(Y) - sum_k |D_k|/|D| H(Y | x = k), from SciPy's entropy."""
    table = pd.crosstab(x, y).to_numpy()
    branch = table.sum(axis=1)
    children = sum(
        n / branch.sum() * scipy_entropy(row, base=2) for n, row in zip(branch, table, strict=True)
    )
    return scipy_entropy(table.sum(axis=0), base=2) - children


def _crosstab(x, y) -> np.ndarray:
    return pd.crosstab(x, y).to_numpy()


def _rules(text: str) -> set[str]:
    """Root-to-leaf paths of export_text output: 'outlook = sunny & humidity = high -> no'."""
    rules, path = set(), []
    for line in text.splitlines():
        depth = line.count("|")
        body = line.split("--- ", 1)[1]
        del path[depth - 1 :]
        if body.startswith("class: "):
            leaf = body.removeprefix("class: ")  # e.g. "yes" or "yes (empty branch)"
            rules.add(" & ".join(path) + " -> " + leaf)
        else:
            path.append(body.strip())
    return rules


# --- Quinlan (1986), the weather table ------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "published"),
    [("outlook", 0.246), ("humidity", 0.151), ("windy", 0.048), ("temperature", 0.029)],
)
def test_quinlan_weather_gains(attribute, published):
    X, y = load_weather(return_X_y=True)
    gain = information_gain(_crosstab(X[attribute], y))
    assert abs(gain - published) < PUBLISHED
    assert abs(gain - _independent_gain(X[attribute], y)) < EXACT


def test_quinlan_weather_id3_tree():
    X, y = load_weather(return_X_y=True)
    model = ID3Classifier().fit(X, y)
    assert model.feature_names_in_[model.tree_.feature[0]] == "outlook"
    assert _rules(export_text(model)) == {
        "outlook = overcast -> yes",
        "outlook = rainy & windy = FALSE -> yes",
        "outlook = rainy & windy = TRUE -> no",
        "outlook = sunny & humidity = high -> no",
        "outlook = sunny & humidity = normal -> yes",
    }
    assert (model.predict(X) == y).all()


def test_quinlan_weather_c45_tree_equals_id3_tree():
    """On the nominal table the gain-ratio rule picks the same attributes."""
    X, y = load_weather(return_X_y=True)
    assert export_text(C45Classifier().fit(X, y)) == export_text(ID3Classifier().fit(X, y))


# --- Zhou (2016), watermelon 2.0 (Table 4.1) -------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "published"),
    [
        ("color", 0.109),  # exact 0.1081: Zhou's rounding
        ("root", 0.143),
        ("sound", 0.141),
        ("texture", 0.381),
        ("navel", 0.289),
        ("touch", 0.006),
    ],
)
def test_zhou_watermelon_2_0_gains(attribute, published):
    X, y = load_watermelon("2.0", return_X_y=True)
    gain = information_gain(_crosstab(X[attribute], y))
    assert abs(gain - published) < PUBLISHED
    assert abs(gain - _independent_gain(X[attribute], y)) < EXACT


@pytest.mark.parametrize(("attribute", "published"), [("touch", 0.874), ("color", 1.580)])
def test_zhou_watermelon_2_0_intrinsic_values(attribute, published):
    X, y = load_watermelon("2.0", return_X_y=True)
    assert abs(intrinsic_value(_crosstab(X[attribute], y)) - published) < PUBLISHED


def test_zhou_watermelon_2_0_id_column_intrinsic_value():
    """Zhou's example: the id column splits 17 ways, IV = lg 17 = 4.088."""
    X, y = load_watermelon("2.0", return_X_y=True)
    table = _crosstab(X.index.to_numpy(), y)
    assert abs(intrinsic_value(table) - 4.088) < PUBLISHED
    assert abs(information_gain(table) - 0.998) < PUBLISHED  # every branch is pure
    assert gain_ratio(table) < gain_ratio(_crosstab(X["texture"], y))


def test_zhou_watermelon_2_0_id3_tree():
    """Zhou's Figure 4.4, including the empty branch (light colour -> good melon)."""
    X, y = load_watermelon("2.0", return_X_y=True)
    model = ID3Classifier().fit(X, y)
    assert model.feature_names_in_[model.tree_.feature[0]] == "texture"
    rules = _rules(export_text(model))
    assert rules == {
        "texture = blurry -> no",
        "texture = clear & root = curled -> yes",
        "texture = clear & root = slightly curled & color = dark & touch = hard smooth -> yes",
        "texture = clear & root = slightly curled & color = dark & touch = soft sticky -> no",
        "texture = clear & root = slightly curled & color = green -> yes",
        "texture = clear & root = slightly curled & color = light -> yes (empty branch)",
        "texture = clear & root = stiff -> no",
        "texture = slightly blurry & touch = hard smooth -> no",
        "texture = slightly blurry & touch = soft sticky -> yes",
    }


# --- Zhou (2016), watermelon 3.0 (Table 4.3): continuous attributes -------------------


@pytest.mark.parametrize(
    ("attribute", "threshold", "gain"), [("density", 0.381, 0.262), ("sugar", 0.126, 0.349)]
)
def test_zhou_watermelon_3_0_bipartition(attribute, threshold, gain):
    X, y = load_watermelon("3.0", return_X_y=True)
    found_threshold, found_gain = best_bipartition(X[attribute], y)
    assert abs(found_threshold - threshold) < PUBLISHED
    assert abs(found_gain - gain) < PUBLISHED
    # Independently: the gain of the split at that threshold.
    assert abs(found_gain - _independent_gain(X[attribute] <= found_threshold, y)) < EXACT


def test_zhou_watermelon_3_0_tree_tests_density_twice_is_allowed():
    """A continuous attribute may be tested again below (Zhou, Figure 4.8)."""
    X, y = load_watermelon("3.0", return_X_y=True)
    model = CARTClassifier(criterion="entropy").fit(X[["density", "sugar"]], y)
    used = model.tree_.feature[model.tree_.feature >= 0]
    assert np.bincount(used).max() >= 2
    assert (model.predict(X[["density", "sugar"]]) == y).all()
