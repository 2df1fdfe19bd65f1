"""Exact greedy's scan of a feature's cuts and the choice of each node's best, chapter 13.

For every node of a level, the rows are scanned in the order of a feature
and the gain :eq:`eq-xgb-gain` of each cut between two consecutive distinct
values comes from running sums of ``g`` and ``h``
(:mod:`~mltrees.hist.xgboost.exact_columns`). The unrounded gain of every cut picks
the few cuts of each node within the float32 rounding error of the best,
and only those get XGBoost's float32 gain, so the winner and its ties are
those of rounding every cut; the scan directions and end-of-scan cuts are
XGBoost's (see :mod:`mltrees.hist.xgboost.exact`). :class:`ExactScan` is the part
of :class:`~mltrees.hist.xgboost.exact.ExactGrower` that does this; it reads the
grower's ``params``, ``columns``, ``_XT``, ``_scratch``, ``_executor``,
``_approximate``, ``_min_h``, ``_shift_exact_enough`` and
``_empty_child_invalid``.
"""

from __future__ import annotations

import numpy as np

from mltrees.hist.candidates import SplitCandidates
from mltrees.hist.xgboost.exact_columns import _prefix, _running_sums, _sums_through
from mltrees.hist.xgboost.splitting import split_gain

__all__ = ["ExactScan"]

_EPS32 = np.float32(1e-6)  # XGBoost's kRtEps, in the end-of-scan cuts
# Per-node operations of a scan run node by node on slices for levels of up to this many
# nodes, or of at least SLICED_MIN_POSITIONS positions without threads in the process;
# otherwise on arrays repeated per position. A call per node costs about a microsecond,
# an extra pass over the level about 1.5 ns per position; and with two threads every
# NumPy call on more than a few hundred elements hands the interpreter lock over,
# which costs more than that pass (100k rows, depth 6: 32 calls per scan at depth 5
# against 2; 2 threads about 10 % faster, 1 thread 10 % slower, hence the thread rule).
FEW_SEGMENTS = 2
SLICED_MIN_POSITIONS = 1 << 15
# A feature whose cuts (positions between two different values of a node) are at most
# this share of the level's positions has its gains computed at the cuts alone, gathered
# first; above, at every position, the ties masked (a gather costs about as much as the
# gain itself, so the share must be well below 1).
SPARSE_CUTS = 0.5
# When they are at most this share, the running sums are taken at the cuts alone (and at
# the ends of the nodes), from the sums of the runs of rows between them
# (np.add.reduceat), instead of at every position: 0.10 ms at 150k positions with
# few cuts, 0.23 ms at 5 %, against 0.32 ms for every position.
SPARSE_SUMS = 1 / 16
# A cut's float32 gain differs from its unrounded gain G_L²/(𝓗_L+λ) + G_R²/(𝓗_R+λ) - score
# by less than about 5e-7 of the children's and parent's scores (the float32 roundings of w²,
# of each score, of their sum and of the difference), and the unrounded gain computed in
# float32 from the float64 sums errs by less than 4e-7 of it: cuts further than twice this
# tolerance below their node's best can neither win nor tie, and are not rounded at all.
_RELATIVE_TOLERANCE = 2e-6
_ABSOLUTE_TOLERANCE = 1e-30  # float32 scores underflow below ~1e-38


