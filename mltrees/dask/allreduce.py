r"""Histograms summed across the workers of a Dask cluster (chapter on scale).

Everything a split search needs is a sum over rows: the histograms
:math:`(\sum g, \sum h)` per (node, feature, bin) of :eq:`eq-xgb-gain`, and
the row counts of the children. Sums over the partitions of the rows add
up, so the histogram learner runs unchanged on a driver that sees only
the summed histograms (:eq:`eq-scale-allreduce`):

* :class:`DaskRows` is a row store for
  :meth:`~mltrees.hist.grower.DepthwiseGrower.grow_rows`: it keeps one
  :class:`~mltrees.hist.grower.NodeRows` per partition on the workers,
  runs every request on all of them and sums the answers with
  :func:`tree_sum`;
* :func:`merged_cuts` gives the global cut points: each partition
  summarises its columns (the weighted quantile sketch of
  :mod:`mltrees.hist.xgboost.quantile_summary`), the summaries are merged
  (:eq:`eq-xgb-sketch-merge`) and queried once.

Every task is a function of its inputs, which it does not modify: the
state of a partition (its row order, its leaves) at any level of any
tree is a function of the partition and of the splits chosen so far.
When a worker dies, Dask recomputes what it held from that lineage, and
the model is the same; when it cannot, the fit raises.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from mltrees.hist.binning import BinnedData, encode, summary_cuts
from mltrees.hist.grower import NodeRows
from mltrees.hist.xgboost.quantile_summary import WeightedQuantileSummary

__all__ = ["DaskRows", "merged_cuts", "tree_sum"]


def _add(a, b):
    """Sum of two partial results: arrays, or tuples of arrays added entrywise."""
    if isinstance(a, tuple):
        return tuple(_add(x, y) for x, y in zip(a, b, strict=True))
    return a + b


def tree_sum(client, futures: list, combine=_add):
    """One future holding the sum of ``futures``, added pairwise level by level.

    A tree reduction: ``ceil(log2 p)`` rounds of additions, each on a
    worker that holds one of the two operands, so no machine receives more
    than ``log2 p`` partial sums (Dask has no all-reduce; the driver
    gathers the root).

    Implements the sum of :eq:`eq-scale-allreduce`.
    """
    futures = list(futures)
    if not futures:
        raise ValueError("tree_sum needs at least one future")
    while len(futures) > 1:
        paired = [
            client.submit(combine, futures[i], futures[i + 1], pure=False)
            for i in range(0, len(futures) - 1, 2)
        ]
        if len(futures) % 2:
            paired.append(futures[-1])
        futures = paired
    return futures[0]


# ---------------------------------------------------------------- worker tasks
def _unwrap(store):
    """The store of a task result: a :class:`NodeRows`, or ``(store, answer)`` of a split."""
    return store[0] if isinstance(store, tuple) else store


def _store(binned, statistics, k: int, features):
    """The :class:`NodeRows` of one partition for output ``k`` (a worker task)."""
    data = binned[0]
    g, h = statistics
    return NodeRows(data, g[:, k], h[:, k], features=features)


def _root(store):
    store = _unwrap(store)
    return store.histograms(), store.totals()


def _histograms(store, nodes):
    return _unwrap(store).histograms(nodes)


def _squares(store):
    return _unwrap(store).squares()


def _advance(store, method: str, args: tuple):
    """A copy of ``store`` after ``method(*args)``, and the method's answer.

    The input is left as it was, so a task that runs twice (a retry after a
    worker died) sees the same store and returns the same answer.
    """
    new = _unwrap(store).branch()
    return new, getattr(new, method)(*args)


def _leaf_of_row(store):
    return _unwrap(store).leaf_of_row()


class DaskRows:
    """A row store whose rows live on the workers, one :class:`NodeRows` per partition.

    :meth:`~mltrees.hist.grower.DepthwiseGrower.grow_rows` grows a tree
    on it exactly as on one machine: every histogram it asks for is the
    sum over the partitions (:eq:`eq-scale-allreduce`), and so are the
    totals and the row counts of the children. Each request is one round
    trip between the driver and the workers (``round_trips`` counts them);
    a split and the histograms of the next level share one when the
    smaller children are guessed right.

    Parameters
    ----------
    client : distributed.Client
    binned : list of Future
        Per partition, a tuple whose first item is its
        :class:`~mltrees.hist.binning.BinnedData` (cut with global cut points).
    statistics : list of Future
        Per partition, ``(g, h)`` of shape (n_rows, n_outputs).
    k : int
        The output (column of ``g`` and ``h``) the tree is grown for.
    features : ndarray of intp or None
        Features histograms are built for.
    n_rows : int
        Rows of all partitions together.

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees.dask import DaskXGBoostRegressor
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = DaskXGBoostRegressor(n_estimators=2, max_depth=2, client=client, n_partitions=2)
    >>> model.fit(X, y).round_trips_  # the round trips the DaskRows of its trees made
    6
    >>> client.close()
    """

    def __init__(self, client, binned, statistics, k: int, features, n_rows: int):
        self.client = client
        self.n_rows = int(n_rows)
        self.round_trips = 0
        self._stores = [
            client.submit(_store, b, s, k, features, pure=False)
            for b, s in zip(binned, statistics, strict=True)
        ]
        self._totals = None
        self._ahead = None  # (nodes, summed histograms) built with the last split

    def _each(self, function, *args) -> list:
        return [self.client.submit(function, s, *args, pure=False) for s in self._stores]

    def _gather_sum(self, futures):
        self.round_trips += 1
        return self.client.gather(tree_sum(self.client, futures))

    def histograms(self, nodes: np.ndarray | None = None) -> np.ndarray:
        """Summed histograms of frontier ``nodes`` (the root, with the totals, if None)."""
        if nodes is None:
            hist, self._totals = self._gather_sum(self._each(_root))
            return hist
        if self._ahead is not None and np.array_equal(self._ahead[0], nodes):
            return self._ahead[1]  # built with the split
        return self._gather_sum(self._each(_histograms, np.asarray(nodes)))

    def totals(self) -> np.ndarray:
        """Summed statistics of all rows (fetched with the root's histograms)."""
        if self._totals is None:
            self.histograms()
        return self._totals

    def squares(self) -> np.ndarray:
        """Summed Σ w r² of the frontier nodes (CART's variance rule)."""
        return self._gather_sum(self._each(_squares))

    def _advance_all(self, method: str, args: tuple) -> list:
        # The next requests read the store out of the pair themselves: one
        # task fewer on the path of every level.
        self._stores = self._each(_advance, method, args)
        return [self.client.submit(operator.getitem, p, 1, pure=False) for p in self._stores]

    def settle(self, ids, keep=None) -> None:
        """The frontier nodes become leaves on every partition (no round trip)."""
        self._advance_all("settle", (np.asarray(ids), keep))

    def split(self, ids, nodes, feature, split_bin, default_left, guess=None) -> np.ndarray:
        """Split the frontier ``nodes`` on every partition; returns the summed left counts.

        With ``guess`` (whether each right child is the smaller, from the
        hessian sums) the histograms of the guessed smaller children are
        built and summed in the same round trip; :meth:`histograms` returns
        them if the grower, knowing the counts, asks for those children.
        """
        answers = self._advance_all(
            "split",
            (
                np.asarray(ids),
                np.asarray(nodes),
                np.asarray(feature),
                np.asarray(split_bin),
                np.asarray(default_left),
            ),
        )
        counts = tree_sum(self.client, answers)
        self._ahead = None
        if guess is None:
            self.round_trips += 1
            return self.client.gather(counts)
        small = 2 * np.arange(len(guess)) + np.asarray(guess, dtype=np.intp)
        built = tree_sum(self.client, self._each(_histograms, small))
        self.round_trips += 1
        n_left, hist = self.client.gather([counts, built])
        self._ahead = (small, hist)
        return n_left

    def leaf_of_row(self) -> list:
        """Per partition, a future of the leaf of each of its rows (they stay on the workers)."""
        return self._each(_leaf_of_row)


# ---------------------------------------------------------------- cut points
def _summaries(X: np.ndarray, w: np.ndarray, max_bin: int, b: int):
    """Per feature, the summary of one partition's column and whether it is exact.

    A column with at most ``max_bin`` distinct values keeps them all (an
    exact summary); a longer one is pruned to ``b + 1`` values, an error
    of ``1 / b`` (:eq:`eq-xgb-sketch-prune`).
    """
    out, exact = [], []
    if w is not None and np.all(w == 1.0):
        w = None  # unit weights: a sort instead of an argsort and two gathers
    columns = np.ascontiguousarray(X.T)
    for j in range(X.shape[1]):
        summary = WeightedQuantileSummary.from_data(columns[j], w)
        exact.append(summary.size <= max_bin)
        out.append(summary if exact[-1] else summary.prune(b))
    return out, np.array(exact)


def _merge(a, b):
    summaries = [x.merge(y) for x, y in zip(a[0], b[0], strict=True)]
    return summaries, a[1] & b[1]


def merged_cuts(client, parts: list, max_bin: int, eps: float):
    """Global cut points of every feature from the partitions' merged summaries.

    Each partition summarises its columns, weighted by its sample weights;
    the summaries are merged pairwise (:func:`tree_sum` with
    :eq:`eq-xgb-sketch-merge`, which adds no error) and the driver reads
    the cuts from the result (:func:`~mltrees.hist.binning.summary_cuts`).
    A pruned part has error at most ``1 / b <= eps``, hence so has the
    merge: every cut's weighted rank is within ``eps`` of its target
    ``k / max_bin``. Features with at most ``max_bin`` distinct values get
    one bin per value, the cuts one machine would use.

    Parameters
    ----------
    client : distributed.Client
    parts : list of Future
        Per partition, a tuple ``(X, y, w)`` with float32 ``X``.
    max_bin : int
    eps : float in (0, 1]

    Returns
    -------
    cuts : list of ndarray of float32
    minimum : ndarray of float32
        The smallest value of every feature (0 for a feature without any).
    summaries : list of WeightedQuantileSummary
        The merged summary of every feature.
    """
    if not 0 < eps <= 1:
        raise ValueError(f"sketch_eps must lie in (0, 1], got {eps!r}")
    b = math.ceil(1.0 / eps)
    summaries = [
        client.submit(lambda part, b=b: _summaries(part[0], part[2], max_bin, b), p, pure=False)
        for p in parts
    ]
    merged, exact = client.gather(tree_sum(client, summaries, _merge))
    cuts = [summary_cuts(s, max_bin, bool(e)) for s, e in zip(merged, exact, strict=True)]
    minimum = np.array(
        [np.float32(s.values[0]) if s.size else np.float32(0.0) for s in merged], dtype=np.float32
    )
    return cuts, minimum, merged


def bin_partition(X: np.ndarray, cuts: list, minimum: np.ndarray) -> BinnedData:
    """Codes of one partition against global cut points (a worker task)."""
    missing_code = max((c.size for c in cuts), default=1)
    dtype = np.uint8 if missing_code < 256 else np.uint16
    codes = np.empty((X.shape[1], X.shape[0]), dtype=dtype)
    for j, cut in enumerate(cuts):
        codes[j] = encode(np.ascontiguousarray(X[:, j]), cut, missing_code)
    return BinnedData(codes=codes, cuts=list(cuts), minimum=minimum, missing_code=missing_code)


def header(cuts: list, minimum: np.ndarray) -> BinnedData:
    """A :class:`BinnedData` without rows: what the driver's grower needs to know of the bins."""
    empty = bin_partition(np.empty((0, len(cuts)), dtype=np.float32), cuts, minimum)
    return empty
