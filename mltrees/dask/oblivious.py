"""Oblivious boosting (CatBoost's algorithm) on a Dask cluster (chapter on scale).

An oblivious tree asks one question per level, so growing it needs one
reduction per level: every partition sends the ``(S, W)`` histograms of
its rows per (node, column, border) and the row count of every node; their
sum, on the driver, scores every candidate exactly as one machine scores
them (:func:`~mltrees.hist.catboost.oblivious.level_scores`), and the chosen split
goes back with the next level's request. The leaf sums of the last level
ride along with its request, so a tree of depth ``d`` costs ``d + 1``
round trips.

What is the same as one machine (:class:`~mltrees.ensemble.catboost.ObliviousBoostingRegressor`,
:class:`~mltrees.ensemble.catboost.ObliviousBoostingClassifier`):

* the borders: CatBoost's rule needs every value of a column (it sorts
  them), so each column goes, whole, to one worker, which applies the
  one-machine rule (:func:`~mltrees.hist.catboost.borders.fit_borders`);
  the borders are one machine's, whatever the partitioning;
* λ (``l2_leaf_reg · Σw / n``) and the starting score, from sums taken in
  the global row order (a chain of partial sums through the partitions,
  as one machine's running sum), so they are one machine's to the bit;
* the trees: the splits, candidate order, redundant-level rule and leaf
  steps of :meth:`~mltrees.hist.catboost.oblivious.ObliviousGrower.grow`. The
  histograms and leaf sums are sums of the partitions' sums
  (:func:`~mltrees.dask.allreduce.tree_sum`, in partition order, never
  worker order), which round differently from one machine's single pass:
  leaf values agree to about 1e-15 relative, and the splits are the same
  unless two candidates' scores agree to that precision without being
  exactly equal (exact ties, such as duplicate columns or borders that no
  row passes between, stay exact ties). One such case is known and
  harmless: when a level repeats an earlier split, every repeat scores the
  same in exact arithmetic, rounding picks one, and CatBoost's rule removes
  the first redundant level; the kept splits are then the same, possibly in
  another level order (the same regions and predictions).

Scope: plain boosting (``boosting_type="Plain"``) on numeric features
(category codes are numbers here), RMSE, Logloss and MultiClass, Newton or
gradient leaf steps, both scores, sample weights (rows of weight 0 are
kept, as on one machine). Refused with a ValueError naming the parameter:
``boosting_type="Ordered"`` and ``cat_features`` (ordered boosting and
CatBoost's categorical statistics run over one global permutation of the
rows, each row's value depending on all rows before it, which this
implementation does not distribute).
"""

from __future__ import annotations

import operator
from typing import Self

import numpy as np

from mltrees._typing import ArrayLike, MatrixLike
from mltrees._value_range import check_float32_range
from mltrees.dask._data import is_dask_collection, partitions
from mltrees.dask._data import n_workers as count_workers
from mltrees.dask._estimators import (
    REDUCTION_RECORDS,
    DaskBoosting,
    cluster_classes,
    fill_docstrings,
    regression_targets,
    set_init_params,
)
from mltrees.dask.reduction import ReductionLog, reduce_sum
from mltrees.ensemble._common import check_score_bound
from mltrees.ensemble.catboost import (
    _PARAMS,
    ObliviousBoostingClassifier,
    ObliviousBoostingRegressor,
    _candidate_order,
    _ObliviousRounds,
)
from mltrees.hist.catboost.borders import encode_borders, fit_borders
from mltrees.hist.catboost.oblivious import ObliviousGrower
from mltrees.hist.catboost.rows import ObliviousPart, ObliviousRows

__all__ = ["DaskObliviousBoostingClassifier", "DaskObliviousBoostingRegressor", "DaskObliviousRows"]