class ExactScan:
    """Scanning and choosing, for :class:`~mltrees.hist.xgboost.exact.ExactGrower` (see above)."""

    def _scan_share(self, by_feature, level, partition, go_left_row, scanned):
        """:meth:`_advance` every feature of ``by_feature`` in turn: ``[(j, candidates)]``."""
        found, gh = [], self._gh_table(self._shared_gh, self._compact)
        for j in sorted(by_feature):
            parts = self._advance(j, by_feature, gh, level, partition, go_left_row, scanned)
            if parts is not None:
                found.append((j, parts))
        return found

    def _regroup(self, j, by_feature, partition, go_left_row):
        """Regroup feature ``j``'s order by the previous level's children (None)."""
        if partition is not None:
            rows, values, stats = by_feature[j]
            goes_left = self._scratch.get("goes_left", rows.size, bool)
            permutation = partition.permutation(go_left_row.take(rows, out=goes_left, mode="clip"))
            by_feature[j] = tuple(
                None if part is None else part.take(permutation) for part in (rows, values, stats)
            )

    def _advance(self, j, by_feature, gh, level, partition, go_left_row, scanned):
        """Regroup feature ``j``'s order; if the level samples ``j``, scan it.

        ``by_feature[j]`` is ``(rows, values, stats)``: the order's rows,
        their values (None for a feature with rare ties and no missing
        values) and their ``g + i h`` (None until the feature is first
        scanned in the tree, then gathered from ``gh``). Returns
        :meth:`_scan_feature`'s candidates, or None for a feature the level
        does not scan (its order is regrouped all the same).
        """
        self._regroup(j, by_feature, partition, go_left_row)
        if not scanned[j]:
            return None
        rows, values, stats = by_feature[j]
        if stats is None:  # gathered once per tree, then regrouped with the rows
            stats = gh.take(rows)
            by_feature[j] = (rows, values, stats)
        return self._scan_feature(j, rows, values, stats, level)

    def _scan_feature(self, j, rows, values, stats, level):
        """The cuts of feature ``j`` that may be best in a node of the level.

        ``rows`` are the level's rows, node by node, each node's by
        increasing value of the feature with its missing values last,
        ``values`` their values (None for a feature without missing values
        and with rare ties: its values are then read from ``X`` where
        needed), and ``stats`` the rows' ``g + i h``: one cumulative sum carries both
        statistics (complex addition adds the parts as two float64 sums
        would). Returns the candidates, scan by scan, as ``(position, left,
        right, cut, default_left, rank, lead, missing)``: the children's
        ``G + i 𝓗``, the cut, the candidate's place in XGBoost's order of
        scans (:meth:`_choose`), and how its node's rows split in this
        order: the first ``lead`` go left, and the ``missing`` last (the
        missing values) too if ``default_left``.
        """
        cols = self.columns
        starts, counts = level.starts, level.counts
        n_positions = rows.size
        if values is None:
            column = self._XT[j]
            values_at = lambda positions: column.take(rows.take(positions))  # noqa: E731
        else:
            values_at = values.take
        parts = []
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # A cut after position p lies between two different known values of one node.
            if values is None:  # only between nodes; ties are checked at the kept cuts
                same = level.node_ends
            else:
                same = self._scratch.get("same", n_positions, bool)
                np.equal(values[1:], values[:-1], out=same[:-1])
                same[level.segment_last] = True
            known = counts
            if cols.has_missing[j]:
                missing = np.isnan(values)
                same[:-1] |= missing[1:]
                known = counts - np.add.reduceat(missing, starts, dtype=np.intp)
            last_known = starts + known - 1
            n_missing = counts - known
            # With many ties (few distinct values) the cuts are few: the scans then
            # compute gains at the cuts alone, on the level restricted to them.
            cut_positions = None if values is None else np.flatnonzero(~same)
            if cut_positions is not None and cut_positions.size > SPARSE_CUTS * n_positions:
                cut_positions = None
            # The running sums of g + i h where they are needed: at the cuts and before
            # and after each node's known values.
            if cut_positions is not None and cut_positions.size <= SPARSE_SUMS * n_positions:
                m = cut_positions.size
                sums = _sums_through(stats, np.concatenate([cut_positions, last_known, starts - 1]))
                k = m + starts.size
                scan_running, through, before = sums[:m], sums[m:k], sums[k:]
            else:
                running = self._scratch.get("running", n_positions, complex)
                np.copyto(running, stats)  # summed in float64 from complex64 too
                _running_sums(running, self._scratch.get("pair_sums", n_positions, complex))
                scan_running = running if cut_positions is None else running[cut_positions]
                through, before = _prefix(running, last_known), _prefix(running, starts - 1)
            scan_level, scan_same = level, same
            if cut_positions is not None:
                scan_level = level.restricted(cut_positions)
                scan_same = np.zeros(cut_positions.size, dtype=bool)
            # The ends of the scans (all known values on one side) need each node's known sums.
            ends = cols.has_missing[j] or not self._empty_child_invalid
            if ends:
                known_sums = through - before
                present = np.flatnonzero(known > 0)
            end = n_positions + 1  # ranks: forward cuts < forward end < backward cuts < ...
            # XGBoost skips the forward scan of a feature whose known values are all equal
            # (NeedForwardSearch): its only candidate is the backward scan's end.
            single_valued = bool(cols.constant[j])
            if cols.has_missing[j] and not single_valued:
                # Forward scan (ascending): left child = values <= lo, missing right.
                chosen, left, right = self._cuts(
                    scan_running, before, scan_level, scan_same, forward=True
                )
                if cut_positions is not None:
                    chosen = cut_positions[chosen]
                lo, hi = values_at(chosen), values_at(chosen + 1)
                midpoint = (lo + hi) * np.float32(0.5)
                cut = np.where(midpoint == hi, lo, midpoint)
                node = np.searchsorted(starts, chosen, side="right") - 1
                lead = chosen - starts[node] + 1
                # When the midpoint rounds onto a value the cut is lo itself, and x < lo sends
                # lo's rows right (as XGBoost does, though the scan counted them left).
                for i in np.flatnonzero(cut == lo).tolist():
                    below = values_at(np.arange(starts[node[i]], chosen[i] + 1))
                    lead[i] = np.searchsorted(below, lo[i], side="left")
                parts.append((chosen, left, right, cut, False, chosen, lead, n_missing[node]))
                # Forward end: every known value left, missing right.
                largest = values_at(last_known[present])
                end_cut = largest + (np.abs(largest) + _EPS32)
                left = known_sums[present]
                right = level.totals[present] - left
                parts.append(
                    (
                        starts[present],
                        left,
                        right,
                        end_cut,
                        False,
                        np.full(present.size, end),
                        known[present],
                        n_missing[present],
                    )
                )
            # Backward scan (descending): right child = values >= hi, missing left.
            if not single_valued:
                chosen, left, right = self._cuts(
                    scan_running,
                    through,
                    scan_level,
                    scan_same,
                    False,
                    values_at if values is None else None,
                )
                if cut_positions is not None:
                    chosen = cut_positions[chosen]
                lo, hi = values_at(chosen), values_at(chosen + 1)
                midpoint = (lo + hi) * np.float32(0.5)
                cut = np.where(midpoint == lo, hi, midpoint)
                node = np.searchsorted(starts, chosen, side="right") - 1
                lead = chosen - starts[node] + 1
                rank = 2 * end - chosen
                parts.append((chosen, left, right, cut, True, rank, lead, n_missing[node]))
            if not ends:
                return parts
            # Backward end: every known value right, missing left.
            smallest = values_at(starts[present])
            end_cut = smallest - (np.abs(smallest) + _EPS32)
            right = known_sums[present]
            left = level.totals[present] - right
            parts.append(
                (
                    starts[present],
                    left,
                    right,
                    end_cut,
                    True,
                    np.full(present.size, 3 * end),
                    np.zeros(present.size, dtype=np.intp),
                    n_missing[present],
                )
            )
        return parts

    @staticmethod
    def _children(running, anchor, level, forward):
        """Both children's ``G + i 𝓗`` at every cut of a scan.

        Forward, the left child is accumulated (``running - anchor``,
        ``anchor`` the sums before the node); backward, the right child is
        (``anchor - running``, ``anchor`` the node's sums through its last
        known value); the other child is the node's total minus it, as in
        XGBoost.
        """
        if forward:
            left = np.repeat(anchor, level.counts)
            np.subtract(running, left, out=left)
            return left, level.total - left
        right = np.repeat(anchor, level.counts)
        right -= running
        return level.total - right, right

    def _sliced(self, level, n_positions) -> bool:
        """Whether per-node operations run node by node on slices (see ``FEW_SEGMENTS``)."""
        return len(level.segments) <= FEW_SEGMENTS or (
            self._executor is None and n_positions >= SLICED_MIN_POSITIONS
        )

    def _fast_gain(self, running, anchor, level, forward, lam, excluded):
        """The unrounded gain of every cut in float32, and both children's ``𝓗 + λ``.

        The children's sums are taken in float64 (they cancel), as in
        :meth:`_children` but with ``λ`` added to the hessians; only the
        squares, quotients and the sum are rounded to float32, which halves
        the memory they stream through. ``-inf`` where ``excluded`` (a
        mask, or positions when they are few).
        """
        f32, n, scratch = np.float32, running.size, self._scratch
        accumulated = scratch.get("accumulated", n, complex)
        shifted = anchor + (-1j if forward else 1j) * lam
        if self._sliced(level, n):  # a scalar per node
            for q, segment in enumerate(level.segments):
                if forward:  # the left child: running - anchor
                    np.subtract(running[segment], shifted[q], out=accumulated[segment])
                else:  # the right child: anchor - running
                    np.subtract(shifted[q], running[segment], out=accumulated[segment])
        else:  # two calls for all the nodes, whose GIL hand-overs cost more than the pass
            accumulated[:] = level.per_position(shifted)
            if forward:
                np.subtract(running, accumulated, out=accumulated)
            else:
                np.subtract(accumulated, running, out=accumulated)
        score = np.square(accumulated.real, out=scratch.get("score", n, f32), casting="same_kind")
        h_this = scratch.get("h_this", n, f32)
        np.copyto(h_this, accumulated.imag, casting="same_kind")
        score /= h_this
        other = np.subtract(
            level.total_g, accumulated.real, out=scratch.get("other", n, f32), casting="same_kind"
        )
        other *= other
        h_other = np.subtract(
            level.total_h_shifted,
            accumulated.imag,
            out=scratch.get("h_other", n, f32),
            casting="same_kind",
        )
        other /= h_other
        score += other
        if excluded.dtype == bool:
            np.copyto(score, -np.inf, where=excluded)
        else:
            score[excluded] = -np.inf
        return (score, h_this, h_other) if forward else (score, h_other, h_this)

    def _cuts(self, running, anchor, level, same, forward, unchecked_ties=None):
        """The cuts of one scan that may be best in their node, and their children's sums.

        Each cut's unrounded gain ``G_L²/(𝓗_L+λ) + G_R²/(𝓗_R+λ)`` is
        computed; only the cuts within the rounding tolerance of their
        node's best are kept for the float32 gain (:meth:`_choose`). The
        children's weights are checked at the kept cuts: in a node where one
        is too light, the cuts whose children are clearly too light are left
        out and the node's best taken again (the other nodes keep theirs: none
        of their kept cuts is light); if that is not enough, every cut is
        checked exactly. ``same`` marks the cuts between equal values; when
        ``unchecked_ties`` (positions -> values) is given, it marks only the
        ends of the nodes, and a kept cut between tied values sends its node
        through the same second pass, with the node's ties (read then) left out too.
        """
        min_h, lam = self._min_h, self.params.lam
        if self._approximate and self._shift_exact_enough:
            excluded = same if unchecked_ties is None else level.segment_last
            score, h_l, h_r = self._fast_gain(running, anchor, level, forward, lam, excluded)
            # Children lighter than this for sure (the shifted sums err by far less).
            light = np.float32((min_h + lam) * (1 - 1e-5))
            if running.size < SLICED_MIN_POSITIONS:
                # On few positions, leaving those cuts out at once (a pass) is cheaper than
                # taking again, node by node, the nodes whose best cut has a light child.
                np.copyto(score, -np.inf, where=(h_l < light) | (h_r < light))
            chosen, nodes = self._near_best(score, level), None
            for attempt in range(2):
                if chosen is None:
                    break
                node = np.searchsorted(level.starts, chosen, side="right") - 1
                if forward:
                    left_sums = running[chosen] - anchor[node]
                    right_sums = level.totals[node] - left_sums
                else:
                    right_sums = anchor[node] - running[chosen]
                    left_sums = level.totals[node] - right_sums
                valid = (left_sums.imag >= min_h) & (right_sums.imag >= min_h)
                tied = ()
                if unchecked_ties is not None:
                    at_tie = unchecked_ties(chosen) == unchecked_ties(chosen + 1)
                    valid &= ~at_tie
                    tied = set(node[at_tie].tolist())  # nodes whose ties must be read
                if valid.all():
                    return chosen, left_sums, right_sums
                if attempt:
                    break
                again = np.zeros(level.counts.size, dtype=bool)
                again[node[~valid]] = True
                nodes = np.flatnonzero(again)
                for q in nodes.tolist():
                    segment = level.segments[q]
                    excluded = (h_l[segment] < light) | (h_r[segment] < light)
                    if q in tied:
                        values = unchecked_ties(np.arange(segment.start, segment.stop))
                        excluded[:-1] |= values[1:] == values[:-1]
                    np.copyto(score[segment], -np.inf, where=excluded)
                retaken = self._near_best(score, level, nodes)
                if retaken is not None:  # (in no particular order: ranks order the candidates)
                    chosen = np.concatenate([chosen[~again[node]], retaken])
                else:
                    chosen = None
        if unchecked_ties is not None:  # every tie, for the exact checks
            values = unchecked_ties(np.arange(running.size))
            same = same.copy()
            same[:-1] |= values[1:] == values[:-1]
        left, right = self._children(running, anchor, level, forward)
        excluded = same | (left.imag < min_h) | (right.imag < min_h)
        chosen = None
        if self._approximate:
            g_l, h_l, g_r, h_r = (
                left.real.copy(),
                left.imag + lam,
                right.real.copy(),
                right.imag + lam,
            )
            chosen = self._near_best(self._unrounded_gain(g_l, h_l, g_r, h_r, excluded), level)
        if chosen is None:
            chosen = np.flatnonzero(~excluded)
        return chosen, left[chosen], right[chosen]

    @staticmethod
    def _unrounded_gain(g_l, h_l, g_r, h_r, excluded):
        """``G_L²/(𝓗_L+λ) + G_R²/(𝓗_R+λ)`` from ``g_l, h_l = G_L, 𝓗_L+λ`` (and right).

        Overwrites ``g_l`` and ``g_r``; ``-inf`` where ``excluded``.
        """
        g_l *= g_l
        g_l /= h_l
        g_r *= g_r
        g_r /= h_r
        g_l += g_r
        np.copyto(g_l, -np.inf, where=excluded)
        return g_l

    def _near_best(self, score, level, nodes=None):
        """Cuts whose unrounded gain is within the rounding tolerance of their node's best.

        Over every node of the level, or only over ``nodes`` (few, node by
        node). None if a gain is not a number or infinite.
        """
        if nodes is not None:
            segments = [score[level.segments[q]] for q in nodes.tolist()]
            best = np.array([segment.max() for segment in segments])
        elif level.counts.all():
            best = np.maximum.reduceat(score, level.starts)
        else:  # a level restricted to a feature's cuts has empty nodes
            best = np.full(level.counts.size, -np.inf, dtype=score.dtype)
            nonempty = level.counts > 0
            if nonempty.any():
                best[nonempty] = np.maximum.reduceat(score, level.starts[nonempty])
        top = best.max()
        if np.isnan(top) or top == np.inf:
            return None
        # Nodes without a cut (best -inf) get a NaN floor, which no score reaches.
        best = best.astype(np.float64)
        size = level.parent_size if nodes is None else level.parent_size[nodes]
        floor = best - 2 * _RELATIVE_TOLERANCE * (best + size) - _ABSOLUTE_TOLERANCE
        # In the scores' precision, one step lower: the comparison runs in one dtype.
        rounded = np.nextafter(floor.astype(score.dtype), -np.inf)
        if nodes is not None:
            return np.concatenate(
                [
                    np.flatnonzero(segment >= low) + level.starts[q]
                    for q, segment, low in zip(nodes.tolist(), segments, rounded, strict=True)
                ]
            )
        near = self._scratch.get("near", score.size, bool)
        if self._sliced(level, score.size):  # a scalar per node, as in _fast_gain
            for segment, low in zip(level.segments, rounded.tolist(), strict=True):
                np.greater_equal(score[segment], low, out=near[segment])
        else:
            np.greater_equal(score, level.per_position(rounded), out=near)
        return np.flatnonzero(near)

    def _choose(self, found, level, node_features) -> SplitCandidates:
        """The best split of every node among the candidates of every feature.

        The float32 gains of all candidates of the level are computed at
        once. Ties go, as in XGBoost, to the lower feature, then to the
        earlier candidate in the order of its scans: forward cuts by
        increasing value, the forward end, backward cuts by decreasing
        value, the backward end. A split must gain more than 0.
        """
        best = SplitCandidates.none_gaining(level.counts.size)
        parts = [(j, *part) for j, scanned in found for part in scanned]
        if not parts:
            return best
        sizes = [part[1].size for part in parts]
        position = np.concatenate([part[1] for part in parts])
        node = np.searchsorted(level.starts, position, side="right") - 1
        left = np.concatenate([part[2] for part in parts])
        right = np.concatenate([part[3] for part in parts])
        cut = np.concatenate([part[4] for part in parts])
        default_left = np.repeat([part[5] for part in parts], sizes)
        rank = np.concatenate([part[6] for part in parts])
        lead = np.concatenate([part[7] for part in parts])
        missing = np.concatenate([part[8] for part in parts])
        feature = np.repeat([part[0] for part in parts], sizes)
        left_g, left_h, right_g, right_h = left.real, left.imag, right.real, right.imag
        parent = level.parent_score[node]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gain = split_gain(left_g, left_h, right_g, right_h, parent, self.params)
        valid = (left_h >= self._min_h) & (right_h >= self._min_h)
        if node_features is not None:
            valid &= node_features[node, feature]
        gain = np.where(valid, gain, -np.inf).astype(np.float32)
        top = np.full(best.gain.size, -np.inf, dtype=np.float32)
        np.maximum.at(top, node, gain)
        tied = np.flatnonzero((gain == top[node]) & (gain > 0))
        tied = tied[np.lexsort((rank[tied], feature[tied], node[tied]))]
        first = tied[np.r_[True, node[tied][1:] != node[tied][:-1]]] if tied.size else tied
        q = node[first]
        best.gain[q] = gain[first]
        best.feature[q] = feature[first]
        best.cut[q] = cut[first]
        best.default_left[q] = default_left[first]
        best.left[q] = np.column_stack([left_g[first], left_h[first]])
        best.lead[q] = lead[first]
        best.missing[q] = missing[first]
        return best
