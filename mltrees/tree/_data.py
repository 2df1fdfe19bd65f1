"""From a user's X to integer codes that the growth engine can count (chapter 3).

Every split the book considers compares *codes*: for a numeric feature the
code of a value is its rank among the distinct training values (exact mode)
or its quantile bin (histogram mode); for a categorical feature it is the
category's index. Statistics of all candidate splits are then sums over
codes, computed with ``bincount`` or a sort, never a loop over samples.

A numeric split "code <= b" is stored as a real threshold so that prediction
works on raw values: in exact mode the midpoint between the node's largest
value on the left and smallest value on the right (the bi-partition of
:eq:`eq-bipartition-midpoints` in chapter 3); in histogram mode the upper
edge of bin ``b``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mltrees._frames import check_category_values, is_categorical, numeric_values
from mltrees._midpoint import midpoint
from mltrees._search import count_below
from mltrees._validation import check_sample_weight
from mltrees.tree._tree import available_cores

__all__ = ["FeatureSpec", "as_table", "bin_features", "encode_features"]

NUMERIC, CATEGORICAL = 0, 1


@dataclass
class FeatureSpec:
    """What the engine knows about one feature after fitting the binning.

    Attributes
    ----------
    kind : int
        ``NUMERIC`` (0) or ``CATEGORICAL`` (1).
    values : ndarray
        Exact numeric mode: the sorted distinct training values (code = rank).
        Histogram mode: the bin edges; a value ``x`` gets the code
        ``#{edges < x}``, so bin ``b`` holds ``edges[b-1] < x <= edges[b]``.
        Categorical: the categories in code order.
    exact : bool
        Whether numeric codes are exact ranks (True) or bins (False).
    """

    kind: int
    values: np.ndarray
    exact: bool = True
    name: str = ""
    n_codes: int = field(init=False)

    def __post_init__(self):
        if self.kind == NUMERIC and not self.exact:
            self.n_codes = len(self.values) + 1
        else:
            self.n_codes = len(self.values)

    def threshold(self, left_code: np.ndarray, right_code: np.ndarray) -> np.ndarray:
        """The raw threshold separating ``code <= left_code`` from ``code >= right_code``."""
        if self.exact:
            return midpoint(self.values[left_code], self.values[right_code])
        return self.values[left_code]


def _is_categorical_column(column: pd.Series, name: str = "") -> bool:
    """The package's one rule for a column (:mod:`mltrees._frames`)."""
    return is_categorical(column, name or str(getattr(column, "name", "")))


def _quantile_edges(values: np.ndarray, max_bins: int, rng: np.random.Generator) -> np.ndarray:
    """Bin edges at midpoints between distinct quantiles, as in histogram GBDTs."""
    if values.size > 200_000:  # quantiles of a subsample are accurate enough
        values = rng.choice(values, 200_000, replace=False)
    distinct = np.unique(values)
    if distinct.size <= max_bins:
        return midpoint(distinct[:-1], distinct[1:])
    levels = np.linspace(0, 1, max_bins + 1)[1:-1]
    lower = np.quantile(values, levels, method="lower")
    higher = np.quantile(values, levels, method="higher")
    return np.unique(midpoint(lower, higher))


