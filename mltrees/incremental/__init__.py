"""Incremental and online trees: ID5R (exact incremental ID3) and the Hoeffding tree."""

from mltrees.incremental.id5r import ID5RClassifier

__all__ = ["ID5RClassifier"]
