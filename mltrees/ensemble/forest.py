"""Random forests: bagged trees that draw a random subset of features at every node (chapter 10).

Breiman's random forest :cite:p:`breiman2001` is bagging of fully grown
CART trees with one change: each node chooses its split among ``max_features``
features drawn at random for that node (:eq:`eq-forest-feature-subset`). The
resampling, the single binning of the data, the out-of-bag estimate and the
averaging are bagging's (:mod:`mltrees.ensemble.bagging`); the per-node draw is
the tree engine's ``max_features``.
"""

from __future__ import annotations

from mltrees.ensemble.bagging import _ClassifierEnsemble, _RegressorEnsemble
from mltrees.tree.classes import CARTClassifier, CARTRegressor

__all__ = ["AUTO_HISTOGRAM_ROWS", "RandomForestClassifier", "RandomForestRegressor"]

# max_bins="auto": from this many training rows on, the forest splits on a
# 255-bin quantile histogram instead of exact thresholds. Measured with
# benchmarks/bench_forest.py --defaults (make_classification, 28 features,
# 50 trees, 2 threads): exact forests take 1.8-2.0x scikit-learn's time at
# 100k-1M rows, histogram forests less than 1x, for an accuracy change
# within a few tenths of a point (the book's appendix shows it). Below it a forest
# fits in seconds either way, and exact trees equal scikit-learn's.
AUTO_HISTOGRAM_ROWS = 50_000
AUTO_BINS = 255

_TREE_PARAMS = (
    "criterion",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "min_weight_fraction_leaf",
    "max_features",
    "min_impurity_decrease",
    "max_bins",
    "categorical_features",
    "ccp_alpha",
    "missing",
)

_FOREST_PARAMS = """
    n_estimators : int, default 100
        Number of trees.
    max_depth : int or None, default None
        None grows every tree until its leaves are pure (or too small to split).
    min_samples_split : int, default 2
        A node with fewer (distinct) rows is not split.
    min_samples_leaf : int, default 1
        Every child must keep at least this many distinct rows.
    min_weight_fraction_leaf : float in [0, 0.5], default 0
        Every child must keep this fraction of the tree's total weight.
    min_impurity_decrease : float, default 0
        Split only if the weighted impurity decrease reaches this value.
    bootstrap : bool, default True
        Each tree sees a bootstrap sample (drawn with replacement); False:
        each tree sees ``max_samples`` rows drawn without replacement (all
        rows by default), so only the feature draws differ between trees.
    oob_score : bool, default False
        Compute the out-of-bag prediction and score (:eq:`eq-oob-error`).
    n_jobs : int or None, default None
        Threads that grow (and predict with) trees in parallel; -1 for all
        cores. The fitted forest does not depend on it.
    random_state : int, RandomState, Generator or None, default None
        Root of the per-tree seeds (bootstrap and feature draws).
    verbose : int, default 0
        1: a progress line every tenth of the trees; 2: every tree (stdout, or a
        bar in a notebook).
    warm_start : bool, default False
        True: a later ``fit`` with a larger ``n_estimators`` keeps the fitted
        trees and adds the missing ones, on the same data (other data raise a
        ValueError). With an int ``random_state`` the result equals one fit
        of all of them.
    max_samples : None, int or float, default None
        Rows drawn per tree: ``n`` (None), an int, or a fraction of ``n``.
    max_bins : "auto", int or None, default "auto"
        None: exact splits (midpoints of sorted values); an int: quantile
        histogram with at most that many bins per feature; "auto": exact
        below ``AUTO_HISTOGRAM_ROWS`` (50,000) training rows, 255 bins from
        there on (:ref:`sec-forest-histogram`). Either way the data are
        binned once for the whole forest; the trees' ``max_bins`` is the
        value used.
    categorical_features : list of int or str, or bool mask, optional
        Columns to treat as categorical besides pandas category/object/bool columns.
    ccp_alpha : float >= 0, default 0
        Cost-complexity pruning of every tree (:eq:`eq-ccp-cost`, chapter 5);
        0 keeps them fully grown, as Breiman's forests are.
    missing : {"default_direction", "c45", "error"}, default "default_direction"
        Missing values (NaN, None, pd.NA) in X, at fit and predict, handled by
        every tree as CART's ``missing=`` does (chapter 6): "default_direction"
        sends them to a child learned at each split with scikit-learn's rule
        (:eq:`eq-default-direction`; what scikit-learn's forests do, and with
        absolute error only for training data without NaN), "c45" spreads a
        row over the branches with fractional weights (:eq:`eq-c45-predict`).
        "error" rejects them.
"""


def resolve_max_bins(max_bins, n_samples):
    """The trees' ``max_bins`` for a forest's ``max_bins`` on ``n_samples`` rows.

    "auto" is None (exact) below :data:`AUTO_HISTOGRAM_ROWS` rows and
    :data:`AUTO_BINS` from there on (None rows, before the data are seen:
    exact); anything else is passed on as it is, for the trees to check.
    """
    if isinstance(max_bins, str):
        if max_bins != "auto":
            raise ValueError(f"max_bins must be 'auto', an int >= 2 or None, got {max_bins!r}")
        if n_samples is not None and n_samples >= AUTO_HISTOGRAM_ROWS:
            return AUTO_BINS
        return None
    return max_bins


