"""mltrees.dask on a cluster deployed as users deploy one.

A ``dask scheduler`` and two ``dask worker`` processes (each under its own
nanny) are started as separate programs on 127.0.0.1, as on a cluster of
machines; the test connects with ``Client("tcp://127.0.0.1:PORT")``, trains
on a Parquet data set that Dask reads (so a lost partition is re-read, not
lost), kills one worker mid-fit, and requires the model of an undisturbed
fit (the fit starts again, once, from the Parquet files), never a different
model. Every process started here is stopped at the end.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")  # dask.dataframe and Parquet

import dask.dataframe as dd
from distributed import Client

import mltrees.dask.xgboost as dask_xgboost
from mltrees.dask import DaskRows, DaskXGBoostRegressor
from mltrees.ensemble.xgboost import XGBoostRegressor

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 60.0
PARAMS = {"n_estimators": 4, "max_depth": 3, "learning_rate": 0.3}


def _command(*args: str) -> list[str]:
    """``dask <args>`` run by this interpreter (the venv's dask, whatever PATH says)."""
    return [sys.executable, "-m", "dask", *args]


def _wait_for(predicate, what: str, processes):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                raise RuntimeError(f"{what}: a process exited with code {process.returncode}")
        if predicate():
            return
        time.sleep(0.2)
    raise TimeoutError(f"{what}: not ready after {START_TIMEOUT:.0f} s")


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """The address of a scheduler with two single-threaded workers, all separate processes."""
    directory = tmp_path_factory.mktemp("cluster")
    scheduler_file = directory / "scheduler.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    logs = open(directory / "cluster.log", "wb")  # noqa: SIM115 (closed at teardown)
    common = {"env": env, "cwd": directory, "stdout": logs, "stderr": subprocess.STDOUT}
    processes = [
        subprocess.Popen(
            _command(
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(scheduler_file),
            ),
            **common,
        )
    ]
    try:
        _wait_for(scheduler_file.exists, "dask scheduler", processes)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        for _ in range(2):
            processes.append(
                subprocess.Popen(
                    _command(
                        "worker",
                        address,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--no-dashboard",
                        "--memory-limit",
                        "2GiB",
                        "--local-directory",
                        str(directory),
                    ),
                    **common,
                )
            )
        with Client(address, timeout=START_TIMEOUT) as probe:
            probe.wait_for_workers(2, timeout=START_TIMEOUT)
        yield address, directory
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        logs.close()


@pytest.fixture(scope="module")
def parquet_data(deployed):
    """A regression table with NaN, written to Parquet in four files."""
    _, directory = deployed
    rng = np.random.default_rng(3)
    n = 2_000
    # At most max_bin distinct values per column: the merged sketch is exact,
    # so the cluster's cuts are one machine's.
    X = np.round(rng.normal(size=(n, 5)), 1).astype(np.float32)
    X[:, 3] = rng.integers(0, 6, n)  # a few-valued column
    X[rng.random((n, 5)) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 3]) + rng.normal(0, 0.1, n)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(y=y)
    path = directory / "table"
    dd.from_pandas(frame, npartitions=4).to_parquet(path, write_index=False)
    return path, frame


def _trees_equal(a, b) -> bool:
    ta = [t for stage in a.trees_ for t in stage]
    tb = [t for stage in b.trees_ for t in stage]
    return len(ta) == len(tb) and all(
        np.array_equal(x.feature, y.feature)
        and np.array_equal(x.threshold, y.threshold, equal_nan=True)  # leaves: NaN
        and np.array_equal(x.missing_slot, y.missing_slot)
        and np.array_equal(x.value, y.value, equal_nan=True)
        for x, y in zip(ta, tb, strict=True)
    )


def _fit(client, path, cuts=None):
    table = dd.read_parquet(path)
    X, y = table.drop(columns="y"), table["y"]
    return DaskXGBoostRegressor(**PARAMS, client=client, cuts=cuts).fit(X, y)


def test_fit_through_a_tcp_address_is_one_machines_model(deployed, parquet_data):
    address, _ = deployed
    path, frame = parquet_data
    X, y = frame.drop(columns="y"), frame["y"]
    with Client(address, timeout=START_TIMEOUT) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        first = _fit(client, path)
        second = _fit(client, path)
        # The same model on every run: reductions are ordered by partition, not by worker.
        assert _trees_equal(first, second)
        # One machine grows the same trees (sums added in another order: values to rounding).
        local = XGBoostRegressor(**PARAMS, n_jobs=1).fit(X, y)
        np.testing.assert_allclose(first.predict(X), local.predict(X), rtol=1e-9, atol=1e-12)


def test_killed_worker_gives_the_same_model_or_a_clear_error(deployed, parquet_data, monkeypatch):
    address, _ = deployed
    path, _ = parquet_data
    with Client(address, timeout=START_TIMEOUT) as client:
        reference = _fit(client, path)
        killed = []
        trees = []

        class KillingRows(DaskRows):
            def split(self, *args):
                if not killed and len(trees) == 1:
                    # Mid-fit, one tree grown, partition state on both workers.
                    victim = sorted(client.scheduler_info()["workers"])[0]
                    pid = client.run(os.getpid, workers=[victim])[victim]
                    os.kill(pid, signal.SIGKILL)
                    killed.append(victim)
                return super().split(*args)

        original_grow = dask_xgboost.DepthwiseGrower.grow_rows

        def counting_grow(self, rows, features=None):
            grown = original_grow(self, rows, features)
            trees.append(grown)
            return grown

        monkeypatch.setattr(dask_xgboost, "DaskRows", KillingRows)
        monkeypatch.setattr(dask_xgboost.DepthwiseGrower, "grow_rows", counting_grow)
        # The first attempt ends with the worker; the fit starts again from the
        # Parquet files and must give the undisturbed model (never a different one).
        model = _fit(client, path)
        assert killed
        assert _trees_equal(reference, model), "a killed worker changed the model"
        # The nanny restarts the killed worker: the cluster is whole again.
        client.wait_for_workers(2, timeout=START_TIMEOUT)


def test_workers_keep_numpy_temporaries_off_mmap(deployed):
    """A nanny-started worker mmaps every 8 MiB temporary until the fit tunes its allocator."""
    from mltrees.dask._malloc import PLUGIN_NAME, prepare_workers

    # Defined here, not at module level: the workers cannot import this test module.
    def _mmapped_blocks_for_an_8_mib_array() -> int | None:
        """Mmapped blocks an 8 MiB array adds (glibc mallinfo2); None elsewhere."""
        import ctypes

        class MallInfo2(ctypes.Structure):
            _fields_ = [(name, ctypes.c_size_t) for name in (
                "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                "fsmblks", "uordblks", "fordblks", "keepcost",
            )]  # fmt: skip

        try:
            mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
        except (OSError, AttributeError):
            return None
        mallinfo2.restype = MallInfo2
        before = mallinfo2().hblks
        array = np.ones(2**20)  # 8 MiB: above the nanny's static 128 KiB, below 32 MiB
        after = mallinfo2().hblks
        del array
        return int(after - before)

    address, _ = deployed
    with Client(address, timeout=START_TIMEOUT) as client:
        assert set(client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values()) == {
            "65536"
        }
        prepare_workers(client)  # every fit does this first
        plugins = client.run(lambda dask_worker: sorted(dask_worker.plugins))
        assert all(PLUGIN_NAME in names for names in plugins.values())
        mmapped = client.run(_mmapped_blocks_for_an_8_mib_array)
        if None in mmapped.values():
            pytest.skip("no glibc mallinfo2 here")
        assert set(mmapped.values()) == {0}