def bin_features(
    X,
    *,
    categorical_features=None,
    max_bins: int | None = None,
    allow_nan: bool = False,
    random_state: int | None = 0,
    missing_advice: str | Callable[[], str] = "",
) -> tuple[np.ndarray, list[FeatureSpec]]:
    """Learn one :class:`FeatureSpec` per column and encode the training data.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n_samples, n_features)
        Training features. pandas ``category``, ``object`` and ``bool``
        columns are categorical; so are the columns listed in
        ``categorical_features``.
    categorical_features : sequence of int or str, or boolean mask, optional
        Columns to treat as categorical in addition to the inferred ones.
    max_bins : int or None
        ``None`` for exact mode; otherwise the number of quantile bins (2 to 65535).
    allow_nan : bool
        Whether NaN (or a missing category) may appear, as the code -1; if
        not, it is an error that names the column. The estimators allow it
        when they have a missing-value method (chapter 6).
    random_state : int or None
        Seed for the subsample that histogram quantiles are computed from.
    missing_advice : str or callable
        When NaN is not allowed: what the error message tells the user to do
        (the estimator's one-argument fix), or a function that writes it.

    Returns
    -------
    codes : ndarray of shape (n_samples, n_features)
        Integer codes, dtype ``uint8``/``uint16``/``int32`` as small as fits;
        when NaN codes are allowed and present, the smallest *signed* type
        (``int8``/``int16``/``int32``), so that -1 fits. Data without missing
        values get the same codes and dtype whatever ``allow_nan``.
    specs : list of FeatureSpec
        One per column.
    """
    table = as_table(X)
    n_samples, n_features = table.shape
    if n_samples == 0 or n_features == 0:
        raise ValueError(
            f"X is empty (shape {table.shape}); at least one sample and feature needed"
        )
    if max_bins is not None and not (2 <= int(max_bins) <= 65535):
        raise ValueError(f"max_bins must be None or an int in [2, 65535], got {max_bins!r}")
    categorical = _categorical_mask(table, categorical_features)
    if max_bins is None and not categorical.any() and n_samples < PARALLEL_ROWS:
        matrix = _plain_numeric_matrix(table)
        if matrix is not None and all_finite(matrix):
            return _rank_all_columns(matrix, [_column_name(table, j) for j in range(n_features)])
    rng = np.random.default_rng(random_state)
    # Pass 1: learn every feature's spec. Pass 2: write its codes straight into
    # the smallest integer matrix that fits, so no int64 copy of X is ever held.
    specs = []
    for j in range(n_features):
        column, name = _column(table, j), _column_name(table, j)
        if categorical[j]:
            specs.append(_fit_categorical(column, name))
        else:
            specs.append(_fit_numeric(_numeric_values(column, name), name, max_bins, rng))
    largest = max(spec.n_codes for spec in specs)
    dtype = np.uint8 if largest <= 256 else np.uint16 if largest <= 65536 else np.int32
    if allow_nan and _has_missing(table, specs):
        dtype = np.int8 if largest <= 127 else np.int16 if largest <= 32767 else np.int32
    codes = np.empty((n_samples, n_features), dtype=dtype, order="F")

    def encode_column(j: int) -> None:
        spec = specs[j]
        column = _column(table, j)
        if spec.kind == CATEGORICAL:
            code = _categorical_codes(column, spec)
        else:
            code = encode_numeric(_numeric_values(column, spec.name), spec)
        if not allow_nan and (code < 0).any():
            written = missing_advice() if callable(missing_advice) else missing_advice
            advice = written or (
                "this estimator has no missing-value method: impute them or choose one "
                "that supports them"
            )
            raise ValueError(f"X has missing values (NaN) in column {spec.name!r}; {advice}")
        codes[:, j] = code

    # Columns are independent: large tables are encoded on every core.
    workers = min(available_cores(), n_features) if n_samples >= PARALLEL_ROWS else 1
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(encode_column, range(n_features)))
    else:
        for j in range(n_features):
            encode_column(j)
    return codes, specs


def _plain_numeric_matrix(table) -> np.ndarray | None:
    """The table as one float64 matrix if every column is a plain numpy number; else None.

    pandas' extension dtypes (nullable integers, ...) and object columns keep
    the column-by-column path, which knows their missing values.
    """
    if isinstance(table, pd.DataFrame):
        dtypes = table.dtypes
        if not all(
            not isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "fiu"
            for dtype in dtypes
        ):
            return None
        return table.to_numpy(dtype=np.float64)
    if table.dtype.kind not in "fiu":
        return None
    return np.asarray(table, dtype=np.float64)


