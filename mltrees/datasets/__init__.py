"""Small real data sets, shipped with the package and loaded offline.

Each loader returns a :class:`sklearn.utils.Bunch` with ``frame`` (the whole
table), ``data`` (the features), ``target``, ``feature_names``,
``target_name``, ``target_names`` and ``DESCR`` (a short description with the
citation and license), or ``(data, target)`` with ``return_X_y=True``;
:func:`load_higgs` adds ``sample_weight`` (per-row weights, not a feature).
Categorical columns have pandas ``category`` dtype, numeric columns int64 or
float64, missing values are NaN. The files live in ``mltrees/datasets/data``;
``data/ATTRIBUTION.md`` gives their origin, license, edits and sha256.

==============================  =================  ===================================
loader                          rows x features    used for
==============================  =================  ===================================
:func:`load_weather`            14 x 4             ID3 by hand; C4.5 thresholds
:func:`load_watermelon`         17 x 2-8           Zhou's chapter 4 worked examples
:func:`load_lenses`             24 x 4             smallest all-categorical table
:func:`load_heart_disease`      303 x 13           mixed types, a few missing values
:func:`load_car_evaluation`     1,728 x 6          ordinal features, imbalanced classes
:func:`load_mushroom`           8,124 x 22         many-valued categoricals, missing
:func:`load_adult`              48,842 x 14        a realistic train/test benchmark
:func:`load_penguins`           344 x 7            three species, a few missing values
:func:`load_titanic`            1,309 x 5          survival; age missing for 20 %
:func:`load_higgs`              7,500 x 28         dense floats, sample weights (GBDT)
:func:`load_covertype`          20,000 x 54        7 classes; one-hot groups (EFB)
==============================  =================  ===================================

:func:`load_benchmark_results` returns the stored measurements of the
repository's ``benchmarks/`` scripts that chapters 10 and 19 discuss (JSON
with the script, the machine, its load and the library versions).
"""

from mltrees.datasets._benchmark_results import BENCHMARK_RESULTS, load_benchmark_results
from mltrees.datasets._loaders import (
    MUSHROOM_CODES,
    WATERMELON_TRANSLATION,
    load_adult,
    load_car_evaluation,
    load_covertype,
    load_heart_disease,
    load_higgs,
    load_lenses,
    load_mushroom,
    load_penguins,
    load_titanic,
    load_watermelon,
    load_weather,
)

__all__ = [
    "BENCHMARK_RESULTS",
    "MUSHROOM_CODES",
    "WATERMELON_TRANSLATION",
    "load_adult",
    "load_benchmark_results",
    "load_car_evaluation",
    "load_covertype",
    "load_heart_disease",
    "load_higgs",
    "load_lenses",
    "load_mushroom",
    "load_penguins",
    "load_titanic",
    "load_watermelon",
    "load_weather",
]

from mltrees._docstrings import plain_docstrings as _plain_docstrings

_plain_docstrings()
