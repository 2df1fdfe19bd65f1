"""Shapley values by their definition: enumerate every coalition (chapter 17).

The cost is ``2^d`` evaluations of the value function, each vectorised over
rows, so this is for a handful of features: it is the reference that
TreeSHAP (:mod:`mltrees.inspection.treeshap`) must reproduce.
"""

from __future__ import annotations

from math import factorial

import numpy as np
import pandas as pd

from mltrees.tree._tree import CATEGORICAL_NODE, MISSING_ALL_BRANCHES, MISSING_NONE
from mltrees.tree.view import view_of

__all__ = [
    "brute_force_shap",
    "brute_force_shap_interactions",
    "interventional_value",
    "path_dependent_value",
    "shapley_interaction_values",
    "shapley_values",
    "shapley_weight",
]

MAX_PLAYERS = 16


def shapley_weight(size: int, n_players: int) -> float:
    """``|S|! (p - |S| - 1)! / p!``: the weight of coalition S in :eq:`eq-shapley`."""
    return factorial(size) * factorial(n_players - size - 1) / factorial(n_players)


def coalition_values(value, n_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The value of every coalition of ``n_players`` players, coalition ``S`` as bit mask ``S``.

    The enumeration :func:`shapley_values` and :func:`shapley_interaction_values`
    share: bit ``i`` of a mask says whether player ``i`` is in the coalition,
    so ``S | (1 << i)`` is ``S`` joined by ``i``.

    Returns
    -------
    masks : ndarray of shape (2^p,)
        ``0, 1, ..., 2^p - 1``.
    members : ndarray of bool, shape (2^p, p)
        The players of each coalition.
    values : ndarray of shape ``(2^p,) + value's shape``
        ``value(members[S])`` for every ``S``.
    """
    if not isinstance(n_players, (int, np.integer)) or not 1 <= n_players <= MAX_PLAYERS:
        raise ValueError(f"n_players must be an int in [1, {MAX_PLAYERS}], got {n_players!r}")
    p = int(n_players)
    masks = np.arange(1 << p)
    members = ((masks[:, None] >> np.arange(p)) & 1).astype(bool)
    values = np.stack([np.asarray(value(members[s]), dtype=np.float64) for s in masks])
    return masks, members, values


def shapley_values(value, n_players: int) -> np.ndarray:
    """Shapley values of a game by enumeration of all coalitions, :eq:`eq-shapley` (chapter 17).

    Parameters
    ----------
    value : callable
        ``value(coalition)`` with ``coalition`` a boolean array of length
        ``n_players``; returns a number or an array (e.g. one value per row).
    n_players : int

    Returns
    -------
    ndarray of shape ``(n_players,) + value's shape``; for row-wise values
    of shape (n, ...) the players' axis is moved to position 1: (n, p, ...).
    """
    masks, members, v = coalition_values(value, n_players)
    p = members.shape[1]
    phi = np.zeros((p, *v.shape[1:]))
    for i in range(p):
        without = masks[~members[:, i]]
        sizes = members[without].sum(axis=1)
        weights = np.array([shapley_weight(int(k), p) for k in sizes])
        gain = v[without | (1 << i)] - v[without]
        phi[i] = np.tensordot(weights, gain, axes=1)
    return np.moveaxis(phi, 0, 1) if phi.ndim > 1 else phi


def shapley_interaction_values(value, n_players: int) -> np.ndarray:
    """SHAP interaction values of a game by enumeration, :eq:`eq-shap-interaction` (chapter 17).

    The Shapley interaction index of Grabisch and Roubens (1999), split
    evenly between the two orders of a pair as Lundberg et al. (2020) do:
    for ``i != j``, ``Phi[i, j]`` sums
    ``|S|! (p - |S| - 2)! / (2 (p - 1)!) * (v(S+i+j) - v(S+i) - v(S+j) + v(S))``
    over the coalitions ``S`` of the other players; the diagonal holds the
    main effects ``Phi[i, i] = phi_i - sum_{j != i} Phi[i, j]``.

    Parameters
    ----------
    value : callable
        As in :func:`shapley_values`.
    n_players : int

    Returns
    -------
    ndarray of shape ``(p, p) + value's shape``; for row-wise values of shape
    (n, ...) the players' axes are moved to positions 1 and 2: (n, p, p, ...).
    """
    masks, members, v = coalition_values(value, n_players)
    p = members.shape[1]
    Phi = np.zeros((p, p, *v.shape[1:]))
    sizes = members.sum(axis=1)
    for i in range(p):
        for j in range(i + 1, p):
            without = masks[~members[:, i] & ~members[:, j]]
            k = sizes[without]
            weights = np.array(
                [factorial(int(s)) * factorial(p - int(s) - 2) / factorial(p - 1) / 2 for s in k]
            )
            second = (
                v[without | (1 << i) | (1 << j)] - v[without | (1 << i)] - v[without | (1 << j)]
            ) + v[without]
            Phi[i, j] = Phi[j, i] = np.tensordot(weights, second, axes=1)
    phi = shapley_values(value, p)
    phi = np.moveaxis(phi, 1, 0) if phi.ndim > 1 else phi
    for i in range(p):
        Phi[i, i] = phi[i] - Phi[i].sum(axis=0)
    return np.moveaxis(Phi, (0, 1), (1, 2)) if Phi.ndim > 2 else Phi


def _route(tree, node: int, x: np.ndarray) -> np.ndarray:
    """The slot each row takes at ``node`` (-1: stops there, -2: split over all branches)."""
    value = x[:, int(tree.feature[node])]
    if tree.kind[node] == CATEGORICAL_NODE:
        codes = np.where(np.isnan(value), -1, value).astype(np.intp)
        known = (codes >= 0) & (codes < tree.n_categories[node])
        slot = np.where(
            known, tree.route_table[tree.route_offset[node] + np.where(known, codes, 0)], -1
        )
    else:
        slot = (value > tree.threshold[node]).astype(np.intp)
    if (tree.missing_slot != MISSING_NONE).any():
        ms = int(tree.missing_slot[node])
        fill = ms if ms >= 0 else (-2 if ms == MISSING_ALL_BRANCHES else -1)
        slot = np.where(np.isnan(value), fill, slot)
    return slot


def _tree_value(tree, table, x: np.ndarray, known: np.ndarray) -> np.ndarray:
    """:eq:`eq-shap-path-value` for one tree: the recursion of Lundberg et al.'s Algorithm 1.

    A node testing a feature of the coalition sends the row where its value
    goes; any other node sends it down every branch with the branch's share
    of the training cover. A node loop: this is the definition, for small trees.
    """
    n = x.shape[0]
    fraction = tree.branch_fraction()
    weight = np.zeros((n, tree.node_count))
    weight[:, 0] = 1.0
    out = np.zeros((n, table.shape[1]))
    for node in np.argsort(tree.depth, kind="stable"):
        w = weight[:, node]
        if tree.feature[node] < 0:
            out += w[:, None] * table[node]
            continue
        children = tree.first_child[node] + np.arange(tree.n_children[node])
        if known[int(tree.feature[node])]:
            slot = _route(tree, node, x)
            out += (w * (slot == -1))[:, None] * table[node]
            for k, c in enumerate(children):
                weight[:, c] = w * ((slot == k) + (slot == -2) * fraction[c])
        else:
            for c in children:
                weight[:, c] = w * fraction[c]
    return out


def path_dependent_value(model, X, coalition) -> np.ndarray:
    """``E[f(x) | x_S]`` along the trees' covers, :eq:`eq-shap-path-value`, shape (n, n_outputs)."""
    view = view_of(model)
    x = view.encode(X)
    known = np.asarray(coalition, dtype=bool)
    out = np.tile(view.base, (x.shape[0], 1))
    for tree, table, cols in zip(view.trees, view.tables, view.columns, strict=True):
        out[:, cols] += _tree_value(tree, np.asarray(table, dtype=np.float64), x, known)
    return out


def _hybrid(X, background, coalition, n_rows: int, n_background: int):
    """Every (row, background row) pair with the row's values on the coalition."""
    rows = np.repeat(np.arange(n_rows), n_background)
    bgs = np.tile(np.arange(n_background), n_rows)
    if isinstance(X, pd.DataFrame):
        out = background.iloc[bgs].reset_index(drop=True).copy()
        for j in np.flatnonzero(coalition):
            out.iloc[:, j] = X.iloc[rows, j].to_numpy()
        return out
    X = np.asarray(X)
    background = np.asarray(background)
    return np.where(coalition[None, :], X[rows], background[bgs])


def interventional_value(model, X, background, coalition) -> np.ndarray:
    """``mean_b f(x_S, b_{not S})``, :eq:`eq-shap-interventional`, by calling the model itself."""
    view = view_of(model)
    n = len(X)
    nb = len(background)
    hybrid = _hybrid(X, background, np.asarray(coalition, dtype=bool), n, nb)
    out = view.output(hybrid)
    return out.reshape(n, nb, -1).mean(axis=1)


def _shap_game(view, X, background):
    """The game SHAP explains, shared by the brute-force values and interactions.

    Path-dependent (:func:`path_dependent_value`) without ``background``,
    interventional (:func:`interventional_value`) with it.
    """
    if background is None:
        return lambda s: path_dependent_value(view, X, s)
    return lambda s: interventional_value(view, X, background, s)


def brute_force_shap(model, X, *, background=None) -> np.ndarray:
    """SHAP values by enumeration of the ``2^d`` coalitions, :eq:`eq-shapley` (chapter 17).

    Path-dependent (:func:`path_dependent_value`) or, given ``background``,
    interventional (:func:`interventional_value`). Same shapes as
    :func:`~mltrees.inspection.tree_shap`'s ``values``.
    """
    view = view_of(model)
    phi = shapley_values(_shap_game(view, X, background), view.n_features)
    return phi[:, :, 0] if view.squeeze else phi


def brute_force_shap_interactions(model, X, *, background=None) -> np.ndarray:
    """SHAP interaction values by enumeration of the ``2^d`` coalitions (chapter 17).

    :func:`shapley_interaction_values` (:eq:`eq-shap-interaction`) of the
    path-dependent game (:func:`path_dependent_value`) or, given
    ``background``, of the interventional game (:func:`interventional_value`).
    Same shapes as :func:`~mltrees.inspection.tree_shap_interactions`'s ``values``.
    """
    view = view_of(model)
    Phi = shapley_interaction_values(_shap_game(view, X, background), view.n_features)
    return Phi[..., 0] if view.squeeze else Phi
