"""LightGBM's leaf-wise learner on a Dask cluster, data-parallel (chapter on scale).

A leaf-wise tree grows one split at a time, so it needs one reduction per
split: the driver's :class:`~mltrees.hist.lightgbm.leafwise.LeafwiseGrower` picks
the leaf and its best split from summed histograms
(:meth:`~mltrees.hist.lightgbm.leafwise.LeafwiseGrower.grow_rows`), every partition
splits its rows of that leaf, counts the rows sent left and builds the
histogram of the child guessed smaller (by the hessian sums); the sums come
back in one reduction (:func:`~mltrees.dask.reduction.reduce_sum`, a tree
reduction in partition order), and the driver takes the larger child as
the parent's histogram minus the smaller one's. A guess the counts prove
wrong costs one more reduction. So a tree of ``L`` leaves costs about
``L`` reductions, each carrying one histogram (``2 · 8 · stride`` bytes per
feature).

What is the same as one machine (:class:`~mltrees.ensemble.lightgbm.LightGBMRegressor`,
:class:`~mltrees.ensemble.lightgbm.LightGBMClassifier`):

* the bins: LightGBM's rule on LightGBM's bin sample, drawn by the
  driver with one machine's generator over the *global* row indices (all
  rows up to ``subsample_for_bin``) and gathered from the partitions;
  the most frequent bins and the features LightGBM drops, from bin counts
  summed over all rows. The bins are one machine's whatever the
  partitioning;
* the starting score and the classes LightGBM trains (from the labels and
  weights, gathered once: 8 bytes a row);
* the trees: the choices of :meth:`~mltrees.hist.lightgbm.leafwise.LeafwiseGrower.grow`,
  from sums of the partitions' sums, which round differently from one
  machine's single pass (leaf values agree to about 1e-15 relative; the
  splits are the same unless two candidates' gains agree to that precision
  without being exactly equal).

Scope: numeric features (category codes are numbers here), regression,
binary and multiclass, sample weights, ``colsample_bytree`` (the driver
draws as one machine does), without feature bundling: the estimators'
``enable_bundle`` defaults to False and the trees are those of the
one-machine estimator with ``enable_bundle=False``. (With LightGBM's
bundles the one-machine trees are often the same, but not when LightGBM
bundles features that share rows: those rows then take one feature's value
only, which a differential test found; the bundles are found on every row,
which a cluster does not gather.) Refused with a ValueError naming the
parameter: ``enable_bundle=True``, bagging
(``subsample`` < 1 with ``subsample_freq`` > 0), GOSS
(``data_sample_strategy``), ``max_conflict_rate``, ``categorical_feature``
(other than "auto" on numeric input), ``early_stopping_rounds``.
"""

from __future__ import annotations

import operator
from dataclasses import replace as dataclass_replace
from typing import Self

import numpy as np

from mltrees._typing import ArrayLike, MatrixLike
from mltrees._value_range import check_neighbour_sums
from mltrees.dask._data import is_dask_collection, partitions
from mltrees.dask._estimators import (
    REDUCTION_RECORDS,
    DaskBoosting,
    cluster_classes,
    fill_docstrings,
    regression_targets,
    set_init_params,
)
from mltrees.dask.reduction import ReductionLog, reduce_sum
from mltrees.ensemble._common import StackedTrees, check_score_bound, library_rng
from mltrees.ensemble.lightgbm import (
    _LGB_PARAMS,
    LightGBMClassifier,
    LightGBMRegressor,
    _half_up,
    _LightGBMRounds,
    _Objective,
)
from mltrees.hist.boosting import EvalSets
from mltrees.hist.lightgbm.binning import (
    bin_counts,
    encode_lightgbm_column,
    fit_lightgbm_bins,
    most_frequent_bins_of_counts,
    used_features_of_counts,
    zero_bins,
)
from mltrees.hist.lightgbm.leafwise import LeafwiseGrower
from mltrees.hist.lightgbm.rows import LeafwisePart, LeafwiseRows

__all__ = ["DaskLeafwiseRows", "DaskLightGBMClassifier", "DaskLightGBMRegressor"]


