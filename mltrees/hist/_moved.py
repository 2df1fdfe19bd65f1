"""Old import paths of the modules that moved into the per-library folders.

Each library's rules moved into a folder of its own (``mltrees.hist.xgboost``,
``mltrees.hist.lightgbm``, ``mltrees.hist.catboost``). The old module paths
stay importable for a deprecation period: each is a two-line module calling
:func:`alias`, which warns and makes the old name the new module itself, so
that code, pickles and ``isinstance`` checks written against the old path
keep working.
"""

from __future__ import annotations

import importlib
import sys
import warnings

__all__ = ["MOVED", "alias"]

#: old module name in ``mltrees.hist`` -> its new path under ``mltrees.hist``
MOVED = {
    "xgboost_sketch": "xgboost.cuts",
    "sketch": "xgboost.quantile_summary",
    "splitting": "xgboost.splitting",
    "exact": "xgboost.exact",
    "exact_columns": "xgboost.exact_columns",
    "exact_scan": "xgboost.exact_scan",
    "exact_workers": "xgboost.exact_workers",
    "lightgbm_binning": "lightgbm.binning",
    "leafwise": "lightgbm.leafwise",
    "leafwise_splitting": "lightgbm.splitting",
    "goss": "lightgbm.goss",
    "bundling": "lightgbm.bundling",
    "categorical": "lightgbm.categorical",
    "oblivious": "catboost.oblivious",
    "oblivious_binning": "catboost.borders",
    "oblivious_ctr": "catboost.ctr",
    "oblivious_leaves": "catboost.leaves",
}


def alias(old: str, new: str) -> None:
    """Make module ``old`` the module ``new``, with a ``DeprecationWarning``."""
    warnings.warn(
        f"{old} moved to {new}; import it from there (the old path will be removed)",
        DeprecationWarning,
        stacklevel=3,
    )
    sys.modules[old] = importlib.import_module(new)
