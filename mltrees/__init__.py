"""mltrees: tree models, derived.

The package that accompanies the book *Tree Models, Derived*. Every public
function names the book equation it implements; the chapters import this
package and never keep private copies of an algorithm.
"""

from mltrees import losses
from mltrees.criteria import gini, misclassification_error
from mltrees.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
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
from mltrees.tree import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
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
    "RandomForestClassifier",
    "RandomForestRegressor",
    "RuleSetClassifier",
    "XGBoostClassifier",
    "XGBoostRegressor",
    "__version__",
    "conditional_entropy",
    "contingency_table",
    "empirical_entropy",
    "entropy",
    "export_text",
    "extract_rules",
    "gini",
    "hoeffding_bound",
    "joint_entropy",
    "kl_divergence",
    "losses",
    "misclassification_error",
    "mutual_information",
    "plot_tree",
    "prune_reduced_error",
    "to_dot",
]
