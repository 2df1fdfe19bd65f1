"""The reduction of the oblivious and leaf-wise Dask learners, and what it costs (chapter on scale).

Both learners sum the partitions' answers (histograms, counts, leaf sums)
through :func:`reduce_sum` alone: a tree reduction in partition order
(:func:`~mltrees.dask.allreduce.tree_sum`, never in worker order, so the
model cannot depend on which worker computed what), then one gather to
the driver. A faster primitive replaces it here, in one place.
:class:`ReductionLog` records, per reduction, the driver's wait and the
bytes of one partition's answer (what each edge of the reduction carries).
"""

from __future__ import annotations

import time

import numpy as np

from mltrees.dask.allreduce import tree_sum

__all__ = ["ReductionLog", "answer_bytes", "reduce_sum"]


def reduce_sum(client, futures: list):
    """The sum of the partitions' answers (arrays or nested tuples of arrays), on the driver.

    Implements the sum of :eq:`eq-scale-allreduce`.
    """
    return client.gather(tree_sum(client, futures))


def answer_bytes(answer) -> int:
    """Bytes of the arrays in a (nested tuple) answer."""
    if isinstance(answer, tuple):
        return sum(answer_bytes(a) for a in answer)
    return int(getattr(answer, "nbytes", 0))


class ReductionLog:
    """Seconds and bytes of every :func:`reduce_sum` a fit makes.

    Attributes
    ----------
    seconds : list of float
        The driver's wait for each reduction (submitting the partitions'
        tasks included: the latency a split or a level pays).
    bytes : list of int
        The bytes of the summed answer, as large as one partition's.
    """

    def __init__(self):
        self.seconds: list = []
        self.bytes: list = []

    def __len__(self) -> int:
        return len(self.seconds)

    def sum(self, client, futures: list):
        """:func:`reduce_sum`, timed and measured."""
        start = time.perf_counter()
        total = reduce_sum(client, futures)
        self.seconds.append(time.perf_counter() - start)
        self.bytes.append(answer_bytes(total))
        return total

    def record(self, model) -> None:
        """Set ``round_trips_``, ``reduction_seconds_`` and ``reduction_bytes_`` on ``model``."""
        model.round_trips_ = len(self.seconds)
        model.reduction_seconds_ = np.asarray(self.seconds, dtype=np.float64)
        model.reduction_bytes_ = np.asarray(self.bytes, dtype=np.int64)