# ---------------------------------------------------------------- worker tasks
def _clean(X, y, w):
    X = np.asarray(X, dtype=np.float64)
    if np.isinf(X).any():
        j = int(np.flatnonzero(np.isinf(X).any(axis=0))[0])
        raise ValueError(f"X contains inf in column {j}; missing values must be NaN")
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    if not np.isfinite(w).all():
        raise ValueError("sample_weight contains NaN or inf")
    if (w < 0).any():
        raise ValueError("sample_weight has negative entries; weights must be >= 0")
    # LightGBM keeps labels and weights in float32; rows of weight 0 stay, as on one machine.
    return X, np.asarray(y), w.astype(np.float32).astype(np.float64)


def _rows(part):
    return part[0].shape[0], bool(np.all(part[2] == 1)), float(part[2].sum())


def _nan_columns(part):
    return np.isnan(part[0]).any(axis=0)


def _sample_rows(part, rows):
    return part[0][rows]


def _part(part, edges, missing_code, targets, unit):
    X, y, w = part
    dtype = np.uint8 if missing_code < 256 else np.uint16
    codes = np.empty((X.shape[1], X.shape[0]), dtype=dtype)
    for j, e in enumerate(edges):
        codes[j] = encode_lightgbm_column(np.ascontiguousarray(X[:, j]), e, missing_code, dtype)
    return LeafwisePart(
        codes=codes,
        row_major=np.ascontiguousarray(codes.T),
        stride=missing_code + 1,
        missing_code=missing_code,
        y=targets(y),
        weight=None if unit else w,
    )


def _counts(part: LeafwisePart, n_features, stride):
    # bin_counts reads a BinnedData; the partition's codes are one.
    from mltrees.hist.binning import BinnedData

    binned = BinnedData(part.codes, [None] * n_features, None, stride - 1)
    return bin_counts(binned)


def _targets(part: LeafwisePart):
    return part.y, part.weight


def _start_scores(part: LeafwisePart, init):
    return np.tile(init, (part.n_rows, 1))


def _statistics(part: LeafwisePart, score, objective):
    return objective.gradients(part.y, score, part.weight)


def _start(part, statistics, k, zero):
    g, h = statistics
    if zero:  # a class LightGBM does not train: one leaf of zero sums
        return LeafwiseRows.start_tree(part, np.zeros(part.n_rows), np.zeros(part.n_rows))
    return LeafwiseRows.start_tree(part, g[:, k], h[:, k])


def _unwrap(rows):
    return rows[0] if isinstance(rows, tuple) else rows


def _root(rows, features):
    return _unwrap(rows).root(features)


def _split(rows, *args):
    return _unwrap(rows).split(*args)


def _histogram(rows, leaf, features):
    return _unwrap(rows).histogram(leaf, features)


def _leaf_of_row(rows, node_of):
    return _unwrap(rows).leaf_of_row(node_of)


def _add_trees(score, leaves, values):
    out = score.copy()
    for k, (leaf, value) in enumerate(zip(leaves, values, strict=True)):
        out[:, k] += value[leaf]
    return out


# ---------------------------------------------------------------- the row store
class DaskLeafwiseRows:
    """The row store of ``LeafwiseGrower.grow_rows`` on a cluster.

    :meth:`~mltrees.hist.lightgbm.leafwise.LeafwiseGrower.grow_rows` drives it.

    One :class:`~mltrees.hist.lightgbm.rows.LeafwiseRows` per partition
    lives on the workers; every request runs on all of them and their
    answers are summed by :func:`~mltrees.dask.reduction.reduce_sum` (one
    per split, through ``log``).
    """

    def __init__(self, client, parts, statistics, k, zero, n_rows, log: ReductionLog):
        self.client, self.n_rows, self.log = client, int(n_rows), log
        self._rows = [
            client.submit(_start, p, s, k, zero, pure=False)
            for p, s in zip(parts, statistics, strict=True)
        ]
        self._before = None

    def _each(self, function, *args):
        return [self.client.submit(function, r, *args, pure=False) for r in self._rows]

    def root(self, features):
        """Summed totals and histogram of all rows."""
        return self.log.sum(self.client, self._each(_root, features))

    def split(self, leaf, right, feature, split_bin, default_left, left_bins, build):
        """Split ``leaf`` on every partition; summed left counts and built histogram."""
        self._before = self._rows
        self._rows = self._each(
            _split, leaf, right, feature, split_bin, default_left, left_bins, build
        )
        answers = [self.client.submit(operator.getitem, r, 1, pure=False) for r in self._rows]
        n_left, built = self.log.sum(self.client, answers)
        return n_left, (built if build is not None else None)

    def undo(self):
        """Forget the last split."""
        self._rows = self._before

    def histogram(self, leaf, features):
        """Summed histogram of one leaf (when the smaller child was guessed wrong)."""
        return self.log.sum(self.client, self._each(_histogram, leaf, features))

    def leaf_of_row(self, node_of) -> list:
        """Per partition, a future of the node of each of its rows."""
        return self._each(_leaf_of_row, node_of)


