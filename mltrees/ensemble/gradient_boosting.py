"""Friedman's gradient boosting with regression trees (chapter 12).

One round of :eq:`eq-ch12-pseudo-residual` -> :eq:`eq-ch12-update`:

1. the pseudo-residuals ``r_i = -dL/dF(x_i)`` at the current raw predictions;
2. a CART regression tree grown on them (squared error), on rows that were
   binned once for the whole fit (exact ranks, or a 255-bin histogram);
3. a value per leaf from the loss (:mod:`mltrees.losses`): mean, median,
   Huber's step or a Newton step, computed with one ``bincount`` (or one
   sort) over the leaf ids of the training rows;
4. ``F += learning_rate * value[leaf]``: the raw predictions of the training
   rows are updated by a gather, never recomputed from all trees.

Classification with K > 2 classes grows K trees per round, one per class.

Missing values (NaN) are routed as XGBoost routes them (chapter 6): every
split learns a default direction for the rows whose value is missing
(:eq:`eq-default-direction`), in exact mode through the tree engine's
``missing="default_direction"`` and in histogram mode through the
histogram learner's missing bin.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import check_is_fitted

from mltrees._input_checks import record_fit_features
from mltrees._progress import Progress, check_verbose
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import require_two_classes
from mltrees.ensemble._common import (
    StackedTrees,
    check_fraction,
    check_positive_int,
    check_score_bound,
    class_codes,
    node_of_codes,
    prediction_values,
    raw_importances,
    real_targets,
    select_rows,
    take_rows,
)
from mltrees.hist.binning import BinnedData
from mltrees.hist.grower import DepthwiseGrower
from mltrees.hist.xgboost.splitting import VarianceRule
from mltrees.losses import HuberLoss, MultinomialLogLoss, get_loss
from mltrees.tree._data import NUMERIC, bin_features, encode_features, validate_fit_input
from mltrees.tree._split import RegressionStatistics
from mltrees.tree._tree import available_cores
from mltrees.tree.builder import TreeBuilder
from mltrees.tree.classes import CARTRegressor

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]

NO_DEPTH_LIMIT = 1 << 20  # max_depth=None: levels until no node splits


class _BaseGradientBoosting(BaseEstimator):
    """The boosting loop shared by the regressor and the classifier."""

    _losses: tuple[str, ...] = ()

    def _validate_params(self):
        if self.loss not in self._losses:
            raise ValueError(f"loss must be one of {self._losses}, got {self.loss!r}")
        check_fraction(self.learning_rate, "learning_rate", high=np.inf)
        check_positive_int(self.n_estimators, "n_estimators")
        check_fraction(self.subsample, "subsample")
        check_positive_int(self.n_iter_no_change, "n_iter_no_change", allow_none=True)
        check_fraction(self.validation_fraction, "validation_fraction", high_closed=False)
        check_fraction(self.tol, "tol", low_open=False, high=np.inf)
        if getattr(self, "alpha", 0.5) is not None:
            check_fraction(getattr(self, "alpha", 0.5), "alpha", high_closed=False)
        check_verbose(self.verbose)
        check_positive_int(self.max_leaf_nodes, "max_leaf_nodes", low=2, allow_none=True)

    def _tree_template(self) -> CARTRegressor:
        """The regression tree every round grows (its parameters, not its data)."""
        return CARTRegressor(
            max_depth=self.max_depth,
            max_leaf_nodes=self.max_leaf_nodes,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_weight_fraction_leaf=self.min_weight_fraction_leaf,
            min_impurity_decrease=self.min_impurity_decrease,
            max_features=self.max_features,
            max_bins=self.max_bins,
            categorical_features=self.categorical_features,
            # Chapter 6: squared error has additive statistics, so each split
            # can learn where missing values go (XGBoost's default direction).
            missing="default_direction",
        )

    def _hist_grower(self, codes, specs, total_weight: float, rng):
        """The histogram learner of :mod:`mltrees.hist` for the histogram mode, else None.

        Numeric features binned once (``max_bins``) go to
        :class:`~mltrees.hist.grower.DepthwiseGrower` with CART's variance
        rule (:class:`~mltrees.hist.xgboost.splitting.VarianceRule`): the same trees
        as the tree engine, which keeps the exact mode and categorical features.
        """
        if self.max_bins is None or any(spec.kind != NUMERIC for spec in specs):
            return None
        if self.max_leaf_nodes is not None:
            # Best-first trees (a leaf budget) are grown by the tree engine,
            # on the same binned codes.
            return None
        rule = VarianceRule(
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_weight_leaf=self.min_weight_fraction_leaf * total_weight,
            min_impurity_decrease=float(self.min_impurity_decrease),
            total_weight=total_weight,
        )
        if codes.dtype.kind == "i" and (codes < 0).any():
            # The tree engine codes a missing value -1; the histogram learner
            # keeps it in its own bin, one past the largest code of any feature.
            codes = np.where(codes < 0, max(spec.n_codes for spec in specs), codes)
        data = BinnedData.from_codes(codes, [spec.values for spec in specs])
        share = TreeBuilder.features_per_node(self.max_features, len(specs))
        return DepthwiseGrower(
            data,
            rule,
            max_depth=NO_DEPTH_LIMIT if self.max_depth is None else int(self.max_depth),
            learning_rate=1.0,
            colsample_bynode=1.0 if share is None else share / len(specs),
            rng=rng,
            n_threads=available_cores(),
        )

    def _fit_boosting(self, X, y, weights, loss, n_outputs: int, stratify):
        """Bin once, then boost; return the fitted state (assigned by the caller)."""
        builder = TreeBuilder(self._tree_template())
        rng = np.random.default_rng(self.random_state)
        keep = np.flatnonzero(weights > 0)
        if keep.size == 0:
            raise ValueError(
                "sample_weight is 0 for every row; at least one positive weight is needed"
            )
        validation = None
        if self.n_iter_no_change is not None:
            seed = int(rng.integers(2**31 - 1))
            strata = None if stratify is None else stratify[keep]
            try:
                train, held = train_test_split(
                    keep, test_size=self.validation_fraction, random_state=seed, stratify=strata
                )
            except ValueError:  # a class too small to stratify: split at random
                train, held = train_test_split(
                    keep, test_size=self.validation_fraction, random_state=seed
                )
            keep = np.sort(train)
            validation = np.sort(held)
        X_train = select_rows(X, keep)
        y_train, w_train = y[keep], weights[keep]
        codes, specs = bin_features(
            X_train,
            categorical_features=self.categorical_features,
            max_bins=self.max_bins,
            allow_nan=True,
            random_state=0,
        )
        n = keep.size
        # Rows with a missing value (code -1) follow the learned default
        # directions, which the walk on codes does not know: walk on the values.
        values_train = None
        if codes.dtype.kind == "i" and (codes < 0).any():
            values_train = encode_features(X_train, specs)
        grower = self._hist_grower(codes, specs, float(w_train.sum()), rng)
        init = np.atleast_1d(np.asarray(loss.init(y_train, w_train), dtype=np.float64))
        raw = np.tile(init, (n, 1))
        if validation is not None:
            raw_val = np.tile(init, (validation.size, 1))
            y_val, w_val = y[validation], weights[validation]
            values_val = encode_features(select_rows(X, validation), specs)
            history = np.full(self.n_iter_no_change, np.inf)
        n_inbag = max(1, int(self.subsample * n))
        subsampling = n_inbag < n
        trees, train_score, oob_improvement = [], [], []
        lr = float(self.learning_rate)
        progress = Progress(self.verbose, self.n_estimators, type(self).__name__)
        squeeze = n_outputs == 1
        for i in range(self.n_estimators):
            current = raw[:, 0] if squeeze else raw
            round_loss = loss
            if self.loss == "huber":
                round_loss = HuberLoss.from_quantile(y_train, current, self.alpha, w_train)
            if subsampling:
                inbag = np.sort(rng.choice(n, n_inbag, replace=False))
                mask = np.zeros(n, dtype=bool)
                mask[inbag] = True
                oob = np.flatnonzero(~mask)
                old_oob = round_loss(y_train[oob], _col(raw[oob], squeeze), w_train[oob])
                codes_round = take_rows(codes, inbag) if grower is None else None
            else:
                inbag, codes_round, mask = None, codes, None
            gradient = round_loss.gradient(y_train, current)
            gradient = gradient.reshape(n, n_outputs)
            stage, leaves = [], []
            for k in range(n_outputs):
                rows = slice(None) if inbag is None else inbag
                residual = -gradient[rows, k]
                w_in = w_train[rows]
                if grower is not None:
                    # The histogram learner: g = w r, h = w, rows outside the
                    # subsample with weight and count 0; it returns every row's leaf.
                    in_sample = np.ones(n) if mask is None else mask.astype(np.float64)
                    w_round = w_train * in_sample
                    grown = grower.grow(-gradient[:, k] * w_round, w_round, count=in_sample)
                    tree, leaf = grown.tree, grown.leaf_of_row
                else:
                    stats = RegressionStatistics(residual, w_in)
                    # Without a subsample the growth knows every row's leaf:
                    # no walk down the tree (-1: it did not, e.g. best-first).
                    known = np.full(n, -1, dtype=np.intp) if inbag is None else None
                    tree = builder.grow(codes_round, specs, stats, float(w_in.sum()), rng, known)
                    if values_train is not None:
                        leaf = tree.apply(values_train)
                    elif known is not None and known[0] >= 0:
                        leaf = known
                    else:
                        leaf = node_of_codes(tree, codes, specs)
                leaf_in = leaf if inbag is None else leaf[inbag]
                y_in = y_train[rows]
                raw_in = current[rows]
                if isinstance(round_loss, MultinomialLogLoss):
                    value = round_loss.leaf_values(
                        y_in, raw_in, leaf_in, tree.node_count, w_in, column=k
                    )
                else:
                    value = round_loss.leaf_values(y_in, raw_in, leaf_in, tree.node_count, w_in)
                tree.value = value.reshape(-1, 1)
                stage.append(tree)
                leaves.append(leaf)
            # Update after all K trees: each class's tree saw the same raw scores.
            for k, tree in enumerate(stage):
                raw[:, k] += lr * tree.value[leaves[k], 0]
            trees.append(stage)
            current = raw[:, 0] if squeeze else raw
            if subsampling:
                train_score.append(
                    round_loss(y_train[inbag], _col(raw[inbag], squeeze), w_train[inbag])
                )
                new_oob = round_loss(y_train[oob], _col(raw[oob], squeeze), w_train[oob])
                oob_improvement.append(old_oob - new_oob)
            else:
                train_score.append(round_loss(y_train, current, w_train))
            if progress.due():
                elapsed = time.perf_counter() - progress.start
                remaining = elapsed / (i + 1) * (self.n_estimators - i - 1)
                extra = f"  oob improvement {oob_improvement[-1]:.4g}" if subsampling else ""
                progress.step(
                    f"train loss {train_score[-1]:.6g}{extra}  remaining {remaining:.1f} s"
                )
            else:
                progress.step()
            if validation is not None:
                for k, tree in enumerate(stage):
                    nodes = tree.apply(values_val)
                    raw_val[:, k] += lr * tree.value[nodes, 0]
                val_loss = round_loss(y_val, _col(raw_val, squeeze), w_val)
                if np.any(val_loss + self.tol < history):
                    history[i % len(history)] = val_loss
                else:
                    break
        progress.close()
        if grower is not None:
            grower.close()
        return {
            "specs": specs,
            "init": init,
            "trees": trees,
            "train_score": np.asarray(train_score),
            "oob_improvement": np.asarray(oob_improvement) if subsampling else None,
        }

    def _set_state(self, X, state, n_outputs):
        record_fit_features(self, X)
        self._specs = state["specs"]
        self.init_ = state["init"] if n_outputs > 1 else float(state["init"][0])
        self._trees = state["trees"]
        self.n_estimators_ = len(state["trees"])
        self.train_score_ = state["train_score"]
        if state["oob_improvement"] is not None:
            self.oob_improvement_ = state["oob_improvement"]
        elif hasattr(self, "oob_improvement_"):
            del self.oob_improvement_
        self._n_outputs = n_outputs
        lr = float(self.learning_rate)
        flat = [tree for stage in self._trees for tree in stage]
        outputs = np.tile(np.arange(n_outputs), self.n_estimators_)  # tree k of a round: class k
        self._stack = StackedTrees(flat, [lr * t.value for t in flat], outputs, n_outputs)
        check_score_bound(self._stack.score_bound, state["init"], self.learning_rate)
        builder = TreeBuilder(self._tree_template())
        attributes = {"n_outputs_": 1, "n_features_in_": self.n_features_in_}
        estimators = np.empty((self.n_estimators_, n_outputs), dtype=object)
        for i, stage in enumerate(self._trees):
            for k, tree in enumerate(stage):
                estimators[i, k] = builder.fitted(tree, self._specs, attributes, fast=True)
        self.estimators_ = estimators

    def _raw_predict(self, X) -> np.ndarray:
        values, check = prediction_values(self, X, "_stack", allow_missing=True)
        raw = self._stack.predict(values, check_block=check)
        return raw + self.init_

    def _staged_raw_predict(self, X):
        values, check = prediction_values(self, X, "_stack", allow_missing=True)
        check(values)
        raw = np.tile(np.atleast_1d(self.init_), (values.shape[0], 1)).astype(np.float64)
        lr = float(self.learning_rate)
        for stage in self._trees:
            for k, tree in enumerate(stage):
                nodes = tree.apply(values)
                raw[:, k] += lr * tree.value[nodes, 0]
            yield raw.copy()

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity decrease per feature, averaged over all trees, normalised to sum to 1."""
        check_is_fitted(self, "_stack")
        per_tree = [
            raw_importances(tree, self.n_features_in_)
            for stage in self._trees
            for tree in stage
            if tree.node_count > 1
        ]
        if not per_tree:
            return np.zeros(self.n_features_in_)
        average = np.mean(per_tree, axis=0)
        total = average.sum()
        return average / total if total > 0 else average

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _tree_model_view(self):
        """The model as a :class:`~mltrees.tree.view.TreeModelView`: ``init_`` plus scaled trees."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        check_is_fitted(self, "_stack")
        lr = float(self.learning_rate)
        K = self._n_outputs
        trees, tables, columns = [], [], []
        for stage in self._trees:
            for k, tree in enumerate(stage):
                trees.append(tree)
                tables.append(lr * tree.value[:, :1])
                columns.append(np.array([k]))

        def encode(X):
            # Every split learned a default direction (chapter 6): NaN is routed,
            # as in predict.
            values, check = prediction_values(self, X, "_stack", allow_missing=True)
            check(values)
            return values

        classifier = isinstance(self, ClassifierMixin)

        def output(X):
            out = self.decision_function(X) if classifier else self.predict(X)
            return out[:, None] if out.ndim == 1 else out

        return TreeModelView(
            trees=trees,
            tables=tables,
            columns=columns,
            n_outputs=K,
            base=np.atleast_1d(np.asarray(self.init_, dtype=np.float64)),
            encode=encode,
            output=output,
            feature_names=feature_names_of(self),
            output_name="decision_function (raw score F)" if classifier else "predict",
            squeeze=K == 1,
        )

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_stack",)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_gradient_boosting

        _rebuild_gradient_boosting(self)

    def _drawable_tree(self, tree_index):
        """Tree ``tree_index`` (round, then output), its leaves scaled by the learning rate."""
        from mltrees.tree._drawable import boosted_drawable

        check_is_fitted(self, "_stack")
        trees = [tree for stage in self._trees for tree in stage]
        lr = float(self.learning_rate)
        tables = [lr * t.value[:, :1] for t in trees]
        drawn = boosted_drawable(self, trees, tables, tree_index, self._specs)
        drawn.criterion = "squared_error"
        return drawn

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model (its input, comparisons, link)."""
        from sklearn.base import is_classifier

        from mltrees.io.onnx_export import boosting_link, codes_plan
        from mltrees.tree.view import view_of

        view = view_of(self)
        classifier = is_classifier(self)
        classes = np.asarray(self.classes_) if classifier else None
        link = boosting_link(view.n_outputs) if classifier else "identity"
        return codes_plan(self, view, self._specs, "default_direction", link, classes)


