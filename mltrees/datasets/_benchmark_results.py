"""Stored benchmark measurements that the book's chapters read and discuss.

The scripts in the repository's ``benchmarks/`` folder measure mltrees against
the reference libraries; a few of them write their results as JSON into
``mltrees/datasets/benchmark_results``, shipped with the package so that a
chapter reads them wherever it runs (a notebook downloaded from the website
included). Each file records how it was made: the script, the date, the
machine and its load, and the versions of every library measured.
"""

from __future__ import annotations

import json
from importlib import resources

__all__ = ["BENCHMARK_RESULTS", "load_benchmark_results"]

#: The stored measurements: name -> the script that writes them and what they hold.
BENCHMARK_RESULTS = {
    "family": (
        "benchmarks/bench_family.py: the test scores of every algorithm of mltrees and its "
        "counterparts in scikit-learn, XGBoost, LightGBM and CatBoost at users' defaults on "
        "Adult, Covertype (20k), HIGGS (7.5k) and diabetes (chapter 19)"
    ),
    "small_data": (
        "benchmarks/bench_small.py: fit and predict times of each family of mltrees at its "
        "defaults against its reference at its defaults, one thread each, on ten tables of "
        "242 to 26,048 training rows, under the protocol of benchmarks/README.md (chapter 19)"
    ),
    "forest_defaults": (
        "benchmarks/bench_forest.py --defaults: RandomForestClassifier's max_bins='auto' "
        "and exact mode against scikit-learn's forest, median fit-time ratios and "
        "accuracy by data size (the appendix of the book)"
    ),
}


def load_benchmark_results(name: str) -> dict:
    """Load one stored benchmark measurement, as the script that made it wrote it.

    Parameters
    ----------
    name : {"family", "small_data", "forest_defaults"}
        Which measurement; :data:`BENCHMARK_RESULTS` says what each holds and
        which script in ``benchmarks/`` writes it.

    Returns
    -------
    dict
        The parsed JSON file. Timings depend on the machine and its load: the
        files record both, and ratios measured back to back in one run are
        what the chapters compare.

    Examples
    --------
    >>> from mltrees.datasets import load_benchmark_results
    >>> runs = load_benchmark_results("forest_defaults")
    >>> sorted(run["rows_fitted"] for run in runs.values())
    [16000, 160000, 800000]
    >>> load_benchmark_results("family")["script"]
    'benchmarks/bench_family.py'
    """
    if not isinstance(name, str) or name not in BENCHMARK_RESULTS:
        allowed = ", ".join(repr(choice) for choice in BENCHMARK_RESULTS)
        raise ValueError(f"name must be one of {allowed}; got {name!r}")
    resource = resources.files(__package__).joinpath("benchmark_results", f"{name}.json")
    return json.loads(resource.read_text(encoding="utf-8"))