def _rank_all_columns(matrix: np.ndarray, names: list[str]) -> tuple[np.ndarray, list]:
    """Exact-mode codes and specs of a finite numeric matrix, all columns at once.

    The same codes and specs as one ``np.unique`` and one rank search per
    column (each value's code is its rank among the column's distinct
    values), from one sort of every column together: on a few hundred rows
    the per-column calls, not the sorting, were the cost of binning.
    """
    n_samples, n_features = matrix.shape
    by_feature = np.ascontiguousarray(matrix.T)
    order = np.argsort(by_feature, axis=1, kind="stable")
    ordered = np.take_along_axis(by_feature, order, axis=1)
    is_new = np.empty(ordered.shape, dtype=bool)
    is_new[:, 0] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=is_new[:, 1:])
    rank = np.cumsum(is_new, axis=1)
    rank -= 1
    n_codes = rank[:, -1] + 1
    largest = int(n_codes.max())
    dtype = np.uint8 if largest <= 256 else np.uint16 if largest <= 65536 else np.int32
    codes = np.empty((n_samples, n_features), dtype=dtype, order="F")
    np.put_along_axis(codes.T, order, rank, axis=1)  # codes.T: C-ordered, one row per feature
    distinct = np.split(ordered[is_new], np.cumsum(n_codes)[:-1])
    specs = [
        FeatureSpec(NUMERIC, values, exact=True, name=name)
        for values, name in zip(distinct, names, strict=True)
    ]
    return codes, specs


def _has_missing(table, specs: list[FeatureSpec]) -> bool:
    """Whether any cell of the training table is missing (NaN, None or pd.NA)."""
    for j, spec in enumerate(specs):
        column = _column(table, j)
        if spec.kind == CATEGORICAL:
            if pd.isna(column).any():
                return True
        elif np.isnan(_numeric_values(column, spec.name)).any():
            return True
    return False


def as_table(X, name: str = "X"):
    """Validated 2-D input for fit and predict.

    A DataFrame stays a DataFrame (its dtypes say which columns are
    categorical); anything else becomes a 2-D numpy array.
    """
    if isinstance(X, pd.DataFrame):
        return X
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(f"{name} is a sparse matrix; pass a dense array or a DataFrame")
    array = np.asarray(X)
    if array.dtype.kind == "c":
        raise TypeError(f"{name} holds complex numbers; real numbers or categories expected")
    if array.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_features), got shape {array.shape}. "
            "Reshape your data: X.reshape(-1, 1) for a single feature, X.reshape(1, -1) "
            "for a single sample"
        )
    return array


