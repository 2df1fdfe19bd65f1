"""Trees at scale: mltrees.dask against one machine and against xgboost.dask, same cluster.

    python benchmarks/bench_dask.py [--n-samples 1000000] [--n-estimators 20] [--repeat 3]
                                    [--big-samples 8000000] [--big-estimators 3]
                                    [--memory-limit 700MB] [--skip-big | --only-big]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)`` as float32. Every model: trees of depth 6, learning rate
0.1, 256 bins.

* ``mltrees`` : :class:`~mltrees.XGBoostClassifier` on this process, 2 threads;
* ``mltrees.dask`` : :class:`~mltrees.dask.DaskXGBoostClassifier` on a
  ``LocalCluster`` of 2 worker processes with 1 thread each, with one
  machine's cuts (the default), then with a merged sketch
  (``sketch_eps=1/2048``, approximate cuts as xgboost.dask's);
* ``xgboost.dask`` : ``xgboost.dask.DaskXGBClassifier(tree_method="hist")``
  on the same cluster;
* ``memory_limit`` : ``mltrees.dask`` on a cluster whose workers have a
  ``memory_limit`` smaller than the data, which are generated on the
  workers (``dask.array.random``) so that no process ever holds all of them.

Each model is fitted ``--repeat`` times (3) in turn, one process, then
mltrees.dask, then xgboost.dask, and the best time of each is reported
with the others and the ratios. Reported per model: fit times, the peak
resident memory (VmHWM, reset through /proc/self/clear_refs before the
first fit) of this process and of every worker, test accuracy; for
mltrees.dask also the stages of the fit (cuts, binning, trees), the
driver-worker calls and the bytes received per tree, against the cost model
of the chapter on scale (:func:`~mltrees.dask.histogram_bytes` for the
levels of a depth-6 tree, one message per worker), and the latency of one
reduction (:class:`~mltrees.dask.PartitionGroup` ``sum`` over the
partitions of a tiny array and of one level-sized histogram, median of 50).
The load averages of the machine are printed before and after: it may be
shared, so times are indicative and ratios within one run are what to read.
"""

from __future__ import annotations

import argparse
import json
import os
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


def _load():
    return [round(v, 2) for v in os.getloadavg()]


def _tiny(part, size):
    return np.ones(size)


def _answer(state):
    return state


def reduction_latency(client, parts, sizes, n=50):
    """Median ms of one PartitionGroup.sum over the partitions, per message size (floats)."""
    from mltrees.dask import PartitionGroup

    out = {}
    for size in sizes:
        group = PartitionGroup(client, parts, _tiny, size)
        for _ in range(5):
            group.sum(_answer)
        times = []
        for _ in range(n):
            t = time.perf_counter()
            group.sum(_answer)
            times.append(time.perf_counter() - t)
        group.close()
        out[f"{size * 8 / 1e6:.3g} MB"] = round(1000 * float(np.median(times)), 2)
    return out


def best(fit, repeat):
    """Fit times of ``repeat`` fits and the last model."""
    times, model = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        model = fit()
        times.append(round(time.perf_counter() - t, 2))
    return times, model