class _DaskLightGBMRounds(_LightGBMRounds):
    """LightGBM's boosting loop with the rows, gradients and scores on the workers."""

    def __init__(self, grower, *, client, parts, n_rows, **loop):
        super().__init__(grower, y=None, weight=None, timings={"gradients": 0.0}, **loop)
        self.client, self.parts, self.n_rows = client, parts, n_rows
        self.log = ReductionLog()

    def statistics(self, m):
        client = self.client
        return [
            client.submit(_statistics, p, s, self.objective, pure=False)
            for p, s in zip(self.parts, self.score, strict=True)
        ]

    def grow_stage(self, m, statistics, features):
        client, stage = self.client, []
        for k in range(len(self.trained)):
            zero = not self.trained[k]
            rows = DaskLeafwiseRows(client, self.parts, statistics, k, zero, self.n_rows, self.log)
            stage.append(
                self.grower.grow_rows(rows, np.zeros(0, dtype=np.intp) if zero else features)
            )
        split = [grown.tree.node_count > 1 for grown in stage]
        if not any(split) and m > 0:
            return None  # LightGBM: no leaf of any class can be split, training ends
        self.nothing_split = not any(split)
        for grown, grew in zip(stage, split, strict=True):
            if not grew:
                grown.tree.value[:] = 0.0
                grown.weight[:] = 0.0
        values = [grown.tree.value[:, 0] for grown in stage]
        self.score = [
            client.submit(_add_trees, s, [g.leaf_of_row[p] for g in stage], values, pure=False)
            for p, s in enumerate(self.score)
        ]
        return stage


