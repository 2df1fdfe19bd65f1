"""The range of feature values each library-equal estimator can reproduce.

mltrees' own trees take every finite float (their thresholds are
:func:`mltrees._midpoint.midpoint`). The estimators that promise the trees of
a library compute as that library does, and some of its arithmetic breaks
near the ends of the float range. Measured with xgboost 3.2, lightgbm 4.7 and
catboost 1.2 (two rows per value, one split wanted):

* **XGBoost** stores features as float32; a value beyond float32's largest
  (3.4028235e38) becomes infinite and xgboost refuses it ("Input data contains
  `inf` or a value too large"). ``tree_method="exact"`` cuts at the float32
  midpoint ``(a + b) * 0.5``, which overflows when two neighbouring values of
  one sign sum beyond 3.4e38 (both at least 2**127, about 1.7e38): xgboost then
  writes the test ``x < -inf`` or ``x < inf`` and fits a constant model
  (values -3e38 and -2e38). ``hist`` and ``approx`` cut at data values and are
  unaffected.
* **LightGBM** bounds its bins at ``nextafter((a + b) / 2, +inf)`` in double,
  which overflows when two neighbouring values of one sign sum beyond
  1.797e308 (both at least 2**1023, about 8.99e307): lightgbm then merges them
  into one bin, and fits a constant model on two values (8e307 and 1e308;
  8e307 and 8.9e307 still split).
* **CatBoost** stores features as float32 and its borders are ``a/2 + b/2``
  (no overflow); a value beyond float32's largest becomes infinite, its border
  with a finite neighbour is infinite, and catboost fits a constant model
  (values near 1e300: accuracy 0.525 where the unscaled data give 0.99).

The functions here refuse, at ``fit``, exactly these inputs, with an error
naming the column. Prediction needs no check: a value beyond a library's
range compares with every finite threshold as the value itself would.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_float32_range", "check_neighbour_sums"]


def _column_name(names, j) -> str:
    return repr(str(names[j])) if names is not None else str(j)


def _largest_pair(values: np.ndarray):
    """The two largest distinct values of a 1-D array (None if fewer than two)."""
    if values.size < 2:
        return None
    first = values.max()
    below = values[values < first]
    return None if below.size == 0 else (below.max(), first)


def check_neighbour_sums(X: np.ndarray, names, *, library: str, reason: str) -> None:
    """Refuse columns of ``X`` where two neighbouring values of one sign overflow when summed.

    The sum is taken in ``X``'s dtype (float32 or float64), as the library
    computes its midpoint. Among sorted distinct values the largest such sum
    is that of the two largest positive (or the two smallest negative)
    values, so only those pairs are checked; columns whose values stay
    below half the dtype's largest float are skipped at once.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32 or float64
        Training features; NaN (missing) is ignored.
    names : sequence of str or None
        Column names, for the message.
    library, reason : str
        The library whose midpoint overflows, and what it then does.
    """
    info = np.finfo(X.dtype)
    half = np.ldexp(X.dtype.type(1), info.maxexp - 1)  # 2**127 or 2**1023
    with np.errstate(invalid="ignore"):
        large = np.nanmax(np.abs(X), axis=0, initial=0.0) >= half if X.size else []
    for j in np.flatnonzero(large):
        column = X[:, j]
        column = column[np.isfinite(column)]
        for sign in (1, -1):
            pair = _largest_pair(sign * column[sign * column > 0])
            if pair is None:
                continue
            with np.errstate(over="ignore"):
                total = pair[0] + pair[1]
            if np.isinf(total):
                a, b = sorted((sign * float(pair[0]), sign * float(pair[1])))
                raise ValueError(
                    f"X column {_column_name(names, j)} holds the neighbouring values "
                    f"{a:.9g} and {b:.9g}, whose sum overflows {X.dtype} (beyond "
                    f"{float(info.max):.9g}): {library} cuts between them at (a + b) / 2 and "
                    f"{reason}. Rescale the column (for example divide it by a power of two)."
                )


def check_float32_range(X: np.ndarray, names, *, library: str, reason: str) -> None:
    """Refuse finite values of ``X`` (float64) that become infinite in float32."""
    largest = float(np.finfo(np.float32).max)
    with np.errstate(invalid="ignore"):
        size = np.abs(X)
        if not (size > largest).any():
            return
        with np.errstate(over="ignore"):
            outside = np.isfinite(X) & np.isinf(X.astype(np.float32))
    rows, columns = np.nonzero(outside)
    if rows.size == 0:
        return
    j = int(columns[0])
    raise ValueError(
        f"X column {_column_name(names, j)} holds {float(X[rows[0], j]):.9g}, beyond "
        f"float32's largest value {largest:.9g}: {library} reads features as float32, "
        f"where it becomes infinite, and {reason}. Rescale the column (for example "
        "divide it by a power of two)."
    )
