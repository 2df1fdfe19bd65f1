"""Deprecated: moved to :mod:`mltrees.hist.xgboost.cuts`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.xgboost.cuts")
