"""Single decision trees: ID3, C4.5 and CART on one growth engine (chapters 2-4).

:class:`Tree` is the flat-array tree that every estimator of the package
stores (``tree_`` of a single tree; the members and rounds of the ensembles).
"""

from mltrees.tree._surrogate import association as surrogate_association
from mltrees.tree._tree import Tree
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
    "Tree",
    "TreeBuilder",
    "export_text",
    "extract_rules",
    "plot_tree",
    "prune_reduced_error",
    "root_split_gains",
    "surrogate_association",
    "to_dot",
]

# help() shows plain text; the website's Sphinx hook turns it back into links.
from mltrees._docstrings import plain_docstrings as _plain_docstrings

_plain_docstrings()
