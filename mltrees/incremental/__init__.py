"""Incremental and online trees: ID5R (exact incremental ID3) and the Hoeffding tree."""

from mltrees.incremental.hoeffding import HoeffdingTreeClassifier, hoeffding_bound
from mltrees.incremental.id5r import ID4Classifier, ID5RClassifier, id3_choice

__all__ = [
    "HoeffdingTreeClassifier",
    "ID4Classifier",
    "ID5RClassifier",
    "hoeffding_bound",
    "id3_choice",
]
