"""From trees to rules: Quinlan's C4.5Rules (chapter 7).

Every root-to-leaf path of a tree is a rule *if conditions then class*.
:class:`RuleSetClassifier` turns a tree into such rules and then

1. generalizes each rule by deleting conditions while its pessimistic error
   rate (:eq:`eq-rule-pessimistic`) does not grow,
2. drops duplicate rules and, class by class, rules whose removal does not
   increase the training errors of that class's rule set,
3. orders the classes by their false positives and picks a default class
   for the cases no rule covers.

Quinlan (1993, chapter 5) chooses each class's rule subset by minimum
description length; step 2 uses the simpler training-error criterion and
says so. Rules are evaluated on all samples at once: one boolean mask per
condition, loops run over rules and conditions only.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import check_bool, check_sample_weight
from mltrees.tree._tree import CATEGORICAL_NODE, LEAF
from mltrees.tree.pruning import added_errors

__all__ = ["Condition", "Rule", "RuleSetClassifier", "extract_rules", "rule_pessimistic_error"]


@dataclass(frozen=True)
class Condition:
    """One test of a rule: ``x_feature <= threshold``, ``> threshold`` or ``in categories``.

    ``codes`` holds the category codes of an ``in`` test (codes of the
    fitted estimator's encoding), ``categories`` their labels.
    """

    feature: int
    name: str
    op: str  # "<=", ">" or "in"
    threshold: float = np.nan
    codes: tuple = ()
    categories: tuple = ()

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of encoded ``values`` that satisfy the test.

        A missing value (NaN) or an unseen category satisfies no test.
        """
        x = values[:, self.feature]
        if self.op == "<=":
            return x <= self.threshold
        if self.op == ">":
            return x > self.threshold
        return np.isin(x, np.asarray(self.codes, dtype=np.float64))

    def __str__(self) -> str:
        if self.op == "in":
            labels = [str(c) for c in self.categories]
            if len(labels) == 1:
                return f"{self.name} = {labels[0]}"
            return f"{self.name} in {{{', '.join(labels)}}}"
        return f"{self.name} {self.op} {self.threshold:.6g}"


@dataclass
class Rule:
    """``if all conditions then label``, with its training statistics.

    ``n_covered`` and ``n_errors`` are the (weighted) training cases the rule
    covers and those among them of another class.
    """

    conditions: list
    label: object
    n_covered: float = 0.0
    n_errors: float = 0.0
    leaf: int = -1
    extra: dict = field(default_factory=dict)

    def covers(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of encoded ``values`` that satisfy every condition."""
        mask = np.ones(values.shape[0], dtype=bool)
        for condition in self.conditions:
            mask &= condition.holds(values)
        return mask

    def __str__(self) -> str:
        antecedent = " and ".join(str(c) for c in self.conditions) or "true"
        return f"if {antecedent} then {self.label}"


def _conditions_of_edge(tree, node: int, slot: int, specs, names) -> Condition:
    feature = int(tree.feature[node])
    name = str(names[feature])
    if tree.kind[node] == CATEGORICAL_NODE:
        table = tree.route_table[
            tree.route_offset[node] : tree.route_offset[node] + tree.n_categories[node]
        ]
        codes = tuple(int(c) for c in np.flatnonzero(table == slot))
        categories = tuple(specs[feature].values[list(codes)])
        return Condition(feature, name, "in", codes=codes, categories=categories)
    op = "<=" if slot == 0 else ">"
    return Condition(feature, name, op, threshold=float(tree.threshold[node]))


def extract_rules(tree_estimator) -> list[Rule]:
    """One rule per leaf of a fitted tree classifier: the tests on its path.

    Implements the path-to-rule step of chapter 7 (:eq:`eq-rule-from-path`).
    A multiway branch gives ``feature = category``; a CART subset branch
    ``feature in {categories}``; a numeric branch a threshold test. Leaves
    without training cases (empty branches) give no rule.

    Parameters
    ----------
    tree_estimator : fitted ID3Classifier, C45Classifier or CARTClassifier

    Returns
    -------
    list of Rule
        In leaf order, with the leaf's class and training counts.
    """
    check_is_fitted(tree_estimator, "tree_")
    tree = tree_estimator.tree_
    names = getattr(tree_estimator, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(tree_estimator.n_features_in_)]
    specs = tree_estimator._specs
    paths = {0: []}
    for node in range(tree.node_count):  # parents precede children
        if tree.feature[node] == LEAF:
            continue
        for slot in range(int(tree.n_children[node])):
            child = int(tree.first_child[node]) + slot
            edge = _conditions_of_edge(tree, node, slot, specs, names)
            paths[child] = [*paths[node], edge]
    rules = []
    classes = tree_estimator.classes_
    for leaf in np.flatnonzero(tree.is_leaf):
        weight = float(tree.weighted_n_node_samples[leaf])
        if weight <= 0:
            continue
        fractions = tree.value[leaf]
        best = int(np.argmax(fractions))
        errors = weight * (1.0 - float(fractions[best]))
        rules.append(Rule(paths[int(leaf)], classes[best], weight, errors, int(leaf)))
    return rules


def rule_pessimistic_error(n_covered, n_errors, confidence: float = 0.25):
    """Pessimistic error rate of a rule: :math:`U_{CF}(E, N)`.

    Implements :eq:`eq-rule-pessimistic` (chapter 7), the upper confidence
    limit of chapter 5's :func:`mltrees.tree.pruning.added_errors` divided by N.
    """
    n = np.asarray(n_covered, dtype=np.float64)
    e = np.asarray(n_errors, dtype=np.float64)
    safe = np.where(n > 0, n, 1.0)
    rate = (e + added_errors(n, e, confidence)) / safe
    return np.where(n > 0, rate, 1.0)


class RuleSetClassifier(ClassifierMixin, BaseEstimator):
    r"""Quinlan's C4.5Rules: a tree turned into an ordered, simplified rule set.

    Implements chapter 7: :func:`extract_rules`, then condition deletion by
    :eq:`eq-rule-pessimistic`, removal of duplicate and redundant rules, class
    ordering by false positives and a default class.

    Parameters
    ----------
    estimator : ID3Classifier, C45Classifier, CARTClassifier or None, default None
        The tree to start from; None means ``C45Classifier(pruning=None)``,
        Quinlan's unpruned tree.
    confidence : float in (0, 0.5], default 0.25
        CF of the pessimistic error rate.
    drop_redundant : bool, default True
        Remove, class by class, rules whose removal does not increase the
        training errors of the class's rule set.

    Attributes
    ----------
    rules_ : list of Rule
        The final rules in the order they are tried.
    default_class_ : label
        Predicted when no rule covers a case.
    class_distributions_ : ndarray of shape ``(len(rules_) + 1, n_classes)``
        Row ``r``: the class distribution of the training cases rule ``r``
        covers, given to a case on which it is the first to fire; the last
        row: that of the training cases no rule covers, given to a case no
        rule covers (see :meth:`predict_proba`).
    tree_estimator_ : fitted tree classifier
    classes_ : ndarray

    Notes
    -----
    :meth:`predict_proba` reads a rule as C4.5Rules states it: *if the
    conditions hold, then the class distribution of the training cases that
    satisfy them*. A case gets the distribution of the first rule that fires
    on it -- the weighted class frequencies of *all* the training cases that
    rule covers, so the probability of the rule's class is
    ``1 - n_errors / n_covered``, the statistics ``export_text`` prints --
    and a case no rule covers gets the frequencies of the training cases no
    rule covers. Both are the m-estimate :eq:`eq-m-estimate` in its limit
    :math:`m \to 0`, the estimate the trees give a leaf (chapter 2); a set
    without training cases (the uncovered cases when every case is covered,
    or a rule that covers no case because of missing values) gets the
    training distribution, the prior of the empty-branch rule
    :eq:`eq-empty-branch-rule`.

    The alternative, the frequencies of only the cases on which a rule is
    the *first* to fire, is not used: where rules overlap, earlier rules take
    some of a rule's cases, and what is left to it can hold mostly cases of
    another class than it predicts (seen on three Gaussian blobs with a CART
    tree in histogram mode), so probability and prediction would disagree.
    With all of a rule's cases they agree whenever the rule's class is the
    most frequent among them. Condition deletion can widen a rule of a
    problem with three or more classes past that point (seen on noisy
    synthetic data); for the cases such a rule fires on,
    ``argmax(predict_proba)`` differs from ``predict``, which keeps Quinlan's
    first-rule decision.

    Examples
    --------
    >>> from mltrees import RuleSetClassifier
    >>> from mltrees.datasets import load_weather
    >>> X, y = load_weather(return_X_y=True)
    >>> rules = RuleSetClassifier().fit(X, y)
    >>> for rule in rules.rules_:
    ...     print(rule)
    ...
    if outlook = sunny and humidity = high then no
    if outlook = rainy and windy = TRUE then no
    if outlook = overcast then yes
    if humidity = normal then yes
    if outlook = rainy and windy = FALSE then yes
    >>> rules.default_class_
    'yes'
    """

    def __init__(self, estimator=None, *, confidence=0.25, drop_redundant=True):
        self.estimator = estimator
        self.confidence = confidence
        self.drop_redundant = drop_redundant

    # -- fitting -----------------------------------------------------------
    def _validate_params(self):
        from mltrees.tree.classes import _TreeClassifier

        cf = self.confidence
        if isinstance(cf, bool) or not isinstance(cf, numbers.Real):
            raise TypeError(
                f"confidence must be a float in (0, 0.5], got {cf!r} of type {type(cf).__name__}"
            )
        if not 0 < cf <= 0.5:
            raise ValueError(f"confidence must be a float in (0, 0.5], got {cf!r}")
        check_bool(self.drop_redundant, "drop_redundant")
        if self.estimator is not None and not isinstance(self.estimator, _TreeClassifier):
            raise TypeError(
                "estimator must be None or an mltrees tree classifier (ID3Classifier, "
                f"C45Classifier, CARTClassifier), got {self.estimator!r}"
            )

    def _template(self):
        from mltrees.tree.classes import C45Classifier

        return C45Classifier(pruning=None) if self.estimator is None else clone(self.estimator)

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow the tree on ``(X, y)`` and derive the rule set from it.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative case weights (counts, as in the tree's fit).

        Returns
        -------
        self
        """
        self._validate_params()
        base = self._template()
        base.fit(X, y, sample_weight=sample_weight)
        values = base._values(X)
        y = np.asarray(y)
        if y.ndim == 2:  # a column vector: the tree's fit has accepted it, with a warning
            y = y.ravel()
        weights = check_sample_weight(sample_weight, y.shape[0])
        rules = [self._generalize(rule, values, y, weights) for rule in extract_rules(base)]
        rules = _unique(rules)
        classes = base.classes_
        by_class, false_positives = [], []
        for label in classes:
            mine = [r for r in rules if r.label == label]
            if self.drop_redundant:
                mine = self._drop_redundant(mine, values, y == label, weights)
            fired = _any_covers(mine, values)
            by_class.append(mine)
            false_positives.append(float(weights[fired & (y != label)].sum()))
        order = np.argsort(false_positives, kind="stable")
        self.rules_ = [rule for k in order for rule in by_class[k]]
        self.class_order_ = classes[order]
        covered = _any_covers(self.rules_, values)
        left = np.bincount(
            np.searchsorted(classes, y[~covered]),
            weights=weights[~covered],
            minlength=len(classes),
        )
        total = np.bincount(np.searchsorted(classes, y), weights=weights, minlength=len(classes))
        # Most uncovered cases; ties go to the class with more cases overall.
        self.default_class_ = classes[np.lexsort((-total, -left))[0]]
        self.class_distributions_ = _rule_distributions(
            self.rules_, values, np.searchsorted(classes, y), weights, len(classes)
        )
        self.tree_estimator_ = base
        self.classes_ = classes
        self.n_features_in_ = base.n_features_in_
        if hasattr(base, "feature_names_in_"):
            self.feature_names_in_ = base.feature_names_in_
        return self

    def _generalize(self, rule: Rule, values, y, weights) -> Rule:
        """Delete conditions greedily while the pessimistic error rate does not grow."""
        conditions = list(rule.conditions)
        holds = np.array([c.holds(values) for c in conditions]).reshape(
            len(conditions), values.shape[0]
        )
        positive = y == rule.label

        def stats(mask):
            n = float(weights[mask].sum())
            return n, n - float(weights[mask & positive].sum())

        keep = list(range(len(conditions)))
        covered = holds[keep].all(axis=0) if keep else np.ones(y.shape[0], bool)
        n, e = stats(covered)
        rate = float(rule_pessimistic_error(n, e, self.confidence))
        while keep:
            # Rows that fail exactly one kept condition become covered when it is deleted.
            failing = ~holds[keep]
            n_fail = failing.sum(axis=0)
            which = np.argmax(failing, axis=0)
            gained = n_fail == 1
            extra_n = np.bincount(which[gained], weights=weights[gained], minlength=len(keep))
            extra_pos = np.bincount(
                which[gained], weights=(weights * positive)[gained], minlength=len(keep)
            )
            n_new = n + extra_n
            e_new = n_new - (n - e + extra_pos)
            rates = rule_pessimistic_error(n_new, e_new, self.confidence)
            best = int(np.argmin(rates))  # ties: the first condition
            if rates[best] > rate + 1e-12:
                break
            rate, n, e = float(rates[best]), float(n_new[best]), float(e_new[best])
            del keep[best]
        kept = [conditions[k] for k in keep]
        out = Rule(kept, rule.label, n, e, rule.leaf)
        out.extra["pessimistic_error"] = rate
        return out

    def _drop_redundant(self, rules, values, positive, weights):
        """Drop rules whose removal does not increase the class subset's training errors."""
        if not rules:
            return rules
        masks = np.array([r.covers(values) for r in rules])
        count = masks.sum(axis=0)
        alive = np.ones(len(rules), dtype=bool)
        for k in np.argsort([r.n_covered for r in rules], kind="stable"):
            # Cases only rule k covers: removing it turns them from predicted to not.
            only = masks[k] & (count == 1)
            lost_true = float(weights[only & positive].sum())
            lost_false = float(weights[only & ~positive].sum())
            if lost_true <= lost_false:
                alive[k] = False
                count -= masks[k]
        return [r for r, a in zip(rules, alive, strict=True) if a]

    # -- prediction --------------------------------------------------------
    def _first_rule(self, X) -> np.ndarray:
        check_is_fitted(self, "rules_")
        values = self.tree_estimator_._values(X)
        # Infinity always, NaN unless the tree has a missing-value method.
        self.tree_estimator_._check_numeric(values)
        first = np.full(values.shape[0], -1, dtype=np.intp)
        for k in range(len(self.rules_) - 1, -1, -1):  # the earliest rule wins
            first[self.rules_[k].covers(values)] = k
        return first

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The class of the first rule that covers each case, else the default class."""
        first = self._first_rule(X)
        labels = np.array([r.label for r in self.rules_] + [self.default_class_], dtype=object)
        out = labels[np.where(first >= 0, first, len(self.rules_))]
        return out.astype(self.classes_.dtype)

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        r"""Class probabilities of the first rule that fires (see the class Notes).

        A case gets the weighted class frequencies of all the training cases
        covered by the first rule that covers it, or of the training cases no
        rule covers: the m-estimate :eq:`eq-m-estimate` as :math:`m \to 0`,
        with the prior :eq:`eq-empty-branch-rule` (the training distribution)
        for a set without training cases.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        first = self._first_rule(X)
        return self.class_distributions_[np.where(first >= 0, first, len(self.rules_))]

    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        """Logarithm of :meth:`predict_proba` (``-inf`` for probability 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A missing value satisfies no condition; the tree must accept it at fit.
        try:
            tags.input_tags.allow_nan = get_tags(self._template()).input_tags.allow_nan
        except (AttributeError, TypeError, ValueError):  # a bad estimator: fit says so
            tags.input_tags.allow_nan = False
        return tags

    def export_text(self) -> str:
        """The rule set as numbered lines, in the order the rules are tried."""
        check_is_fitted(self, "rules_")
        target = "class"
        lines = []
        for i, rule in enumerate(self.rules_, 1):
            stats = f"[{rule.n_covered:g} cases, {rule.n_errors:g} errors]"
            antecedent = "\n    and ".join(str(c) for c in rule.conditions) or "true"
            lines.append(f"Rule {i}: if {antecedent}\n    then {target} = {rule.label}  {stats}")
        lines.append(f"Default: {target} = {self.default_class_}")
        return "\n".join(lines)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.tree._model_file import _rebuild_rules

        _rebuild_rules(self)


def _rule_distributions(rules, values, codes, weights, n_classes: int) -> np.ndarray:
    """Class distribution of every rule's training cases, then of the uncovered cases.

    Row ``r``: the weighted class frequencies of all the training cases rule
    ``r`` covers. Last row: those of the cases no rule covers. A row without
    cases gets the training distribution, the prior of the empty-branch rule.
    """
    masks = [rule.covers(values) for rule in rules]
    masks.append(~_any_covers(rules, values))
    counts = np.array(
        [np.bincount(codes[m], weights=weights[m], minlength=n_classes) for m in masks]
    ).reshape(len(masks), n_classes)
    overall = np.bincount(codes, weights=weights, minlength=n_classes)
    n = counts.sum(axis=1, keepdims=True)
    return np.where(n > 0, counts / np.where(n > 0, n, 1.0), overall / overall.sum())


def _any_covers(rules, values) -> np.ndarray:
    covered = np.zeros(values.shape[0], dtype=bool)
    for rule in rules:
        covered |= rule.covers(values)
    return covered


def _unique(rules):
    seen, out = set(), []
    for rule in rules:
        key = (
            rule.label,
            frozenset((c.feature, c.op, c.threshold, c.codes) for c in rule.conditions),
        )
        if key not in seen:
            seen.add(key)
            out.append(rule)
    return out
