"""LightGBM: leaf-wise Newton boosting on histograms (Ke et al. 2017), chapter 14.

Each round computes the gradients ``g_i`` and hessians ``h_i`` of the loss
at the current scores (:eq:`eq-xgb-taylor`), grows a tree on them leaf by
leaf (:class:`~mltrees.hist.lightgbm.leafwise.LeafwiseGrower`), and adds
``learning_rate * w*`` of each row's leaf to its score.

The rules follow LightGBM 4.7 where they decide the model: bins
(:mod:`~mltrees.hist.lightgbm.binning`), feature bundles, split scans and
estimated counts (:mod:`~mltrees.hist.lightgbm.splitting`), float32 labels,
weights and gradients, the starting score (``boost_from_average``), the
multiclass hessian ``K/(K-1) p(1-p)``, and the end of training when a round
can split no leaf. So the raw scores equal the ``lightgbm`` 4.7 package's
to about 1e-15 for every parameter documented below, drawn together
(``tests/differential/test_lightgbm.py``), on tables of at most
``subsample_for_bin`` rows. Outside that scope: bagging,
``colsample_bytree`` < 1 and GOSS from the round it starts sampling (each
library draws with its own generator), ``max_conflict_rate`` (the paper's
bundling, which LightGBM 4 no longer has), ``cat_smooth=0`` (LightGBM sorts
NaN keys), and larger tables (the bin sample is drawn by numpy). Parameter
names are those of LightGBM's scikit-learn API.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Self

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from mltrees._frames import frame_as_numbers, learn_frame_categories
from mltrees._input_checks import check_unique_columns, validate_numbers
from mltrees._threads import threads_for_jobs
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import real_targets, require_two_classes
from mltrees._value_range import check_neighbour_sums
from mltrees.ensemble._common import (
    StackedTrees,
    check_fraction,
    check_positive_int,
    check_score_bound,
    class_codes,
    library_rng,
)
from mltrees.hist.boosting import BoostingLoop, EvalSets
from mltrees.hist.lightgbm.binning import (
    fit_lightgbm_bins,
    lightgbm_feature_bundles,
    used_features,
)
from mltrees.hist.lightgbm.categorical import CategoricalParams, category_bins, encode_categories
from mltrees.hist.lightgbm.goss import goss_active, goss_sample
from mltrees.hist.lightgbm.leafwise import LeafwiseGrower
from mltrees.hist.lightgbm.splitting import LeafwiseParams
from mltrees.tree._data import validate_fit_input
from mltrees.tree._tree import available_cores

__all__ = ["LightGBMClassifier", "LightGBMRegressor"]

_EPSILON = float(np.float32(1e-15))


_LGB_PARAMS = """
    num_leaves : int, default 31
        At most this many leaves per tree (leaf-wise growth).
    max_depth : int, default -1
        Leaves at this depth are not split; -1: no limit.
    learning_rate : float, default 0.1
        Shrinkage η multiplied into every leaf value.
    n_estimators : int, default 100
        Boosting rounds.
    min_child_samples : int, default 20
        Fewest rows per leaf (LightGBM's ``min_data_in_leaf``), checked on
        counts estimated from the hessians, as LightGBM does; 0 is read as 1
        when ``min_child_weight`` is 0 too, as LightGBM does.
    min_child_weight : float, default 1e-3
        Smallest hessian sum 𝓗 per leaf (``min_sum_hessian_in_leaf``).
    min_split_gain : float, default 0.0
        A split must gain more than this (``min_gain_to_split``).
    reg_lambda : float, default 0.0
        λ, the L2 penalty on leaf values.
    reg_alpha : float, default 0.0
        λ₁, the L1 penalty (soft-thresholding of G).
    max_delta_step : float, default 0.0
        If positive, leaf values (before shrinkage) are clipped to ± this.
    max_bin : int, default 255
        At most this many bins per feature, a missing-value bin included.
    min_data_in_bin : int, default 3
        Fewest rows per bin when neighbouring values are merged.
    subsample_for_bin : int, default 200000
        Rows used to find the bins.
    subsample : float in (0, 1], default 1.0
        Bagging: the share of rows each tree sees (``bagging_fraction``),
        drawn anew every ``subsample_freq`` rounds.
    subsample_freq : int, default 0
        Bagging period; 0 disables bagging.
    colsample_bytree : float in (0, 1], default 1.0
        Share of the features each tree may use (``feature_fraction``).
    data_sample_strategy : {"bagging", "goss"}, default "bagging"
        ``"goss"``: gradient-based one-side sampling (:eq:`eq-goss-estimate`):
        each tree sees the ``top_rate`` share of rows of largest ``|g h|`` and
        an ``other_rate`` share of the rest, drawn at random and weighted by
        ``(n - top) / other``; not during the first ``1 / learning_rate`` rounds.
    top_rate, other_rate : float, default 0.2, 0.1
        GOSS's a and b.
    categorical_feature : "auto", list of int or str, default "auto"
        Categorical features: their values are non-negative integer category
        codes (NaN or negative: missing). ``"auto"``: the unordered pandas
        ``category`` columns of ``X`` (their codes; an ordered category column
        is read as the number of its code, as LightGBM does). Splits send a set of categories left
        and everything else right, unseen categories and missing values
        included, as LightGBM does (:mod:`~mltrees.hist.lightgbm.categorical`).
    cat_smooth, cat_l2 : float, default 10.0
        The smoothing of the sort key ``G / (𝓗 + cat_smooth)`` (categories
        with fewer estimated rows are not scanned) and the extra λ of
        many-vs-many categorical splits.
    max_cat_threshold : int, default 32
        At most this many categories on the left of a split.
    max_cat_to_onehot : int, default 4
        Features with at most this many bins (missing bin included) split one
        category against the rest.
    min_data_per_group : int, default 100
        Rows that must join the left side between two candidate cuts.
    enable_bundle : bool, default True
        Exclusive feature bundling (:eq:`eq-efb-offset`): histograms are built
        on bundles of features that are rarely non-default together.
    max_conflict_rate : float in [0, 1) or None, default None
        None: LightGBM 4's bundles, group for group
        (:func:`~mltrees.hist.lightgbm.bundling.lightgbm_bundles`; a bundle may share
        one conflicting row per 10,000 rows, so it is lossless below 10,000
        rows). A number: the paper's greedy bundling (Ke et al. 2017) with this
        share of conflicting rows per bundle (0: lossless), which LightGBM 4
        no longer offers.
    early_stopping_rounds : int or None, default None
        Stop when the metric on the last ``eval_set`` has not improved for
        this many rounds; predictions then use the best round.
    random_state : int, Generator or None, default None
        Seeds bagging and feature sampling (and the bin sample, drawn when
        there are more than ``subsample_for_bin`` rows). None: a fixed seed,
        as LightGBM's default seeds, so that two fits on the same data give
        the same model.
    n_jobs : int or None, default None
        Threads for the histograms (None and -1: all cores; -2: all but one,
        as in scikit-learn and joblib).
    verbose : int, default 0
        If > 0, report the evaluation metrics every ``verbose`` rounds (a line on
        stdout, or a bar in a notebook). Silent by default.
"""


def _lgb_doc(cls):
    cls.__doc__ = cls.__doc__.replace("    {params}\n", _LGB_PARAMS.lstrip("\n"))
    return cls


def _as_float64(estimator, X, *, reset: bool) -> np.ndarray:
    """Validate ``X`` as float64 numbers, NaN allowed (missing), inf rejected.

    The categorical columns of a DataFrame (the package's one rule,
    :mod:`mltrees._frames`: ``category``, ``str``/``string``, ``bool``,
    ``object`` of strings) become the codes of their categories, learned in
    ``fit`` (NaN when missing or unseen).
    """
    check_unique_columns(X)
    if isinstance(X, pd.DataFrame):
        if reset:
            categories, ordered = learn_frame_categories(X)
            labels = list(X.columns)
            # As pandas dtypes (what model files store for LightGBM).
            estimator._pandas_categories = {
                c: pd.CategoricalDtype(values, ordered=c in ordered)
                for c, values in categories.items()
            }
            # categorical_feature="auto": the unordered ones, by position.
            estimator._auto_categorical = [labels.index(c) for c in categories if c not in ordered]
        X = frame_as_numbers(X, getattr(estimator, "_pandas_categories", {}))
    elif reset:
        estimator._pandas_categories, estimator._auto_categorical = {}, []
    return validate_numbers(
        estimator,
        X,
        what="numbers or categories",
        reset=reset,
        dtype=np.float64,
        ensure_all_finite="allow-nan",
    )


class _Objective:
    """A loss as LightGBM computes it: its gradients, starting score and metric, bit for bit.

    Labels and weights are float32 in LightGBM (``label_t``); gradients and
    hessians are float32 (``score_t``) computed from the float64 scores by
    LightGBM's own formulas (its logistic response ``-y / (1 + exp(y F))``
    with ``y = ±1``, not ``p - y``, which rounds differently).
    """

    def __init__(self, name: str, n_classes: int = 1):
        self.name = name
        self.n_outputs = n_classes if name == "multiclass" else 1
        self.metric = {"regression": "l2", "binary": "binary_logloss"}.get(name, "multi_logloss")

    def gradients(self, y, score, weight):
        """Float32 ``g``, ``h`` of shape (n, n_outputs), times the sample weights.

        ``y`` and ``weight`` are the float32 labels and weights (as float64).
        """
        f32 = np.float32
        if self.name == "regression":
            g = (score[:, 0] - y).astype(f32)
            if weight is None:
                h = np.ones_like(g)
            else:  # float32 times float32, in float32
                g, h = g * weight.astype(f32), weight.astype(f32)
            return g[:, None].astype(np.float64), h[:, None].astype(np.float64)
        if self.name == "binary":
            sign = np.where(y > 0, 1.0, -1.0)
            with np.errstate(over="ignore"):  # exp overflows to inf: response 0, as LightGBM's
                response = -sign / (1.0 + np.exp(sign * score[:, 0]))
            magnitude = np.abs(response)
            g, h = response, magnitude * (1.0 - magnitude)
            if weight is not None:
                g, h = g * weight, h * weight
            return g.astype(f32)[:, None].astype(np.float64), h.astype(f32)[:, None].astype(
                np.float64
            )
        K = self.n_outputs
        p = _softmax(score)
        onehot = np.zeros_like(p)
        onehot[np.arange(len(y)), y.astype(np.intp)] = 1.0
        g, h = p - onehot, K / (K - 1.0) * p * (1.0 - p)
        if weight is not None:
            g, h = g * weight[:, None], h * weight[:, None]
        return g.astype(f32).astype(np.float64), h.astype(f32).astype(np.float64)

    def trained(self, y, weight) -> np.ndarray:
        """Which outputs get trees: LightGBM skips a class of share ≤ 1e-15 or ≥ 1 - 1e-15."""
        if self.name != "multiclass":
            return np.ones(1, dtype=bool)
        shares = self._class_shares(y, weight)
        return (shares > _EPSILON) & (shares < 1.0 - _EPSILON)

    def _class_shares(self, y, weight):
        codes = y.astype(np.intp)
        if weight is None:
            return np.bincount(codes, minlength=self.n_outputs) / float(len(y))
        # Summed row by row, in row order, as LightGBM.
        sums = np.zeros(self.n_outputs)
        for k in range(self.n_outputs):
            at = codes == k
            sums[k] = _sequential_sum(np.where(at, weight, 0.0))
        return sums / _sequential_sum(weight)

    def init_score(self, y, weight) -> np.ndarray:
        """LightGBM's ``boost_from_average`` starting score (0 if it is within 1e-15 of 0).

        The sums run row by row in row order, as LightGBM's deterministic mode.
        """
        if self.name == "regression":
            if weight is None:
                score = _sequential_sum(y) / float(len(y))
            else:
                score = _sequential_sum(y * weight) / _sequential_sum(weight)
            scores = np.array([score])
        elif self.name == "binary":
            positive = (y > 0).astype(np.float64)
            if weight is None:
                p = _sequential_sum(positive) / float(len(y))
            else:
                p = _sequential_sum(positive * weight) / _sequential_sum(weight)
            p = min(max(p, _EPSILON), 1.0 - _EPSILON)
            scores = np.array([np.log(p / (1.0 - p))])
        else:
            scores = np.log(np.maximum(self._class_shares(y, weight), _EPSILON))
        return np.where(np.abs(scores) > _EPSILON, scores, 0.0)

    def evaluate(self, y, score, weight) -> float:
        """LightGBM's default metric (lower is better), on float32 labels."""
        if self.name == "regression":
            return float(np.average((score[:, 0] - y) ** 2, weights=weight))
        if self.name == "binary":
            p = 1.0 / (1.0 + np.exp(-score[:, 0]))
            chosen = np.where(y > 0, p, 1.0 - p)
            loss = -np.log(np.where(chosen > _EPSILON, chosen, _EPSILON))
            return float(np.average(loss, weights=weight))
        p = _softmax(score)[np.arange(len(y)), y.astype(np.intp)]
        loss = -np.log(np.where(p > _EPSILON, p, _EPSILON))
        return float(np.average(loss, weights=weight))


