"""Explaining tree models: SHAP values, feature importances, partial dependence (chapter 17).

* :func:`tree_shap`: exact SHAP values of every axis-aligned mltrees tree model
  (path-dependent or interventional), :mod:`~mltrees.inspection.treeshap`;
* :func:`tree_shap_interactions`: their SHAP interaction values,
  :mod:`~mltrees.inspection.interactions`;
* :func:`brute_force_shap`, :func:`shapley_values`: the exponential definition,
  :mod:`~mltrees.inspection.shapley`;
* :func:`to_shap_trees`: the model in ``shap``'s custom-tree format,
  :mod:`~mltrees.inspection.shap_trees`;
* :func:`saabas`: Saabas's path attributions, for comparison,
  :mod:`~mltrees.inspection.saabas`;
* :func:`importance`, :func:`permutation_importance`: split counts, gain, cover,
  permutation, :mod:`~mltrees.inspection.importance`;
* :func:`partial_dependence`, :func:`ice_curves`, :func:`tree_partial_dependence`,
  :func:`accumulated_local_effects`;
* plots with matplotlib only: :func:`summary_plot`, :func:`dependence_plot`,
  :func:`plot_partial_dependence`, :func:`plot_importance`.

Every explainer reads a model through its :class:`TreeModelView`
(:mod:`mltrees.tree.view`), which :func:`view_of` asks of the model: each
estimator writes its own in a ``_tree_model_view()`` method. A new model type
is explained by implementing that method, or, for a class one cannot edit,
by registering an adapter function with :func:`register_adapter`.
"""

from mltrees.inspection.importance import importance, node_gains, permutation_importance
from mltrees.inspection.interactions import (
    InteractionExplanation,
    interaction_weights,
    tree_shap_interactions,
)
from mltrees.inspection.partial_dependence import (
    accumulated_local_effects,
    ice_curves,
    partial_dependence,
    tree_partial_dependence,
)
from mltrees.inspection.plots import (
    dependence_plot,
    plot_importance,
    plot_partial_dependence,
    summary_plot,
)
from mltrees.inspection.saabas import saabas
from mltrees.inspection.shap_trees import to_shap_trees
from mltrees.inspection.shapley import (
    brute_force_shap,
    brute_force_shap_interactions,
    interventional_value,
    path_dependent_value,
    shapley_interaction_values,
    shapley_values,
    shapley_weight,
)
from mltrees.inspection.treeshap import (
    Explanation,
    expected_value,
    path_weights,
    path_weights_integral,
    tree_shap,
)
from mltrees.tree.view import TreeModelView, register_adapter, view_of

__all__ = [
    "Explanation",
    "InteractionExplanation",
    "TreeModelView",
    "accumulated_local_effects",
    "brute_force_shap",
    "brute_force_shap_interactions",
    "dependence_plot",
    "expected_value",
    "ice_curves",
    "importance",
    "interaction_weights",
    "interventional_value",
    "node_gains",
    "partial_dependence",
    "path_dependent_value",
    "path_weights",
    "path_weights_integral",
    "permutation_importance",
    "plot_importance",
    "plot_partial_dependence",
    "register_adapter",
    "saabas",
    "shapley_interaction_values",
    "shapley_values",
    "shapley_weight",
    "summary_plot",
    "to_shap_trees",
    "tree_partial_dependence",
    "tree_shap",
    "tree_shap_interactions",
    "view_of",
]

# help() shows plain text; the website's Sphinx hook turns it back into links.
from mltrees._docstrings import plain_docstrings as _plain_docstrings

_plain_docstrings()
