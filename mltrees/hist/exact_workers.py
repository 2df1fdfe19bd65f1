"""Deprecated: moved to :mod:`mltrees.hist.xgboost.exact_workers`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.xgboost.exact_workers")
