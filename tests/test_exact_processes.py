"""Exact greedy with forked worker processes (mltrees.hist.processes).

The processes must grow exactly the trees one thread grows, whatever share
of the features each holds, and a failing or vanished worker must surface
as an error in the parent, never as a silently different model.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import mltrees.hist.processes as processes
import mltrees.hist.xgboost.exact as exact
from mltrees import XGBoostClassifier, XGBoostRegressor
from mltrees.hist.grower import leaf_values
from mltrees.hist.processes import ForkedWorkers, can_fork, shared_array
from mltrees.hist.xgboost.exact import SortedColumns
from mltrees.hist.xgboost.splitting import SplitParams

pytestmark = pytest.mark.skipif(not can_fork(), reason="worker processes need Linux fork")

_forks_safely = processes.forks_safely  # the rule, before the fixture below replaces it


@pytest.fixture(autouse=True)
def _fork_beside_idle_threads(monkeypatch):
    """Fork even if earlier tests left idle threads behind (joblib's process pool
    keeps two): these tests are about the processes. The tests of when a fork is
    safe ask for ``fork_rule``, which restores the rule."""
    monkeypatch.setattr(exact, "forks_safely", lambda: True)
    monkeypatch.setattr(processes, "forks_safely", lambda: True)


@pytest.fixture
def fork_rule(monkeypatch):
    """The grower and ForkedWorkers fork only without other threads, as shipped."""
    monkeypatch.setattr(exact, "forks_safely", _forks_safely)
    monkeypatch.setattr(processes, "forks_safely", _forks_safely)


@pytest.fixture
def forked(monkeypatch):
    """Every multi-threaded exact fit uses worker processes; records the pools made."""
    pools = []

    class Recorded(ForkedWorkers):
        def __init__(self, serve, shares, **options):
            super().__init__(serve, shares, **options)
            pools.append(self)

    monkeypatch.setattr(exact, "PROCESS_MIN_CELLS", 0)
    monkeypatch.setattr(exact, "ForkedWorkers", Recorded)
    return pools


def _data(seed, n=1500, p=7, nan_share=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, 2] = rng.integers(0, 4, size=n)  # ties
    X[:, 5] = 1.0  # constant: never scanned
    with_nan = [1, 2, 4, 6]  # features 0 and 3 keep distinct values and no missing value
    X[:, with_nan] = np.where(rng.random((n, 4)) < nan_share, np.nan, X[:, with_nan])
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 - np.nan_to_num(X[:, 2])
    return X, signal + rng.normal(size=n)


def _assert_same_model(a, b, X):
    np.testing.assert_array_equal(
        a.predict(X, output_margin=True), b.predict(X, output_margin=True)
    )
    for stage_a, stage_b in zip(a._trees, b._trees, strict=True):
        for tree_a, tree_b in zip(stage_a, stage_b, strict=True):
            np.testing.assert_array_equal(tree_a.feature, tree_b.feature)
            np.testing.assert_array_equal(tree_a.threshold, tree_b.threshold)
            np.testing.assert_array_equal(tree_a.missing_slot, tree_b.missing_slot)


@pytest.mark.parametrize("n_jobs", [2, 3])
@pytest.mark.parametrize(
    "sampling",
    [{}, {"colsample_bytree": 0.7, "colsample_bylevel": 0.8, "colsample_bynode": 0.7}],
)
def test_processes_grow_the_trees_of_one_thread(forked, n_jobs, sampling):
    X, target = _data(1)
    y = (target > np.median(target)).astype(int)
    params = {"tree_method": "exact", "n_estimators": 6, "max_depth": 5, **sampling}
    one = XGBoostClassifier(n_jobs=1, **params).fit(X, y)
    assert not forked
    many = XGBoostClassifier(n_jobs=n_jobs, **params).fit(X, y)
    assert len(forked) == 1
    assert len(forked[0]) == n_jobs - 1  # this process scans a share too
    assert max(tree.max_depth for stage in one._trees for tree in stage) == 5
    _assert_same_model(one, many, X)


def test_processes_grow_the_trees_of_one_thread_multiclass_and_regression(forked):
    X, target = _data(2, n=1200)
    y = np.digitize(target, np.quantile(target, [0.33, 0.66]))
    params = {"tree_method": "exact", "n_estimators": 4, "max_depth": 4, "reg_alpha": 0.5}
    _assert_same_model(
        XGBoostClassifier(n_jobs=1, **params).fit(X, y),
        XGBoostClassifier(n_jobs=2, **params).fit(X, y),
        X,
    )
    _assert_same_model(
        XGBoostRegressor(n_jobs=1, **params).fit(X, target),
        XGBoostRegressor(n_jobs=2, **params).fit(X, target),
        X,
    )
    assert len(forked) == 2


def _pools(X, n_threads=2):
    """What an exact grower on ``X`` scans with: worker processes, threads, or neither."""
    grower = exact.ExactGrower(SortedColumns.fit(X), X, SplitParams(), n_threads=n_threads)
    try:
        return grower._workers is not None, grower._executor is not None
    finally:
        grower.close()


def test_small_data_uses_one_thread_neither_processes_nor_threads():
    # 300 x 6 cells: forking costs more than it saves, and threads lose to one thread.
    assert _pools(_data(3, n=300)[0]) == (False, False)
    # 6000 x 6 cells: two processes are faster than one.
    assert _pools(_data(3, n=6000)[0]) == (True, False)


def test_without_fork_only_large_data_uses_threads(monkeypatch):
    monkeypatch.setattr(exact, "can_fork", lambda: False)
    monkeypatch.setattr(exact, "THREAD_MIN_ROWS", 5000)
    assert _pools(_data(3, n=4999)[0]) == (False, False)
    assert _pools(_data(3, n=5000)[0]) == (False, True)


def test_a_failing_worker_raises_in_the_parent_and_all_workers_stop(forked, monkeypatch):
    parent = os.getpid()
    scan = exact.ExactGrower._scan_feature

    def fails_in_a_worker(self, *args):
        if os.getpid() != parent:
            raise ValueError("scan failed in the worker")
        return scan(self, *args)

    monkeypatch.setattr(exact.ExactGrower, "_scan_feature", fails_in_a_worker)
    X, target = _data(4, n=500)
    with pytest.raises(RuntimeError, match=r"(?s)worker process of the grower failed.*scan failed"):
        XGBoostRegressor(tree_method="exact", n_estimators=2, n_jobs=2).fit(X, target)
    assert len(forked) == 1
    assert not any(process.is_alive() for process in forked[0]._processes)


def test_a_vanished_worker_raises_instead_of_hanging():
    def exits(connection, share):
        connection.recv()
        os._exit(0)  # dies without answering

    workers = ForkedWorkers(exits, [[0]])
    try:
        workers.submit("request")
        with pytest.raises(RuntimeError, match="exited unexpectedly"):
            workers.collect()
    finally:
        workers.close()
    assert not workers._processes[0].is_alive()


@pytest.mark.parametrize("spin", [0.0, 0.01])
def test_shared_array_carries_the_parents_writes_after_the_fork(spin):
    shared = shared_array(5, complex)

    def echo(connection, share):
        while connection.recv() is not None:
            connection.send((True, [shared.copy()]))

    workers = ForkedWorkers(echo, [[0]], spin=spin)
    try:
        for k in range(3):  # the second and third requests arrive after the poll ran out
            shared[:] = np.arange(5) + k * 1j  # written after the fork
            workers.submit("request")
            (seen,) = workers.collect()
            np.testing.assert_array_equal(seen, np.arange(5) + k * 1j)
            time.sleep(2 * spin)
    finally:
        workers.close()
    assert not workers._processes[0].is_alive()


def test_workers_poll_only_when_the_cores_suffice(forked):
    X, target = _data(5, n=400)
    cores = len(os.sched_getaffinity(0))
    for n_jobs in (2, cores + 1):
        XGBoostRegressor(tree_method="exact", n_estimators=1, n_jobs=n_jobs).fit(X, target)
    assert forked[0]._spin == (exact.SPIN_SECONDS if cores >= 2 else 0.0)
    assert forked[1]._spin == 0.0


def test_shares_balance_the_cost_of_features():
    features = np.arange(6)
    costs = np.array([2, 1, 1, 2, 1, 1])  # features with missing values scan twice
    shares = exact._balanced_shares(features, costs, 2)
    assert sorted(j for share in shares for j in share) == list(range(6))
    assert [sum(costs[share]) for share in shares] == [4, 4]
    assert exact._balanced_shares(features[:1], costs[:1], 3) == [[0]]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: shared_array(-1, float), ValueError, "size must be >= 0"),
        (lambda: shared_array(2.5, float), TypeError, "size must be an integer"),
        (lambda: shared_array(3, object), TypeError, "object references"),
        (lambda: ForkedWorkers("serve", [[0]]), TypeError, "serve must be callable"),
        (lambda: ForkedWorkers(print, []), ValueError, "at least one share"),
        (lambda: ForkedWorkers(print, [[0]], spin=-1.0), ValueError, "spin must be a finite"),
        (lambda: ForkedWorkers(print, [[0]], spin=np.inf), ValueError, "spin must be a finite"),
        (lambda: ForkedWorkers(print, [[0]], spin="1"), TypeError, "spin must be a number"),
        (lambda: SortedColumns.fit(np.zeros((3, 2)), n_threads=0), ValueError, "n_threads"),
        (lambda: SortedColumns.fit(np.zeros((3, 2)), n_threads=1.5), TypeError, "n_threads"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_daemonic_parent_cannot_fork_workers(monkeypatch):
    monkeypatch.setattr("mltrees.hist.processes.can_fork", lambda: False)
    with pytest.raises(RuntimeError, match="daemonic"):
        ForkedWorkers(print, [[0]])


def test_shared_array_of_zero_entries():
    assert shared_array(0, np.float32).shape == (0,)


def test_rebalancing_between_trees_moves_features_and_keeps_the_trees(forked, monkeypatch):
    """The worker is made to look six times slower before every tree: a
    feature moves to this process each time, and the trees stay those of one
    thread (ties go to the lower feature in whichever process scans it)."""
    shares_seen = []
    rebalance = exact.ExactGrower._rebalance

    def slow_worker(self):
        shares_seen.append([list(share) for share in self._shares])
        if self._tree_load.any():
            self._tree_load[:] = [1.0, 6.0]
        rebalance(self)

    monkeypatch.setattr(exact.ExactGrower, "_rebalance", slow_worker)
    X, target = _data(6)
    params = {"tree_method": "exact", "n_estimators": 4, "max_depth": 4}
    one = XGBoostRegressor(n_jobs=1, **params).fit(X, target)
    many = XGBoostRegressor(n_jobs=2, **params).fit(X, target)
    _assert_same_model(one, many, X)
    sizes = [len(share) for share, _ in shares_seen]
    assert sizes == [3, 3, 4, 5]  # 6 non-constant features, one more here before each tree
    assert all(sorted(a + b) == [0, 1, 2, 3, 4, 6] for a, b in shares_seen)


def test_rebalance_moves_one_feature_scanned_once_from_the_slowest_share():
    X, _ = _data(7, n=200)
    X = X.astype(np.float32)
    grower = exact.ExactGrower(SortedColumns.fit(X), X, SplitParams())
    grower._shares = [[0, 1], [2, 3, 4], [6]]
    grower._tree_load, grower._load = np.array([1.0, 3.0, 2.0]), None
    grower._rebalance()
    assert grower._shares == [[0, 1, 3], [2, 4], [6]]  # 3 has no missing value, 4 has
    assert grower._own_share == {0, 1, 3}
    grower._tree_load = np.array([2.0, 2.0, 2.0])  # balanced now: nothing moves
    grower._rebalance()
    assert grower._shares == [[0, 1, 3], [2, 4], [6]]


def test_a_single_feature_to_scan_uses_no_worker(forked):
    """One share only: nothing to hand a worker (forking one used to fail)."""
    X, target = _data(8, n=400)
    X[:, 1:] = 1.0  # constant: only feature 0 is scanned
    model = XGBoostRegressor(tree_method="exact", n_estimators=2, n_jobs=2).fit(X, target)
    assert not forked
    assert model._trees[0][0].node_count > 1


@pytest.mark.parametrize("float32_gradients", [True, False])
def test_processes_gather_the_gradients_exactly(forked, float32_gradients):
    """Gradients that are float32 values are gathered as complex64, others as
    complex128: either way the processes grow the tree of one thread."""
    X, _ = _data(9)
    X = X.astype(np.float32)
    rng = np.random.default_rng(10)
    g, h = rng.normal(size=X.shape[0]), rng.uniform(0.1, 1.0, size=X.shape[0])
    if float32_gradients:
        g, h = g.astype(np.float32).astype(float), h.astype(np.float32).astype(float)
    columns, params = SortedColumns.fit(X), SplitParams()
    grown = []
    for n_threads in (1, 2):
        grower = exact.ExactGrower(columns, X, params, max_depth=5, n_threads=n_threads)
        try:
            grown.append(grower.grow(g, h))
        finally:
            grower.close()
        compact = grower._compact
    assert len(forked) == 1
    for field in ("feature", "threshold", "value", "missing_slot"):
        np.testing.assert_array_equal(getattr(grown[0].tree, field), getattr(grown[1].tree, field))
    np.testing.assert_array_equal(grown[0].leaf_of_row, grown[1].leaf_of_row)
    # The leaves' weights are those of the exact sums of g and h (float32 rounding would
    # move them by ~1e-8; the order of the float64 sums by ~1e-15).
    leaves = grown[1].tree.feature < 0
    exact_weights = leaf_values(grown[1].leaf_of_row, g, h, grown[1].tree.node_count, params)
    np.testing.assert_allclose(grown[1].weight[leaves], exact_weights[leaves], rtol=1e-11)
    assert compact == float32_gradients


@pytest.fixture
def another_thread():
    """A thread of the process alive (and idle) for the duration of the test."""
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="user thread")
    thread.start()
    yield thread
    stop.set()
    thread.join()


def test_with_another_thread_alive_the_grower_does_not_fork_and_grows_the_same_trees(
    forked, fork_rule, another_thread, monkeypatch
):
    """A fork while another thread runs can leave a lock held forever in the child:
    the fit scans on threads instead (never os.fork), with the trees of one thread."""

    def no_fork():
        raise AssertionError("os.fork called while another thread is alive")

    X, target = _data(11, n=800)
    params = {"tree_method": "exact", "n_estimators": 3, "max_depth": 4}
    one = XGBoostRegressor(n_jobs=1, **params).fit(X, target)
    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setattr(exact, "THREAD_MIN_ROWS", 0)  # the threads' path, at this size
    many = XGBoostRegressor(n_jobs=2, **params).fit(X, target)
    assert not forked
    _assert_same_model(one, many, X)
    with pytest.raises(RuntimeError, match="other threads"):
        ForkedWorkers(print, [[0]])


def test_the_packages_idle_prediction_threads_are_stopped_before_a_fork():
    """Prediction keeps a pool of helper threads; an exact fit after it stops them
    (they are idle) and forks, and prediction starts a new pool afterwards. In a
    fresh interpreter, where no other test has left threads behind."""
    script = """
