"""Input of the Dask estimators: collections cut into row partitions on the workers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mltrees._input_checks import check_unique_columns


def get_client(client):
    """``client``, or the default client of the session (a clear error if there is none)."""
    if client is not None:
        return client
    from distributed import default_client

    try:
        return default_client()
    except ValueError:
        raise ValueError(
            "no Dask client: pass client= or create one first "
            "(e.g. distributed.Client(distributed.LocalCluster()))"
        ) from None


def dataframe_module():
    """``dask.dataframe``, or None when it is not installed (it needs pyarrow)."""
    try:
        import dask.dataframe as dd
    except ImportError:
        return None
    return dd


def is_dask_collection(X) -> bool:
    """Whether ``X`` is a dask array, dataframe or series."""
    from dask.base import is_dask_collection as is_collection

    return is_collection(X)


def check_numeric_columns(dtypes, names):
    """Refuse a column that is neither numeric nor boolean, naming it."""
    for name, dtype in zip(names, dtypes, strict=True):
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            if pd.api.types.is_bool_dtype(dtype):
                continue
            raise TypeError(
                f"X column {name!r} has dtype {dtype}; the Dask estimators take numbers "
                "only (encode categories first, e.g. as their codes: what XGBoostClassifier "
                "does on one machine)"
            )


def _float32_checked(block):
    """A block of X as float32, refusing finite values that float32 cannot hold."""
    with np.errstate(over="ignore"):
        out = block.astype(np.float32)
    overflow = np.isinf(out) & np.isfinite(block)
    if overflow.any():
        value = float(block[overflow][0])
        raise ValueError(
            f"X holds {value:.9g}, beyond float32's largest value "
            f"{float(np.finfo(np.float32).max):.9g}: the XGBoost estimators store features "
            "as float32, as XGBoost does (which refuses such values too). Rescale X."
        )
    return out


def as_dask_arrays(X, y, sample_weight, n_partitions: int, dtype=np.float32):
    """``X`` (2-D, ``dtype``), ``y`` and the weights as dask arrays with the same row chunks.

    Returns ``(X, y, w, feature_names)``; ``w`` is None without weights.
    ``dtype`` is float32 for the XGBoost estimators (a finite value beyond
    float32's range is refused when the block is computed) and float64 for
    the forests, whose trees take every finite float.
    """
    import dask.array as da

    dd = dataframe_module()
    feature_names = None
    check_unique_columns(X)
    if dd is not None and isinstance(X, dd.DataFrame):
        check_numeric_columns(X.dtypes, X.columns)
        feature_names = np.asarray([str(c) for c in X.columns], dtype=object)
        # Not lengths=True: dask-expr computes the lengths on a separately
        # optimized graph, which may fuse partitions (a column projection of
        # small Parquet files does) and then disagree with npartitions.
        X = X.to_dask_array()
    elif isinstance(X, da.Array):
        pass
    else:
        if isinstance(X, pd.DataFrame):
            check_numeric_columns(X.dtypes, X.columns)
            feature_names = np.asarray([str(c) for c in X.columns], dtype=object)
        values = np.asarray(X)
        if values.ndim != 2:
            raise ValueError(f"X must be 2-D, got an array of shape {values.shape}")
        rows = max(1, -(-values.shape[0] // max(1, n_partitions)))
        X = da.from_array(values, chunks=(rows, values.shape[1]))
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got a dask array of {X.ndim} dimension(s)")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"X must hold real numbers, got dtype {X.dtype}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if np.dtype(dtype) == np.float32 and X.dtype.itemsize > 4 and X.dtype.kind == "f":
        X = X.map_blocks(_float32_checked, dtype=np.float32)
    X = X.astype(dtype).rechunk({1: -1})
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X is empty: shape {X.shape}; at least 1 sample and 1 feature needed")

    def aligned(v, name):
        if v is None:
            return None
        if dd is not None and isinstance(v, (dd.DataFrame, dd.Series)):
            v = v.to_dask_array()  # chunk sizes computed below (see X)
        if not isinstance(v, da.Array):
            v = np.asarray(v)
            if v.ndim == 2 and v.shape[1] == 1:
                v = v.ravel()
            if v.ndim != 1:
                raise ValueError(f"{name} must be 1-D, got an array of shape {v.shape}")
            if v.shape[0] != X.shape[0]:
                raise ValueError(f"{name} has {v.shape[0]} rows, X has {X.shape[0]}")
            v = da.from_array(v, chunks=(X.chunks[0],))
        if v.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got {v.ndim} dimension(s)")
        if any(np.isnan(c) for c in v.chunks[0]):
            v = v.compute_chunk_sizes()
        if v.shape[0] != X.shape[0]:
            raise ValueError(f"{name} has {v.shape[0]} rows, X has {X.shape[0]}")
        return v.rechunk((X.chunks[0],))

    if y is None:
        raise ValueError("y is required")
    return X, aligned(y, "y"), aligned(sample_weight, "sample_weight"), feature_names


def clean_part(X, y, w):
    """One partition as ``(X, y, w)``: float32 numbers, weights checked, weight-0 rows dropped."""
    X = np.ascontiguousarray(X, dtype=np.float32)
    if np.isinf(X).any():
        raise ValueError("X contains inf; missing values are NaN, infinite ones are not allowed")
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and >= 0")
    keep = w > 0  # a row of weight 0 changes no sum and stays out of the cuts, as on one machine
    if not keep.all():
        X, y, w = X[keep], y[keep], w[keep]
    return X, y, w


def partitions(client, X, y, w, clean=clean_part) -> list:
    """Futures of the cleaned partitions ``(X, y, w)``, recomputable from the collections.

    ``clean(X, y, w)`` prepares each partition (:func:`clean_part` by default).
    """
    xs = X.to_delayed().ravel()
    ys = y.to_delayed().ravel()
    ws = [None] * len(xs) if w is None else list(w.to_delayed().ravel())
    futures = client.compute([*xs, *ys, *(v for v in ws if v is not None)])
    n = len(xs)
    xf, yf = futures[:n], futures[n : 2 * n]
    wf = futures[2 * n :] if w is not None else [None] * n
    return [client.submit(clean, a, b, c, pure=False) for a, b, c in zip(xf, yf, wf, strict=True)]


def n_workers(client) -> int:
    """Number of workers of the cluster (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))
