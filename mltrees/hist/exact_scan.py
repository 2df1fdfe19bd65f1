"""Deprecated: moved to :mod:`mltrees.hist.xgboost.exact_scan`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.xgboost.exact_scan")
