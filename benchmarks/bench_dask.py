"""Trees at scale: mltrees.dask against one machine and against xgboost.dask, same cluster.

    python benchmarks/bench_dask.py [--n-samples 1000000] [--n-estimators 20]
                                    [--big-samples 8000000] [--big-estimators 3]
                                    [--memory-limit 700MB] [--skip-big | --only-big]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)`` as float32. Every model: trees of depth 6, learning rate
0.1, 256 bins.

* ``mltrees`` : :class:`~mltrees.XGBoostClassifier` on this process, 2 threads;
* ``mltrees.dask`` : :class:`~mltrees.dask.DaskXGBoostClassifier` on a
  ``LocalCluster`` of 2 worker processes with 1 thread each;
* ``xgboost.dask`` : ``xgboost.dask.DaskXGBClassifier(tree_method="hist")``
  on the same cluster;
* ``memory_limit`` : ``mltrees.dask`` on a cluster whose workers have a
  ``memory_limit`` smaller than the data, which are generated on the
  workers (``dask.array.random``) so that no process ever holds all of them.

Reported per run: fit time, the peak resident memory (VmHWM, reset through
/proc/self/clear_refs before the fit) of this process and of every worker,
test accuracy, and for mltrees.dask the number of driver-worker round trips.
The machine may be shared: times are indicative, ratios within one run are
what to read.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _peak_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _workers_peak(client):
    return [round(v, 1) for v in client.run(_peak_mb).values()]


def _warm_up():
    import mltrees.dask  # noqa: F401  # imports are not part of a fit

    return True


def data(n):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=28, n_informative=20, random_state=0)
    return X.astype(np.float32), y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-estimators", type=int, default=20)
    parser.add_argument("--big-samples", type=int, default=8_000_000)
    parser.add_argument("--big-estimators", type=int, default=3)
    parser.add_argument("--memory-limit", default="700MB")
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--only-big", action="store_true")
    args = parser.parse_args()
    params = {"n_estimators": args.n_estimators, "max_depth": 6, "learning_rate": 0.1}
    results = []
    if not args.only_big:
        results += compare(args, params)
    if not args.skip_big:
        results.append(memory_limited(args, {**params, "n_estimators": args.big_estimators}))
    return results


def compare(args, params):
    """One process, mltrees.dask and xgboost.dask on the same data and cluster."""
    import dask.array as da
    from distributed import Client, LocalCluster

    from mltrees.dask import DaskXGBoostClassifier
    from mltrees.ensemble.xgboost import XGBoostClassifier

    X, y = data(args.n_samples)
    split = int(0.8 * len(y))
    Xtr, ytr, Xte, yte = X[:split], y[:split], X[split:], y[split:]
    results = []

    _reset_peak()
    t = time.perf_counter()
    local = XGBoostClassifier(**params, n_jobs=2).fit(Xtr, ytr)
    results.append(
        {
            "model": "mltrees (one process, 2 threads)",
            "fit_s": round(time.perf_counter() - t, 2),
            "driver_peak_mb": round(_peak_mb(), 1),
            "accuracy": round(float((local.predict(Xte) == yte).mean()), 4),
        }
    )
    print(json.dumps(results[-1]), flush=True)

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        Xd = da.from_array(Xtr, chunks=(len(ytr) // 4 + 1, 28)).persist()
        yd = da.from_array(ytr, chunks=(Xd.chunks[0],)).persist()
        client.wait_for_workers(2)
        client.run(_warm_up)
        client.run(_reset_peak)
        _reset_peak()
        t = time.perf_counter()
        model = DaskXGBoostClassifier(**params, client=client).fit(Xd, yd)
        fit = time.perf_counter() - t
        results.append(
            {
                "model": "mltrees.dask (2 worker processes)",
                "fit_s": round(fit, 2),
                "driver_peak_mb": round(_peak_mb(), 1),
                "worker_peak_mb": _workers_peak(client),
                "accuracy": round(float((model.predict(Xte) == yte).mean()), 4),
                "round_trips": model.round_trips_,
                "ms_per_round_trip_upper_bound": round(1000 * fit / model.round_trips_, 1),
            }
        )
        print(json.dumps(results[-1]), flush=True)
        try:
            from xgboost import dask as dxgb
        except ImportError:  # pragma: no cover
            dxgb = None
        if dxgb is not None:
            client.run(_reset_peak)
            _reset_peak()
            t = time.perf_counter()
            reference = dxgb.DaskXGBClassifier(**params, tree_method="hist", max_bin=256)
            reference.client = client
            reference.fit(Xd, yd)
            fit = time.perf_counter() - t
            proba = reference.predict_proba(da.from_array(Xte, chunks=(len(yte) // 2 + 1, 28)))
            predicted = np.argmax(proba.compute(), axis=1)
            results.append(
                {
                    "model": "xgboost.dask (2 worker processes)",
                    "fit_s": round(fit, 2),
                    "driver_peak_mb": round(_peak_mb(), 1),
                    "worker_peak_mb": _workers_peak(client),
                    "accuracy": round(float((predicted == yte).mean()), 4),
                }
            )
            print(json.dumps(results[-1]), flush=True)

    return results


def memory_limited(args, params):
    """mltrees.dask on data larger than one worker's memory budget, generated on the workers.

    A worker's budget must exceed what the process needs before any data
    (Python, numpy, pandas, scikit-learn, mltrees: about 350 MB); the data
    are larger than the budget, so they cannot sit in one worker, and Dask
    spills what does not fit to disk.
    """
    import dask.array as da
    from distributed import Client, LocalCluster

    from mltrees.dask import DaskXGBoostClassifier

    n = args.big_samples
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            memory_limit=args.memory_limit,
        ) as cluster,
        Client(cluster) as client,
    ):
        rs = da.random.RandomState(0)
        Xb = rs.standard_normal((n, 28), chunks=(250_000, 28)).astype(np.float32)
        yb = (Xb[:, 0] + Xb[:, 1] * Xb[:, 2] > 0).astype(np.int64)
        client.wait_for_workers(2, timeout=120)
        client.run(_warm_up)
        client.run(_reset_peak)
        t = time.perf_counter()
        model = DaskXGBoostClassifier(**params, client=client).fit(Xb, yb)
        fit = time.perf_counter() - t
        result = {
            "model": f"mltrees.dask, memory_limit={args.memory_limit} per worker",
            "n_estimators": params["n_estimators"],
            "data_mb": round(n * 28 * 4 / 2**20, 1),
            "fit_s": round(fit, 2),
            "worker_peak_mb": _workers_peak(client),
            "round_trips": model.round_trips_,
        }
    print(json.dumps(result), flush=True)
    return result


if __name__ == "__main__":
    main()
