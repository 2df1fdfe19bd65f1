"""XGBoost: Newton boosting of regularised trees (Chen & Guestrin 2016), chapter 13.

Every round computes the gradients ``g_i`` and hessians ``h_i`` of the loss
at the current margins ``F_{m-1}(x_i)`` (:eq:`eq-xgb-taylor`), grows a tree
on them with the histogram learner of :mod:`mltrees.hist` (leaf weights
:eq:`eq-xgb-leaf-weight`, split gains :eq:`eq-xgb-gain`), and adds
``learning_rate * w*`` of each row's leaf to its margin, read from the
grower's row -> leaf assignment rather than by walking the tree.

``tree_method``:

* ``"hist"``: features are binned once by XGBoost's quantile sketch
  (:mod:`mltrees.hist.xgboost.cuts`, weighted by ``sample_weight``): one
  bin per distinct value up to ``max_bin`` + 1 of them, XGBoost 3.2's cut
  points bit for bit beyond;
* ``"approx"``: the bins are proposed anew for every tree from quantiles
  weighted by the tree's hessians (:eq:`eq-xgb-sketch-weight`), the paper's
  global proposal, by XGBoost's sketch of sorted columns
  (:func:`~mltrees.hist.xgboost.cuts.xgboost_approx_cuts`); ``sketch="local"``
  proposes them anew at every node instead (Algorithm 2's local variant, which
  XGBoost does not offer);
* ``"exact"``: every distinct value is a candidate (Algorithm 1).

Parameter names and defaults are XGBoost's where the meaning is the same.
Data are compared in float32, and gradients, hessians, margins, weights,
scores and gains follow XGBoost 3.2's float32 arithmetic, so that trees and
margins equal the ``xgboost`` package's (3.2) with ``hist``, ``approx`` and ``exact``;
the scope (parameters, data, exceptions) is in the README and checked by
``tests/differential/test_xgboost.py``. A row of weight 0 is left out of
the fit, as scikit-learn's estimators do (XGBoost keeps it in the data, where
it can move an ``exact`` threshold or a sketch's size).

Categorical columns of a DataFrame (``category``, ``str``/``string``,
``bool``, ``object`` of strings: the package's one rule, :mod:`mltrees._frames`)
are accepted and read as the numbers of their categories (ordinal encoding,
in the categories' pandas order, else sorted; missing or unseen categories are
missing values and follow the learned default direction). This is what
XGBoost users did before its native categorical splits (``enable_categorical``):
every threshold separates the categories below a code from those above, so an
unordered feature may need several splits where XGBoost's native partition
would need one; for set splits of categories use LightGBMClassifier or the
tree estimators. XGBoost itself refuses such columns unless told to encode them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Self

import numpy as np
import pandas as pd
from scipy.special import gammaln
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from mltrees._frames import frame_as_numbers, learn_frame_categories
from mltrees._input_checks import check_unique_columns, validate_numbers
from mltrees._threads import threads_for_jobs
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import require_two_classes
from mltrees._value_range import check_neighbour_sums
from mltrees.ensemble._common import (
    StackedTrees,
    check_fraction,
    check_positive_int,
    check_score_bound,
    class_codes,
    library_rng,
    raw_importances,
    real_targets,
)
from mltrees.hist.binning import BinnedData
from mltrees.hist.boosting import BoostingLoop, EvalSets
from mltrees.hist.grower import DepthwiseGrower
from mltrees.hist.xgboost.cuts import xgboost_approx_cuts, xgboost_cuts
from mltrees.hist.xgboost.exact import ExactGrower, SortedColumns
from mltrees.hist.xgboost.splitting import SplitParams
from mltrees.losses import BinomialLogLoss, MultinomialLogLoss, PoissonLoss, SquaredError
from mltrees.tree._data import validate_fit_input
from mltrees.tree._tree import available_cores

__all__ = ["XGBoostClassifier", "XGBoostRegressor"]

LOCAL_GRID = 16  # fine bins per proposal of sketch="local"
UNLIMITED_DEPTH = 1 << 30  # max_depth=0: levels are grown until no node splits
_F32 = np.float32
_ONE = _F32(1.0)
_RT_EPS = _F32(1e-6)  # XGBoost's kRtEps
_HESSIAN_FLOOR = _F32(1e-16)  # the floor of XGBoost's logistic and softmax hessians


def _expf(x: np.ndarray) -> np.ndarray:
    """``expf`` of float32 values: exp in float64, rounded once to float32 (correctly rounded)."""
    with np.errstate(over="ignore"):
        return np.exp(np.asarray(x, dtype=np.float64)).astype(_F32)


def _logf(x) -> np.ndarray:
    """``logf`` of float32 values, correctly rounded (as :func:`_expf`)."""
    return np.log(np.asarray(x, dtype=np.float64)).astype(_F32)


@dataclass
class _Objective:
    """A loss as XGBoost uses it: gradients, hessians, the margin of ``base_score``.

    Gradients and starting margins follow XGBoost 3.2's float32 arithmetic
    (``src/objective/regression_loss.h``, ``regression_obj.cu``,
    ``multiclass_obj.cu``, ``src/common/math.h``): margins, labels and
    weights are float32 and so is every operation, ``expf``/``logf``
    correctly rounded. The trees' sums of these values are float64, so equal
    float32 inputs give XGBoost's sums, and its choices between candidates
    that tie up to rounding.
    """

    name: str
    loss: object
    n_outputs: int = 1
    hessian_factor: float = 1.0  # softmax: XGBoost's 2 p (1 - p)
    metric: str = "rmse"

    def gradients(self, y, margin, weight=None):
        """float32 ``g`` and ``h`` of shape ``margin.shape`` (n, K), sample weights included.

        ``margin`` holds float32 margins, ``y`` the labels (class codes for
        softmax) and ``weight`` the sample weights (None: unit weights).
        """
        margin = np.asarray(margin, dtype=_F32)
        y = np.asarray(y).astype(_F32)
        w = None if weight is None else np.asarray(weight).astype(_F32)
        if self.name == "multi:softprob":
            return self._softmax_gradients(y, margin, w)
        m = margin[:, 0]
        if self.name == "binary:logistic":
            # common::Sigmoid: 1 / (expf(min(-x, 88.7)) + 1 + 1e-16); h = max(p (1 - p), 1e-16).
            p = _ONE / ((_expf(np.minimum(-m, _F32(88.7))) + _ONE) + _HESSIAN_FLOOR)
            g, h = p - y, np.maximum(p * (_ONE - p), _HESSIAN_FLOOR)
        elif self.name == "count:poisson":
            g = _expf(m) - y
            h = _expf(m + _F32(self.loss.max_delta_step))
        else:  # reg:squarederror
            g, h = m - y, np.ones_like(m)
        if w is not None:
            g, h = g * w, h * w
        return g[:, None], h[:, None]

    @staticmethod
    def _softmax_gradients(y, margin, w):
        """XGBoost's softmax: ``p_k = expf(F_k - max) / f32(Σ_k expf(...))`` (the sum in float64).

        ``h = max(2 p (1 - p) w, 1e-16)``: the floor applies after the weight.
        """
        n, K = margin.shape
        top = np.maximum(margin.max(axis=1), np.finfo(_F32).tiny)  # fmaxf from FLT_MIN
        e = _expf(margin - top[:, None])
        total = np.zeros(n)
        for k in range(K):  # in class order, as XGBoost adds them
            total += e[:, k]
        p = e / total.astype(_F32)[:, None]
        wt = _ONE if w is None else w[:, None]
        h = np.maximum(_F32(2.0) * p * (_ONE - p) * wt, _HESSIAN_FLOOR)
        g = np.where(y[:, None] == np.arange(K, dtype=_F32), p - _ONE, p) * wt
        return g, h

    def margin_of(self, base_score):
        """The float32 starting margin of a ``base_score`` given on the scale of predictions.

        XGBoost's ``ProbToMargin``: the logit ``-logf(1/b - 1)`` of ``b``
        clipped to ``[1e-6, 1 - 1e-6]`` for the log-loss, ``logf(b)`` for
        Poisson, ``b`` itself otherwise.
        """
        base = np.asarray(base_score, dtype=np.float64).astype(_F32)
        if self.name == "binary:logistic":
            base = np.minimum(np.maximum(base, _RT_EPS), _ONE - _RT_EPS)
            return -_logf(_ONE / base - _ONE)
        if self.name == "count:poisson":
            return _logf(base)
        return base

    def evaluate(self, y, margin, weight) -> float:
        """The default evaluation metric of the objective (lower is better).

        ``poisson-nloglik`` is the whole negative log-likelihood, with the
        ``log(y!)`` that the loss leaves out, as XGBoost reports it
        (``EvalPoissonNegLogLik``): the numbers of ``evals_result_`` are XGBoost's.
        """
        if self.metric == "rmse":
            return float(np.sqrt(np.average((y - margin) ** 2, weights=weight)))
        value = self.loss.value(y, margin)
        if self.metric == "poisson-nloglik":
            value = value + gammaln(np.asarray(y, dtype=np.float64) + 1.0)
        return float(np.average(value, weights=weight))


def xgboost_mean(y, weight=None) -> float:
    """XGBoost's default ``base_score`` of squared error, log-loss and Poisson: the mean label.

    As ``SampleMean`` and ``WeightedSampleMean`` (``src/common/stats.cc``) add
    it on one thread: ``Σ y_i / n``, or ``Σ y_i / Σw * w_i``, in float64 and in
    row order, from float32 labels and weights.
    """
    y = np.asarray(y).astype(_F32).astype(np.float64)
    if weight is None:
        return float(np.cumsum(y / float(y.size))[-1])
    w = np.asarray(weight).astype(_F32).astype(np.float64)
    total = float(np.cumsum(w)[-1])
    return float(np.cumsum(y / total * w)[-1])


def softmax_base_margin(class_weights, total_weight: float) -> np.ndarray:
    """XGBoost's default starting margins of softmax: ``log(share_k + 1e-6) - mean``, in float32.

    ``class_weights[k]`` is the float32 total weight of class ``k`` and
    ``total_weight`` the float64 total of all weights; ``share_k`` is their
    ratio rounded to float32 (``multiclass_obj.cu``, ``InitEstimation``).
    """
    class_weights = np.asarray(class_weights, dtype=_F32).astype(np.float64)
    share = (class_weights * (1.0 / float(total_weight))).astype(_F32)
    log_share = _logf(share + _RT_EPS)
    mean = _F32(0.0)
    for value in log_share / _F32(share.size):  # a float32 running sum, as XGBoost's Mean
        mean = _F32(mean + value)
    return log_share - mean


def class_weight_sums(codes, weight, n_classes: int) -> tuple[np.ndarray, float]:
    """Each class's float32 sum of weights in row order, and the float64 total (XGBoost's)."""
    w = np.asarray(weight).astype(_F32)
    sums = np.zeros(n_classes, dtype=_F32)
    for k in range(n_classes):  # a float32 running sum per class, as SmallHistogram
        members = w[np.asarray(codes) == k]
        sums[k] = np.cumsum(members, dtype=_F32)[-1] if members.size else _F32(0.0)
    return sums, float(np.cumsum(w.astype(np.float64))[-1])


def newton_statistics(objective: _Objective, y, margin, weight=None):
    """Gradients and hessians of every row and output at the margins (:eq:`eq-xgb-taylor`).

    As XGBoost computes them: float32 arithmetic from float32 margins,
    multiplied by the sample weights (None: unit weights), returned as
    float64 arrays of shape ``margin.shape``. A function of the rows alone,
    so that each partition of a distributed data set computes its own.
    """
    g, h = objective.gradients(y, margin, weight)
    return g.astype(np.float64), h.astype(np.float64)


def xgboost_binned(
    X, max_bin: int, weight=None, n_threads: int = 1, sketch=xgboost_cuts
) -> BinnedData:
    """The bins of ``hist`` (or ``approx``): every feature cut by XGBoost's quantile sketch.

    ``sketch`` is :func:`~mltrees.hist.xgboost.cuts.xgboost_cuts` (``hist``,
    weighted by the sample weights; None or all equal to 1: unit weights) or
    :func:`~mltrees.hist.xgboost.cuts.xgboost_approx_cuts` (``approx``,
    weighted by hessians times sample weights): XGBoost 3.2's cut points bit
    for bit, one batch of rows on one machine. A split that sends only
    missing values left gets XGBoost's lower bound as its threshold.
    """
    w = weight
    if sketch is xgboost_cuts and (weight is None or np.all(weight == 1.0)):
        w = None
    return BinnedData.fit(X, max_bin, weights=w, n_threads=n_threads, sketch=sketch)


_XGB_PARAMS = """
    n_estimators : int, default 100
        Boosting rounds.
    learning_rate : float, default 0.3
        η: each tree's leaf weights are multiplied by it (shrinkage).
    max_depth : int, default 6
        Depth of every tree (depth-wise growth); 0: no limit, as XGBoost
        (``hist`` and ``approx`` only: ``exact`` needs a depth, as in XGBoost).
    reg_lambda : float, default 1.0
        λ, the L2 penalty on leaf weights (:eq:`eq-xgb-objective`).
    reg_alpha : float, default 0.0
        λ₁, the L1 penalty on leaf weights (soft-thresholding, :eq:`eq-xgb-l1`).
    gamma : float, default 0.0
        Minimum loss change of a split, compared with XGBoost's un-halved
        gain (:eq:`eq-xgb-gain`); the paper's γ is ``gamma / 2``.
    min_child_weight : float, default 1.0
        Minimum hessian sum 𝓗 of a child.
    max_delta_step : float or None, default None
        Leaf weights are clipped to ``±max_delta_step`` (0: no clipping);
        None means 0.7 for Poisson regression (as XGBoost) and 0 otherwise.
    subsample : float in (0, 1], default 1.0
        Each row takes part in a tree with this probability.
    colsample_bytree, colsample_bylevel, colsample_bynode : float in (0, 1], default 1.0
        Shares of the features drawn per tree, then per level of it, then per node.
    tree_method : {"hist", "approx", "exact"}, default "hist"
        Bins fixed once (``hist``), proposed per tree from hessian-weighted
        quantiles (``approx``), or every distinct value a candidate (``exact``,
        Algorithm 1; ``gamma`` then prunes after growth, as XGBoost does).
    sketch : {"global", "local"}, default "global"
        With ``approx``: proposals once per tree, or anew at every node.
    max_bin : int, default 256
        At most this many bins per feature.
    base_score : float or None, default None
        The starting prediction on the scale of the predictions (a
        probability for classification, a mean for Poisson); None: the
        weighted mean of ``y`` (class shares for several classes).
    early_stopping_rounds : int or None, default None
        Stop when the metric on the last ``eval_set`` of ``fit`` has not
        improved for this many rounds; predictions then use the best round.
    random_state : int, Generator or None, default None
        Seeds the row and feature samples. None: a fixed seed, as XGBoost's
        default ``random_state=0``, so that two fits on the same data give
        the same model.
    n_jobs : int or None, default None
        Cores to use (None and -1: all cores; -2: all but one, as in
        scikit-learn and joblib): threads for the histograms. The exact
        method on data of at least 2**15 cells (rows x features) forks
        ``n_jobs - 1`` worker processes on Linux, each scanning a share of the
        features (its model is the one a single thread grows); without fork,
        threads on at least 2**16 rows; otherwise one thread, faster on such data.
        While a fit runs, the processes poll between levels for up to 20 ms
        instead of sleeping (so each keeps its core busy), unless ``n_jobs``
        exceeds the cores.
    verbose : int, default 0
        If > 0, report the evaluation metrics every ``verbose`` rounds (a line on
        stdout, or a bar in a notebook). Silent by default.
