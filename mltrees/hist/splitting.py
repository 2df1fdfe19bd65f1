"""Deprecated: moved to :mod:`mltrees.hist.xgboost.splitting`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.xgboost.splitting")
