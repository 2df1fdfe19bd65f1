"""Training on a Dask cluster: trees at scale (chapter on scale).

A split needs only sums of per-row statistics, and sums of partitions add
up. :class:`DaskXGBoostClassifier` and :class:`DaskXGBoostRegressor` train
the histogram learner of :mod:`mltrees.hist` on data spread over the
workers of a ``dask.distributed`` cluster: every worker bins its rows
against one machine's cut points (each column cut in global row order on
one worker, :func:`exact_cuts`; or, with ``sketch_eps``, a merged quantile
sketch), keeps them in memory (:class:`PartitionGroup`, one Dask actor per
worker, called directly in about 2 ms), builds the histograms of its rows,
and the driver adds them in partition order before the split search. The
fitted model is an ordinary
:class:`~mltrees.ensemble.xgboost.XGBoostClassifier` /
:class:`~mltrees.ensemble.xgboost.XGBoostRegressor` with one machine's
trees: the same cuts, the same splits (histograms added in another order
than one machine's, so leaf values agree to rounding, and a split whose
gain ties another's to the last bits could go either way).

:class:`DaskRandomForestClassifier` and :class:`DaskRandomForestRegressor`
grow whole trees on the workers, each on a Poisson bootstrap sample drawn
partition by partition.

Every fit first registers a worker plugin that tunes glibc's allocator in
the workers (:mod:`mltrees.dask._malloc`: Dask's nanny otherwise makes
every NumPy temporary above 128 KiB a fresh ``mmap``, about 3.5× slower
arithmetic); it stays registered on the cluster and is re-run on restarted
workers.

Dask is an optional dependency, the ``dask`` extra: from a clone of the
repository, ``pip install "path/to/mltrees[dask]"``.
"""

from mltrees._optional import import_optional

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError:  # the same error, with the command that installs the extra
    import_optional("dask", extra="dask", feature="mltrees.dask")
    import_optional("distributed", extra="dask", feature="mltrees.dask")
    raise

from mltrees.dask.allreduce import (
    DaskRows,
    PartitionGroup,
    WorkerLost,
    exact_cuts,
    merged_cuts,
    tree_sum,
)
from mltrees.dask.cost import (
    histogram_bytes,
    local_feature_gains,
    pv_tree_candidates,
    row_bytes,
    tree_reduce_bytes,
)
from mltrees.dask.forest import DaskRandomForestClassifier, DaskRandomForestRegressor
from mltrees.dask.lightgbm import DaskLightGBMClassifier, DaskLightGBMRegressor
from mltrees.dask.oblivious import DaskObliviousBoostingClassifier, DaskObliviousBoostingRegressor
from mltrees.dask.xgboost import DaskXGBoostClassifier, DaskXGBoostRegressor

__all__ = [
    "DaskLightGBMClassifier",
    "DaskLightGBMRegressor",
    "DaskObliviousBoostingClassifier",
    "DaskObliviousBoostingRegressor",
    "DaskRandomForestClassifier",
    "DaskRandomForestRegressor",
    "DaskRows",
    "DaskXGBoostClassifier",
    "DaskXGBoostRegressor",
    "PartitionGroup",
    "WorkerLost",
    "exact_cuts",
    "histogram_bytes",
    "local_feature_gains",
    "merged_cuts",
    "pv_tree_candidates",
    "row_bytes",
    "tree_reduce_bytes",
    "tree_sum",
]

from mltrees._docstrings import plain_docstrings as _plain_docstrings

_plain_docstrings()
