"""mltrees: tree models, derived.

The package that accompanies the book *Tree Models, Derived*. Every public
function names the book equation it implements; the chapters import this
package and never keep private copies of an algorithm.
"""

from mltrees.criteria import gini, misclassification_error
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
    export_text,
    plot_tree,
    to_dot,
)

__version__ = "0.1.0"

__all__ = [
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
    "__version__",
    "conditional_entropy",
    "contingency_table",
    "empirical_entropy",
    "entropy",
    "export_text",
    "gini",
    "joint_entropy",
    "kl_divergence",
    "misclassification_error",
    "mutual_information",
    "plot_tree",
    "to_dot",
]
