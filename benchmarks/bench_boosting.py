"""Gradient boosting: mltrees against scikit-learn, same data, same run.

    python benchmarks/bench_boosting.py [--n-samples 1000000] [--n-estimators 100]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)``, the first 80% for training and the last 20% for testing.
Models: ``mltrees.GradientBoostingClassifier(n_estimators=100, max_depth=3,
max_bins=255)`` against ``sklearn.ensemble.GradientBoostingClassifier(
n_estimators=100, max_depth=3)`` (exact splits; scikit-learn has no histogram
mode in this estimator). Each fit runs in a fresh subprocess; predict time is
the fastest of five calls on the test set. The machine's load average is
printed before and after, since other jobs may share the cores.

Goals (issue 6): fit time <= 0.5x sklearn, test accuracy within 0.3 points,
predict time <= 1x.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from _harness import run_child, save_classification

CHILD = r"""
import json, sys, time
from _child import fastest_call, load_split

X_train, y_train, X_test, y_test = load_split(sys.argv[1])
library, n_estimators = sys.argv[2], int(sys.argv[3])
if library == "sklearn":
    from sklearn.ensemble import GradientBoostingClassifier
    model = GradientBoostingClassifier(n_estimators=n_estimators, max_depth=3, random_state=0)
else:
    from mltrees import GradientBoostingClassifier
    model = GradientBoostingClassifier(n_estimators=n_estimators, max_depth=3, max_bins=255)
start = time.perf_counter()
model.fit(X_train, y_train)
fit_time = time.perf_counter() - start
predict_time, predicted = fastest_call(lambda: model.predict(X_test))
print(json.dumps({
    "fit": fit_time, "predict": predict_time, "accuracy": float((predicted == y_test).mean()),
}))
"""


def run(data_path: Path, library: str, n_estimators: int) -> dict:
    """Fit and predict in a fresh interpreter; return its measurements."""
    return run_child(CHILD, data_path, library, n_estimators)


def make_data(n_samples: int, folder: Path) -> Path:
    """The issue's data set, saved once and loaded by both subprocesses."""
    return save_classification(n_samples, folder / f"data_{n_samples}.npz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-estimators", type=int, default=100)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cpus)", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        path = make_data(args.n_samples, Path(folder))
        ours = run(path, "mltrees", args.n_estimators)
        # Printed at once: the reference fit can take an hour at 1M rows.
        print(f"mltrees done: {json.dumps(ours)}", flush=True)
        reference = run(path, "sklearn", args.n_estimators)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    n, m = args.n_samples, args.n_estimators
    print(f"\n{m} trees of depth 3, {n:,} rows: mltrees (255 bins) vs sklearn (exact)")
    print(f"  {'':10}{'mltrees':>12}{'sklearn':>12}{'ratio':>8}")
    for key in ("fit", "predict"):
        ratio = ours[key] / reference[key]
        print(f"  {key:10}{ours[key]:11.2f}s{reference[key]:11.2f}s{ratio:8.2f}")
    difference = 100 * (ours["accuracy"] - reference["accuracy"])
    print(
        f"  {'accuracy':10}{ours['accuracy']:12.4f}{reference['accuracy']:12.4f}"
        f"   ({difference:+.2f} points)"
    )


if __name__ == "__main__":
    main()
