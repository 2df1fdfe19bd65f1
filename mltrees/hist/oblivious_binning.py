"""Deprecated: moved to :mod:`mltrees.hist.catboost.borders`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.catboost.borders")
