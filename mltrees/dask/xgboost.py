"""XGBoost on a Dask cluster: the histogram all-reduce (chapter on scale).

:class:`DaskXGBoostRegressor` and :class:`DaskXGBoostClassifier` are the
estimators of :mod:`mltrees.ensemble.xgboost` with a ``fit`` that reads
dask collections. Before the first round, the cut points are one
machine's (:func:`~mltrees.dask.allreduce.exact_cuts`), and each worker
bins the partitions it holds and keeps them, with their margins, in a
:class:`~mltrees.dask.allreduce.PartitionGroup`. Every boosting round:

1. each partition computes the gradients and hessians of its rows at its
   margins (:eq:`eq-xgb-taylor`), on the worker that holds it;
2. the driver's :class:`~mltrees.hist.grower.DepthwiseGrower` grows the
   tree on a :class:`~mltrees.dask.allreduce.DaskRows`: each level's
   histograms are the sums of the partitions' (:eq:`eq-scale-allreduce`),
   so the driver picks the splits one machine would pick; a level costs
   one call to the workers (about 2 ms of latency), which split their rows
   and build the next level's histograms;
3. each partition adds its rows' leaf values to its margins.

Sums are added in partition order, never in the order the workers answer:
the model does not depend on which worker held which partition.

The fitted estimator *is* an
:class:`~mltrees.ensemble.xgboost.XGBoostRegressor` /
:class:`~mltrees.ensemble.xgboost.XGBoostClassifier` (a subclass), with
the trees one machine grows on the same rows (with ``sketch_eps`` or
``cuts`` given: on the same cut points; the sums of the histograms are
added in another order, so leaf values agree to rounding); it predicts
on numpy arrays and pandas frames as those do, and lazily on dask
collections (one task per block). :meth:`to_local` returns the plain
estimator, without the client.
"""

from __future__ import annotations

import time
from typing import Self

import numpy as np

from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import require_two_classes
from mltrees.dask._data import is_dask_collection, partitions
from mltrees.dask._estimators import DaskBoosting, _union, fill_docstrings
from mltrees.dask.allreduce import (
    DaskRows,
    PartitionGroup,
    WorkerLost,
    bin_partition,
    exact_cuts,
    header,
    merged_cuts,
    tree_sum,
)
from mltrees.ensemble._common import class_codes, real_targets
from mltrees.ensemble.xgboost import (
    _XGB_PARAMS,
    UNLIMITED_DEPTH,
    XGBoostClassifier,
    XGBoostRegressor,
    _Objective,
    newton_statistics,
    softmax_base_margin,
)
from mltrees.hist.boosting import BoostingLoop
from mltrees.hist.grower import DepthwiseGrower, NodeRows
from mltrees.losses import BinomialLogLoss, MultinomialLogLoss, PoissonLoss, SquaredError

__all__ = ["DaskXGBoostClassifier", "DaskXGBoostRegressor"]


# ---------------------------------------------------------------- worker state
class _Partition:
    """What a worker keeps of one partition during a fit (a :class:`PartitionGroup` state).

    Its rows binned with the global cuts, their targets and weights, their
    float32 margins (grown by float32 additions, as on one machine and in
    XGBoost), the round's gradients and hessians, the tree being grown
    (a :class:`~mltrees.hist.grower.NodeRows`) and the leaf of every row in
    each of the round's trees.
    """

    def __init__(self, part, cuts, minimum, encode_target, base_margin):
        X, y, w = part
        self.data = bin_partition(X, cuts, minimum)
        self.y, self.w = encode_target(y), w
        self.margin = np.tile(base_margin, (self.data.n_rows, 1)).astype(np.float32)
        self.g = self.h = self.rows = None
        self.leaves = {}

    def node_rows(self, k: int, features) -> NodeRows:
        return NodeRows(self.data, self.g[:, k], self.h[:, k], features=features)


def _n_rows(state):
    return state.data.n_rows


def _statistics(state, objective, unit_weights):
    state.g, state.h = newton_statistics(
        objective, state.y, state.margin, None if unit_weights else state.w
    )


def _add_leaves(state, values):
    for k, value in enumerate(values):
        state.margin[:, k] += value[state.leaves.pop(k)].astype(np.float32)


def _target_sums(part):
    _, y, w = part
    y = real_targets(np.asarray(y))
    return np.array([np.dot(w, y), w.sum(), float(y.min(initial=np.inf))]), bool(np.all(w == 1.0))


