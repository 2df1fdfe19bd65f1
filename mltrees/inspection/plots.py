"""Pictures of explanations with matplotlib only: beeswarm, dependence, PD/ICE (chapter 17)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from mltrees._optional import import_optional
from mltrees._typing import MatrixLike

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "dependence_plot",
    "plot_importance",
    "plot_partial_dependence",
    "summary_plot",
]


def _axes(ax, feature: str):
    plt = import_optional("matplotlib.pyplot", extra="plot", feature=feature)
    return plt.gca() if ax is None else ax


def _one_output(values, output):
    """The (n, d) values of one output, from (n, d) or (n, d, n_outputs) with ``output`` given."""
    values = np.asarray(values)
    if values.ndim == 3:
        if output is None:
            raise ValueError(
                "explanation has one column of values per output; choose one with output="
            )
        values = values[:, :, output]
    return values


def _swarm_offsets(values: np.ndarray, n_bins: int = 60, width: float = 0.4) -> np.ndarray:
    """Vertical offsets that spread points of similar value: a row of a beeswarm.

    Points are binned by value; the k-th point of a bin goes to
    ``+-ceil(k/2)`` steps from the centre line, so the row's thickness shows
    the density.
    """
    n = values.size
    if n == 0:
        return np.zeros(0)
    span = np.ptp(values) or 1.0
    bins = np.minimum(((values - values.min()) / span * n_bins).astype(np.intp), n_bins - 1)
    order = np.argsort(bins, kind="stable")
    sorted_bins = bins[order]
    first = np.searchsorted(sorted_bins, sorted_bins, side="left")
    rank = np.arange(n) - first
    step = (rank + 1) // 2 * np.where(rank % 2 == 0, 1.0, -1.0)
    height = np.bincount(bins, minlength=n_bins).max()
    offsets = np.empty(n)
    offsets[order] = step * (2 * width / max(height, 1))
    return offsets


def summary_plot(explanation, *, output=None, max_display: int = 12, ax=None, cmap="coolwarm"):
    """Beeswarm of SHAP values: one row per feature, one point per row, colour = feature value.

    Features are sorted by mean ``|phi|``; colours are the feature's value
    as a percentile among the rows (blue low, red high), NaN in grey.
    """
    values = _one_output(explanation.values, output)
    data = np.asarray(explanation.data, dtype=np.float64)
    names = list(explanation.feature_names)
    ax = _axes(ax, "summary_plot")
    import matplotlib as mpl

    order = np.argsort(np.abs(values).mean(axis=0))[::-1][:max_display]
    colormap = mpl.colormaps[cmap]
    for row, j in enumerate(order[::-1]):
        x = data[:, j]
        known = ~np.isnan(x)
        rank = np.full(x.shape, np.nan)
        if known.any():
            low, high = np.nanpercentile(x, [5, 95])
            rank[known] = np.clip((x[known] - low) / ((high - low) or 1.0), 0, 1)
        y = row + _swarm_offsets(values[:, j])
        colours = np.where(known[:, None], colormap(np.nan_to_num(rank)), (0.6, 0.6, 0.6, 1.0))
        ax.scatter(values[:, j], y, c=colours, s=8, linewidths=0, rasterized=True)
    ax.axvline(0.0, color="0.5", lw=0.8)
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels([names[j] for j in order[::-1]])
    ax.set_xlabel("SHAP value (impact on the explained output)")
    mappable = mpl.cm.ScalarMappable(cmap=colormap)
    bar = ax.figure.colorbar(mappable, ax=ax, ticks=[0, 1], aspect=40, pad=0.02)
    bar.set_ticklabels(["low", "high"])
    bar.set_label("feature value")
    return ax


def dependence_plot(explanation, feature, *, color_by=None, output=None, ax=None):
    """SHAP value of one feature against its value; colour by a second feature if given.

    The vertical spread at a given value comes from the feature's
    interactions with the others (and, in the path-dependent game, from their
    dependence on it); ``color_by`` shows whether a given feature is the one.
    Given an :class:`~mltrees.inspection.InteractionExplanation`, the main
    effects ``Phi_jj`` are drawn instead, the SHAP value without its
    interactions (chapter 17).
    """
    main = hasattr(explanation, "main_effects")
    values = _one_output(explanation.main_effects if main else explanation.values, output)
    names = list(explanation.feature_names)
    j = names.index(feature) if isinstance(feature, str) else int(feature)
    data = np.asarray(explanation.data, dtype=np.float64)
    ax = _axes(ax, "dependence_plot")
    if color_by is None:
        ax.scatter(data[:, j], values[:, j], s=8, color="tab:blue", linewidths=0)
    else:
        k = names.index(color_by) if isinstance(color_by, str) else int(color_by)
        points = ax.scatter(data[:, j], values[:, j], s=8, c=data[:, k], cmap="coolwarm")
        ax.figure.colorbar(points, ax=ax, label=names[k])
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_xlabel(names[j])
    ax.set_ylabel(f"SHAP main effect of {names[j]}" if main else f"SHAP value of {names[j]}")
    return ax


def plot_partial_dependence(
    estimator: object,
    X: MatrixLike,
    features: int | str | Sequence[int | str],
    *,
    kind: str = "average",
    response_method: str = "auto",
    percentiles: tuple[float, float] = (0.05, 0.95),
    grid_resolution: int = 100,
    custom_values: dict | None = None,
    output: int = 0,
    ax: Axes | None = None,
    n_curves: int = 50,
) -> Axes:
    """Partial dependence (thick) over ICE curves (thin), as scikit-learn's display draws them.

    The arguments are :func:`~mltrees.inspection.partial_dependence`'s (and
    scikit-learn's ``PartialDependenceDisplay.from_estimator``'s for one
    feature): ``kind="average"``, ``"individual"`` or ``"both"``. ``output``
    picks the class of a multiclass model; ``n_curves`` ICE curves at most are
    drawn, evenly spread over the rows. Returns the Axes.
    """
    from mltrees.inspection.partial_dependence import partial_dependence

    result = partial_dependence(
        estimator,
        X,
        features,
        response_method=response_method,
        percentiles=percentiles,
        grid_resolution=grid_resolution,
        custom_values=custom_values,
        kind="both" if kind != "average" else "average",
    )
    grid = result["grid_values"][0]
    ax = _axes(ax, "plot_partial_dependence")
    if kind != "average":
        curves = np.asarray(result["individual"][output])
        step = max(1, curves.shape[0] // n_curves)
        ax.plot(grid, curves[::step].T, color="tab:blue", alpha=0.2, lw=0.8)
    if kind != "individual":
        ax.plot(grid, result["average"][output], color="black", lw=2.5, label="partial dependence")
        ax.legend()
    ax.set_xlabel(str(features[0] if isinstance(features, list | tuple) else features))
    return ax


IMPORTANCE_TYPES = {
    "weight": "split",
    "split": "split",
    "gain": "gain",
    "cover": "cover",
    "total_gain": "total_gain",
    "total_cover": "total_cover",
}


def plot_importance(
    booster: object,
    ax: Axes | None = None,
    *,
    height: float = 0.2,
    xlim=None,
    ylim=None,
    title: str | None = "Feature importance",
    xlabel: str | None = "Importance score",
    ylabel: str | None = "Features",
    importance_type: str = "gain",
    max_num_features: int | None = None,
    grid: bool = True,
    feature_names: Sequence[str] | None = None,
    **kwargs,
) -> Axes:
    """Horizontal bars of a model's feature importances, largest on top (XGBoost's and LightGBM's).

    The signature is ``xgboost.plot_importance``'s (and ``lightgbm.plot_importance``'s):
    the first argument is a fitted mltrees tree model (its importances come
    from :func:`~mltrees.inspection.importance`), or an array of importances
    (then ``feature_names`` names them).

    Parameters
    ----------
    booster : fitted mltrees tree model, or array_like of shape (n_features,)
    ax : matplotlib Axes, optional
    height : float, default 0.2
        Bar height, as in XGBoost.
    xlim, ylim : tuple, optional
    title, xlabel, ylabel : str or None
    importance_type : {"gain", "weight", "split", "cover", "total_gain", "total_cover"}
        XGBoost's names (``"weight"`` is the number of splits, LightGBM's ``"split"``).
    max_num_features : int, optional
        Show the largest ones only.
    grid : bool, default True
    feature_names : list of str, optional
        Default: the model's ``feature_names_in_``, else ``f0, f1, ...``.
    **kwargs
        Passed to ``Axes.barh``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if importance_type not in IMPORTANCE_TYPES:
        raise ValueError(
            f"importance_type must be one of {sorted(IMPORTANCE_TYPES)}, got {importance_type!r}"
        )
    if hasattr(booster, "fit"):
        from mltrees.inspection.importance import importance

        values = importance(booster, IMPORTANCE_TYPES[importance_type])
        names = getattr(booster, "feature_names_in_", None) if feature_names is None else None
    else:
        values = np.asarray(booster, dtype=np.float64)
        names = None
    if feature_names is not None:
        names = feature_names
    if names is None:
        names = [f"f{j}" for j in range(values.size)]
    names = [str(name) for name in names]
    if len(names) != values.size:
        raise ValueError(f"feature_names has {len(names)} names for {values.size} importances")
    order = np.argsort(values, kind="stable")[::-1]
    if max_num_features is not None:
        order = order[: int(max_num_features)]
    order = order[::-1]
    ax = _axes(ax, "plot_importance")
    ax.barh(range(order.size), values[order], height=height, align="center", **kwargs)
    ax.set_yticks(range(order.size))
    ax.set_yticklabels([names[j] for j in order])
    if xlim is not None:
        ax.set_xlim(xlim)
    if ylim is not None:
        ax.set_ylim(ylim)
    if title is not None:
        ax.set_title(title)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.grid(grid)
    return ax
