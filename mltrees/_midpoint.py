"""The threshold between two neighbouring values, over the whole floating-point range.

Every numeric split of a tree is stored as a threshold ``t`` between the
largest value ``a`` on the left and the smallest value ``b`` on the right,
``x <= t`` going left (:eq:`eq-bipartition-midpoints`). The midpoint
``(a + b) / 2`` is the natural choice, but in floating point

* ``a + b`` overflows to ``±inf`` when both values are beyond ``±8.99e307``
  (``-1.6e308`` and ``-1e308`` sum to ``-inf``: every value then goes right);
* for two adjacent floats, or halves that round in the subnormal range, the
  rounded midpoint can equal ``b``, and ``x <= t`` then sends ``b`` left.

:func:`midpoint` computes ``a/2 + b/2``, which cannot overflow and, wherever
the halves are exact (everywhere but the subnormal range), is the correctly
rounded ``(a + b) / 2`` bit for bit; where the result is not in ``[a, b)`` it
returns ``a``. scikit-learn's splitter does the same. Every threshold ``t``
between sorted neighbours ``a < b`` then satisfies ``a <= t < b``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["midpoint"]


def midpoint(a, b, *, guard: bool = True):
    """Threshold between sorted neighbours ``a < b`` (arrays or scalars, same dtype).

    Parameters
    ----------
    a, b : array_like of float
        Left and right values, ``a < b`` elementwise (``a == b`` gives ``a``).
        The result has their dtype: float32 inputs give float32 thresholds.
    guard : bool, default True
        Return ``a`` where the rounded ``a/2 + b/2`` is not in ``[a, b)``, so
        that ``x <= t`` separates ``a`` from ``b``. ``False`` returns the bare
        ``a/2 + b/2``: CatBoost's float32 border, which a library-equal
        estimator must reproduce even where it rounds onto ``b``.

    Returns
    -------
    ndarray or scalar
        ``t`` with ``a <= t < b`` (when ``guard``).
    """
    a = np.asarray(a)
    b = np.asarray(b)
    half = np.asarray(0.5, dtype=np.result_type(a, b, np.float32))
    t = half * a + half * b
    if guard:
        t = np.where((t >= b) | (t < a), a, t)
    return t[()] if t.ndim == 0 else t
