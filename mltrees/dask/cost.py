"""What data-parallel tree learning sends over the network (chapter on scale).

Pure arithmetic, no cluster: the bytes a level of a tree costs when the
workers sum histograms (:eq:`eq-scale-level-bytes`), when they ship their
rows instead (:eq:`eq-scale-row-bytes`), and the candidates that PV-Tree's
voting keeps (:eq:`eq-scale-vote`).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "histogram_bytes",
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
