"""Private APIs of other packages, each behind a check that it still does what we rely on.

SciPy's compiled ``csc_matvecs`` (``scipy.sparse._sparsetools``) is the
fastest way NumPy and SciPy offer to add many rows' statistics into a
histogram: it reads every key once for all statistics, takes 4-byte keys,
and adds into an existing output, so a histogram can be built in blocks of
rows that stay in cache. Its public door, ``csc_array(...) @ weights``,
reaches the same kernel but returns a fresh array for every block, and
adding the blocks' results together changes the order of the additions,
which the equality with LightGBM cannot afford (every bin must receive its
rows one by one, in row order, as ``np.bincount`` adds them).

The module is private to SciPy, so its name, signature or loop order may
change in any release. :func:`checked_csc_matvecs` therefore imports it
once and runs it on a small case whose result depends on the order of the
additions; if the import fails, the call raises, or a single bit differs
from in-order addition, the kernel is not used and the histogram code takes
its ``np.bincount`` paths, which give the same sums bit for bit, more slowly.
"""

from __future__ import annotations

import numpy as np

__all__ = ["checked_csc_matvecs", "csc_matvecs", "csc_matvecs_sums_in_order"]


def csc_matvecs_sums_in_order(kernel) -> bool:
    """Whether ``kernel`` adds ``Y += A @ X`` for a CSC ``A`` column by column, in place.

    ``kernel(n_row, n_col, n_vecs, indptr, indices, data, X, Y)`` is the
    signature of SciPy's ``csc_matvecs`` (int32 indices, float64 values,
    ``X`` of shape ``(n_col, n_vecs)`` and ``Y`` of shape ``(n_row,
    n_vecs)``, both flattened). The case is a histogram: column ``c`` is a
    row of data with a 1 at each of its bins, ``X[c]`` its statistics. Its
    values (``1e16`` and ``1``) round differently under any order of the
    additions but one: each bin's starting value, then its rows in row
    order. Any exception counts as a failure.
    """
    n_bins, n_stats = 3, 2
    # rows 0..5; each row falls in two bins (two features, as a histogram's keys)
    keys = np.array([0, 2, 1, 2, 0, 2, 1, 2, 0, 1, 0, 2], dtype=np.int32)
    starts = np.arange(0, keys.size + 1, 2, dtype=np.int32)
    values = np.array(
        [[1e16, 1.0], [1.0, 1e16], [-1e16, 1.0], [1.0, -1e16], [1.0, 3.0], [0.5, 1.0]]
    )
    initial = np.array([[1.0, -1e16], [1e16, 1.0], [1.0, 2.0]])
    expected = initial.copy()
    for row in range(values.shape[0]):
        for key in keys[starts[row] : starts[row + 1]]:
            expected[key] += values[row]
    try:
        got = initial.copy()
        kernel(
            n_bins,
            values.shape[0],
            n_stats,
            starts,
            keys,
            np.ones(keys.size),
            values.reshape(-1),
            got.reshape(-1),
        )
    except Exception:  # a changed signature or dtype rule: not the kernel we know
        return False
    return bool(np.array_equal(got, expected)) and got.tobytes() == expected.tobytes()


def checked_csc_matvecs():
    """SciPy's ``csc_matvecs`` if it imports and passes the order check, else None."""
    try:
        from scipy.sparse._sparsetools import csc_matvecs as kernel
    except ImportError:
        return None
    return kernel if csc_matvecs_sums_in_order(kernel) else None


csc_matvecs = checked_csc_matvecs()
