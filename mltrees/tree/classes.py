"""ID3, C4.5 and CART as configurations of one growth engine (chapter 4).

Each estimator only chooses the parts of chapter 3's table: how candidates
are generated (multiway on categories, or binary), how they are compared
(information gain, C4.5's gain ratio rule, Gini, variance reduction), and the
leaf value. The growth itself is :func:`mltrees.tree._grow.grow_tree`.

On large data ``fit`` scores the features of each level on one thread per
available core, and ``predict`` walks blocks of rows the same way; the tree
and its predictions do not depend on the number of threads.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Self

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from mltrees._input_checks import record_fit_features
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import check_int, class_codes, real_targets
from mltrees.tree._data import (
    CATEGORICAL,
    NUMERIC,
    all_finite,
    as_table,
    bin_features,
    encode_features,
    prepare_training_data,
    validate_fit_input,
)
from mltrees.tree._grow import GrowthLimits, grow_tree, grow_trees_together
from mltrees.tree._split import (
    AbsoluteErrorStatistics,
    ClassificationStatistics,
    RegressionStatistics,
    SplitRules,
)
from mltrees.tree._tree import Tree, available_cores
from mltrees.tree.pruning import (
    cost_complexity_path,
    prune_collapse,
    prune_cost_complexity,
    prune_pessimistic,
)

__all__ = [
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
]


def _resolve_max_features(max_features, n_features: int) -> int | None:
    if max_features is None:
        return None
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        if max_features == "log2":
            return max(1, int(np.log2(n_features)))
    elif isinstance(max_features, numbers.Integral) and not isinstance(max_features, bool):
        if 1 <= max_features <= n_features:
            return int(max_features)
    elif (
        isinstance(max_features, numbers.Real)
        and not isinstance(max_features, bool)
        and 0 < max_features <= 1
    ):
        return max(1, int(max_features * n_features))
    raise ValueError(
        "max_features must be None, 'sqrt', 'log2', an int in [1, n_features] or a float "
        f"in (0, 1], got {max_features!r}"
    )


_SELECTIONS = ("gain", "gain_ratio", "c45")
_RELEASES = ("8", "1993")


def _many_valued(specs, n_cases: float) -> np.ndarray:
    """C4.5 release 8: the features left out of the average gain.

    Nominal attributes with at least ``0.3 * n_cases`` values, unless every
    attribute is one (then all count), as in Quinlan's C4.5 and Weka's J48.
    ``n_cases`` is the training weight (weights count as cases, as everywhere
    in C4.5's rules; with unit weights it is the number of rows).
    """
    many = np.array([spec.kind == CATEGORICAL and spec.n_codes >= 0.3 * n_cases for spec in specs])
    return np.zeros_like(many) if many.all() else many


def _split_values(codes, specs, weights) -> list:
    """C4.5 release 8: per numeric feature, the values its thresholds may take.

    The distinct values of the rows with positive weight (C4.5's split point
    is a value of the training set, :func:`mltrees.tree._split_c45.c45_split_point`);
    None for the other features.
    """
    weighted = weights[: codes.shape[0]] > 0
    out = []
    for j, spec in enumerate(specs):
        if spec.kind == CATEGORICAL or not spec.exact:
            out.append(None)
            continue
        column = codes[:, j][weighted].astype(np.intp)
        present = np.bincount(column[column >= 0], minlength=spec.n_codes) > 0
        out.append(spec.values[present])
    return out


class _BaseTree(BaseEstimator):
    """Shared fit/predict logic; subclasses set the algorithm's configuration."""

    _multiway_categorical = False
    _require_positive_gain = False
    _numeric_features = True
    _criteria: tuple[str, ...] = ()
    # Whether ``_prune_grown`` changes the grown tree (it needs the training
    # rows): ensembles then select each member's rows for it.
    _prunes_grown_tree = False

    def _validate_params(self):
        self._validate_missing()
        if self.criterion not in self._criteria:
            raise ValueError(f"criterion must be one of {self._criteria}, got {self.criterion!r}")
        check_int(self.max_depth, "max_depth", 1, allow_none=True)
        check_int(self.min_samples_split, "min_samples_split", 2)
        check_int(self.min_samples_leaf, "min_samples_leaf", 1)
        decrease = self.min_impurity_decrease
        if (
            isinstance(decrease, bool)
            or not isinstance(decrease, numbers.Real)
            or not np.isfinite(decrease)
            or decrease < 0
        ):
            raise ValueError(
                f"min_impurity_decrease must be a float >= 0, got {self.min_impurity_decrease!r}"
            )
        check_int(self.max_bins, "max_bins", 2, allow_none=True)
        if getattr(self, "max_leaf_nodes", None) is not None:
            check_int(self.max_leaf_nodes, "max_leaf_nodes", 2, allow_none=True)
            if self._missing == "c45":
                raise ValueError(
                    "max_leaf_nodes is not available with missing='c45' (fractional rows "
                    "would have to stay in every open leaf); use missing='default_direction' "
                    "or 'surrogate', or max_leaf_nodes=None"
                )
        self._validate_pruning_params()
        fraction = self.min_weight_fraction_leaf
        if (
            isinstance(fraction, bool)
            or not isinstance(fraction, numbers.Real)
            or not 0.0 <= fraction <= 0.5
        ):
            raise ValueError(
                f"min_weight_fraction_leaf must be a float in [0, 0.5], got {fraction!r}"
            )

    def _fit(self, X, y, sample_weight, prepare_target):
        """Validate everything, grow the tree, and only then set fitted attributes.

        ``prepare_target(y, weights)`` checks the target and returns the final
        per-sample weights, the fitted attributes it owns (e.g. ``classes_``)
        and a function that builds the sufficient statistics for kept rows.
        Assigning attributes last means a failed refit leaves the previous
        model intact.
        """
        self._validate_params()
        # Wording as scikit-learn's, so messages read the same across libraries.
        X, y, weights = validate_fit_input(self, X, y, sample_weight, stacklevel=4)
        data = prepare_training_data(
            X,
            y,
            weights,
            prepare_target,
            self._bin,
            who=type(self).__name__,
            splits_numbers=self._numeric_features,
            advice=". Discretize them first (pd.cut or "
            "sklearn.preprocessing.KBinsDiscretizer), mark them with "
            "categorical_features=, or use C45Classifier or CARTClassifier, which "
            "bi-partition numeric features.",
        )
        tree = self._grow(data.codes, data.specs, data.statistics, data.total_weight)
        tree = self._prune_grown(tree, data.X_kept, data.specs, data.statistics)
        record_fit_features(self, X)
        for name, value in data.attributes.items():
            setattr(self, name, value)
        self._specs = data.specs
        self.tree_ = tree
        return self

    def _bin(self, X):
        """Bin the training table with this estimator's parameters: ``(codes, specs)``."""
        return bin_features(
            X,
            categorical_features=self.categorical_features,
            max_bins=self.max_bins,
            allow_nan=self._missing != "error",
            random_state=0,
            # Written only when needed: it inspects the signature (slow beside a small fit).
            missing_advice=lambda: (
                f"{type(self).__name__} has missing='error': {self._missing_fix()}"
            ),
        )

    def _grow(
        self,
        codes,
        specs,
        stats_model,
        total_weight: float,
        rng=None,
        n_threads=None,
        leaf_of_row=None,
    ) -> Tree:
        """Grow a tree on already-binned rows with this estimator's parameters.

        ``fit`` calls it after validating and binning; ensembles call it
        directly, binning once for all their trees. ``stats_model`` holds the
        rows' targets and weights (see ``mltrees.tree._split``); ``rng``
        (default: from ``random_state``) draws the ``max_features`` subsets;
        ``n_threads`` (default: one per available core) score the features of
        large levels in parallel -- ensembles, whose trees grow in parallel,
        pass 1. ``leaf_of_row``: see :func:`~mltrees.tree._grow.grow_tree`
        (set to -1 if the tree is pruned afterwards).
        """
        self._check_trainable_missing(codes, specs)
        rules, limits = self._growth_rules(codes, specs, stats_model, total_weight)
        if rng is None and (limits.max_features is not None or self.random_state is not None):
            # Only feature subsets draw; without them and without a seed to
            # check, no generator is seeded from the operating system's
            # entropy (which costs more than a small level).
            rng = np.random.default_rng(self.random_state)
        n_threads = available_cores() if n_threads is None else int(n_threads)
        tree = grow_tree(codes, specs, stats_model, rules, limits, rng, n_threads, leaf_of_row)
        ccp_alpha = getattr(self, "ccp_alpha", 0.0)
        if ccp_alpha > 0:
            tree = prune_cost_complexity(tree, ccp_alpha)
            if leaf_of_row is not None:
                leaf_of_row.fill(-1)  # the grown tree's nodes, not the pruned one's
        return tree

    def _growth_rules(self, codes, specs, stats_model, total_weight: float):
        """The split rules and growth limits of this estimator's parameters."""
        release8 = getattr(self, "release", "1993") == "8"
        rules = SplitRules(
            multiway_categorical=self._multiway_categorical,
            # CART has no `selection`: the largest impurity decrease wins.
            selection=getattr(self, "selection", "gain"),
            min_samples_leaf=self.min_samples_leaf,
            min_cases=getattr(self, "min_cases", 1),
            min_weight_leaf=self.min_weight_fraction_leaf * total_weight,
            missing=self._missing,
            max_surrogates=getattr(self, "max_surrogates", 0),
            release8=release8,
            many_valued=_many_valued(specs, total_weight) if release8 else None,
            split_values=_split_values(codes, specs, stats_model.w) if release8 else None,
        )
        limits = GrowthLimits(
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_features=_resolve_max_features(self.max_features, len(specs)),
            require_positive_gain=self._require_positive_gain,
            max_leaf_nodes=getattr(self, "max_leaf_nodes", None),
        )
        return rules, limits

    def _grows_together(self) -> bool:
        """Whether :meth:`_grow_together` grows the trees this estimator's ``_grow`` would.

        Level-by-level CART growth whose rules do not depend on a tree's
        total weight (no ``min_weight_fraction_leaf``), with additive
        statistics and without C4.5's fractional entries.
        """
        return (
            getattr(self, "max_leaf_nodes", None) is None
            and self.min_weight_fraction_leaf == 0
            and self._missing in ("error", "default_direction")
            and getattr(self, "criterion", None) != "absolute_error"
            and not self._multiway_categorical
            and getattr(self, "release", "1993") != "8"
        )

    def _grow_together(self, codes, specs, stats_model, root_of_row, rngs) -> list[Tree]:
        """Trees grown together on groups of rows (``root_of_row``), one generator each.

        Tree ``t`` is what :meth:`_grow` grows on the rows of group ``t`` with
        ``rngs[t]`` (see :func:`mltrees.tree._grow.grow_trees_together`).
        """
        self._check_trainable_missing(codes, specs)
        rules, limits = self._growth_rules(codes, specs, stats_model, 0.0)
        trees = grow_trees_together(codes, specs, stats_model, rules, limits, root_of_row, rngs)
        ccp_alpha = getattr(self, "ccp_alpha", 0.0)
        if ccp_alpha > 0:
            trees = [prune_cost_complexity(tree, ccp_alpha) for tree in trees]
        return trees

    _missing_methods: tuple[str, ...] = ("error", "c45")

    @property
    def _missing(self) -> str:
        """The missing-value method (estimators without ``missing=`` have none)."""
        return getattr(self, "missing", "error")

    def _validate_missing(self):
        """Check ``missing=`` against the methods this algorithm supports (chapter 6)."""
        if self._missing not in self._missing_methods:
            allowed = ", ".join(repr(m) for m in self._missing_methods)
            raise ValueError(
                f"missing must be one of {allowed} for {type(self).__name__}, got {self._missing!r}"
            )
        if hasattr(self, "max_surrogates"):
            check_int(self.max_surrogates, "max_surrogates", 1)

    def _learns_directions_without_sums(self) -> bool:
        """A learned default direction asked of absolute error, whose statistics are not sums."""
        return self._missing == "default_direction" and self.criterion == "absolute_error"

    def _check_trainable_missing(self, codes: np.ndarray, specs) -> None:
        """Refuse training NaN that the missing-value method cannot learn from (absolute error).

        Without a missing value in training, "default_direction" needs no
        sums: every node's default child is the one with more rows.
        """
        if not self._learns_directions_without_sums():
            return
        if codes.dtype.kind == "i" and (codes < 0).any():
            column = specs[int((codes < 0).any(axis=0).argmax())].name
            raise ValueError(
                f"X has missing values (NaN) in column {column!r}, and "
                "missing='default_direction' cannot learn where they go with "
                "criterion='absolute_error' (its node statistics are medians, not sums); "
                "pass missing='c45' or missing='surrogate', or impute them"
            )

    def _missing_fix(self) -> str:
        """What to pass to route missing values, for the messages that refuse them."""
        default = inspect.signature(type(self).__init__).parameters["missing"].default
        methods = [m for m in self._missing_methods if m != "error"]
        if not methods:
            return "impute them"
        first = default if default in methods else methods[0]
        others = [m for m in methods if m != first]
        alternatives = f" (or {', '.join(repr(m) for m in others)})" if others else ""
        return f"pass missing={first!r}{alternatives} to route them, or impute them"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Absolute error with "default_direction" routes NaN at predict but
        # cannot train on it: NaN is not allowed in the sense of the tag.
        tags.input_tags.allow_nan = (
            self._missing != "error" and not self._learns_directions_without_sums()
        )
        return tags

    def _validate_pruning_params(self):
        """Parameters of the subclasses that prune (``ccp_alpha``, ``pruning``...)."""
        if hasattr(self, "ccp_alpha"):
            alpha = self.ccp_alpha
            if (
                isinstance(alpha, bool)
                or not isinstance(alpha, numbers.Real)
                or not np.isfinite(alpha)
                or alpha < 0
            ):
                raise ValueError(f"ccp_alpha must be a float >= 0, got {alpha!r}")
        if hasattr(self, "selection") and (
            not isinstance(self.selection, str) or self.selection not in _SELECTIONS
        ):
            raise ValueError(
                f"selection must be 'gain', 'gain_ratio' or 'c45', got {self.selection!r}"
            )
        if hasattr(self, "release") and (
            not isinstance(self.release, str) or self.release not in _RELEASES
        ):
            raise ValueError(
                "release must be '8' (C4.5 release 8, as Weka's J48) or '1993' (the rules "
                f"of Quinlan's 1993 book), got {self.release!r}"
            )
        if hasattr(self, "min_cases"):
            check_int(self.min_cases, "min_cases", 1)
        if hasattr(self, "pruning"):
            if self.pruning not in (None, "pessimistic"):
                raise ValueError(f"pruning must be 'pessimistic' or None, got {self.pruning!r}")
            cf = self.confidence
            if isinstance(cf, bool) or not isinstance(cf, numbers.Real) or not 0 < cf <= 0.5:
                raise ValueError(f"confidence must be a float in (0, 0.5], got {cf!r}")

    def _prune_grown(self, tree, X_kept, specs, statistics) -> Tree:
        """Post-pruning that needs the training rows (C4.5); the default keeps the tree."""
        return tree

    def _values(self, X) -> np.ndarray:
        """Prediction input as one float matrix (see ``encode_features``).

        Categorical columns are checked for missing values here; numeric ones
        by :meth:`_check_numeric`, which :meth:`Tree.apply` runs block by block.
        """
        check_is_fitted(self, "tree_")
        X = as_table(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        values = encode_features(X, self._specs)
        # A category unseen in training is routed (see Tree.apply); a missing
        # value is not, because this estimator has no missing-value method.
        categorical = [j for j, spec in enumerate(self._specs) if spec.kind != NUMERIC]
        if categorical and self._missing == "error":
            frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
            missing = [j for j in categorical if pd.isna(frame.iloc[:, j]).any()]
            if missing:
                self._raise_missing(missing[0])
        return values

    def _check_numeric(self, values: np.ndarray) -> None:
        """Raise on NaN or infinity in a numeric column of ``values``."""
        numeric = [j for j, spec in enumerate(self._specs) if spec.kind == NUMERIC]
        if len(numeric) < len(self._specs):
            values = values[:, numeric]
        if all_finite(values):
            return
        if np.isinf(values).any():
            raise ValueError("X contains inf")
        if self._missing != "error":  # NaN is a missing value the tree can route
            return
        self._raise_missing(numeric[int(np.isnan(values).any(axis=0).argmax())])

    def _raise_missing(self, column: int):
        raise ValueError(
            f"X has missing values (NaN) in column {self._specs[column].name!r}; this "
            f"{type(self).__name__} was fitted with missing='error' (refit with another "
            f"method: {self._missing_fix()})"
        )

    def _apply(self, X, return_path: bool = False):
        values = self._values(X)
        try:
            return self.tree_.apply(
                values, return_path=return_path, check_block=self._check_numeric
            )
        except ValueError:
            # A block failed: report on the whole input, so that the message
            # names the first bad column whatever block it was found in.
            self._check_numeric(values)
            raise

    def apply(self, X: MatrixLike) -> np.ndarray:
        """Index of the node each sample ends in (a leaf, or see :meth:`Tree.apply`).

        With ``missing="c45"`` a sample whose tested value is missing ends
        at the node where its weight is divided among the branches.
        """
        return self._apply(X)

    def _node_values(self, X):
        """Each sample's prediction as node values: ``(nodes, None)`` or ``(None, mixed)``.

        With C4.5's method a sample may end in several leaves; its value is
        then the weighted mix of their values (:eq:`eq-c45-predict`, chapter
        6). Samples that meet no missing value get exactly their node's value.
        """
        if self._missing != "c45":
            return self._apply(X), None
        values = self._values(X)
        try:
            return None, self.tree_.weighted_value(values, check_block=self._check_numeric)
        except ValueError:
            self._check_numeric(values)
            raise

    def decision_path(self, X):
        """Sparse indicator matrix (n_samples, n_nodes) of the nodes each sample visits."""
        from scipy.sparse import csr_matrix

        ends, samples, nodes = self._apply(X, return_path=True)
        data = np.ones(samples.size, dtype=np.intp)
        shape = (ends.shape[0], self.tree_.node_count)
        return csr_matrix((data, (samples, nodes)), shape=shape)

    def get_depth(self) -> int:
        """Depth of the tree: the number of tests on the longest path."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean decrease in impurity per feature, normalised to sum to 1."""
        check_is_fitted(self, "tree_")
        return self.tree_.compute_feature_importances(self.n_features_in_)

    def _encoded_for_view(self, X):
        """Rows as the tree reads them (numbers, codes, NaN), checked as ``predict`` does."""
        values = self._values(X)
        self._check_numeric(values)
        return values

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_split_codes",)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.tree._model_file import _rebuild_single_tree

        _rebuild_single_tree(self)

    def _drawable_tree(self, tree_index):
        """Tree ``tree_index`` with its labels, as ``plot_tree`` and ``to_dot`` draw it."""
        from mltrees.tree._drawable import single_drawable

        return single_drawable(self, tree_index)

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model (its input, comparisons, link)."""
        from sklearn.base import is_classifier

        from mltrees.io.onnx_export import codes_plan
        from mltrees.tree.view import view_of

        view = view_of(self)
        classifier = is_classifier(self)
        classes = np.asarray(self.classes_) if classifier else None
        link = "proba" if classifier else "identity"
        return codes_plan(self, view, self._specs, self._missing, link, classes)


class _TreeClassifier(ClassifierMixin, _BaseTree):
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow the tree on ``(X, y)``, optionally weighting the samples.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Features; pandas category/object/bool columns are categorical.
        y : array_like of shape (n_samples,)
            Class labels.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight, self._prepare_classes)

    def _prepare_classes(self, y, weights):
        classes, y_codes = class_codes(y)
        weights = weights * self._class_weights(y_codes, classes)
        attributes = {"classes_": classes, "n_classes_": len(classes), "n_outputs_": 1}

        def make_statistics(keep):
            return ClassificationStatistics(
                y_codes[keep], weights[keep], len(classes), self._engine_criterion
            )

        return weights, attributes, make_statistics

    @property
    def _engine_criterion(self) -> str:
        return "gini" if self.criterion == "gini" else "entropy"

    def _class_weights(self, y_codes, classes):
        if self.class_weight is None:
            return np.ones(y_codes.shape[0])
        n_classes = len(classes)
        if isinstance(self.class_weight, str) and self.class_weight == "balanced":
            counts = np.bincount(y_codes, minlength=n_classes)
            per_class = y_codes.shape[0] / (n_classes * np.maximum(counts, 1))
            return per_class[y_codes]
        if isinstance(self.class_weight, dict):
            unknown = set(self.class_weight) - set(classes.tolist())
            if unknown:
                raise ValueError(f"class_weight names classes not in y: {sorted(unknown)!r}")
            per_class = np.array([float(self.class_weight.get(c, 1.0)) for c in classes])
            if (per_class < 0).any():
                raise ValueError("class_weight values must be >= 0")
            return per_class[y_codes]
        raise ValueError(
            f"class_weight must be None, 'balanced' or a dict, got {self.class_weight!r}"
        )

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities: the class fractions of the node each sample reaches."""
        nodes, mixed = self._node_values(X)  # checks that the model is fitted first
        return self.tree_.value[nodes] if mixed is None else mixed

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The most probable class; ties go to the first class in ``classes_``."""
        nodes, mixed = self._node_values(X)
        if mixed is not None:
            return self.classes_[np.argmax(mixed, axis=1)]
        # The class each node predicts, looked up once per node, not per sample.
        return self.classes_[self.tree_.node_argmax()[nodes]]

    def _tree_model_view(self):
        """The tree as a :class:`~mltrees.tree.view.TreeModelView` of ``predict_proba``."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        check_is_fitted(self, "tree_")
        K = self.tree_.value.shape[1]
        return TreeModelView(
            trees=[self.tree_],
            tables=[self.tree_.value],
            columns=[np.arange(K)],
            n_outputs=K,
            base=np.zeros(K),
            encode=self._encoded_for_view,
            output=self.predict_proba,
            feature_names=feature_names_of(self),
            output_name="predict_proba (one column per class)",
        )


class _TreeRegressor(RegressorMixin, _BaseTree):
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow the tree on ``(X, y)``, optionally weighting the samples.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Features; pandas category/object/bool columns are categorical.
        y : array_like of shape (n_samples,)
            Real targets.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative weights.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight, self._prepare_targets)

    def _prepare_targets(self, y, weights):
        y = real_targets(y)
        statistics = (
            AbsoluteErrorStatistics if self.criterion == "absolute_error" else RegressionStatistics
        )

        def make_statistics(keep):
            return statistics(y[keep], weights[keep])

        return weights, {"n_outputs_": 1}, make_statistics

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The mean target of the node each sample reaches."""
        nodes, mixed = self._node_values(X)
        return self.tree_.value[nodes, 0] if mixed is None else mixed[:, 0]

    def _tree_model_view(self):
        """The tree as a :class:`~mltrees.tree.view.TreeModelView` of ``predict``."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        check_is_fitted(self, "tree_")
        return TreeModelView(
            trees=[self.tree_],
            tables=[self.tree_.value[:, :1]],
            columns=[np.zeros(1, dtype=np.intp)],
            n_outputs=1,
            base=np.zeros(1),
            encode=self._encoded_for_view,
            output=lambda X: self.predict(X)[:, None],
            feature_names=feature_names_of(self),
            output_name="predict",
            squeeze=True,
        )


_SHARED_PARAMS = """
    max_depth : int or None, default None
        Largest depth; None grows until the other stopping rules apply.
    min_samples_split : int, default 2
        A node with fewer samples is not split.
    min_samples_leaf : int, default 1
        Every child of a split must keep at least this many samples (for a
        multiway split: every non-empty branch).
    min_weight_fraction_leaf : float in [0, 0.5], default 0
        Every child of a binary split must keep at least this fraction of
        the total sample weight.
    min_impurity_decrease : float, default 0
        Split only if ``N_t / N * gain >= min_impurity_decrease``.
    max_features : None, "sqrt", "log2", int or float, default None
        Number of features drawn at random for each node.
    random_state : int, numpy Generator or None, default None
        Seeds the feature draws of ``max_features``.
    max_bins : int or None, default None
        None: exact splits at midpoints of the node's sorted values.
        An int: quantile histogram with at most this many bins per feature.
    categorical_features : list of int or str, or bool mask, optional
        Columns to treat as categorical in addition to pandas category,
        object and bool columns.
"""


def _shared_parameters(cls):
    """Fill the ``{shared_parameters}`` slot of an estimator's docstring."""
    cls.__doc__ = cls.__doc__.replace("    {shared_parameters}\n", _SHARED_PARAMS.lstrip("\n"))
    return cls


class _CostComplexityMixin:
    """CART's cost-complexity pruning (chapter 5), with scikit-learn's semantics."""

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The weakest-link sequence of the unpruned tree grown on ``(X, y)``.

        Implements :eq:`eq-ccp-alpha-eff` (chapter 5) through
        :func:`mltrees.tree.pruning.cost_complexity_path`: one node is pruned
        per step, so alphas can repeat, as in scikit-learn.

        Returns
        -------
        sklearn.utils.Bunch
            ``ccp_alphas`` (increasing, 0 first) and ``impurities`` (the total
            weighted leaf impurity of the pruned tree after each step).
        """
        from sklearn.base import clone
        from sklearn.utils import Bunch

        full = clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight=sample_weight)
        alphas, impurities, _ = cost_complexity_path(full.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)


@_shared_parameters
class CARTClassifier(_CostComplexityMixin, _TreeClassifier):
    """CART classification tree: binary splits scored by the Gini index.

    Implements Breiman et al.'s CART :cite:p:`breiman1984` as chapter 4
    describes it: numeric features are bi-partitioned at midpoints, a
    categorical feature is split into two subsets of categories ordered by
    their class-1 share (optimal for two classes), and the split that most
    reduces the weighted Gini value (:eq:`eq-gini`) wins.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default "gini"
        Node impurity; entropy is in bits.
    {shared_parameters}
    class_weight : dict, "balanced" or None, default None
        Per-class weights multiplied into the sample weights.
    missing : {"default_direction", "c45", "surrogate", "error"}, default "default_direction"
        What to do with missing values (NaN, None, pd.NA) in X, at fit and
        predict (chapter 6). "default_direction", scikit-learn's rule for its
        DecisionTreeClassifier: every threshold is tried with the missing
        values on the right and on the left, and "known values left, missing
        right" is a candidate too (:eq:`eq-default-direction`); a node that
        saw no missing value of its feature sends one to the child with more
        training rows (ties: right). "c45": Quinlan's fractional weights
        (:eq:`eq-c45-gain`, :eq:`eq-c45-predict`). "surrogate": CART's own
        method (Breiman et al. 1984, section 5.3): each split is chosen on the
        rows where its feature is known, its gain scaled by their weight
        fraction (:eq:`eq-c45-gain`), and a row whose tested value is missing
        follows the first surrogate split whose feature it knows
        (:eq:`eq-surrogate-agreement`), else the majority child. "error": a
        ValueError naming the column.
    max_surrogates : int >= 1, default 5
        With ``missing="surrogate"``: surrogate splits kept per node, best
        first (rpart's ``maxsurrogate``). Only surrogates that agree with
        the split more often than the majority rule are kept
        (:eq:`eq-surrogate-association`).
    ccp_alpha : float >= 0, default 0
        Cost-complexity parameter alpha of :eq:`eq-ccp-cost` (chapter 5): the
        tree is pruned to the subtree of the weakest-link sequence whose
        effective alphas are at most ``ccp_alpha`` (0: no pruning).
    max_leaf_nodes : int >= 2 or None, default None
        None: the tree grows level by level until the other limits stop it.
        An int: the tree grows best first (scikit-learn's ``max_leaf_nodes``):
        the leaf whose best split has the largest weighted impurity decrease
        ``N_t / N * gain`` (:eq:`eq-ch11-best-first`) is split next, until the
        tree has ``max_leaf_nodes`` leaves or no leaf can be split. Not with
        ``missing="c45"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from mltrees import CARTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = CARTClassifier(max_depth=2).fit(X, y)
    >>> tree.get_n_leaves(), round(tree.score(X, y), 3)
    (3, 0.96)
    >>> X_holes = X[:3].copy()
    >>> X_holes[0, 2] = np.nan  # a setosa without its petal length, the root's feature
    >>> tree.predict(X_holes).tolist()  # it goes where most training rows went
    [1, 0, 0]
    """

    _criteria = ("gini", "entropy", "log_loss")
    _missing_methods = ("error", "c45", "default_direction", "surrogate")

    def __init__(
        self,
        *,
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
        class_weight=None,
        max_bins=None,
        categorical_features=None,
        ccp_alpha=0.0,
        missing="default_direction",
        max_surrogates=5,
        max_leaf_nodes=None,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state
        self.class_weight = class_weight
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.ccp_alpha = ccp_alpha
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.max_leaf_nodes = max_leaf_nodes


@_shared_parameters
class CARTRegressor(_CostComplexityMixin, _TreeRegressor):
    """CART regression tree: binary splits that most reduce the squared error.

    With squared error, leaves predict the mean of their targets and a
    categorical feature is split into two subsets of categories ordered by
    their mean target, which is optimal (Breiman et al. 1984). With absolute
    error, leaves predict the weighted median and candidate splits are scored
    by the exact sum of absolute deviations of both children; categories are
    then ordered by their median (a heuristic).

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error"}, default "squared_error"
        Node impurity: the weighted variance of the targets, or their mean
        absolute deviation from the weighted median.
    {shared_parameters}
    missing : {"default_direction", "c45", "surrogate", "error"}, default "default_direction"
        What to do with missing values (NaN, None, pd.NA) in X, at fit and
        predict (chapter 6). "default_direction", scikit-learn's rule for its
        DecisionTreeRegressor: every threshold is tried with the missing
        values on the right and on the left, and "known values left, missing
        right" is a candidate too (:eq:`eq-default-direction`); a node that
        saw no missing value of its feature sends one to the child with more
        training rows (ties: right). With absolute error it needs training
        data without missing values (the default child of every node is then
        the larger one); to train on NaN there, choose "c45" or "surrogate".
        "c45": Quinlan's fractional weights (:eq:`eq-c45-gain`,
        :eq:`eq-c45-predict`). "surrogate": CART's own method (Breiman et al.
        1984, section 5.3): each split is chosen on the rows where its feature
        is known, its gain scaled by their weight fraction
        (:eq:`eq-c45-gain`), and a row whose tested value is missing follows
        the first surrogate split whose feature it knows
        (:eq:`eq-surrogate-agreement`), else the majority child. "error": a
        ValueError naming the column.
    max_surrogates : int >= 1, default 5
        With ``missing="surrogate"``: surrogate splits kept per node, best
        first (rpart's ``maxsurrogate``). Only surrogates that agree with
        the split more often than the majority rule are kept
        (:eq:`eq-surrogate-association`).
    ccp_alpha : float >= 0, default 0
        Cost-complexity parameter alpha of :eq:`eq-ccp-cost` (chapter 5): the
        tree is pruned to the subtree of the weakest-link sequence whose
        effective alphas are at most ``ccp_alpha`` (0: no pruning).
    max_leaf_nodes : int >= 2 or None, default None
        None: the tree grows level by level until the other limits stop it.
        An int: the tree grows best first (scikit-learn's ``max_leaf_nodes``):
        the leaf whose best split has the largest weighted impurity decrease
        ``N_t / N * gain`` (:eq:`eq-ch11-best-first`) is split next, until the
        tree has ``max_leaf_nodes`` leaves or no leaf can be split. Not with
        ``missing="c45"``.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import CARTRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> tree = CARTRegressor(max_depth=3, min_samples_leaf=20).fit(X, y)
    >>> tree.get_depth(), tree.get_n_leaves()
    (3, 8)
    >>> round(tree.score(X, y), 3)
    0.496
    """

    _criteria = ("squared_error", "absolute_error")
    _missing_methods = ("error", "c45", "default_direction", "surrogate")

    def __init__(
        self,
        *,
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
        max_bins=None,
        categorical_features=None,
        ccp_alpha=0.0,
        missing="default_direction",
        max_surrogates=5,
        max_leaf_nodes=None,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.ccp_alpha = ccp_alpha
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.max_leaf_nodes = max_leaf_nodes


@_shared_parameters
class ID3Classifier(_TreeClassifier):
    """Quinlan's ID3: multiway splits on categorical features by information gain.

    Each internal node tests one categorical feature and has one branch per
    category seen in training; a branch that receives no training samples
    becomes a leaf with its parent's class distribution. Numeric features
    are rejected with an error that says how to discretize them.

    Parameters
    ----------
    criterion : {"entropy"}, default "entropy"
        Information gain in bits (:eq:`eq-mutual-information`).
    {shared_parameters}
    class_weight : dict, "balanced" or None, default None
        Per-class weights multiplied into the sample weights.
    selection : {"gain", "gain_ratio", "c45"}, default "gain"
        How the split feature is chosen: the largest information gain
        (:eq:`eq-mutual-information`, ID3), the largest gain ratio, or C4.5's
        rule (the largest gain ratio among features with at least average gain).
    missing : {"c45", "error"}, default "c45"
        What to do with missing values (NaN, None, pd.NA) in X (chapter 6).
        "c45": Quinlan's fractional weights (:eq:`eq-c45-gain`,
        :eq:`eq-c45-predict`), C4.5's method, which Zhou applies to ID3's
        information gain on watermelon 2.0alpha: on data without missing
        values the tree is ID3's. "error": a ValueError naming the column.

    Examples
    --------
    >>> from mltrees import ID3Classifier, export_text
    >>> from mltrees.datasets import load_weather
    >>> X, y = load_weather(return_X_y=True)  # Quinlan's 14 days, all categorical
    >>> id3 = ID3Classifier().fit(X, y)
    >>> print(export_text(id3), end="")
    |--- outlook = sunny
    |   |--- humidity = high
    |   |   |--- class: no
    |   |--- humidity = normal
    |   |   |--- class: yes
    |--- outlook = overcast
    |   |--- class: yes
    |--- outlook = rainy
    |   |--- windy = TRUE
    |   |   |--- class: no
    |   |--- windy = FALSE
    |   |   |--- class: yes
    """

    _criteria = ("entropy",)
    _multiway_categorical = True
    _require_positive_gain = True
    _numeric_features = False

    def __init__(
        self,
        *,
        criterion="entropy",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
        class_weight=None,
        max_bins=None,
        categorical_features=None,
        selection="gain",
        missing="c45",
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state
        self.class_weight = class_weight
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.selection = selection
        self.missing = missing


@_shared_parameters
class C45Classifier(ID3Classifier):
    """Quinlan's C4.5, release 8 by default: gain ratio above the average gain, then pruning.

    Categorical features get multiway splits, numeric ones are bi-partitioned
    at midpoints. Among the features whose information gain is at least the
    average, the one with the largest gain ratio wins (:eq:`eq-ch4-c45-rule`).
    With ``release="8"`` (the default) the rules are those of C4.5 release 8
    :cite:p:`quinlan1996`, which Weka's J48 implements and practitioners use:

    * the gain of a numeric feature's best threshold loses ``lg(C) / W`` bits,
      ``C`` being the number of thresholds tried and ``W`` the node's weight
      (the MDL correction, :eq:`eq-mdl-correction`); a numeric feature whose
      corrected gain is not positive is no candidate;
    * each side of a numeric threshold holds at least
      ``min(25, max(min_cases, 0.1 W / K))`` of weight, ``K`` classes
      (:eq:`eq-min-split`);
    * the average gain is taken over the useful features only (those with an
      admissible split; nominal ones with at least 0.3 n values are left out),
      and scores are compared with J48's tolerance of 1e-6;
    * subtrees that do not lower the training errors are collapsed
      (:eq:`eq-c45-collapse`), also when ``pruning=None`` (J48's ``-U``).

    ``release="1993"`` keeps the rules of Quinlan's book :cite:p:`quinlan1993`:
    uncorrected gains, ``min_cases`` on each side, the average over every
    feature with a valid split, and no collapse without pruning.

    The grown tree is then pruned as C4.5 and J48 do by default (chapter 5):
    collapse, and pessimistic error pruning with confidence 0.25 that replaces
    subtrees by leaves or by their largest branch (subtree raising).

    Parameters
    ----------
    criterion : {"entropy"}, default "entropy"
        Gains are in bits.
    {shared_parameters}
    class_weight : dict, "balanced" or None, default None
        Per-class weights multiplied into the sample weights.
    selection : {"c45", "gain_ratio", "gain"}, default "c45"
        How the split feature is chosen: C4.5's rule (:eq:`eq-ch4-c45-rule`,
        the largest gain ratio among features with at least average gain),
        the plain largest gain ratio (:eq:`eq-ch4-gain-ratio`), or the largest
        information gain (:eq:`eq-ch4-gain`, as in Zhou's Figure 4.8). With
        ``release="8"`` numeric gains are MDL-corrected in all three.
    release : {"8", "1993"}, default "8"
        Which C4.5: release 8 (Quinlan 1996; Weka's J48) or the 1993 book.
    min_cases : int, default 2
        C4.5's MINOBJS (``-m`` of C4.5, ``-M`` of J48): a split is admissible
        only if at least two of its branches hold ``min_cases`` of weight (both
        sides of a numeric threshold; release 8 asks for :eq:`eq-min-split`
        there), and a node with less than ``2 * min_cases`` is not split.
        Unlike ``min_samples_leaf`` it allows small branches of a multiway
        split.
    pruning : {"pessimistic", None}, default "pessimistic"
        C4.5's pessimistic error pruning (:eq:`eq-pessimistic-rule`); None
        keeps the grown tree (collapsed with ``release="8"``, as J48's ``-U``).
    confidence : float in (0, 0.5], default 0.25
        C4.5's CF: the confidence level of the upper error bound
        (:eq:`eq-pessimistic-upper`); smaller values prune more.
    subtree_raising : bool, default True
        Let pessimistic pruning replace a node by its largest branch (J48's
        default).
    missing : {"c45", "error"}, default "c45"
        What to do with missing values (NaN, None) in X (chapter 6). "c45",
        as Quinlan's C4.5 and Weka's J48 do: a feature is scored on the rows
        where it is known, its gain multiplied by their weight fraction
        (:eq:`eq-c45-gain`); a row whose tested value is missing goes down
        every branch with a share of its weight (:eq:`eq-c45-r`), at fit and at
        predict (:eq:`eq-c45-predict`). "error": a ValueError naming the column.

    Examples
    --------
    >>> from mltrees import C45Classifier, export_text
    >>> from mltrees.datasets import load_weather
    >>> X, y = load_weather(numeric=True, return_X_y=True)  # temperature, humidity: numbers
    >>> c45 = C45Classifier(pruning=None).fit(X, y)
    >>> print(export_text(c45, decimals=1), end="")
    |--- outlook = sunny
    |   |--- humidity <= 75.0
    |   |   |--- class: yes
    |   |--- humidity >  75.0
    |   |   |--- class: no
    |--- outlook = overcast
    |   |--- class: yes
    |--- outlook = rainy
    |   |--- windy = TRUE
    |   |   |--- class: no
    |   |--- windy = FALSE
    |   |   |--- class: yes
    """

    def __init__(
        self,
        *,
        criterion="entropy",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
        class_weight=None,
        max_bins=None,
        categorical_features=None,
        selection="c45",
        release="8",
        min_cases=2,
        pruning="pessimistic",
        confidence=0.25,
        subtree_raising=True,
        missing="c45",
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state
        self.class_weight = class_weight
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.selection = selection
        self.release = release
        self.min_cases = min_cases
        self.pruning = pruning
        self.confidence = confidence
        self.subtree_raising = subtree_raising
        self.missing = missing

    _numeric_features = True

    _prunes_grown_tree = True

    def _prune_grown(self, tree, X_kept, specs, statistics) -> Tree:
        """C4.5's collapse (:eq:`eq-c45-collapse`), then pessimistic pruning.

        Pessimistic pruning is :eq:`eq-pessimistic-rule` (chapter 5).
        """
        if self.pruning is None:
            return prune_collapse(tree) if self.release == "8" else tree
        data = None
        if self.subtree_raising:
            data = (encode_features(X_kept, specs), statistics.y, statistics.w)
        return prune_pessimistic(
            tree, self.confidence, subtree_raising=bool(self.subtree_raising), data=data
        )


DecisionTreeClassifier = CARTClassifier
DecisionTreeRegressor = CARTRegressor