def all_finite(values: np.ndarray) -> bool:
    """Whether a float array holds no NaN and no infinity, in one fast pass.

    A NaN or an infinity makes the sum NaN or infinite, so a finite sum proves
    every entry finite; only when the sum is not finite (possibly an overflow
    of finite numbers) are the entries checked one by one.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(values, axis=None)
    return bool(np.isfinite(total)) or bool(np.isfinite(values).all())


def _column(table, j: int):
    return table.iloc[:, j] if isinstance(table, pd.DataFrame) else table[:, j]


def _column_name(table, j: int) -> str:
    return str(table.columns[j]) if isinstance(table, pd.DataFrame) else str(j)


def _categorical_mask(table, categorical_features) -> np.ndarray:
    n_features = table.shape[1]
    if isinstance(table, pd.DataFrame):
        names = [str(name) for name in table.columns]
        mask = np.array(
            [_is_categorical_column(table.iloc[:, j], names[j]) for j in range(n_features)]
        )
    else:
        # A plain array: numbers are numeric; strings and bools are categories; an
        # object array is judged column by column (numbers stay numbers).
        names = [str(j) for j in range(n_features)]
        if table.dtype.kind == "O":
            mask = np.array(
                [_is_categorical_column(table[:, j], names[j]) for j in range(n_features)]
            )
        else:
            mask = np.full(n_features, table.dtype.kind in "USb")
    if categorical_features is None:
        return mask
    listed = np.asarray(categorical_features)
    if listed.dtype == bool:
        if listed.shape != (n_features,):
            raise ValueError(
                f"categorical_features as a mask must have {n_features} entries, got {listed.shape}"
            )
        return mask | listed
    for item in listed.reshape(-1).tolist():
        if isinstance(item, str) and item in names:
            mask[names.index(item)] = True
        elif isinstance(item, int) and -n_features <= item < n_features:
            mask[item] = True
        else:
            raise ValueError(f"categorical_features entry {item!r} is not a column of X")
    return mask


def _fit_categorical(column, name: str) -> FeatureSpec:
    _reject_inf_categories(column, name)
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        categories = np.asarray(column.cat.categories)
    else:
        try:
            present = pd.Series(column).dropna()
            ordered = sorted(pd.unique(present), key=_sort_key)
            # Values of several types stay objects: numpy would turn 1.5 into "1.5"
            # next to a string, and the category would never be found again.
            mixed = len({type(value) for value in ordered}) > 1
            categories = np.asarray(ordered, dtype=object if mixed else None)
        except TypeError as exc:  # e.g. a dict or list in a cell
            raise TypeError(
                f"categorical column {name!r} of X holds values that cannot be categories "
                f"(they must be hashable and comparable): {exc}"
            ) from exc
    return FeatureSpec(CATEGORICAL, categories, name=name)


def _reject_inf_categories(column, name: str) -> None:
    values = np.asarray(column)
    if values.dtype.kind == "f" and np.isinf(values).any():
        raise ValueError(f"X contains inf in categorical column {name!r}")


def _categorical_codes(column, spec: FeatureSpec) -> np.ndarray:
    """Codes of a categorical column under a spec: -1 for missing or unseen values."""
    _reject_inf_categories(column, spec.name)
    check_category_values(column, spec.values, spec.name)
    try:
        return pd.Index(spec.values).get_indexer(np.asarray(column)).astype(np.int64)
    except TypeError as exc:
        raise TypeError(
            f"categorical column {spec.name!r} of X holds values that cannot be categories: {exc}"
        ) from exc


def _sort_key(value):
    return (type(value).__name__, value)


def _fit_numeric(values: np.ndarray, name, max_bins, rng) -> FeatureSpec:
    present = values[~np.isnan(values)]
    if max_bins is None:
        return FeatureSpec(NUMERIC, np.unique(present), exact=True, name=name)
    edges = _quantile_edges(present, int(max_bins), rng) if present.size else np.array([])
    return FeatureSpec(NUMERIC, edges, exact=False, name=name)


def _numeric_values(column, name: str) -> np.ndarray:
    values = numeric_values(column, name)  # None, NaN and pd.NA are NaN
    if np.isinf(values).any():
        raise ValueError(f"X contains inf in column {name!r}")
    return values


PARALLEL_ROWS = 50_000  # from this many rows, columns are encoded on several threads


def encode_numeric(values: np.ndarray, spec: FeatureSpec) -> np.ndarray:
    """Codes of raw numeric values under a fitted spec; NaN gets -1."""
    # Exact mode: the rank among the distinct values. Histogram mode: the number
    # of edges strictly below the value, so bin b holds edges[b-1] < x <= edges[b].
    code = count_below(np.asarray(spec.values, dtype=np.float64), values)
    code[np.isnan(values)] = -1
    return code


def encode_features(X, specs: list[FeatureSpec]) -> np.ndarray:
    """New data as one float matrix for prediction, shape (n_samples, n_features).

    Numeric features keep their raw values (the tree compares them with
    thresholds, NaN stays NaN); categorical features become their training
    codes, with -1 for a category unseen in training and NaN for a missing
    value, so that a tree can route the two differently (chapter 6).
    """
    if not isinstance(X, pd.DataFrame) and all(spec.kind == NUMERIC for spec in specs):
        array = np.asarray(X)
        if array.dtype.kind in "biuf":  # fast path: a numeric array, no pandas
            values = np.ascontiguousarray(array, dtype=np.float64)
            return _check_prediction_shape(values, specs, check_inf=False)
    table = as_table(X)
    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    if frame.shape[1] != len(specs):
        raise ValueError(
            f"X has {frame.shape[1]} features, but the estimator was fitted with {len(specs)}"
        )
    values = np.empty(frame.shape, dtype=np.float64, order="F")  # column writes are contiguous
    for j, spec in enumerate(specs):
        column = frame.iloc[:, j]
        if spec.kind == CATEGORICAL:
            values[:, j] = _categorical_codes(column, spec)
            absent = np.asarray(pd.isna(column))
            if absent.any():
                values[absent, j] = np.nan
        else:
            if column.dtype.kind != "b" and _is_categorical_column(column, spec.name):
                raise TypeError(
                    f"column {spec.name!r} was numeric during fit but is {column.dtype} now"
                )
            values[:, j] = _numeric_values(column, spec.name)
    return _check_prediction_shape(values, specs)  # only once every column is filled


def _check_prediction_shape(
    values: np.ndarray, specs: list[FeatureSpec], *, check_inf: bool = True
) -> np.ndarray:
    """Shape checks; ``check_inf=False`` when the caller checks finiteness itself."""
    if values.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {values.shape}")
    if values.shape[1] != len(specs):
        raise ValueError(
            f"X has {values.shape[1]} features, but the estimator was fitted with {len(specs)}"
        )
    if values.shape[0] == 0:
        raise ValueError("X is empty: at least one sample is needed")
    if check_inf and np.isinf(values).any():
        raise ValueError("X contains inf")
    return values


def validate_fit_input(estimator, X, y, sample_weight, *, stacklevel: int = 3):
    """The checks every tree estimator runs on ``fit`` input, in the same wording.

    Returns the input table, ``y`` as a 1-D array and the sample weights.
    ``stacklevel`` points the column-vector warning at the user's ``fit`` call.
    """
    X = as_table(X)
    n_samples, n_features = X.shape
    if n_samples == 0:
        raise ValueError(
            f"X is empty: 0 sample(s) (shape={X.shape}) while a minimum of 1 is required."
        )
    if n_features == 0:
        raise ValueError(
            f"X is empty: 0 feature(s) (shape={X.shape}) while a minimum of 1 is required."
        )
    y = check_target(estimator, y, n_samples, stacklevel=stacklevel + 1)
    weights = check_sample_weight(sample_weight, n_samples)
    return X, y, weights


def check_target(estimator, y, n_samples: int, *, stacklevel: int = 3) -> np.ndarray:
    """The target of ``fit`` as a 1-D array of ``n_samples`` entries (its values unchecked).

    A column vector is accepted with a ``DataConversionWarning`` (as in
    scikit-learn), ``stacklevel`` pointing it at the user's ``fit`` call. The
    values are checked by :func:`mltrees._validation.class_codes` or
    :func:`mltrees._validation.real_targets`.
    """
    import warnings

    from sklearn.exceptions import DataConversionWarning

    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None"
        )
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it is "
            "used as y.ravel(). Pass a 1-D array to silence this warning.",
            DataConversionWarning,
            stacklevel=stacklevel,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {y.shape[0]}")
    return y


@dataclass
class TrainingData:
    """The rows a tree (or every tree of an ensemble) is grown on, binned once.

    ``kept`` indexes the rows of positive weight in ``X``; ``X_kept`` holds
    them (``X`` itself when all are kept); ``codes`` and ``specs`` are their
    binning; ``statistics`` their sufficient statistics; ``attributes`` the
    fitted attributes that the target's preparation owns (``classes_``, ...).
    """

    kept: np.ndarray
    keep: np.ndarray
    X_kept: object
    codes: np.ndarray
    specs: list
    attributes: dict
    statistics: object
    total_weight: float


def prepare_training_data(
    X, y, weights, prepare_target, bin_rows, *, who: str, splits_numbers: bool, advice: str
) -> TrainingData:
    """The one fit pipeline of trees and tree ensembles, up to growth.

    ``prepare_target(y, weights)`` checks the target and returns the final
    weights, the fitted attributes and a maker of statistics for a mask of
    kept rows; ``bin_rows(X)`` bins a table. A sample of weight 0 must not
    influence a tree, not even through its feature values (candidate
    thresholds) or by making a branch non-empty: it is dropped before
    binning. An algorithm that splits categories only (``splits_numbers``
    false, ID3) rejects numeric columns, with ``advice`` on what to do.
    """
    weights, attributes, make_statistics = prepare_target(y, weights)
    keep = weights > 0
    if not keep.any():
        raise ValueError(
            "every sample has weight 0 (after sample_weight and class_weight); "
            "at least one positive weight is needed"
        )
    kept = np.flatnonzero(keep)
    if kept.size == X.shape[0]:
        X_kept = X
    else:
        X_kept = X.iloc[kept] if isinstance(X, pd.DataFrame) else X[kept]
    codes, specs = bin_rows(X_kept)
    if not splits_numbers:
        numeric = [spec.name for spec in specs if spec.kind == NUMERIC]
        if numeric:
            raise ValueError(
                f"{who} splits categorical features only, but column(s) {numeric[:5]} are "
                f"numeric{advice}"
            )
    statistics = make_statistics(keep)
    return TrainingData(
        kept, keep, X_kept, codes, specs, attributes, statistics, float(weights[keep].sum())
    )
