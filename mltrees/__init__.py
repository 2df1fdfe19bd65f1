"""mltrees: tree models, derived.

The package that accompanies the book *Tree Models, Derived*. Every public
function names the book equation it implements; the chapters import this
package and never keep private copies of an algorithm.

``import mltrees`` is cheap: it loads no estimator, and none of
scikit-learn, pandas, SciPy, matplotlib or Dask. The names below are loaded
on first use (PEP 562), so ``mltrees.CARTClassifier`` and
``from mltrees import CARTClassifier`` import the tree estimators then, and
``mltrees.entropy`` only the information measures.
"""

import importlib
import pkgutil

__version__ = "0.2.0"

# Public name -> the module that defines it, imported on first access.
_LAZY = {
    "ColumnTypeError": "mltrees._frames",
    "MixedColumnWarning": "mltrees._frames",
    "gini": "mltrees.criteria",
    "misclassification_error": "mltrees.criteria",
    "AdaBoostClassifier": "mltrees.ensemble",
    "BaggingClassifier": "mltrees.ensemble",
    "BaggingRegressor": "mltrees.ensemble",
    "BlendingClassifier": "mltrees.ensemble",
    "BlendingRegressor": "mltrees.ensemble",
    "GradientBoostingClassifier": "mltrees.ensemble",
    "GradientBoostingRegressor": "mltrees.ensemble",
    "LightGBMClassifier": "mltrees.ensemble",
    "LightGBMRegressor": "mltrees.ensemble",
    "ObliviousBoostingClassifier": "mltrees.ensemble",
    "ObliviousBoostingRegressor": "mltrees.ensemble",
    "RandomForestClassifier": "mltrees.ensemble",
    "RandomForestRegressor": "mltrees.ensemble",
    "StackingClassifier": "mltrees.ensemble",
    "StackingRegressor": "mltrees.ensemble",
    "XGBoostClassifier": "mltrees.ensemble",
    "XGBoostRegressor": "mltrees.ensemble",
    "HoeffdingTreeClassifier": "mltrees.incremental",
    "ID5RClassifier": "mltrees.incremental",
    "hoeffding_bound": "mltrees.incremental",
    "conditional_entropy": "mltrees.information",
    "contingency_table": "mltrees.information",
    "empirical_entropy": "mltrees.information",
    "entropy": "mltrees.information",
    "joint_entropy": "mltrees.information",
    "kl_divergence": "mltrees.information",
    "mutual_information": "mltrees.information",
    "ImportedTreeModel": "mltrees.io",
    "ModelFormatError": "mltrees.io",
    "from_json": "mltrees.io",
    "import_catboost": "mltrees.io",
    "import_lightgbm": "mltrees.io",
    "import_xgboost": "mltrees.io",
    "load_model": "mltrees.io",
    "save_model": "mltrees.io",
    "to_json": "mltrees.io",
    "OrderedBoostingResult": "mltrees.target_statistics",
    "TargetStatisticTable": "mltrees.target_statistics",
    "greedy_target_statistic": "mltrees.target_statistics",
    "holdout_target_statistic": "mltrees.target_statistics",
    "leave_one_out_target_statistic": "mltrees.target_statistics",
    "ordered_boosting": "mltrees.target_statistics",
    "ordered_statistic_mean_gap": "mltrees.target_statistics",
    "ordered_target_statistic": "mltrees.target_statistics",
    "stump_boosting_shift": "mltrees.target_statistics",
    "target_statistic_table": "mltrees.target_statistics",
    "C45Classifier": "mltrees.tree",
    "CARTClassifier": "mltrees.tree",
    "CARTRegressor": "mltrees.tree",
    "DecisionTreeClassifier": "mltrees.tree",
    "DecisionTreeRegressor": "mltrees.tree",
    "ID3Classifier": "mltrees.tree",
    "ObliqueTreeClassifier": "mltrees.tree",
    "ObliqueTreeRegressor": "mltrees.tree",
    "RuleSetClassifier": "mltrees.tree",
    "export_text": "mltrees.tree",
    "extract_rules": "mltrees.tree",
    "plot_tree": "mltrees.tree",
    "prune_reduced_error": "mltrees.tree",
    "to_dot": "mltrees.tree",
}

# Modules of the package that are also attributes of it once imported.
_SUBMODULES = frozenset(info.name for info in pkgutil.iter_modules(__path__))


def __getattr__(name: str):
    """Import a public name, or a submodule, on first access (PEP 562)."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later accesses skip __getattr__
    # help() shows plain text; the website's Sphinx hook turns it back into links.
    from mltrees._docstrings import plain_docstrings

    plain_docstrings()
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "AdaBoostClassifier",
    "BaggingClassifier",
    "BaggingRegressor",
    "BlendingClassifier",
    "BlendingRegressor",
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
    "ColumnTypeError",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "HoeffdingTreeClassifier",
    "ID3Classifier",
    "ID5RClassifier",
    "ImportedTreeModel",
    "LightGBMClassifier",
    "LightGBMRegressor",
    "MixedColumnWarning",
    "ModelFormatError",
    "ObliqueTreeClassifier",
    "ObliqueTreeRegressor",
    "ObliviousBoostingClassifier",
    "ObliviousBoostingRegressor",
    "OrderedBoostingResult",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "RuleSetClassifier",
    "StackingClassifier",
    "StackingRegressor",
    "TargetStatisticTable",
    "XGBoostClassifier",
    "XGBoostRegressor",
    "__version__",
    "conditional_entropy",
    "contingency_table",
    "empirical_entropy",
    "entropy",
    "export_text",
    "extract_rules",
    "from_json",
    "gini",
    "greedy_target_statistic",
    "hoeffding_bound",
    "holdout_target_statistic",
    "import_catboost",
    "import_lightgbm",
    "import_xgboost",
    "inspection",
    "joint_entropy",
    "kl_divergence",
    "leave_one_out_target_statistic",
    "load_model",
    "losses",
    "misclassification_error",
    "mutual_information",
    "ordered_boosting",
    "ordered_statistic_mean_gap",
    "ordered_target_statistic",
    "plot_tree",
    "prune_reduced_error",
    "save_model",
    "stump_boosting_shift",
    "target_statistic_table",
    "to_dot",
    "to_json",
]