"""


def _xgb_doc(cls):
    cls.__doc__ = cls.__doc__.replace("    {params}\n", _XGB_PARAMS.lstrip("\n"))
    return cls


def _as_float32(estimator, X, *, reset: bool):
    """Validate ``X`` as float32 numbers, NaN allowed (missing), inf rejected.

    The categorical columns of a DataFrame (the package's one rule,
    :mod:`mltrees._frames`) are read as the numbers of their categories
    (ordinal encoding; categories in their pandas order, else sorted), learned
    in ``fit``; a missing or unseen category is a missing value.
    """
    check_unique_columns(X)
    if isinstance(X, pd.DataFrame):
        if reset:
            estimator._frame_categories = learn_frame_categories(X)[0]
        X = frame_as_numbers(X, getattr(estimator, "_frame_categories", {}))
    elif reset:
        estimator._frame_categories = {}
    return validate_numbers(
        estimator,
        X,
        what="numbers or categories (read as their codes)",
        reset=reset,
        dtype=np.float32,
        ensure_all_finite="allow-nan",
    )


def _xgboost_metric(objective: _Objective):
    """The evaluation metric on predictions of shape (n, K), as XGBoost reports it."""

    def metric(y, margin, weight):
        return objective.evaluate(y, margin[:, 0] if margin.shape[1] == 1 else margin, weight)

    return metric


class _XGBoostRounds(BoostingLoop):
    """XGBoost's hooks of the boosting loop: its gradients, row sample and float32 margins."""

    def __init__(
        self,
        grower,
        *,
        model,
        objective,
        y,
        weight,
        margin,
        proposals,
        timings,
        **loop,
    ):
        super().__init__(grower, **loop)
        self.model, self.objective = model, objective
        self.y, self.weight, self.margin = y, weight, margin
        self.proposals, self.timings = proposals, timings

    def statistics(self, m):
        clock = time.perf_counter()
        g, h = self.model._gradients(self.objective, self.y, self.margin, self.weight, self.rng)
        self.timings["gradients"] += time.perf_counter() - clock
        return g, h

    def grow_stage(self, m, statistics, features):
        """One tree per output, added to the float32 margins (XGBoost's prediction cache)."""
        g, h = statistics
        grower, margin, timings, proposals = self.grower, self.margin, self.timings, self.proposals
        K = margin.shape[1]
        stage = []
        for k in range(K):
            if proposals is not None:
                clock = time.perf_counter()
                grower.data = proposals(h[:, k], m)
                timings["binning"] += time.perf_counter() - clock
            stage.append(grower.grow(g[:, k], h[:, k], features))
        clock = time.perf_counter()
        for k, grown in enumerate(stage):
            margin[:, k] += grown.tree.value[grown.leaf_of_row, 0].astype(np.float32)
        timings["gradients"] += time.perf_counter() - clock
        return stage


