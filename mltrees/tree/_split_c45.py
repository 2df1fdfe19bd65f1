"""C4.5 release 8's numeric cuts and feature choice (Quinlan 1996; Weka's J48), chapter 4."""

from __future__ import annotations

import numpy as np

from mltrees.criteria import SMALL, c45_min_split, mdl_correction
from mltrees.tree._cuts import NEG_INF, _intrinsic_value, _run_prefix_sums, _segments

# C4.5 release 8 compares numbers as Weka's J48 does: scores, weights and minimum
# sizes within SMALL (weka.core.Utils.SMALL, 1e-6) of each other are equal.
# Release 8: two numeric values closer than this are one value (no cut between them).
C45_VALUE_GAP = 1e-5
# Release 8: a feature is eligible when its gain is >= the average gain minus this.
C45_AVERAGE_SLACK = 1e-3


def c45_split_point(values: np.ndarray, midpoint: np.ndarray) -> np.ndarray:
    """C4.5's threshold: the largest training value that does not exceed the midpoint.

    ``values`` are the sorted distinct values of the feature in the whole
    training set. "Does not exceed" allows :data:`SMALL`, as Weka's J48 does,
    so that a value one rounding error above the computed midpoint
    (``(0.56 + 0.562) / 2`` is ``0.56099...``) is the split point ``0.561``.
    Every training case of the node goes to the same side as with the
    midpoint of :eq:`eq-bipartition-midpoints`: release 8 cuts only between values
    more than :data:`C45_VALUE_GAP` apart, so no value of the node lies
    between the two. Only new cases can be routed differently: those between
    the split point and the midpoint go right, as in Quinlan's C4.5 and J48
    (chapter 4).
    """
    return values[np.searchsorted(values, midpoint + SMALL, side="right") - 1]


def _release8_cuts(
    stats_model, entry_node, entry_code, entry_stats, known_stats, node_stats, spec, rules
):
    """C4.5 release 8's best cut of one numeric feature in every node.

    Quinlan (1996), as Weka's J48 implements it: a cut is admissible when it
    lies between two values more than :data:`C45_VALUE_GAP` apart and leaves
    at least :func:`mltrees.criteria.c45_min_split` of weight on each side
    (:eq:`eq-min-split`). The best admissible cut, by gain on the known rows
    times the known fraction (:eq:`eq-c45-gain`; the first cut within 1e-6 of
    the best), then loses ``lg(C) / W`` bits, ``C`` the number of admissible
    cuts and ``W`` the node's weight (:func:`mltrees.criteria.mdl_correction`,
    :eq:`eq-mdl-correction`). A feature whose corrected gain is not above
    1e-6 is no candidate (gain ``-inf``).

    Returns the corrected gain, the gain ratio (the split information counts
    the unknown values as a third outcome) and the last entry on the left of
    the best cut (-1 where there is none), each per node.
    """
    n_nodes = known_stats.shape[0]
    gain_out = np.full(n_nodes, NEG_INF)
    ratio_out = np.full(n_nodes, NEG_INF)
    best_entry = np.full(n_nodes, -1, dtype=np.intp)
    if entry_node.size < 2:
        return gain_out, ratio_out, best_entry
    starts, run = _segments(entry_node)
    left, right = [], []
    for c in range(entry_stats.shape[1]):
        left_c = _run_prefix_sums(entry_stats[:, c], starts, run)
        left.append(left_c)
        right.append(known_stats[entry_node, c] - left_c)
    position = np.arange(entry_node.size)
    following = np.minimum(position + 1, entry_node.size - 1)
    last_of_run = np.append(entry_node[1:] != entry_node[:-1], True)
    known_weight = stats_model.weight(known_stats)
    node_weight = stats_model.weight(node_stats)
    min_split = c45_min_split(known_weight, stats_model.n_classes, rules.min_cases)
    # J48 also wants 2 * min_split cases with a known value (counted, not weighed);
    # with weights of at most 1 the two sides' weights imply it, and larger
    # weights count as repeated cases here, so the weights decide alone.
    weight = stats_model.weight_of_columns
    lower = (min_split - SMALL)[entry_node]
    valid = ~last_of_run & (weight(left) >= lower) & (weight(right) >= lower)
    valid &= (left[0] >= rules.min_samples_leaf) & (right[0] >= rules.min_samples_leaf)
    if spec.exact:
        valid &= spec.values[entry_code] + C45_VALUE_GAP < spec.values[entry_code[following]]
    n_cuts = np.bincount(entry_node[valid], minlength=n_nodes)
    children = stats_model.weighted_impurity(left) + stats_model.weighted_impurity(right)
    safe_known = np.where(known_weight > 0, known_weight, 1.0)
    known_share = known_weight / np.where(node_weight > 0, node_weight, 1.0)
    parent = stats_model.impurity(known_stats)
    gain = (parent[entry_node] - children / safe_known[entry_node]) * known_share[entry_node]
    gain[~valid] = NEG_INF
    run_max = np.maximum.reduceat(gain, starts)
    near_best = valid & (gain >= run_max[run] - SMALL) & (gain > SMALL)
    first_best = np.minimum.reduceat(np.where(near_best, position, gain.size), starts)
    found = first_best < gain.size
    nodes, first = entry_node[starts[found]], first_best[found]
    corrected = gain[first] - mdl_correction(n_cuts[nodes], node_weight[nodes])
    left_weight = weight(left)[first]
    outcomes = np.column_stack(
        [left_weight, known_weight[nodes] - left_weight, node_weight[nodes] - known_weight[nodes]]
    )
    kept = corrected > SMALL
    nodes, first, corrected = nodes[kept], first[kept], corrected[kept]
    best_entry[nodes] = first
    gain_out[nodes] = corrected
    ratio_out[nodes] = corrected / np.maximum(_intrinsic_value(outcomes[kept]), 1e-300)
    return gain_out, ratio_out, best_entry


def _select_release8(gains, ratios, many_valued):
    """C4.5 release 8's choice of feature, as Weka's J48 makes it.

    Implements :eq:`eq-ch4-c45-rule` with release 8's details (chapter 4):
    the average gain runs over the *useful* features only (those with a
    candidate split, ``gains`` finite) and leaves out the ``many_valued``
    ones; a feature is eligible when its gain is at least the average minus
    :data:`C45_AVERAGE_SLACK`; features are visited in column order and one
    replaces the current choice only if its gain ratio is larger by more than
    :data:`SMALL` (starting from 0). Returns each node's feature and whether
    the node has one at all.
    """
    n_nodes, n_features = gains.shape
    useful = np.isfinite(gains)
    counted = useful if many_valued is None else useful & ~many_valued[None, :]
    n_counted = counted.sum(axis=1)
    average = np.where(counted, gains, 0.0).sum(axis=1) / np.maximum(n_counted, 1)
    eligible = useful & (gains >= average[:, None] - C45_AVERAGE_SLACK) & (n_counted > 0)[:, None]
    chosen = np.zeros(n_nodes, dtype=np.intp)
    best_ratio = np.zeros(n_nodes)
    found = np.zeros(n_nodes, dtype=bool)
    for j in range(n_features):
        better = eligible[:, j] & (ratios[:, j] > best_ratio + SMALL)
        chosen[better], best_ratio[better], found[better] = j, ratios[better, j], True
    return chosen, found