class _ForestMixin:
    """The member is a CART tree built from the forest's own parameters."""

    def _make_template(self, n_samples=None):
        params = {name: getattr(self, name) for name in _TREE_PARAMS}
        params["max_bins"] = resolve_max_bins(self.max_bins, n_samples)
        if self._is_classifier:
            # The presets are applied by the forest, from weighted class totals
            # (bagging's ``_fit_binned``); a dict is the trees' own.
            weight = self.class_weight
            balanced = isinstance(weight, str) and weight in ("balanced", "balanced_subsample")
            params["class_weight"] = None if balanced else weight
            return CARTClassifier(**params)
        return CARTRegressor(**params)


class RandomForestClassifier(_ForestMixin, _ClassifierEnsemble):
    """Random forest classifier :cite:p:`breiman2001`.

    Implements bagging (:eq:`eq-bagging-vote`, chapter 9) of CART trees that
    split on the best of ``max_features`` features drawn afresh at each node
    (:eq:`eq-forest-feature-subset`, chapter 10). Class probabilities are
    the trees' leaf distributions averaged (soft voting), as in scikit-learn.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default "gini"
        Node impurity.
    max_features : "sqrt", "log2", int, float or None, default "sqrt"
        Features drawn at each node: ``floor(sqrt(d))``, ``floor(log2(d))``,
        a number, a fraction of ``d``, or all of them (None or 1.0: bagging).
    {forest_parameters}
    class_weight : dict, "balanced", "balanced_subsample" or None, default None
        Per-class weights. "balanced": class ``k`` is weighted
        ``W / (K W_k)``, ``W_k`` its total sample weight over the training
        rows (its row count without ``sample_weight``), as scikit-learn's
        forests (1.8 and later; its single trees count rows). "balanced_subsample"
        recomputes them from each tree's sample, its rows' weights times their
        bootstrap counts (the same as "balanced" without bootstrap).

    Attributes
    ----------
    estimators_ : list of CARTClassifier
        The fitted trees (they share the forest's binning).
    classes_ : ndarray
        Class labels; every tree predicts a vector over all of them.
    feature_importances_ : ndarray
        Mean decrease in impurity (:eq:`eq-mdi`).
    oob_score_, oob_decision_function_ : float, ndarray
        With ``oob_score=True``: accuracy and class probabilities from the
        trees that did not see each row.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees import RandomForestClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = RandomForestClassifier(n_estimators=50, oob_score=True, random_state=0)
    >>> round(forest.fit(X, y).oob_score_, 3)
    0.951
    """

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features="sqrt",
        min_impurity_decrease=0.0,
        bootstrap=True,
        oob_score=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
        class_weight=None,
        max_samples=None,
        max_bins="auto",
        categorical_features=None,
        ccp_alpha=0.0,
        missing="default_direction",
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.max_samples = max_samples
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.ccp_alpha = ccp_alpha
        self.missing = missing


class RandomForestRegressor(_ForestMixin, _RegressorEnsemble):
    """Random forest regressor :cite:p:`breiman2001`.

    Implements bagging (:eq:`eq-bagging-average`, chapter 9) of CART
    regression trees that split on the best of ``max_features`` features
    drawn at each node (:eq:`eq-forest-feature-subset`, chapter 10).

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error"}, default "squared_error"
        Node impurity.
    max_features : "sqrt", "log2", int, float or None, default 1.0
        Features drawn at each node; the default 1.0 (all of them, i.e.
        bagged trees) is scikit-learn's; Breiman's and chapter 10's
        recommendation for regression is ``d/3`` (``max_features=1/3``).
    {forest_parameters}

    Attributes
    ----------
    estimators_ : list of CARTRegressor
    feature_importances_ : ndarray
    oob_score_, oob_prediction_ : float, ndarray
        With ``oob_score=True``: R² and predictions from the trees that did not see each row.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import RandomForestRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = RandomForestRegressor(n_estimators=50, max_features=1 / 3, oob_score=True,
    ...                                random_state=0)
    >>> round(forest.fit(X, y).oob_score_, 3)
    0.412
    """

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=1.0,
        min_impurity_decrease=0.0,
        bootstrap=True,
        oob_score=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
        max_samples=None,
        max_bins="auto",
        categorical_features=None,
        ccp_alpha=0.0,
        missing="default_direction",
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.max_samples = max_samples
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.ccp_alpha = ccp_alpha
        self.missing = missing


for _cls in (RandomForestClassifier, RandomForestRegressor):
    _cls.__doc__ = _cls.__doc__.replace("    {forest_parameters}\n", _FOREST_PARAMS.lstrip("\n"))
