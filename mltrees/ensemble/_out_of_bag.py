"""Out-of-bag estimates of bagging and random forests (chapter 9).

A row left out of a member's bootstrap sample is new data for that member.
Averaging, for every row, the predictions of the members that did not draw
it gives an honest estimate of the ensemble's error without a held-out set
(:eq:`eq-oob-error`). Members add their predictions while they are fitted,
on any number of threads, in member order (:class:`_OrderedSum`), so the
estimate does not depend on ``n_jobs``.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.metrics import accuracy_score, r2_score

from mltrees.ensemble._parallel import _OrderedSum

__all__ = ["OutOfBag"]


class OutOfBag:
    """The out-of-bag sums of an ensemble being fitted, and the attributes they give.

    Parameters
    ----------
    n_samples : int
        Rows of the training set (the rows the counts index).
    width : int
        Columns of a member's prediction: the number of classes, or 1.
    """

    def __init__(self, n_samples: int, width: int):
        self._sums = _OrderedSum(n_samples, width)

    def add(self, index: int, counts: np.ndarray, predict) -> None:
        """Add member ``index``'s prediction ``predict(rows)`` for the rows it did not draw."""
        rows = np.flatnonzero(counts == 0)
        self._sums.add(index, rows, predict(rows))

    def attributes(self, y: np.ndarray, classes=None) -> dict:
        """Out-of-bag prediction and score (:eq:`eq-oob-error`, chapter 9).

        Classifiers (``classes`` given) get ``oob_decision_function_`` and the
        accuracy, regressors ``oob_prediction_`` and R². A row drawn by every
        member has no out-of-bag prediction (NaN) and is left out of the score.
        """
        total, count = self._sums.total, self._sums.count
        covered = count > 0
        if not covered.all():
            warnings.warn(
                f"{int((~covered).sum())} sample(s) were in the bag of every estimator and "
                "have no out-of-bag prediction (NaN); the OOB score ignores them. "
                "Use more estimators.",
                UserWarning,
                stacklevel=4,  # the user's fit, through the ensemble's fit and its path
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            average = total / count[:, None]
        if classes is not None:
            predicted = classes[np.argmax(average[covered], axis=1)]
            score = accuracy_score(y[covered], predicted) if covered.any() else np.nan
            return {"oob_decision_function_": average, "oob_score_": float(score)}
        prediction = average[:, 0]
        score = r2_score(y[covered], prediction[covered]) if covered.sum() > 1 else np.nan
        return {"oob_prediction_": prediction, "oob_score_": float(score)}