def _sequential_sum(values: np.ndarray) -> float:
    """A sum taken in order, one addition after the other (numpy's sum is pairwise)."""
    return float(np.cumsum(values, dtype=np.float64)[-1]) if len(values) else 0.0


def _float32(values):
    """Values as LightGBM stores labels and weights: rounded to float32, held as float64."""
    return None if values is None else np.asarray(values, dtype=np.float32).astype(np.float64)


def _softmax(score: np.ndarray) -> np.ndarray:
    """LightGBM's ``Common::Softmax``: the exponentials summed in class order."""
    z = np.exp(score - score.max(axis=1, keepdims=True))
    total = z[:, 0].copy()
    for k in range(1, z.shape[1]):  # over classes, in order (a pairwise sum rounds differently)
        total += z[:, k]
    return z / total[:, None]


def _half_up(x: float) -> int:
    """LightGBM's count of sampled columns: ``static_cast<int>(x + 0.5)``."""
    return int(x + 0.5)


class _LightGBMRounds(BoostingLoop):
    """LightGBM's hooks of the boosting loop: bagging, GOSS, untrained classes, float64 scores."""

    def __init__(self, grower, *, model, objective, y, weight, score, trained, timings, **loop):
        super().__init__(grower, **loop)
        self.model, self.objective = model, objective
        self.y, self.weight, self.score = y, weight, score
        self.trained, self.timings = trained, timings
        self.bag = None
        self.nothing_split = False

    def statistics(self, m):
        """Gradients at the scores, and the bag of rows (drawn every ``subsample_freq`` rounds)."""
        model = self.model
        clock = time.perf_counter()
        g, h = self.objective.gradients(self.y, self.score, self.weight)
        self.timings["gradients"] += time.perf_counter() - clock
        n = len(g)
        bagging = model.subsample < 1.0 and model.subsample_freq > 0
        if bagging and m % model.subsample_freq == 0:
            size = max(1, int(model.subsample * n))
            self.bag = np.sort(self.rng.choice(n, size=size, replace=False))
        return g, h

    def grow_stage(self, m, statistics, features):
        """One tree per class (one leaf for a class LightGBM does not train), added to the scores.

        GOSS draws its rows after the columns. Returns None, ending training,
        when no leaf of any class can be split after the first round.
        """
        model, grower, score = self.model, self.grower, self.score
        g, h = statistics
        n = len(g)
        rows = self.bag
        if model.data_sample_strategy == "goss" and goss_active(m, model.learning_rate):
            rows, g_rows, h_rows = goss_sample(
                g, h, model.top_rate, model.other_rate, self.rng, float32=True
            )
            g, h = np.zeros_like(g), np.zeros_like(h)
            g[rows], h[rows] = g_rows, h_rows
        # The classes' trees grow together (LeafwiseGrower.grow_many); a class
        # LightGBM does not train gets one leaf (no feature to split).
        stage = grower.grow_many(
            [
                (g[:, k], h[:, k], features, rows)
                if self.trained[k]
                else (np.zeros(n), np.zeros(n), np.zeros(0, int), rows)
                for k in range(score.shape[1])
            ]
        )
        split = [grown.tree.node_count > 1 for grown in stage]
        if not any(split) and m > 0:
            return None  # LightGBM: no leaf of any class can be split, training ends
        self.nothing_split = not any(split)
        for grown, grew in zip(stage, split, strict=True):
            if not grew:  # LightGBM's tree of one leaf adds nothing to the score
                grown.tree.value[:] = 0.0
                grown.weight[:] = 0.0
        for k, grown in enumerate(stage):
            score[:, k] += grown.tree.value[grown.leaf_of_row, 0]
        return stage

    def stop_after(self, stage) -> bool:
        return self.nothing_split  # the first round could split nothing: its trees are kept


