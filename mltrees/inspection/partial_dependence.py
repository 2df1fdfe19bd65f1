"""Partial dependence and ICE curves (Friedman 2001; Goldstein et al. 2015), chapter 17.

The partial dependence of ``f`` on feature ``j`` at value ``v`` averages the
model over the data with column ``j`` set to ``v`` (:eq:`eq-partial-dependence`);
the curves of the single rows before averaging are the ICE curves. For tree
models Friedman's weighted traversal computes a different average, over the
trees' covers: the path-dependent value of the coalition ``{j}``
(:eq:`eq-shap-path-value`). Accumulated local effects (Apley & Zhu 2020,
:eq:`eq-ale`) average changes of the prediction over the rows near each
value instead, so that the model is not evaluated far from the data.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from mltrees._typing import MatrixLike
from mltrees._validation import check_int
from mltrees.inspection.shapley import path_dependent_value
from mltrees.tree.view import view_of

__all__ = [
    "accumulated_local_effects",
    "ice_curves",
    "partial_dependence",
    "tree_partial_dependence",
]


def _column(X, feature):
    if isinstance(X, pd.DataFrame) and isinstance(feature, str):
        if feature not in X.columns:
            raise ValueError(f"feature {feature!r} is not a column of X")
        return X.columns.get_loc(feature)
    if isinstance(feature, bool) or not isinstance(feature, numbers.Integral):
        raise TypeError(f"feature must be a column index (or a column name), got {feature!r}")
    if not 0 <= feature < X.shape[1]:
        raise ValueError(f"feature must be in [0, {X.shape[1]}), got {feature}")
    return int(feature)


def _grid(values, grid, grid_resolution):
    if grid is not None:
        return np.asarray(grid, dtype=np.float64)
    check_int(grid_resolution, "grid_resolution", 2)
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    distinct = np.unique(values)
    if distinct.size <= grid_resolution:
        return distinct
    # Percentiles 5-95, as scikit-learn: the tails hold too few rows to average over.
    return np.unique(np.quantile(values, np.linspace(0.05, 0.95, grid_resolution)))


def ice_curves(predict, X, feature, *, grid=None, grid_resolution: int = 20, outputs=False):
    """Individual conditional expectation: ``f(x_i with x_j = v)`` for every row and grid value.

    Parameters
    ----------
    predict : callable
        ``predict(X) -> (n,)``, e.g. ``model.predict`` or
        ``lambda X: model.predict_proba(X)[:, 1]``.
    X : array_like or DataFrame (n, p)
    feature : int or str
        Numeric column.
    grid : array_like, optional
        Values of the feature; default: ``grid_resolution`` quantiles.

    outputs : bool, default False
        True: ``predict`` returns (n, k) and the curves are (k, n, G).

    Returns
    -------
    grid : ndarray (G,)
    curves : ndarray (n, G), or (k, n, G) with ``outputs=True``
    """
    if not callable(predict):
        raise TypeError(f"predict must be a callable, got {predict!r}")
    frame = isinstance(X, pd.DataFrame)
    if not frame:
        X = np.asarray(X, dtype=np.float64)
    j = _column(X, feature)
    column = X.iloc[:, j].to_numpy() if frame else X[:, j]
    grid = _grid(column, grid, grid_resolution)
    n = X.shape[0]
    # All grid values in one call: the rows repeated G times, column j replaced.
    if frame:
        stacked = pd.concat([X] * grid.size, ignore_index=True)
        stacked.iloc[:, j] = np.repeat(grid, n)
    else:
        stacked = np.tile(X, (grid.size, 1))
        stacked[:, j] = np.repeat(grid, n)
    out = np.asarray(predict(stacked), dtype=np.float64)
    if outputs:  # (G n, k) -> (k, n, G)
        return grid, out.reshape(grid.size, n, -1).transpose(2, 1, 0)
    return grid, out.reshape(grid.size, n).T


def _response(estimator, response_method: str):
    """``f(X) -> (n, n_outputs)`` as scikit-learn's partial dependence reads an estimator.

    A callable is used as it is. For a classifier, ``"auto"`` takes
    ``predict_proba`` (else ``decision_function``); with two classes only the
    positive class's column is kept, as scikit-learn does.
    """
    if not hasattr(estimator, "fit") and callable(estimator):
        return lambda X: np.asarray(estimator(X), dtype=np.float64).reshape(len(X), -1)
    if response_method not in ("auto", "predict_proba", "decision_function"):
        raise ValueError(
            "response_method must be 'auto', 'predict_proba' or 'decision_function', "
            f"got {response_method!r}"
        )
    if not hasattr(estimator, "classes_"):
        if response_method != "auto":
            raise ValueError("response_method applies to classifiers only; use 'auto'")
        return lambda X: np.asarray(estimator.predict(X), dtype=np.float64).reshape(len(X), -1)
    names = (
        ("predict_proba", "decision_function") if response_method == "auto" else (response_method,)
    )
    method = next((getattr(estimator, n) for n in names if hasattr(estimator, n)), None)
    if method is None:
        raise ValueError(f"{type(estimator).__name__} has none of {names}")
    binary = len(estimator.classes_) == 2

    def f(X):
        out = np.asarray(method(X), dtype=np.float64)
        if out.ndim == 1:
            return out[:, None]
        return out[:, 1:] if binary and out.shape[1] == 2 else out

    return f


def _percentile_grid(values, percentiles, grid_resolution):
    """scikit-learn's grid for one column.

    The distinct values when there are fewer than ``grid_resolution``, else
    ``grid_resolution`` evenly spaced values between the two percentiles.
    """
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    low, high = percentiles
    if not 0 <= low < high <= 1:
        raise ValueError(
            f"percentiles must be two increasing values in [0, 1], got {percentiles!r}"
        )
    distinct = np.unique(values)
    if distinct.size < grid_resolution:
        return distinct
    from scipy.stats.mstats import mquantiles  # scikit-learn's percentiles

    ends = mquantiles(values, prob=[low, high])
    if np.isclose(ends[0], ends[1]):
        raise ValueError("the percentiles are too close: the grid would have a single value")
    return np.linspace(ends[0], ends[1], grid_resolution)


def partial_dependence(
    estimator: object,
    X: MatrixLike,
    features: int | str | Sequence[int | str],
    *,
    response_method: str = "auto",
    percentiles: tuple[float, float] = (0.05, 0.95),
    grid_resolution: int = 100,
    custom_values: dict | None = None,
    method: str = "auto",
    kind: str = "average",
) -> Bunch:
    """Partial dependence, :eq:`eq-partial-dependence`, with scikit-learn's signature.

    As ``sklearn.inspection.partial_dependence`` (one feature): the model is
    averaged over the rows of ``X`` with the feature set to each grid value
    (``method="brute"``), or, for a fitted mltrees tree model, computed by
    Friedman's weighted traversal of the trees (``method="recursion"``,
    :func:`tree_partial_dependence`).

    Parameters
    ----------
    estimator : fitted estimator or callable
        A model with ``predict`` (regressors), ``predict_proba`` or
        ``decision_function`` (classifiers), or a function ``f(X) -> (n,)`` or
        ``(n, k)`` (an extension: e.g. a model's margin).
    X : array_like or DataFrame (n, p)
    features : int, str, or a list holding one of them
        The column.
    response_method : {"auto", "predict_proba", "decision_function"}, default "auto"
    percentiles : (float, float), default (0.05, 0.95)
        The grid spans these percentiles of the column (the distinct values
        when there are fewer than ``grid_resolution``).
    grid_resolution : int, default 100
    custom_values : dict, optional
        ``{feature: grid}``: the grid to use instead.
    method : {"auto", "brute", "recursion"}, default "auto"
        "auto": "brute". "recursion": trees only, regressors' predictions and
        boosting margins (the tree model's view, :func:`view_of`).
    kind : {"average", "individual", "both"}, default "average"

    Returns
    -------
    sklearn.utils.Bunch
        ``grid_values`` (a list of one grid), ``average`` of shape
        (n_outputs, G) and, for ``kind="individual"`` or ``"both"``,
        ``individual`` of shape (n_outputs, n, G). Two classes give one
        output, the positive class, as in scikit-learn.
    """
    if kind not in ("average", "individual", "both"):
        raise ValueError(f"kind must be 'average', 'individual' or 'both', got {kind!r}")
    if method not in ("auto", "brute", "recursion"):
        raise ValueError(f"method must be 'auto', 'brute' or 'recursion', got {method!r}")
    if isinstance(features, list | tuple):
        if len(features) != 1:
            raise ValueError(f"features must name one column, got {features!r}")
        features = features[0]
    if not isinstance(X, pd.DataFrame):
        X = np.asarray(X, dtype=np.float64)
    j = _column(X, features)
    column = X.iloc[:, j].to_numpy() if isinstance(X, pd.DataFrame) else X[:, j]
    if custom_values and features in custom_values:
        grid = np.asarray(custom_values[features], dtype=np.float64)
    else:
        check_int(grid_resolution, "grid_resolution", 2)
        grid = _percentile_grid(column, percentiles, grid_resolution)
    if method == "recursion":
        if kind != "average":
            raise ValueError("method='recursion' gives the average only; use method='brute'")
        average = np.asarray(tree_partial_dependence(estimator, X, j, grid), dtype=np.float64)
        average = average.reshape(grid.size, -1).T
        return Bunch(grid_values=[grid], average=average)
    f = _response(estimator, response_method)
    _, curves = ice_curves(lambda Z: f(Z), X, j, grid=grid, outputs=True)
    result = Bunch(grid_values=[grid], average=curves.mean(axis=1))
    if kind != "average":
        result["individual"] = curves
    if kind == "individual":
        del result["average"]
    return result


def accumulated_local_effects(predict, X, feature, *, n_intervals: int = 20):
    """Accumulated local effects (Apley & Zhu 2020), :eq:`eq-ale` (chapter 17).

    The range of feature ``j`` is cut at quantiles ``z_0 < ... < z_A`` of its
    values. Within interval ``a``, each row whose ``x_j`` lies in
    ``(z_{a-1}, z_a]`` (the first interval includes ``z_0``) is moved to the
    interval's two ends and the change of the prediction is averaged over
    those rows only: a local effect that never moves a row far from where
    it is. The effects are summed from the left and centred so that their
    mean over the rows is 0.

    Parameters
    ----------
    predict : callable
        ``predict(X) -> (n,)``.
    X : array_like or DataFrame (n, d)
    feature : int or str
        Numeric column, without missing values.
    n_intervals : int, default 20
        Number of quantile intervals (fewer when values repeat).

    Returns
    -------
    edges : ndarray (A + 1,)
        The interval ends ``z_0, ..., z_A``.
    effects : ndarray (A + 1,)
        The centred accumulated effect at each end (0 accumulated at ``z_0``
        before centring).
    """
    if not callable(predict):
        raise TypeError(f"predict must be a callable, got {predict!r}")
    if (
        isinstance(n_intervals, bool)
        or not isinstance(n_intervals, numbers.Integral)
        or n_intervals < 1
    ):
        raise ValueError(f"n_intervals must be an int >= 1, got {n_intervals!r}")
    frame = isinstance(X, pd.DataFrame)
    if not frame:
        X = np.asarray(X, dtype=np.float64)
    j = _column(X, feature)
    column = np.asarray(X.iloc[:, j] if frame else X[:, j], dtype=np.float64)
    if np.isnan(column).any():
        raise ValueError(
            "the feature has missing values; accumulated local effects need a value per row"
        )
    edges = np.unique(np.quantile(column, np.linspace(0.0, 1.0, int(n_intervals) + 1)))
    if edges.size < 2:
        raise ValueError("the feature has a single value: no interval to take effects over")
    interval = np.clip(np.searchsorted(edges, column, side="left"), 1, edges.size - 1)  # 1..A
    n = column.size

    def moved(values):
        if frame:
            out = X.copy()
            out.iloc[:, j] = values
            return out
        out = X.copy()
        out[:, j] = values
        return out

    # One call with the rows at their upper ends, one at their lower ends.
    both = np.asarray(
        predict(_stack(moved(edges[interval]), moved(edges[interval - 1]), frame)), dtype=np.float64
    )
    change = both[:n] - both[n:]
    counts = np.bincount(interval, minlength=edges.size)[1:]
    local = np.bincount(interval, weights=change, minlength=edges.size)[1:] / counts
    accumulated = np.concatenate([[0.0], np.cumsum(local)])
    centre = (counts * accumulated[1:]).sum() / n  # mean over rows of the value of their interval
    return edges, accumulated - centre


def _stack(a, b, frame):
    return pd.concat([a, b], ignore_index=True) if frame else np.vstack([a, b])


def tree_partial_dependence(model, X, feature, grid) -> np.ndarray:
    """Friedman's weighted traversal: ``E[f | x_j = v]`` along the trees' covers.

    The path-dependent value :eq:`eq-shap-path-value` of the coalition
    ``{j}`` with ``x_j`` on the grid (the other columns of ``X`` are not
    read). It weights the branches of other features by the covers of the
    rows that passed the tests on ``x_j`` above them (hessian sums for
    boosting with a loss other than the squared error), where
    :func:`partial_dependence` weights all rows alike: on the training rows
    the two agree up to sampling noise when ``x_j`` is independent of the
    features tested along with it, and differ when it is not (chapter 17).

    Returns
    -------
    ndarray (G, n_outputs), or (G,) for one output.
    """
    view = view_of(model)
    frame = isinstance(X, pd.DataFrame)
    j = _column(X, feature)
    grid = np.asarray(grid, dtype=np.float64)
    rows = X.iloc[np.zeros(grid.size, dtype=np.intp)].copy() if frame else None
    if frame:
        rows.iloc[:, j] = grid
    else:
        rows = np.tile(np.asarray(X, dtype=np.float64)[:1], (grid.size, 1))
        rows[:, j] = grid
    coalition = np.zeros(view.n_features, dtype=bool)
    coalition[j] = True
    out = path_dependent_value(view, rows, coalition)
    return out[:, 0] if view.squeeze else out