# ---------------------------------------------------------------- worker tasks
def _clean(names):
    """The partition cleaner of the oblivious learner (picklable closure over column names)."""

    def clean(X, y, w):
        X = np.asarray(X, dtype=np.float64)
        if np.isinf(X).any():
            j = int(np.flatnonzero(np.isinf(X).any(axis=0))[0])
            column = str(j) if names is None else str(names[j])
            raise ValueError(f"X contains inf in column {column!r}; missing values must be NaN")
        check_float32_range(
            X,
            None if names is None else list(names),
            library="CatBoost",
            reason="catboost then puts an infinite border next to it (a constant model)",
        )
        y = np.asarray(y)
        w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        if not np.isfinite(w).all():
            raise ValueError("sample_weight contains NaN or inf")
        if (w < 0).any():
            raise ValueError("sample_weight has negative entries; weights must be >= 0")
        # CatBoost's weights are float32; rows of weight 0 stay (borders, n and λ count them).
        return X.astype(np.float32), y, w.astype(np.float32).astype(np.float64)

    return clean


def _columns(part, columns):
    return np.ascontiguousarray(part[0][:, columns])


def _group_borders(border_count, *blocks):
    # The whole column, on one worker: the one-machine rule (it sorts the values,
    # so the partitions' order does not matter).
    return fit_borders(np.concatenate(blocks), border_count).borders


def _part(part, borders, n_borders, targets):
    X, y, w = part
    return ObliviousPart.build(encode_borders(X, borders), n_borders, targets(y), w)


def _ordered_columns(part: ObliviousPart, n_classes: int):
    """Per row, the columns whose running sums give λ and the starting score."""
    w, y = part.weight, part.y
    columns = [w, y.astype(np.float32) * w.astype(np.float32)]  # float32 products, as CatBoost's
    if n_classes > 2:
        columns += [(y == k) * w for k in range(n_classes)]
    return np.column_stack(columns).astype(np.float64)


def _running_sum(carry, part, n_classes):
    """``carry`` plus the rows' columns added one row after the other (one machine's cumsum)."""
    values = _ordered_columns(part, n_classes)
    unit = bool(np.all(part.weight == 1.0))
    if carry is None:
        return np.cumsum(values, axis=0)[-1] if len(values) else np.zeros(values.shape[1]), unit
    start, unit_before = carry
    return np.cumsum(np.vstack([start, values]), axis=0)[-1], unit_before and unit


def _rows_count(part):
    return part.n_rows


def _start_scores(part, bias):
    return np.tile(bias, (part.n_rows, 1))


def _statistics(part, F, derivatives, objective, newton):
    S, H = derivatives(part.y, F, part.weight, objective)
    return S, H if newton else part.weight[:, None]


def _start_rows(part, statistics, unit):
    return ObliviousRows.start(part, statistics, unit)


def _level(rows, split, level, leaves):
    rows = rows[0] if isinstance(rows, tuple) else rows
    new, (counts, sums, leaf) = rows.level(split, level, leaves)
    return new, (counts, sums, () if leaf is None else leaf)


def _leaves(rows, feature, border, n_levels):
    rows = rows[0] if isinstance(rows, tuple) else rows
    return rows.leaves(feature, border, n_levels)


def _leaf_of_row(rows, feature, border):
    rows = rows[0] if isinstance(rows, tuple) else rows
    return rows.leaf_of_row(feature, border)


def _add_tree(F, leaf, value):
    return F + value[leaf]


# ---------------------------------------------------------------- the row store
class DaskObliviousRows:
    """The row store of ``ObliviousGrower.grow_rows`` on a cluster.

    :meth:`~mltrees.hist.catboost.oblivious.ObliviousGrower.grow_rows` drives it.

    One :class:`~mltrees.hist.catboost.rows.ObliviousRows` per partition
    lives on the workers; every request runs on all of them and their
    answers are summed by :func:`~mltrees.dask.reduction.reduce_sum`
    (through ``log``, a :class:`~mltrees.dask.reduction.ReductionLog`).
    """

    def __init__(self, client, parts, statistics, unit: bool, n_outputs: int, log: ReductionLog):
        self.client, self.n_outputs, self.log = client, int(n_outputs), log
        self._rows = [
            client.submit(_start_rows, p, s, unit, pure=False)
            for p, s in zip(parts, statistics, strict=True)
        ]

    def _sum(self, futures):
        return self.log.sum(self.client, futures)

    def level(self, split, level: int, leaves: bool):
        """Apply ``split`` on every partition; the summed counts, histograms and leaf sums."""
        client = self.client
        self._rows = [
            client.submit(_level, r, split, level, leaves, pure=False) for r in self._rows
        ]
        answers = [client.submit(operator.getitem, r, 1, pure=False) for r in self._rows]
        counts, sums, leaf = self._sum(answers)
        return counts, sums, (leaf if leaf != () else None)

    def leaves(self, feature, border, n_levels: int):
        """The summed leaf sums of a finished tree."""
        return self._sum(
            [
                self.client.submit(_leaves, r, feature, border, n_levels, pure=False)
                for r in self._rows
            ]
        )

    def leaf_of_row(self, feature, border) -> list:
        """Per partition, a future of the leaf of each of its rows (they stay on the workers)."""
        return [
            self.client.submit(_leaf_of_row, r, feature, border, pure=False) for r in self._rows
        ]


