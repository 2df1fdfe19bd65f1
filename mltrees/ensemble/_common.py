"""Pieces shared by the ensembles (chapters 9-12), and where the others live.

This module holds the parameter checks. The rest is in files named
after what they do, and re-exported here for the modules that import it from
this one:

* :mod:`mltrees.ensemble._walk` -- the stacked walk that predicts with many
  trees at once (:class:`StackedTrees`);
* :mod:`mltrees.ensemble._rows` -- rows and codes
  (:func:`node_of_codes`, :func:`prediction_values`, ...);
* :mod:`mltrees.hist.boosting` -- the boosting loop's progress and early
  stopping (:func:`watch_round`);
* :mod:`mltrees._validation` -- the targets (:func:`class_codes`,
  :func:`real_targets`), shared with the single trees.
"""

from __future__ import annotations

import numbers

import numpy as np

from mltrees._validation import check_int, class_codes, real_targets
from mltrees.ensemble._rows import (
    _split_codes,
    node_of_codes,
    prediction_values,
    raw_importances,
    select_rows,
    take_rows,
)
from mltrees.ensemble._walk import (
    CODES_BUILD_COST,
    CODES_PAY,
    MIN_ROWS_PER_THREAD,
    NODES_PER_GROUP,
    PAIRS_PER_BLOCK,
    StackedTrees,
    _Thresholds,
    threads_for_rows,
)
from mltrees.hist.boosting import watch_round
from mltrees.tree._tree import available_cores

# The ensembles' name for the one int checker (imported from here by the boosting modules).
check_positive_int = check_int

__all__ = [
    "CODES_BUILD_COST",
    "CODES_PAY",
    "MIN_ROWS_PER_THREAD",
    "NODES_PER_GROUP",
    "PAIRS_PER_BLOCK",
    "StackedTrees",
    "_Thresholds",
    "_split_codes",
    "available_cores",
    "check_fraction",
    "check_positive_int",
    "class_codes",
    "library_rng",
    "node_of_codes",
    "prediction_values",
    "raw_importances",
    "real_targets",
    "select_rows",
    "take_rows",
    "threads_for_rows",
    "watch_round",
]


def library_rng(random_state) -> np.random.Generator:
    """The generator of a model that mirrors XGBoost, LightGBM or CatBoost.

    Those libraries seed their draws with fixed defaults, so fitting twice
    gives the same model; ``random_state=None`` is therefore seed 0 here,
    not fresh entropy (scikit-learn's convention, kept by the other ensembles).
    """
    return np.random.default_rng(0 if random_state is None else random_state)


def check_fraction(value, name: str, *, low_open=True, high_closed=True, low=0.0, high=1.0):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (
            value <= high if high_closed else value < high
        )
    if not ok:
        left = "(" if low_open else "["
        right = "]" if high_closed else ")"
        raise ValueError(f"{name} must be a float in {left}{low}, {high}{right}, got {value!r}")


def check_score_bound(bound, base, learning_rate) -> None:
    """Refuse a boosted model whose raw scores can overflow.

    ``bound`` is a data-free bound on the trees' summed contribution per
    output (``StackedTrees.score_bound``: each tree's largest ``|leaf|``,
    summed) and ``base`` the starting score. If ``|base| + bound`` is not a
    finite float64, some input can make the raw score infinite or NaN, and
    a huge ``learning_rate`` is the way a valid parameter gets there (each
    leaf is scaled by it, and the training scores overflow first). A model
    that would predict NaN is refused at fit rather than returned.

    Raises
    ------
    ValueError
        Naming ``learning_rate`` and its value.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.abs(np.asarray(base, dtype=np.float64)) + np.asarray(bound, dtype=np.float64)
    if not np.all(np.isfinite(total)):
        raise ValueError(
            f"learning_rate={learning_rate!r} makes the raw scores overflow: the trees' leaf "
            "values sum beyond the float64 range (or are NaN), so predictions would be inf or "
            "NaN; use a smaller learning_rate"
        )
