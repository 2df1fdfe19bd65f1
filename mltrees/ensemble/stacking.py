"""Stacked generalisation and blending (chapter 16).

Stacking (Wolpert 1992; Breiman 1996) trains a *level-1* learner on what the
members predict. The level-1 training rows must be predictions for rows the
member did not see while fitting (:eq:`eq-stacking-level1`), otherwise the
level-1 learner learns how well each member remembers its training data
(:eq:`eq-stacking-optimism`) instead of how well it predicts.

Two ways to produce those rows:

* :class:`StackingClassifier`, :class:`StackingRegressor`: out-of-fold
  predictions, every training row predicted by a copy of the member fitted
  on the other folds; the members used at prediction time are refitted on
  all rows. With the same folds, members and final estimator the level-1
  features and predictions equal scikit-learn's ``StackingClassifier`` /
  ``StackingRegressor``. With ``refit=False`` the fold models are kept
  instead and their outputs averaged (:class:`FoldAverage`): no fit on all
  rows, and the combiner is applied to models of the kind it was trained on.
* :class:`BlendingClassifier`, :class:`BlendingRegressor`: one holdout. The
  members are fitted once on the rest and kept as they are; the level-1
  learner is trained on their predictions for the holdout rows only.

Blending is a pair of classes rather than an option of the stacking classes
because the two differ in more than the split: blending has no ``cv`` but a
holdout fraction and a seed, it does not refit the members, and its level-1
rows cover only the holdout. An option that switches ``cv`` off and changes
what ``estimators_`` means would read worse than a class whose parameters
all mean something.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Self

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    TransformerMixin,
    clone,
    is_classifier,
)
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.model_selection import check_cv, train_test_split
from sklearn.utils import Bunch, _safe_indexing, get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from mltrees._input_checks import validate_numbers
from mltrees._progress import Progress, check_verbose
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import check_bool, check_sample_weight, class_codes, real_targets
from mltrees.tree._data import check_target

__all__ = [
    "BlendingClassifier",
    "BlendingRegressor",
    "FoldAverage",
    "StackingClassifier",
    "StackingRegressor",
]

_STACK_METHODS = ("auto", "predict_proba", "decision_function", "predict")


def _final_has(method):
    """``available_if`` test: the (fitted or given) final estimator has ``method``."""

    def check(self):
        final = getattr(self, "final_estimator_", None)
        if final is None:
            final = self.final_estimator
            if final is None:
                final = self._default_final()
        return hasattr(final, method)

    return check


def _holdout_error(holdout, y, classifier: bool, error: Exception) -> str:
    """Why ``holdout`` cannot split these rows, in blending's terms (not the splitter's)."""
    n = y.shape[0]
    n_hold = math.ceil(holdout * n)
    n_train = n - n_hold
    head = (
        f"holdout={holdout!r} cannot split the {n} sample(s) of X into a training part for "
        f"the members ({n_train}) and a holdout for the final estimator ({n_hold})"
    )
    if n_train < 1 or n_hold < 1:
        return f"{head}: each part needs at least one sample; give more or another holdout"
    if classifier:
        classes, counts = np.unique(y, return_counts=True)
        if counts.min() < 2:
            rare = classes[np.argmin(counts)]
            return (
                f"{head}: the holdout is stratified by class, and class {rare!r} has only "
                f"{counts.min()} row (at least 2 per class are needed)"
            )
        if min(n_train, n_hold) < classes.size:
            return (
                f"{head}: the holdout is stratified by class, so each part needs a row of "
                f"each of the {classes.size} classes; raise holdout towards 0.5, or use "
                "StackingClassifier"
            )
    return f"{head}: {error}"


def _fit_member(estimator, X, y, rows, sample_weight):
    """Clone ``estimator`` and fit it on ``rows`` (all rows when ``rows`` is None)."""
    est = clone(estimator)
    if rows is not None:
        X = _safe_indexing(X, rows)
        y = y[rows]
        sample_weight = None if sample_weight is None else sample_weight[rows]
    if sample_weight is None:
        return est.fit(X, y)
    return est.fit(X, y, sample_weight=sample_weight)


class FoldAverage:
    """The models of one member fitted on the folds, predicting by their average (chapter 16).

    What :class:`StackingClassifier` and :class:`StackingRegressor` keep as a
    member with ``refit=False``: the ``S`` copies fitted for the out-of-fold
    predictions, each on ``(S - 1) / S`` of the rows, instead of one copy
    refitted on all rows. Their outputs (probabilities, decision values or
    regression predictions) are averaged.

    Parameters
    ----------
    estimators : list of fitted estimators
        The fold models of one member, fitted on integer class codes
        ``0..n_classes-1`` for classification.
    n_classes : int or None
        Number of classes of the stack (a fold may lack one); None for regression.

    Attributes
    ----------
    estimators_ : list of fitted estimators

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees import CARTRegressor
    >>> from mltrees.ensemble import FoldAverage
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> halves = [CARTRegressor().fit(X[:4], X[:4, 0]), CARTRegressor().fit(X[4:], X[4:, 0])]
    >>> FoldAverage(halves).predict([[0.0], [7.0]]).tolist()  # (0 + 4) / 2, (3 + 7) / 2
    [2.0, 5.0]
    """

    def __init__(self, estimators, n_classes=None):
        self.estimators_ = list(estimators)
        self.n_classes = n_classes

    @property
    def classes_(self):
        """Class codes ``0..n_classes-1`` of the stack (classification only)."""
        if self.n_classes is None:
            raise AttributeError("a regression FoldAverage has no classes_")
        return np.arange(self.n_classes)

    @property
    def n_features_in_(self) -> int:
        """The number of features the fold models were fitted on."""
        return self.estimators_[0].n_features_in_

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Mean of the fold models' class probabilities, one column per class of the stack."""
        total = np.zeros((_n_rows(X), self.n_classes))
        for est in self.estimators_:
            total[:, np.asarray(est.classes_, dtype=np.intp)] += est.predict_proba(X)
        return total / len(self.estimators_)

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Mean of the fold models' decision values."""
        return np.mean(
            [np.asarray(e.decision_function(X), dtype=float) for e in self.estimators_], 0
        )

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Regression: the mean prediction. Classification: the most probable class on average."""
        if self.n_classes is None:
            return np.mean([np.asarray(e.predict(X), dtype=float) for e in self.estimators_], 0)
        return np.argmax(self.predict_proba(X), axis=1)


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


class _BaseStacking(TransformerMixin, BaseEstimator):
    """What stacking and blending share: members, level-1 features, the final fit."""

    _required_parameters = ("estimators",)

    def _final_takes_nan(self) -> bool:
        final = self._default_final() if self.final_estimator is None else self.final_estimator
        return bool(get_tags(final).input_tags.allow_nan)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # NaN is accepted when every member accepts it (the trees do at their
        # defaults) and, with passthrough, the final estimator too.
        members = [
            item[1]
            for item in (self.estimators if isinstance(self.estimators, list | tuple) else [])
            if isinstance(item, tuple) and len(item) == 2 and hasattr(item[1], "fit")
        ]
        allow = bool(members) and all(get_tags(m).input_tags.allow_nan for m in members)
        if allow and self.passthrough:
            allow = self._final_takes_nan()
        tags.input_tags.allow_nan = allow
        return tags

    # -- parameters -------------------------------------------------------------
    def _check_estimators(self):
        ests = self.estimators
        if not isinstance(ests, list | tuple) or len(ests) == 0:
            raise ValueError(
                f"estimators must be a non-empty list of (name, estimator) pairs, got {ests!r}"
            )
        names = []
        for item in ests:
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
                raise TypeError(
                    f"estimators must hold (str, estimator) pairs, got the item {item!r}"
                )
            name, est = item
            if not hasattr(est, "fit"):
                raise TypeError(f"estimator {name!r} has no fit method: {est!r}")
            if "__" in name or name in self._get_param_names():
                raise ValueError(
                    f"estimator name {name!r} must not contain '__' nor equal a parameter name"
                )
            names.append(name)
        if len(set(names)) != len(names):
            raise ValueError(f"estimator names must be unique, got {names}")
        return names, [est for _, est in ests]

    def _check_common(self):
        check_bool(self.passthrough, "passthrough")
        check_verbose(self.verbose)
        nj = self.n_jobs
        if nj is not None and (isinstance(nj, bool) or not isinstance(nj, numbers.Integral)):
            raise ValueError(f"n_jobs must be an int or None, got {nj!r}")
        final = self._default_final() if self.final_estimator is None else self.final_estimator
        if not hasattr(final, "fit"):
            raise TypeError(f"final_estimator must have a fit method, got {final!r}")
        if is_classifier(self) and not is_classifier(final):
            raise ValueError(f"final_estimator must be a classifier, got {final!r}")
        return clone(final)

    def get_params(self, deep=True):
        """Parameters, with each member also reachable as ``name`` and ``name__param``."""
        out = super().get_params(deep=deep)
        ests = self.estimators
        if not deep or not isinstance(ests, list | tuple):
            return out
        for item in ests:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                name, est = item
                out[name] = est
                if hasattr(est, "get_params"):
                    for key, value in est.get_params(deep=True).items():
                        out[f"{name}__{key}"] = value
        return out

    def set_params(self, **params):
        """Set parameters; ``name=est`` replaces a member, ``name__p=v`` sets its parameter."""
        if "estimators" in params:
            self.estimators = params.pop("estimators")
        ests = self.estimators
        names = (
            [item[0] for item in ests if isinstance(item, tuple) and len(item) == 2]
            if isinstance(ests, list | tuple)
            else []
        )
        replaced = {k: params.pop(k) for k in list(params) if k in names}
        if replaced:
            self.estimators = [(n, replaced.get(n, e)) for n, e in ests]
        nested: dict[str, dict] = {}
        for key in list(params):
            head, sep, tail = key.partition("__")
            if sep and head in names:
                nested.setdefault(head, {})[tail] = params.pop(key)
        for name, sub in nested.items():
            dict(self.estimators)[name].set_params(**sub)
        return super().set_params(**params)

    # -- level-1 features -----------------------------------------------------------
    def _resolve_methods(self, names, members):
        if not is_classifier(self):
            return ["predict"] * len(members)
        wanted = self.stack_method
        if wanted not in _STACK_METHODS:
            raise ValueError(f"stack_method must be one of {_STACK_METHODS}, got {wanted!r}")
        methods = []
        for name, est in zip(names, members, strict=True):
            if wanted == "auto":
                method = next((m for m in _STACK_METHODS[1:] if hasattr(est, m)), None)
                if method is None:
                    raise ValueError(f"estimator {name!r} has none of {_STACK_METHODS[1:]}")
            elif not hasattr(est, wanted):
                raise ValueError(
                    f"stack_method={wanted!r}, but estimator {name!r} "
                    f"({type(est).__name__}) has no {wanted} method; "
                    "choose another stack_method or 'auto'"
                )
            else:
                method = wanted
            methods.append(method)
        return methods

    def _member_output(self, est, method, X):
        """One member's level-1 columns for ``X`` (eq-stacking-level1)."""
        raw = np.asarray(getattr(est, method)(X))
        out = raw.astype(np.float64)
        n_classes = len(self.classes_) if is_classifier(self) else 0
        fold_classes = getattr(est, "classes_", None) if method != "predict" else None
        if fold_classes is not None and len(fold_classes) < n_classes:
            # A fold whose training part lacks a class (scikit-learn's
            # cross_val_predict: the same warning, columns and refusal).
            warnings.warn(
                f"Number of classes in training fold ({len(fold_classes)}) does not match "
                f"total number of classes ({n_classes}). Results may not be appropriate for "
                "your use case. To fix this, use a cross-validation technique resulting in "
                "properly stratified folds",
                RuntimeWarning,
                stacklevel=3,
            )
            if method == "decision_function" and len(fold_classes) <= 2:
                raise ValueError(
                    f"a training fold holds only {len(fold_classes)} of the {n_classes} classes, "
                    "and decision_function then gives one score per row, not one per class; "
                    "use stratified folds or stack_method='predict_proba'"
                )
            # The missing classes' columns: probability 0, the lowest score of the
            # output's float type
            missing = 0.0 if method == "predict_proba" else float(np.finfo(raw.dtype).min)
            full = np.full((out.shape[0], n_classes), missing)
            full[:, np.asarray(fold_classes, dtype=np.intp)] = out
            out = full
        if out.ndim == 1:
            return out[:, None]
        if method == "predict_proba" and n_classes == 2:
            # p(class 0) = 1 - p(class 1): the first column adds nothing but collinearity.
            return out[:, 1:]
        return out

    def _with_passthrough(self, blocks, X, rows=None):
        """The level-1 matrix: the members' blocks, then ``X`` with passthrough."""
        if not self.passthrough:
            return np.hstack(blocks)
        Xr = X if rows is None else _safe_indexing(X, rows)
        try:
            values = np.asarray(Xr, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"passthrough=True appends X to the level-1 features, so X must be numeric: {exc}"
            ) from exc
        if not self._final_takes_nan() and np.isnan(values).any():
            j = int(np.argmax(np.isnan(values).any(axis=0)))
            name = str(Xr.columns[j]) if isinstance(Xr, pd.DataFrame) else str(j)
            raise ValueError(
                f"X has missing values (NaN) in column {name!r}; passthrough=True hands them "
                "to the final estimator, which refuses them: impute them, or set "
                "passthrough=False (the members route missing values themselves)"
            )
        # One hstack of the blocks and the original object, as scikit-learn does: a
        # DataFrame can make the result Fortran-ordered, and the memory order decides
        # the summation order of the final estimator's dot products (the last bit).
        return np.hstack([*blocks, Xr]).astype(np.float64, copy=False)

    def _progress(self, steps: int) -> Progress:
        """One report per member (or group of members), then one for the final estimator."""
        return Progress(self.verbose, steps, type(self).__name__, unit=None, every=1)

    def _check_X(self, X, reset):
        """Check the shape and feature names of ``X``; the values are the members' business.

        A DataFrame is passed on as it is (categorical columns reach the
        members that take them); anything else becomes an array, of any
        dtype, NaN allowed (members such as XGBoost route missing values).
        """
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, skip_check_array=True, reset=reset)
            if X.shape[0] == 0:
                raise ValueError("X is empty: 0 rows; at least one is needed")
            return X
        return validate_numbers(
            self,
            X,
            what="real numbers, strings or categories",
            reset=reset,
            dtype=None,
            ensure_all_finite=False,
        )

    def _prepare(self, X, y, sample_weight):
        names, members = self._check_estimators()
        final = self._check_common()
        X = self._check_X(X, reset=True)
        n = X.shape[0]
        y = check_target(self, y, n, stacklevel=4)  # the user's fit, through fit and _prepare
        if is_classifier(self):
            self.classes_, y_fit = class_codes(y)
            if len(self.classes_) < 2:
                raise ValueError(
                    f"y has one class ({self.classes_[0]!r}); a classifier needs two or more"
                )
        else:
            y_fit = real_targets(y)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, n)
        methods = self._resolve_methods(names, members)
        return X, names, members, methods, final, y_fit, sample_weight

    def _finish(self, names, members, final, level1, y_fit, sample_weight):
        self.named_estimators_ = Bunch(**dict(zip(names, self.estimators_, strict=True)))
        self._n_feature_outs = [block.shape[1] for block in level1]
        self.final_estimator_ = final
        return level1

    def _fit_final(self, X_meta, y, sample_weight, progress):
        if sample_weight is None:
            self.final_estimator_.fit(X_meta, y)
        else:
            self.final_estimator_.fit(X_meta, y, sample_weight=sample_weight)
        progress.step("final estimator fitted")
        progress.close()

    # -- prediction -------------------------------------------------------------------
    def transform(self, X: MatrixLike) -> np.ndarray:
        """Level-1 features of ``X``: the fitted members' outputs (and ``X`` with passthrough).

        Binary ``predict_proba`` keeps only the column of the second class, as
        scikit-learn does.
        """
        check_is_fitted(self, "final_estimator_")
        X = self._check_X(X, reset=False)
        blocks = [
            self._member_output(est, m, X)
            for est, m in zip(self.estimators_, self.stack_method_, strict=True)
        ]
        return self._with_passthrough(blocks, X)

    def get_feature_names_out(self, input_features=None):
        """Names of the level-1 features, ``<class>_<member>[<column>]`` as in scikit-learn."""
        check_is_fitted(self, "final_estimator_")
        prefix = type(self).__name__.lower()
        names = []
        for (name, _), width in zip(self.estimators, self._n_feature_outs, strict=True):
            names += (
                [f"{prefix}_{name}"]
                if width == 1
                else [f"{prefix}_{name}{i}" for i in range(width)]
            )
        if self.passthrough:
            if input_features is None:
                input_features = getattr(
                    self, "feature_names_in_", [f"x{i}" for i in range(self.n_features_in_)]
                )
            names += list(input_features)
        return np.asarray(names, dtype=object)

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("named_estimators_",)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_stacking

        _rebuild_stacking(self, FoldAverage)


