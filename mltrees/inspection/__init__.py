"""Explaining tree models: SHAP values, feature importances, partial dependence (chapter 17)."""

from mltrees.inspection._adapters import TreeModelView, register_adapter, view_of
from mltrees.inspection.shapley import (
    brute_force_shap,
    interventional_value,
    path_dependent_value,
    shapley_values,
    shapley_weight,
)
from mltrees.inspection.treeshap import Explanation, expected_value, path_weights, tree_shap

__all__ = [
    "Explanation",
    "TreeModelView",
    "brute_force_shap",
    "expected_value",
    "interventional_value",
    "path_dependent_value",
    "path_weights",
    "register_adapter",
    "shapley_values",
    "shapley_weight",
    "tree_shap",
    "view_of",
]