class _DaskObliviousRounds(_ObliviousRounds):
    """The oblivious boosting loop with the rows, gradients and scores on the workers."""

    def __init__(self, grower, *, client, parts, F, unit, n_outputs, **loop):
        super().__init__(grower, y=None, w=None, F=None, entries=None, **loop)
        self.client, self.parts, self.scores, self.unit = client, parts, F, unit
        self.n_outputs = n_outputs
        self.log = ReductionLog()

    def statistics(self, m):
        model, client = self.model, self.client
        return [
            client.submit(
                _statistics, p, F, model._derivatives, self.objective, self.newton, pure=False
            )
            for p, F in zip(self.parts, self.scores, strict=True)
        ]

    def grow_stage(self, m, statistics, features):
        client = self.client
        rows = DaskObliviousRows(
            client, self.parts, statistics, self.unit, self.n_outputs, self.log
        )
        grown = self.grower.grow_rows(rows, features)
        value = grown.tree.value
        self.scores = [
            client.submit(_add_tree, F, leaf, value, pure=False)
            for F, leaf in zip(self.scores, grown.leaf_of_row, strict=True)
        ]
        return [grown]

    def round_scores(self, stage) -> list[float]:
        model = self.model
        if not model.verbose:
            return []
        client = self.client
        terms = [
            client.submit(_weighted_loss, p, F, model._pointwise_loss, self.objective, pure=False)
            for p, F in zip(self.parts, self.scores, strict=True)
        ]
        total, weight = reduce_sum(client, terms)
        mean = total / weight
        return [float(np.sqrt(mean)) if self.objective == "RMSE" else float(mean)]


def _weighted_loss(part, F, pointwise, objective):
    return np.float64(np.dot(part.weight, pointwise(part.y, F, objective))), part.weight.sum()


