"""Deprecated: moved to :mod:`mltrees.hist.catboost.leaves`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.catboost.leaves")
