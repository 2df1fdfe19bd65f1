"""Random forests: mltrees against scikit-learn, same data, same run.

    python benchmarks/bench_forest.py [--n-samples 1000000] [--small-samples 100000]
                                      [--n-estimators 50] [--skip-large]
    python benchmarks/bench_forest.py --defaults [--sizes 200000 1000000]
                                      [--n-estimators 50] [--repeats 3] [--modes auto exact]
        [--json mltrees/datasets/benchmark_results/forest_defaults.json]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)``, the first 80% for training and the last 20% for testing
(the single-tree benchmark's data). Both forests: ``n_estimators=50,
n_jobs=2, random_state=0``, default ``max_features="sqrt"``, fully grown
trees; mltrees in histogram mode (``max_bins=255``, binned once per forest).

Each fit runs in a fresh subprocess. Peak memory is the growth of the
resident set during ``fit`` alone (VmHWM reset through /proc/self/clear_refs
after loading the data, Linux); both libraries use threads, so the whole
forest lives in that one process. Predict time is the fastest of five calls
on the test set; ``predict_1``, ``predict_100`` and ``predict_2000`` are the
fastest of eleven calls on that many test rows (latency of small batches,
not a goal of the issue). The load average before each run and the process CPU time
are printed too: wall-clock ratios are only meaningful on an idle machine.
Ratios below 1 favour mltrees.

Goals (issue 5): fit <= 1x sklearn, accuracy within 0.5 points, peak memory
<= 1.5x, predict <= 1x.

``--defaults`` (issue 13, "forest defaults") measures what a user gets from
``RandomForestClassifier(n_estimators=50, n_jobs=2)`` with nothing else set:
in one process, mltrees and sklearn are fitted back to back, ``--repeats``
times, and the median of the per-repeat fit-time ratios is printed with
each library's test accuracy. ``--modes`` adds mltrees with ``max_bins=None``
(exact) or ``max_bins=255`` to the same loop. On a shared machine the load
changes between fits: a ratio from neighbouring fits, repeated, is the
figure to read, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import numpy as np
from _harness import run_child, save_classification
from sklearn.datasets import make_classification

CHILD = r"""
import json, os, sys, time
from _child import fastest_call, load_split, reset_peak, status_kb

X_train, y_train, X_test, y_test = load_split(sys.argv[1])
library, n_estimators = sys.argv[2], int(sys.argv[3])
if library == "sklearn":
    from sklearn.ensemble import RandomForestClassifier
    model = RandomForestClassifier(n_estimators=n_estimators, n_jobs=2, random_state=0)
else:
    from mltrees import RandomForestClassifier
    model = RandomForestClassifier(
        n_estimators=n_estimators, n_jobs=2, random_state=0, max_bins=255
    )
baseline = reset_peak()
load = os.getloadavg()[0]
cpu = os.times()
start = time.perf_counter()
model.fit(X_train, y_train)
fit_time = time.perf_counter() - start
after = os.times()
peak = status_kb("VmHWM")
predict_time, predicted = fastest_call(lambda: model.predict(X_test))
small = {}
for n_rows in (1, 100, 2000):  # latency of small batches: fastest of 11 calls
    part = X_test[:n_rows]
    small[f"predict_{n_rows}"] = fastest_call(lambda: model.predict(part), 11)[0] * 1000
nodes = sum(int(e.tree_.node_count) for e in model.estimators_)
print(json.dumps({
    **small,
    "fit": fit_time, "predict": predict_time,
    "accuracy": float((predicted == y_test).mean()),
    "peak_mb": (peak - baseline) / 1024, "nodes": nodes, "load": load,
    "cpu": (after.user - cpu.user) + (after.system - cpu.system),
}))
"""


def run(data_path: Path, library: str, n_estimators: int) -> dict:
    """Fit and predict in a fresh interpreter; return its measurements."""
    return run_child(CHILD, data_path, library, n_estimators)


def make_data(n_samples: int, folder: Path) -> Path:
    """The issue's data set, saved once and loaded by every subprocess."""
    return save_classification(n_samples, folder / f"data_{n_samples}.npz")


def report(title: str, ours: dict, reference: dict) -> None:
    """One row per quantity with the ratio mltrees / sklearn."""
    print(f"\n{title}")
    print(f"  {'':14}{'mltrees':>12}{'sklearn':>12}{'ratio':>8}")
    quantities = [("fit", "s"), ("cpu", "s"), ("predict", "s"), ("peak_mb", "MB")]
    quantities += [(f"predict_{n}", "ms") for n in (1, 100, 2000)]
    for key, unit in quantities:
        ratio = ours[key] / reference[key] if reference[key] > 0 else float("nan")
        print(f"  {key:14}{ours[key]:10.2f}{unit:2}{reference[key]:10.2f}{unit:2}{ratio:8.2f}")
    difference = 100 * (ours["accuracy"] - reference["accuracy"])
    print(
        f"  {'accuracy':14}{ours['accuracy']:12.4f}{reference['accuracy']:12.4f}"
        f"   ({difference:+.2f} points)"
    )
    print(f"  {'nodes':14}{ours['nodes']:12d}{reference['nodes']:12d}")
    print(f"  {'load before':14}{ours['load']:12.2f}{reference['load']:12.2f}")


