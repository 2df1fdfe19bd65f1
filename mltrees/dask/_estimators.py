"""What the Dask boosting estimators share, written once.

The three families (:mod:`mltrees.dask.xgboost`, :mod:`mltrees.dask.lightgbm`,
:mod:`mltrees.dask.oblivious`) read their input the same way, hand back the
fitted model as the one-machine estimator (:meth:`DaskBoosting.to_local`) and
predict on dask collections block by block with that local model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from mltrees._validation import require_two_classes
from mltrees.dask._data import as_dask_arrays, dataframe_module, get_client, n_workers
from mltrees.dask._malloc import prepare_workers
from mltrees.dask.allreduce import tree_sum
from mltrees.ensemble._common import class_codes, real_targets

# Parameters and records of a fit through ReductionLog, of the cluster and not of the model.
REDUCTION_RECORDS = (
    "client",
    "n_partitions",
    "round_trips_",
    "reduction_seconds_",
    "reduction_bytes_",
)


class DaskBoosting:
    """Input, ``to_local`` and lazy predictions of a Dask boosting estimator.

    A subclass names its one-machine estimator (``_local_class``), the
    attribute that proves it fitted (``_fitted_attribute``) and the names
    that belong to the cluster and not to the model (``_cluster_only``:
    left out of :meth:`to_local`).
    """

    _local_class = None
    _fitted_attribute = "_stack"
    _cluster_only: tuple[str, ...] = ("client",)

    def _cluster_input(self, X, y, sample_weight, dtype=np.float32):
        """The client and ``X``, ``y``, weights as dask arrays cut into partitions.

        Sets ``n_features_in_`` and ``feature_names_in_`` (removed when
        ``X`` has no column names) as the one-machine ``fit`` does.
        Returns ``(client, X, y, w, feature_names)``.
        """
        client = get_client(self.client)
        prepare_workers(client)  # NumPy temporaries off mmap in the workers (see _malloc)
        n_parts = self.n_partitions or n_workers(client)
        Xd, yd, wd, names = as_dask_arrays(X, y, sample_weight, n_parts, dtype=dtype)
        self.n_features_in_ = int(Xd.shape[1])
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return client, Xd, yd, wd, names

    def _run_rounds(self, rounds, prefix: str):
        """Boost ``n_estimators`` rounds with the one-machine loop's report (no early stopping)."""
        return rounds.run(
            self.n_estimators,
            verbose=self.verbose,
            patience=None,
            name=type(self).__name__,
            prefix=prefix,
        )

    def to_local(self):
        """The fitted model as a plain mltrees estimator (no client, picklable, savable)."""
        check_is_fitted(self, self._fitted_attribute)
        local_params = self._local_class().get_params()
        model = self._local_class(
            **{k: v for k, v in self.get_params().items() if k in local_params}
        )
        for name, value in vars(self).items():
            if name not in local_params and name not in self._cluster_only:
                setattr(model, name, value)
        return model

    def _lazy(self, X, method: str, n_columns: int | None, dtype):
        """``method`` of the local model on every block of a dask collection, lazily."""
        import dask.array as da

        dd = dataframe_module()
        model = self.to_local()

        def block(part):
            out = getattr(model, method)(part)
            if isinstance(part, pd.DataFrame) and out.ndim == 1:
                return pd.Series(out, index=part.index)
            if isinstance(part, pd.DataFrame):
                return pd.DataFrame(out, index=part.index)
            return out

        if dd is not None and isinstance(X, dd.DataFrame):
            if n_columns is None:
                meta = pd.Series(np.empty(0, dtype=dtype))
            else:
                meta = pd.DataFrame(np.empty((0, n_columns), dtype=dtype))
            return X.map_partitions(block, meta=meta)
        if not isinstance(X, da.Array) or X.ndim != 2:
            raise TypeError("X must be a 2-D dask array or a dask dataframe")
        X = X.rechunk({1: -1})
        if n_columns is None:
            return X.map_blocks(block, drop_axis=1, dtype=dtype)
        return X.map_blocks(block, chunks=(X.chunks[0], (n_columns,)), dtype=dtype)


def set_init_params(model, params: dict) -> None:
    """Store ``__init__``'s arguments (its ``locals()``) as attributes, unchanged.

    scikit-learn's rule: ``get_params`` reads them back, ``__init__`` checks nothing.
    """
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(model, name, value)


def regression_targets(y):
    """Real regression targets as the one-machine LightGBM and CatBoost read them (float32)."""
    return real_targets(np.asarray(y)).astype(np.float32).astype(np.float64)


def _classes(part):
    classes, _ = class_codes(np.asarray(part[1]))
    return classes, True


def _union(a, b):
    return np.union1d(a[0], b[0]), a[1] and b[1]


class ClassCodes:
    """Class labels to codes 0 .. K-1 as float64 (picklable, for the workers)."""

    def __init__(self, classes):
        self.classes = classes

    def __call__(self, y):
        return np.searchsorted(self.classes, np.asarray(y)).astype(np.float64)


def cluster_classes(model, client, parts):
    """The sorted classes of all partitions' labels, set as ``model.classes_``.

    Refuses fewer than two classes; returns ``(ClassCodes(classes), K)``.
    """
    classes, _ = client.gather(
        tree_sum(client, [client.submit(_classes, p, pure=False) for p in parts], _union)
    )
    model.classes_ = classes
    require_two_classes(len(classes), type(model).__name__)
    return ClassCodes(classes), len(classes)


DASK_PARAMS = """
    client : distributed.Client or None, default None
        The cluster to train on; None: the session's default client.
    n_partitions : int or None, default None
        Partitions a numpy or pandas ``X`` is cut into (None: one per
        worker); dask collections keep their own.
"""


def fill_docstrings(classes, params: str, dask: str = DASK_PARAMS) -> None:
    """Put the shared parameter lists into the ``{params}`` and ``{dask}`` slots."""
    for cls in classes:
        cls.__doc__ = cls.__doc__.replace("    {dask}\n", dask.lstrip("\n")).replace(
            "    {params}\n", params.lstrip("\n")
        )
