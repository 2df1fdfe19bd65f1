"""Ensembles of trees: bagging and random forests (part III), boosting (part IV).

Every ensemble grows its trees with the single-tree engine of ``mltrees.tree``
and bins the data once for all of them.
"""

from mltrees.ensemble.adaboost import AdaBoostClassifier
from mltrees.ensemble.bagging import BaggingClassifier, BaggingRegressor
from mltrees.ensemble.forest import RandomForestClassifier, RandomForestRegressor
from mltrees.ensemble.gradient_boosting import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
)
from mltrees.ensemble.lightgbm import LightGBMClassifier, LightGBMRegressor
from mltrees.ensemble.xgboost import XGBoostClassifier, XGBoostRegressor

__all__: list[str] = [
    "AdaBoostClassifier",
    "BaggingClassifier",
    "BaggingRegressor",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "LightGBMClassifier",
    "LightGBMRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "XGBoostClassifier",
    "XGBoostRegressor",
]
