"""Breiman's strength and correlation of a voting ensemble (chapter 10).

Breiman (2001) bounds the generalisation error of a random forest by the
strength ``s`` of its trees and the mean correlation ``rho_bar`` of their raw
margins, :eq:`eq-forest-bound`. Both are estimated from the members' votes on
rows they did not see: held-out rows, or each member's out-of-bag rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["StrengthCorrelation", "strength_correlation"]


class StrengthCorrelation(NamedTuple):
    """The quantities of Breiman's bound, estimated from votes (chapter 10)."""

    strength: float
    """``s``: the mean margin :eq:`eq-forest-strength`."""
    margin_variance: float
    """``var(mr)`` over the rows."""
    mean_sd: float
    """``E_Theta sd(Theta)``: the members' mean raw-margin standard deviation."""
    correlation: float
    """``rho_bar = var(mr) / mean_sd**2`` :eq:`eq-forest-rho-bar`."""
    bound: float
    """``rho_bar (1 - s^2) / s^2`` :eq:`eq-forest-bound` (inf when s <= 0)."""
    error: float
    """Share of rows with a negative margin: the error the bound bounds."""
    n_rows: int
    """Rows that received at least one vote."""


def _check_votes(votes, y, mask, n_classes):
    votes = np.asarray(votes)
    y = np.asarray(y)
    if votes.ndim != 2 or votes.dtype.kind not in "iu":
        raise ValueError(
            "votes must be a 2-d integer array (members, rows) of class indices, "
            f"got shape {votes.shape} and dtype {votes.dtype}"
        )
    if y.ndim != 1 or y.dtype.kind not in "iu" or y.shape[0] != votes.shape[1]:
        raise ValueError(
            f"y must be a 1-d integer array of {votes.shape[1]} class indices (one per "
            f"column of votes), got shape {y.shape} and dtype {y.dtype}"
        )
    if n_classes is None:
        n_classes = int(max(votes.max(initial=0), y.max(initial=0))) + 1
    if isinstance(n_classes, bool) or not isinstance(n_classes, int | np.integer):
        raise TypeError(f"n_classes must be an int, got {n_classes!r}")
    n_classes = max(int(n_classes), 2)
    for name, codes in (("votes", votes), ("y", y)):
        if codes.size and (codes.min() < 0 or codes.max() >= n_classes):
            raise ValueError(f"{name} must hold class indices in [0, {n_classes - 1}]")
    if mask is None:
        mask = np.ones(votes.shape, dtype=bool)
    else:
        mask = np.asarray(mask)
        if mask.shape != votes.shape or mask.dtype != bool:
            raise ValueError(
                f"mask must be a boolean array of the shape of votes {votes.shape}, "
                f"got shape {mask.shape} and dtype {mask.dtype}"
            )
    return votes.astype(np.intp), y.astype(np.intp), mask, n_classes


def strength_correlation(votes, y, mask=None, n_classes=None) -> StrengthCorrelation:
    r"""Strength, mean correlation and Breiman's bound from the members' votes.

    Implements :eq:`eq-forest-strength`, :eq:`eq-forest-raw-margin`,
    :eq:`eq-forest-rho-bar` and :eq:`eq-forest-bound` (chapter 10), with
    Breiman's estimates: the vote shares :math:`Q(x, j)` of the members that
    count for row ``x`` stand for :math:`P_\Theta(h(x, \Theta) = j)`;
    :math:`\hat\jmath(x, y)` is the class other than ``y`` with the largest
    share (the lowest index on ties); member ``t`` has
    :math:`p_1 = \Pr[h_t = y]` and :math:`p_2 = \Pr[h_t = \hat\jmath]` over its
    rows and :math:`\mathrm{sd}_t = \sqrt{p_1 + p_2 - (p_1 - p_2)^2}`; and
    :math:`\bar\rho = \mathrm{var}(mr) / (\text{mean sd})^2`.

    Parameters
    ----------
    votes : array of int, shape (n_members, n_rows)
        The class index each member predicts for each row.
    y : array of int, shape (n_rows,)
        The true class index of each row.
    mask : array of bool, shape (n_members, n_rows), optional
        Which votes count: for out-of-bag estimates, True where the row is out
        of the member's bootstrap sample. None counts every vote (held-out rows).
        Rows without any vote are left out.
    n_classes : int, optional
        K; by default one more than the largest index in ``votes`` and ``y``.

    Returns
    -------
    StrengthCorrelation
    """
    votes, y, mask, n_classes = _check_votes(votes, y, mask, n_classes)
    n_rows = votes.shape[1]
    column = np.broadcast_to(np.arange(n_rows), votes.shape)
    n_votes = mask.sum(axis=0)
    cells = column[mask] * n_classes + votes[mask]  # (row, class) of every counted vote
    counts = np.bincount(cells, minlength=n_rows * n_classes).reshape(n_rows, n_classes)
    shares = counts / np.maximum(n_votes, 1)[:, None]
    used = n_votes > 0
    rows = np.flatnonzero(used)
    if rows.size == 0:
        raise ValueError("no row received a vote: mask is False everywhere")
    true_share = shares[rows, y[rows]]
    others = shares[rows].copy()
    others[np.arange(rows.size), y[rows]] = -np.inf
    strongest_wrong = np.full(n_rows, -1, dtype=np.intp)
    strongest_wrong[rows] = np.argmax(others, axis=1)
    margin = true_share - others[np.arange(rows.size), strongest_wrong[rows]]
    strength = float(margin.mean())
    margin_variance = float(max(np.mean(margin**2) - strength**2, 0.0))

    counted = mask & used[None, :]
    n_counted = counted.sum(axis=1)
    p1 = np.sum(counted & (votes == y[None, :]), axis=1) / np.maximum(n_counted, 1)
    p2 = np.sum(counted & (votes == strongest_wrong[None, :]), axis=1) / np.maximum(n_counted, 1)
    # E rmg = p1 - p2 and E rmg^2 = p1 + p2: "votes y" and "votes j-hat" exclude each other.
    sd = np.sqrt(np.maximum(p1 + p2 - (p1 - p2) ** 2, 0.0))
    mean_sd = float(sd[n_counted > 0].mean())
    correlation = margin_variance / mean_sd**2 if mean_sd > 0 else float("nan")
    bound = correlation * (1 - strength**2) / strength**2 if strength > 0 else float("inf")
    return StrengthCorrelation(
        strength=strength,
        margin_variance=margin_variance,
        mean_sd=mean_sd,
        correlation=float(correlation),
        bound=float(bound),
        error=float(np.mean(margin < 0)),
        n_rows=int(rows.size),
    )
