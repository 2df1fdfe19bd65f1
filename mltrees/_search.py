"""Value → bin: how many entries of a sorted table lie below each value.

Every binned learner turns a raw value into a bin code by counting the cuts
below it: CART's histogram mode and the forests' codes (``x > edge``),
XGBoost's cuts (``x >= cut``), LightGBM's bin bounds (``x > bound``). This
is the one search they share. It lives at the package's root so that
:mod:`mltrees.tree`, :mod:`mltrees.hist` and :mod:`mltrees.ensemble` can
all use it without importing each other.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BRANCH_FREE_TABLE", "count_below"]

BRANCH_FREE_TABLE = 1 << 16  # up to this many entries, a branch-free search beats searchsorted


def count_below(table: np.ndarray, values: np.ndarray, *, inclusive: bool = False) -> np.ndarray:
    """``#{t in table : t < x}`` for every ``x`` of ``values``; ``t <= x`` if ``inclusive``.

    ``np.searchsorted(table, values, side="left")`` (``"right"`` if
    ``inclusive``) for a sorted ``table``, computed as a binary search run on
    all values at once: each halving is one gather and one comparison,
    without the branch mispredictions that make ``searchsorted`` about 2x
    slower on unsorted values. Large tables, whose gathers miss the cache,
    use ``searchsorted``. The comparisons are made in the dtypes of
    ``table`` and ``values`` as given (float32 cuts against float32 values
    for XGBoost). NaN counts no entry below it: its code is 0.

    Returns
    -------
    ndarray of intp, shaped like ``values``.
    """
    table = np.asarray(table)
    if table.size > BRANCH_FREE_TABLE:
        code = np.searchsorted(table, values, side="right" if inclusive else "left")
        code[np.isnan(values)] = 0
        return code.astype(np.intp, copy=False)
    size = 1 << int(table.size).bit_length()  # a power of two > len(table)
    padded = np.full(size, np.inf, dtype=table.dtype)
    padded[1 : table.size + 1] = table  # padded[k] is the k-th entry (1-based)
    below = np.less_equal if inclusive else np.less
    # intp: take() converts any other index type first (int32 measured ~15 % slower)
    code = np.zeros(np.shape(values), dtype=np.intp)
    step = size // 2
    while step >= 1:
        code += step * below(padded.take(code + step), values)
        step //= 2
    return code
