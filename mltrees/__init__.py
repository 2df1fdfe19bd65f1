"""mltrees: tree models, derived.

The package that accompanies the book *Tree Models, Derived*. Every public
function names the book equation it implements; the chapters import this
package and never keep private copies of an algorithm.
"""

from mltrees import inspection, losses
from mltrees._frames import ColumnTypeError, MixedColumnWarning
from mltrees.criteria import gini, misclassification_error
from mltrees.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    BlendingClassifier,
    BlendingRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    LightGBMClassifier,
    LightGBMRegressor,
    ObliviousBoostingClassifier,
    ObliviousBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    StackingClassifier,
    StackingRegressor,
    XGBoostClassifier,
    XGBoostRegressor,
)
from mltrees.incremental import HoeffdingTreeClassifier, ID5RClassifier, hoeffding_bound
from mltrees.information import (
    conditional_entropy,
    contingency_table,
    empirical_entropy,
    entropy,
    joint_entropy,
    kl_divergence,
    mutual_information,
)
from mltrees.io import (
    ImportedTreeModel,
    ModelFormatError,
    from_json,
    import_catboost,
    import_lightgbm,
    import_xgboost,
    load_model,
    save_model,
    to_json,
)
from mltrees.target_statistics import (
    OrderedBoostingResult,
    TargetStatisticTable,
    greedy_target_statistic,
    holdout_target_statistic,
    leave_one_out_target_statistic,
    ordered_boosting,
    ordered_statistic_mean_gap,
    ordered_target_statistic,
    stump_boosting_shift,
    target_statistic_table,
)
from mltrees.tree import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
    ObliqueTreeClassifier,
    ObliqueTreeRegressor,
    RuleSetClassifier,
    export_text,
    extract_rules,
    plot_tree,
    prune_reduced_error,
    to_dot,
)

__version__ = "0.2.0"

# help() shows plain text; the website's Sphinx hook turns it back into links.
from mltrees._docstrings import plain_docstrings

plain_docstrings()

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
