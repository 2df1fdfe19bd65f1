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
from mltrees.tree import C45Classifier, CARTClassifier, CARTRegressor
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


def test_rule_error_rate_matches_c45_release_8_and_weka():
    # C4.5 release 8's c4.5rules prints each rule's confidence 1 - U_CF(E, N);
    # on Quinlan's golf table its rules with (N, E) = (4, 0), (3, 0) and (2, 0)
    # are printed as [70.7%], [63.0%] and [50.0%].
    for n, printed in [(4, 0.707), (3, 0.630), (2, 0.500)]:
        assert 1 - rule_pessimistic_error(n, 0) == pytest.approx(printed, abs=5e-4)
    # With errors (normal approximation) and fractional errors (interpolation
    # below one error): U_CF(E, N) = (E + addErrs(N, E, CF)) / N with the values
    # printed by Weka 3.6.14's weka.classifiers.trees.j48.Stats.addErrs (its CF
    # is a Java float, hence rel=1e-6 for CF = 0.1).
    weka = [
        (16, 1, 0.25, 1.4757146318372634),
        (7, 1, 0.25, 1.3420158198106202),
        (10, 0.4, 0.25, 1.341721220627051),
        (20, 4.5, 0.1, 3.295111352075148),
        (100, 37, 0.25, 3.8150583504395073),
    ]
    for n, e, cf, added in weka:
        assert rule_pessimistic_error(n, e, cf) == pytest.approx((e + added) / n, rel=1e-6)
    # No case covered: the rate is 1 (the rule is worthless), not a division by 0.
    assert rule_pessimistic_error(0, 0) == 1.0


def _covered(conditions, X) -> np.ndarray:
    """Reference: the rows of the raw table ``X`` that satisfy every condition, with pandas."""
    mask = np.ones(len(X), dtype=bool)
    for c in conditions:
        column = X[c.name]
        if c.op == "in":
            mask &= column.astype(str).isin([str(v) for v in c.categories]).to_numpy()
        elif c.op == "<=":
            mask &= (column <= c.threshold).to_numpy()
        else:
            mask &= (column > c.threshold).to_numpy()
    return mask


def _generalize_by_hand(conditions, X, y, label, cf):
    """Reference: Quinlan's greedy deletion with pandas and plain loops."""
    conditions = list(conditions)

    def rate(conds):
        mask = _covered(conds, X)
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
    # Three copies of the table, unshuffled folds: each test fold is one copy and
    # the model is fitted on the other two. The rule set classifies Quinlan's
    # table without error, so every fold must score 1; a clone that lost its
    # parameters (min_cases=2, a pruned tree) or a fit that kept state from
    # another fold would not.
    scores = cross_val_score(model, pd.concat([X] * 3), np.tile(y, 3), cv=3)
    np.testing.assert_array_equal(scores, 1.0)


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"confidence": "0.2"}, TypeError, r"confidence must be a float in \(0, 0.5\], got '0.2'"),
        ({"confidence": None}, TypeError, "confidence must be a float"),
        ({"confidence": True}, TypeError, "confidence must be a float"),
        ({"confidence": 0}, ValueError, "confidence must be a float"),
        ({"confidence": 0.75}, ValueError, "confidence must be a float"),
        ({"drop_redundant": "yes"}, TypeError, "drop_redundant must be True or False"),
        ({"estimator": CARTRegressor()}, TypeError, "estimator must be None or an mltrees tree"),
        ({"estimator": "tree"}, TypeError, "estimator must be None or an mltrees tree"),
    ],
)
def test_bad_parameters_are_named(weather, params, error, message):
    X, y = weather
    with pytest.raises(error, match=message):
        RuleSetClassifier(**params).fit(X, y)


def _firing_rule(model, X) -> list:
    """Reference: for each row, the first rule that covers it (None: no rule), with pandas."""
    masks = [_covered(rule.conditions, X) for rule in model.rules_]
    return [next((k for k, m in enumerate(masks) if m[i]), None) for i in range(len(X))]


def test_predict_proba_on_quinlans_weather_table(weather):
    X, y = weather
    model = RuleSetClassifier().fit(X, y)
    proba = model.predict_proba(X)
    assert list(model.classes_) == ["no", "yes"]
    # By hand from the table: "humidity = normal" holds on 7 days, one of them
    # a "no" (rainy, cool, windy); the other rules are pure.
    normal = next(r for r in model.rules_ if str(r) == "if humidity = normal then yes")
    k = model.rules_.index(normal)
    fired = [i for i, r in enumerate(_firing_rule(model, X)) if r == k]
    assert fired
    np.testing.assert_allclose(proba[fired], [[1 / 7, 6 / 7]] * len(fired))
    # A day no rule covers (an unseen outlook, humidity high) gets the default:
    # every training day is covered, so the training distribution, 5 no and 9 yes.
    day = X.iloc[[0]].copy()
    day["outlook"] = pd.Categorical(["foggy"])
    np.testing.assert_allclose(model.predict_proba(day), [[5 / 14, 9 / 14]])
    assert model.predict(day)[0] == model.default_class_ == "yes"
    with np.errstate(divide="ignore"):  # log 0 = -inf for the pure rules
        np.testing.assert_allclose(model.predict_log_proba(X), np.log(proba))


@pytest.mark.parametrize("weighted", [False, True])
def test_predict_proba_is_the_firing_rules_class_distribution(weighted):
    car = load_car_evaluation()
    X, y = car.data, np.asarray(car.target)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    model = RuleSetClassifier().fit(X, y, sample_weight=weights if weighted else None)
    proba = model.predict_proba(X)
    classes = list(model.classes_)
    rows = np.arange(0, len(y), 7)
    firing = _firing_rule(model, X.iloc[rows])
    uncovered = ~np.any([_covered(r.conditions, X) for r in model.rules_], axis=0)
    for i, k in zip(rows, firing, strict=True):
        # Weighted class shares of every training case the rule covers (or,
        # for the default, of the cases no rule covers), counted with pandas.
        mask = _covered(model.rules_[k].conditions, X) if k is not None else uncovered
        if not mask.any():
            mask = np.ones(len(y), dtype=bool)
        shares = pd.Series(weights[mask]).groupby(y[mask]).sum()
        expected = shares.reindex(classes, fill_value=0.0) / shares.sum()
        np.testing.assert_allclose(proba[i], expected.to_numpy(), rtol=1e-12)
        if k is not None:  # the rule's own statistics, as export_text prints them
            rule = model.rules_[k]
            label = classes.index(rule.label)
            assert proba[i, label] == pytest.approx(1 - rule.n_errors / rule.n_covered)
    # On this table every rule's class is the most frequent among its cases,
    # so the largest probability names the predicted class.
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))
