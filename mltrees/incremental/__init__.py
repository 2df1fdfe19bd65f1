"""Incremental and online trees: ID5R (exact incremental ID3) and the Hoeffding tree."""

from mltrees.incremental.hoeffding import (
    HoeffdingTreeClassifier,
    anytime_delta,
    hoeffding_bound,
    tie_examples,
)
from mltrees.incremental.id5r import ID4Classifier, ID5RClassifier, id3_choice

__all__ = [
    "HoeffdingTreeClassifier",
    "ID4Classifier",
    "ID5RClassifier",
    "anytime_delta",
    "hoeffding_bound",
    "id3_choice",
    "tie_examples",
]

# help() shows plain text; the website's Sphinx hook turns it back into links.
from mltrees._docstrings import plain_docstrings as _plain_docstrings

_plain_docstrings()