class _DaskOblivious(DaskBoosting):
    """The distributed ``fit`` shared by the two estimators."""

    _fitted_attribute = "_trees"
    _cluster_only = REDUCTION_RECORDS

    def __init__(
        self,
        *,
        client=None,
        n_partitions=None,
        n_estimators=100,
        learning_rate=0.1,
        depth=6,
        l2_leaf_reg=3.0,
        boosting_type="Plain",
        has_time=False,
        random_state=None,
        cat_features=None,
        one_hot_max_size=2,
        border_count=254,
        score_function="Cosine",
        leaf_estimation_method="Newton",
        boost_from_average=None,
        verbose=0,
    ):
        set_init_params(self, locals())

    def _dask_params_check(self):
        if self.boosting_type != "Plain":
            raise ValueError(
                f"boosting_type={self.boosting_type!r} is not available on a cluster: "
                "ordered boosting scores each row with a model of the rows before it in one "
                "global permutation; use boosting_type='Plain'"
            )
        if self.cat_features is not None and len(list(self.cat_features)) > 0:
            raise ValueError(
                "cat_features is not available on a cluster (CatBoost's ordered statistics "
                "run over one global permutation of the rows); pass category codes as "
                "numbers and cat_features=None"
            )

    def _dask_fit(self, X, y, sample_weight, targets, n_classes_of):
        self._validate_params()
        self._dask_params_check()
        client, Xd, yd, wd, names = self._cluster_input(X, y, sample_weight, np.float64)
        F_count = self.n_features_in_
        raw = partitions(client, Xd, yd, wd, clean=_clean(names))
        encode, n_classes = n_classes_of(client, raw)

        # Borders: each group of columns, whole, on one worker (a column shuffle).
        groups = np.array_split(np.arange(F_count), min(F_count, 2 * count_workers(client)))
        per_group = [
            client.submit(
                _group_borders,
                int(self.border_count),
                *[client.submit(_columns, p, cols, pure=False) for p in raw],
                pure=False,
            )
            for cols in groups
        ]
        borders = [b for group in client.gather(per_group) for b in group]
        n_borders = np.asarray([len(b) for b in borders], dtype=np.intp)
        targets = targets if encode is None else encode
        parts = [client.submit(_part, p, borders, n_borders, targets, pure=False) for p in raw]
        del raw

        # λ and the starting score from sums in the global row order.
        carry = None
        for p in parts:
            carry = client.submit(_running_sum, carry, p, n_classes, pure=False)
        n = int(sum(client.gather([client.submit(_rows_count, p, pure=False) for p in parts])))
        sums, unit = client.gather(carry)
        if sums[0] <= 0:
            raise ValueError("sample_weight sums to zero")
        objective, K = self._objective_of(n_classes)
        self._objective = objective
        self._numeric = list(range(F_count))
        self._cat = []
        self._borders = borders
        self._cat_stats = None
        self._n_borders = n_borders
        lam = float(np.float32(self.l2_leaf_reg)) * (float(sums[0]) / n)
        lr = float(np.float32(self.learning_rate))
        bias = self._dask_bias(sums, objective, K)
        grower = ObliviousGrower(
            np.empty((F_count, 0), dtype=np.uint8),
            n_borders,
            int(self.depth),
            lam,
            self.score_function,
            lr,
            np.empty(0),
            gradient_step=self.leaf_estimation_method != "Newton",
            order=_candidate_order(n_borders, F_count, None),
        )
        scores = [client.submit(_start_scores, p, bias, pure=False) for p in parts]
        rounds = _DaskObliviousRounds(
            grower,
            rng=np.random.default_rng(0),  # no draws: every column, every round
            n_features=F_count,
            model=self,
            objective=objective,
            client=client,
            parts=parts,
            F=scores,
            unit=unit,
            n_outputs=K,
        )
        boosted = self._run_rounds(rounds, prefix="learn_")
        client.gather(rounds.scores)  # the last update, so that a failure there is not silent
        self._trees = [stage[0] for stage in boosted.trees]
        self._lambda = lam
        self.init_score_ = bias
        self.n_estimators_ = len(self._trees)
        self._learning_rate32 = lr
        rounds.log.record(self)
        self._close_empty_tests()
        self._compile()
        check_score_bound(np.abs(self._values).max(axis=1).sum(axis=0), bias, self.learning_rate)
        return self

    @staticmethod
    def _pointwise_loss(y, F, objective):
        """Per-row loss of the progress report (squared error for RMSE)."""
        if objective == "RMSE":
            return (y - F[:, 0]) ** 2
        if objective == "Logloss":
            p = np.clip(1.0 / (1.0 + np.exp(-F[:, 0])), 1e-15, 1 - 1e-15)
            return -(y * np.log(p) + (1 - y) * np.log(1 - p))
        z = np.exp(F - F.max(axis=1, keepdims=True))
        p = np.clip(z / z.sum(axis=1, keepdims=True), 1e-15, 1.0)
        return -np.log(p[np.arange(len(y)), y.astype(np.intp)])


