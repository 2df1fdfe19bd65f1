"""Second-order histogram boosting (chapter 13): mltrees against LightGBM and XGBoost, same run.

    python benchmarks/bench_xgboost.py [--n-samples 1000000] [--n-estimators 100]
                                       [--exact-samples 100000] [--only NAME ...]
                                       [--repeats 3]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)``, the first 80% for training, the last 20% for testing.
Every model: 100 trees of depth 6, learning rate 0.1, 255/256 bins, 2 threads,
the library's defaults otherwise:

* ``lightgbm``: ``LGBMClassifier(num_leaves=63, max_depth=6)``, the reference of the goals;
* ``xgboost-hist``: ``XGBClassifier(tree_method="hist", max_depth=6)``;
* ``mltrees-xgb``: ``XGBoostClassifier(max_depth=6)`` (tree_method="hist", full-precision g and h);
* ``mltrees-gb``: ``GradientBoostingClassifier(max_depth=6, max_bins=255)``;
* ``xgboost-exact`` / ``mltrees-exact`` on the first ``--exact-samples`` rows.

Each fit runs in a fresh subprocess, which reports its fit time, the
peak resident memory of the fit above the process's memory before it
(VmHWM reset through /proc/self/clear_refs), the same for the largest worker
process the fit forked (mltrees exact on several cores; it includes the pages
the worker shares with its parent), the best of five predictions on 200k rows
and the test accuracy; mltrees also reports the time of each stage.

The machines this runs on share their hosts: one fit's time varies by up to
30% from run to run, in both libraries. So the models run in ``--repeats``
rounds, each round every model once in turn, and a ratio is the median over
the rounds of the ratio within each round (the two fits of a round run minutes
apart at most, under similar load); every round's ratio is printed too.

Goals (issue 12): mltrees-xgb fit <= 8x LightGBM, mltrees-gb <= 6x LightGBM,
accuracy within 0.3 points of xgboost-hist, predict on 200k rows <= 1x
LightGBM, exact <= 1x xgboost exact at 100k rows.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
from _harness import run_child, save_classification

CHILD = r"""
import json, resource, sys, time
from _child import fastest_call, load_split, reset_peak, status_kb

X_train, y_train, X_test, y_test = load_split(sys.argv[1])
name, n_estimators = sys.argv[2], int(sys.argv[3])
common = dict(n_estimators=n_estimators, learning_rate=0.1, max_depth=6)
if name == "lightgbm":
    from lightgbm import LGBMClassifier
    model = LGBMClassifier(num_leaves=63, n_jobs=2, verbose=-1, **common)
elif name.startswith("xgboost"):
    from xgboost import XGBClassifier
    method = "exact" if name.endswith("exact") else "hist"
    model = XGBClassifier(tree_method=method, n_jobs=2, **common)
elif name == "mltrees-gb":
    from mltrees import GradientBoostingClassifier
    model = GradientBoostingClassifier(max_bins=255, **common)
else:
    from mltrees import XGBoostClassifier
    method = "exact" if name.endswith("exact") else "hist"
    model = XGBoostClassifier(tree_method=method, n_jobs=2, **common)
before = reset_peak()
start = time.perf_counter()
model.fit(X_train, y_train)
fit_time = time.perf_counter() - start
peak = status_kb("VmHWM")
workers_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # 0 without children
predict_time, predicted = fastest_call(lambda: model.predict(X_test))
print(json.dumps({
    "fit": fit_time,
    "predict": predict_time,
    "accuracy": float((predicted == y_test).mean()),
    "peak_mb": (peak - before) / 1024,
    # Forked workers (mltrees exact on several cores): the largest one's peak above this
    # process's memory before the fit. It counts the pages it shares with this process, so
    # it overstates what the worker adds.
    "worker_peak_mb": max(workers_kb - before, 0) / 1024,
    "stages": getattr(model, "_timings", None),
}))
"""

ALL = ["lightgbm", "xgboost-hist", "mltrees-xgb", "mltrees-gb", "xgboost-exact", "mltrees-exact"]


def run(data_path: Path, name: str, n_estimators: int) -> dict:
    """Fit and predict in a fresh interpreter; return its measurements."""
    return run_child(CHILD, data_path, name, n_estimators)


def make_data(n_samples: int, folder: Path, tag: str, rows: int | None = None) -> Path:
    """The issue's data set (optionally its first ``rows`` rows), saved for the subprocesses."""
    return save_classification(n_samples, folder / f"data_{tag}.npz", train_rows=rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--exact-samples", type=int, default=100_000)
    parser.add_argument("--only", nargs="*", default=ALL, choices=ALL)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of fits (median ratio)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cpus)", flush=True)
    rounds = [{} for _ in range(args.repeats)]
    with tempfile.TemporaryDirectory() as folder:
        full = make_data(args.n_samples, Path(folder), "full")
        small = make_data(args.n_samples, Path(folder), "exact", rows=args.exact_samples)
        for number, results in enumerate(rounds, 1):
            print(f"round {number} of {args.repeats}", flush=True)
            for name in args.only:
                path = small if name.endswith("exact") else full
                results[name] = run(path, name, args.n_estimators)
                report(name, results[name])
    print(f"load average after: {os.getloadavg()[0]:.2f}")

    def ratio(label, a, b, goal, key="fit"):
        """Print the median over the rounds of ``a``'s ``key`` over ``b``'s, and each round's."""
        if a not in rounds[0] or b not in rounds[0]:
            print(f"{label:41s} {'n/a':8s} {goal}")
            return
        each = [results[a][key] / results[b][key] for results in rounds]
        rounds_text = f"  rounds: {', '.join(f'{r:.2f}' for r in each)}" if len(each) > 1 else ""
        print(f"{label:41s} {float(np.median(each)):.2f}x    {goal}{rounds_text}")

    print("\nmeasurement                               ratio    goal")
    ratio("mltrees-xgb fit / lightgbm", "mltrees-xgb", "lightgbm", "<= 8x")
    ratio("mltrees-gb fit / lightgbm", "mltrees-gb", "lightgbm", "<= 6x")
    ratio("mltrees-xgb predict / lightgbm", "mltrees-xgb", "lightgbm", "<= 1x", "predict")
    ratio("mltrees-exact fit / xgboost-exact", "mltrees-exact", "xgboost-exact", "<= 1x")
    first = rounds[0]  # the accuracies do not change from round to round
    if "mltrees-xgb" in first and "xgboost-hist" in first:
        gap = 100 * (first["mltrees-xgb"]["accuracy"] - first["xgboost-hist"]["accuracy"])
        print(f"accuracy mltrees-xgb - xgboost-hist       {gap:+.2f} points  within 0.3")
    ratio("peak memory mltrees-xgb / lightgbm", "mltrees-xgb", "lightgbm", "(reported)", "peak_mb")


def report(name: str, r: dict) -> None:
    """Print one fit's measurements."""
    print(
        f"{name:14s} fit {r['fit']:8.2f} s  predict {r['predict']:6.3f} s  "
        f"accuracy {r['accuracy']:.4f}  fit peak +{r['peak_mb']:.0f} MB",
        flush=True,
    )
    if r["worker_peak_mb"]:
        print(f"{'':14s} worker processes: peak +{r['worker_peak_mb']:.0f} MB each at most")
    if r["stages"]:
        stages = "  ".join(f"{k} {v:.2f} s" for k, v in r["stages"].items())
        print(f"{'':14s} stages: {stages}", flush=True)


if __name__ == "__main__":
    main()