class _ClassifierOutputs(ClassifierMixin):
    """Prediction methods of the classifiers: the final estimator on the level-1 features."""

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Class labels of the final estimator, in the original label space."""
        check_is_fitted(self, "final_estimator_")
        codes = np.asarray(self.final_estimator_.predict(self.transform(X)), dtype=np.intp)
        return self.classes_[codes]

    @available_if(_final_has("predict_proba"))
    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities of the final estimator, columns in ``classes_`` order."""
        check_is_fitted(self, "final_estimator_")
        return self.final_estimator_.predict_proba(self.transform(X))

    @available_if(_final_has("decision_function"))
    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Decision function of the final estimator."""
        check_is_fitted(self, "final_estimator_")
        return self.final_estimator_.decision_function(self.transform(X))

    @staticmethod
    def _default_final():
        return LogisticRegression()


class _RegressorOutputs(RegressorMixin):
    def predict(self, X: MatrixLike) -> np.ndarray:
        """Predictions of the final estimator on the level-1 features."""
        check_is_fitted(self, "final_estimator_")
        return self.final_estimator_.predict(self.transform(X))

    @staticmethod
    def _default_final():
        return RidgeCV()


class _Stacking(_BaseStacking):
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the members, their out-of-fold predictions, and the final estimator.

        Implements :eq:`eq-stacking-level1` (chapter 16): row ``i`` of the
        level-1 data is predicted by each member fitted without the fold of
        ``i``. The folds are drawn once and shared by all members.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Passed to the members as given (so DataFrames with categorical
            columns reach members that take them).
        y : array_like of shape (n_samples,)
        sample_weight : array_like of shape (n_samples,), optional
            Passed to every member's and the final estimator's ``fit``.

        Returns
        -------
        self
        """
        X, names, members, methods, final, y_fit, sw = self._prepare(X, y, sample_weight)
        n = y_fit.shape[0]
        cv = check_cv(self.cv, y_fit, classifier=is_classifier(self))
        try:
            folds = [
                (np.asarray(train, dtype=np.intp), np.asarray(test, dtype=np.intp))
                for train, test in cv.split(X, y_fit)
            ]
        except ValueError as error:  # the splitter's words (n_splits, ...) are not ours
            raise ValueError(
                f"cv={self.cv!r} cannot split the {n} sample(s) of X: {error}"
            ) from None
        tests = np.concatenate([test for _, test in folds]) if folds else np.empty(0, np.intp)
        if tests.size != n or not np.array_equal(np.sort(tests), np.arange(n)):
            raise ValueError(
                "cv must give test folds that partition the rows (each row in exactly one "
                f"test fold); got {tests.size} test rows for {n} rows"
            )
        refit = check_bool(self.refit, "refit")
        if not refit and is_classifier(self) and "predict" in methods:
            raise ValueError(
                "refit=False averages the fold models' outputs, which labels (stack_method="
                "'predict') are not; use predict_proba or decision_function"
            )
        self.stack_method_ = methods
        blocks, self.estimators_ = [], []
        progress = self._progress(len(members) + 1)
        n_classes = len(self.classes_) if is_classifier(self) else None
        with Parallel(n_jobs=self.n_jobs) as parallel:
            for k, (name, est) in enumerate(zip(names, members, strict=True)):
                # One fit per fold for the level-1 column, then (refit) one on
                # all rows (rows=None) for prediction.
                fits = parallel(
                    delayed(_fit_member)(est, X, y_fit, rows, sw)
                    for rows in [*(train for train, _ in folds), *([None] if refit else [])]
                )
                if not refit:
                    fits.append(FoldAverage(fits, n_classes))
                block = None
                for fitted, (_, test) in zip(fits[:-1], folds, strict=True):
                    part = self._member_output(fitted, methods[k], _safe_indexing(X, test))
                    if block is None:
                        block = np.empty((n, part.shape[1]))
                    block[test] = part
                blocks.append(block)
                self.estimators_.append(fits[-1])
                progress.step(
                    f"member {k + 1}/{len(members)} {name!r}: {len(folds)} fold fits"
                    + (" and a refit" if refit else "")
                )
        self._finish(names, members, final, blocks, y_fit, sw)
        self.oof_predictions_ = np.hstack(blocks)
        self.folds_ = folds
        self._fit_final(self._with_passthrough(blocks, X), y_fit, sw, progress)
        return self