import threading
import numpy as np
import mltrees.hist.xgboost.exact as exact
from mltrees import XGBoostRegressor, _threads
made = []
class Recorded(exact.ForkedWorkers):
    def __init__(self, *args, **options):
        super().__init__(*args, **options)
        made.append(self)
exact.ForkedWorkers, exact.PROCESS_MIN_CELLS = Recorded, 0
rng = np.random.default_rng(12)
X = rng.normal(size=(800, 5))
y = X[:, 0] + rng.normal(size=800)
params = dict(tree_method="exact", n_estimators=3, max_depth=4)
one = XGBoostRegressor(n_jobs=1, **params).fit(X, y)
_threads.map_blocks(np.sum, [np.ones(3)] * 4, 2)  # starts the shared pool
before = threading.active_count()
two = XGBoostRegressor(n_jobs=2, **params).fit(X, y)
after = threading.active_count()
same = bool(np.array_equal(one.predict(X), two.predict(X)))
again = _threads.map_blocks(np.sum, [np.ones(3)] * 4, 2) == [3.0] * 4
print(before, len(made), after, same, again)
"""
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    before, n_pools, after, same, again = done.stdout.split()
    assert int(before) > 1  # the pool's helper thread
    assert (n_pools, after, same, again) == ("1", "1", "True", "True")


def test_forks_raise_no_deprecation_warning_even_where_python_warns_about_threads(
    forked, monkeypatch
):
    """CPython 3.12+ warns at a fork beside other threads. The grower forks only
    without other Python threads; were native threads (NumPy's BLAS starts one at
    import) counted too, os.fork would warn as it does here, and a fit under
    ``warnings.simplefilter("error")`` must still succeed."""
    import warnings

    fork = os.fork

    def warning_fork():
        warnings.warn(
            f"This process (pid={os.getpid()}) is multi-threaded, use of fork() may lead "
            "to deadlocks in the child.",
            DeprecationWarning,
            stacklevel=2,
        )
        return fork()

    monkeypatch.setattr(os, "fork", warning_fork)
    X, target = _data(13, n=600)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        XGBoostRegressor(tree_method="exact", n_estimators=2, n_jobs=2).fit(X, target)
    assert len(forked) == 1
    with pytest.warns(DeprecationWarning, match="multi-threaded"):  # the stand-in warns
        pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
