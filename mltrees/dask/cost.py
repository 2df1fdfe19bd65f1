"""What data-parallel tree learning sends over the network (chapter on scale).

No cluster: the bytes a level of a tree costs when the workers sum
histograms (:eq:`eq-scale-level-bytes`), when they ship their rows instead
(:eq:`eq-scale-row-bytes`), the local gains each worker votes with, and the
candidates that PV-Tree's voting keeps (:eq:`eq-scale-vote`).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "histogram_bytes",
    "local_feature_gains",
    "pv_tree_candidates",
    "row_bytes",
    "tree_reduce_bytes",
]


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return value


def histogram_bytes(n_nodes, n_features, n_bins, n_statistics: int = 2, itemsize: int = 8) -> float:
    """Bytes of the histograms of ``n_nodes`` nodes: one worker's message at one level.

    Implements :eq:`eq-scale-level-bytes`: ``n_nodes × n_features × n_bins
    × n_statistics × itemsize``. The default statistics are (Σg, Σh) in
    float64, what XGBoost (``GradientPairPrecise``), LightGBM (``hist_t``
    pairs) and :mod:`mltrees.dask`'s boosting sum per bin; a learner that
    also sums a row count per bin passes ``n_statistics=3``. With the
    subtraction trick ``n_nodes`` is half the level's nodes (only the
    smaller children are summed).
    """
    for value, name in (
        (n_nodes, "n_nodes"),
        (n_features, "n_features"),
        (n_bins, "n_bins"),
        (n_statistics, "n_statistics"),
        (itemsize, "itemsize"),
    ):
        _positive(value, name)
    return float(n_nodes) * n_features * n_bins * n_statistics * itemsize


def tree_reduce_bytes(n_workers, message_bytes) -> dict:
    """Traffic of summing one message per worker by a binary tree reduction.

    ``P - 1`` additions for ``P = n_workers``, each receiving one message:
    ``(P - 1) × message`` bytes cross the network in ``ceil(log2 P)``
    sequential steps, and no worker receives more than ``ceil(log2 P)``
    messages. Gathering all messages on the driver instead sends the same
    total in one step, all of it into one machine (``P × message``).

    Returns
    -------
    dict with keys ``total``, ``steps``, ``max_received``, ``gather_received``.
    """
    _positive(n_workers, "n_workers")
    _positive(message_bytes, "message_bytes")
    steps = int(np.ceil(np.log2(n_workers))) if n_workers > 1 else 0
    return {
        "total": (n_workers - 1) * float(message_bytes),
        "steps": steps,
        "max_received": steps * float(message_bytes),
        "gather_received": n_workers * float(message_bytes),
    }


def row_bytes(n_rows, n_features, code_bytes: int = 1, statistic_bytes: int = 16) -> dict:
    """Bytes to ship the rows to one machine instead (:eq:`eq-scale-row-bytes`).

    The binned rows once (``n_rows × n_features × code_bytes``), then the
    gradients and hessians of every row every round (``n_rows ×
    statistic_bytes``).
    """
    _positive(n_rows, "n_rows")
    _positive(n_features, "n_features")
    return {
        "once": float(n_rows) * n_features * code_bytes,
        "per_tree": float(n_rows) * statistic_bytes,
    }


def local_feature_gains(X, g, h, partitions, max_bin: int = 256) -> np.ndarray:
    """The best split gain of every feature at a root, on each partition's rows alone.

    The input of PV-Tree's vote (:eq:`eq-scale-vote`): worker ``r`` builds
    the histograms of its rows and scores every feature's best cut with the
    gain :eq:`eq-xgb-gain` (XGBoost's default penalties, ``λ = 1``,
    ``min_child_weight = 1``, missing values tried on both sides), without
    any communication. The bins are cut from all rows of ``X``, as the
    merged sketch of a cluster would give every worker the same cuts.

    Parameters
    ----------
    X : array-like of shape (n_rows, n_features)
        Numeric features; NaN is a missing value.
    g, h : array-like of shape (n_rows,)
        Gradients and hessians of the rows.
    partitions : sequence of array-like of int
        The rows of each worker (indices into ``X``).
    max_bin : int, default=256
        Bins per feature.

    Returns
    -------
    ndarray of float64, shape (len(partitions), n_features)
        Row ``r``: the largest gain of each feature on partition ``r``
        (0 for a feature with no cut of positive gain there).
    """
    from mltrees.hist.binning import BinnedData
    from mltrees.hist.histogram import build_histograms
    from mltrees.hist.xgboost.splitting import SplitParams, find_best_splits

    values = np.asarray(X, dtype=np.float32)
    if values.ndim != 2:
        raise ValueError(f"X must be 2-D (rows, features), got shape {values.shape}")
    g = np.asarray(g, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    if g.shape != (len(values),) or h.shape != (len(values),):
        raise ValueError(f"g and h must have shape ({len(values)},), got {g.shape} and {h.shape}")
    binned = BinnedData.fit(values, max_bin)
    n_features = binned.n_features
    only_own = np.eye(n_features, dtype=bool)  # "node" j may split on feature j only
    gains = np.zeros((len(partitions), n_features))
    for r, rows in enumerate(partitions):
        rows = np.asarray(rows, dtype=np.intp)
        if rows.ndim != 1 or (rows.size and (rows.min() < 0 or rows.max() >= len(values))):
            raise ValueError(f"partitions[{r}] must be 1-D row indices into X")
        if rows.size == 0:
            continue
        hist = build_histograms(
            binned.codes, binned.stride, (g, h), rows, np.array([0]), np.array([rows.size])
        )
        totals = np.array([[g[rows].sum(), h[rows].sum()]])
        best = find_best_splits(
            np.repeat(hist, n_features, axis=0),
            np.repeat(totals, n_features, axis=0),
            binned.n_bins,
            SplitParams(),
            only_own,
        )
        gains[r] = np.where(np.isfinite(best.gain) & (best.gain > 0), best.gain, 0.0)
    return gains


def pv_tree_candidates(local_gains: np.ndarray, k: int) -> np.ndarray:
    """PV-Tree's global vote (Meng et al. 2016), :eq:`eq-scale-vote`.

    Each worker (row of ``local_gains``, shape (n_workers, n_features))
    votes for its ``k`` features of largest local gain; the ``2k``
    features with most votes are the candidates whose full histograms are
    then summed. Ties in the votes go to the smaller feature index.

    Returns
    -------
    ndarray of intp, shape (min(2k, n_features),)
        The candidate features, in decreasing order of votes.
    """
    gains = np.asarray(local_gains, dtype=np.float64)
    if gains.ndim != 2:
        raise ValueError(f"local_gains must be 2-D (workers, features), got shape {gains.shape}")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    n_features = gains.shape[1]
    k = min(int(k), n_features)
    top = np.argsort(-gains, axis=1, kind="stable")[:, :k]
    votes = np.bincount(top.ravel(), minlength=n_features)
    return np.argsort(-votes, kind="stable")[: min(2 * k, n_features)]