class _Blending(_BaseStacking):
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the members on the training part, the final estimator on the holdout.

        Implements :eq:`eq-blending` (chapter 16). The holdout is a random
        ``holdout`` fraction of the rows (stratified by class for the
        classifier), or with ``shuffle=False`` the last rows in their order
        (time-ordered data); the members are not refitted afterwards, so the
        final estimator combines exactly the models it was trained on.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        sample_weight : array_like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, names, members, methods, final, y_fit, sw = self._prepare(X, y, sample_weight)
        h = self.holdout
        if isinstance(h, bool) or not isinstance(h, numbers.Real) or not 0 < h < 1:
            raise ValueError(f"holdout must be a fraction in (0, 1), got {h!r}")
        n = y_fit.shape[0]
        if check_bool(self.shuffle, "shuffle"):
            try:
                train, hold = train_test_split(
                    np.arange(n),
                    test_size=h,
                    random_state=self.random_state,
                    stratify=y_fit if is_classifier(self) else None,
                )
            except ValueError as error:
                raise ValueError(_holdout_error(h, y_fit, is_classifier(self), error)) from None
            train, hold = np.sort(train), np.sort(hold)
        else:
            # The last rows are the holdout: with rows in time order, the
            # combiner learns on the future of what the members saw.
            n_hold = int(np.ceil(h * n))
            if not 0 < n_hold < n:
                raise ValueError(f"holdout={h!r} leaves no rows on one side of {n} rows")
            train, hold = np.arange(n - n_hold), np.arange(n - n_hold, n)
        self.stack_method_ = methods
        progress = self._progress(2)
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_member)(est, X, y_fit, train, sw) for est in members
        )
        progress.step("members fitted on the training part")
        X_hold = _safe_indexing(X, hold)
        blocks = [
            self._member_output(est, m, X_hold)
            for est, m in zip(self.estimators_, methods, strict=True)
        ]
        self._finish(names, members, final, blocks, y_fit, sw)
        self.holdout_index_ = hold
        self.holdout_predictions_ = np.hstack(blocks)
        self._fit_final(
            self._with_passthrough(blocks, X, hold),
            y_fit[hold],
            None if sw is None else sw[hold],
            progress,
        )
        return self


