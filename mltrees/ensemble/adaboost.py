"""AdaBoost: discrete (SAMME) and real (chapter 11).

Discrete AdaBoost reweights the samples after every weak classifier and
gives the classifier the vote :eq:`eq-ch11-alpha` (for K classes SAMME's
:eq:`eq-ch11-samme-alpha`); Real AdaBoost lets every leaf of the weak tree
vote with half the log-odds of its weighted class shares
(:eq:`eq-ch11-real-leaf`, K-class form of Zhu et al.'s SAMME.R).

When the weak learner is one of mltrees' trees (the default is a stump,
``CARTClassifier(max_depth=1)``), the data are binned once and every round
grows its tree directly on the codes with the current weights; the leaf of
each training row is then read from the codes. Any other scikit-learn
classifier that accepts ``sample_weight`` also works (it is refitted on X).

A weak learner is given the boosting distribution rescaled to sum to the
number of training rows (of positive weight): a learner that reads weights
as case counts -- C4.5's ``min_cases`` and its pessimistic pruning, as in
J48 -- sees cases of average weight 1, as in its own fit, and the ensemble
does not depend on the scale of ``sample_weight``. Missing values are
accepted when the weak learner accepts them (its ``allow_nan`` tag), as the
default stump does (``missing="default_direction"``, chapter 6): here mltrees
goes beyond scikit-learn, whose AdaBoostClassifier refuses NaN (1.9).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, validate_data

from mltrees._progress import Progress
from mltrees._typing import ArrayLike, MatrixLike
from mltrees.ensemble._common import (
    StackedTrees,
    check_fraction,
    check_positive_int,
    check_score_bound,
    class_codes,
    node_of_codes,
    prediction_values,
    raw_importances,
    select_rows,
)
from mltrees.tree._data import encode_features, validate_fit_input
from mltrees.tree.builder import TreeBuilder
from mltrees.tree.classes import CARTClassifier

__all__ = ["AdaBoostClassifier", "samme_alpha", "samme_weight_update"]

_EPS = np.finfo(np.float64).eps


def samme_alpha(error, n_classes: int = 2, learning_rate: float = 1.0):
    r"""The vote of a weak classifier with weighted error ``error``.

    Implements :eq:`eq-ch11-samme-alpha` (chapter 11),
    :math:`\alpha = \eta\,[\ln((1-\epsilon)/\epsilon) + \ln(K-1)]`. For K = 2
    this is twice the :math:`\alpha = \tfrac12\ln((1-\epsilon)/\epsilon)` of
    :eq:`eq-ch11-alpha`; the factor 2 scales every vote alike, so the
    classifier and the normalised weights are unchanged.
    """
    error = np.asarray(error, dtype=np.float64)
    value = learning_rate * (np.log((1.0 - error) / error) + np.log(n_classes - 1.0))
    return float(value) if value.ndim == 0 else value


def samme_weight_update(weights, incorrect, alpha):
    r"""Reweight: misclassified samples are multiplied by ``e^alpha``, then normalised.

    Implements :eq:`eq-ch11-weight-update` (chapter 11) in SAMME's form:
    :math:`w_i \leftarrow w_i e^{\alpha I(h(x_i) \ne y_i)} / Z`. Returns the
    new weights (summing to 1) and the normaliser ``Z``.
    """
    updated = weights * np.exp(alpha * incorrect)
    z = float(updated.sum())
    return updated / z, z


class AdaBoostClassifier(ClassifierMixin, BaseEstimator):
    """AdaBoost with trees: SAMME (discrete) or Real AdaBoost.

    ``algorithm="SAMME"`` implements Freund and Schapire's AdaBoost.M1
    (:eq:`eq-ch11-alpha`, :eq:`eq-ch11-weight-update`) in the K-class form
    of Zhu et al. (:eq:`eq-ch11-samme-alpha`); ``algorithm="real"`` lets
    every leaf vote with :eq:`eq-ch11-real-leaf` (chapter 11).

    Parameters
    ----------
    estimator : classifier or None, default None
        The weak learner; None means a stump, ``CARTClassifier(max_depth=1)``.
        "real" needs ``predict_proba``. Missing values (NaN) are accepted when
        the weak learner accepts them: the default stump routes them with
        its learned default direction (scikit-learn's tree rule), so NaN is
        accepted at the defaults -- beyond scikit-learn, whose
        AdaBoostClassifier refuses it.
    n_estimators : int, default 50
        Largest number of rounds.
    learning_rate : float > 0, default 1.0
        Multiplies every vote (shrinkage).
    algorithm : {"SAMME", "real"}, default "SAMME"
    random_state : int, numpy Generator or None
        Seeds the weak learners' random choices (e.g. ``max_features``).
    verbose : int, default 0
        If > 0, report the round, its weighted error and its vote every
        ``verbose`` rounds (a line on stdout, or a bar in a notebook).
        Silent by default.

    Attributes
    ----------
    estimators_ : list of classifiers
        The fitted weak learners.
    estimator_weights_ : ndarray of shape (n_estimators,)
        SAMME: the votes alpha_m; "real": 1 for every fitted round.
    estimator_errors_ : ndarray of shape (n_estimators,)
        Weighted training error of each weak learner.
    classes_, n_classes_

    Notes
    -----
    As scikit-learn's SAMME: a weak learner with error 0 is kept with vote 1
    and boosting stops (it already classifies the training set); one with
    error >= 1 - 1/K is discarded and boosting stops (it is no better than
    chance, and its vote would be <= 0); if that happens in the first round
    a ``ValueError`` is raised. Weights are kept >= machine epsilon so that
    no sample is ever forgotten for good.

    The weak learner sees the distribution scaled to sum to the number of
    rows of positive weight: equal weights are 1 each, as in the learner's
    own fit, which matters to learners that read weights as case counts
    (C4.5's ``min_cases`` and pessimistic pruning). Multiplying
    ``sample_weight`` by a power of two gives the same model bit for bit; by
    any other constant, the same trees except where two candidate gains are
    within the tie tolerance of :mod:`mltrees.criteria`, and outputs equal to
    1e-12 relative (the normalised weights round differently).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import AdaBoostClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> boosted = AdaBoostClassifier(n_estimators=30).fit(X, y)  # stumps, SAMME
    >>> len(boosted.estimators_), round(boosted.score(X, y), 3)
    (30, 0.998)
    """

    def __init__(
        self,
        estimator=None,
        *,
        n_estimators=50,
        learning_rate=1.0,
        algorithm="SAMME",
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.algorithm = algorithm
        self.random_state = random_state
        self.verbose = verbose

    def _weak_learner(self):
        return CARTClassifier(max_depth=1) if self.estimator is None else clone(self.estimator)

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost the weak learner on ``(X, y)``.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        sample_weight : array_like of shape (n_samples,), optional
            Initial weights, normalised to sum to 1 (so a constant factor
            changes only their rounding).

        Returns
        -------
        self
        """
        if self.algorithm not in ("SAMME", "real"):
            raise ValueError(f"algorithm must be 'SAMME' or 'real', got {self.algorithm!r}")
        check_positive_int(self.n_estimators, "n_estimators")
        check_fraction(self.learning_rate, "learning_rate", high=np.inf)
        progress = Progress(self.verbose, self.n_estimators, type(self).__name__)
        X, y, weights = validate_fit_input(self, X, y, sample_weight)
        classes, y_codes = class_codes(y)
        n_classes = classes.size
        weak = self._weak_learner()
        if self.algorithm == "real" and not hasattr(weak, "predict_proba"):
            raise TypeError("algorithm='real' needs a weak learner with predict_proba")
        native = TreeBuilder.accepts(weak)
        builder = TreeBuilder(weak) if native else None
        missing = builder.missing if native else None
        values = None
        if native:
            codes, specs = builder.bin(X)
            if missing != "error" and (codes < 0).any():
                # Missing values (code -1) are routed by the tree's own method,
                # which the walk on codes does not know: walk on the values.
                values = encode_features(X, specs)
        rng = np.random.default_rng(self.random_state)
        w = weights / weights.sum()
        zero = w == 0
        # The learner is given the distribution scaled to sum to the number of
        # rows: one that reads weights as case counts (C4.5's min_cases, J48)
        # then finds the cases of its own fit, whatever the scale of
        # sample_weight. Equal weights give it exactly 1 per row.
        n_cases = float(np.count_nonzero(~zero))
        equal = bool((weights[~zero] == weights[~zero][0]).all())
        estimators, votes, errors = [], [], []
        for m in range(self.n_estimators):
            w = np.maximum(w, _EPS)
            w[zero] = 0.0
            # Equal weights: exactly 1, not 1 up to a rounding error.
            w_fit = (~zero).astype(np.float64) if m == 0 and equal else w * (n_cases / w.sum())
            seed = int(rng.integers(2**31 - 1))
            if native:
                keep = np.flatnonzero(w > 0)
                stats = builder.class_statistics(y_codes[keep], w_fit[keep], n_classes)
                codes_m = codes if keep.size == w.size else codes[keep]
                tree = builder.grow(
                    np.asfortranarray(codes_m),
                    specs,
                    stats,
                    float(w_fit.sum()),
                    np.random.default_rng(seed),
                )
                # C4.5: prune as the learner's own fit would.
                X_kept = X if keep.size == w.size else select_rows(X, keep)
                tree = builder.prune(tree, X_kept, specs, stats)
                # A shallow copy of the unfitted template: clone() would inspect the
                # signature every round, which costs more than growing a stump.
                learner = builder.fitted(
                    tree,
                    specs,
                    {
                        "classes_": classes,
                        "n_classes_": n_classes,
                        "n_outputs_": 1,
                        "n_features_in_": X.shape[1],
                        "random_state": seed,
                    },
                    fast=True,
                )
                if values is None:
                    proba = tree.value[node_of_codes(tree, codes, specs)]
                else:
                    proba = _tree_proba(tree, values, missing)
            else:
                learner = clone(weak)
                if "random_state" in learner.get_params():
                    learner.set_params(random_state=seed)
                learner.fit(X, classes[y_codes], sample_weight=w_fit)
                proba = _full_proba(learner, X, classes)
            predicted = np.argmax(proba, axis=1)
            incorrect = predicted != y_codes
            error = float(np.average(incorrect, weights=w))
            if self.algorithm == "real" and error <= 0:
                # The tree already classifies every training sample: stop, as SAMME does.
                estimators.append(learner)
                votes.append(1.0)
                errors.append(0.0)
                break
            if self.algorithm == "SAMME":
                if error <= 0:
                    estimators.append(learner)
                    votes.append(1.0)
                    errors.append(0.0)
                    break
                if error >= 1.0 - 1.0 / n_classes:
                    if not estimators:
                        raise ValueError(
                            "the weak learner is no better than chance in the first round "
                            f"(weighted error {error:.3g} >= 1 - 1/K); AdaBoost cannot be fitted"
                        )
                    break
                alpha = samme_alpha(error, n_classes, self.learning_rate)
                estimators.append(learner)
                votes.append(alpha)
                errors.append(error)
                if m < self.n_estimators - 1:
                    w = np.exp(np.log(np.maximum(w, 1e-300)) + alpha * incorrect * (w > 0))
                    w[zero] = 0.0
            else:
                estimators.append(learner)
                votes.append(1.0)
                errors.append(error)
                # y coded as 1 (true class) and -1/(K-1) otherwise; the exponent is
                # -(K-1)/K * y^T log p (Zhu et al. 2009), -y h(x) for two classes.
                coded = np.full((len(y_codes), n_classes), -1.0 / (n_classes - 1))
                coded[np.arange(len(y_codes)), y_codes] = 1.0
                log_p = np.log(np.clip(proba, _EPS, None))
                exponent = (
                    -self.learning_rate * (n_classes - 1) / n_classes * (coded * log_p).sum(axis=1)
                )
                if m < self.n_estimators - 1:
                    w = w * np.exp(exponent)
                    w[zero] = 0.0
            progress.step(f"weighted error {errors[-1]:.4g}  vote {votes[-1]:.4g}")
            total = w.sum()
            if not np.isfinite(total) or total <= 0:
                break
            w = w / total
        progress.close()
        validate_data(self, X, reset=True, skip_check_array=True)
        self.classes_, self.n_classes_ = classes, n_classes
        self.estimators_ = estimators
        self.estimator_weights_ = np.asarray(votes)
        self.estimator_errors_ = np.asarray(errors)
        self._native = native
        self._missing = missing
        self._specs = specs if native else None
        self._stack = None
        if native:
            self._build_stack()
            check_score_bound(self._stack.score_bound, 0.0, self.learning_rate)
        elif self.algorithm == "real":
            # |log p_k - mean log p| <= -log(_EPS) for probabilities clipped at _EPS
            per_learner = self.learning_rate * (n_classes - 1) * -np.log(_EPS)
            check_score_bound(len(estimators) * per_learner, 0.0, self.learning_rate)
        else:
            check_score_bound(np.abs(self.estimator_weights_).sum(), 0.0, self.learning_rate)
        return self

    def _node_scores(self, learner) -> np.ndarray:
        """What each node of a fitted tree adds to the K class scores."""
        proba = learner.tree_.value
        if self.algorithm == "real":
            return _real_scores(proba, self.n_classes_) * self.learning_rate
        # SAMME: +1 for the predicted class, -1/(K-1) for the others (times the vote).
        k = self.n_classes_
        coded = np.full(proba.shape, -1.0 / (k - 1) if k > 1 else 0.0)
        coded[np.arange(proba.shape[0]), np.argmax(proba, axis=1)] = 1.0
        return coded

    def _build_stack(self):
        trees = [learner.tree_ for learner in self.estimators_]
        node_scores = [
            self._node_scores(learner) * (vote if self.algorithm == "SAMME" else 1.0)
            for learner, vote in zip(self.estimators_, self.estimator_weights_, strict=True)
        ]
        # Each tree adds its K class scores to the K output columns.
        self._stack = StackedTrees(trees, node_scores, n_outputs=self.n_classes_)

    def _part(self, proba, vote) -> np.ndarray:
        """What one weak learner whose class distribution per row is ``proba`` adds."""
        if self.algorithm == "real":
            return _real_scores(proba, self.n_classes_) * self.learning_rate
        # SAMME: the learner votes for its predicted class.
        k = self.n_classes_
        part = np.full(proba.shape, -1.0 / (k - 1) if k > 1 else 0.0)
        part[np.arange(proba.shape[0]), np.argmax(proba, axis=1)] = 1.0
        return part * vote

    def _native_values(self, X):
        """Encoded prediction input, checked, and whether C4.5 rows must be mixed."""
        missing = getattr(self, "_missing", "error")
        values, check = prediction_values(self, X, "estimators_", allow_missing=missing != "error")
        # C4.5's method sends a row with a missing tested value down every
        # branch; the learner's vote is then that of its mixed distribution.
        mixed = missing == "c45" and bool(np.isnan(values).any())
        return values, check, mixed

    def _scores(self, X) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        if self._native:
            values, check, mixed = self._native_values(X)
            if not mixed:
                return self._stack.predict(values, check_block=check)
            check(values)
            total = np.zeros((values.shape[0], self.n_classes_))
            for learner, vote in zip(self.estimators_, self.estimator_weights_, strict=True):
                total += self._part(learner.tree_.weighted_value(values), vote)
            return total
        for total in self._staged_scores_generic(X, last_only=True):
            return total

    def _staged_scores_generic(self, X, last_only=False):
        validate_data(self, X, reset=False, skip_check_array=True)
        total = None
        for learner, vote in zip(self.estimators_, self.estimator_weights_, strict=True):
            part = self._part(_full_proba(learner, X, self.classes_), vote)
            total = part if total is None else total + part
            if not last_only:
                yield total.copy()
        if last_only:
            yield total

    def _staged_scores(self, X):
        check_is_fitted(self, "estimators_")
        if not self._native:
            yield from self._staged_scores_generic(X)
            return
        values, check, mixed = self._native_values(X)
        check(values)
        total = np.zeros((values.shape[0], self.n_classes_))
        for learner, vote in zip(self.estimators_, self.estimator_weights_, strict=True):
            if mixed:
                total += self._part(learner.tree_.weighted_value(values), vote)
            else:
                nodes = learner.tree_.apply(values)
                scale = vote if self.algorithm == "SAMME" else 1.0
                total += scale * self._node_scores(learner)[nodes]
            yield total.copy()

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Weighted votes: shape (n,) for two classes (positive: ``classes_[1]``), else (n, K)."""
        scores = self._scores(X) / self._vote_total()
        return _decision(scores, self.n_classes_)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The class with the largest weighted vote; ties go to the first class."""
        scores = self._scores(X)  # checks that the model is fitted first
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Probabilities from the votes, ``softmax(score / (K - 1))`` (as scikit-learn)."""
        scores = self._scores(X)
        return _proba(scores, self.n_classes_, self._vote_total())

    def _vote_total(self):
        return float(np.sum(self.estimator_weights_)) if self.algorithm == "SAMME" else 1.0

    def staged_decision_function(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Votes after each round (a generator)."""
        cumulative = np.cumsum(self.estimator_weights_)
        for m, scores in enumerate(self._staged_scores(X)):
            total = float(cumulative[m]) if self.algorithm == "SAMME" else 1.0
            yield _decision(scores / total, self.n_classes_)

    def staged_predict(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Predicted classes after each round (a generator)."""
        for scores in self._staged_scores(X):
            yield self.classes_[np.argmax(scores, axis=1)]

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[np.ndarray]:
        """Class probabilities after each round (a generator)."""
        cumulative = np.cumsum(self.estimator_weights_)
        for m, scores in enumerate(self._staged_scores(X)):
            total = float(cumulative[m]) if self.algorithm == "SAMME" else 1.0
            yield _proba(scores, self.n_classes_, total)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity decrease per feature, averaged over the trees with their votes."""
        check_is_fitted(self, "estimators_")
        if not self._native:
            raise AttributeError("feature_importances_ needs mltrees trees as weak learners")
        per_tree = np.array(
            [raw_importances(e.tree_, self.n_features_in_) for e in self.estimators_]
        )
        total_vote = np.sum(self.estimator_weights_)
        average = (self.estimator_weights_[:, None] * per_tree).sum(axis=0) / total_vote
        s = average.sum()
        return average / s if s > 0 else average

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Missing values are the weak learner's business: allowed when it allows them.
        try:
            tags.input_tags.allow_nan = get_tags(self._weak_learner()).input_tags.allow_nan
        except (AttributeError, TypeError, ValueError):  # a bad estimator: fit says so
            tags.input_tags.allow_nan = False
        return tags

    def _tree_model_view(self):
        """The ensemble as a :class:`~mltrees.tree.view.TreeModelView` of ``decision_function``."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        check_is_fitted(self, "estimators_")
        if not self._native:
            raise TypeError(
                "AdaBoostClassifier with weak learners that are not mltrees trees cannot be "
                "explained by TreeSHAP"
            )
        K = self.n_classes_
        total = self._vote_total()
        tables = []
        for learner, vote in zip(self.estimators_, self.estimator_weights_, strict=True):
            scale = vote if self.algorithm == "SAMME" else 1.0
            scores = self._node_scores(learner) * scale / total
            # decision_function: class 1's score minus class 0's for two classes.
            tables.append(scores[:, 1:2] - scores[:, :1] if K == 2 else scores)
        n_out = 1 if K == 2 else K
        missing = getattr(self, "_missing", "error")

        def encode(X):
            values, check = prediction_values(
                self, X, "estimators_", allow_missing=missing != "error"
            )
            check(values)
            return values

        def output(X):
            d = self.decision_function(X)
            return d[:, None] if d.ndim == 1 else d

        return TreeModelView(
            trees=[learner.tree_ for learner in self.estimators_],
            tables=tables,
            columns=[np.arange(n_out)] * len(tables),
            n_outputs=n_out,
            base=np.zeros(n_out),
            encode=encode,
            output=output,
            feature_names=feature_names_of(self),
            output_name="decision_function (weighted votes)",
            mixes_linearly=False,
            squeeze=K == 2,
        )

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_stack",)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_adaboost

        _rebuild_adaboost(self)

    def _drawable_tree(self, tree_index):
        """Member ``tree_index`` (an mltrees tree), as ``plot_tree`` and ``to_dot`` draw it."""
        from mltrees.tree._drawable import member_drawable

        return member_drawable(self, tree_index, TreeBuilder.accepts)

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model (its input, comparisons, link)."""
        from mltrees.io.onnx_export import codes_plan, foreign_members_error
        from mltrees.tree.view import view_of

        if not getattr(self, "_native", True):
            raise foreign_members_error(self)
        view = view_of(self)
        missing = getattr(self, "_missing", "error")
        return codes_plan(self, view, self._specs, missing, "adaboost", np.asarray(self.classes_))


def _tree_proba(tree, values, missing) -> np.ndarray:
    """A tree's class distribution per row of encoded ``values`` (mixed with C4.5's method)."""
    if missing == "c45":
        return tree.weighted_value(values)
    return tree.value[tree.apply(values)]


def _full_proba(learner, X, classes) -> np.ndarray:
    """``predict_proba`` (or one-hot ``predict``) with a column for every class of the ensemble."""
    if hasattr(learner, "predict_proba"):
        part = learner.predict_proba(X)
    else:
        predicted = learner.predict(X)
        part = (predicted[:, None] == learner.classes_[None, :]).astype(np.float64)
    proba = np.zeros((part.shape[0], classes.size))
    columns = np.searchsorted(classes, learner.classes_)
    proba[:, columns] = part
    return proba


def _real_scores(proba, n_classes: int) -> np.ndarray:
    r"""Leaf votes of Real AdaBoost, :math:`(K-1)(\log p_k - \overline{\log p})`.

    Implements :eq:`eq-ch11-real-leaf` (chapter 11): for two classes the
    score of class 1 minus that of class 0 is :math:`\log(p_1/p_0)`, twice
    the half log-odds each class receives.
    """
    if n_classes == 1:
        return np.zeros_like(proba)
    log_p = np.log(np.clip(proba, _EPS, None))
    return (n_classes - 1) * (log_p - log_p.mean(axis=1, keepdims=True))


def _decision(scores, n_classes):
    if n_classes == 2:  # scikit-learn's convention: class 1's score minus class 0's
        return scores[:, 1] - scores[:, 0]
    if n_classes == 1:
        return np.zeros(scores.shape[0])
    return scores


def _proba(scores, n_classes, total):
    if n_classes == 1:
        return np.ones((scores.shape[0], 1))
    z = scores / (max(total, 1e-300) * (n_classes - 1))
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)
