"""Fit and predict time at the sizes people use: 300 to 33,000 rows, at the defaults.

    python benchmarks/bench_small.py [--families CART "random forest" ...]
                                     [--tables heart penguins ...] [--fits 5]
                                     [--predicts 50] [--json PATH]

Each family of mltrees at its defaults against its reference at its
defaults, one thread each (``n_jobs=1``, ``thread_count=1``), fitted in turn
in the same process on the same rows (the protocol of ``benchmarks/README.md``:
best of ``--fits`` fits, best of ``--predicts`` predict calls, the 1-minute
load recorded with each measurement and the measurement repeated, at most
three times, while it is above 1.5; a ratio is judged only where the
reference takes at least 1 ms).

=====================  ==================================================
family                 reference
=====================  ==================================================
CART                   ``sklearn.tree.DecisionTree{Classifier,Regressor}``
random forest          ``sklearn.ensemble.RandomForest*``
gradient boosting      ``sklearn.ensemble.GradientBoosting*``
XGBoost                ``xgboost.XGB*`` (hist, its default)
LightGBM               ``lightgbm.LGBM*``
oblivious boosting     ``catboost.CatBoost*`` with mltrees' rounds, depth
                       and learning rate (100, 6, 0.1), all else its default
=====================  ==================================================

Tables (each a seeded 80/20 split, ``random_state=0``): heart disease (303),
penguins (344), Titanic (1,309), car (1,728), the HIGGS sample (train and test
files, 7,500), mushroom (8,124), covertype (20,000), Adult's training file
(32,561), and scikit-learn's diabetes (442, regression) and breast cancer
(569). Every library receives the same numeric matrix: a category column
becomes its codes with a missing category as its own code (-1), and a
missing number the column's training median (scikit-learn's
``GradientBoosting*`` takes no NaN).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
MAX_LOAD = 1.5
MAX_REPEATS = 3
JUDGED_FROM = 1e-3  # seconds: a reference faster than this is not judged
GOALS = {  # fit-time ratio goals: (median, worst)
    "CART": (1.5, 3.0),
    "random forest": (1.0, 2.0),
    "gradient boosting": (1.0, 2.0),
    "XGBoost": (3.0, 5.0),
    "LightGBM": (4.0, 8.0),
    "oblivious boosting": (2.0, 4.0),
}
PREDICT_GOAL = 1.5
PREDICT_SLACK = 2e-4  # below JUDGED_FROM: at most the reference's time + 0.2 ms


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def numeric(X: pd.DataFrame, medians: pd.Series | None = None) -> tuple[np.ndarray, pd.Series]:
    """Category codes (missing: -1) and numbers (missing: the training median)."""
    out = pd.DataFrame(index=X.index)
    for column in X.columns:
        values = X[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            out[column] = values.cat.codes.astype(np.float64)
        else:
            out[column] = pd.to_numeric(values, errors="raise").astype(np.float64)
    if medians is None:
        medians = out.median()
    return out.fillna(medians).to_numpy(), medians


def tables(names: list[str]):
    """``name -> (task, X_train, X_test, y_train, y_test)`` for the selected tables."""
    from sklearn.datasets import load_breast_cancer, load_diabetes
    from sklearn.model_selection import train_test_split

    import mltrees.datasets as ds

    def higgs():
        (Xa, ya), (Xb, yb) = (
            ds.load_higgs("train", return_X_y=True),
            ds.load_higgs("test", return_X_y=True),
        )
        return pd.concat([Xa, Xb], ignore_index=True), pd.concat([ya, yb], ignore_index=True)

    sources = {
        "heart": lambda: ds.load_heart_disease(return_X_y=True),
        "penguins": lambda: ds.load_penguins(return_X_y=True),
        "titanic": lambda: ds.load_titanic(return_X_y=True),
        "car": lambda: ds.load_car_evaluation(return_X_y=True),
        "higgs": higgs,
        "mushroom": lambda: ds.load_mushroom(return_X_y=True),
        "covertype": lambda: ds.load_covertype(return_X_y=True),
        "adult": lambda: ds.load_adult("train", return_X_y=True),
        "diabetes": lambda: load_diabetes(return_X_y=True, as_frame=True),
        "cancer": lambda: load_breast_cancer(return_X_y=True, as_frame=True),
    }
    for name in names:
        X, y = sources[name]()
        task = "regression" if name == "diabetes" else "classification"
        y = (
            np.asarray(y, dtype=np.float64)
            if task == "regression"
            else np.unique(np.asarray(y).astype(str), return_inverse=True)[1]
        )
        stratify = y if task == "classification" else None
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.2, random_state=0, stratify=stratify
        )
        X_train, medians = numeric(X_train)
        X_test, _ = numeric(X_test, medians)
        yield name, (task, X_train, X_test, y_train, y_test)


def pairs(task: str) -> dict:
    """``family -> (mltrees model, reference model)``, each at its defaults, one thread."""
    import catboost
    import lightgbm
    import xgboost
    from sklearn import ensemble as sk_ensemble
    from sklearn import tree as sk_tree

    from mltrees import ensemble, tree

    kind = "Classifier" if task == "classification" else "Regressor"
    ours = {name: getattr(module, f"{prefix}{kind}") for name, module, prefix in [
        ("CART", tree, "CART"),
        ("random forest", ensemble, "RandomForest"),
        ("gradient boosting", ensemble, "GradientBoosting"),
        ("XGBoost", ensemble, "XGBoost"),
        ("LightGBM", ensemble, "LightGBM"),
        ("oblivious boosting", ensemble, "ObliviousBoosting"),
    ]}  # fmt: skip
    oblivious = ours["oblivious boosting"]().get_params()
    catboost_class = (
        catboost.CatBoostClassifier if kind == "Classifier" else catboost.CatBoostRegressor
    )

    def one_thread(cls, **params):
        return cls(**({"n_jobs": 1} if "n_jobs" in cls().get_params() else {}), **params)

    return {
        "CART": (one_thread(ours["CART"]), getattr(sk_tree, f"DecisionTree{kind}")()),
        "random forest": (
            one_thread(ours["random forest"]),
            getattr(sk_ensemble, f"RandomForest{kind}")(n_jobs=1),
        ),
        "gradient boosting": (
            one_thread(ours["gradient boosting"]),
            getattr(sk_ensemble, f"GradientBoosting{kind}")(),
        ),
        "XGBoost": (one_thread(ours["XGBoost"]), getattr(xgboost, f"XGB{kind}")(n_jobs=1)),
        "LightGBM": (
            one_thread(ours["LightGBM"]),
            getattr(lightgbm, f"LGBM{kind}")(n_jobs=1, verbose=-1),
        ),
        "oblivious boosting": (
            one_thread(ours["oblivious boosting"]),
            catboost_class(
                iterations=oblivious["n_estimators"],
                depth=oblivious["depth"],
                learning_rate=oblivious["learning_rate"],
                thread_count=1,
                verbose=0,
                allow_writing_files=False,
            ),
        ),
    }


def best_time(function, calls: int) -> float:
    best = np.inf
    for _ in range(calls):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def measure(models: dict, X_train, X_test, y_train, fits: int, predicts: int) -> dict:
    """Best fit and predict times of each model, fitted in turn; load-guarded (see module)."""
    attempt = 0
    while attempt < MAX_REPEATS:
        attempt += 1
        load_before = load_average()
        fit_best = dict.fromkeys(models, np.inf)
        for _ in range(fits):  # interleaved: a burst of load hits both sides
            for side, model in models.items():
                fit_best[side] = min(
                    fit_best[side], best_time(lambda m=model: m.fit(X_train, y_train), 1)
                )
        predict_best = {
            side: best_time(lambda m=model: m.predict(X_test), predicts)
            for side, model in models.items()
        }
        load_after = load_average()
        if max(load_before, load_after) <= MAX_LOAD:
            break
    return {
        "fit": fit_best,
        "predict": predict_best,
        "load": [load_before, load_after],
        "attempts": attempt,
        "reliable": max(load_before, load_after) <= MAX_LOAD,
    }


def ratio_row(result: dict, stage: str) -> float | None:
    ours, theirs = result[stage]["mltrees"], result[stage]["reference"]
    return None if theirs < JUDGED_FROM else ours / theirs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="*", default=list(GOALS))
    parser.add_argument(
        "--tables",
        nargs="*",
        default=[
            "heart", "penguins", "diabetes", "cancer", "titanic", "car",
            "higgs", "mushroom", "covertype", "adult",
        ],
    )  # fmt: skip
    parser.add_argument("--fits", type=int, default=5)
    parser.add_argument("--predicts", type=int, default=50)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.fits < 5 or args.predicts < 50:
        parser.error("the protocol needs --fits >= 5 and --predicts >= 50")

    rows = []
    for table, (task, X_train, X_test, y_train, _) in tables(args.tables):
        for family, (ours, reference) in pairs(task).items():
            if family not in args.families:
                continue
            result = measure(
                {"mltrees": ours, "reference": reference},
                X_train, X_test, y_train, args.fits, args.predicts,
            )  # fmt: skip
            row = {"table": table, "rows": len(X_train), "family": family, **result}
            rows.append(row)
            fit, predict = ratio_row(row, "fit"), ratio_row(row, "predict")
            print(
                f"{table:10s} {len(X_train):6d} {family:19s} "
                f"fit {row['fit']['mltrees'] * 1e3:9.1f} / {row['fit']['reference'] * 1e3:8.1f} ms"
                f" = {'-' if fit is None else f'{fit:5.2f}x'}   "
                f"predict {row['predict']['mltrees'] * 1e3:7.2f} / "
                f"{row['predict']['reference'] * 1e3:6.2f} ms"
                f" = {'-' if predict is None else f'{predict:5.2f}x'}   "
                f"load {row['load'][0]:.2f}-{row['load'][1]:.2f}"
                f"{'' if row['reliable'] else '  UNRELIABLE'}",
                flush=True,
            )

    print("\nfit ratio mltrees / reference (judged where the reference takes >= 1 ms)")
    summary, failed = {}, []
    for family in args.families:
        ratios = [r for row in rows if row["family"] == family if (r := ratio_row(row, "fit"))]
        if not ratios:
            continue
        median, worst = float(np.median(ratios)), float(np.max(ratios))
        goal = GOALS[family]
        ok = median <= goal[0] and worst <= goal[1]
        summary[family] = {"median": median, "worst": worst, "goal": goal, "met": ok}
        failed += [] if ok else [family]
        print(
            f"  {family:19s} median {median:5.2f}x (goal {goal[0]}x)  "
            f"worst {worst:5.2f}x (goal {goal[1]}x)  {'met' if ok else 'NOT MET'}"
        )
    slow_predicts = [
        (row["table"], row["family"])
        for row in rows
        if (
            row["predict"]["mltrees"] > PREDICT_GOAL * row["predict"]["reference"]
            if row["predict"]["reference"] >= JUDGED_FROM
            else row["predict"]["mltrees"] > row["predict"]["reference"] + PREDICT_SLACK
        )
    ]
    print(f"predict goal missed on {len(slow_predicts)} of {len(rows)} pairs: {slow_predicts}")
    unreliable = [(row["table"], row["family"]) for row in rows if not row["reliable"]]
    print(f"unreliable (load above {MAX_LOAD} after {MAX_REPEATS} attempts): {unreliable}")

    if args.json is not None:
        import subprocess

        import catboost
        import lightgbm
        import sklearn
        import xgboost

        import mltrees

        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        document = {
            "script": "benchmarks/bench_small.py",
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform()},
            "versions": {
                "python": sys.version.split()[0],
                "numpy": np.__version__,
                "scikit-learn": sklearn.__version__,
                "xgboost": xgboost.__version__,
                "lightgbm": lightgbm.__version__,
                "catboost": catboost.__version__,
                "mltrees": mltrees.__version__,
                "mltrees_commit": commit or "unknown",
            },
            "protocol": {
                "threads": 1,
                "fits": args.fits,
                "predicts": args.predicts,
                "max_load": MAX_LOAD,
                "max_repeats": MAX_REPEATS,
                "judged_from_s": JUDGED_FROM,
            },
            "rows": rows,
            "summary": summary,
            "slow_predicts": slow_predicts,
            "unreliable": unreliable,
        }
        args.json.write_text(json.dumps(document, indent=1, default=float) + "\n")
    return 1 if failed or slow_predicts else 0


if __name__ == "__main__":
    sys.exit(main())
