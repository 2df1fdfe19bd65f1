"""The one rule for the columns of a user's table, shared by every estimator.

A column is either **numeric** or **categorical**, decided by its dtype:

* numeric: ``int``, ``float`` and ``uint`` columns, pandas' nullable
  ``Int*``/``UInt*``/``Float*`` columns (``pd.NA`` is a missing value, NaN),
  and ``object`` columns whose values are all numbers (what
  ``SimpleImputer(strategy="most_frequent")`` returns for a numeric column),
  which scikit-learn also reads as numbers;
* categorical: ``category``, ``string`` and pandas 3's default ``str``
  columns, ``bool`` and nullable ``boolean`` columns, and ``object`` columns
  of strings or other values; missing entries (None, NaN, ``pd.NA``) are
  missing values, not a category. An ``object`` column that mixes numbers
  with other values is categorical too, with a :class:`MixedColumnWarning`
  naming it, since it is often a numeric column with placeholders ("?");
* dates, durations, periods, intervals and complex numbers are refused with
  a ``TypeError`` that names the column.

Estimators that split categories use the categorical columns as they are (the
tree engine, LightGBM, oblivious boosting) or as the numbers of their
categories (XGBoost); those that split numbers only (oblique trees, the
Hoeffding tree) refuse them with the column's name. Every message names the
column, never its position alone.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd

__all__ = [
    "ColumnTypeError",
    "MixedColumnWarning",
    "category_codes",
    "frame_as_numbers",
    "is_categorical",
    "learn_categories",
    "learn_frame_categories",
    "numbers_only",
    "numeric_values",
    "refuse_categories",
    "refuse_dtype",
]

# pd.api.types.infer_dtype's names for the values of an object column.
_NUMBERS = {"integer", "floating", "mixed-integer-float", "decimal", "empty"}
_REFUSED = {
    "datetime64",
    "datetime",
    "date",
    "timedelta64",
    "timedelta",
    "time",
    "period",
    "interval",
    "complex",
}


class MixedColumnWarning(UserWarning):
    """An object column mixes numbers with other values; it is read as categorical.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from mltrees import CARTClassifier, MixedColumnWarning
    >>> X = pd.DataFrame({"size": pd.Series([1.5, "?", 2.5, 3.0], dtype=object)})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = CARTClassifier().fit(X, [0, 1, 0, 1])
    ...
    >>> caught[0].category is MixedColumnWarning
    True
    >>> X["size"] = pd.to_numeric(X["size"], errors="coerce")  # the fix: numbers, "?" missing
    >>> _ = CARTClassifier().fit(X, [0, 1, 0, 1])
    """


class ColumnTypeError(TypeError, ValueError):
    """A column of a kind the estimator cannot use (categories for a numeric-only model).

    Both a TypeError and a ValueError, as :class:`mltrees._validation.ParameterError`:
    callers catching either keep working.

    Examples
    --------
    >>> import pandas as pd
    >>> from mltrees import ColumnTypeError, ObliqueTreeClassifier
    >>> X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "color": ["red", "blue", "red", "blue"]})
    >>> try:
    ...     ObliqueTreeClassifier().fit(X, [0, 1, 0, 1])
    ... except ColumnTypeError as error:  # also a TypeError and a ValueError
    ...     print(str(error).split(":")[0])
    ...
    X column 'color' is categorical (str), and ObliqueTreeClassifier splits numbers only
    """


def refuse_dtype(name: str, dtype) -> None:
    """Refuse a column no tree splits (dates, durations, intervals, complex), naming it."""
    raise TypeError(
        f"X column {name!r} has dtype {dtype}, which no tree splits: convert it to numbers "
        "(e.g. a date to days since a reference day) or to categories (.astype('category'))"
    )


def _object_kind(values, name: str) -> bool:
    """Whether an object column is categorical (True) or numeric (False), by its values."""
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in _NUMBERS:
        return False
    if inferred in _REFUSED:
        refuse_dtype(name, f"object ({inferred} values)")
    if inferred in ("mixed", "mixed-integer"):
        warnings.warn(
            f"X column {name!r} mixes numbers with other values; it is read as categorical "
            "(every distinct value a category). If it holds numbers with placeholders, "
            f"convert it first: pd.to_numeric(X[{name!r}], errors='coerce')",
            MixedColumnWarning,
            stacklevel=4,
        )
    return True


def is_categorical(column, name: str) -> bool:
    """Whether a column (a pandas Series or a 1-D array) is categorical under the rule."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype | pd.StringDtype | pd.BooleanDtype):
        return True
    if isinstance(dtype, pd.DatetimeTZDtype | pd.PeriodDtype | pd.IntervalDtype):
        refuse_dtype(name, dtype)
    if isinstance(dtype, pd.SparseDtype):
        raise TypeError(f"X column {name!r} is sparse ({dtype}); pass dense columns")
    kind = dtype.kind
    if kind in "biuf":
        return kind == "b"
    if kind in "USa":
        return True
    if kind == "O":
        return _object_kind(column, name)
    refuse_dtype(name, dtype)  # datetime64, timedelta64, complex, void
    return False  # not reached


def numeric_values(column, name: str) -> np.ndarray:
    """A numeric (or bool) column as float64, missing values (None, NaN, ``pd.NA``) as NaN.

    Raises a TypeError naming the column if it holds anything but numbers.
    """
    dtype = column.dtype
    if not isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "biuf":
        return np.asarray(column, dtype=np.float64)
    try:
        if isinstance(column, pd.Series | pd.Index):
            if isinstance(dtype, pd.CategoricalDtype):
                raise TypeError("a categorical column has no numbers")
            return column.to_numpy(dtype=np.float64, na_value=np.nan)
        values = np.asarray(column, dtype=object)
        missing = pd.isna(values)
        out = np.full(values.shape, np.nan)
        out[~missing] = values[~missing].astype(np.float64)
        return out
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X column {name!r} is not numeric ({dtype}): {exc}") from exc


