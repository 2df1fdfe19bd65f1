"""Leaf-wise boosting (chapter 14): mltrees' LightGBM against the lightgbm package, same run.

    python benchmarks/bench_lightgbm.py [--n-samples 1000000] [--n-estimators 100]
                                        [--wide-samples 200000] [--only NAME ...]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
random_state=0)``, the first 80% for training, the last 20% for testing.
Every model: ``num_leaves=255``, 100 trees, the library's defaults otherwise
(learning rate 0.1, 255 bins, ``min_child_samples=20``), 2 threads:

* ``lightgbm`` / ``mltrees``: plain gradient boosting;
* ``lightgbm-goss`` / ``mltrees-goss``: ``data_sample_strategy="goss"``
  with ``top_rate=0.2, other_rate=0.1``;
* ``mltrees-wide-efb`` / ``mltrees-wide-noefb`` (and ``lightgbm-wide``): a wide
  one-hot data set (40 categorical columns of 10 levels, one-hot encoded: 400
  sparse columns, plus 8 numeric ones; ``--wide-samples`` rows), with
  exclusive feature bundling on and off.

Each fit runs in a fresh subprocess, which reports its fit time, peak
resident memory of the fit (VmHWM reset through /proc/self/clear_refs), the
best of five predictions on 200k rows (the test rows) and the test accuracy;
mltrees also reports the time of each stage.

Goals (issue 14): fit <= 5x lightgbm with the same parameters; GOSS faster
than without, accuracy within 0.3 points; EFB faster with bundling than
without on the wide data, the same model; predict <= 1x lightgbm; accuracy
within 0.3 points of lightgbm.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
from _harness import run_child, save_classification

CHILD = r"""
import json, sys, time
from _child import fastest_call, load_split, reset_peak, status_kb

X_train, y_train, X_test, y_test = load_split(sys.argv[1])
name, n_estimators = sys.argv[2], int(sys.argv[3])
common = dict(n_estimators=n_estimators, num_leaves=255)
if "goss" in name:
    common.update(data_sample_strategy="goss", top_rate=0.2, other_rate=0.1)
if name.endswith("noefb"):
    common.update(enable_bundle=False)
if name.startswith("lightgbm"):
    from lightgbm import LGBMClassifier
    model = LGBMClassifier(n_jobs=2, verbose=-1, **common)
else:
    from mltrees import LightGBMClassifier
    model = LightGBMClassifier(n_jobs=2, **common)
before = reset_peak()
start = time.perf_counter()
model.fit(X_train, y_train)
fit_time = time.perf_counter() - start
peak = status_kb("VmHWM")
predict_time, predicted = fastest_call(lambda: model.predict(X_test))
proba = model.predict_proba(X_test[:1000])[:, 1]
print(json.dumps({
    "fit": fit_time,
    "predict": predict_time,
    "accuracy": float((predicted == y_test).mean()),
    "peak_mb": (peak - before) / 1024,
    "stages": getattr(model, "_timings", None),
    "columns": getattr(model, "n_bundles_", None),
    "proba": proba.tolist(),
}))
"""

ALL = [
    "lightgbm",
    "mltrees",
    "lightgbm-goss",
    "mltrees-goss",
    "lightgbm-wide",
    "mltrees-wide-efb",
    "mltrees-wide-noefb",
]


def run(data_path: Path, name: str, n_estimators: int) -> dict:
    """Fit and predict in a fresh interpreter; return its measurements."""
    return run_child(CHILD, data_path, name, n_estimators)


def make_data(n_samples: int, folder: Path) -> Path:
    """The issue's data set, saved for the subprocesses."""
    return save_classification(n_samples, folder / "data.npz")


def make_wide(n_samples: int, folder: Path) -> Path:
    """40 categorical columns of 10 levels, one-hot encoded, and 8 numeric ones."""
    rng = np.random.default_rng(0)
    levels = rng.integers(0, 10, size=(n_samples, 40))
    numeric = rng.normal(size=(n_samples, 8))
    effect = rng.normal(size=(40, 10))
    logit = effect[np.arange(40), levels].sum(axis=1) / 3 + numeric[:, 0] - numeric[:, 1]
    y = (rng.random(n_samples) < 1 / (1 + np.exp(-logit))).astype(int)
    onehot = np.zeros((n_samples, 400), dtype=np.float32)
    onehot[np.arange(n_samples)[:, None], levels + 10 * np.arange(40)] = 1.0
    X = np.hstack([onehot, numeric.astype(np.float32)]).astype(np.float64)
    cut = int(0.8 * n_samples)
    path = folder / "wide.npz"
    np.savez(path, X_train=X[:cut], y_train=y[:cut], X_test=X[cut:], y_test=y[cut:])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--wide-samples", type=int, default=200_000)
    parser.add_argument("--only", nargs="*", default=ALL, choices=ALL)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cpus)", flush=True)
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        dense = make_data(args.n_samples, Path(folder))
        wide = make_wide(args.wide_samples, Path(folder))
        for name in args.only:
            results[name] = run(wide if "wide" in name else dense, name, args.n_estimators)
            r = results[name]
            columns = "" if r["columns"] is None else f"  columns {r['columns']}"
            print(
                f"{name:18s} fit {r['fit']:8.2f} s  predict {r['predict']:6.3f} s  "
                f"accuracy {r['accuracy']:.4f}  fit peak +{r['peak_mb']:.0f} MB{columns}",
                flush=True,
            )
            if r["stages"]:
                stages = "  ".join(f"{k} {v:.2f} s" for k, v in r["stages"].items())
                print(f"{'':18s} stages: {stages}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")

    def ratio(a, b, key="fit"):
        if a in results and b in results:
            return f"{results[a][key] / results[b][key]:.2f}x"
        return "n/a"

    def gap(a, b):
        if a in results and b in results:
            return f"{100 * (results[a]['accuracy'] - results[b]['accuracy']):+.2f} points"
        return "n/a"

    print("\nmeasurement                                  ratio          goal")
    print(f"mltrees fit / lightgbm                       {ratio('mltrees', 'lightgbm'):14s} <= 5x")
    print(
        f"mltrees-goss fit / mltrees fit               {ratio('mltrees-goss', 'mltrees'):14s} < 1x"
    )
    print(
        f"accuracy mltrees-goss - mltrees              {gap('mltrees-goss', 'mltrees'):14s} "
        "within 0.3"
    )
    print(
        f"accuracy mltrees-goss - lightgbm-goss        {gap('mltrees-goss', 'lightgbm-goss'):14s} "
        "(reported)"
    )
    print(
        f"mltrees-wide-efb fit / mltrees-wide-noefb    "
        f"{ratio('mltrees-wide-efb', 'mltrees-wide-noefb'):14s} < 1x"
    )
    if "mltrees-wide-efb" in results and "mltrees-wide-noefb" in results:
        same = np.allclose(
            results["mltrees-wide-efb"]["proba"],
            results["mltrees-wide-noefb"]["proba"],
            rtol=0,
            atol=1e-12,
        )
        print(f"EFB on and off give the same model          {same!s:14s} True")
    print(
        f"mltrees predict / lightgbm                   "
        f"{ratio('mltrees', 'lightgbm', 'predict'):14s} <= 1x"
    )
    print(
        f"accuracy mltrees - lightgbm                  {gap('mltrees', 'lightgbm'):14s} within 0.3"
    )
    print(
        f"peak memory mltrees / lightgbm               "
        f"{ratio('mltrees', 'lightgbm', 'peak_mb'):14s} (reported)"
    )


if __name__ == "__main__":
    main()
