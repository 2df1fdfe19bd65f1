"""Deprecated: moved to :mod:`mltrees.hist.xgboost.exact`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.xgboost.exact")
