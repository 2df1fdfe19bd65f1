"""Input checking shared by every public entry point.

One place, one wording: every error names the argument, says what was
expected and what arrived. Estimators added later reuse these helpers.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "ParameterError",
    "check_base",
    "check_bool",
    "check_distribution",
    "check_int",
    "check_labels",
    "check_sample_weight",
    "class_codes",
    "real_targets",
    "require_two_classes",
]


class ParameterError(ValueError, TypeError):
    """A constructor parameter of the wrong type or out of range.

    Both a ValueError and a TypeError, as scikit-learn's
    ``InvalidParameterError``: callers catching either keep working.
    """


def check_int(value, name: str, low: int = 1, allow_none: bool = False) -> None:
    """Check an integer parameter ``>= low`` (bool is not an int here), or None if allowed."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        expected = f"an int >= {low}" + (" or None" if allow_none else "")
        raise ValueError(f"{name} must be {expected}, got {value!r}")


def check_bool(value, name: str) -> bool:
    """Check a True/False parameter (numpy bools accepted) and return it as a bool."""
    if not isinstance(value, bool | np.bool_):
        raise ParameterError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _as_numeric_array(value, name: str) -> np.ndarray:
    """Convert ``value`` to a float64 array, rejecting non-numeric input with a TypeError."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested lists, for example
        raise ValueError(f"{name} must be a rectangular array of numbers: {exc}") from exc
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers (bool, int or float), got dtype {arr.dtype}"
        )
    return arr


def check_distribution(
    value,
    name: str,
    *,
    event_ndim: int,
    counts: bool | None,
) -> np.ndarray:
    """Check a batch of discrete distributions and return probabilities.

    Parameters
    ----------
    value : array_like
        Probabilities or counts. The last ``event_ndim`` axes index the
        outcomes of one distribution; any leading axes are batch axes.
    name : str
        Argument name used in error messages.
    event_ndim : int
        1 for a distribution over one variable, 2 for a joint table.
    counts : bool or None
        ``True``: the entries are counts or weights and are normalised.
        ``False``: the entries must already sum to 1 within a tolerance.
        ``None``: integer and bool arrays are counts, float arrays are probabilities.

    Returns
    -------
    ndarray of float64
        Probabilities with the same shape as ``value``.

    Raises
    ------
    TypeError
        If the entries are not real numbers or ``counts`` is not a bool or None.
    ValueError
        If the array is empty, has too few axes, holds NaN, inf or negative
        entries, has an all-zero distribution, or (as probabilities) does not
        sum to 1.
    """
    if counts is not None and not isinstance(counts, bool | np.bool_):
        raise TypeError(f"counts must be True, False or None, got {counts!r}")
    arr = _as_numeric_array(value, name)
    if arr.ndim < event_ndim:
        axes = "1 axis" if event_ndim == 1 else f"{event_ndim} axes"
        raise ValueError(
            f"{name} must have at least {axes} (the outcomes), got an array of shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); a distribution needs an outcome")
    is_counts = arr.dtype.kind in "biu" if counts is None else bool(counts)
    p = np.asarray(arr, dtype=np.float64)  # read-only use below: no copy needed
    if not np.isfinite(p).all():
        raise ValueError(f"{name} contains {'NaN' if np.isnan(p).any() else 'inf'}")
    if p.min() < 0:
        raise ValueError(f"{name} has negative entries, e.g. {p[p < 0].flat[0]!r}")
    event_axes = tuple(range(-event_ndim, 0))
    totals = p.sum(axis=event_axes, keepdims=True)
    if (totals == 0).any():
        raise ValueError(f"{name} has a distribution whose entries are all zero")
    if is_counts:
        return p / totals
    # Each stored probability carries a relative rounding error of at most a few
    # eps of its own dtype, so the sum is off by a few eps whatever n is.
    eps = float(np.finfo(arr.dtype if arr.dtype.kind == "f" else np.float64).eps)
    tolerance = max(1e-8, 8 * eps)
    worst = float(np.max(np.abs(totals - 1.0)))
    if worst > tolerance:
        raise ValueError(
            f"{name} must sum to 1 over its last {event_ndim} axis(es) as probabilities "
            f"(largest deviation {worst:.3g}, tolerance {tolerance:.1g}); "
            "pass counts=True to normalise counts or weights"
        )
    return p


def check_base(base) -> float:
    """Check a logarithm base: a positive real number other than 1."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"base must be a real number such as 2 or math.e, got {base!r}")
    base = float(base)
    if not np.isfinite(base) or base <= 0 or base == 1:
        raise ValueError(f"base must be positive, finite and different from 1, got {base!r}")
    return base