def _col(raw: np.ndarray, squeeze: bool) -> np.ndarray:
    return raw[:, 0] if squeeze else raw


_GB_PARAMS = """
    learning_rate : float > 0, default 0.1
        Shrinkage eta of :eq:`eq-ch12-shrinkage`: each tree's values are multiplied by it.
    n_estimators : int, default 100
        Number of boosting rounds.
    subsample : float in (0, 1], default 1.0
        Share of the training rows drawn (without replacement, seeded by
        ``random_state``) for each round: Friedman's stochastic gradient boosting.
    min_samples_split, min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease
        As for :class:`mltrees.CARTRegressor`.
    max_depth : int or None, default 3
        Depth of each tree.
    max_leaf_nodes : int >= 2 or None, default None
        None: trees grow level by level up to ``max_depth``. An int ``J``:
        each tree grows best first (:eq:`eq-ch11-best-first`) until it has
        ``J`` leaves, the J-terminal-node trees of Hastie et al. (section
        10.11); ``max_depth`` still applies, so set ``max_depth=None`` to
        limit the trees by their leaves only (as scikit-learn).
    max_features : None, "sqrt", "log2", int or float, default None
        Features drawn for each node.
    random_state : int, numpy Generator or None
        Seeds the subsamples, the feature draws and the validation split.
    max_bins : int or None, default None
        None: exact thresholds (as scikit-learn). An int (e.g. 255): every
        feature is binned once into at most that many quantile bins.
    categorical_features : list or mask, optional
        As for the trees.
    validation_fraction : float in (0, 1), default 0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int or None, default None
        Stop when the validation loss has not improved by ``tol`` for this many rounds.
    tol : float, default 1e-4
        Improvement that counts for early stopping.
    verbose : int, default 0
        If > 0, report the training loss and the time left every ``verbose``
        rounds (a line on stdout, or a bar in a notebook). Silent by default.
"""


