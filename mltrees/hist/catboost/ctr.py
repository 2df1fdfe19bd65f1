"""CatBoost's statistics of categorical features (chapter 15).

A categorical feature becomes numeric columns the oblivious trees can split
on (Prokhorenkova et al. 2018):

* **one-hot**: a feature with at most ``one_hot_max_size`` categories gets
  one 0/1 column per category (a feature of one category gets no column:
  it is constant, and CatBoost ignores it). CatBoost numbers the categories
  in order of first appearance, then swaps the most frequent into number 0;
  it tries them in that order, and of a feature of two categories only
  the test ``x == c`` for the category ``c`` numbered 1 (the other question
  is its complement), so
  the column of number 0 has no border here;
* **Borders** (one column per prior ``p`` in 0, 0.5, 1): the ordered target
  statistic :eq:`eq-ordered-ts` of the binarised target,
  ``(#{earlier rows of the category in class 1} + p) / (#{earlier rows of
  the category} + 1)``, where "earlier" follows a permutation of the
  training rows (the data order when ``has_time``); at prediction time the
  counts run over all training rows, and an unseen category gets ``p``;
* **Counter**: ``n_c / (max_c n_c + 1)``, how common the category is among
  all training rows (not ordered: it does not use the target).

Each statistic ``t ∈ [0, 1]`` is cut at CatBoost's fifteen borders: its code
is ``#{k = 1..15 : float32(15 t) > float32(k - 1e-6)}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mltrees.target_statistics import ordered_prefix_sums

__all__ = ["CTR_BORDERS", "CategoricalStatistics", "ctr_codes", "target_class_border"]

CTR_BORDERS = 15
BORDERS_PRIORS = (0.0, 0.5, 1.0)
_CUTS = (np.arange(1, CTR_BORDERS + 1) - 1e-6).astype(np.float32)


def ctr_codes(values: np.ndarray) -> np.ndarray:
    """uint8 codes ``#{k : f32(15 t) > f32(k - 1e-6)}`` of statistics ``t``."""
    scaled = (np.float32(CTR_BORDERS) * values.astype(np.float32)).astype(np.float32)
    return np.searchsorted(_CUTS, scaled, side="left").astype(np.uint8)


def target_class_border(y32: np.ndarray) -> np.float32:
    """The binarising border of a regression target (CatBoost's ``TargetBorderCount=1``).

    The float32 midpoint of consecutive distinct values that splits the rows
    most evenly; the class of a row is ``y > border``.
    """
    distinct, counts = np.unique(y32, return_counts=True)
    if len(distinct) < 2:
        return np.float32(np.inf)
    below = np.cumsum(counts)[:-1]
    best = int(np.argmin(np.abs(2 * below - len(y32))))
    return np.float32((distinct[best] + distinct[best + 1]) / np.float32(2))


@dataclass
class CategoricalStatistics:
    """The columns built from the categorical features of one model.

    Attributes
    ----------
    features : list of int
        Indices (in ``X``) of the categorical features.
    categories : list of ndarray
        The sorted training categories of each.
    one_hot : list of bool
        Whether each feature is one-hot encoded.
    class_count, count : list of ndarray
        Per feature and category, ``N_class,c`` and ``N_c`` over all training
        rows (for the Borders statistics at prediction time).
    names : list of str
        A readable name of every column built, in candidate order.
    n_borders : list of int
        Borders (candidate splits) of every column built.
    rank : list of ndarray or None
        For a one-hot feature, CatBoost's number of each category (the order
        it tries them in); None otherwise.
    """

    features: list
    categories: list
    one_hot: list
    class_count: list = field(default_factory=list)
    count: list = field(default_factory=list)
    names: list = field(default_factory=list)
    n_borders: list = field(default_factory=list)
    rank: list = field(default_factory=list)

    @property
    def n_columns(self) -> int:
        """Number of columns built."""
        return len(self.names)

    def encode(self, columns: list) -> np.ndarray:
        """Codes of the built columns for new rows (all-training-rows statistics)."""
        codes = [self.encode_feature(c, column) for c, column in enumerate(columns)]
        n = len(columns[0]) if columns else 0
        return np.concatenate(codes) if codes else np.zeros((0, n), dtype=np.uint8)

    def positions(self, c: int, column: np.ndarray) -> np.ndarray:
        """Position of each value among feature ``c``'s training categories; unseen: their count."""
        known = self.categories[c]
        position = np.minimum(np.searchsorted(known, column), len(known) - 1)
        return np.where(known[position] == column, position, len(known))

    def encode_feature(self, c: int, column: np.ndarray) -> np.ndarray:
        """Codes of the columns built from categorical feature ``c``, one row each.

        An unseen category has ``N_c = 0``: its Borders statistics are their
        priors and its Counter is 0; it matches no one-hot column.
        """
        known = self.categories[c]
        if len(known) < 2:  # one category: a constant feature, no columns
            return np.zeros((0, len(column)), dtype=np.uint8)
        position = self.positions(c, column)
        seen = position < len(known)
        position = np.minimum(position, len(known) - 1)
        if self.one_hot[c]:
            return np.asarray([(seen & (position == v)) for v in range(len(known))], dtype=np.uint8)
        n_c = np.where(seen, self.count[c][position], 0)
        rows = []
        for class_count in self.class_count[c].T:  # one target border after the other
            k_c = np.where(seen, class_count[position], 0)
            rows.extend(ctr_codes((k_c + prior) / (n_c + 1.0)) for prior in BORDERS_PRIORS)
        rows.append(ctr_codes(n_c / (self.count[c].max() + 1.0)))
        return np.asarray(rows, dtype=np.uint8)