def _sum_target(a, b):
    (sa, ua), (sb, ub) = a, b
    return np.array([sa[0] + sb[0], sa[1] + sb[1], min(sa[2], sb[2])]), ua and ub


def _classes(part):
    _, y, w = part
    classes, _ = class_codes(np.asarray(y))
    return classes, bool(np.all(w == 1.0))


def _class_weights(part, encode_target, n_classes):
    _, y, w = part
    return np.bincount(encode_target(y), weights=w, minlength=n_classes)


def _as_float(y):
    return np.asarray(y, dtype=np.float64)


class _Encode:
    """Class labels to codes 0 .. K-1 (picklable, for the workers)."""

    def __init__(self, classes):
        self.classes = classes

    def __call__(self, y):
        return np.searchsorted(self.classes, np.asarray(y)).astype(np.intp)


_DASK_PARAMS = """
    client : distributed.Client or None, default None
        The cluster to train on; None: the session's default client.
    cuts : list of array_like or None, default None
        Cut points per feature (bin ``b`` holds ``cuts[j][b-1] <= x < cuts[j][b]``,
        the last one above every value). None: computed from the data, as
        ``sketch_eps`` says.
    sketch_eps : float or None, default None
        None: the cut points of one machine, bit for bit
        (:func:`~mltrees.dask.allreduce.exact_cuts`: each column, in the
        global row order of the partitions, is cut on one worker by
        XGBoost's one-machine sketch; ``n_rows × n_features × 4`` bytes
        shuffled once per fit), so that the model is the one
        :class:`~mltrees.ensemble.xgboost.XGBoostClassifier` /
        ``XGBoostRegressor`` fits on the same rows in the same order. A
        float in (0, 1]: the partitions' quantile summaries merged with rank
        error ε (:func:`~mltrees.dask.allreduce.merged_cuts`), which moves
        summaries only; the cuts are then one machine's for features with at
        most ``max_bin`` distinct values, and within ε of their target
        ranks otherwise.
    n_partitions : int or None, default None
        Partitions a numpy or pandas ``X`` is cut into (None: one per
        worker); dask collections keep their own.
"""


class _DaskRounds(BoostingLoop):
    """The hooks of the boosting loop with the rows on the workers.

    The partitions' binned rows, statistics and margins stay on the workers
    in a :class:`~mltrees.dask.allreduce.PartitionGroup`; a tree grows
    through a :class:`~mltrees.dask.allreduce.DaskRows` whose histograms are
    summed over the partitions. Computing the gradients and adding a round's
    trees to the margins are posted: they ride on the next call.
    """

    def __init__(self, grower, *, model, group, objective, n_rows, **loop):
        super().__init__(grower, **loop)
        self.model, self.group = model, group
        self.objective, self.n_rows = objective, n_rows

    def statistics(self, m):
        self.group.post(_statistics, self.objective, self.model._unit_weights)

    def grow_stage(self, m, statistics, features):
        stage = []
        for k in range(self.objective.n_outputs):
            rows = DaskRows(self.group, k, features, self.n_rows, self.grower.max_depth)
            stage.append(self.grower.grow_rows(rows, features))
            self.model.round_trips_ += rows.round_trips
        self.group.post(_add_leaves, [grown.tree.value[:, 0] for grown in stage])
        return stage


