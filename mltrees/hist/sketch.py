"""Deprecated: moved to :mod:`mltrees.hist.xgboost.quantile_summary`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.xgboost.quantile_summary")
