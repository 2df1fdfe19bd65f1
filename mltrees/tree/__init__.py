"""Single decision trees: ID3, C4.5 and CART on one growth engine (chapters 2-4)."""

from mltrees.tree._surrogate import association as surrogate_association
from mltrees.tree.builder import TreeBuilder
from mltrees.tree.classes import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)
from mltrees.tree.export import export_text, plot_tree, to_dot
from mltrees.tree.oblique import ObliqueTreeClassifier, ObliqueTreeRegressor
from mltrees.tree.pruning import prune_reduced_error
from mltrees.tree.root_gains import root_split_gains
from mltrees.tree.rules import RuleSetClassifier, extract_rules

__all__ = [
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
    "ObliqueTreeClassifier",
    "ObliqueTreeRegressor",
    "RuleSetClassifier",
    "TreeBuilder",
    "export_text",
    "extract_rules",
    "plot_tree",
    "prune_reduced_error",
    "root_split_gains",
    "surrogate_association",
    "to_dot",
]
