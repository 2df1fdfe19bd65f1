"""CART's surrogate splits (Breiman et al. 1984, section 5.3; chapter 6).

Once a node's primary split is chosen on the rows where its feature is known,
every other numeric feature is asked how well a single threshold on it
reproduces the primary's left/right assignment. For a candidate surrogate
``x_k <= c`` the *agreement* is the weight of the rows that both splits send
the same way, divided by the weight of the rows the primary split can place
(:eq:`eq-surrogate-agreement`); a surrogate is kept only if it agrees more
often than the majority rule "send every row to the heavier child", i.e.
when Breiman's predictive measure of association is positive
(:eq:`eq-surrogate-association`). A row whose primary value is missing
follows the first kept surrogate whose feature it knows, and the majority
direction if it knows none of them.

The search is vectorized as the primary split search of chapter 3: for one
feature at a time, the rows of *all* split nodes are grouped into (node,
code) cells holding (count, weight) sent left and right by the primary, and a
segment-wise cumulative sum over the sorted codes gives the agreement of
every threshold of every node at once. Loops run over features and over the
(at most ``max_surrogates``) ranks, never over rows or nodes.

The choices are rpart's defaults (Therneau and Atkinson's implementation of
CART): the agreement's denominator is the weight of every row the primary
places (``surrogatestyle = 0``), so a surrogate that is often missing itself
ranks lower; each side of a surrogate threshold must hold at least
:data:`MIN_SURROGATE_ROWS` rows on which both features are known; ties of the
majority go left. Categorical features are not used as surrogates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltrees.tree._data import CATEGORICAL
from mltrees.tree._split import _cell_statistics, _run_prefix_sums, _safe_threshold

__all__ = ["MIN_SURROGATE_ROWS", "Surrogates", "find_surrogates"]

# rpart: "at least 2 obs must go each way, to avoid having an uncorrelated
# surrogate beat the 'null' surrogate too easily".
MIN_SURROGATE_ROWS = 2
AGREEMENT_TOLERANCE = 1e-12  # relative to the node's weight: below it, agreements tie


@dataclass
class Surrogates:
    """Surrogate splits of the nodes being split (arrays with one row per node).

    Attributes
    ----------
    feature : ndarray of int, shape (n_nodes, max_surrogates)
        Surrogate features, best first; -1 pads the unused ranks.
    threshold : ndarray of float
        Raw thresholds: a known value ``x <= threshold`` goes to
        ``low_slot``, a larger one to ``1 - low_slot``.
    split_code : ndarray of int
        The same test on training codes: ``code <= split_code`` is low.
    low_slot : ndarray of int8
        Child slot (0 left, 1 right) of the values at or below the threshold.
    agreement : ndarray of float
        Agreement with the primary split, :eq:`eq-surrogate-agreement`.
    majority_slot : ndarray of int, shape (n_nodes,)
        The heavier child among the rows the primary places (ties: left).
    majority : ndarray of float, shape (n_nodes,)
        The majority rule's agreement ``max(p_L, p_R)``.
    """

    feature: np.ndarray
    threshold: np.ndarray
    split_code: np.ndarray
    low_slot: np.ndarray
    agreement: np.ndarray
    majority_slot: np.ndarray
    majority: np.ndarray

    def route(self, codes: np.ndarray, rows: np.ndarray, node: np.ndarray, slot: np.ndarray):
        """Fill the slots of rows whose primary value is missing (``slot == -1``).

        Breiman's rule: the first surrogate whose feature the row knows
        decides; a row that knows none of them goes with the majority.
        Returns a new slot array.
        """
        slot = slot.copy()
        pending = np.flatnonzero(slot < 0)
        for rank in range(self.feature.shape[1]):
            if not pending.size:
                break
            at = node[pending]
            feature = self.feature[at, rank]
            usable = feature >= 0
            code = np.full(pending.size, -1, dtype=np.intp)
            code[usable] = codes[rows[pending[usable]], feature[usable]]
            known = code >= 0
            low = code[known] <= self.split_code[at[known], rank]
            low_slot = self.low_slot[at[known], rank]
            slot[pending[known]] = np.where(low, low_slot, 1 - low_slot)
            pending = pending[~known]
        slot[pending] = self.majority_slot[node[pending]]
        return slot


def association(agreement, majority):
    """Breiman's predictive measure of association of a surrogate split.

    Implements :eq:`eq-surrogate-association` (chapter 6):
    ``lambda = (min(p_L, p_R) - (1 - agreement)) / min(p_L, p_R)``, the share
    of the majority rule's errors that the surrogate avoids. Public as
    ``mltrees.tree.surrogate_association``.

    Parameters
    ----------
    agreement : float or array_like
        Agreement of the surrogate with the primary split,
        :eq:`eq-surrogate-agreement` (``Tree.surrogate_agreement``).
    majority : float or array_like
        ``max(p_L, p_R)``, the agreement of the majority rule; so
        ``min(p_L, p_R) = 1 - majority``.

    Returns
    -------
    ndarray
        lambda; positive exactly when the surrogate beats the majority rule,
        1 for perfect agreement, NaN where ``majority`` is 1.

    Examples
    --------
    >>> from mltrees.tree import surrogate_association
    >>> float(surrogate_association(7 / 8, 0.5))
    0.75
    """
    agreement = np.asarray(agreement, dtype=np.float64)
    minority = 1.0 - np.asarray(majority, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(minority > 0, (minority - (1.0 - agreement)) / minority, np.nan)


def find_surrogates(
    codes: np.ndarray,
    specs: list,
    rows: np.ndarray,
    node: np.ndarray,
    slot: np.ndarray,
    primary_feature: np.ndarray,
    n_nodes: int,
    weights: np.ndarray,
    max_surrogates: int,
) -> Surrogates:
    """The surrogate splits of every node being split, for all features at once per feature.

    Implements :eq:`eq-surrogate-agreement` and keeps the splits whose
    association :eq:`eq-surrogate-association` is positive (chapter 6).

    Parameters
    ----------
    codes : ndarray (n_samples, n_features)
        Training codes (-1: missing).
    specs : list of FeatureSpec
        The features' specs.
    rows : ndarray of int
        The rows of the nodes being split.
    node : ndarray of int
        Each row's node, in ``0 .. n_nodes - 1``.
    slot : ndarray of int
        The primary split's child slot of each row (0 left, 1 right), -1
        where the primary feature is missing.
    primary_feature : ndarray of int, shape (n_nodes,)
        Each node's primary feature (never its own surrogate).
    n_nodes : int
        Number of nodes.
    weights : ndarray of float
        Sample weights, indexed by row.
    max_surrogates : int
        Surrogates kept per node, best first.

    Returns
    -------
    Surrogates
    """
    w = weights[rows]
    # Rows the primary cannot place take part with zero counts and weights: they
    # agree with nothing, but their values are cut points (the threshold is
    # the midpoint between neighbouring values of the node, as in rpart).
    to_left = (slot == 0).astype(np.float64)
    to_right = (slot == 1).astype(np.float64)
    weight_left = np.bincount(node, weights=w * to_left, minlength=n_nodes)
    weight_right = np.bincount(node, weights=w * to_right, minlength=n_nodes)
    total = weight_left + weight_right
    safe_total = np.where(total > 0, total, 1.0)
    majority_slot = np.where(weight_left >= weight_right, 0, 1)
    majority = np.maximum(weight_left, weight_right) / safe_total
    n_features = len(specs)
    agreement = np.full((n_nodes, n_features), -np.inf)
    threshold = np.full((n_nodes, n_features), np.nan)
    split_code = np.full((n_nodes, n_features), -1, dtype=np.intp)
    low_slot = np.zeros((n_nodes, n_features), dtype=np.int8)
    for j, spec in enumerate(specs):
        if spec.kind == CATEGORICAL:
            continue
        code = codes[rows, j].astype(np.intp)
        usable = (code >= 0) & (primary_feature[node] != j)
        if np.count_nonzero(usable) < 2 * MIN_SURROGATE_ROWS:
            continue
        found = _best_thresholds(
            node[usable],
            code[usable],
            w[usable],
            to_left[usable],
            to_right[usable],
            spec.n_codes,
        )
        if found is None:
            continue
        at, agree, left_code, right_code, low = found
        agreement[at, j] = agree / safe_total[at]
        threshold[at, j] = _safe_threshold(spec, left_code, right_code)
        split_code[at, j] = _split_code(spec, left_code, threshold[at, j])
        low_slot[at, j] = low
    # Keep what beats the majority rule (positive association), best first;
    # equal agreements keep the lower feature index first (a stable sort).
    beats = agreement > (majority + AGREEMENT_TOLERANCE)[:, None]
    score = np.where(beats, agreement, -np.inf)
    order = np.argsort(-score, axis=1, kind="stable")[:, :max_surrogates]
    if order.shape[1] < max_surrogates:  # fewer features than ranks: pad with feature 0
        order = np.pad(order, ((0, 0), (0, max_surrogates - order.shape[1])))
    index = np.arange(n_nodes)[:, None]
    kept = np.isfinite(score[index, order])
    kept &= np.arange(max_surrogates) < min(max_surrogates, n_features)
    return Surrogates(
        feature=np.where(kept, order, -1).astype(np.intp),
        threshold=np.where(kept, threshold[index, order], np.nan),
        split_code=np.where(kept, split_code[index, order], -1),
        low_slot=np.where(kept, low_slot[index, order], 0).astype(np.int8),
        agreement=np.where(kept, score[index, order], np.nan),
        majority_slot=majority_slot,
        majority=majority,
    )


def _best_thresholds(node, code, w, to_left, to_right, n_codes):
    """Per node, the threshold on one feature that agrees most with the primary split.

    ``node``, ``code``, ``w`` describe the rows on which this feature is
    known; ``to_left`` and ``to_right`` (0 or 1) say where the primary sends
    them (both 0 where the primary feature is missing). A cut after code ``c`` sends
    ``code <= c`` low; low goes left (agreement ``W_low,L + W_high,R``) or
    right (``W_low,R + W_high,L``), whichever agrees more (left on ties).
    Ties between cuts go to the smallest threshold, as in rpart. Counts
    are of rows the primary places (rpart's rule of two rows each way). Returns the
    nodes that have a valid cut and, for each, the agreeing weight, the codes
    on both sides of the cut and the low side's slot; None if no node has one.
    """
    n_nodes = int(node.max()) + 1
    sides = _SideCounts(to_left, to_right, w)
    entry_node, entry_code, table = _cell_statistics(
        sides, node, code, n_nodes, n_codes, np.arange(node.size)
    )
    columns = [np.ascontiguousarray(table[:, c]) for c in range(4)]
    n_cells = entry_node.size
    is_start = np.empty(n_cells, dtype=bool)
    is_start[0] = True
    np.not_equal(entry_node[1:], entry_node[:-1], out=is_start[1:])
    starts = np.flatnonzero(is_start)
    run = np.cumsum(is_start) - 1
    low = [_run_prefix_sums(c, starts, run) for c in columns]
    totals = [np.add.reduceat(c, starts)[run] for c in columns]
    low_count = low[0] + low[1]
    high_count = totals[0] + totals[1] - low_count
    last_of_run = np.append(entry_node[1:] != entry_node[:-1], True)
    valid = ~last_of_run & (low_count >= MIN_SURROGATE_ROWS) & (high_count >= MIN_SURROGATE_ROWS)
    if not valid.any():
        return None
    low_left = low[2] + (totals[3] - low[3])  # low -> left: low rows sent left + high sent right
    low_right = low[3] + (totals[2] - low[2])
    agree = np.maximum(low_left, low_right)
    agree[~valid] = -np.inf
    run_max = np.maximum.reduceat(agree, starts)
    node_weight = totals[2] + totals[3]
    near = valid & (agree >= run_max[run] - AGREEMENT_TOLERANCE * node_weight)
    position = np.arange(n_cells)
    first = np.minimum.reduceat(np.where(near, position, n_cells), starts)
    found = first < n_cells
    first = first[found]
    return (
        entry_node[starts[found]],
        agree[first],
        entry_code[first],
        entry_code[first + 1],
        np.where(low_left[first] >= low_right[first], 0, 1),
    )


class _SideCounts:
    """Per-cell sums for the surrogate search: rows and weight sent left and right.

    Plays the part of the statistics models of :mod:`mltrees.tree._statistics`
    for :func:`~mltrees.tree._cuts._cell_statistics`, which groups rows
    into sorted (node, code) cells densely or by a sort, whichever is cheaper.
    """

    def __init__(self, to_left, to_right, w):
        self.columns = (to_left, to_right, w * to_left, w * to_right)

    def aggregate(self, group, n_groups, rows):
        out = np.empty((n_groups, 4), order="F")
        for c, values in enumerate(self.columns):
            out[:, c] = np.bincount(group, weights=values[rows], minlength=n_groups)
        return out


def _split_code(spec, left_code, threshold):
    """Largest training code whose value is at or below ``threshold``.

    Rows of the node lie on either side of ``left_code``, but a row whose
    primary value is missing may hold a value between the two codes of the
    cut; comparing its code with this one routes it as the raw threshold
    routes it at prediction.
    """
    if not spec.exact:
        return left_code
    return np.searchsorted(spec.values, threshold, side="right") - 1