def data(n):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=28, n_informative=20, random_state=0)
    return X.astype(np.float32), y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-estimators", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
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

    from mltrees.dask import DaskXGBoostClassifier, histogram_bytes
    from mltrees.ensemble.xgboost import XGBoostClassifier

    X, y = data(args.n_samples)
    split = int(0.8 * len(y))
    Xtr, ytr, Xte, yte = X[:split], y[:split], X[split:], y[split:]
    results = []
    print(json.dumps({"load_average_before": _load()}), flush=True)

    _reset_peak()
    times, local = best(lambda: XGBoostClassifier(**params, n_jobs=2).fit(Xtr, ytr), args.repeat)
    results.append(
        {
            "model": "mltrees (one process, 2 threads)",
            "fit_s": times,
            "best_s": min(times),
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
        times, model = best(
            lambda: DaskXGBoostClassifier(**params, client=client).fit(Xd, yd), args.repeat
        )
        n_trees = params["n_estimators"]
        depth = params["max_depth"]
        stride = max(c.size for c in model._cuts) + 1  # the bins and the missing bin
        # Per tree: the root, then the smaller children of depths 1 .. depth - 1.
        nodes = [1] + [2 ** (d - 1) for d in range(1, depth)]
        message = sum(histogram_bytes(q, 28, stride) for q in nodes)
        results.append(
            {
                "model": "mltrees.dask (2 worker processes)",
                "fit_s": times,
                "best_s": min(times),
                "stages_s_last_fit": model.timings_,
                "driver_peak_mb": round(_peak_mb(), 1),
                "worker_peak_mb": _workers_peak(client),
                "accuracy": round(float((model.predict(Xte) == yte).mean()), 4),
                "same_trees_as_one_process": _same_trees(model, local),
                "largest_probability_difference": float(
                    np.abs(model.predict_proba(Xte) - local.predict_proba(Xte)).max()
                ),
                "calls_per_tree": round(model.round_trips_ / n_trees, 2),
                "calls_per_tree_model": depth + 1,
                "mb_received_per_tree": round(model.bytes_received_ / n_trees / 1e6, 2),
                "mb_per_tree_model": round(2 * message / 1e6, 2),  # one message per worker
            }
        )
        print(json.dumps(results[-1]), flush=True)
        # The merged sketch, as xgboost.dask cuts: summaries only, no column shuffle.
        times, sketched = best(
            lambda: DaskXGBoostClassifier(**params, client=client, sketch_eps=1 / 2048).fit(Xd, yd),
            args.repeat,
        )
        results.append(
            {
                "model": "mltrees.dask, merged sketch (sketch_eps=1/2048, as xgboost.dask)",
                "fit_s": times,
                "best_s": min(times),
                "stages_s_last_fit": sketched.timings_,
                "accuracy": round(float((sketched.predict(Xte) == yte).mean()), 4),
            }
        )
        print(json.dumps(results[-1]), flush=True)
        results.append(
            {
                "reduction_latency_ms": reduction_latency(
                    client, client.compute(Xd.to_delayed().ravel().tolist()), [4, 28 * stride * 2]
                ),
                "scheduler_round_trip_ms": round(1000 * _scheduler_round_trip(client), 2),
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

            def fit_reference():
                reference = dxgb.DaskXGBClassifier(**params, tree_method="hist", max_bin=256)
                reference.client = client
                return reference.fit(Xd, yd)

            times, reference = best(fit_reference, args.repeat)
            proba = reference.predict_proba(da.from_array(Xte, chunks=(len(yte) // 2 + 1, 28)))
            predicted = np.argmax(proba.compute(), axis=1)
            results.append(
                {
                    "model": "xgboost.dask (2 worker processes)",
                    "fit_s": times,
                    "best_s": min(times),
                    "driver_peak_mb": round(_peak_mb(), 1),
                    "worker_peak_mb": _workers_peak(client),
                    "accuracy": round(float((predicted == yte).mean()), 4),
                }
            )
            print(json.dumps(results[-1]), flush=True)
    ratios = {
        "mltrees.dask / one process": round(results[1]["best_s"] / results[0]["best_s"], 2),
        "mltrees.dask merged sketch / one process": round(
            results[2]["best_s"] / results[0]["best_s"], 2
        ),
    }
    if dxgb is not None:
        ratios["mltrees.dask / xgboost.dask"] = round(
            results[1]["best_s"] / results[-1]["best_s"], 2
        )
        ratios["mltrees.dask merged sketch / xgboost.dask"] = round(
            results[2]["best_s"] / results[-1]["best_s"], 2
        )
    print(json.dumps({**ratios, "load_average_after": _load()}), flush=True)
    return results


def _same_trees(a, b) -> bool:
    """Same features, thresholds and missing-value sides in every node of every tree."""
    ta = [t for stage in a.trees_ for t in stage]
    tb = [t for stage in b.trees_ for t in stage]
    return len(ta) == len(tb) and all(
        np.array_equal(s.feature, t.feature)
        and np.array_equal(s.threshold, t.threshold, equal_nan=True)
        and np.array_equal(s.missing_slot, t.missing_slot)
        for s, t in zip(ta, tb, strict=True)
    )


def _nothing():
    return None


def _scheduler_round_trip(client, n=50):
    """Median seconds of client.submit + gather of a task that does nothing."""
    times = []
    for _ in range(n):
        t = time.perf_counter()
        client.gather(client.submit(_nothing, pure=False))
        times.append(time.perf_counter() - t)
    return float(np.median(times))


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
