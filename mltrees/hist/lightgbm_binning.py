"""Deprecated: moved to :mod:`mltrees.hist.lightgbm.binning`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.lightgbm.binning")
