"""LogitBoost: Newton steps on the binomial log-likelihood (chapter 11).

Friedman, Hastie and Tibshirani (2000, Algorithm 3) keep boosting's additive
model and stagewise fitting but replace AdaBoost's exponential loss by the
binomial log-likelihood. Each round is one Newton step: a regression tree is
fitted by weighted least squares to the working response ``z`` with weights
``p (1 - p)`` (:eq:`eq-ch11-logitboost-z`), and half of it is added to the
score ``F``, half the log-odds.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from mltrees._progress import Progress
from mltrees._typing import ArrayLike, MatrixLike
from mltrees.ensemble._common import check_positive_int, class_codes
from mltrees.tree import CARTRegressor
from mltrees.tree._data import validate_fit_input

__all__ = ["LogitBoostClassifier", "logitboost_working_response"]

# p (1 - p) is floored here: a row the model is sure about carries no weight
# but must not divide by zero in z.
_MIN_WEIGHT = 2 * np.finfo(float).eps


def logitboost_working_response(y, score, z_max: float = 4.0):
    r"""Working response and weights of one LogitBoost round.

    Implements :eq:`eq-ch11-logitboost-z` (chapter 11): with
    :math:`p = 1 / (1 + e^{-2F})` and :math:`y^* \in \{0, 1\}`,
    :math:`z = (y^* - p) / (p (1 - p))` and :math:`w = p (1 - p)`. Friedman,
    Hastie and Tibshirani clip :math:`z` to :math:`[-z_{\max}, z_{\max}]`
    (they suggest 2 to 4) for numerical stability where :math:`p` is near 0 or 1.

    Parameters
    ----------
    y : array_like of {0, 1}, shape (n_samples,)
    score : array_like, shape (n_samples,)
        The current score :math:`F`, half the log-odds.
    z_max : float > 0, default 4.0
        ``np.inf`` switches the clipping off.

    Returns
    -------
    z, w : ndarray, shape (n_samples,)
    """
    y = np.asarray(y, dtype=np.float64)
    score = np.asarray(score, dtype=np.float64)
    if y.shape != score.shape or y.ndim != 1:
        raise ValueError(
            f"y and score must be 1-d arrays of the same length, got shapes {y.shape} "
            f"and {score.shape}"
        )
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("y must hold 0/1 labels")
    _check_z_max(z_max)
    p = 1.0 / (1.0 + np.exp(-2.0 * score))
    w = np.maximum(p * (1.0 - p), _MIN_WEIGHT)
    z = np.clip((y - p) / w, -z_max, z_max)
    return z, w


def _check_z_max(z_max):
    ok = isinstance(z_max, numbers.Real) and not isinstance(z_max, bool)
    if not ok or np.isnan(z_max) or z_max <= 0:
        raise ValueError(f"z_max must be a positive float (inf: no clipping), got {z_max!r}")


class LogitBoostClassifier(ClassifierMixin, BaseEstimator):
    """Two-class LogitBoost with regression trees (chapter 11).

    Implements Friedman, Hastie and Tibshirani's Algorithm 3: start from
    ``F = 0`` (``p = 1/2``); every round fits a ``CARTRegressor`` to the working
    response of :func:`logitboost_working_response` with its weights, and adds
    half of it to ``F``. ``predict_proba`` returns ``1 / (1 + e^{-2F})``.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of rounds.
    max_depth : int, default 1
        Depth of every regression tree (1: stumps).
    z_max : float, default 4.0
        Clipping of the working response.
    max_bins : int or None, default None
        Passed to the trees (None: exact thresholds).
    verbose : int, default 0
        If > 0, report the round and the training log-loss every ``verbose``
        rounds (a line on stdout, or a bar in a notebook). Silent by default.

    Attributes
    ----------
    estimators_ : list of CARTRegressor
    classes_ : ndarray of shape (2,)
    """

    def __init__(self, n_estimators=100, *, max_depth=1, z_max=4.0, max_bins=None, verbose=0):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.z_max = z_max
        self.max_bins = max_bins
        self.verbose = verbose

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Run ``n_estimators`` Newton rounds on ``(X, y)``; returns self."""
        check_positive_int(self.n_estimators, "n_estimators")
        check_positive_int(self.max_depth, "max_depth")
        _check_z_max(self.z_max)
        progress = Progress(self.verbose, self.n_estimators, type(self).__name__)
        X, y, weights = validate_fit_input(self, X, y, sample_weight)
        classes, codes = class_codes(y)
        if classes.size != 2:
            raise ValueError(
                f"LogitBoostClassifier needs exactly 2 classes in y, got {classes.size}"
            )
        target = codes.astype(np.float64)
        score = np.zeros(len(target))
        self.estimators_ = []
        for _ in range(self.n_estimators):
            z, w = logitboost_working_response(target, score, self.z_max)
            tree = CARTRegressor(max_depth=self.max_depth, max_bins=self.max_bins)
            tree.fit(X, z, sample_weight=weights * w)
            score += 0.5 * tree.predict(X)
            self.estimators_.append(tree)
            if progress.due():
                # Log-loss of p = 1/(1 + e^{-2F}) in a stable form: log(1 + e^{-2F y*}).
                signed = np.where(target == 1, 2.0 * score, -2.0 * score)
                loss = float(np.average(np.logaddexp(0.0, -signed), weights=weights))
                progress.step(f"train log-loss {loss:.6g}")
            else:
                progress.step()
        progress.close()
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def staged_decision_function(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """The score ``F`` after each round (a generator)."""
        check_is_fitted(self, "estimators_")
        score = None
        for tree in self.estimators_:
            step = 0.5 * tree.predict(X)
            score = step if score is None else score + step
            yield score.copy()

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """The score ``F``, half the log-odds of ``classes_[1]``."""
        check_is_fitted(self, "estimators_")
        return 0.5 * np.sum([tree.predict(X) for tree in self.estimators_], axis=0)

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """``[1 - p, p]`` with ``p = 1 / (1 + e^{-2F})``."""
        p = 1.0 / (1.0 + np.exp(-2.0 * self.decision_function(X)))
        return np.column_stack([1.0 - p, p])

    def predict(self, X: MatrixLike) -> np.ndarray:
        """``classes_[1]`` where ``F > 0``, else ``classes_[0]``."""
        return self.classes_[(self.decision_function(X) > 0).astype(np.intp)]

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_logitboost

        _rebuild_logitboost(self)
