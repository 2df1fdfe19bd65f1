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
"""

from __future__ import annotations

import numbers
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from mltrees._progress import Progress, check_verbose
from mltrees._validation import check_bool
from mltrees.ensemble._common import (
    StackedTrees,
    _Thresholds,
    class_codes,
    prediction_values,
    real_targets,
    select_rows,
    take_rows,
    threads_for_rows,
)
from mltrees.ensemble._parallel import _n_workers, _OrderedSum
from mltrees.ensemble._sampling import (
    _as_case_weights,
    _member_seeds,
    bootstrap_counts,
)
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


def _progress(verbose, total: int, name: str) -> Progress:
    """Members' progress: 1, a line every tenth of them; 2 or more, every member."""
    every = 1 if verbose > 1 else max(1, total // 10)
    return Progress(verbose, total, name, unit="member", every=every)


def _compact(tree):
    """Store a grown tree's integer arrays as int32 rather than int64.

    A forest holds many trees; this cuts their memory by about a third.
    """
    for name in (
        "feature",
        "first_child",
        "n_children",
        "route_offset",
        "n_categories",
        "n_node_samples",
        "depth",
        "parent",
    ):
        array = getattr(tree, name)
        if array.dtype.itemsize > 4 and (array.size == 0 or abs(array).max() < 2**31 - 1):
            setattr(tree, name, array.astype(np.int32))
    return tree


class _BaseBagging(BaseEstimator):
    """Resampling, fitting and averaging shared by bagging and random forests.

    Subclasses provide ``_make_template()`` (the unfitted member) and
    ``_draw_features(rng, n_features)`` (a per-member feature subset or None).
    """

    _is_classifier = False

    # ------------------------------------------------------------ parameters
    def _validate_ensemble_params(self):
        n_estimators = self.n_estimators
        if (
            isinstance(n_estimators, bool)
            or not isinstance(n_estimators, numbers.Integral)
            or n_estimators < 1
        ):
            raise ValueError(f"n_estimators must be an int >= 1, got {n_estimators!r}")
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

    def _draw_rows(self, rng, n_samples: int, n_draws: int) -> np.ndarray:
        """Per-row counts of one member's sample (bootstrap or subsample)."""
        if self.bootstrap:
            return bootstrap_counts(rng, n_samples, n_draws)
        counts = np.zeros(n_samples, dtype=np.intp)
        counts[rng.choice(n_samples, n_draws, replace=False)] = 1
        return counts

    # ------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
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
            positive weight (only their ratios matter), then multiplied by the
            bootstrap counts. A member that reads weights as case counts
            (C4.5's ``min_cases`` and pruning, as in J48) so sees as many
            cases as its sample holds.

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
        previous = None
        if self.warm_start and hasattr(self, "estimators_"):
            n_fitted = len(self.estimators_)
            if self.n_estimators < n_fitted:
                raise ValueError(
                    f"n_estimators={self.n_estimators} must be >= len(estimators_)={n_fitted} "
                    "when warm_start=True (members are only added)"
                )
            if self.n_estimators == n_fitted:
                warnings.warn(
                    "warm_start=True without a larger n_estimators fits no new member",
                    UserWarning,
                    stacklevel=2,
                )
                return self
            validate_data(self, X, reset=False, skip_check_array=True)  # same features
            previous = self
        if TreeBuilder.accepts(template):
            fitted = self._fit_binned(TreeBuilder(template), X, y, weights, previous)
        else:
            fitted = self._fit_generic(template, X, y, weights, sample_weight is not None, previous)
        validate_data(self, X, reset=True, skip_check_array=True)
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

    def _map(self, function, n_items: int):
        """``[function(i) for i in range(n_items)]`` on ``n_jobs`` threads."""
        workers = min(_n_workers(self.n_jobs), n_items)
        if workers <= 1:
            return [function(i) for i in range(n_items)]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(function, range(n_items)))

    def _fit_binned(self, builder, X, y, weights, previous=None) -> dict:
        template = builder.estimator
        # Bin once: every member reads the same integer codes.
        data = builder.training_data(X, y, weights, classifier=self._is_classifier)
        kept, X_kept, codes, specs = data.kept, data.X_kept, data.codes, data.specs
        attributes, stats = data.attributes, data.statistics
        if previous is not None:
            previous._check_warm_start(binned=True, kept=kept, specs=specs, attributes=attributes)
        n_samples, n_features = codes.shape
        builder.features_per_node(template.max_features, n_features)  # fail before any tree
        n_draws = self._n_draws(n_samples)
        first = 0 if previous is None else len(previous.estimators_)
        seeds = _member_seeds(self.random_state, first, self.n_estimators)
        if previous is not None:
            seeds = previous._sampling[0] + seeds
        balanced_subsample = getattr(self, "class_weight", None) == "balanced_subsample"
        oob = self.oob_score
        if oob:
            # Out-of-bag rows are predicted from their raw values, as new data would be.
            values = encode_features(X_kept, specs)
            width = attributes["n_classes_"] if self._is_classifier else 1
            oob_sums = _OrderedSum(n_samples, width)
            for i, member in enumerate([] if previous is None else previous.estimators_):
                out = np.flatnonzero(self._member_counts(seeds[i], n_samples, n_draws) == 0)
                oob_sums.add(i, out, self._tree_output(member.tree_, values[out], builder.missing))
        progress = _progress(self.verbose, self.n_estimators - first, type(self).__name__)
        # In histogram mode every threshold is a bin edge: each tree's split
        # codes against the edges are stored now, and prediction walks on
        # the codes without building tables from the trees (StackedTrees).
        bins = _Thresholds.of_bins(specs)

        def build(i):
            rng = np.random.default_rng(seeds[i])
            counts = self._draw_rows(rng, n_samples, n_draws)
            features = self._draw_features(rng, n_features)
            rows = np.flatnonzero(counts)
            tree_weights = stats.w[rows] * counts[rows]
            if balanced_subsample:
                # sklearn's "balanced_subsample": class weights from this sample's counts.
                k = stats.n_classes
                per_class = np.bincount(stats.y[rows], weights=counts[rows], minlength=k)
                factor = counts.sum() / (k * np.maximum(per_class, 1))
                tree_weights = tree_weights * factor[stats.y[rows]]
            member_stats = _subset_statistics(stats, rows, tree_weights)
            if features is None:
                member_codes, member_specs = take_rows(codes, rows), specs
            else:
                member_codes = take_rows(codes[:, features], rows)
                member_specs = [specs[j] for j in features]
            tree = builder.grow(
                member_codes, member_specs, member_stats, float(tree_weights.sum()), rng
            )
            if builder.prunes_after_growth:  # C4.5: prune as the member's own fit would
                X_member = select_rows(X_kept, rows)
                if features is not None:
                    X_member = _columns(X_member, features)
                tree = builder.prune(tree, X_member, member_specs, member_stats)
            if features is not None:
                internal = tree.feature != LEAF
                tree.feature[internal] = features[tree.feature[internal]]
            tree = _compact(tree)
            if oob:
                out = np.flatnonzero(counts == 0)
                oob_sums.add(i, out, self._tree_output(tree, values[out], builder.missing))
            progress.step()
            return tree, features, bins.split_codes_of(tree)

        with progress:
            results = self._map(lambda j: build(first + j), self.n_estimators - first)
        members = [] if previous is None else list(previous.estimators_)
        for tree, _, split_codes in results:
            members.append(builder.fitted(tree, specs, attributes, split_codes=split_codes))
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
        if oob:
            fitted.update(self._oob_attributes(oob_sums.total, oob_sums.count, y[kept], attributes))
        return fitted

    @staticmethod
    def _tree_output(tree, values, missing: str) -> np.ndarray:
        """A member tree's node values for ``values`` (mixed over branches with C4.5)."""
        if missing == "c45":  # a row may end in several leaves
            return _mixed_values(tree, tree.value, values, n_threads=1)
        return tree.value[tree.apply(values, n_threads=1)]

    def _member_counts(self, seed, n_samples: int, n_draws: int, probabilities=None):
        """How often member ``seed`` drew each row: the first draw of its generator."""
        return self._draw_counts(np.random.default_rng(seed), n_samples, n_draws, probabilities)

    def _draw_counts(self, rng, n_samples: int, n_draws: int, probabilities=None):
        """Draw a member's rows: counts per row (a weighted bootstrap given ``probabilities``)."""
        if probabilities is None:
            return self._draw_rows(rng, n_samples, n_draws)
        drawn = rng.choice(n_samples, n_draws, replace=True, p=probabilities)
        return np.bincount(drawn, minlength=n_samples)

    def _check_warm_start(self, *, binned: bool, kept, attributes, specs=None) -> None:
        """A warm start adds members for the data of the first fit: refuse other data.

        The new members must read the same binning (the old trees' thresholds
        and category codes refer to it), the same rows and the same classes,
        or the out-of-bag estimate and the average would mix two problems.
        """
        same = binned == self._binned and np.array_equal(kept, self._sampling[1])
        if same and binned:
            same = len(specs) == len(self._specs) and all(
                a.kind == b.kind
                and a.exact == b.exact
                and a.values.shape == b.values.shape
                and bool((a.values == b.values).all())
                for a, b in zip(specs, self._specs, strict=True)
            )
        for name, value in attributes.items():
            same = same and np.array_equal(value, getattr(self, name))
        if not same:
            raise ValueError(
                "warm_start=True adds members fitted on the data of the first fit, but X, y "
                "or sample_weight differ from it (other rows, bins or classes); fit with "
                "warm_start=False to start over"
            )

    def _oob_attributes(self, oob_sum, oob_count, y, attributes) -> dict:
        """Out-of-bag prediction and score (:eq:`eq-oob-error`, chapter 9)."""
        covered = oob_count > 0
        if not covered.all():
            warnings.warn(
                f"{int((~covered).sum())} sample(s) were in the bag of every estimator and "
                "have no out-of-bag prediction (NaN); the OOB score ignores them. "
                "Use more estimators.",
                UserWarning,
                stacklevel=4,
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            average = oob_sum / oob_count[:, None]
        if self._is_classifier:
            classes = attributes["classes_"]
            predicted = classes[np.argmax(average[covered], axis=1)]
            score = accuracy_score(y[covered], predicted) if covered.any() else np.nan
            return {"oob_decision_function_": average, "oob_score_": float(score)}
        prediction = average[:, 0]
        score = r2_score(y[covered], prediction[covered]) if covered.sum() > 1 else np.nan
        return {"oob_prediction_": prediction, "oob_score_": float(score)}

    def _fit_generic(self, template, X, y, weights, weighted: bool, previous=None) -> dict:
        """Members that are not mltrees trees: clone and fit each on its resampled rows."""
        if self._is_classifier:
            classes, y_fit = class_codes(y)
            attributes = {"classes_": classes, "n_classes_": len(classes)}
        else:
            y_fit = real_targets(y)
            attributes = {}
        supports_weight = has_fit_parameter(template, "sample_weight")
        draw_by_weight = weighted and not supports_weight
        if draw_by_weight and not self.bootstrap:
            raise ValueError(
                f"{type(template).__name__} does not accept sample_weight; with bootstrap=True "
                "the ensemble honours the weights by drawing rows in proportion to them"
            )
        probabilities = weights / weights.sum() if draw_by_weight else None
        n_samples, n_features = X.shape
        if previous is not None:
            previous._check_warm_start(
                binned=False, kept=np.arange(n_samples), attributes=attributes
            )
        n_draws = self._n_draws(n_samples)
        first = 0 if previous is None else len(previous.estimators_)
        seeds = _member_seeds(self.random_state, first, self.n_estimators)
        if previous is not None:
            seeds = previous._sampling[0] + seeds
        progress = _progress(self.verbose, self.n_estimators - first, type(self).__name__)
        oob = self.oob_score
        width = len(attributes.get("classes_", [0]))
        oob_sums = _OrderedSum(n_samples, width) if oob else None

        def out_of_bag(i, member, counts, columns):
            out = np.flatnonzero(counts == 0)
            X_out = _columns(select_rows(X, out), columns)
            contribution = (
                self._member_output(member, X_out, width) if out.size else np.zeros((0, width))
            )
            oob_sums.add(i, out, contribution)

        if oob and previous is not None:
            members = zip(previous.estimators_, previous.estimators_features_, strict=True)
            for i, (member, columns) in enumerate(members):
                counts = self._member_counts(seeds[i], n_samples, n_draws, probabilities)
                out_of_bag(i, member, counts, columns)

        def build(i):
            rng = np.random.default_rng(seeds[i])
            # Rows first, then features, on the member's own generator (a
            # weighted bootstrap when the member cannot weight rows).
            counts = self._draw_counts(rng, n_samples, n_draws, probabilities)
            features = self._draw_features(rng, n_features)
            columns = np.arange(n_features) if features is None else features
            member = clone(template)
            if supports_weight:
                rows = np.flatnonzero(counts)
                fit_weight = weights[rows] * counts[rows]
            else:  # the estimator cannot weight rows: repeat them instead
                rows = np.repeat(np.arange(n_samples), counts)
                fit_weight = None
            X_member = _columns(select_rows(X, rows), columns)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # e.g. feature-name warnings
                if fit_weight is None:
                    member.fit(X_member, y_fit[rows])
                else:
                    member.fit(X_member, y_fit[rows], sample_weight=fit_weight)
            if oob:
                out_of_bag(i, member, counts, columns)
            progress.step()
            return member, columns

        with progress:
            results = self._map(lambda j: build(first + j), self.n_estimators - first)
        old_members = [] if previous is None else list(previous.estimators_)
        old_features = [] if previous is None else list(previous.estimators_features_)
        fitted = dict(attributes)
        fitted.update(
            estimator_=template,
            estimators_=old_members + [m for m, _ in results],
            estimators_features_=old_features + [c for _, c in results],
            _binned=False,
            _sampling=(seeds, np.arange(n_samples), n_draws, probabilities),
        )
        if oob:
            fitted.update(self._oob_attributes(oob_sums.total, oob_sums.count, y, attributes))
        return fitted

    # --------------------------------------------------------------- predict
    def _member_output(self, member, X_member, width: int) -> np.ndarray:
        """One generic member's contribution, shape (n_rows, width): its predictions."""
        return np.asarray(member.predict(X_member), dtype=np.float64)[:, None]

    def _node_tables(self) -> list[np.ndarray]:
        """What each node of each tree contributes to the average."""
        return [member.tree_.value for member in self.estimators_]

    def _average(self, X) -> np.ndarray:
        """Mean over members of their outputs, shape (n_samples, n_columns)."""
        check_is_fitted(self, "estimators_")
        if not self._binned:
            X = _generic_input(self, X)
            width = len(self.classes_) if self._is_classifier else 1
            total = None
            for member, columns in zip(self.estimators_, self.estimators_features_, strict=True):
                part = self._member_output(member, _columns(X, columns), width)
                total = part if total is None else total + part
            return total / len(self.estimators_)
        missing = TreeBuilder(self.estimator_).missing
        values, check = prediction_values(self, X, "estimators_", allow_missing=missing != "error")
        trees = [member.tree_ for member in self.estimators_]
        if missing == "c45" and np.isnan(values).any():
            # C4.5's method sends a row down every branch of a node whose value
            # it misses: tree by tree, with the weighted walk (chapter 6).
            # Rows without missing values get the same sums as the walk below.
            tables = self._node_tables()
            total = np.zeros((values.shape[0], tables[0].shape[1]))
            for tree, table in zip(trees, tables, strict=True):
                total += self._member_mix(tree, table, values, check)
            return total / len(trees)
        # One walk for all trees (categorical nodes included); the sum runs in
        # member order, so the average does not depend on n_jobs.
        stored = getattr(self, "_stack_key", None) == self._walker_key()
        forest = self._stack if stored else None
        if forest is None:  # members or voting changed since fit: a walk for this call
            forest = self._build_stack(n_rows=values.shape[0])
        n_threads = threads_for_rows(values.shape[0], _n_workers(self.n_jobs))
        total = forest.predict(values, check, n_threads=n_threads)
        return total / len(trees)

    def _walker_key(self) -> tuple:
        """What the stored walk was built from: the member trees (by identity) and the voting."""
        trees = tuple(_Identity(member.tree_) for member in self.estimators_)
        return trees, getattr(self, "voting", None)

    def _build_stack(self, n_rows=None) -> StackedTrees:
        """The members' trees stacked for one walk (:class:`StackedTrees`), with stored codes."""
        trees = [member.tree_ for member in self.estimators_]
        return StackedTrees(trees, self._node_tables(), n_rows=n_rows, **self._stored_codes(trees))

    def _member_mix(self, tree, table, values, check) -> np.ndarray:
        """A C4.5 member's contribution: its node table mixed over the row's end nodes."""
        return _mixed_values(
            tree, table, values, n_threads=_n_workers(self.n_jobs), check_block=check
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            template = self._make_template()
        except (AttributeError, TypeError, ValueError):  # bad or missing parameters: fit says so
            return tags
        tags.input_tags.allow_nan = get_tags(template).input_tags.allow_nan
        return tags

    def _stored_codes(self, trees) -> dict:
        """The split codes stored at fit (histogram mode), as ``StackedTrees`` arguments.

        A member's codes are used only while it still holds the tree and the
        bins they were computed for: a member taken from another ensemble
        (other bin edges) or whose tree was replaced walks on floats.
        """
        codes = [
            TreeBuilder.split_codes(member)
            if TreeBuilder.split_codes(member) is not None
            and TreeBuilder.specs(member) is self._specs
            and TreeBuilder.split_codes(member).shape == (tree.node_count,)
            else None
            for member, tree in zip(self.estimators_, trees, strict=True)
        ]
        if all(c is None for c in codes):
            return {}
        return {"thresholds": _Thresholds.of_bins(self._specs), "split_codes": codes}

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
            np.repeat(kept, self._member_counts(seed, kept.size, n_draws, probabilities))
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


class _Identity:
    """Compares as equal only to a wrapper of the very same object (``is``, not ``==``)."""

    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item

    def __eq__(self, other) -> bool:
        return isinstance(other, _Identity) and other.item is self.item

    def __hash__(self) -> int:
        return id(self.item)


def _mixed_values(tree, table, values, *, n_threads=None, check_block=None) -> np.ndarray:
    """Per row, ``table`` mixed over the row's end nodes with their weights (:eq:`eq-c45-predict`).

    A row that meets no missing value ends in one node with weight 1 and
    gets that node's row of ``table`` exactly.
    """
    sample, node, weight = tree.apply_weighted(values, n_threads=n_threads, check_block=check_block)
    n_rows = values.shape[0]
    out = np.empty((n_rows, table.shape[1]))
    for k in range(table.shape[1]):
        out[:, k] = np.bincount(sample, weights=weight * table[node, k], minlength=n_rows)
    return out


def _columns(X, columns):
    if isinstance(X, pd.DataFrame):
        return X.iloc[:, columns]
    return X[:, columns]


def _generic_input(estimator, X):
    from mltrees.tree._data import as_table

    X = as_table(X)
    validate_data(estimator, X, reset=False, skip_check_array=True)
    return X


class _ClassifierEnsemble(ClassifierMixin, _BaseBagging):
    _is_classifier = True

    def _member_output(self, member, X_member, width: int) -> np.ndarray:
        """Class probabilities (or one-hot votes) of a member fitted on class codes."""
        out = np.zeros((X_member.shape[0], width))
        if getattr(self, "voting", "soft") == "hard" or not hasattr(member, "predict_proba"):
            predicted = np.asarray(member.predict(X_member)).astype(np.intp)
            out[np.arange(out.shape[0]), predicted] = 1.0
        else:
            # A member that never saw a class still yields a full-width vector.
            out[:, np.asarray(member.classes_, dtype=np.intp)] = member.predict_proba(X_member)
        return out

    def _member_mix(self, tree, table, values, check) -> np.ndarray:
        if getattr(self, "voting", "soft") != "hard":
            return super()._member_mix(tree, table, values, check)
        # A hard vote goes to the class of the member's own (mixed) prediction.
        mixed = super()._member_mix(tree, tree.value, values, check)
        return np.eye(len(self.classes_))[np.argmax(mixed, axis=1)]

    def _node_tables(self) -> list[np.ndarray]:
        tables = [member.tree_.value for member in self.estimators_]
        if getattr(self, "voting", "soft") != "hard":
            return tables
        eye = np.eye(len(self.classes_))
        return [eye[np.argmax(table, axis=1)] for table in tables]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities averaged over the members (:eq:`eq-bagging-vote`, chapter 9).

        Soft voting averages each member's class distribution; with
        ``voting="hard"`` (bagging only) each member casts one vote and the
        result is the share of votes per class.
        """
        return self._average(X)

    def predict(self, X) -> np.ndarray:
        """The class with the largest averaged probability; ties go to the first class."""
        probabilities = self.predict_proba(X)  # checks that the model is fitted first
        return self.classes_[np.argmax(probabilities, axis=1)]

    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba` (``-inf`` for probability 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class _RegressorEnsemble(RegressorMixin, _BaseBagging):
    def predict(self, X) -> np.ndarray:
        """Mean of the members' predictions (:eq:`eq-bagging-average`, chapter 9)."""
        return self._average(X)[:, 0]


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
        tree). Any ``mltrees`` tree is grown on data binned once for the
        ensemble; any other scikit-learn classifier is fitted on its rows.
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
        is fitted on its rows.
    {bagging_parameters}

    Attributes
    ----------
    estimators_ : list of fitted estimators
    estimators_features_ : list of ndarray
    oob_score_, oob_prediction_ : float, ndarray
        With ``oob_score=True`` (the score is R²).
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
