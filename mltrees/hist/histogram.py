"""Gradient histograms: (Σg, Σh) per (node, feature, bin), chapter 13.

A split of a node is scored from the sums of the gradients ``g_i`` and
hessians ``h_i`` of its rows on each side (:eq:`eq-xgb-gain`), and every
cut of a feature between bins is a prefix of that feature's bins. So the
learner needs, per node and feature, the sums per bin: a histogram, one
``bincount`` per feature over the rows' bin codes.

The **subtraction trick**: the two children of a node partition its rows,
so their histograms add up to the parent's. Only the child with fewer rows
is built from its rows; the other is the parent's histogram minus it. Each
level then reads at most half of the rows of the level above.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["build_histograms", "subtract"]


def build_histograms(
    codes: np.ndarray,
    stride: int,
    statistics: tuple[np.ndarray, ...],
    rows: np.ndarray | None = None,
    group: np.ndarray | None = None,
    n_groups: int = 1,
    features: np.ndarray | None = None,
    executor: ThreadPoolExecutor | None = None,
) -> np.ndarray:
    """Sum each statistic per (group, feature, bin).

    Implements the histogram of :eq:`eq-xgb-gain`'s sums: entry
    ``[q, j, b, s]`` is the sum of ``statistics[s]`` over the rows of group
    ``q`` whose feature ``j`` falls in bin ``b``.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
        Feature-major bin codes (:class:`~mltrees.hist.binning.BinnedData`).
    stride : int
        Codes per feature (bins and the missing bin).
    statistics : tuple of ndarray of shape (n_rows,)
        Per-row values to sum, e.g. ``(g, h)`` or ``(g, count)``; ``None``
        entries count rows.
    rows : ndarray of intp, optional
        The rows to read (all rows if None), e.g. the smaller children of a level.
    group : ndarray of intp, shape (len(rows),), optional
        The group (child) of each row in ``rows``; one group if None.
    n_groups : int
        Number of groups.
    features : ndarray of intp, optional
        Features to build (all if None); the others stay zero.
    executor : ThreadPoolExecutor, optional
        Features are summed on its threads (``bincount`` releases the GIL
        for part of its work).

    Returns
    -------
    ndarray of float64, shape (n_groups, n_features, stride, len(statistics))
    """
    n_features = codes.shape[0]
    n_stats = len(statistics)
    hist = np.zeros((n_features, n_stats, n_groups * stride))
    if rows is not None:
        statistics = tuple(None if s is None else s[rows] for s in statistics)
        offset = None if group is None else group * stride
    else:
        offset = None
    features = np.arange(n_features) if features is None else features

    def one(j: int) -> None:
        key = codes[j] if rows is None else codes[j].take(rows)
        if offset is not None:
            key = offset + key
        for s, weight in enumerate(statistics):
            hist[j, s] = np.bincount(key, weights=weight, minlength=n_groups * stride)

    if executor is None or len(features) < 2:
        for j in features:
            one(j)
    else:
        list(executor.map(one, features))
    # (feature, stat, group, bin) -> (group, feature, bin, stat)
    return hist.reshape(n_features, n_stats, n_groups, stride).transpose(2, 0, 3, 1)


def subtract(parent: np.ndarray, child: np.ndarray) -> np.ndarray:
    """The sibling's histogram: the parent's minus the built child's."""
    return parent - child
