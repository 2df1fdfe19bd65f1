"""Single decision trees: ID3, C4.5 and CART on one growth engine (chapters 2-4)."""

from mltrees.tree.classes import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)
from mltrees.tree.export import export_text, plot_tree, to_dot

__all__ = [
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
    "export_text",
    "plot_tree",
    "to_dot",
]