MODES = {"auto": {}, "exact": {"max_bins": None}, "hist255": {"max_bins": 255}}


def defaults(sizes, n_estimators: int, repeats: int, modes, json_path=None) -> None:
    """Back-to-back fits in this process; median ratio to sklearn per mode and size.

    With ``json_path``, the results are added to that file (one entry per
    size, keyed by the number of rows), with the versions and the load.
    """
    import time

    import sklearn
    from sklearn.ensemble import RandomForestClassifier as SklearnForest

    import mltrees
    from mltrees import RandomForestClassifier

    print(f"mltrees {mltrees.__version__}, scikit-learn {sklearn.__version__}")
    for n in sizes:
        X, y = make_classification(n_samples=n, n_features=28, n_informative=20, random_state=0)
        cut = int(0.8 * n)
        X_train, y_train, X_test, y_test = X[:cut], y[:cut], X[cut:], y[cut:]
        ratios = {mode: [] for mode in modes}
        seconds = {mode: [] for mode in [*modes, "sklearn"]}
        accuracy = {}
        for _ in range(repeats):
            models = {"sklearn": SklearnForest(n_estimators=n_estimators, n_jobs=2)}
            for mode in modes:
                models[mode] = RandomForestClassifier(
                    n_estimators=n_estimators, n_jobs=2, **MODES[mode]
                )
            fit_time = {}
            for name, model in models.items():
                model.set_params(random_state=0)
                start = time.perf_counter()
                model.fit(X_train, y_train)
                fit_time[name] = time.perf_counter() - start
                seconds[name].append(fit_time[name])
                accuracy[name] = float((model.predict(X_test) == y_test).mean())
            for mode in modes:
                ratios[mode].append(fit_time[mode] / fit_time["sklearn"])
        load = os.getloadavg()[0]
        print(f"\n{n:,} rows ({cut:,} to fit), {n_estimators} trees, n_jobs=2, {repeats} repeats")
        print(f"  {'':10}{'median s':>10}{'accuracy':>10}{'median ratio':>14}  ratios")
        median_sklearn = float(np.median(seconds["sklearn"]))
        print(f"  {'sklearn':10}{median_sklearn:10.2f}{accuracy['sklearn']:10.4f}")
        for mode in modes:
            shown = " ".join(f"{r:.2f}" for r in ratios[mode])
            print(
                f"  {mode:10}{np.median(seconds[mode]):10.2f}{accuracy[mode]:10.4f}"
                f"{np.median(ratios[mode]):14.2f}  {shown}"
            )
        print(f"  load average after: {load:.1f} on {len(os.sched_getaffinity(0))} cores")
        if json_path is not None:
            path = Path(json_path)
            results = json.loads(path.read_text()) if path.exists() else {}
            results[str(n)] = {
                "rows_fitted": cut,
                "n_estimators": n_estimators,
                "repeats": repeats,
                "accuracy": accuracy,
                "median_seconds": {k: float(np.median(v)) for k, v in seconds.items()},
                "median_ratio_to_sklearn": {k: float(np.median(v)) for k, v in ratios.items()},
                "ratios": ratios,
                "load_average_after": load,
                "versions": {"mltrees": mltrees.__version__, "sklearn": sklearn.__version__},
            }
            path.write_text(json.dumps(results, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--defaults", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--modes", nargs="+", default=["auto", "exact"], choices=sorted(MODES))
    parser.add_argument("--json", default=None, help="with --defaults: add the results here")
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--small-samples", type=int, default=100_000)
    parser.add_argument("--n-estimators", type=int, default=50)
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    if args.defaults:
        defaults(args.sizes, args.n_estimators, args.repeats, args.modes, args.json)
        return
    print(f"cores available: {len(os.sched_getaffinity(0))}")
    sizes = [args.small_samples] + ([] if args.skip_large else [args.n_samples])
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            path = make_data(n, Path(folder))
            title = (
                f"{n:,} rows, RandomForestClassifier(n_estimators={args.n_estimators}, "
                "n_jobs=2): mltrees histogram (255 bins) vs sklearn"
            )
            report(
                title,
                run(path, "mltrees", args.n_estimators),
                run(path, "sklearn", args.n_estimators),
            )


if __name__ == "__main__":
    main()