def check_labels(value, name: str) -> np.ndarray:
    """Check a one-dimensional array of labels; any hashable, sortable values, no missing ones."""
    arr = np.asarray(value)
    # np.asarray(["a", float("nan")]) silently turns NaN into the string "nan";
    # look at the original objects instead.
    if arr.dtype.kind in "USO" and arr.ndim == 1:
        import pandas as pd  # only for labels that may hide a NaN: numbers need no pandas

        if pd.isna(np.asarray(value, dtype=object)).any():
            raise ValueError(f"{name} contains missing values (None or NaN)")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one sample is needed")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN; missing labels are not supported here")
    return arr


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Check per-sample weights: finite, non-negative, one per sample, not all zero."""
    if sample_weight is None:
        return np.ones(n_samples)
    w = _as_numeric_array(sample_weight, "sample_weight").astype(np.float64)
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight must have shape ({n_samples},) to match the samples, got {w.shape}"
        )
    if not np.isfinite(w).all():
        raise ValueError("sample_weight contains NaN or inf")
    if (w < 0).any():
        raise ValueError("sample_weight has negative entries; weights must be >= 0")
    if w.sum() == 0:
        raise ValueError("sample_weight sums to zero")
    return w


# The targets of ``fit``, prepared here for the trees and the ensembles alike,
# after ``validate_fit_input`` has made ``y`` a 1-D array of the right length.
def class_codes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted classes of classification targets and the code of every sample's class.

    Rejects missing labels (NaN, None), inf and continuous targets with a
    ValueError; returns ``np.unique(y, return_inverse=True)``.
    """
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"y contains {'NaN' if np.isnan(y).any() else 'inf'}")
    if y.dtype.kind == "O":
        import pandas as pd

        if pd.isna(y).any():
            raise ValueError("y contains missing values (None or NaN)")
    # A 1-D array of integers, booleans, strings or whole floats is a class
    # target for scikit-learn's type_of_target ("binary" or "multiclass"): its
    # check (a quarter of a small tree's fit) is left to the other cases.
    whole_floats = y.dtype.kind == "f" and not (y != y.astype(np.int64).astype(y.dtype)).any()
    if not (y.ndim == 1 and y.size and (y.dtype.kind in "biuU" or whole_floats)):
        from sklearn.utils.multiclass import check_classification_targets

        check_classification_targets(y)  # rejects continuous targets
    return np.unique(y, return_inverse=True)


def require_two_classes(n_classes: int, who: str, n_weighted: int | None = None) -> None:
    """Refuse a classification target with fewer than 2 classes (of positive weight).

    For the boosting classifiers, whose losses need two classes at least.
    ``n_weighted``, when given, counts the classes that keep a positive
    weight after ``sample_weight``.
    """
    n = n_classes if n_weighted is None else min(n_classes, int(n_weighted))
    if n < 2:
        weighted = " of positive weight" if n < n_classes else ""
        raise ValueError(
            f"y contains {n} class{'' if n == 1 else 'es'}{weighted}, while {who} needs at "
            "least 2 classes"
        )


def real_targets(y: np.ndarray) -> np.ndarray:
    """Regression targets as float64, rejecting complex, non-numeric and non-finite values."""
    if y.dtype.kind == "c":
        raise ValueError("y holds complex numbers; a regression model needs real targets")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must be numeric for a regression model: {exc}") from exc
    if not np.isfinite(y).all():
        raise ValueError("y contains NaN or inf")
    return y