class _BaseLightGBM(BaseEstimator):
    """The boosting loop shared by the regressor and the classifier."""

    def __init__(
        self,
        *,
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
        enable_bundle=True,
        max_conflict_rate=None,
        importance_type="split",
        early_stopping_rounds=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        # One signature for both estimators (scikit-learn reads it for get_params).
        for name, value in locals().items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    def _validate_params(self):
        check_positive_int(self.num_leaves, "num_leaves", low=2)
        if isinstance(self.max_depth, bool) or not isinstance(self.max_depth, (int, np.integer)):
            raise ValueError(f"max_depth must be an int (<= 0: no limit), got {self.max_depth!r}")
        check_fraction(self.learning_rate, "learning_rate", high=np.inf)
        check_positive_int(self.n_estimators, "n_estimators")
        check_positive_int(self.min_child_samples, "min_child_samples", low=0)
        for name in ("min_child_weight", "min_split_gain", "reg_lambda", "reg_alpha"):
            check_fraction(getattr(self, name), name, low_open=False, high=np.inf)
        check_fraction(self.max_delta_step, "max_delta_step", low_open=False, high=np.inf)
        check_positive_int(self.max_bin, "max_bin", low=2)
        check_positive_int(self.min_data_in_bin, "min_data_in_bin")
        check_positive_int(self.subsample_for_bin, "subsample_for_bin")
        check_fraction(self.subsample, "subsample")
        check_positive_int(self.subsample_freq, "subsample_freq", low=0)
        check_fraction(self.colsample_bytree, "colsample_bytree")
        if self.data_sample_strategy not in ("bagging", "goss"):
            raise ValueError(
                "data_sample_strategy must be 'bagging' or 'goss', "
                f"got {self.data_sample_strategy!r}"
            )
        check_fraction(self.top_rate, "top_rate", high_closed=False)
        check_fraction(self.other_rate, "other_rate", high_closed=False)
        if self.data_sample_strategy == "goss":
            if self.top_rate + self.other_rate > 1.0:
                raise ValueError(
                    f"top_rate + other_rate must be <= 1, got {self.top_rate + self.other_rate!r}"
                )
            if self.subsample < 1.0 and self.subsample_freq > 0:
                raise ValueError("data_sample_strategy='goss' cannot be combined with bagging")
        for name in ("cat_smooth", "cat_l2"):
            check_fraction(getattr(self, name), name, low_open=False, high=np.inf)
        check_positive_int(self.max_cat_threshold, "max_cat_threshold")
        check_positive_int(self.max_cat_to_onehot, "max_cat_to_onehot")
        check_positive_int(self.min_data_per_group, "min_data_per_group")
        if not isinstance(self.enable_bundle, (bool, np.bool_)):
            raise ValueError(f"enable_bundle must be a bool, got {self.enable_bundle!r}")
        if self.max_conflict_rate is not None:
            check_fraction(
                self.max_conflict_rate, "max_conflict_rate", low_open=False, high_closed=False
            )
        check_positive_int(self.early_stopping_rounds, "early_stopping_rounds", allow_none=True)
        threads_for_jobs(self.n_jobs, none=1)  # checks it: None or a non-zero int
        check_positive_int(self.verbose, "verbose", low=0)

    def _min_child_samples(self) -> int:
        """``min_child_samples``, raised to 1 when ``min_child_weight`` is also (about) 0.

        LightGBM's ``Config::CheckParamConflict`` does so ("Cannot set both
        min_data_in_leaf and min_sum_hessian_in_leaf to 0"): nothing would
        then keep a child from being empty.
        """
        if self.min_child_samples <= 0 and self.min_child_weight <= _EPSILON:
            return 1
        return int(self.min_child_samples)

    def _params(self) -> LeafwiseParams:
        return LeafwiseParams(
            reg_lambda=float(self.reg_lambda),
            reg_alpha=float(self.reg_alpha),
            min_child_samples=self._min_child_samples(),
            min_child_weight=float(self.min_child_weight),
            min_split_gain=float(self.min_split_gain),
            max_delta_step=float(self.max_delta_step),
        )

    def _fit(self, X, y, sample_weight, eval_set, objective: _Objective, init_score=None):
        X = _as_float64(self, X, reset=True)
        check_neighbour_sums(
            X,
            getattr(self, "feature_names_in_", None),
            library="LightGBM's binning",
            reason="lightgbm then merges them into one bin (a constant model on two values)",
        )
        # LightGBM keeps labels and weights in float32 (label_t).
        weight = _float32(sample_weight)
        if weight is not None and (weight == 1.0).all():
            weight = None
        if objective.name == "regression":
            y = _float32(y)
        if self.early_stopping_rounds is not None and not eval_set:
            raise ValueError("early_stopping_rounds needs an eval_set to watch")
        evals = []
        for item in eval_set or []:
            if len(item) not in (2, 3):
                raise ValueError("eval_set entries must be (X, y) or (X, y, sample_weight)")
            E = item[0]
            ey = _float32(self._encode_eval_target(item[1]))
            ew = None if len(item) == 2 else _float32(item[2])
            evals.append((E, ey, ew))
        n, K = X.shape[0], objective.n_outputs
        start_score = None
        if init_score is not None:
            start_score = np.asarray(init_score, dtype=np.float64)
            if start_score.ndim == 1 and K == 1:
                start_score = start_score[:, None]
            if start_score.shape != (n, K) or not np.isfinite(start_score).all():
                raise ValueError(
                    f"init_score must hold finite raw scores of shape ({n},)"
                    + (f" or ({n}, {K})" if K > 1 else "")
                    + f", got shape {np.shape(init_score)}"
                )
        rng = library_rng(self.random_state)
        n_threads = threads_for_jobs(self.n_jobs, none=available_cores())
        clock = time.perf_counter()
        self._categories = {
            j: category_bins(X[:, j], self.max_bin, self.min_data_in_bin)
            for j in self._categorical_columns(X)
        }

        data, has_missing, most_frequent = fit_lightgbm_bins(
            X,
            self.max_bin,
            self.min_data_in_bin,
            self.subsample_for_bin,
            rng,
            n_threads,
            categories=self._categories,
        )
        categorical = np.zeros(X.shape[1], dtype=bool)
        categorical[list(self._categories)] = True
        # LightGBM drops the features it can never split (one bin, or no cut
        # with min_child_samples true rows on both sides) before training.
        usable = used_features(data, has_missing, self._min_child_samples(), categorical)
        bundles = None
        if self.enable_bundle and self.max_conflict_rate is None:
            bundles = lightgbm_feature_bundles(X, data, most_frequent, usable, self._categories)
        evals = [(self._values(E), ey, ew) for E, ey, ew in evals]
        timings = {"binning": time.perf_counter() - clock, "gradients": 0.0}
        if start_score is None:
            init = objective.init_score(y, weight)
            score = np.tile(init, (n, 1))
        else:  # LightGBM: a given start replaces boost_from_average, and is not predicted
            init = np.zeros(K)
            score = start_score.copy()
        trained = objective.trained(y, weight)
        eval_sets = [(E, ey, ew, np.tile(init, (len(ey), 1))) for E, ey, ew in evals]
        grower = LeafwiseGrower(
            data,
            has_missing,
            self._params(),
            most_frequent_bin=most_frequent,
            num_leaves=int(self.num_leaves),
            max_depth=int(self.max_depth),
            learning_rate=float(self.learning_rate),
            n_threads=n_threads,
            bundle=bool(self.enable_bundle),
            categorical=categorical if categorical.any() else None,
            categorical_params=CategoricalParams(
                cat_smooth=float(self.cat_smooth),
                cat_l2=float(self.cat_l2),
                max_cat_threshold=int(self.max_cat_threshold),
                max_cat_to_onehot=int(self.max_cat_to_onehot),
                min_data_per_group=int(self.min_data_per_group),
            ),
            max_conflict_rate=float(self.max_conflict_rate or 0.0),
            bundles=bundles,
            usable=usable,
            timings=timings,
        )
        self.n_bundles_ = grower.n_columns
        rounds = _LightGBMRounds(
            grower,
            rng=rng,
            n_features=X.shape[1],
            column_share=float(self.colsample_bytree),
            rounding=_half_up,
            evals=EvalSets(eval_sets, objective.evaluate),
            model=self,
            objective=objective,
            y=y,
            weight=weight,
            score=score,
            trained=trained,
            timings=timings,
        )
        boosted = rounds.run(
            self.n_estimators,
            verbose=self.verbose,
            patience=self.early_stopping_rounds,
            name=type(self).__name__,
            prefix="valid_",
        )
        trees, gains, history = boosted.trees, boosted.gains, boosted.history
        self._timings = timings
        self._objective = objective
        self._trees = trees
        self._gains = gains
        self.init_score_ = init
        self.n_estimators_ = len(trees)
        self.evals_result_ = {f"valid_{i}": {objective.metric: h_} for i, h_ in enumerate(history)}
        if evals and self.early_stopping_rounds is not None:
            self.best_iteration_ = boosted.best_round
            self.best_score_ = history[-1][boosted.best_round]
        flat = [tree for stage in trees for tree in stage]
        outputs = np.tile(np.arange(K), len(trees))
        self._stack = StackedTrees(flat, [t.value for t in flat], outputs, K)
        check_score_bound(self._stack.score_bound, self.init_score_, self.learning_rate)
        return self

    def _encode_eval_target(self, y):
        return np.asarray(y, dtype=np.float64)

    def _categorical_columns(self, X: np.ndarray) -> list[int]:
        """Indices of the categorical features; their training values are checked."""
        spec = self.categorical_feature
        names = list(getattr(self, "feature_names_in_", []))
        if isinstance(spec, str) and spec == "auto":
            # Unordered pandas categories; an ordered one is a number (its code), as LightGBM.
            columns = list(getattr(self, "_auto_categorical", []))
        else:
            if isinstance(spec, str) or not hasattr(spec, "__iter__"):
                raise ValueError(
                    f"categorical_feature must be 'auto' or a list of column indices or names, "
                    f"got {spec!r}"
                )
            columns = []
            for c in spec:
                if isinstance(c, str):
                    if c not in names:
                        raise ValueError(f"categorical_feature names an unknown column {c!r}")
                    columns.append(names.index(c))
                elif isinstance(c, (int, np.integer)) and 0 <= c < X.shape[1]:
                    columns.append(int(c))
                else:
                    raise ValueError(
                        f"categorical_feature holds {c!r}, not a column index in "
                        f"[0, {X.shape[1]}) or a column name"
                    )
        for j in columns:
            column = X[:, j]
            known = column[~np.isnan(column)]
            if not np.array_equal(known, np.round(known)):
                raise ValueError(
                    f"categorical feature {j} must hold integer category codes (or NaN), "
                    f"got {known[known != np.round(known)][0]!r}"
                )
        return sorted(set(columns))

    def _values(self, X) -> np.ndarray:
        """Validated float values, categorical columns replaced by their bin codes."""
        values = _as_float64(self, X, reset=False)
        if self._categories:
            values = values.copy()
            for j, categories in self._categories.items():
                values[:, j] = encode_categories(values[:, j], categories)
        return values

    def _rounds(self, num_iteration):
        if num_iteration is not None:
            return int(num_iteration)
        best = getattr(self, "best_iteration_", None)
        return self.n_estimators_ if best is None else best + 1

    def _raw(self, X, num_iteration=None) -> np.ndarray:
        check_is_fitted(self, "_stack")
        values = self._values(X)
        stop = self._rounds(num_iteration)
        K = self._objective.n_outputs
        if stop >= self.n_estimators_:
            raw = self._stack.predict(values)
        else:
            flat = [tree for stage in self._trees[:stop] for tree in stage]
            outputs = np.tile(np.arange(K), stop)
            raw = StackedTrees(flat, [t.value for t in flat], outputs, K).predict(values)
        return raw + self.init_score_

    def _staged_raw(self, X):
        check_is_fitted(self, "_stack")
        values = self._values(X)
        raw = np.tile(self.init_score_, (values.shape[0], 1)).astype(np.float64)
        for stage in self._trees:
            for k, tree in enumerate(stage):
                raw[:, k] += tree.value[tree.apply(values), 0]
            yield raw.copy()

    @property
    def trees_(self) -> list:
        """The fitted trees: one list per round, one :class:`~mltrees.tree._tree.Tree` per output.

        Leaves hold ``learning_rate * w*``; tests are ``x <= threshold`` in
        float64, as LightGBM's. The starting score is :attr:`init_score_`.
        """
        check_is_fitted(self, "_stack")
        return [list(stage) for stage in self._trees]

    def apply(self, X: MatrixLike) -> np.ndarray:
        """The leaf (node id) of every row in every tree, shape (n_samples, n_trees)."""
        check_is_fitted(self, "_stack")
        values = self._values(X)
        return np.column_stack([t.apply(values) for stage in self._trees for t in stage])

    @property
    def feature_importances_(self) -> np.ndarray:
        """Splits per feature (``importance_type="split"``) or their total gain (``"gain"``)."""
        check_is_fitted(self, "_stack")
        total = np.zeros(self.n_features_in_)
        for stage, stage_gains in zip(self._trees, self._gains, strict=True):
            for tree, gain in zip(stage, stage_gains, strict=True):
                internal = ~tree.is_leaf
                weights = gain[internal] if self.importance_type == "gain" else None
                total += np.bincount(
                    tree.feature[internal], weights=weights, minlength=self.n_features_in_
                )
        return total

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _tree_model_view(self):
        """The model as a :class:`~mltrees.tree.view.TreeModelView` of its raw score."""
        from dataclasses import replace

        from mltrees.tree.view import TreeModelView, feature_names_of

        check_is_fitted(self, "_stack")
        rounds = self._rounds(None)
        K = self._objective.n_outputs
        trees, tables, columns = [], [], []
        for stage in self._trees[:rounds]:
            for k, tree in enumerate(stage):
                # LightGBM's own TreeSHAP weighs branches by row counts, not
                # by hessian sums (XGBoost's cover): use the counts, and keep
                # weight x impurity (the split gains) unchanged.
                counts = tree.n_node_samples.astype(np.float64)
                with np.errstate(divide="ignore", invalid="ignore"):
                    scale = np.where(counts > 0, tree.weighted_n_node_samples / counts, 0.0)
                trees.append(
                    replace(tree, weighted_n_node_samples=counts, impurity=tree.impurity * scale)
                )
                tables.append(tree.value[:, :1])
                columns.append(np.array([k]))
        classifier = isinstance(self, ClassifierMixin)
        return TreeModelView(
            trees=trees,
            tables=tables,
            columns=columns,
            n_outputs=K,
            base=np.asarray(self.init_score_, dtype=np.float64).reshape(K),
            encode=self._values,  # category columns become the trees' bin codes
            output=lambda X: self._raw(X),
            feature_names=feature_names_of(self),
            output_name="raw score (log-odds)" if classifier else "raw score",
            squeeze=K == 1,
        )

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_stack", "_timings")

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_lightgbm

        _rebuild_lightgbm(self)

    def _drawable_tree(self, tree_index):
        """Tree ``tree_index`` (round, then output), its category bins named."""
        from mltrees.tree._drawable import boosted_drawable

        check_is_fitted(self, "_stack")
        trees = [tree for stage in self._trees for tree in stage]
        tables = [t.value[:, :1] for t in trees]
        return boosted_drawable(self, trees, tables, tree_index, self._drawable_specs())

    def _drawable_specs(self) -> list | None:
        """Names of the category bins of the categorical features (bin 0: missing or rare)."""
        from mltrees.tree._data import CATEGORICAL, FeatureSpec
        from mltrees.tree._drawable import feature_names

        bins = getattr(self, "_categories", None)
        if not bins:
            return None
        names = feature_names(self)
        categories = getattr(self, "_pandas_categories", {})
        specs = [None] * int(self.n_features_in_)
        for j, codes in bins.items():
            column = names[j] if names is not None else None
            known = categories.get(column) if column is not None else None
            if isinstance(known, pd.CategoricalDtype):
                known = np.asarray(known.categories)
            if known is None:  # integer codes given as numbers: the codes name themselves
                labels = [str(int(c)) for c in codes]
            else:
                labels = [str(known[int(c)]) if 0 <= int(c) < len(known) else str(c) for c in codes]
            specs[j] = FeatureSpec(
                CATEGORICAL, np.array(["(missing or rare)", *labels], dtype=object)
            )
        return specs

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model: raw category values in, float64.

        A category's bin is 1 + its position among the listed ones, else 0.
        """
        from sklearn.base import is_classifier

        from mltrees.io.onnx_export import OnnxCategories, OnnxPlan, boosting_link
        from mltrees.tree.view import view_of

        view = view_of(self)
        classes = np.asarray(self.classes_) if is_classifier(self) else None
        categories = {}
        for j, listed in self._categories.items():
            listed = np.asarray(listed)
            categories[j] = OnnxCategories(
                listed.astype(np.float64), np.arange(1, listed.size + 1), other=0, nan=0
            )
        link = boosting_link(view.n_outputs) if classes is not None else "identity"
        return OnnxPlan(
            view=view,
            dtype=np.float64,
            comparison="<=",
            encode=lambda X: _as_float64(self, X, reset=False),
            link=link,
            categories=categories,
            reject_inf=np.ones(self.n_features_in_, dtype=bool),
            classes=classes,
        )


@_lgb_doc
class LightGBMRegressor(RegressorMixin, _BaseLightGBM):
    """LightGBM regression with squared error (Ke et al. 2017), chapter 14.

    ``g = F - y``, ``h = 1``; the starting score is the weighted mean of ``y``.

    Parameters
    ----------
    {params}
    importance_type : {"split", "gain"}, default "split"
        What :attr:`feature_importances_` counts.

    Attributes
    ----------
    init_score_ : ndarray of shape (1,)
    n_estimators_ : int
        Rounds grown (fewer after early stopping, or when no leaf could split).
    n_bundles_ : int
        Columns the histograms are built on after feature bundling: each
        bundle once, each other feature alone (the features of LightGBM's
        multi-value group too), and none for the features LightGBM drops
        before training: one of a single bin, and (LightGBM's
        ``feature_pre_filter``, on by default, which this estimator always
        applies) a numeric feature, or a categorical one of at most two
        bins, none of whose cuts with the missing values on the right leaves
        ``min_child_samples`` rows on both sides. LightGBM counts those rows
        on its bin sample of at most ``subsample_for_bin`` rows (200,000)
        with the minimum scaled to the sample; this estimator counts every
        row, which is the same up to that many rows.
    best_iteration_, best_score_
        With early stopping: the best round (0-based) and its metric.
    evals_result_ : dict

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import LightGBMRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = LightGBMRegressor(n_estimators=30, num_leaves=7).fit(X, y)
    >>> round(model.score(X, y), 3)
    0.652
    """

    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        eval_set: list | None = None,
        init_score: ArrayLike | None = None,
    ) -> Self:
        """Boost ``n_estimators`` trees on ``(X, y)``; ``eval_set`` is a list of ``(X, y)``.

        ``init_score`` (shape (n,)): each row's starting score, as LightGBM's;
        it replaces the mean of ``y`` and is not part of the predictions.
        """
        self._validate_params()
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight)
        y = real_targets(np.asarray(y))
        return self._fit(X, y, sample_weight, eval_set, _Objective("regression"), init_score)

    def predict(self, X: MatrixLike, num_iteration: int | None = None) -> np.ndarray:
        """Predicted values (the raw score, for squared error)."""
        return self._raw(X, num_iteration)[:, 0]

    def staged_predict(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Predictions after each round."""
        for raw in self._staged_raw(X):
            yield raw[:, 0]


@_lgb_doc
class LightGBMClassifier(ClassifierMixin, _BaseLightGBM):
    """LightGBM classification (Ke et al. 2017), chapter 14.

    Two classes: the logistic loss (``g = p - y``, ``h = p(1 - p)``), starting
    from the log-odds of the class shares. More: softmax with one tree per
    class and round, LightGBM's hessian ``K/(K-1) p(1-p)`` and the starting
    scores ``log p_k``.

    Parameters
    ----------
    {params}
    importance_type : {"split", "gain"}, default "split"
        What :attr:`feature_importances_` counts.

    Attributes
    ----------
    classes_ : ndarray
    init_score_ : ndarray of shape (1,) or (K,)
    n_estimators_, n_bundles_, best_iteration_, best_score_, evals_result_
        As for :class:`LightGBMRegressor`.

    Examples
    --------
    >>> from mltrees import LightGBMClassifier
    >>> from mltrees.datasets import load_penguins
    >>> X, y = load_penguins(return_X_y=True)  # island and sex are categories, some NaN
    >>> model = LightGBMClassifier(n_estimators=20, num_leaves=7).fit(X, y)
    >>> model.predict(X.iloc[[0, 200]]).tolist()
    ['Adelie', 'Gentoo']
    """

    def _encode_eval_target(self, y):
        y = np.asarray(y)
        codes = np.minimum(np.searchsorted(self.classes_, y), len(self.classes_) - 1)
        if not np.array_equal(self.classes_[codes], y):
            raise ValueError("eval_set has labels that are not among the training classes")
        return codes.astype(np.float64)

    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        eval_set: list | None = None,
        init_score: ArrayLike | None = None,
    ) -> Self:
        """Boost ``n_estimators`` rounds on ``(X, y)``; ``eval_set`` is a list of ``(X, y)``.

        ``init_score`` (shape (n,), or (n, K) for K > 2 classes): each row's
        starting raw score, as LightGBM's; it replaces the log-odds of the
        class shares and is not part of the predictions.
        """
        self._validate_params()
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight)
        self.classes_, codes = class_codes(np.asarray(y))
        K = len(self.classes_)
        require_two_classes(K, type(self).__name__)
        objective = _Objective("binary" if K == 2 else "multiclass", K)
        return self._fit(
            X, codes.astype(np.float64), sample_weight, eval_set, objective, init_score
        )

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Raw scores: log-odds of class 1 (shape (n,)) or one per class (n, K)."""
        raw = self._raw(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X: MatrixLike, num_iteration: int | None = None) -> np.ndarray:
        """Class probabilities, shape (n, K)."""
        return self._proba(self._raw(X, num_iteration))

    def _proba(self, raw):
        if raw.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-raw[:, 0]))
            return np.column_stack([1.0 - p, p])
        return _softmax(raw)

    def predict(
        self, X: MatrixLike, raw_score: bool = False, num_iteration: int | None = None
    ) -> np.ndarray:
        """Classes, or raw scores with ``raw_score=True``."""
        raw = self._raw(X, num_iteration)
        if raw_score:
            return raw[:, 0] if raw.shape[1] == 1 else raw
        return self.classes_[np.argmax(self._proba(raw), axis=1)]

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Class probabilities after each round."""
        for raw in self._staged_raw(X):
            yield self._proba(raw)

    def staged_predict(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Classes after each round."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]