class _DaskLightGBM(DaskBoosting):
    """The distributed ``fit`` shared by the two estimators."""

    _fitted_attribute = "_stack"
    _cluster_only = REDUCTION_RECORDS

    def __init__(
        self,
        *,
        client=None,
        n_partitions=None,
        num_leaves=31,
        max_depth=-1,
        learning_rate=0.1,
        n_estimators=100,
        min_child_samples=20,
        min_child_weight=1e-3,
        min_split_gain=0.0,
        reg_lambda=0.0,
        reg_alpha=0.0,
        max_delta_step=0.0,
        max_bin=255,
        min_data_in_bin=3,
        subsample_for_bin=200_000,
        subsample=1.0,
        subsample_freq=0,
        colsample_bytree=1.0,
        categorical_feature="auto",
        cat_smooth=10.0,
        cat_l2=10.0,
        max_cat_threshold=32,
        max_cat_to_onehot=4,
        min_data_per_group=100,
        data_sample_strategy="bagging",
        top_rate=0.2,
        other_rate=0.1,
        enable_bundle=False,
        max_conflict_rate=None,
        importance_type="split",
        early_stopping_rounds=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        set_init_params(self, locals())

    def _dask_params_check(self):
        if self.subsample < 1.0 and self.subsample_freq > 0:
            raise ValueError(
                "subsample < 1 with subsample_freq > 0 (bagging) is not available on a "
                "cluster; use subsample=1.0"
            )
        if self.data_sample_strategy != "bagging":
            raise ValueError("data_sample_strategy='goss' is not available on a cluster")
        if self.enable_bundle:
            raise ValueError(
                "enable_bundle=True is not available on a cluster (LightGBM's bundles are "
                "found on all rows, and bundled features that share rows change the trees); "
                "the Dask estimators grow the trees of enable_bundle=False"
            )
        if self.max_conflict_rate is not None:
            raise ValueError(
                "max_conflict_rate is not available on a cluster (bundles with conflicts "
                "change which rows a split sends left); use max_conflict_rate=None"
            )
        spec = self.categorical_feature
        if not (isinstance(spec, str) and spec == "auto") and len(list(spec)) > 0:
            raise ValueError(
                "categorical_feature is not available on a cluster; pass category codes "
                "as numbers and categorical_feature='auto'"
            )
        if self.early_stopping_rounds is not None:
            raise ValueError("early_stopping_rounds is not available on a cluster")

    def _dask_fit(self, X, y, sample_weight, targets, classes_of):
        self._validate_params()
        self._dask_params_check()
        client, Xd, yd, wd, names = self._cluster_input(X, y, sample_weight, np.float64)
        F = self.n_features_in_
        self._pandas_categories, self._auto_categorical, self._categories = {}, [], {}
        raw = partitions(client, Xd, yd, wd, clean=_clean)
        targets, n_classes = classes_of(client, raw, targets)
        shapes = client.gather([client.submit(_rows, p, pure=False) for p in raw])
        sizes = [size for size, _, _ in shapes]
        n, unit = int(sum(sizes)), all(u for _, u, _ in shapes)
        if sum(total for _, _, total in shapes) <= 0:
            raise ValueError("sample_weight sums to zero")
        offsets = np.r_[0, np.cumsum(sizes)]

        # LightGBM's bin sample: one machine's draw over the global row indices.
        rng = library_rng(self.random_state)
        if n > self.subsample_for_bin:
            chosen = np.sort(rng.choice(n, size=int(self.subsample_for_bin), replace=False))
        else:
            chosen = np.arange(n)
        pieces = []
        for p, part in enumerate(raw):
            local = chosen[(chosen >= offsets[p]) & (chosen < offsets[p + 1])] - offsets[p]
            if local.size:
                pieces.append(client.submit(_sample_rows, part, local, pure=False))
        sample = np.concatenate(client.gather(pieces))
        check_neighbour_sums(
            sample,
            names,
            library="LightGBM's binning",
            reason="lightgbm then merges them into one bin (a constant model on two values)",
        )
        sampled, has_missing, _ = fit_lightgbm_bins(
            sample, self.max_bin, self.min_data_in_bin, len(sample), None, 1
        )
        if n > self.subsample_for_bin:  # a missing value met only outside the sample
            has_missing |= reduce_sum(
                client, [client.submit(_nan_columns, p, pure=False) for p in raw]
            ).astype(bool)
        header = dataclass_replace(sampled, codes=sampled.codes[:, :0])
        del sample, sampled
        parts = [
            client.submit(_part, p, header.edges, header.missing_code, targets, unit, pure=False)
            for p in raw
        ]
        del raw
        counts = reduce_sum(
            client,
            [client.submit(_counts, p, F, header.stride, pure=False) for p in parts],
        )
        most_frequent = most_frequent_bins_of_counts(counts, n, zero_bins(header))
        usable = used_features_of_counts(
            counts, header.n_bins, header.missing_code, has_missing, self._min_child_samples()
        )

        objective = self._dask_objective(n_classes)
        labels = client.gather([client.submit(_targets, p, pure=False) for p in parts])
        y_all = np.concatenate([t[0] for t in labels])
        weight = None if unit else np.concatenate([t[1] for t in labels])
        init = objective.init_score(y_all, weight)
        trained = objective.trained(y_all, weight)
        del labels, y_all, weight
        grower = LeafwiseGrower(
            header,
            has_missing,
            self._params(),
            most_frequent_bin=most_frequent,
            num_leaves=int(self.num_leaves),
            max_depth=int(self.max_depth),
            learning_rate=float(self.learning_rate),
            n_threads=1,
            usable=usable,
        )
        self.n_bundles_ = grower.n_columns
        scores = [client.submit(_start_scores, p, init, pure=False) for p in parts]
        rounds = _DaskLightGBMRounds(
            grower,
            rng=rng,
            n_features=F,
            column_share=float(self.colsample_bytree),
            rounding=_half_up,
            evals=EvalSets([], objective.evaluate),
            model=self,
            objective=objective,
            score=scores,
            trained=trained,
            client=client,
            parts=parts,
            n_rows=n,
        )
        boosted = self._run_rounds(rounds, prefix="valid_")
        client.gather(rounds.score)  # the last update, so that a failure there is not silent
        rounds.log.record(self)
        K = objective.n_outputs
        self._timings = rounds.timings
        self._objective = objective
        self._trees = boosted.trees
        self._gains = boosted.gains
        self.init_score_ = init
        self.n_estimators_ = len(boosted.trees)
        self.evals_result_ = {}
        flat = [tree for stage in boosted.trees for tree in stage]
        outputs = np.tile(np.arange(K), len(boosted.trees))
        self._stack = StackedTrees(flat, [t.value for t in flat], outputs, K)
        check_score_bound(self._stack.score_bound, self.init_score_, self.learning_rate)
        return self


def _no_classes(client, parts, targets):
    return targets, 0


class DaskLightGBMRegressor(_DaskLightGBM, LightGBMRegressor):
    """LightGBM regression, leaf-wise and data-parallel on a Dask cluster.

    The trees of :class:`~mltrees.ensemble.lightgbm.LightGBMRegressor` with
    ``enable_bundle=False`` on the same data (the same bins; splits chosen
    from histograms summed over the partitions, one reduction per split,
    :eq:`eq-scale-allreduce`): see :mod:`mltrees.dask.lightgbm` for what is
    equal and the scope. ``enable_bundle`` defaults to False here and True
    is refused.

    Parameters
    ----------
    {params}
    {dask}

    Attributes
    ----------
    init_score_ : ndarray of shape (1,)
    n_estimators_ : int
    round_trips_ : int
        Reductions of the fit (about one per split).
    reduction_seconds_, reduction_bytes_ : ndarray
        Per reduction: the driver's wait, and the bytes of the summed answer.

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import LightGBMRegressor
    >>> from mltrees.dask import DaskLightGBMRegressor
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_diabetes(return_X_y=True)
    >>> params = dict(n_estimators=5, num_leaves=7, enable_bundle=False)
    >>> cluster = DaskLightGBMRegressor(**params, client=client, n_partitions=3).fit(X, y)
    >>> one = LightGBMRegressor(**params).fit(X, y)
    >>> bool(abs(cluster.predict(X) - one.predict(X)).max() < 1e-9)
    True
    >>> client.close()
    """

    _local_class = LightGBMRegressor

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` trees on the rows of ``X`` spread over the workers."""
        return self._dask_fit(X, y, sample_weight, regression_targets, _no_classes)

    @staticmethod
    def _dask_objective(n_classes):
        return _Objective("regression")

    def predict(self, X: MatrixLike, num_iteration: int | None = None) -> np.ndarray:
        """Predicted values; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            return self._lazy(X, "predict", None, np.float64)
        return super().predict(X, num_iteration)


class DaskLightGBMClassifier(_DaskLightGBM, LightGBMClassifier):
    """LightGBM classification, leaf-wise and data-parallel on a Dask cluster.

    Binary log-loss, or softmax with one tree per class and round; the trees
    of :class:`~mltrees.ensemble.lightgbm.LightGBMClassifier` with
    ``enable_bundle=False`` on the same data (:eq:`eq-scale-allreduce`): see
    :mod:`mltrees.dask.lightgbm`. ``enable_bundle`` defaults to False here.

    Parameters
    ----------
    {params}
    {dask}

    Attributes
    ----------
    classes_ : ndarray
    init_score_ : ndarray
    n_estimators_ : int
    round_trips_ : int
    reduction_seconds_, reduction_bytes_ : ndarray

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import LightGBMClassifier
    >>> from mltrees.dask import DaskLightGBMClassifier
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> params = dict(n_estimators=5, num_leaves=7, enable_bundle=False)
    >>> cluster = DaskLightGBMClassifier(**params, client=client, n_partitions=3).fit(X, y)
    >>> one = LightGBMClassifier(**params).fit(X, y)
    >>> bool(abs(cluster.predict_proba(X) - one.predict_proba(X)).max() < 1e-9)
    True
    >>> client.close()
    """

    _local_class = LightGBMClassifier

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` rounds on the rows of ``X`` spread over the workers."""
        return self._dask_fit(X, y, sample_weight, None, self._dask_classes)

    def _dask_classes(self, client, parts, targets):
        return cluster_classes(self, client, parts)

    @staticmethod
    def _dask_objective(n_classes):
        return _Objective("binary" if n_classes == 2 else "multiclass", n_classes)

    def predict(self, X: MatrixLike, num_iteration: int | None = None) -> np.ndarray:
        """Classes; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            return self._lazy(X, "predict", None, self.classes_.dtype)
        return super().predict(X, num_iteration)

    def predict_proba(self, X: MatrixLike, num_iteration: int | None = None) -> np.ndarray:
        """Class probabilities; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            return self._lazy(X, "predict_proba", len(self.classes_), np.float64)
        return super().predict_proba(X, num_iteration)


fill_docstrings((DaskLightGBMRegressor, DaskLightGBMClassifier), _LGB_PARAMS)
