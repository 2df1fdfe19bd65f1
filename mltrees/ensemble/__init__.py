"""Ensembles: bagging, random forests, boosting; stacking and blending (parts III-V).

Bagging, random forests, AdaBoost, LogitBoost and gradient boosting grow their
trees with the single-tree engine of :mod:`mltrees.tree` (through
:class:`~mltrees.tree.TreeBuilder`) and bin the data once for all of them;
gradient boosting can also grow on histograms. XGBoost, LightGBM and
oblivious boosting (CatBoost's algorithm) grow on gradient histograms with
the learners of :mod:`mltrees.hist`. Every estimator writes its own view for
the explainers and its own model-file hooks (``ARCHITECTURE.md``).
"""

from mltrees.ensemble.adaboost import AdaBoostClassifier
from mltrees.ensemble.bagging import BaggingClassifier, BaggingRegressor
from mltrees.ensemble.catboost import ObliviousBoostingClassifier, ObliviousBoostingRegressor
from mltrees.ensemble.forest import RandomForestClassifier, RandomForestRegressor
from mltrees.ensemble.gradient_boosting import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
)
from mltrees.ensemble.lightgbm import LightGBMClassifier, LightGBMRegressor
from mltrees.ensemble.stacking import (
    BlendingClassifier,
    BlendingRegressor,
    FoldAverage,
    StackingClassifier,
    StackingRegressor,
)
from mltrees.ensemble.xgboost import XGBoostClassifier, XGBoostRegressor

__all__: list[str] = [
    "AdaBoostClassifier",
    "BaggingClassifier",
    "BaggingRegressor",
    "BlendingClassifier",
    "BlendingRegressor",
    "FoldAverage",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "LightGBMClassifier",
    "LightGBMRegressor",
    "ObliviousBoostingClassifier",
    "ObliviousBoostingRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "StackingClassifier",
    "StackingRegressor",
    "XGBoostClassifier",
    "XGBoostRegressor",
]

# help() shows plain text; the website's Sphinx hook turns it back into links.
from mltrees._docstrings import plain_docstrings as _plain_docstrings

_plain_docstrings()