class StackingClassifier(_ClassifierOutputs, _Stacking):
    """Stacked generalisation for classification (Wolpert 1992).

    Implements :eq:`eq-stacking-level1` (chapter 16): the final estimator is
    trained on the members' out-of-fold outputs, the members used at
    prediction time are refitted on all rows. Given the same folds, members
    and final estimator, the level-1 features (``oof_predictions_``) and the
    predictions equal scikit-learn's ``StackingClassifier``.

    Parameters
    ----------
    estimators : list of (str, estimator)
        The members; any estimators with ``fit`` and the ``stack_method``.
        They are fitted on integer-encoded labels ``0..K-1``.
    final_estimator : estimator or None, default None
        The level-1 learner, fitted on the level-1 features.
        None: scikit-learn's LogisticRegression().
    passthrough : bool, default False
        Also give the final estimator the original features (numeric X only).
    n_jobs : int or None, default None
        Member fits run in parallel by joblib; None runs them one after the other.
    verbose : int, default 0
        > 0: one progress report per member and one for the final estimator
        (a line on stdout, or a bar in a notebook). Silent by default.
    cv : int, splitter or iterable of (train, test), default 5
        The folds (an int gives stratified k-fold without shuffling, as
        scikit-learn's ``check_cv``). The test folds must partition the rows.
        On rows sorted by class or by a feature, unshuffled folds are fitted
        on unlike parts of the data; pass a shuffling splitter, e.g.
        ``StratifiedKFold(5, shuffle=True, random_state=0)``.
    stack_method : {"auto", "predict_proba", "decision_function", "predict"}, default "auto"
        Output of each member; "auto" takes the first of the last three the
        member has. With two classes only the probability of the second class
        is kept.
    refit : bool, default True
        True: each member is refitted on all rows for prediction (as in
        scikit-learn). False: the fold models are kept and their outputs
        averaged (:class:`FoldAverage`; ``"predict"`` is then refused).

    Attributes
    ----------
    classes_ : ndarray
    estimators_ : list of fitted members (refitted on all rows, or FoldAverage)
    named_estimators_ : Bunch
    stack_method_ : list of str
    oof_predictions_ : ndarray of shape (n_samples, n_level1_features)
        The out-of-fold level-1 features (without the passthrough columns).
    folds_ : list of (train, test) index arrays
    final_estimator_ : fitted final estimator

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import CARTClassifier, RandomForestClassifier, StackingClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> members = [("tree", CARTClassifier(max_depth=3)),
    ...            ("forest", RandomForestClassifier(n_estimators=20, random_state=0))]
    >>> stack = StackingClassifier(members)
    >>> stack.fit(X, y).transform(X).shape  # one probability column per member
    (569, 2)
    """

    def __init__(
        self,
        estimators,
        final_estimator=None,
        *,
        cv=5,
        stack_method="auto",
        passthrough=False,
        refit=True,
        n_jobs=None,
        verbose=0,
    ):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.stack_method = stack_method
        self.passthrough = passthrough
        self.refit = refit
        self.n_jobs = n_jobs
        self.verbose = verbose


