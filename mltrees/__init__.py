"""mltrees: tree models, derived.

The package that accompanies the book *Tree Models, Derived*. Every public
function names the book equation it implements; the chapters import this
package and never keep private copies of an algorithm.
"""

from mltrees import inspection, losses
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
    import_lightgbm,
    import_xgboost,
    load_model,
    save_model,
    to_json,
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

__version__ = "0.1.0"

__all__ = [
    "AdaBoostClassifier",
    "BaggingClassifier",
    "BaggingRegressor",
    "BlendingClassifier",
    "BlendingRegressor",
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
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
    "ModelFormatError",
    "ObliqueTreeClassifier",
    "ObliqueTreeRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "RuleSetClassifier",
    "StackingClassifier",
    "StackingRegressor",
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
    "hoeffding_bound",
    "import_lightgbm",
    "import_xgboost",
    "inspection",
    "joint_entropy",
    "kl_divergence",
    "load_model",
    "losses",
    "misclassification_error",
    "mutual_information",
    "plot_tree",
    "prune_reduced_error",
    "save_model",
    "to_dot",
    "to_json",
]
