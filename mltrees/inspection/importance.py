"""Global feature importances of tree models: split counts, gain, cover, permutation (chapter 17).

The kinds computed from the trees alone are the ones XGBoost and LightGBM
report. Every internal node ``t`` that tests feature ``j`` adds to ``j``:

* ``"split"``: 1 (XGBoost's ``weight``, LightGBM's ``split``);
* ``"total_gain"``: the node's gain :eq:`eq-importance-gain`, the decrease of the
  weighted impurity ``W_t i_t - sum_c W_c i_c`` (for XGBoost's trees the
  loss change ``G_L^2/(H_L+λ) + G_R^2/(H_R+λ) - G^2/(H+λ)``; LightGBM's ``gain``);
* ``"gain"``: the mean gain per split, total gain / split count (XGBoost's ``gain``);
* ``"total_cover"`` / ``"cover"``: the node's cover ``W_t`` (the training weight,
  for XGBoost the hessian sum), summed or averaged per split.

The *mean decrease in impurity* of scikit-learn and Breiman (MDI, the
``feature_importances_`` of the estimators) is the total gain normalised
per tree and averaged; its bias towards features with many candidate split
points is shown in chapter 17 (and in the random forest chapter).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from mltrees.tree.view import view_of

__all__ = ["KINDS", "importance", "node_gains", "permutation_importance"]

KINDS = ("split", "gain", "total_gain", "cover", "total_cover")


def node_gains(tree) -> np.ndarray:
    """Gain of every node, :eq:`eq-importance-gain`: ``W_t i_t - sum_c W_c i_c`` (0 at leaves).

    ``tree`` is a flat-array :class:`~mltrees.tree.Tree`; the same gains
    make the estimators' ``feature_importances_``
    (:meth:`~mltrees.tree.Tree.node_gains`).
    """
    return tree.node_gains()


def importance(model, kind: str = "gain", *, normalize: bool = False) -> np.ndarray:
    """Importance of every feature from the fitted trees, shape (n_features,).

    Implements the counts and sums of :eq:`eq-importance-gain` (chapter 17)
    over all trees the model predicts with (gains unscaled by learning
    rates or votes, as XGBoost and LightGBM report them).

    Parameters
    ----------
    model : fitted mltrees tree model (see :func:`~mltrees.inspection.tree_shap`)
    kind : {"split", "gain", "total_gain", "cover", "total_cover"}
        ``"gain"`` and ``"cover"`` are means per split (XGBoost's defaults),
        ``"total_gain"`` is LightGBM's ``importance_type="gain"``; a feature
        never used gets 0.
    normalize : bool, default False
        Divide by the sum, so that the importances sum to 1.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be a bool, got {normalize!r}")
    view = view_of(model)
    p = view.n_features
    splits, gains, covers = np.zeros(p), np.zeros(p), np.zeros(p)
    for tree in view.trees:
        internal = np.flatnonzero(~tree.is_leaf)
        feature = tree.feature[internal].astype(np.intp)
        splits += np.bincount(feature, minlength=p)
        gains += np.bincount(feature, weights=node_gains(tree)[internal], minlength=p)
        covers += np.bincount(feature, weights=tree.weighted_n_node_samples[internal], minlength=p)
    used = np.maximum(splits, 1)
    out = {
        "split": splits,
        "total_gain": gains,
        "gain": gains / used,
        "total_cover": covers,
        "cover": covers / used,
    }[kind]
    if normalize:
        total = out.sum()
        out = out / total if total > 0 else out
    return out


def permutation_importance(
    model, X, y, *, scoring=None, n_repeats: int = 5, random_state=None, sample_weight=None
):
    """Drop of the score when one column is shuffled, :eq:`eq-permutation-importance` (chapter 10).

    Breiman (2001)'s measure for random forests, here on any rows (a held-out
    set measures what the model needs to generalise, the training set what
    it used to fit). Model-agnostic: ``model`` needs only ``score`` or a
    ``scoring(model, X, y)`` callable.

    Parameters
    ----------
    model : fitted estimator
    X : array_like or DataFrame (n, p)
    y : array_like (n,)
    scoring : callable or None
        ``scoring(model, X, y) -> float`` (higher is better); None: ``model.score``.
    n_repeats : int, default 5
        Shuffles per feature.
    random_state : int, Generator or None

    Returns
    -------
    dict with ``importances`` (p, n_repeats), ``importances_mean`` and
    ``importances_std`` (p,), and the unshuffled ``baseline`` score.
    """
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral) or n_repeats < 1:
        raise ValueError(f"n_repeats must be an int >= 1, got {n_repeats!r}")
    if scoring is None:

        def scoring(m, data, target):
            if sample_weight is None:
                return m.score(data, target)
            return m.score(data, target, sample_weight=sample_weight)

    elif not callable(scoring):
        raise TypeError(f"scoring must be a callable or None, got {scoring!r}")
    rng = np.random.default_rng(random_state)
    frame = isinstance(X, pd.DataFrame)
    data = X.copy() if frame else np.array(X, copy=True)
    baseline = float(scoring(model, data, y))
    n, p = data.shape
    drops = np.zeros((p, n_repeats))
    for j in range(p):
        original = data.iloc[:, j].copy() if frame else data[:, j].copy()
        for r in range(n_repeats):
            order = rng.permutation(n)
            if frame:
                data.iloc[:, j] = original.iloc[order].to_numpy()
            else:
                data[:, j] = original[order]
            drops[j, r] = baseline - float(scoring(model, data, y))
        if frame:
            data.iloc[:, j] = original.to_numpy()
        else:
            data[:, j] = original
    return {
        "importances": drops,
        "importances_mean": drops.mean(axis=1),
        "importances_std": drops.std(axis=1),
        "baseline": baseline,
    }
