"""Bagging of members that are not mltrees trees: k-NN, linear models, any estimator (chapter 9).

Such a member cannot share the ensemble's single binning, so each one is a
clone of the template fitted on its own resampled rows (and its own
columns, with ``max_features``), and the average calls its ``predict`` or
``predict_proba``. A member that accepts ``sample_weight`` reads the
bootstrap counts as weights; one that does not gets the drawn rows repeated,
and the ensemble's ``sample_weight`` then becomes a weighted draw.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter, validate_data

from mltrees._validation import class_codes, real_targets
from mltrees.ensemble._common import select_rows
from mltrees.ensemble._out_of_bag import OutOfBag
from mltrees.ensemble._parallel import map_members, member_progress
from mltrees.ensemble._sampling import draw_counts, member_counts
from mltrees.ensemble._warm_start import check_same_data, continued_seeds
from mltrees.tree._data import as_table

__all__ = ["fit_generic", "generic_average"]


def _columns(X, columns):
    if isinstance(X, pd.DataFrame):
        return X.iloc[:, columns]
    return X[:, columns]


def _member_output(ensemble, member, X_member, width: int) -> np.ndarray:
    """One member's contribution, shape (n_rows, width).

    A regressor's predictions; a classifier's class probabilities, or one-hot
    votes with ``voting="hard"`` or a member without ``predict_proba``. The
    member was fitted on class codes, so its classes index the columns.
    """
    if not ensemble._is_classifier:
        return np.asarray(member.predict(X_member), dtype=np.float64)[:, None]
    out = np.zeros((X_member.shape[0], width))
    if getattr(ensemble, "voting", "soft") == "hard" or not hasattr(member, "predict_proba"):
        predicted = np.asarray(member.predict(X_member)).astype(np.intp)
        out[np.arange(out.shape[0]), predicted] = 1.0
    else:
        # A member that never saw a class still yields a full-width vector.
        out[:, np.asarray(member.classes_, dtype=np.intp)] = member.predict_proba(X_member)
    return out


def fit_generic(ensemble, template, X, y, weights, weighted: bool, previous=None) -> dict:
    """Clone ``template`` and fit each new member on its resampled rows; the fitted attributes.

    ``weighted`` says whether the user passed ``sample_weight``; ``previous``
    is the fitted ensemble a warm start extends (or None).
    """
    if ensemble._is_classifier:
        classes, y_fit = class_codes(y)
        attributes = {"classes_": classes, "n_classes_": len(classes)}
    else:
        y_fit = real_targets(y)
        attributes = {}
    supports_weight = has_fit_parameter(template, "sample_weight")
    draw_by_weight = weighted and not supports_weight
    if draw_by_weight and not ensemble.bootstrap:
        raise ValueError(
            f"{type(template).__name__} does not accept sample_weight; with bootstrap=True "
            "the ensemble honours the weights by drawing rows in proportion to them"
        )
    probabilities = weights / weights.sum() if draw_by_weight else None
    n_samples, n_features = X.shape
    if previous is not None:
        check_same_data(previous, binned=False, kept=np.arange(n_samples), attributes=attributes)
    n_draws = ensemble._n_draws(n_samples)
    first, seeds = continued_seeds(ensemble, previous)
    progress = member_progress(
        ensemble.verbose, ensemble.n_estimators - first, type(ensemble).__name__
    )
    width = len(attributes.get("classes_", [0]))
    oob = OutOfBag(n_samples, width) if ensemble.oob_score else None
    sampling = {"bootstrap": ensemble.bootstrap, "probabilities": probabilities}

    def add_out_of_bag(i, member, counts, columns):
        def predict(out):
            if not out.size:
                return np.zeros((0, width))
            return _member_output(ensemble, member, _columns(select_rows(X, out), columns), width)

        oob.add(i, counts, predict)

    if oob is not None and previous is not None:
        members = zip(previous.estimators_, previous.estimators_features_, strict=True)
        for i, (member, columns) in enumerate(members):
            counts = member_counts(seeds[i], n_samples, n_draws, **sampling)
            add_out_of_bag(i, member, counts, columns)

    def build(i):
        rng = np.random.default_rng(seeds[i])
        # Rows first, then features, on the member's own generator (a
        # weighted bootstrap when the member cannot weight rows).
        counts = draw_counts(rng, n_samples, n_draws, **sampling)
        features = ensemble._draw_features(rng, n_features)
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
        if oob is not None:
            add_out_of_bag(i, member, counts, columns)
        progress.step()
        return member, columns

    with progress:
        results = map_members(
            lambda j: build(first + j), ensemble.n_estimators - first, ensemble.n_jobs
        )
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
    if oob is not None:
        fitted.update(oob.attributes(y, attributes.get("classes_")))
    return fitted


def generic_average(ensemble, X) -> np.ndarray:
    """Mean over the members of their outputs, shape (n_samples, n_columns)."""
    X = as_table(X)
    validate_data(ensemble, X, reset=False, skip_check_array=True)
    width = len(ensemble.classes_) if ensemble._is_classifier else 1
    total = None
    for member, columns in zip(ensemble.estimators_, ensemble.estimators_features_, strict=True):
        part = _member_output(ensemble, member, _columns(X, columns), width)
        total = part if total is None else total + part
    return total / len(ensemble.estimators_)