def _gb_doc(cls):
    cls.__doc__ = cls.__doc__.replace("    {gb_parameters}\n", _GB_PARAMS.lstrip("\n"))
    return cls


@_gb_doc
class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    """Gradient boosting of regression trees (Friedman's algorithm).

    Implements :eq:`eq-ch12-init` to :eq:`eq-ch12-update` (chapter 12) with
    the losses of :mod:`mltrees.losses`; with ``loss="squared_error"`` this
    is the residual-fitting boosting tree :eq:`eq-ch12-residual`.

    X may hold missing values (NaN, None): every split learns the side its
    missing values go to, XGBoost's default direction
    (:eq:`eq-default-direction`, chapter 6), in both modes (``max_bins``).

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "huber"}, default "squared_error"
        The loss; leaves take its mean, median or Huber step.
    {gb_parameters}
    alpha : float in (0, 1), default 0.9
        Huber loss: ``delta`` is the ``alpha``-quantile of the absolute residuals.

    Attributes
    ----------
    estimators_ : ndarray of CARTRegressor, one row per fitted round, one column
        The trees; their leaf values are the unshrunk leaf values of the loss.
    init_ : float
        The initial constant.
    train_score_ : ndarray
        Training (in-bag) loss after every round.
    oob_improvement_ : ndarray
        With ``subsample < 1``: decrease of the out-of-bag loss in every round.
    n_estimators_ : int
        Rounds actually fitted (fewer with early stopping).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import GradientBoostingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = GradientBoostingRegressor(n_estimators=50, max_depth=2).fit(X, y)
    >>> round(model.score(X, y), 3)
    0.632
    """

    _losses = ("squared_error", "absolute_error", "huber")

    def __init__(
        self,
        *,
        loss="squared_error",
        learning_rate=0.1,
        n_estimators=100,
        subsample=1.0,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_depth=3,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
        alpha=0.9,
        max_bins=None,
        categorical_features=None,
        validation_fraction=0.1,
        n_iter_no_change=None,
        tol=1e-4,
        verbose=0,
    ):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state
        self.alpha = alpha
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the boosted trees.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        sample_weight : array_like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        self._validate_params()
        X, y, weights = validate_fit_input(self, X, y, sample_weight)
        y = real_targets(y)
        loss = get_loss(self.loss)
        state = self._fit_boosting(X, y, weights, loss, 1, None)
        self._set_state(X, state, 1)
        self._loss = loss
        return self

    def predict(self, X: MatrixLike) -> np.ndarray:
        """``F_M(x)``: the initial constant plus the shrunk values of all trees."""
        return self._raw_predict(X)[:, 0]

    def staged_predict(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Predictions after each round (a generator)."""
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0]


@_gb_doc
class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    """Gradient boosting of regression trees for classification (log-loss).

    Two classes: one tree per round on the log-odds, leaves take the Newton
    step :eq:`eq-ch12-leaf-binomial`. K > 2 classes: K trees per round on
    the softmax scores, leaves take :eq:`eq-ch12-leaf-multinomial` (chapter 12).

    X may hold missing values (NaN, None): every split learns the side its
    missing values go to, XGBoost's default direction
    (:eq:`eq-default-direction`, chapter 6), in both modes (``max_bins``).

    Parameters
    ----------
    loss : {"log_loss"}, default "log_loss"
        Binomial or multinomial negative log-likelihood.
    {gb_parameters}

    Attributes
    ----------
    classes_ : ndarray
    estimators_ : ndarray of CARTRegressor, one row per round, 1 or K columns
    init_ : float or ndarray
        Initial raw score(s): log-odds of the class shares, or centred log shares.
    train_score_, oob_improvement_, n_estimators_
        As for :class:`GradientBoostingRegressor`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import GradientBoostingClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = GradientBoostingClassifier(n_estimators=50, max_depth=2).fit(X, y)
    >>> round(model.score(X, y), 3)
    0.996
    """

    _losses = ("log_loss",)

    def __init__(
        self,
        *,
        loss="log_loss",
        learning_rate=0.1,
        n_estimators=100,
        subsample=1.0,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_depth=3,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
        max_bins=None,
        categorical_features=None,
        validation_fraction=0.1,
        n_iter_no_change=None,
        tol=1e-4,
        verbose=0,
    ):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the boosted trees.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array_like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        self._validate_params()
        X, y, weights = validate_fit_input(self, X, y, sample_weight)
        classes, codes = class_codes(y)
        require_two_classes(classes.size, type(self).__name__, np.unique(codes[weights > 0]).size)
        loss = get_loss(self.loss, n_classes=classes.size)
        n_outputs = 1 if classes.size == 2 else classes.size
        state = self._fit_boosting(X, codes, weights, loss, n_outputs, codes)
        self._set_state(X, state, n_outputs)
        self.classes_ = classes
        self.n_classes_ = classes.size
        self._loss = loss
        return self

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Raw scores: log-odds of class 1 (shape (n,)) or one score per class (n, K)."""
        raw = self._raw_predict(X)
        return raw[:, 0] if self._n_outputs == 1 else raw

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities from the raw scores (logistic or softmax)."""
        raw = self.decision_function(X)  # checks that the model is fitted first
        return self._loss.predict_proba(raw)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The most probable class."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_decision_function(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Raw scores after each round (a generator)."""
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0] if self._n_outputs == 1 else raw

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Class probabilities after each round (a generator)."""
        for raw in self.staged_decision_function(X):
            yield self._loss.predict_proba(raw)

    def staged_predict(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Predicted classes after each round (a generator)."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]