def learn_categories(column) -> np.ndarray:
    """The categories of a categorical column, in code order.

    A pandas ``category`` column keeps its declared categories (their order
    too); any other column gets its distinct present values, sorted (by type
    name, then value, so that mixed types sort).
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        return np.asarray(column.cat.categories)
    present = pd.Series(np.asarray(column, dtype=object)).dropna()
    return np.asarray(
        sorted(pd.unique(present), key=lambda value: (type(value).__name__, value)), dtype=object
    )


def check_category_values(column, categories, name: str) -> None:
    """Refuse numbers where the model learned a column of text categories.

    A column that was categorical in training may arrive with other dtypes
    (``str`` for ``category``, ...), but a column of numbers can match none
    of the categories ``'red'``, ``'green'``: every row would be an unseen
    category, a silent wrong prediction. Categories that are numbers
    themselves (``category`` of ints, ``bool``) still match numbers.
    """
    dtype = getattr(column, "dtype", np.asarray(column).dtype)
    if isinstance(dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(dtype):
        return
    if pd.api.types.is_bool_dtype(dtype) or len(categories) == 0:
        return
    if any(isinstance(value, (numbers.Number, np.number)) for value in categories):
        return
    if pd.isna(np.asarray(column, dtype=object)).all():
        return
    raise TypeError(
        f"X column {name!r} was categorical when the model was fitted (categories such as "
        f"{categories[0]!r}) but holds numbers ({dtype}) now, which match none of them: "
        "pass the column's categories, not their codes"
    )


def category_codes(column, categories: np.ndarray, name: str | None = None) -> np.ndarray:
    """Codes of a column's values among ``categories`` (float): NaN if missing or unseen.

    With ``name``, numbers where the categories are text are refused
    (:func:`check_category_values`).
    """
    if name is not None:
        check_category_values(column, categories, name)
    codes = pd.Index(categories).get_indexer(np.asarray(column, dtype=object)).astype(np.float64)
    codes[codes < 0] = np.nan
    return codes


def refuse_categories(table, who: str, advice: str) -> None:
    """Raise for the first categorical column of a DataFrame, naming it (numeric-only models)."""
    if not isinstance(table, pd.DataFrame):
        return
    for name in table.columns:
        column = table[name]
        if is_categorical(column, str(name)):
            raise ColumnTypeError(
                f"X column {str(name)!r} is categorical ({column.dtype}), and {who} splits "
                f"numbers only: {advice}"
            )


def learn_frame_categories(frame: pd.DataFrame) -> tuple[dict, list]:
    """The categories of every categorical column of a training DataFrame.

    Returns ``{column: categories in code order}`` and the columns that were
    ordered pandas categories (their codes carry an order).
    """
    categories, ordered = {}, []
    for name in frame.columns:
        column = frame[name]
        if is_categorical(column, str(name)):
            categories[name] = learn_categories(column)
            if isinstance(column.dtype, pd.CategoricalDtype) and column.dtype.ordered:
                ordered.append(name)
    return categories, ordered


def frame_as_numbers(frame: pd.DataFrame, categories: dict) -> pd.DataFrame:
    """A DataFrame as float64 columns: categorical ones become their codes under ``categories``.

    ``categories`` maps a column to its categories in code order (an array, or
    a pandas ``CategoricalDtype``).

    Missing and unseen categories become NaN. A column that was numeric in
    training must hold numbers (a TypeError names it otherwise).
    """
    out = {}
    for name in frame.columns:
        column = frame[name]
        if name in categories:
            known = categories[name]  # an array of categories, or a pandas CategoricalDtype
            known = known.categories if isinstance(known, pd.CategoricalDtype) else known
            out[name] = category_codes(column, known, str(name))
        elif column.dtype.kind != "b" and is_categorical(column, str(name)):
            raise TypeError(
                f"X column {str(name)!r} was numeric when the model was fitted but is "
                f"{column.dtype} now"
            )
        else:
            out[name] = numeric_values(column, str(name))
    return pd.DataFrame(out, index=frame.index, columns=frame.columns)


def numbers_only(X, who: str, *, categories_advice: str, missing_advice: str | None):
    """A numeric-only estimator's input: categorical and (unless allowed) missing values refused.

    ``X`` is returned with the columns of a DataFrame as float64 numbers
    (nullable integers and object columns of numbers converted), ready for
    ``validate_data``. A categorical column raises a TypeError, a missing
    value (if ``missing_advice`` is not None) a ValueError, both naming the
    column and saying what to do.
    """
    from mltrees._input_checks import check_unique_columns

    check_unique_columns(X)  # a repeated name could not tell its columns apart
    if isinstance(X, pd.DataFrame):
        refuse_categories(X, who, categories_advice)
        X = frame_as_numbers(X, {})
        names = [str(name) for name in X.columns]
        missing = X.isna().to_numpy().any(axis=0)
    else:
        array = np.asarray(X)
        if array.ndim != 2 or array.dtype.kind not in "biuf":
            return X  # validate_data reports the shape or the dtype
        names = [str(j) for j in range(array.shape[1])]
        missing = np.isnan(array).any(axis=0) if array.dtype.kind == "f" else np.zeros(0, bool)
    if missing_advice is not None and missing.any():
        column = names[int(np.argmax(missing))]
        raise ValueError(
            f"X has missing values (NaN) in column {column!r}, and {who} needs every value: "
            f"{missing_advice}"
        )
    return X
