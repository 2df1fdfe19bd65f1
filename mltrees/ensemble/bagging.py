"""Bagging: many models fitted on bootstrap samples, averaged (chapter 9).

Breiman's bootstrap aggregating :cite:p:`breiman1996` fits each member
of the ensemble on ``n`` rows drawn *with replacement* from the training set
and averages their predictions (:eq:`eq-bagging-average`). A row drawn ``c``
times counts ``c`` times: here the draw becomes an integer weight per row
(rows drawn 0 times are left out), so one tree never copies a row.

When the members are ``mltrees`` trees, the data are binned **once** for the
whole ensemble (:func:`mltrees.tree._data.bin_features`) and every tree is
grown on the binned rows of its sample with the estimator's own
:class:`~mltrees.tree.builder.TreeBuilder`. Any other scikit-learn
estimator (k-NN, a linear model) is cloned and fitted on its resampled rows.

Reproducibility: each member's sample and feature draws come from its own
:class:`numpy.random.SeedSequence`, spawned from ``random_state``, so the
fitted ensemble does not depend on ``n_jobs``.

This module holds the estimators and the fit of tree members; the other
concerns live in modules named after them:

* :mod:`~mltrees.ensemble._sampling` -- bootstrap counts and member seeds;
* :mod:`~mltrees.ensemble._parallel` -- threads, order-independent sums, progress;
* :mod:`~mltrees.ensemble._out_of_bag` -- the out-of-bag prediction and score;
* :mod:`~mltrees.ensemble._warm_start` -- adding members to a fitted ensemble;
* :mod:`~mltrees.ensemble._generic_members` -- members that are not mltrees trees;
* :mod:`~mltrees.ensemble._tree_average` -- the average of the member trees at
  prediction (one stacked walk, or C4.5's weighted walk).
"""

from __future__ import annotations

import numbers
from typing import Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from mltrees._input_checks import record_fit_features
from mltrees._progress import check_verbose
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import check_bool, check_int
from mltrees.ensemble._common import prediction_values, select_rows, take_rows
from mltrees.ensemble._generic_members import _columns, fit_generic, generic_average
from mltrees.ensemble._out_of_bag import OutOfBag
from mltrees.ensemble._parallel import _n_workers, map_members, member_progress
from mltrees.ensemble._sampling import (
    _as_case_weights,
    bootstrap_counts,
    draw_counts,
    member_counts,
)
from mltrees.ensemble._tree_average import (
    build_stack,
    node_tables,
    tree_average,
    tree_output,
    walker_key,
)
from mltrees.ensemble._walk import _Thresholds
from mltrees.ensemble._warm_start import check_same_data, continued_seeds, ensemble_to_extend
from mltrees.tree._data import encode_features, validate_fit_input
from mltrees.tree._split import ClassificationStatistics
from mltrees.tree._tree import LEAF
from mltrees.tree.builder import TreeBuilder
from mltrees.tree.classes import (
    CARTClassifier,
    CARTRegressor,
)

__all__ = ["BaggingClassifier", "BaggingRegressor", "bootstrap_counts"]


def _subset_statistics(stats, rows: np.ndarray, weights: np.ndarray):
    """The same kind of sufficient statistics, restricted to ``rows`` with new weights."""
    if isinstance(stats, ClassificationStatistics):
        return ClassificationStatistics(stats.y[rows], weights, stats.n_classes, stats.criterion)
    return type(stats)(stats.y[rows], weights)


def _balanced(y_codes: np.ndarray, weights: np.ndarray, stats) -> np.ndarray:
    """Each row's "balanced" class weight ``W / (K W_k)`` from the classes' weighted totals.

    scikit-learn's forests (1.8 and later) weigh the class totals by the
    sample weights, so that a weight of 2 counts as a row twice. A class
    without weight has no row to weigh.
    """
    per_class = np.bincount(y_codes, weights=weights, minlength=stats.n_classes)
    factor = np.zeros(stats.n_classes)
    present = per_class > 0
    factor[present] = per_class.sum() / (stats.n_classes * per_class[present])
    return factor[y_codes]


