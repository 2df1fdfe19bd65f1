"""Input checking shared by the incremental learners: growing category codes, declared classes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mltrees._validation import check_labels


def as_table(X, name: str = "X") -> pd.DataFrame:
    """X as a DataFrame (column names kept), with a clear error for the wrong shape."""
    if isinstance(X, pd.DataFrame):
        table = X
    else:
        if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
            raise TypeError(f"{name} is a sparse matrix; a dense array or DataFrame is expected")
        arr = np.asarray(X)
        if arr.dtype.kind == "c":
            raise TypeError(f"{name} holds complex numbers; real numbers or categories expected")
        if arr.ndim != 2:
            raise ValueError(
                f"Expected 2D array for {name} (n_samples, n_features), got shape {arr.shape}. "
                "Reshape your data either using array.reshape(-1, 1) if your data has a single "
                "feature or array.reshape(1, -1) if it contains a single sample."
            )
        table = pd.DataFrame(arr)
    if table.shape[0] == 0:
        raise ValueError(f"{name} has 0 samples; at least one sample is needed")
    if table.shape[1] == 0:
        raise ValueError(
            f"{name} has 0 feature(s) (shape={table.shape}) while a minimum of 1 is required."
        )
    return table


def feature_names(table: pd.DataFrame):
    """The column names when they are all strings (scikit-learn's feature_names_in_), else None."""
    if isinstance(table.columns, pd.RangeIndex) or not all(
        isinstance(c, str) for c in table.columns
    ):
        return None
    return np.asarray(table.columns, dtype=object)


def check_columns(estimator, table: pd.DataFrame, name: str = "X") -> None:
    """A later batch must have the features of the first one (number and names)."""
    if table.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"{name} has {table.shape[1]} features, but {type(estimator).__name__} is "
            f"expecting {estimator.n_features_in_} features as input (those of its first batch)"
        )
    names = feature_names(table)
    declared = getattr(estimator, "feature_names_in_", None)
    if declared is not None and names is not None and list(names) != list(declared):
        raise ValueError(
            f"{name} has feature names {list(names)}, but the first batch declared {list(declared)}"
        )


def check_target(y):
    """Check the target of ``fit``: given, one-dimensional, discrete (scikit-learn's wording)."""
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import column_or_1d

    if y is None:
        raise ValueError("requires y to be passed, but the target y is None")
    y = column_or_1d(np.asarray(y, dtype=None), warn=True)
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y contains NaN or inf; labels must be finite")
    check_classification_targets(y)
    return y


def declare_classes(y, classes):
    """The classes of a first ``partial_fit`` call (scikit-learn's convention: ``classes=``)."""
    if classes is None:
        raise ValueError(
            "classes must be given on the first call to partial_fit (all the labels the "
            "stream can hold, e.g. classes=np.unique(y_all))"
        )
    declared = check_labels(classes, "classes")
    unique = np.unique(declared)
    if unique.size != declared.size:
        raise ValueError("classes contains duplicated labels")
    return unique


def encode_labels(y, classes: np.ndarray, n_samples: int) -> np.ndarray:
    """Codes of y in ``classes``; a label that was not declared is a ValueError."""
    y = check_labels(y, "y")
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {y.shape[0]} labels but X has {n_samples} samples")
    index = pd.Index(classes)
    codes = index.get_indexer(pd.Index(y))
    if (codes < 0).any():
        unknown = pd.unique(np.asarray(y, dtype=object)[codes < 0])[:5]
        raise ValueError(
            f"y contains labels {list(unknown)} that are not among the declared classes "
            f"{list(classes)}; declare every label with classes= on the first partial_fit call"
        )
    return codes.astype(np.intp)
