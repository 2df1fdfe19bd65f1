"""Deprecated: moved to :mod:`mltrees.hist.lightgbm.goss`."""

from mltrees.hist._moved import alias

alias(__name__, "mltrees.hist.lightgbm.goss")