class _BaseBagging(BaseEstimator):
    """Resampling, fitting and averaging shared by bagging and random forests.

    Subclasses provide ``_make_template()`` (the unfitted member) and
    ``_draw_features(rng, n_features)`` (a per-member feature subset or None).
    """

    _is_classifier = False

    # ------------------------------------------------------------ parameters
    def _validate_ensemble_params(self):
        check_int(self.n_estimators, "n_estimators")
        check_bool(self.bootstrap, "bootstrap")
        check_bool(self.oob_score, "oob_score")
        if self.oob_score and not self.bootstrap:
            raise ValueError("oob_score=True needs bootstrap=True: without it no row is out of bag")
        check_verbose(self.verbose)
        _n_workers(self.n_jobs)

    def _n_draws(self, n_samples: int) -> int:
        """Rows drawn per member, from ``max_samples``."""
        value = self.max_samples
        if value is None:
            return n_samples
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            if value < 1 or (not self.bootstrap and value > n_samples):
                bound = "" if self.bootstrap else f" and <= n_samples ({n_samples})"
                raise ValueError(f"max_samples as an int must be >= 1{bound}, got {value!r}")
            return int(value)
        if (
            isinstance(value, numbers.Real)
            and not isinstance(value, bool)
            and np.isfinite(value)
            and 0 < value <= 1
        ):
            return max(1, round(value * n_samples))
        raise ValueError(
            f"max_samples must be None, an int >= 1 or a float in (0, 1], got {value!r}"
        )

    def _draw_features(self, rng, n_features: int):
        return None

    # ------------------------------------------------------------------- fit
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit ``n_estimators`` members, each on its own resampled training set.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Features; pandas category/object/bool columns are categorical
            (for ``mltrees`` members).
        y : array_like of shape (n_samples,)
            Class labels or real targets.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights, rescaled to average 1 over the rows of
            positive weight, then multiplied by the bootstrap counts. A member
            that reads weights as case counts (C4.5's ``min_cases`` and
            pruning, as in J48) so sees as many cases as its sample holds.
            Scaling ``sample_weight`` by a power of two gives the same model
            bit for bit; any other constant factor rounds the rescaled weights
            differently, and gives the same trees (mltrees members) except
            where two candidate gains are within the tie tolerance of
            :mod:`mltrees.criteria` (ties go to the first candidate), and
            predictions equal to 1e-12 relative.

        Returns
        -------
        self
        """
        self._validate_ensemble_params()
        check_bool(self.warm_start, "warm_start")
        self._make_template()  # the members' parameters are checked before the data
        X, y, weights = validate_fit_input(self, X, y, sample_weight)
        template = self._make_template(n_samples=X.shape[0])
        weights = _as_case_weights(weights)
        previous, nothing_to_add = ensemble_to_extend(self, X)
        if nothing_to_add:
            return self
        if TreeBuilder.accepts(template):
            fitted = self._fit_binned(TreeBuilder(template), X, y, weights, previous)
        else:
            fitted = fit_generic(self, template, X, y, weights, sample_weight is not None, previous)
        record_fit_features(self, X)
        for name, value in fitted.items():
            setattr(self, name, value)
        if TreeBuilder.accepts(template):
            for member in self.estimators_:
                member.n_features_in_ = self.n_features_in_
                if hasattr(self, "feature_names_in_"):
                    member.feature_names_in_ = self.feature_names_in_
            # The stacked walk is built once here rather than on every
            # prediction: building it copies every node (~100 ms for 4.5M
            # nodes), which small batches would otherwise pay on each call.
            self._stack, self._stack_key = self._build_stack(), self._walker_key()
        return self

    def _fit_binned(self, builder, X, y, weights, previous=None) -> dict:
        """Members that are mltrees trees, grown on one binning of the data; the fitted attributes.

        ``previous`` is the fitted ensemble a warm start extends (or None).
        """
        template = builder.estimator
        # Bin once: every member reads the same integer codes.
        data = builder.training_data(X, y, weights, classifier=self._is_classifier)
        kept, X_kept, codes, specs = data.kept, data.X_kept, data.codes, data.specs
        attributes, stats = data.attributes, data.statistics
        if previous is not None:
            check_same_data(previous, binned=True, kept=kept, specs=specs, attributes=attributes)
        n_samples, n_features = codes.shape
        builder.features_per_node(template.max_features, n_features)  # fail before any tree
        n_draws = self._n_draws(n_samples)
        first, seeds = continued_seeds(self, previous)
        class_weight = getattr(self, "class_weight", None)
        balanced_subsample = class_weight == "balanced_subsample"
        if class_weight == "balanced":  # from the weighted class totals of all rows
            stats = _subset_statistics(
                stats, np.arange(len(stats.w)), stats.w * _balanced(stats.y, stats.w, stats)
            )
        oob = None
        if self.oob_score:
            # Out-of-bag rows are predicted from their raw values, as new data would be.
            values = encode_features(X_kept, specs)
            oob = OutOfBag(n_samples, attributes["n_classes_"] if self._is_classifier else 1)

            def add_out_of_bag(i, tree, counts):
                oob.add(i, counts, lambda out: tree_output(tree, values[out], builder.missing))

            for i, member in enumerate([] if previous is None else previous.estimators_):
                counts = member_counts(seeds[i], n_samples, n_draws, bootstrap=self.bootstrap)
                add_out_of_bag(i, member.tree_, counts)
        progress = member_progress(self.verbose, self.n_estimators - first, type(self).__name__)
        # In histogram mode every threshold is a bin edge: each tree's split
        # codes against the edges are stored now, and prediction walks on
        # the codes without building tables from the trees (StackedTrees).
        bins = _Thresholds.of_bins(specs)

        def sample(i):
            """Member ``i``'s generator, rows, weights and features, drawn in that order."""
            rng = np.random.default_rng(seeds[i])
            counts = draw_counts(rng, n_samples, n_draws, bootstrap=self.bootstrap)
            features = self._draw_features(rng, n_features)
            rows = np.flatnonzero(counts)
            tree_weights = stats.w[rows] * counts[rows]
            if balanced_subsample:  # class weights from this sample's weighted totals
                tree_weights = tree_weights * _balanced(stats.y[rows], tree_weights, stats)
            return rng, counts, features, rows, tree_weights

        def finish(i, tree, counts, features, member_specs, member_stats, rows):
            if builder.prunes_after_growth:  # C4.5: prune as the member's own fit would
                X_member = select_rows(X_kept, rows)
                if features is not None:
                    X_member = _columns(X_member, features)
                tree = builder.prune(tree, X_member, member_specs, member_stats)
            if features is not None:
                internal = tree.feature != LEAF
                mapped = features[np.where(internal, tree.feature, 0)]
                tree.feature = np.where(internal, mapped, LEAF)
            tree = tree.compact()  # int32 indices: a forest holds many trees
            if oob is not None:
                add_out_of_bag(i, tree, counts)
            progress.step()
            return tree, features, bins.split_codes_of(tree)

        def build(i, drawn=None):
            rng, counts, features, rows, tree_weights = sample(i) if drawn is None else drawn
            member_stats = _subset_statistics(stats, rows, tree_weights)
            if features is None:
                member_codes, member_specs = take_rows(codes, rows), specs
            else:
                member_codes = take_rows(codes[:, features], rows)
                member_specs = [specs[j] for j in features]
            tree = builder.grow(
                member_codes, member_specs, member_stats, float(tree_weights.sum()), rng
            )
            return finish(i, tree, counts, features, member_specs, member_stats, rows)

        def build_together(members):
            """Members grown level by level together (small data): one search per level."""
            drawn = [sample(i) for i in members]
            if any(features is not None for _, _, features, _, _ in drawn):
                return [build(i, d) for i, d in zip(members, drawn, strict=True)]
            rows = np.concatenate([d[3] for d in drawn])
            root_of_row = np.repeat(np.arange(len(members)), [d[3].size for d in drawn])
            together_stats = _subset_statistics(stats, rows, np.concatenate([d[4] for d in drawn]))
            trees = builder.grow_together(
                take_rows(codes, rows), specs, together_stats, root_of_row, [d[0] for d in drawn]
            )
            return [
                finish(i, tree, d[1], None, specs, None, d[3])
                for i, tree, d in zip(members, trees, drawn, strict=True)
            ]

        n_new = self.n_estimators - first
        with progress:
            batch = _members_per_batch(n_samples, n_draws) if builder.grows_together else 1
            # At least one batch per thread, so that n_jobs threads all have trees to grow.
            batch = min(batch, -(-n_new // _n_workers(self.n_jobs)))
            if batch > 1:
                batches = [
                    range(first + b, first + min(b + batch, n_new)) for b in range(0, n_new, batch)
                ]
                grown = map_members(lambda b: build_together(batches[b]), len(batches), self.n_jobs)
                results = [result for part in grown for result in part]
            else:
                results = map_members(lambda j: build(first + j), n_new, self.n_jobs)
        members = [] if previous is None else list(previous.estimators_)
        for tree, _, split_codes in results:
            # A shallow copy of the template, not a clone: clone inspects the
            # signature, a fifth of a small forest's fit time for 100 members.
            members.append(
                builder.fitted(tree, specs, attributes, split_codes=split_codes, fast=True)
            )
        fitted = dict(attributes)
        fitted.update(
            estimator_=template,
            estimators_=members,
            estimators_features_=(
                ([] if previous is None else list(previous.estimators_features_))
                + [np.arange(n_features) if f is None else f for _, f, _ in results]
            ),
            _specs=specs,
            _binned=True,
            _sampling=(seeds, kept, n_draws, None),
        )
        if oob is not None:
            fitted.update(oob.attributes(y[kept], attributes.get("classes_")))
        return fitted

    # --------------------------------------------------------------- predict
    def _average(self, X) -> np.ndarray:
        """Mean over members of their outputs, shape (n_samples, n_columns)."""
        check_is_fitted(self, "estimators_")
        return tree_average(self, X) if self._binned else generic_average(self, X)

    def _walker_key(self) -> tuple:
        """What the stored walk was built from (:func:`_tree_average.walker_key`)."""
        return walker_key(self)

    def _build_stack(self, n_rows=None):
        """The members' trees stacked for one walk (:func:`_tree_average.build_stack`)."""
        return build_stack(self, n_rows)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            template = self._make_template()
        except (AttributeError, TypeError, ValueError):  # bad or missing parameters: fit says so
            return tags
        tags.input_tags.allow_nan = get_tags(template).input_tags.allow_nan
        return tags

    @property
    def estimators_samples_(self) -> list[np.ndarray]:
        """Training rows drawn for each member (with repeats), as in scikit-learn.

        Recomputed from the members' seeds rather than stored, so a fitted
        ensemble holds no per-member index arrays. Out-of-bag rows of member
        ``t`` are the rows that do not appear in ``estimators_samples_[t]``.
        """
        check_is_fitted(self, "estimators_")
        seeds, kept, n_draws, probabilities = self._sampling
        return [
            np.repeat(
                kept,
                member_counts(
                    seed, kept.size, n_draws, bootstrap=self.bootstrap, probabilities=probabilities
                ),
            )
            for seed in seeds
        ]

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean decrease in impurity, averaged over the trees (:eq:`eq-mdi`, chapter 10).

        Each tree's importances are normalised to sum to 1, the trees'
        vectors are averaged (trees that are a single leaf are left out), and
        the average is normalised again, as scikit-learn does.
        """
        check_is_fitted(self, "estimators_")
        if not self._binned:
            raise AttributeError(
                "feature_importances_ is available only when the members are mltrees trees"
            )
        per_tree = [
            member.tree_.compute_feature_importances(self.n_features_in_)
            for member in self.estimators_
            if member.tree_.node_count > 1
        ]
        if not per_tree:
            return np.zeros(self.n_features_in_)
        mean = np.mean(per_tree, axis=0)
        return mean / mean.sum()

    def _view_parts(self):
        """The members' trees and the encoder of the rows they read (for the explainers' view)."""
        check_is_fitted(self, "estimators_")
        if not self._binned:
            raise TypeError(
                f"{type(self).__name__} holds members that are not mltrees trees; TreeSHAP "
                "needs the members' trees"
            )
        missing = TreeBuilder(self.estimator_).missing

        def encode(X):
            values, check = prediction_values(
                self, X, "estimators_", allow_missing=missing != "error"
            )
            check(values)
            return values

        return [member.tree_ for member in self.estimators_], encode

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_stack", "_stack_key")

    # Out-of-bag estimates are NaN for rows that every member drew.
    _non_finite_attributes = ("oob_decision_function_", "oob_prediction_", "oob_score_")

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_bagging

        _rebuild_bagging(self)

    def _drawable_tree(self, tree_index):
        """Member ``tree_index`` (an mltrees tree), as ``plot_tree`` and ``to_dot`` draw it."""
        from mltrees.tree._drawable import member_drawable

        return member_drawable(self, tree_index, TreeBuilder.accepts)

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model (its input, comparisons, link)."""
        from sklearn.base import is_classifier

        from mltrees.io.onnx_export import codes_plan, foreign_members_error
        from mltrees.tree.view import view_of

        if not getattr(self, "_binned", True):
            raise foreign_members_error(self)
        view = view_of(self)
        classifier = is_classifier(self)
        classes = np.asarray(self.classes_) if classifier else None
        missing = TreeBuilder(self.estimator_).missing
        link = "proba" if classifier else "identity"
        return codes_plan(self, view, self._specs, missing, link, classes)


class _ClassifierEnsemble(ClassifierMixin, _BaseBagging):
    _is_classifier = True

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities averaged over the members (:eq:`eq-bagging-vote`, chapter 9).

        Soft voting averages each member's class distribution; with
        ``voting="hard"`` (bagging only) each member casts one vote and the
        result is the share of votes per class.
        """
        return self._average(X)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The class with the largest averaged probability; ties go to the first class."""
        probabilities = self.predict_proba(X)  # checks that the model is fitted first
        return self.classes_[np.argmax(probabilities, axis=1)]

    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        """Logarithm of :meth:`predict_proba` (``-inf`` for probability 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _tree_model_view(self):
        """The ensemble as a :class:`~mltrees.tree.view.TreeModelView` of mean ``predict_proba``."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        trees, encode = self._view_parts()
        M, K = len(trees), len(self.classes_)
        return TreeModelView(
            trees=trees,
            tables=[table / M for table in node_tables(self)],
            columns=[np.arange(K)] * M,
            n_outputs=K,
            base=np.zeros(K),
            encode=encode,
            output=self.predict_proba,
            feature_names=feature_names_of(self),
            output_name="predict_proba (one column per class)",
            mixes_linearly=getattr(self, "voting", "soft") != "hard",
        )


class _RegressorEnsemble(RegressorMixin, _BaseBagging):
    def predict(self, X: MatrixLike) -> np.ndarray:
        """Mean of the members' predictions (:eq:`eq-bagging-average`, chapter 9)."""
        return self._average(X)[:, 0]

    def _tree_model_view(self):
        """The ensemble as a :class:`~mltrees.tree.view.TreeModelView`: ``predict`` as a mean."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        trees, encode = self._view_parts()
        M = len(trees)
        return TreeModelView(
            trees=trees,
            tables=[table[:, :1] / M for table in node_tables(self)],
            columns=[np.zeros(1, dtype=np.intp)] * M,
            n_outputs=1,
            base=np.zeros(1),
            encode=encode,
            output=lambda X: self.predict(X)[:, None],
            feature_names=feature_names_of(self),
            output_name="predict",
            squeeze=True,
        )


# Members grown together hold at most this many (member, row) pairs at once:
# small data gain from one search per level for many trees; at a million rows
# a batch is one tree, grown alone as before (same memory).
TOGETHER_ROWS = 1 << 18


def _members_per_batch(n_samples: int, n_draws: int) -> int:
    """Members grown together per batch: as many as fit in :data:`TOGETHER_ROWS` rows."""
    return max(1, TOGETHER_ROWS // max(1, min(n_samples, n_draws)))


def _check_bagging_features(value, n_features: int, name: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if 1 <= value <= n_features:
            return int(value)
    elif (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and np.isfinite(value)
        and 0 < value <= 1
    ):
        return max(1, int(value * n_features))
    raise ValueError(
        f"{name} must be an int in [1, n_features] or a float in (0, 1], got {value!r}"
    )


class _BaggingMixin:
    """Bagging's own parameters: the member estimator and per-member feature subsets."""

    def _make_template(self, n_samples=None):
        if self.estimator is None:
            return self._default_estimator()
        if not hasattr(self.estimator, "fit"):
            raise ValueError(f"estimator must be an estimator with fit, got {self.estimator!r}")
        template = clone(self.estimator)
        if self._is_classifier and TreeBuilder.accepts(template) and not is_classifier(template):
            raise ValueError(f"{type(self).__name__} needs a classifier as estimator")
        check_bool(self.bootstrap_features, "bootstrap_features")
        return template

    def _draw_features(self, rng, n_features: int):
        k = _check_bagging_features(self.max_features, n_features, "max_features")
        if k == n_features and not self.bootstrap_features:
            return None
        if self.bootstrap_features:
            return np.unique(rng.integers(0, n_features, k))
        return np.sort(rng.choice(n_features, k, replace=False))


_BAGGING_PARAMS = """
    n_estimators : int, default 10
        Number of members.
    max_samples : None, int or float, default None
        Rows drawn per member: all ``n`` (None), an int, or a fraction of ``n``.
    max_features : int or float, default 1.0
        Features given to each member (drawn once per member, unlike a
        random forest's draw at every node).
    bootstrap : bool, default True
        Draw rows with replacement (the bootstrap); False draws without.
    bootstrap_features : bool, default False
        Draw the member's features with replacement.
    oob_score : bool, default False
        Compute the out-of-bag prediction and score.
    n_jobs : int or None, default None
        Threads that fit (and predict with) members in parallel; -1 for all
        cores. The fitted model does not depend on it.
    random_state : int, RandomState, Generator or None, default None
        Root of the per-member seeds.
    verbose : int, default 0
        1: a progress line every tenth of the members; 2: every member (see
        :mod:`mltrees._progress`: stdout, or a bar in a notebook).
    warm_start : bool, default False
        True: a later ``fit`` with a larger ``n_estimators`` keeps the fitted
        members and adds the missing ones, on the same data (other data raise a
        ValueError). With an int ``random_state`` the result equals one fit
        of all of them.
"""


class BaggingClassifier(_BaggingMixin, _ClassifierEnsemble):
    """Bagging classifier: members fitted on bootstrap samples, votes averaged.

    Implements :eq:`eq-bagging-vote` (chapter 9), Breiman's bagging
    :cite:p:`breiman1996`.

    Parameters
    ----------
    estimator : estimator or None, default None
        The member; None means :class:`mltrees.CARTClassifier` (a fully grown
        tree, which routes missing values with its learned default direction).
        Any ``mltrees`` tree is grown on data binned once for the ensemble;
        any other scikit-learn classifier is fitted on its rows. NaN is
        accepted when the member accepts it, as in scikit-learn.
    {bagging_parameters}
    voting : {{"soft", "hard"}}, default "soft"
        Average the members' class probabilities, or count one vote each.

    Attributes
    ----------
    estimators_ : list of fitted estimators
    estimators_features_ : list of ndarray
        The features of each member.
    classes_ : ndarray
    oob_score_, oob_decision_function_ : float, ndarray
        With ``oob_score=True``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import BaggingClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> bagging = BaggingClassifier(n_estimators=20, oob_score=True, random_state=0).fit(X, y)
    >>> round(bagging.oob_score_, 3)
    0.946
    """

    def __init__(
        self,
        estimator=None,
        n_estimators=10,
        *,
        max_samples=None,
        max_features=1.0,
        bootstrap=True,
        bootstrap_features=False,
        oob_score=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
        voting="soft",
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.voting = voting

    def _default_estimator(self):
        return CARTClassifier()

    def _validate_ensemble_params(self):
        super()._validate_ensemble_params()
        if self.voting not in ("soft", "hard"):
            raise ValueError(f"voting must be 'soft' or 'hard', got {self.voting!r}")


class BaggingRegressor(_BaggingMixin, _RegressorEnsemble):
    """Bagging regressor: members fitted on bootstrap samples, predictions averaged.

    Implements :eq:`eq-bagging-average` (chapter 9), Breiman's bagging
    :cite:p:`breiman1996`.

    Parameters
    ----------
    estimator : estimator or None, default None
        The member; None means :class:`mltrees.CARTRegressor`. Any ``mltrees``
        tree is grown on data binned once; any other scikit-learn regressor
        is fitted on its rows. NaN is accepted when the member accepts it
        (the default member does), as in scikit-learn.
    {bagging_parameters}

    Attributes
    ----------
    estimators_ : list of fitted estimators
    estimators_features_ : list of ndarray
    oob_score_, oob_prediction_ : float, ndarray
        With ``oob_score=True`` (the score is R²).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import BaggingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> bagging = BaggingRegressor(n_estimators=20, oob_score=True, random_state=0).fit(X, y)
    >>> round(bagging.oob_score_, 3)
    0.366
    """

    def __init__(
        self,
        estimator=None,
        n_estimators=10,
        *,
        max_samples=None,
        max_features=1.0,
        bootstrap=True,
        bootstrap_features=False,
        oob_score=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start

    def _default_estimator(self):
        return CARTRegressor()


for _cls in (BaggingClassifier, BaggingRegressor):
    _cls.__doc__ = (
        _cls.__doc__.replace("    {bagging_parameters}\n", _BAGGING_PARAMS.lstrip("\n"))
        .replace("{{", "{")
        .replace("}}", "}")
    )
