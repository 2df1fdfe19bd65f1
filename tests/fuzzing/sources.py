"""The files the fuzzer damages: one small model of every kind, and its probe rows.

Every model is fitted on the penguins table (344 rows: numbers with missing
values, two categorical columns), or on a slice of it, so that its file is
small and loads in milliseconds. ``probe`` holds the rows a loaded model must
predict (with their missing values and categories).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

import mltrees
from mltrees.datasets import load_penguins
from mltrees.ensemble.logitboost import LogitBoostClassifier
from mltrees.incremental import ID4Classifier


@dataclass
class Source:
    name: str
    kind: str  # "mltrees", "xgboost", "lightgbm" or "catboost"
    payload: str  # the file's text
    probe: object  # rows to predict (DataFrame or ndarray)


def _penguins():
    X, y = load_penguins(return_X_y=True)
    numeric = X.select_dtypes("number")
    filled = numeric.fillna(numeric.median())
    coded = X.copy()
    for column in ("island", "sex"):
        codes = coded[column].cat.codes
        coded[column] = codes.astype(float).where(codes >= 0)
    return {
        "X": X,
        "numeric": numeric,
        "filled": filled,
        "coded": coded,
        "y": y,
        "codes": pd.Categorical(y).codes,
        "binary": (y == "Adelie").to_numpy(),
        "mass": filled["body_mass_g"].to_numpy(),
        "X_mass": X.drop(columns="body_mass_g"),
        "numeric_mass": numeric.drop(columns="body_mass_g"),
        "filled_mass": filled.drop(columns="body_mass_g"),
        "X_known": X.assign(sex=X["sex"].astype(object).where(X["sex"].notna(), "unknown")),
        "categorical": X[["island", "sex"]].dropna(),
    }


# name -> (estimator factory, input key, target key): every saveable kind, with
# the options that change what its file holds.
MLTREES_MODELS = {
    "id3": (lambda: mltrees.ID3Classifier(missing="c45"), "X_cat", "y"),
    "c45": (lambda: mltrees.C45Classifier(), "X", "y"),
    "cart-default": (
        lambda: mltrees.CARTClassifier(missing="default_direction", max_depth=4),
        "X",
        "y",
    ),
    "cart-surrogate": (
        lambda: mltrees.CARTRegressor(missing="surrogate", max_depth=4),
        "numeric_mass",
        "mass",
    ),
    "rules": (lambda: mltrees.RuleSetClassifier(), "X", "y"),
    "bagging": (
        lambda: mltrees.BaggingRegressor(n_estimators=3, max_features=0.7, random_state=0),
        "filled_mass",
        "mass",
    ),
    "forest": (
        lambda: mltrees.RandomForestClassifier(
            n_estimators=3, max_depth=4, random_state=0, missing="c45"
        ),
        "X",
        "y",
    ),
    "adaboost": (
        lambda: mltrees.AdaBoostClassifier(n_estimators=4, random_state=0),
        "filled",
        "y",
    ),
    "gradient-boosting": (
        lambda: mltrees.GradientBoostingClassifier(n_estimators=3, max_depth=2),
        "filled",
        "y",
    ),
    "gradient-boosting-reg": (
        lambda: mltrees.GradientBoostingRegressor(n_estimators=3, max_depth=2),
        "filled_mass",
        "mass",
    ),
    "xgboost": (
        lambda: mltrees.XGBoostClassifier(n_estimators=3, max_depth=3),
        "numeric",
        "y",
    ),
    "lightgbm": (
        lambda: mltrees.LightGBMClassifier(n_estimators=3, num_leaves=6),
        "X",
        "binary",
    ),
    "oblivious": (
        lambda: mltrees.ObliviousBoostingClassifier(n_estimators=3, depth=2),
        "X_known",
        "binary",
    ),
    "oblique": (
        lambda: mltrees.ObliqueTreeRegressor(max_depth=3, random_state=0),
        "filled_mass",
        "mass",
    ),
    "logitboost": (lambda: LogitBoostClassifier(n_estimators=3), "filled", "binary"),
    "hoeffding": (
        lambda: mltrees.HoeffdingTreeClassifier(grace_period=30),
        "shuffled",
        "y_shuffled",
    ),
    "id5r": (lambda: mltrees.ID5RClassifier(), "categorical", "y_categorical"),
    "id4": (lambda: ID4Classifier(), "categorical", "y_categorical"),
    "stacking": (
        lambda: mltrees.StackingClassifier(
            [
                ("tree", mltrees.CARTClassifier(max_depth=2)),
                ("boosted", mltrees.XGBoostClassifier(n_estimators=2, max_depth=2)),
            ],
            cv=3,
        ),
        "filled",
        "y",
    ),
    "blending": (
        lambda: mltrees.BlendingRegressor(
            [
                ("tree", mltrees.CARTRegressor(max_depth=2)),
                (
                    "forest",
                    mltrees.RandomForestRegressor(n_estimators=2, max_depth=2, random_state=0),
                ),
            ],
            passthrough=True,
            random_state=0,
        ),
        "filled_mass",
        "mass",
    ),
}


def mltrees_sources() -> list[Source]:
    data = _penguins()
    data["X_cat"] = data["X"][["island", "sex"]]
    order = np.random.default_rng(0).permutation(len(data["y"]))  # streams see every class early
    data["shuffled"] = data["filled"].iloc[order].reset_index(drop=True)
    data["y_shuffled"] = data["y"].iloc[order].reset_index(drop=True)
    known = data["X"]["sex"].notna().to_numpy()
    data["y_categorical"] = data["y"][known].reset_index(drop=True)
    data["categorical"] = data["categorical"].reset_index(drop=True)
    out = []
    for name, (make, x_key, y_key) in MLTREES_MODELS.items():
        X, y = data[x_key], data[y_key]
        model = make().fit(X, y)
        out.append(Source(name, "mltrees", mltrees.to_json(model), X.iloc[:40]))
    # A model imported from LightGBM (categorical bitsets), saved as an mltrees file.
    try:
        import lightgbm as lgb
    except ImportError:
        return out

    coded = data["coded"].to_numpy()
    booster = lgb.train(
        {
            "objective": "multiclass",
            "num_class": 3,
            "num_leaves": 6,
            "min_data_in_leaf": 5,
            "min_data_per_group": 5,
            "verbose": -1,
            "num_threads": 1,
            "seed": 0,
        },
        lgb.Dataset(coded, label=data["codes"], categorical_feature=[0, 5]),
        3,
    )
    imported = mltrees.import_lightgbm(booster.model_to_string())
    out.append(Source("imported", "mltrees", mltrees.to_json(imported), coded[:40]))
    return out


def xgboost_sources() -> list[Source]:
    import xgboost as xgb

    data = _penguins()
    out = []
    numeric = data["numeric"].to_numpy()
    for name, params, X, y in (
        ("xgb-binary", {"objective": "binary:logistic"}, numeric, data["binary"]),
        (
            "xgb-multiclass",
            {"objective": "multi:softprob", "num_class": 3},
            numeric,
            data["codes"],
        ),
        ("xgb-poisson", {"objective": "count:poisson"}, numeric[:, :3], data["mass"] / 1000),
    ):
        booster = xgb.train(
            {"max_depth": 3, "nthread": 1, "seed": 0, **params},
            xgb.DMatrix(X, label=y),
            4,
        )
        text = bytes(booster.save_raw("json")).decode("utf-8")
        out.append(Source(name, "xgboost", text, X[:40]))
    X = data["X"]
    booster = xgb.train(
        {
            "objective": "multi:softprob",
            "num_class": 3,
            "max_depth": 3,
            "nthread": 1,
            "max_cat_to_onehot": 1,
        },
        xgb.DMatrix(X, label=data["codes"], enable_categorical=True),
        3,
    )
    text = bytes(booster.save_raw("json")).decode("utf-8")
    out.append(Source("xgb-categorical", "xgboost", text, data["coded"].to_numpy()[:40]))
    return out


def lightgbm_sources() -> list[Source]:
    import lightgbm as lgb

    data = _penguins()
    base = {"verbose": -1, "num_leaves": 6, "seed": 0, "num_threads": 1, "min_data_in_leaf": 5}
    coded = data["coded"].to_numpy()
    out = []
    for name, params, X, y, extra in (
        ("lgb-binary", {"objective": "binary"}, data["numeric"].to_numpy(), data["binary"], {}),
        (
            "lgb-multiclass",
            {"objective": "multiclass", "num_class": 3, "min_data_per_group": 5},
            coded,
            data["codes"],
            {"categorical_feature": [0, 5]},
        ),
        (
            "lgb-zero",
            {"objective": "regression", "zero_as_missing": True},
            data["filled_mass"].to_numpy() - data["filled_mass"].to_numpy().mean(axis=0),
            data["mass"],
            {},
        ),
    ):
        booster = lgb.train({**base, **params}, lgb.Dataset(X, label=y, **extra), 4)
        out.append(Source(name, "lightgbm", booster.model_to_string(), X[:40]))
    return out


def catboost_sources() -> list[Source]:
    import json
    import os
    import tempfile

    import catboost as cb

    data = _penguins()
    numeric = data["numeric"].to_numpy()
    out = []
    for name, make, y in (
        (
            "cb-regression",
            lambda: cb.CatBoostRegressor(iterations=4, depth=3, nan_mode="Max"),
            data["mass"],
        ),
        ("cb-binary", lambda: cb.CatBoostClassifier(iterations=4, depth=2), data["binary"]),
        (
            "cb-multiclass-depthwise",
            lambda: cb.CatBoostClassifier(
                iterations=3, depth=3, grow_policy="Depthwise", loss_function="MultiClass"
            ),
            data["codes"],
        ),
    ):
        model = make()
        model.set_params(verbose=0, random_seed=0, thread_count=1, allow_writing_files=False)
        model.fit(numeric, y)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.json")
            model.save_model(path, format="json")
            with open(path, encoding="utf-8") as handle:
                text = json.dumps(json.load(handle))  # one line: smaller, same content
        out.append(Source(name, "catboost", text, numeric[:40]))
    return out


def all_sources(kinds=("mltrees", "xgboost", "lightgbm", "catboost")) -> list[Source]:
    builders = {
        "mltrees": mltrees_sources,
        "xgboost": xgboost_sources,
        "lightgbm": lightgbm_sources,
        "catboost": catboost_sources,
    }
    return [source for kind in kinds for source in builders[kind]()]
