"""Deprecated: moved to :mod:`mltrees.hist.lightgbm.bundling`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.lightgbm.bundling")
