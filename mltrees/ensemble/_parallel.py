"""Threads of bagging and forests: how many, sums that do not depend on them, progress."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mltrees._progress import Progress
from mltrees._threads import threads_for_jobs


def _n_workers(n_jobs) -> int:
    """Threads for a forest's or bagging's ``n_jobs`` (None: one, as scikit-learn)."""
    return threads_for_jobs(n_jobs, none=1)


def member_progress(verbose, total: int, name: str) -> Progress:
    """Members' progress: 1, a line every tenth of them; 2 or more, every member."""
    every = 1 if verbose > 1 else max(1, total // 10)
    return Progress(verbose, total, name, unit="member", every=every)


def map_members(function, n_items: int, n_jobs) -> list:
    """``[function(i) for i in range(n_items)]`` on ``n_jobs`` threads, results in order."""
    workers = min(_n_workers(n_jobs), n_items)
    if workers <= 1:
        return [function(i) for i in range(n_items)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, range(n_items)))


class _OrderedSum:
    """Out-of-bag sums added in member order, whatever order the threads finish in.

    Floating-point addition is not associative, so adding in completion order
    would make the last bits of ``oob_*`` depend on ``n_jobs``. A finished
    member's contribution waits until all earlier ones have been added.
    """

    def __init__(self, n_samples: int, width: int):
        self.total = np.zeros((n_samples, width))
        self.count = np.zeros(n_samples, dtype=np.intp)
        self.pending: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.next, self.lock = 0, threading.Lock()

    def add(self, index: int, rows: np.ndarray, values: np.ndarray) -> None:
        with self.lock:
            self.pending[index] = (rows, values)
            while self.next in self.pending:
                rows, values = self.pending.pop(self.next)
                self.total[rows] += values
                self.count[rows] += 1
                self.next += 1