def _one_hot_numbers(first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """CatBoost's number of each category of a one-hot feature.

    Categories are numbered in order of first appearance (``first``: the
    row of each), then the most frequent swaps numbers with the one numbered
    0 (CatBoost's perfect hash with ``mapMostFrequentValueTo0``). Of equally
    frequent categories CatBoost takes the one of smallest string hash; the
    first to appear is taken here.
    """
    number = np.empty(len(first), dtype=np.intp)
    number[np.argsort(first, kind="stable")] = np.arange(len(first))
    most = int(np.lexsort((first, -count))[0])
    zero = int(np.argmin(first))
    number[zero], number[most] = number[most], number[zero]
    return number


def fit_categorical_statistics(columns, features, target_class, order, one_hot_max_size):
    """Training codes of the statistics columns, and the tables for new data.

    Parameters
    ----------
    columns : list of ndarray
        The training values of each categorical feature (any comparable dtype).
    features : list of int
    target_class : ndarray of float, shape (n, n_target_borders)
        The binarised targets (0/1) the Borders statistics average: one
        column for a binary or a regression target, ``K - 1`` for ``K``
        classes (``[y > b]`` for ``b = 0 .. K-2``, as CatBoost's MultiClass).
    order : ndarray of intp
        The permutation that decides which rows are "earlier".
    one_hot_max_size : int
    """
    stats = CategoricalStatistics(list(features), [], [])
    codes = []
    for j, column in zip(features, columns, strict=True):
        known, first, inverse, count = np.unique(
            column, return_index=True, return_inverse=True, return_counts=True
        )
        stats.categories.append(known)
        one_hot = len(known) <= one_hot_max_size
        stats.one_hot.append(one_hot)
        stats.rank.append(None)
        if len(known) < 2:
            # One category: CatBoost ignores the feature (no one-hot column, no
            # statistic, which would vary with the row order all the same).
            stats.class_count.append(None)
            stats.count.append(count)
            continue
        if one_hot:
            stats.class_count.append(None)
            stats.count.append(count)
            stats.rank[-1] = rank = _one_hot_numbers(first, count)
            for v, value in enumerate(known):
                codes.append((inverse == v).astype(np.uint8))
                stats.names.append(f"{j}={value}")
                # Two categories: only "= the one numbered 1" is a candidate.
                stats.n_borders.append(0 if len(known) == 2 and rank[v] == 0 else 1)
            continue
        class_count = np.stack(
            [np.bincount(inverse, weights=t, minlength=len(known)) for t in target_class.T], 1
        )
        stats.class_count.append(class_count)
        stats.count.append(count)
        for b, target in enumerate(target_class.T):
            # One sort for the three priors: (Σ earlier class + p) / (# earlier + 1).
            sums, counts = ordered_prefix_sums(inverse, target, order=order)
            for prior in BORDERS_PRIORS:
                codes.append(ctr_codes((sums + prior) / (counts + 1.0)))
                stats.names.append(f"Borders({j}, target border {b}, prior={prior:g})")
                stats.n_borders.append(CTR_BORDERS)
        codes.append(ctr_codes(count[inverse] / (count.max() + 1.0)))
        stats.names.append(f"Counter({j})")
        stats.n_borders.append(CTR_BORDERS)
    n = len(columns[0]) if columns else 0
    if not codes:
        return stats, np.zeros((0, n), dtype=np.uint8)
    return stats, np.asarray(codes, dtype=np.uint8).reshape(len(codes), -1)
