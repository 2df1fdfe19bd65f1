"""Input errors that name the argument, for estimators that take numbers only.

scikit-learn's ``validate_data`` reports a string in a float array as
"could not convert string to float: 'green'" and complex input as "Complex
data not supported" followed by the data: neither names ``X``. The helpers
here run the same validation and say which argument, which column and what
the estimator takes. (Estimators of the tree engine have their own wording
in :mod:`mltrees.tree._data`.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import validate_data

__all__ = ["check_unique_columns", "infinite_column", "record_fit_features", "validate_numbers"]


def record_fit_features(estimator, X) -> None:
    """``validate_data(estimator, X, reset=True, skip_check_array=True)``, after a fit.

    Sets ``n_features_in_`` and ``feature_names_in_`` (removed when X has no
    column names). A plain 2-D array has none, and its attributes are set
    here directly: scikit-learn's probes of X for a dataframe protocol cost
    a fifth of a small tree's fit.
    """
    if type(X) is np.ndarray and X.ndim == 2:
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            delattr(estimator, "feature_names_in_")
        return
    validate_data(estimator, X, reset=True, skip_check_array=True)


def check_unique_columns(X, name: str = "X") -> None:
    """Refuse a table whose column names repeat (a column could not be told from another)."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return
    index = pd.Index(columns)
    if index.has_duplicates:
        repeated = list(dict.fromkeys(index[index.duplicated()]))
        raise ValueError(
            f"{name} has duplicated column names {repeated!r}; every column needs a name of its own"
        )


def validate_numbers(estimator, X, *, what: str, **kwargs) -> np.ndarray:
    """``validate_data(estimator, X, **kwargs)``, with errors naming X for non-numeric input.

    Parameters
    ----------
    estimator : estimator
    X : array_like or DataFrame
    what : str
        What the estimator takes, for the message (``"numbers only"``, ...).
    **kwargs
        Passed to :func:`sklearn.utils.validation.validate_data`.
    """
    who = type(estimator).__name__
    hint = "" if "categor" in what else " (encode categories first)"
    check_unique_columns(X)
    if isinstance(X, pd.DataFrame):
        for name in X.columns:
            dtype = X[name].dtype
            if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
                raise TypeError(f"X column {name!r} has dtype {dtype}; {who} takes {what}{hint}")
            if pd.api.types.is_complex_dtype(dtype):
                raise ValueError(f"X column {name!r} holds complex numbers; {who} takes {what}")
    try:
        return validate_data(estimator, X, **kwargs)
    except (TypeError, ValueError) as error:
        text = str(error)
        if text.startswith("Complex data not supported"):
            raise ValueError(
                f"Complex data not supported: X holds complex numbers; {who} takes {what}"
            ) from None
        if text.startswith("Found array with"):  # dim 3, 0 sample(s), 0 feature(s)
            raise ValueError(f"X: {text}") from None
        if "could not convert" in text or "argument must be" in text:
            raise type(error)(
                f"X holds values that are not numbers ({text}); {who} takes {what}{hint}"
            ) from None
        if "infinity" in text:
            column = infinite_column(X, kwargs.get("dtype"))
            if column is not None:
                beyond = " (or a value beyond float32's ±3.4e38)" if "float32" in text else ""
                nan = kwargs.get("ensure_all_finite") == "allow-nan"
                raise ValueError(
                    f"X contains inf{beyond} in column {column!r}; {who} takes finite numbers"
                    + (" (NaN marks a missing value)" if nan else "")
                ) from None
        raise


def infinite_column(X, dtype=None) -> str | None:
    """The name of X's first column holding inf (or a number that becomes inf in ``dtype``).

    A DataFrame's column by its label, an array's by its position, as the
    trees name columns; None if no column does (or X is not a table of numbers).
    """
    try:
        values = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if values.ndim != 2:
        return None
    limit = np.finfo(dtype).max if dtype is not None and np.dtype(dtype).kind == "f" else np.inf
    with np.errstate(invalid="ignore"):
        columns = np.flatnonzero(((np.abs(values) > limit) | np.isinf(values)).any(axis=0))
    if not columns.size:
        return None
    labels = getattr(X, "columns", None)
    return str(labels[columns[0]]) if labels is not None else str(columns[0])
