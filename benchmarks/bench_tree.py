"""Single trees: mltrees against scikit-learn, same data, same run.

    python benchmarks/bench_tree.py [--n-samples 1000000] [--exact-samples 100000]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)``, the first 80% for training and the last 20% for testing.
Each measurement runs in a fresh subprocess. Its peak memory is the growth of
the resident set during ``fit`` alone: the kernel's high-water mark (VmHWM) is
reset after the data are loaded (``/proc/self/clear_refs``, Linux), and the
resident size at that moment is subtracted. Predict time is the fastest of
five calls on the test set (mltrees walks blocks of rows on one thread per
core; sklearn's single-tree predict is single-threaded). Prints one table;
ratios below 1 favour mltrees.

Goals (issue 3): histogram CART at depth 12 fits in <= 0.5x sklearn's time
with accuracy within 0.5 points; full depth <= 1x; predict <= 1x; peak memory
<= 1.5x; exact mode at 100k rows <= 2x.

    python benchmarks/bench_tree.py --defaults [--repeats 2]

The trees a user gets with nothing set (exact mode) against sklearn's, as in
issue 13: full depth on 200k training rows and depth 12 on 800k, fitted back
to back in one process (the order alternating between repeats), then the two
predict the same rows in turn (50k and 200k test rows), many times; the table
shows medians. Goal: fit and predict <= 1x sklearn.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
from _harness import run_child, save_classification
from sklearn.datasets import make_classification

CHILD = r"""
import json, sys, time
from _child import fastest_call, load_split, reset_peak, status_kb

X_train, y_train, X_test, y_test = load_split(sys.argv[1])
library, max_depth, max_bins = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
if library == "sklearn":
    from sklearn.tree import DecisionTreeClassifier
    model = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
else:
    from mltrees import CARTClassifier
    model = CARTClassifier(max_depth=max_depth, max_bins=max_bins)
baseline = reset_peak()
start = time.perf_counter()
model.fit(X_train, y_train)
fit_time = time.perf_counter() - start
peak = status_kb("VmHWM")
predict_time, predicted = fastest_call(lambda: model.predict(X_test))
print(json.dumps({
    "fit": fit_time, "predict": predict_time, "accuracy": float((predicted == y_test).mean()),
    "peak_mb": (peak - baseline) / 1024, "nodes": int(model.tree_.node_count),
}))
"""


def run(data_path: Path, library: str, max_depth, max_bins) -> dict:
    """Fit and predict in a fresh interpreter; return its measurements."""
    return run_child(CHILD, data_path, library, json.dumps(max_depth), json.dumps(max_bins))


def make_data(n_samples: int, folder: Path) -> Path:
    """The issue's data set, saved once and loaded by every subprocess."""
    return save_classification(n_samples, folder / f"data_{n_samples}.npz")


def report(title: str, ours: dict, reference: dict) -> None:
    """One row per quantity with the ratio mltrees / sklearn."""
    print(f"\n{title}")
    print(f"  {'':14}{'mltrees':>12}{'sklearn':>12}{'ratio':>8}")
    for key, unit in (("fit", "s"), ("predict", "s"), ("peak_mb", "MB")):
        ratio = ours[key] / reference[key] if reference[key] > 0 else float("nan")
        print(f"  {key:14}{ours[key]:11.2f}{unit:1}{reference[key]:11.2f}{unit:1}{ratio:8.2f}")
    difference = 100 * (ours["accuracy"] - reference["accuracy"])
    print(
        f"  {'accuracy':14}{ours['accuracy']:12.4f}{reference['accuracy']:12.4f}"
        f"   ({difference:+.2f} points)"
    )
    print(f"  {'nodes':14}{ours['nodes']:12d}{reference['nodes']:12d}")


def defaults(repeats: int) -> None:
    """Exact-mode trees at their defaults against sklearn's, back to back in one process."""
    import os
    import time

    from sklearn.tree import DecisionTreeClassifier

    from mltrees import CARTClassifier

    X, y = make_classification(n_samples=1_000_000, n_features=28, n_informative=20, random_state=0)
    X_test = X[800_000:]
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cpus)")
    print(f"{'':34}{'mltrees':>10}{'sklearn':>10}{'ratio':>8}")
    for n_train, max_depth in ((200_000, None), (800_000, 12)):
        name = f"{n_train // 1000}k rows, {'full depth' if max_depth is None else 'depth 12'}"
        fits = {"mltrees": [], "sklearn": []}
        for repeat in range(repeats):
            order = ("mltrees", "sklearn") if repeat % 2 == 0 else ("sklearn", "mltrees")
            for library in order:
                if library == "mltrees":
                    model = CARTClassifier(max_depth=max_depth)
                else:
                    model = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
                start = time.perf_counter()
                model.fit(X[:n_train], y[:n_train])
                fits[library].append(time.perf_counter() - start)
                if library == "mltrees":
                    ours = model
                else:
                    theirs = model
        ratio = np.median(fits["mltrees"]) / np.median(fits["sklearn"])
        print(
            f"  fit, {name:27}{np.median(fits['mltrees']):9.2f}s"
            f"{np.median(fits['sklearn']):9.2f}s{ratio:8.2f}"
        )
        for n_rows, calls in ((50_000, 40), (200_000, 15)):
            times = {"mltrees": [], "sklearn": []}
            rows = X_test[:n_rows]
            for _ in range(calls):  # in turn, so that both meet the same machine
                for library, model in (("mltrees", ours), ("sklearn", theirs)):
                    start = time.perf_counter()
                    model.predict(rows)
                    times[library].append(time.perf_counter() - start)
            ours_ms, theirs_ms = (1e3 * np.median(times[k]) for k in ("mltrees", "sklearn"))
            label = f"predict {n_rows // 1000}k rows"
            print(f"  {label:33}{ours_ms:8.1f}ms{theirs_ms:8.1f}ms{ours_ms / theirs_ms:8.2f}")
        same = np.mean(ours.predict(X_test) == theirs.predict(X_test))
        print(f"  {'test predictions that agree':33}{same:10.4f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--exact-samples", type=int, default=100_000)
    parser.add_argument("--defaults", action="store_true", help="issue 13's exact-mode table")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if args.defaults:
        defaults(args.repeats)
        return
    with tempfile.TemporaryDirectory() as folder:
        big = make_data(args.n_samples, Path(folder))
        small = make_data(args.exact_samples, Path(folder))
        n = args.n_samples
        report(
            f"depth 12, {n:,} rows: mltrees histogram (255 bins) vs sklearn",
            run(big, "mltrees", 12, 255),
            run(big, "sklearn", 12, None),
        )
        report(
            f"full depth, {n:,} rows: mltrees histogram (255 bins) vs sklearn",
            run(big, "mltrees", None, 255),
            run(big, "sklearn", None, None),
        )
        m = args.exact_samples
        report(
            f"full depth, {m:,} rows: mltrees exact vs sklearn",
            run(small, "mltrees", None, None),
            run(small, "sklearn", None, None),
        )
        report(
            f"depth 12, {m:,} rows: mltrees exact vs sklearn",
            run(small, "mltrees", 12, None),
            run(small, "sklearn", 12, None),
        )


if __name__ == "__main__":
    main()