class StackingRegressor(_RegressorOutputs, _Stacking):
    """Stacked regression (Wolpert 1992; Breiman 1996).

    Implements :eq:`eq-stacking-level1` (chapter 16) with the members'
    ``predict`` as level-1 features. Given the same folds, members and final
    estimator, ``oof_predictions_`` and the predictions equal scikit-learn's
    ``StackingRegressor``. Breiman's non-negative combination
    (:eq:`eq-stacking-breiman`) is ``final_estimator=LinearRegression(positive=True)``.

    Parameters
    ----------
    estimators : list of (str, estimator)
    final_estimator : estimator or None, default None
        The level-1 learner, fitted on the level-1 features.
        None: scikit-learn's RidgeCV().
    passthrough : bool, default False
        Also give the final estimator the original features (numeric X only).
    n_jobs : int or None, default None
        Member fits run in parallel by joblib; None runs them one after the other.
    verbose : int, default 0
        > 0: one progress report per member and one for the final estimator
        (a line on stdout, or a bar in a notebook). Silent by default.
    cv : int, splitter or iterable of (train, test), default 5
        The folds (an int gives k-fold without shuffling, as scikit-learn's
        ``check_cv``; pass a shuffling splitter for sorted rows). The test
        folds must partition the rows.
    refit : bool, default True
        True: each member is refitted on all rows for prediction. False: the
        fold models are kept and their predictions averaged (:class:`FoldAverage`).

    Attributes
    ----------
    estimators_, named_estimators_, oof_predictions_, folds_, final_estimator_
        As in :class:`StackingClassifier`.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import CARTRegressor, GradientBoostingRegressor, StackingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> stack = StackingRegressor([("tree", CARTRegressor(max_depth=3)),
    ...                            ("boosted", GradientBoostingRegressor(n_estimators=30))])
    >>> stack.fit(X, y).transform(X).shape
    (442, 2)
    """

    def __init__(
        self,
        estimators,
        final_estimator=None,
        *,
        cv=5,
        passthrough=False,
        refit=True,
        n_jobs=None,
        verbose=0,
    ):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.passthrough = passthrough
        self.refit = refit
        self.n_jobs = n_jobs
        self.verbose = verbose