class _DaskXGBoost(DaskBoosting):
    """The distributed ``fit`` shared by the two estimators."""

    # Parameters of the fit on the cluster, not of the model.
    _cluster_only = ("client", "cuts", "sketch_eps")

    def _dask_params_check(self):
        if self.tree_method != "hist":
            raise ValueError(
                f"the Dask estimators grow with tree_method='hist', got {self.tree_method!r}"
            )
        if self.subsample < 1.0:
            raise ValueError(
                "subsample < 1 is not available on a cluster (each row's draw would "
                "depend on the partitioning); use subsample=1.0"
            )
        if self.early_stopping_rounds is not None:
            raise ValueError("early_stopping_rounds is not available on a cluster")
        if self.sketch_eps is not None and not 0 < self.sketch_eps <= 1:
            raise ValueError(f"sketch_eps must lie in (0, 1], got {self.sketch_eps!r}")

    def _dask_fit(self, X, y, sample_weight):
        """Fit; once more from the input collections if a worker is lost mid-fit.

        The partitions' states live in the workers' memory
        (:class:`~mltrees.dask.allreduce.PartitionGroup`): a lost worker ends
        the attempt, and the fit starts again from the collections, which
        Dask recomputes. Every step is a function of the partitions and of
        the parameters, so the second attempt gives the model the first
        would have; a second loss raises.
        """
        self._validate_params()
        self._dask_params_check()
        try:
            return self._dask_fit_once(X, y, sample_weight)
        except WorkerLost:
            return self._dask_fit_once(X, y, sample_weight)

    def _dask_fit_once(self, X, y, sample_weight):
        client, Xd, yd, wd, _ = self._cluster_input(X, y, sample_weight)
        parts = partitions(client, Xd, yd, wd)
        objective, base_margin, encode_target, unit = self._dask_objective(client, parts)
        self._unit_weights = unit
        self.timings_ = {}
        clock = time.perf_counter()
        if self.cuts is None and self.sketch_eps is None:
            # One machine's cuts, bit for bit: every column in global row order on one worker.
            cuts, minimum = exact_cuts(client, parts, self.n_features_in_, self.max_bin, unit)
        elif self.cuts is None:
            cuts, minimum, _ = merged_cuts(client, parts, self.max_bin, self.sketch_eps)
        else:
            cuts = [np.asarray(c, dtype=np.float32) for c in self.cuts]
            if len(cuts) != self.n_features_in_:
                raise ValueError(
                    f"cuts has {len(cuts)} entries, X has {self.n_features_in_} features"
                )
            if any(c.ndim != 1 or c.size == 0 or np.any(np.diff(c) <= 0) for c in cuts):
                raise ValueError("every entry of cuts must be a non-empty increasing 1-D array")
            minimum = np.array([c[0] for c in cuts], dtype=np.float32)
        clock = self._tick("cuts", clock)
        group = PartitionGroup(client, parts, _Partition, cuts, minimum, encode_target, base_margin)
        del parts  # the raw partitions can go: the workers' states hold all the learner reads
        try:
            n_rows = int(sum(group.map(_n_rows)))
            clock = self._tick("binning", clock)
            trees = self._dask_boost(group, header(cuts, minimum), objective, n_rows)
            self._tick("trees", clock)
            self.bytes_received_ = group.bytes_received
        finally:
            group.close()
        self._cuts = cuts
        return self._set_fitted(trees, [], 0, objective, base_margin, False)

    def _tick(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.timings_[stage] = round(now - since, 6)
        return now

    def _dask_boost(self, group, data, objective, n_rows):
        """The boosting loop (:class:`~mltrees.hist.boosting.BoostingLoop`) on the workers' rows."""
        rng = np.random.default_rng(self.random_state)
        grower = DepthwiseGrower(
            data,
            self._split_params(objective),
            max_depth=self.max_depth if self.max_depth > 0 else UNLIMITED_DEPTH,
            learning_rate=float(self.learning_rate),
            colsample_bylevel=float(self.colsample_bylevel),
            colsample_bynode=float(self.colsample_bynode),
            rng=rng,
            n_threads=1,
        )
        self.round_trips_ = 0
        rounds = _DaskRounds(
            grower,
            rng=rng,
            n_features=data.n_features,
            column_share=float(self.colsample_bytree),  # the same draw as on one machine
            model=self,
            group=group,
            objective=objective,
            n_rows=n_rows,
        )
        # No evaluation sets and no early stopping on a cluster (_dask_params_check).
        trees = rounds.run(
            self.n_estimators, verbose=0, patience=None, name=type(self).__name__, prefix="eval"
        ).trees
        group.flush()  # the last margin update, so that a failure there is not silent
        return trees


class DaskXGBoostRegressor(_DaskXGBoost, XGBoostRegressor):
    """XGBoost regression on a Dask cluster (chapter on scale).

    Implements the histogram all-reduce :eq:`eq-scale-allreduce`: the
    model is the one :class:`~mltrees.ensemble.xgboost.XGBoostRegressor`
    grows on the same cut points. ``tree_method`` must be "hist";
    ``subsample < 1`` and early stopping are not available.

    Parameters
    ----------
    objective : {"reg:squarederror", "count:poisson"}, default "reg:squarederror"
    {params}
    {dask}

    Attributes
    ----------
    round_trips_ : int
        Driver-worker calls made while growing the trees: per tree, the
        root and one per level, and one more per level whose smaller
        children were guessed wrong.
    bytes_received_ : int
        Bytes of the answers (histograms, counts, totals) the driver received.
    timings_ : dict
        Seconds spent on the cut points, the binning and the trees.

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees.dask import DaskXGBoostRegressor
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = DaskXGBoostRegressor(n_estimators=5, max_depth=3, client=client).fit(X, y)
    >>> model.round_trips_ > 0  # histograms summed over the partitions, one level at a time
    True
    >>> client.close()
    """

    _local_class = XGBoostRegressor

    def __init__(
        self,
        *,
        client=None,
        cuts=None,
        sketch_eps=None,
        n_partitions=None,
        objective="reg:squarederror",
        n_estimators=100,
        learning_rate=0.3,
        max_depth=6,
        reg_lambda=1.0,
        reg_alpha=0.0,
        gamma=0.0,
        min_child_weight=1.0,
        max_delta_step=None,
        subsample=1.0,
        colsample_bytree=1.0,
        colsample_bylevel=1.0,
        colsample_bynode=1.0,
        tree_method="hist",
        sketch="global",
        max_bin=256,
        base_score=None,
        early_stopping_rounds=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        super().__init__(
            objective=objective,
            n_estimators=n_estimators,
            learning_rate=learning_rate,
            max_depth=max_depth,
            reg_lambda=reg_lambda,
            reg_alpha=reg_alpha,
            gamma=gamma,
            min_child_weight=min_child_weight,
            max_delta_step=max_delta_step,
            subsample=subsample,
            colsample_bytree=colsample_bytree,
            colsample_bylevel=colsample_bylevel,
            colsample_bynode=colsample_bynode,
            tree_method=tree_method,
            sketch=sketch,
            max_bin=max_bin,
            base_score=base_score,
            early_stopping_rounds=early_stopping_rounds,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.client = client
        self.cuts = cuts
        self.sketch_eps = sketch_eps
        self.n_partitions = n_partitions

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` trees on the rows of ``X`` spread over the workers."""
        if self.objective not in self._objectives:
            raise ValueError(f"objective must be one of {self._objectives}, got {self.objective!r}")
        return self._dask_fit(X, y, sample_weight)

    def _dask_objective(self, client, parts):
        sums, unit = client.gather(
            tree_sum(
                client, [client.submit(_target_sums, p, pure=False) for p in parts], _sum_target
            )
        )
        if sums[1] <= 0:
            raise ValueError(
                "sample_weight is 0 for every row; at least one positive weight is needed"
            )
        if self.objective == "count:poisson":
            if sums[2] < 0:
                raise ValueError("y must be >= 0 for objective='count:poisson'")
            delta = 0.7 if self.max_delta_step is None else float(self.max_delta_step)
            objective = _Objective("count:poisson", PoissonLoss(delta), metric="poisson-nloglik")
        else:
            objective = _Objective("reg:squarederror", SquaredError(), metric="rmse")
        base = float(sums[0] / sums[1]) if self.base_score is None else self.base_score
        if objective.name == "count:poisson" and base <= 0:
            raise ValueError(f"base_score must be > 0 for Poisson regression, got {base!r}")
        base_margin = np.atleast_1d(objective.margin_of(base)).astype(np.float64)
        return objective, base_margin, _as_float, unit

    def predict(
        self,
        X: MatrixLike,
        output_margin: bool = False,
        iteration_range: tuple[int, int] | None = None,
    ) -> np.ndarray:
        """Predictions; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            if output_margin or iteration_range is not None:
                raise ValueError("output_margin and iteration_range need numpy input")
            return self._lazy(X, "predict", None, np.float64)
        return super().predict(X, output_margin=output_margin, iteration_range=iteration_range)


class DaskXGBoostClassifier(_DaskXGBoost, XGBoostClassifier):
    """XGBoost classification on a Dask cluster (chapter on scale).

    Implements the histogram all-reduce :eq:`eq-scale-allreduce`: the
    model is the one :class:`~mltrees.ensemble.xgboost.XGBoostClassifier`
    grows on the same cut points. ``tree_method`` must be "hist";
    ``subsample < 1`` and early stopping are not available.

    Parameters
    ----------
    {params}
    {dask}

    Attributes
    ----------
    classes_ : ndarray
    round_trips_ : int
        Driver-worker calls made while growing the trees (see
        :class:`DaskXGBoostRegressor`).
    bytes_received_ : int
        Bytes of the answers the driver received.
    timings_ : dict
        Seconds spent on the cut points, the binning and the trees.

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_digits
    >>> from mltrees import XGBoostClassifier
    >>> from mltrees.dask import DaskXGBoostClassifier
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, digit = load_digits(return_X_y=True)  # pixels 0-16: the merged sketch is exact
    >>> y = (digit == 0).astype(int)
    >>> params = dict(n_estimators=5, max_depth=3, random_state=0)
    >>> cluster = DaskXGBoostClassifier(**params, client=client, n_partitions=3).fit(X, y)
    >>> one = XGBoostClassifier(**params).fit(X, y)  # the same trees on one machine
    >>> bool(abs(cluster.decision_function(X) - one.decision_function(X)).max() < 1e-9)
    True
    >>> client.close()
    """

    _local_class = XGBoostClassifier

    def __init__(
        self,
        *,
        client=None,
        cuts=None,
        sketch_eps=None,
        n_partitions=None,
        n_estimators=100,
        learning_rate=0.3,
        max_depth=6,
        reg_lambda=1.0,
        reg_alpha=0.0,
        gamma=0.0,
        min_child_weight=1.0,
        max_delta_step=None,
        subsample=1.0,
        colsample_bytree=1.0,
        colsample_bylevel=1.0,
        colsample_bynode=1.0,
        tree_method="hist",
        sketch="global",
        max_bin=256,
        base_score=None,
        early_stopping_rounds=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        super().__init__(
            n_estimators=n_estimators,
            learning_rate=learning_rate,
            max_depth=max_depth,
            reg_lambda=reg_lambda,
            reg_alpha=reg_alpha,
            gamma=gamma,
            min_child_weight=min_child_weight,
            max_delta_step=max_delta_step,
            subsample=subsample,
            colsample_bytree=colsample_bytree,
            colsample_bylevel=colsample_bylevel,
            colsample_bynode=colsample_bynode,
            tree_method=tree_method,
            sketch=sketch,
            max_bin=max_bin,
            base_score=base_score,
            early_stopping_rounds=early_stopping_rounds,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.client = client
        self.cuts = cuts
        self.sketch_eps = sketch_eps
        self.n_partitions = n_partitions

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` rounds on the rows of ``X`` spread over the workers."""
        return self._dask_fit(X, y, sample_weight)

    def _dask_objective(self, client, parts):
        classes, unit = client.gather(
            tree_sum(client, [client.submit(_classes, p, pure=False) for p in parts], _union)
        )
        self.classes_ = classes
        K = len(classes)
        encode_target = _Encode(classes)
        weights = client.gather(
            tree_sum(
                client,
                [client.submit(_class_weights, p, encode_target, K, pure=False) for p in parts],
            )
        )
        if K == 0:
            raise ValueError(
                "sample_weight is 0 for every row; at least one positive weight is needed"
            )
        require_two_classes(K, type(self).__name__, np.count_nonzero(weights))
        if K == 2:
            objective = _Objective("binary:logistic", BinomialLogLoss(), metric="logloss")
            p = float(weights[1] / weights.sum()) if self.base_score is None else self.base_score
            if not 0.0 < p < 1.0:
                raise ValueError(f"base_score must lie in (0, 1) for classification, got {p!r}")
            base_margin = np.atleast_1d(objective.margin_of(p))
        else:
            objective = _Objective(
                "multi:softprob",
                MultinomialLogLoss(K),
                n_outputs=K,
                hessian_factor=2.0,
                metric="mlogloss",
            )
            if self.base_score is None:
                # From the summed class weights, as on one machine.
                base_margin = softmax_base_margin(weights, float(np.sum(weights)))
            else:
                base_margin = np.full(K, float(self.base_score))
        return objective, np.asarray(base_margin, dtype=np.float64), encode_target, unit

    def predict(
        self,
        X: MatrixLike,
        output_margin: bool = False,
        iteration_range: tuple[int, int] | None = None,
    ) -> np.ndarray:
        """Classes; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            if output_margin or iteration_range is not None:
                raise ValueError("output_margin and iteration_range need numpy input")
            return self._lazy(X, "predict", None, self.classes_.dtype)
        return super().predict(X, output_margin=output_margin, iteration_range=iteration_range)

    def predict_proba(
        self, X: MatrixLike, iteration_range: tuple[int, int] | None = None
    ) -> np.ndarray:
        """Class probabilities; a lazy dask collection for a dask ``X``."""
        if is_dask_collection(X):
            return self._lazy(X, "predict_proba", len(self.classes_), np.float64)
        return super().predict_proba(X, iteration_range=iteration_range)


fill_docstrings((DaskXGBoostRegressor, DaskXGBoostClassifier), _XGB_PARAMS, _DASK_PARAMS)