class _BaseXGBoost(BaseEstimator):
    """The boosting loop shared by the regressor and the classifier."""

    def _validate_params(self):
        check_positive_int(self.n_estimators, "n_estimators")
        check_fraction(self.learning_rate, "learning_rate", high=np.inf)
        check_positive_int(self.max_depth, "max_depth", low=0)
        if self.max_depth == 0 and self.tree_method == "exact":
            raise ValueError(
                "max_depth=0 (no limit) needs tree_method='hist' or 'approx'; "
                "tree_method='exact' needs max_depth >= 1, as in XGBoost"
            )
        for name in ("reg_lambda", "reg_alpha", "gamma", "min_child_weight"):
            check_fraction(getattr(self, name), name, low_open=False, high=np.inf)
        if self.max_delta_step is not None:
            check_fraction(self.max_delta_step, "max_delta_step", low_open=False, high=np.inf)
        for name in ("subsample", "colsample_bytree", "colsample_bylevel", "colsample_bynode"):
            check_fraction(getattr(self, name), name)
        if self.tree_method not in ("exact", "approx", "hist"):
            raise ValueError(
                f"tree_method must be 'exact', 'approx' or 'hist', got {self.tree_method!r}"
            )
        if self.sketch not in ("global", "local"):
            raise ValueError(f"sketch must be 'global' or 'local', got {self.sketch!r}")
        if self.sketch == "local" and self.tree_method != "approx":
            raise ValueError("sketch='local' needs tree_method='approx'")
        check_positive_int(self.max_bin, "max_bin", low=2)
        check_positive_int(self.early_stopping_rounds, "early_stopping_rounds", allow_none=True)
        check_positive_int(self.verbose, "verbose", low=0)
        threads_for_jobs(self.n_jobs, none=1)  # checks it: None or a non-zero int

    def _split_params(self, objective: _Objective) -> SplitParams:
        delta = self.max_delta_step
        if delta is None:
            delta = 0.7 if objective.name == "count:poisson" else 0.0
        return SplitParams(
            reg_lambda=float(self.reg_lambda),
            reg_alpha=float(self.reg_alpha),
            gamma=float(self.gamma),
            min_child_weight=float(self.min_child_weight),
            max_delta_step=float(delta),
        )

    def _boost(self, X, y, weight, objective: _Objective, eval_set, init_margin):
        """Grow the trees; returns the fitted state."""
        n, n_features = X.shape
        self._unit_weights = bool(np.all(weight == 1.0))
        rng = library_rng(self.random_state)
        params = self._split_params(objective)
        n_threads = threads_for_jobs(self.n_jobs, none=available_cores())
        clock = time.perf_counter()
        data = None
        if self.tree_method == "hist":
            data = xgboost_binned(X, self.max_bin, weight, n_threads)
        elif self.sketch == "local":
            # Local proposals choose among a fine grid of LOCAL_GRID times more bins.
            data = BinnedData.fit(
                X, min(LOCAL_GRID * self.max_bin, 65535), weights=weight, n_threads=n_threads
            )
        timings = {"binning": time.perf_counter() - clock, "gradients": 0.0}
        # Margins are float32 and grow by float32 additions, as XGBoost's prediction cache.
        start_margin = np.asarray(init_margin, dtype=np.float32)
        margin = np.tile(start_margin, (n, 1))
        evals = [
            (
                E,
                np.asarray(ey),
                np.ones(len(ey)) if ew is None else ew,
                np.tile(init_margin, (len(ey), 1)).astype(np.float64),
            )
            for E, ey, ew in eval_set
        ]
        if self.tree_method == "exact":
            grower = ExactGrower(
                SortedColumns.fit(X, n_threads),
                X,
                params,
                max_depth=self.max_depth,
                learning_rate=float(self.learning_rate),
                rng=rng,
                colsample_bylevel=float(self.colsample_bylevel),
                colsample_bynode=float(self.colsample_bynode),
                timings=timings,
                n_threads=n_threads,
            )
            timings["binning"] = time.perf_counter() - clock  # the sort of every feature
        else:
            grower = DepthwiseGrower(
                data,
                params,
                max_depth=self.max_depth if self.max_depth > 0 else UNLIMITED_DEPTH,
                learning_rate=float(self.learning_rate),
                colsample_bylevel=float(self.colsample_bylevel),
                colsample_bynode=float(self.colsample_bynode),
                rng=rng,
                n_threads=n_threads,
                local_proposals=self.max_bin if self.sketch == "local" else None,
                timings=timings,
            )
        proposals = None
        if self.tree_method == "approx" and self.sketch == "global":
            proposals = self._approx_proposals(X, weight, objective, n_threads)
        rounds = _XGBoostRounds(
            grower,
            rng=rng,
            n_features=n_features,
            column_share=float(self.colsample_bytree),
            evals=EvalSets(evals, _xgboost_metric(objective)),
            model=self,
            objective=objective,
            y=y,
            weight=weight,
            margin=margin,
            proposals=proposals,
            timings=timings,
        )
        boosted = rounds.run(
            self.n_estimators,
            verbose=self.verbose,
            patience=self.early_stopping_rounds,
            name=type(self).__name__,
            prefix="eval",
        )
        self._timings = timings
        return boosted.trees, boosted.history, boosted.best_round

    def _approx_proposals(self, X, weight, objective: _Objective, n_threads: int):
        """``approx``'s bins of a tree from its hessians, as XGBoost proposes them.

        XGBoost re-sketches before every tree with weights ``h_i w_i`` (the
        hessian already carries the sample weight ``w_i``; ``MergeWeights``
        multiplies it in again) by its sketch of sorted columns, except for
        objectives of constant hessian (squared error): those are sketched
        once, in the first round, by ``hist``'s sketch with those weights
        (``BatchParam.regen`` is false for them).
        """
        w = None if self._unit_weights else np.asarray(weight).astype(np.float32)
        once = objective.name == "reg:squarederror"
        sketch = xgboost_cuts if once else xgboost_approx_cuts
        cache = {}

        def proposals(h, round_):
            if once and "bins" in cache:
                return cache["bins"]
            sketch_weight = h.astype(np.float32) if w is None else h.astype(np.float32) * w
            cache["bins"] = xgboost_binned(X, self.max_bin, sketch_weight, n_threads, sketch)
            return cache["bins"]

        return proposals

    def _gradients(self, objective: _Objective, y, margin, weight, rng):
        """Gradients and hessians of every row and output at the margins (:eq:`eq-xgb-taylor`).

        As XGBoost: float32 values, multiplied by the sample weights; rows
        left out of this round's subsample get ``g = h = 0``.
        """
        n = margin.shape[0]
        g, h = newton_statistics(objective, y, margin, None if self._unit_weights else weight)
        if self.subsample < 1.0:
            out = rng.random(n) >= self.subsample
            g[out] = 0.0
            h[out] = 0.0
        return g, h

    def _fit(self, X, y, sample_weight, eval_set, objective: _Objective, base_margin):
        X32 = _as_float32(self, X, reset=True)
        if self.tree_method == "exact":
            check_neighbour_sums(
                X32,
                getattr(self, "feature_names_in_", None),
                library="XGBoost's exact method",
                reason="xgboost then writes the test x < -inf or x < inf (a constant model)",
            )
        weight = (
            np.ones(X32.shape[0])
            if sample_weight is None
            else np.asarray(sample_weight, dtype=np.float64)
        )
        # A row of weight 0 changes no sum; dropping it keeps it out of the
        # cuts too, so that weight 0 is the same as leaving the row out.
        keep = weight > 0
        if not keep.any():
            raise ValueError(
                "sample_weight is 0 for every row; at least one positive weight is needed"
            )
        if not keep.all():
            X32, y, weight = X32[keep], y[keep], weight[keep]
        if self.early_stopping_rounds is not None and not eval_set:
            raise ValueError("early_stopping_rounds needs an eval_set to watch")
        evals = []
        for item in eval_set or []:
            if len(item) not in (2, 3):
                raise ValueError("eval_set entries must be (X, y) or (X, y, sample_weight)")
            E = _as_float32(self, item[0], reset=False).astype(np.float64)
            ey = self._encode_eval_target(item[1])
            ew = None if len(item) == 2 else np.asarray(item[2], dtype=np.float64)
            evals.append((E, ey, ew))
        trees, history, best_round = self._boost(X32, y, weight, objective, evals, base_margin)
        return self._set_fitted(trees, history, best_round, objective, base_margin, bool(evals))

    def _set_fitted(self, trees, history, best_round, objective, base_margin, watched):
        """Store the grown trees as the fitted model (also for models grown elsewhere)."""
        self._objective = objective
        self._trees = trees
        self.base_margin_ = base_margin
        self.evals_result_ = {
            f"validation_{i}": {objective.metric: h} for i, h in enumerate(history)
        }
        self.n_estimators_ = len(trees)
        if watched and self.early_stopping_rounds is not None:
            self.best_iteration = best_round
            self.best_score = history[-1][best_round]
        elif hasattr(self, "best_iteration"):
            del self.best_iteration, self.best_score
        K = objective.n_outputs
        flat = [tree for stage in trees for tree in stage]
        outputs = np.tile(np.arange(K), len(trees))
        self._stack = StackedTrees(flat, [t.value for t in flat], outputs, K)
        check_score_bound(self._stack.score_bound, self.base_margin_, self.learning_rate)
        return self

    def _encode_eval_target(self, y):
        return np.asarray(y, dtype=np.float64)

    def _used_rounds(self, iteration_range):
        if iteration_range is not None:
            first, stop = iteration_range
            return int(first), int(stop)
        if getattr(self, "best_iteration", None) is not None:
            return 0, self.best_iteration + 1
        return 0, self.n_estimators_

    def _margin(self, X, iteration_range=None) -> np.ndarray:
        check_is_fitted(self, "_stack")
        values = _as_float32(self, X, reset=False).astype(np.float64)
        first, stop = self._used_rounds(iteration_range)
        K = self._objective.n_outputs
        if (first, stop) == (0, self.n_estimators_):
            raw = self._stack.predict(values)
        else:
            flat = [tree for stage in self._trees[first:stop] for tree in stage]
            outputs = np.tile(np.arange(K), stop - first)
            raw = StackedTrees(flat, [t.value for t in flat], outputs, K).predict(values)
        return raw + self.base_margin_

    def _staged_margin(self, X):
        check_is_fitted(self, "_stack")
        values = _as_float32(self, X, reset=False).astype(np.float64)
        raw = np.tile(self.base_margin_, (values.shape[0], 1)).astype(np.float64)
        for stage in self._trees:
            for k, tree in enumerate(stage):
                raw[:, k] += tree.value[tree.apply(values), 0]
            yield raw.copy()

    @property
    def trees_(self) -> list:
        """The fitted trees: one list per round, one :class:`~mltrees.tree._tree.Tree` per output.

        Leaves hold ``learning_rate * w*``; a tree's test ``x <= threshold`` on
        float32 data is XGBoost's ``x < cut`` (use :meth:`apply` to route rows).
        """
        check_is_fitted(self, "_stack")
        return [list(stage) for stage in self._trees]

    def apply(self, X: MatrixLike) -> np.ndarray:
        """The leaf (node id) of every row in every tree, shape (n_samples, n_trees).

        Rows are cast to float32 first, as for prediction, so they take the
        model's branches (a float64 value just below a float32 cut would not).
        Trees are in boosting order, the K trees of a round side by side.
        """
        check_is_fitted(self, "_stack")
        values = _as_float32(self, X, reset=False).astype(np.float64)
        trees = [tree for stage in self._trees for tree in stage]
        return np.column_stack([tree.apply(values) for tree in trees])

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total gain per feature over all trees, normalised to sum to 1 (XGBoost's total_gain)."""
        check_is_fitted(self, "_stack")
        total = np.zeros(self.n_features_in_)
        for stage in self._trees:
            for tree in stage:
                if tree.node_count > 1:
                    total += (
                        raw_importances(tree, self.n_features_in_) * tree.weighted_n_node_samples[0]
                    )
        s = total.sum()
        return total / s if s > 0 else total

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _tree_model_view(self):
        """The model as a :class:`~mltrees.tree.view.TreeModelView` of its margin."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        check_is_fitted(self, "_stack")
        first, stop = self._used_rounds(None)
        K = self._objective.n_outputs
        trees, tables, columns = [], [], []
        for stage in self._trees[first:stop]:
            for k, tree in enumerate(stage):
                trees.append(tree)
                tables.append(tree.value[:, :1])
                columns.append(np.array([k]))
        classifier = isinstance(self, ClassifierMixin)
        return TreeModelView(
            trees=trees,
            tables=tables,
            columns=columns,
            n_outputs=K,
            base=np.asarray(self.base_margin_, dtype=np.float64).reshape(K),
            encode=lambda X: _as_float32(self, X, reset=False).astype(np.float64),
            output=self._margin,
            feature_names=feature_names_of(self),
            output_name="margin (log-odds / raw score)" if classifier else "margin",
            squeeze=K == 1,
        )

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_stack", "_timings")

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_xgboost

        _rebuild_xgboost(self)

    def _drawable_tree(self, tree_index):
        """Tree ``tree_index`` (round, then output); its leaves hold ``eta * w*``."""
        from mltrees.tree._drawable import boosted_drawable

        check_is_fitted(self, "_stack")
        trees = [tree for stage in self._trees for tree in stage]
        return boosted_drawable(self, trees, [t.value[:, :1] for t in trees], tree_index)

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model: float32 input, ``x < t``, its link."""
        from sklearn.base import is_classifier

        from mltrees.io.onnx_export import OnnxPlan, boosting_link
        from mltrees.tree.view import view_of

        view = view_of(self)
        classifier = is_classifier(self)
        if classifier:
            link = boosting_link(view.n_outputs)
        else:
            link = "exp" if self._objective.name == "count:poisson" else "identity"
        return OnnxPlan(
            view=view,
            dtype=np.float32,
            comparison="<",
            encode=view.encode,
            link=link,
            reject_inf=np.ones(self.n_features_in_, dtype=bool),
            classes=np.asarray(self.classes_) if classifier else None,
        )


@_xgb_doc
class XGBoostRegressor(RegressorMixin, _BaseXGBoost):
    """XGBoost regression (Chen & Guestrin 2016), chapter 13.

    Parameters
    ----------
    objective : {"reg:squarederror", "count:poisson"}, default "reg:squarederror"
        Squared error (g = F - y, h = 1) or Poisson regression on the log
        mean (g = e^F - y, h = e^(F + max_delta_step)).
    {params}

    Attributes
    ----------
    n_estimators_ : int
        Rounds grown (fewer than ``n_estimators`` after early stopping).
    base_margin_ : ndarray of shape (1,)
        The starting margin (``base_score`` on the margin scale).
    best_iteration, best_score
        With early stopping: the best round (0-based) and its metric.
    evals_result_ : dict
        The metric of every round on every ``eval_set``.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import XGBoostRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = XGBoostRegressor(n_estimators=30, max_depth=3, learning_rate=0.1).fit(X, y)
    >>> round(model.score(X, y), 3)
    0.656
    """

    _objectives = ("reg:squarederror", "count:poisson")

    def __init__(
        self,
        *,
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
        self.objective = objective
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_delta_step = max_delta_step
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.colsample_bylevel = colsample_bylevel
        self.colsample_bynode = colsample_bynode
        self.tree_method = tree_method
        self.sketch = sketch
        self.max_bin = max_bin
        self.base_score = base_score
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        eval_set: list | None = None,
    ) -> Self:
        """Boost ``n_estimators`` trees on ``(X, y)``; ``eval_set`` is a list of ``(X, y)``."""
        self._validate_params()
        if self.objective not in self._objectives:
            raise ValueError(f"objective must be one of {self._objectives}, got {self.objective!r}")
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight)
        y = real_targets(y)
        weight = sample_weight  # validate_fit_input gives ones when none was passed
        if self.objective == "count:poisson":
            if (y < 0).any():
                raise ValueError("y must be >= 0 for objective='count:poisson'")
            objective = _Objective(
                "count:poisson",
                PoissonLoss(0.7 if self.max_delta_step is None else float(self.max_delta_step)),
                metric="poisson-nloglik",
            )
        else:
            objective = _Objective("reg:squarederror", SquaredError(), metric="rmse")
        base = xgboost_mean(y, weight) if self.base_score is None else self.base_score
        if objective.name == "count:poisson" and base <= 0:
            raise ValueError(f"base_score must be > 0 for Poisson regression, got {base!r}")
        base_margin = np.atleast_1d(objective.margin_of(base)).astype(np.float64)
        return self._fit(X, y, sample_weight, eval_set, objective, base_margin)

    def predict(
        self,
        X: MatrixLike,
        output_margin: bool = False,
        iteration_range: tuple[int, int] | None = None,
    ) -> np.ndarray:
        """Predictions (the mean for Poisson), or raw margins with ``output_margin=True``."""
        check_is_fitted(self, "_stack")
        margin = self._margin(X, iteration_range)[:, 0]
        if output_margin or self._objective.name != "count:poisson":
            return margin
        return np.exp(margin)

    def staged_predict(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Predictions after each round."""
        for margin in self._staged_margin(X):
            yield np.exp(margin[:, 0]) if self._objective.name == "count:poisson" else margin[:, 0]


@_xgb_doc
class XGBoostClassifier(ClassifierMixin, _BaseXGBoost):
    """XGBoost classification (Chen & Guestrin 2016), chapter 13.

    Two classes: the logistic loss on the log-odds (``binary:logistic``,
    g = p - y, h = p(1 - p)). More classes: softmax over one margin per
    class (``multi:softprob``), one tree per class and round, with XGBoost's
    hessian ``2 p (1 - p)`` and a starting margin per class.

    Parameters
    ----------
    {params}

    Attributes
    ----------
    classes_ : ndarray
    n_estimators_ : int
    base_margin_ : ndarray of shape (1,) or (K,)
    best_iteration, best_score, evals_result_
        As for :class:`XGBoostRegressor`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import XGBoostClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = XGBoostClassifier(n_estimators=30, max_depth=3).fit(X, y)
    >>> model.predict_proba(X[:2]).round(3).tolist()
    [[0.976, 0.024], [0.994, 0.006]]
    """

    def __init__(
        self,
        *,
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
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_delta_step = max_delta_step
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.colsample_bylevel = colsample_bylevel
        self.colsample_bynode = colsample_bynode
        self.tree_method = tree_method
        self.sketch = sketch
        self.max_bin = max_bin
        self.base_score = base_score
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _encode_eval_target(self, y):
        y = np.asarray(y)
        codes = np.searchsorted(self.classes_, y)
        codes = np.minimum(codes, len(self.classes_) - 1)
        if not np.array_equal(self.classes_[codes], y):
            raise ValueError("eval_set has labels that are not among the training classes")
        return codes

    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        eval_set: list | None = None,
    ) -> Self:
        """Boost ``n_estimators`` rounds on ``(X, y)``; ``eval_set`` is a list of ``(X, y)``."""
        self._validate_params()
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight)
        self.classes_, codes = class_codes(np.asarray(y))
        K = len(self.classes_)
        weight = sample_weight  # validate_fit_input gives ones when none was passed
        require_two_classes(K, type(self).__name__, np.unique(codes[weight > 0]).size)
        if K == 2:
            objective = _Objective("binary:logistic", BinomialLogLoss(), metric="logloss")
            p = xgboost_mean(codes, weight) if self.base_score is None else self.base_score
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
                base_margin = softmax_base_margin(*class_weight_sums(codes, weight, K))
            else:
                base_margin = np.full(K, np.float32(self.base_score))
        return self._fit(
            X,
            codes.astype(np.float64),
            sample_weight,
            eval_set,
            objective,
            np.asarray(base_margin, dtype=np.float64),
        )

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Raw margins: log-odds of class 1 (shape (n,)) or one per class (n, K)."""
        margin = self._margin(X)
        return margin[:, 0] if margin.shape[1] == 1 else margin

    def predict_proba(
        self, X: MatrixLike, iteration_range: tuple[int, int] | None = None
    ) -> np.ndarray:
        """Class probabilities, shape (n, K)."""
        check_is_fitted(self, "_stack")
        return self._objective.loss.predict_proba(_squeeze(self._margin(X, iteration_range)))

    def predict(
        self,
        X: MatrixLike,
        output_margin: bool = False,
        iteration_range: tuple[int, int] | None = None,
    ) -> np.ndarray:
        """Classes, or raw margins with ``output_margin=True``."""
        check_is_fitted(self, "_stack")
        margin = _squeeze(self._margin(X, iteration_range))
        if output_margin:
            return margin
        proba = self._objective.loss.predict_proba(margin)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Class probabilities after each round."""
        for margin in self._staged_margin(X):
            yield self._objective.loss.predict_proba(_squeeze(margin))

    def staged_predict(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Classes after each round."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]


def _squeeze(margin: np.ndarray) -> np.ndarray:
    return margin[:, 0] if margin.shape[1] == 1 else margin
