"""The whole family on real data (chapter 19): mltrees against the reference libraries.

    python benchmarks/bench_family.py [--datasets adult covertype higgs diabetes]
                                      [--only SUBSTRING ...] [--out PATH]
                                      [--update REASON]

Writes ``mltrees/datasets/benchmark_results/family.json`` (package data, read
with ``mltrees.datasets.load_benchmark_results("family")``): for every (data set, algorithm,
library, setting) the test accuracy (classification) or RMSE (regression),
and the machine, the date and the versions of every library. The book's
chapter on quick answers reads that file; it never runs this script.

Scores only: a score does not depend on how busy the machine is, a time
does. Fit and predict times are measured by ``bench_small.py``, which follows
the protocol of ``benchmarks/README.md`` (one thread for every library, best
of five fits, the load recorded and guarded) on these tables and six more.
Times taken here once, with the libraries at their own thread counts on a
shared machine, were up to 300 times off for the multi-threaded references.

``--update REASON`` measures only the selected rows and replaces them in the
existing file, which keeps its other rows and records the re-measurement
(date, rows, reason, load, commit) in its ``updates`` list.

Data (all shipped with mltrees or scikit-learn, nothing is downloaded):

* ``adult``: :func:`mltrees.datasets.load_adult`, the official train (32,561)
  and test (16,281) files; categorical columns replaced by their category
  codes, a missing value by its own code (-1), so that every library receives
  the same numeric matrix;
* ``covertype``: :func:`mltrees.datasets.load_covertype` (20,000 x 54, 7
  classes), a stratified 75/25 split with ``random_state=0``;
* ``higgs``: :func:`mltrees.datasets.load_higgs`, its train (7,000) and test
  (500) files, the sample weights ignored;
* ``diabetes``: :func:`sklearn.datasets.load_diabetes` (442 x 10,
  regression), a 75/25 split with ``random_state=0``.

Settings. ``default`` is what a user gets by writing the class name with no
argument but ``random_state=0`` (and ``verbose=-1`` / ``verbose=0`` for
LightGBM and CatBoost, which print otherwise). Defaults differ between
libraries (XGBoost's learning rate is 0.3, LightGBM's 0.1, CatBoost's default
is 1,000 trees with a learning rate chosen from the data size; the
industrial libraries use every core, mltrees and scikit-learn one), so rows
marked ``matched`` change only what makes a pair comparable:

* ``mltrees`` XGBoost / LightGBM with ``n_jobs=2``, the thread count the
  ``xgboost`` and ``lightgbm`` packages use by default on this machine;
* ``catboost`` with XGBoost's default budget (100 trees of depth 6, learning
  rate 0.3).

"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "mltrees" / "datasets" / "benchmark_results" / "family.json"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> float:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return float("nan")


def numeric_frame(frame: pd.DataFrame) -> np.ndarray:
    """Category codes for categorical columns (missing -> -1), floats elsewhere."""
    columns = []
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            columns.append(column.cat.codes.to_numpy(dtype=np.float64))
        else:
            columns.append(column.to_numpy(dtype=np.float64))
    return np.column_stack(columns)


def load(name: str):
    """(X_train, y_train, X_test, y_test, task, description)."""
    from sklearn.model_selection import train_test_split

    import mltrees.datasets as ds

    if name == "adult":
        train, test = ds.load_adult("train"), ds.load_adult("test")
        y_train = train.target.cat.codes.to_numpy()
        y_test = test.target.cat.codes.to_numpy()
        return (
            numeric_frame(train.data),
            y_train,
            numeric_frame(test.data),
            y_test,
            "classification",
            "Adult (UCI), official train/test files",
        )
    if name == "covertype":
        bunch = ds.load_covertype()
        X, y = bunch.data.to_numpy(dtype=np.float64), bunch.target.to_numpy() - 1
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, stratify=y, random_state=0
        )
        return (
            X_train,
            y_train,
            X_test,
            y_test,
            "classification",
            "Covertype (UCI), first 20,000 rows, stratified 75/25 split",
        )
    if name == "higgs":
        train, test = ds.load_higgs("train"), ds.load_higgs("test")
        return (
            train.data.to_numpy(dtype=np.float64),
            np.asarray(train.target),
            test.data.to_numpy(dtype=np.float64),
            np.asarray(test.target),
            "classification",
            "HIGGS sample shipped with LightGBM's examples, train/test files",
        )
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
        return (
            X_train,
            y_train,
            X_test,
            y_test,
            "regression",
            "Diabetes (Efron et al. 2004), 75/25 split",
        )
    raise ValueError(f"unknown data set {name!r}")


def models(task: str):
    """(algorithm, library, setting, threads, factory) for every row."""
    import catboost
    import lightgbm
    import sklearn.ensemble as ske
    import sklearn.tree as skt
    import xgboost

    import mltrees

    cores = os.cpu_count() or 1
    if task == "classification":
        m = {
            "cart": mltrees.CARTClassifier,
            "c45": mltrees.C45Classifier,
            "rf": mltrees.RandomForestClassifier,
            "gb": mltrees.GradientBoostingClassifier,
            "xgb": mltrees.XGBoostClassifier,
            "lgb": mltrees.LightGBMClassifier,
        }
        s = {
            "cart": skt.DecisionTreeClassifier,
            "rf": ske.RandomForestClassifier,
            "gb": ske.GradientBoostingClassifier,
            "hgb": ske.HistGradientBoostingClassifier,
            "xgb": xgboost.XGBClassifier,
            "lgb": lightgbm.LGBMClassifier,
            "cat": catboost.CatBoostClassifier,
        }
    else:
        m = {
            "cart": mltrees.CARTRegressor,
            "rf": mltrees.RandomForestRegressor,
            "gb": mltrees.GradientBoostingRegressor,
            "xgb": mltrees.XGBoostRegressor,
            "lgb": mltrees.LightGBMRegressor,
        }
        s = {
            "cart": skt.DecisionTreeRegressor,
            "rf": ske.RandomForestRegressor,
            "gb": ske.GradientBoostingRegressor,
            "hgb": ske.HistGradientBoostingRegressor,
            "xgb": xgboost.XGBRegressor,
            "lgb": lightgbm.LGBMRegressor,
            "cat": catboost.CatBoostRegressor,
        }
    rows = [
        ("CART", "mltrees", "default", 1, lambda: m["cart"](random_state=0)),
        ("CART", "sklearn", "default", 1, lambda: s["cart"](random_state=0)),
    ]
    if "c45" in m:
        rows.append(("C4.5", "mltrees", "default", 1, lambda: m["c45"]()))
    rows += [
        ("random forest", "mltrees", "default", 1, lambda: m["rf"](random_state=0)),
        ("random forest", "sklearn", "default", 1, lambda: s["rf"](random_state=0)),
        ("GBDT", "mltrees", "default", 1, lambda: m["gb"](random_state=0)),
        ("GBDT", "sklearn", "default", 1, lambda: s["gb"](random_state=0)),
        ("GBDT (histogram)", "sklearn", "default", cores, lambda: s["hgb"](random_state=0)),
        ("XGBoost", "mltrees", "default", 1, lambda: m["xgb"](random_state=0)),
        ("XGBoost", "mltrees", "matched", 2, lambda: m["xgb"](random_state=0, n_jobs=2)),
        ("XGBoost", "xgboost", "default", cores, lambda: s["xgb"](random_state=0)),
        ("LightGBM", "mltrees", "default", 1, lambda: m["lgb"](random_state=0)),
        ("LightGBM", "mltrees", "matched", 2, lambda: m["lgb"](random_state=0, n_jobs=2)),
        ("LightGBM", "lightgbm", "default", cores, lambda: s["lgb"](random_state=0, verbose=-1)),
        (
            "CatBoost",
            "catboost",
            "default",
            cores,
            lambda: s["cat"](random_seed=0, verbose=0, allow_writing_files=False),
        ),
        (
            "CatBoost",
            "catboost",
            "matched",
            cores,
            lambda: s["cat"](
                random_seed=0,
                verbose=0,
                allow_writing_files=False,
                iterations=100,
                depth=6,
                learning_rate=0.3,
            ),
        ),
    ]
    return rows


def measure(factory, X_train, y_train, X_test, y_test, task) -> float:
    """The test accuracy (classification) or RMSE (regression) of one fit."""
    model = factory()
    model.fit(X_train, y_train)
    predicted = np.asarray(model.predict(X_test)).reshape(len(X_test))
    if task == "classification":
        return float(np.mean(predicted.astype(y_test.dtype) == y_test))
    return float(np.sqrt(np.mean((predicted - y_test) ** 2)))


def versions() -> dict:
    import catboost
    import lightgbm
    import sklearn
    import xgboost

    import mltrees

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "scikit-learn": sklearn.__version__,
        "xgboost": xgboost.__version__,
        "lightgbm": lightgbm.__version__,
        "catboost": catboost.__version__,
        "mltrees": mltrees.__version__,
        "mltrees_commit": commit,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets", nargs="+", default=["adult", "covertype", "higgs", "diabetes"]
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=None,
        help="keep rows whose algorithm or library contains one of these",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--update",
        metavar="REASON",
        default=None,
        help="replace the measured rows in the existing --out file",
    )
    args = parser.parse_args(argv)

    results = []
    load_before = load_average()
    started = datetime.datetime.now(datetime.UTC)
    for name in args.datasets:
        X_train, y_train, X_test, y_test, task, description = load(name)
        for algorithm, library, setting, threads, factory in models(task):
            label = f"{algorithm} {library}"
            if args.only and not any(word in label for word in args.only):
                continue
            score = measure(factory, X_train, y_train, X_test, y_test, task)
            row = {
                "dataset": name,
                "task": task,
                "algorithm": algorithm,
                "library": library,
                "setting": setting,
                "threads": threads,
                "metric": "accuracy" if task == "classification" else "rmse",
                "score": round(score, 5),
            }
            results.append(row)
            print(
                f"{name:10s} {algorithm:17s} {library:9s} {setting:8s} {row['metric']} {score:.4f}",
                flush=True,
            )
    datasets = {}
    for name in args.datasets:
        X_train, y_train, X_test, _, task, description = load(name)
        datasets[name] = {
            "description": description,
            "task": task,
            "n_train": int(X_train.shape[0]),
            "n_test": int(X_test.shape[0]),
            "n_features": int(X_train.shape[1]),
            "n_classes": (len(np.unique(y_train)) if task == "classification" else None),
        }
    report = {
        "script": "benchmarks/bench_family.py",
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "system": f"{platform.system()} {platform.release()}",
            "load_before": load_before,
            "load_after": load_average(),
        },
        "versions": versions(),
        "datasets": datasets,
        "results": results,
    }
    if args.update is not None:
        report = _updated(json.loads(args.out.read_text()), report, args.update)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


def _updated(existing: dict, partial: dict, reason: str) -> dict:
    """``existing`` with the rows ``partial`` measured again, and a record of it."""

    def key(row):
        return row["dataset"], row["algorithm"], row["library"], row["setting"]

    new = {key(row): row for row in partial["results"]}
    replaced = []
    for i, row in enumerate(existing["results"]):
        if key(row) in new:
            existing["results"][i] = new.pop(key(row))
            replaced.append(" / ".join(key(row)))
    if new:
        raise SystemExit(f"rows not in the existing file: {sorted(new)}")
    existing.setdefault("updates", []).append(
        {
            "date": partial["date"],
            "rows": replaced,
            "reason": reason,
            "load_before": partial["machine"]["load_before"],
            "load_after": partial["machine"]["load_after"],
            "mltrees_commit": partial["versions"].get("mltrees_commit"),
        }
    )
    return existing


if __name__ == "__main__":
    sys.exit(main())