class BlendingClassifier(_ClassifierOutputs, _Blending):
    """Blending: stacking with one holdout instead of folds (chapter 16).

    Implements :eq:`eq-blending`: the members are fitted once on a
    ``1 - holdout`` fraction of the rows; the final estimator is trained on
    their outputs for the holdout rows. Cheaper than
    :class:`StackingClassifier` (one fit per member instead of ``k + 1``),
    at the price of a final estimator trained on fewer rows and members
    trained on fewer rows. A class of its own rather than an option of the
    stacking class: its parameters (``holdout``, ``random_state``, no ``cv``)
    and its fitted members (not refitted) differ.

    Parameters
    ----------
    estimators : list of (str, estimator)
    final_estimator : estimator or None, default None
        The level-1 learner, fitted on the level-1 features.
        None: scikit-learn's LogisticRegression().
    passthrough : bool, default False
        Also give the final estimator the original features (numeric X only).
    n_jobs : int or None, default None
        Member fits run in parallel by joblib; None runs them one after the other.
    verbose : int, default 0
        > 0: a progress report when the members are fitted, one for the final
        estimator (a line on stdout, or a bar in a notebook). Silent by default.
    holdout : float, default 0.2
        Fraction of the rows that trains the final estimator (stratified).
    stack_method : str, default "auto"
        As in :class:`StackingClassifier`.
    random_state : int, RandomState or None, default None
        Seed of the holdout draw.
    shuffle : bool, default True
        False: the holdout is the last ``holdout`` fraction of the rows in
        the order given, not stratified (rows in time order: the combiner is
        trained on rows after those the members learned from).

    Attributes
    ----------
    classes_, estimators_, named_estimators_, stack_method_, final_estimator_
    holdout_index_ : ndarray of the holdout rows
    holdout_predictions_ : ndarray, the level-1 features of the holdout rows

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import BlendingClassifier, C45Classifier, CARTClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> members = [("cart", CARTClassifier(max_depth=3)), ("c45", C45Classifier())]
    >>> blend = BlendingClassifier(members, holdout=0.3, random_state=0).fit(X, y)
    >>> blend.transform(X).shape
    (569, 2)
    """

    def __init__(
        self,
        estimators,
        final_estimator=None,
        *,
        holdout=0.2,
        stack_method="auto",
        passthrough=False,
        random_state=None,
        shuffle=True,
        n_jobs=None,
        verbose=0,
    ):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.holdout = holdout
        self.stack_method = stack_method
        self.passthrough = passthrough
        self.random_state = random_state
        self.shuffle = shuffle
        self.n_jobs = n_jobs
        self.verbose = verbose