class DaskObliviousBoostingRegressor(_DaskOblivious, ObliviousBoostingRegressor):
    """Oblivious boosting (CatBoost's algorithm) for regression on a Dask cluster.

    The trees of :class:`~mltrees.ensemble.catboost.ObliviousBoostingRegressor`
    on the same data (the same borders; splits chosen from histograms summed
    over the partitions, one reduction per level): see
    :mod:`mltrees.dask.oblivious` for what is equal and the scope.
    ``boosting_type="Ordered"`` and ``cat_features`` are refused.

    Parameters
    ----------
    {params}
    {dask}

    Attributes
    ----------
    init_score_ : ndarray of shape (1,)
    n_estimators_ : int
    round_trips_ : int
        Driver-worker round trips of the fit (``depth + 1`` per tree at most).
    reduction_seconds_, reduction_bytes_ : ndarray
        Per round trip: the driver's wait, and the bytes of one partition's answer.

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import ObliviousBoostingRegressor
    >>> from mltrees.dask import DaskObliviousBoostingRegressor
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_diabetes(return_X_y=True)
    >>> params = dict(n_estimators=5, depth=3)
    >>> cluster = DaskObliviousBoostingRegressor(**params, client=client, n_partitions=3)
    >>> cluster = cluster.fit(X, y)
    >>> one = ObliviousBoostingRegressor(**params).fit(X, y)
    >>> [int(f) for f in cluster.trees_[0].feature] == [int(f) for f in one.trees_[0].feature]
    True
    >>> cluster.round_trips_  # depth + 1 per tree
    20
    >>> client.close()
    """

    _local_class = ObliviousBoostingRegressor

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` oblivious trees on the rows of ``X`` spread over the workers."""
        return self._dask_fit(X, y, sample_weight, regression_targets, _no_classes)

    @staticmethod
    def _objective_of(n_classes):
        return "RMSE", 1

    def _dask_bias(self, sums, objective, K):
        if self.boost_from_average is False:
            return np.zeros(1)
        return np.array([float(np.float32(sums[1] / sums[0]))])

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Predicted values; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            return self._lazy(X, "predict", None, np.float64)
        return super().predict(X)


def _no_classes(client, parts):
    return None, 0


class DaskObliviousBoostingClassifier(_DaskOblivious, ObliviousBoostingClassifier):
    """Oblivious boosting (CatBoost's algorithm) for classification on a Dask cluster.

    Logloss for two classes, MultiClass for more; the trees of
    :class:`~mltrees.ensemble.catboost.ObliviousBoostingClassifier` on the
    same data: see :mod:`mltrees.dask.oblivious` for what is equal and the
    scope. ``boosting_type="Ordered"`` and ``cat_features`` are refused.

    Parameters
    ----------
    {params}
    {dask}

    Attributes
    ----------
    classes_ : ndarray
    init_score_ : ndarray of shape (1,) or (K,)
    n_estimators_ : int
    round_trips_ : int
    reduction_seconds_, reduction_bytes_ : ndarray

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import ObliviousBoostingClassifier
    >>> from mltrees.dask import DaskObliviousBoostingClassifier
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = DaskObliviousBoostingClassifier(n_estimators=5, depth=3, client=client)
    >>> model = model.fit(X, y)
    >>> one = ObliviousBoostingClassifier(n_estimators=5, depth=3).fit(X, y)
    >>> bool(abs(model.predict_proba(X) - one.predict_proba(X)).max() < 1e-12)
    True
    >>> client.close()
    """

    _local_class = ObliviousBoostingClassifier

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` oblivious trees on the rows of ``X`` spread over the workers."""
        return self._dask_fit(X, y, sample_weight, None, self._dask_classes)

    def _dask_classes(self, client, parts):
        return cluster_classes(self, client, parts)

    @staticmethod
    def _objective_of(n_classes):
        return ("Logloss", 1) if n_classes == 2 else ("MultiClass", n_classes)

    def _dask_bias(self, sums, objective, K):
        if not self.boost_from_average:
            return np.zeros(K)
        if objective == "Logloss":
            p = float(np.float32(sums[1] / sums[0]))
            return np.array([np.log(p / (1.0 - p))])
        shares = sums[2 : 2 + K] / sums[0]
        return np.log(np.maximum(shares, 1e-15))

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Classes; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            return self._lazy(X, "predict", None, self.classes_.dtype)
        return super().predict(X)

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            return self._lazy(X, "predict_proba", len(self.classes_), np.float64)
        return super().predict_proba(X)


fill_docstrings((DaskObliviousBoostingRegressor, DaskObliviousBoostingClassifier), _PARAMS)
