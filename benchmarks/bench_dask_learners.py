"""LightGBM's and CatBoost's algorithms on Dask: mltrees.dask against one process and lightgbm.dask.

    python benchmarks/bench_dask_learners.py [--n-samples 200000] [--n-estimators 20]
                                             [--repeats 3]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)``; the first 80% of rows train, the rest test. One
``LocalCluster`` of 2 worker processes with 1 thread each serves every
distributed model; the training data are persisted on it first (4
partitions).

* ``leafwise``: :class:`~mltrees.LightGBMClassifier` in this process,
  :class:`~mltrees.dask.DaskLightGBMClassifier` and
  ``lightgbm.dask.DaskLGBMClassifier`` (``tree_learner="data"``, the same
  ``num_leaves=31``, learning rate 0.1, 255 bins, one thread per worker);
* ``oblivious``: :class:`~mltrees.ObliviousBoostingClassifier` in this
  process and :class:`~mltrees.dask.DaskObliviousBoostingClassifier`
  (depth 6); CatBoost has no Dask learner.

Reported per model: the best fit time of ``--repeats`` fits, test accuracy;
for mltrees.dask the reductions per fit, the median and 90th percentile of
the latency of one reduction (the driver's wait: tasks submitted, the tree
sum of the partitions' answers, the gather) and the bytes of one summed
answer (a histogram per split, the level's histograms per level). Not the
trees: ``lightgbm.dask`` bins on each worker's own rows (its trees are not
one machine's). The machine may be shared: ratios within one run are what
to read.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def data(n):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=28, n_informative=20, random_state=0)
    return X, y


def _best(fit, repeats):
    best, model = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        model = fit()
        best = min(best, time.perf_counter() - t)
    return best, model


def _communication(model) -> dict:
    seconds, size = model.reduction_seconds_, model.reduction_bytes_
    return {
        "reductions": int(model.round_trips_),
        "ms_per_reduction_median": round(1000 * float(np.median(seconds)), 1),
        "ms_per_reduction_p90": round(1000 * float(np.quantile(seconds, 0.9)), 1),
        "kb_per_reduction_median": round(float(np.median(size)) / 1024, 1),
        "share_of_fit_in_reductions": None,
    }


def compare_learners(n_samples=200_000, n_estimators=20, repeats=3):
    """Fit time, accuracy and communication of the leaf-wise and oblivious learners."""
    import dask.array as da
    from distributed import Client, LocalCluster

    from mltrees.dask import DaskLightGBMClassifier, DaskObliviousBoostingClassifier
    from mltrees.ensemble.catboost import ObliviousBoostingClassifier
    from mltrees.ensemble.lightgbm import LightGBMClassifier

    X, y = data(n_samples)
    split = int(0.8 * len(y))
    Xtr, ytr, Xte, yte = X[:split], y[:split], X[split:], y[split:]
    leafwise = {"n_estimators": n_estimators, "num_leaves": 31, "learning_rate": 0.1}
    oblivious = {"n_estimators": n_estimators, "depth": 6, "learning_rate": 0.1}
    results = []

    def report(row):
        results.append(row)
        print(json.dumps(row), flush=True)

    def accuracy(model):
        return round(float((np.asarray(model.predict(Xte)) == yte).mean()), 4)

    fit, model = _best(lambda: LightGBMClassifier(**leafwise, n_jobs=2).fit(Xtr, ytr), repeats)
    report(
        {
            "model": "mltrees LightGBM, one process",
            "fit_s": round(fit, 2),
            "accuracy": accuracy(model),
        }
    )
    fit, model = _best(lambda: ObliviousBoostingClassifier(**oblivious).fit(Xtr, ytr), repeats)
    report(
        {
            "model": "mltrees oblivious, one process",
            "fit_s": round(fit, 2),
            "accuracy": accuracy(model),
        }
    )

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        Xd = da.from_array(Xtr, chunks=(len(ytr) // 4 + 1, 28)).persist()
        yd = da.from_array(ytr, chunks=(Xd.chunks[0],)).persist()
        client.wait_for_workers(2)
        client.run(lambda: __import__("mltrees.dask") and True)

        for name, Model, params in (
            ("mltrees.dask LightGBM", DaskLightGBMClassifier, leafwise),
            ("mltrees.dask oblivious", DaskObliviousBoostingClassifier, oblivious),
        ):
            fit, model = _best(lambda M=Model, p=params: M(**p, client=client).fit(Xd, yd), repeats)
            row = {"model": name, "fit_s": round(fit, 2), "accuracy": accuracy(model)}
            row.update(_communication(model))
            row["share_of_fit_in_reductions"] = round(
                float(model.reduction_seconds_.sum()) / fit, 2
            )
            row["kb_per_tree"] = round(float(model.reduction_bytes_.sum()) / 1024 / n_estimators, 1)
            report(row)

        try:
            import lightgbm.dask as lgb_dask
        except ImportError:  # pragma: no cover
            lgb_dask = None
        if lgb_dask is not None:

            def reference():
                m = lgb_dask.DaskLGBMClassifier(
                    **leafwise, max_bin=255, tree_learner="data", n_jobs=1, verbose=-1
                )
                m.client = client
                return m.fit(Xd, yd)

            fit, model = _best(reference, repeats)
            predicted = model.predict(da.from_array(Xte, chunks=(len(yte) // 2 + 1, 28)))
            report(
                {
                    "model": "lightgbm.dask (tree_learner='data')",
                    "fit_s": round(fit, 2),
                    "accuracy": round(float((predicted.compute() == yte).mean()), 4),
                }
            )
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-samples", type=int, default=200_000)
    parser.add_argument("--n-estimators", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    return compare_learners(args.n_samples, args.n_estimators, args.repeats)


if __name__ == "__main__":
    main()
