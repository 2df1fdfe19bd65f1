"""Deprecated: moved to :mod:`mltrees.hist.lightgbm.leafwise`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.lightgbm.leafwise")
