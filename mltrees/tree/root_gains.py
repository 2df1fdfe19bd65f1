"""The gain each feature's best split gets at the root, under a tree's own rules (chapters 3-6).

A tree chooses its root test by comparing, feature by feature, the gain of
each feature's best split. :func:`root_split_gains` returns those gains from
the same split search the estimator's ``fit`` runs, so a hand computation
(Quinlan's information gain, Zhou's gain with missing values, a Gini
decrease) can be checked against the engine without growing a tree.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone, is_classifier

from mltrees.tree._data import prepare_training_data, validate_fit_input
from mltrees.tree._split import find_splits
from mltrees.tree.classes import _BaseTree

__all__ = ["root_split_gains"]


def root_split_gains(estimator, X, y, sample_weight=None) -> np.ndarray:
    r"""Gain of each feature's best split at the root, as ``estimator.fit`` scores it.

    For every feature ``j`` the split search of ``estimator`` (its criterion,
    ``missing=`` method, ``min_samples_leaf``, multiway or binary splits, ...)
    is run at the root on feature ``j`` alone. The gain is the impurity
    decrease :math:`Q(D) - \sum_v \frac{W_v}{W} Q(D_v)` of the best split of
    that feature (:eq:`eq-ch4-gain` with the entropy in bits; the Gini value
    or squared error with those criteria); with ``missing="c45"`` it is
    C4.5's gain on the rows where the feature is known times their weight
    fraction (:eq:`eq-c45-gain`). For ``C45Classifier`` with
    ``release="8"`` (the default), a numeric feature's gain is release 8's
    corrected gain: the gain of its best admissible threshold minus
    :math:`\lg(C) / W` bits, ``C`` the number of admissible thresholds
    (those leaving :eq:`eq-min-split` of weight on each side) and ``W`` the
    root's weight (:eq:`eq-mdl-correction`). The estimator's
    stopping rules (``min_impurity_decrease``, ``max_depth``, ...) are not
    applied, and it is not fitted (a clone is used).

    Parameters
    ----------
    estimator : mltrees tree estimator
        ``ID3Classifier``, ``C45Classifier``, ``CARTClassifier``,
        ``CARTRegressor``, ``DecisionTreeClassifier`` or
        ``DecisionTreeRegressor``, configured but not necessarily fitted.
    X : array_like or DataFrame of shape (n_samples, n_features)
        Features, as ``fit`` takes them.
    y : array_like of shape (n_samples,)
        Class labels or targets.
    sample_weight : array_like of shape (n_samples,), optional
        Non-negative weights.

    Returns
    -------
    ndarray of shape (n_features,)
        The gain of each feature; ``-inf`` where the feature has no
        admissible split under the estimator's rules: a constant column;
        every split leaves a child below ``min_samples_leaf``; for
        ``C45Classifier``, no split keeps ``min_cases`` of weight in two
        branches (with release 8, :eq:`eq-min-split` on each side of a
        numeric threshold); and, with release 8, a numeric feature whose
        corrected gain is not positive (not above 1e-6).

    Examples
    --------
    >>> import pandas as pd
    >>> from mltrees import ID3Classifier
    >>> from mltrees.tree import root_split_gains
    >>> X = pd.DataFrame({"windy": ["no", "yes", "no", "yes"],
    ...                   "sky": ["sun", "sun", "rain", "rain"]})
    >>> root_split_gains(ID3Classifier(), X, ["play", "stay", "play", "stay"]).round(3).tolist()
    [1.0, 0.0]
    """
    if not isinstance(estimator, _BaseTree):
        raise TypeError(
            "root_split_gains needs an mltrees tree estimator (ID3Classifier, C45Classifier, "
            f"CARTClassifier, CARTRegressor, ...), got {type(estimator).__name__}"
        )
    estimator = clone(estimator)
    estimator._validate_params()
    X, y, weights = validate_fit_input(estimator, X, y, sample_weight)
    prepare = estimator._prepare_classes if is_classifier(estimator) else estimator._prepare_targets
    data = prepare_training_data(
        X,
        y,
        weights,
        prepare,
        estimator._bin,
        who=type(estimator).__name__,
        splits_numbers=estimator._numeric_features,
        advice="",
    )
    rules, _ = estimator._growth_rules(data.codes, data.specs, data.statistics, data.total_weight)
    n_rows, n_features = data.codes.shape
    rows, node = np.arange(n_rows), np.zeros(n_rows, dtype=np.intp)
    root = data.statistics.aggregate(node, 1, rows)
    gains = np.empty(n_features)
    for j in range(n_features):
        only_j = np.zeros((1, n_features), dtype=bool)
        only_j[0, j] = True
        found = find_splits(
            data.codes, data.specs, rows, node, 1, data.statistics, root, rules, only_j
        )
        gains[j] = found.gain[0]
    return gains