class BlendingRegressor(_RegressorOutputs, _Blending):
    """Blending for regression: members on a training part, final on a holdout.

    Implements :eq:`eq-blending` (chapter 16); see :class:`BlendingClassifier`.

    Parameters
    ----------
    estimators : list of (str, estimator)
    final_estimator : estimator or None, default None
        The level-1 learner, fitted on the level-1 features.
        None: scikit-learn's RidgeCV().
    passthrough : bool, default False
        Also give the final estimator the original features (numeric X only).
    n_jobs : int or None, default None
        Member fits run in parallel by joblib; None runs them one after the other.
    verbose : int, default 0
        > 0: a progress report when the members are fitted, one for the final
        estimator (a line on stdout, or a bar in a notebook). Silent by default.
    holdout : float, default 0.2
    random_state : int, RandomState or None, default None
    shuffle : bool, default True
        False: the holdout is the last rows in their order (time order).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import BlendingRegressor, CARTRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> blend = BlendingRegressor([("shallow", CARTRegressor(max_depth=2)),
    ...                            ("deeper", CARTRegressor(max_depth=4))],
    ...                           holdout=0.3, random_state=0).fit(X, y)
    >>> blend.transform(X).shape
    (442, 2)
    """

    def __init__(
        self,
        estimators,
        final_estimator=None,
        *,
        holdout=0.2,
        passthrough=False,
        random_state=None,
        shuffle=True,
        n_jobs=None,
        verbose=0,
    ):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.holdout = holdout
        self.passthrough = passthrough
        self.random_state = random_state
        self.shuffle = shuffle
        self.n_jobs = n_jobs
        self.verbose = verbose
