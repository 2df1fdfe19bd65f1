"""C4.5Rules (chapter 7): rules from paths, their generalization, the rule set."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score

import mltrees
from mltrees.datasets import load_car_evaluation, load_weather
from mltrees.tree import C45Classifier, CARTClassifier
from mltrees.tree.pruning import added_errors
from mltrees.tree.rules import RuleSetClassifier, extract_rules, rule_pessimistic_error


@pytest.fixture(scope="module")
def weather():
    data = load_weather()
    return data.data, data.target


def test_exported_at_both_levels():
    assert mltrees.RuleSetClassifier is RuleSetClassifier
    assert mltrees.tree.extract_rules is extract_rules


def test_one_rule_per_leaf_and_the_rules_partition_the_data(weather):
    X, y = weather
    tree = C45Classifier(pruning=None, min_cases=1).fit(X, y)
    rules = extract_rules(tree)
    assert len(rules) == tree.get_n_leaves()  # no empty leaves on this table
    values = tree._values(X)
    covers = np.array([rule.covers(values) for rule in rules])
    np.testing.assert_array_equal(covers.sum(axis=0), 1)
    # Each rule covers exactly its leaf's cases and predicts its class.
    leaves = tree.apply(X)
    for rule, mask in zip(rules, covers, strict=True):
        np.testing.assert_array_equal(mask, leaves == rule.leaf)
        labels = np.asarray(y)[mask]
        assert rule.n_covered == mask.sum()
        assert rule.n_errors == np.sum(labels != rule.label)


def test_quinlan_weather_rules_read_like_the_tree(weather):
    X, y = weather
    rules = extract_rules(C45Classifier(pruning=None, min_cases=1).fit(X, y))
    text = sorted(str(rule) for rule in rules)
    assert text == [
        "if outlook = overcast then yes",
        "if outlook = rainy and windy = FALSE then yes",
        "if outlook = rainy and windy = TRUE then no",
        "if outlook = sunny and humidity = high then no",
        "if outlook = sunny and humidity = normal then yes",
    ]


def test_subset_and_threshold_conditions_print_with_names():
    car = load_car_evaluation()
    tree = CARTClassifier(max_depth=3).fit(car.data, car.target)
    text = "\n".join(str(rule) for rule in extract_rules(tree))
    assert " in {" in text  # a CART subset of categories
    assert "safety" in text
    weather = load_weather(numeric=True)
    numeric = C45Classifier(pruning=None).fit(weather.data, weather.target)
    # C4.5 cuts humidity between 75 and 80 and tests the data value 75.
    assert "humidity <= 75" in "\n".join(str(r) for r in extract_rules(numeric))


def test_rule_error_rate_is_chapter_5_bound_over_n():
    assert rule_pessimistic_error(7, 1) == pytest.approx((1 + added_errors(7, 1)) / 7)
    assert rule_pessimistic_error(4, 0) == pytest.approx(1 - 0.25 ** (1 / 4))


def _generalize_by_hand(conditions, X, y, label, cf):
    """Reference: Quinlan's greedy deletion with pandas and plain loops."""
    conditions = list(conditions)

    def rate(conds):
        mask = np.ones(len(X), dtype=bool)
        for c in conds:
            column = X[c.name]
            if c.op == "in":
                mask &= column.astype(str).isin([str(v) for v in c.categories]).to_numpy()
            elif c.op == "<=":
                mask &= (column <= c.threshold).to_numpy()
            else:
                mask &= (column > c.threshold).to_numpy()
        n = mask.sum()
        e = n - np.sum(np.asarray(y)[mask] == label)
        return float(rule_pessimistic_error(n, e, cf))

    current = rate(conditions)
    while conditions:
        trials = [rate(conditions[:k] + conditions[k + 1 :]) for k in range(len(conditions))]
        best = int(np.argmin(trials))
        if trials[best] > current + 1e-12:
            break
        current = trials[best]
        del conditions[best]
    return [str(c) for c in conditions]


@pytest.mark.parametrize("cf", [0.1, 0.25, 0.5])
def test_generalization_matches_a_plain_greedy_search(cf):
    car = load_car_evaluation()
    X, y = car.data, car.target
    model = RuleSetClassifier(confidence=cf, drop_redundant=False).fit(X, y)
    tree = model.tree_estimator_
    originals = {rule.leaf: rule for rule in extract_rules(tree)}
    for rule in model.rules_[:: max(1, len(model.rules_) // 25)]:
        original = originals[rule.leaf]
        expected = _generalize_by_hand(original.conditions, X, y, original.label, cf)
        assert [str(c) for c in rule.conditions] == expected


def test_generalization_never_raises_the_pessimistic_rate():
    car = load_car_evaluation()
    model = RuleSetClassifier(drop_redundant=False).fit(car.data, car.target)
    originals = {rule.leaf: rule for rule in extract_rules(model.tree_estimator_)}
    for rule in model.rules_:
        before = originals[rule.leaf]
        assert (
            rule_pessimistic_error(rule.n_covered, rule.n_errors)
            <= rule_pessimistic_error(before.n_covered, before.n_errors) + 1e-12
        )
        assert set(map(str, rule.conditions)) <= set(map(str, before.conditions))


def test_rule_set_prediction_is_first_rule_then_default(weather):
    X, y = weather
    model = RuleSetClassifier().fit(X, y)
    values = model.tree_estimator_._values(X)
    expected = []
    for i in range(len(X)):
        row = values[i : i + 1]
        label = next((r.label for r in model.rules_ if r.covers(row)[0]), model.default_class_)
        expected.append(label)
    np.testing.assert_array_equal(model.predict(X), expected)
    assert model.score(X, y) == 1.0
    text = model.export_text()
    assert text.startswith("Rule 1: if ")
    assert text.splitlines()[-1] == f"Default: class = {model.default_class_}"


def test_no_duplicate_rules_and_classes_grouped():
    car = load_car_evaluation()
    model = RuleSetClassifier().fit(car.data, car.target)
    keys = [(str(r), r.label) for r in model.rules_]
    assert len(keys) == len(set(keys))
    labels = [r.label for r in model.rules_]
    # The rules of one class are consecutive, in the order of class_order_.
    runs = [label for label, _ in itertools.groupby(labels)]
    assert runs == [c for c in model.class_order_ if c in labels]


def test_dropping_redundant_rules_keeps_training_accuracy_per_class():
    car = load_car_evaluation()
    X, y = car.data, np.asarray(car.target)
    full = RuleSetClassifier(drop_redundant=False).fit(X, y)
    lean = RuleSetClassifier().fit(X, y)
    assert len(lean.rules_) < len(full.rules_)
    values = full.tree_estimator_._values(X)
    for label in full.classes_:

        def errors(model, label=label):
            fired = np.zeros(len(y), dtype=bool)
            for rule in model.rules_:
                if rule.label == label:
                    fired |= rule.covers(values)
            return np.sum(fired != (y == label))

        assert errors(lean) <= errors(full)


def test_sklearn_api(weather):
    X, y = weather
    model = RuleSetClassifier(estimator=C45Classifier(min_cases=1))
    assert clone(model).get_params()["confidence"] == 0.25
    scores = cross_val_score(model, pd.concat([X] * 3), np.tile(y, 3), cv=3)
    assert scores.shape == (3,)
    with pytest.raises(ValueError, match="confidence"):
        RuleSetClassifier(confidence=0).fit(X, y)
