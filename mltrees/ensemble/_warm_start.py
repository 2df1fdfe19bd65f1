"""Warm start of bagging and random forests: add members to a fitted ensemble (chapter 9).

With ``warm_start=True`` a later ``fit`` with a larger ``n_estimators``
keeps the fitted members and grows only the missing ones, on the data of
the first fit. Member ``i`` always draws from the ``i``-th child of the
``random_state`` seed (:func:`~mltrees.ensemble._sampling._member_seeds`),
so with an int ``random_state`` the result equals one fit of all members.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import validate_data

from mltrees.ensemble._sampling import _member_seeds

__all__ = ["check_same_data", "continued_seeds", "ensemble_to_extend"]


def ensemble_to_extend(estimator, X) -> tuple[object | None, bool]:
    """The fitted ensemble that ``fit`` adds members to, and whether there is nothing to add.

    Returns ``(None, False)`` for a fit from scratch, ``(estimator, False)``
    when a warm start adds members, and ``(estimator, True)`` (with a
    warning) when ``n_estimators`` asks for no new member.

    Raises
    ------
    ValueError
        If ``n_estimators`` is smaller than the number of fitted members, or
        ``X`` has other features than at the first fit.
    """
    if not (estimator.warm_start and hasattr(estimator, "estimators_")):
        return None, False
    n_fitted = len(estimator.estimators_)
    if estimator.n_estimators < n_fitted:
        raise ValueError(
            f"n_estimators={estimator.n_estimators} must be >= len(estimators_)={n_fitted} "
            "when warm_start=True (members are only added)"
        )
    if estimator.n_estimators == n_fitted:
        warnings.warn(
            "warm_start=True without a larger n_estimators fits no new member",
            UserWarning,
            stacklevel=3,  # the user's fit
        )
        return estimator, True
    validate_data(estimator, X, reset=False, skip_check_array=True)  # same features
    return estimator, False


def continued_seeds(estimator, previous) -> tuple[int, list]:
    """Index of the first member to fit, and the seeds of all members (old ones first)."""
    first = 0 if previous is None else len(previous.estimators_)
    seeds = _member_seeds(estimator.random_state, first, estimator.n_estimators)
    if previous is not None:
        seeds = previous._sampling[0] + seeds
    return first, seeds


def check_same_data(previous, *, binned: bool, kept, attributes: dict, specs=None) -> None:
    """A warm start adds members for the data of the first fit: refuse other data.

    The new members must read the same binning (the old trees' thresholds
    and category codes refer to it), the same rows and the same classes,
    or the out-of-bag estimate and the average would mix two problems.
    """
    same = binned == previous._binned and np.array_equal(kept, previous._sampling[1])
    if same and binned:
        same = len(specs) == len(previous._specs) and all(
            a.kind == b.kind
            and a.exact == b.exact
            and a.values.shape == b.values.shape
            and bool((a.values == b.values).all())
            for a, b in zip(specs, previous._specs, strict=True)
        )
    for name, value in attributes.items():
        same = same and np.array_equal(value, getattr(previous, name))
    if not same:
        raise ValueError(
            "warm_start=True adds members fitted on the data of the first fit, but X, y "
            "or sample_weight differ from it (other rows, bins or classes); fit with "
            "warm_start=False to start over"
        )
