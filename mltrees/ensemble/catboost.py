"""CatBoost's algorithm: oblivious trees, ordered statistics, ordered boosting (chapter 15).

Prokhorenkova, Gusev, Vorobev, Dorogush & Gulin (2018). Each round computes
the weighted negative gradients ``S = w (y - F)`` (or ``w (y - p)``), grows
one oblivious tree on them (:func:`~mltrees.hist.catboost.oblivious.grow_oblivious`)
and adds ``learning_rate`` times its Newton (or gradient) leaf values.

The estimators are named after the tree shape, not the library, so that
they can sit beside ``catboost.CatBoostClassifier`` in the same program.
Where a parameter means what CatBoost's means it has CatBoost's name. The
rules that decide the model follow CatBoost 1.2: float32 features, labels
and learning rate; borders (:mod:`~mltrees.hist.catboost.borders`); the
scaled ``λ = l2_leaf_reg · Σw / n``; the starting score; the statistics of
categorical features (:mod:`~mltrees.hist.catboost.ctr`); and ordered
boosting's blocks. So with CatBoost's ``bootstrap_type="No"``,
``random_strength=0`` and ``model_size_reg=0`` the raw scores equal the
``catboost`` 1.2 package's to 1e-9 for every parameter documented below,
drawn together (``tests/differential/test_catboost.py``). Outside that
scope: ``has_time=False`` (the permutations differ and only the accuracy
can be compared), combinations of categorical features
(``max_ctr_complexity`` > 1), several leaf-estimation iterations,
``l2_leaf_reg=0``, and more than 200,000 rows (CatBoost then picks the
borders on a random sample). In ordered boosting of the logistic loss the
blocks' approximations move as CatBoost's do, through its fast float
logarithm (:func:`~mltrees.hist.catboost.leaves.exp_approx_steps`).

Defaults that differ from CatBoost's, and why: ``n_estimators=100`` and
``learning_rate=0.1`` (CatBoost: 1000 rounds and a learning rate chosen
from the data size); no sampling of rows (CatBoost: MVS with subsample
0.8), no random noise on split scores (``random_strength=1``) and no
penalty on statistics columns (``model_size_reg=0.5``): those three only
add randomness or shrink a model the book wants to explain exactly.
Missing float values are smaller than every number (``nan_mode="Min"``,
as CatBoost's default).
"""

from __future__ import annotations

from typing import Self

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from mltrees._frames import check_category_values, is_categorical, numeric_values
from mltrees._progress import check_verbose
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import require_two_classes
from mltrees._value_range import check_float32_range
from mltrees.ensemble._common import (
    check_fraction,
    check_positive_int,
    check_score_bound,
    class_codes,
    library_rng,
    real_targets,
)
from mltrees.hist.boosting import BoostingLoop
from mltrees.hist.catboost.borders import fit_borders
from mltrees.hist.catboost.ctr import fit_categorical_statistics, target_class_border
from mltrees.hist.catboost.leaves import exp_approx_steps
from mltrees.hist.catboost.oblivious import (
    ObliviousGrower,
    OrderedEntries,
    doubling_blocks,
    grow_oblivious,
)
from mltrees.tree._data import as_table, validate_fit_input

__all__ = ["ObliviousBoostingClassifier", "ObliviousBoostingRegressor"]

PREDICT_CHUNK = 4096  # rows per block of predict: keeps the answers in cache
# The category a missing value of a categorical feature gets (None, NaN, pd.NA).
MISSING_CATEGORY = "<missing>"


_PARAMS = """
    n_estimators : int, default 100
        Boosting rounds (CatBoost's ``iterations``; its default is 1000).
    learning_rate : float, default 0.1
        Shrinkage η, used in float32 as CatBoost does (CatBoost's default
        is chosen from the data size).
    depth : int, default 6
        Depth of every oblivious tree: ``2**depth`` leaves.
    l2_leaf_reg : float, default 3.0
        λ of the leaf values and split scores, scaled by ``Σw / n``.
    boosting_type : {"Plain", "Ordered"}, default "Plain"
        ``"Ordered"``: split scores from models that never saw the rows they
        score (:eq:`eq-ordered-score`), over doubling blocks of a permutation.
    has_time : bool, default False
        Use the data order as the permutation (ordered statistics and
        ordered boosting) instead of a random one.
    random_state : int, Generator or None, default None
        Seeds the permutation. None: a fixed seed, as CatBoost's default
        ``random_seed=0``, so that two fits on the same data give the same model.
    cat_features : list of int or str, or None, default None
        Categorical features (any values: numbers, strings). ``None``: the
        categorical columns of a DataFrame under the package's one rule
        (``category``, ``str``/``string``, ``bool``, ``object`` of strings;
        an ``object`` column of numbers is numeric). A missing value of a
        categorical feature (None, NaN, ``pd.NA``) is a category of its own,
        ``MISSING_CATEGORY``: CatBoost refuses such values and asks for a
        placeholder, which is what this does.
    one_hot_max_size : int, default 2
        Categorical features with at most this many categories are one-hot
        encoded; the others get the ordered Borders statistics (priors 0,
        0.5, 1) and the Counter statistic (:eq:`eq-ordered-ts`).
    border_count : int, default 254
        At most this many borders per float feature (255 bins).
    score_function : {"Cosine", "L2"}, default "Cosine"
        The split score (:eq:`eq-catboost-cosine-score`, :eq:`eq-catboost-l2-score`).
    leaf_estimation_method : {"Newton", "Gradient"}, default "Newton"
        Leaf value ``S / (𝓗 + λ)`` or ``S / (W + λ)``.
    boost_from_average : bool or None, default None
        Start from the mean (regression) or the log-odds of the class share;
        None: True for regression, False for classification, as CatBoost.
    verbose : int, default 0
        If > 0, report the training loss every ``verbose`` rounds (a line on
        stdout, or a progress bar in a notebook).
"""


def _doc(cls):
    cls.__doc__ = cls.__doc__.replace("    {params}\n", _PARAMS.lstrip("\n"))
    return cls


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _softmax(score):
    z = np.exp(score - score.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def _text_categories(categories) -> list:
    """The training categories, or none if one of them was a number (kept as its text)."""
    known = [c for c in np.asarray(categories).tolist() if c != MISSING_CATEGORY]
    for value in known:
        try:
            float(value)
        except (TypeError, ValueError):
            continue
        return []  # numbers were categories: numbers can match them
    return known


def _candidate_order(n_borders: np.ndarray, n_float: int, stats) -> np.ndarray:
    """The model's columns in the order CatBoost tries them (which decides exact ties).

    CatBoost packs the binary features (a float feature of one border, a
    one-hot feature of two categories) and tries them after the others
    (``CompressCandidates``): float features first, then one-hot features
    (their categories by CatBoost's numbers), then the binary ones, then
    the statistics columns, each group in feature order.
    """
    group = np.where(n_borders[:n_float] == 1, 2, 0).tolist()
    position = list(range(n_float))
    if stats is not None:
        column = n_float
        for c in range(len(stats.features)):
            n_categories = len(stats.categories[c])
            if n_categories < 2:
                continue
            if stats.one_hot[c]:
                group += [2 if n_categories == 2 else 1] * n_categories
                position += (column + stats.rank[c]).tolist()
                column += n_categories
            else:
                width = 3 * stats.class_count[c].shape[1] + 1
                group += [3] * width
                position += range(column, column + width)
                column += width
    return np.lexsort((position, group))


def _sum_of_leaves(values: np.ndarray, leaf: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``Σ_t values[t, leaf[t]]`` for a block of rows, trees added in order.

    ``values`` (T, 2**d, K), ``leaf`` (T, n_rows). Many rows: one gather per
    tree added into the total; few rows: one gather of all trees, summed
    over the leading axis (row after row as well: it is not the fast axis).
    """
    if leaf.shape[1] >= 1024 and len(values):
        total = values[0].take(leaf[0], axis=0)
        for tree, rows in zip(values[1:], leaf[1:], strict=True):
            total += tree.take(rows, axis=0)
        return total
    flat = values.reshape(-1, values.shape[2])
    return np.add.reduce(flat.take(leaf + offsets, axis=0), axis=0)


def _weighted_target_average(y: np.ndarray, w: np.ndarray) -> float:
    """CatBoost's ``CalculateWeightedTargetAverage``: ``Σ y w / Σ w``, returned in float32.

    The products of the float32 labels and weights are float32, the sums
    run in row order in double.
    """
    y32 = y.astype(np.float32)
    products = y32 if (w == 1.0).all() else y32 * w.astype(np.float32)
    total = float(np.cumsum(products.astype(np.float64))[-1])
    return float(np.float32(total / float(np.cumsum(w)[-1])))


class _ObliviousRounds(BoostingLoop):
    """Oblivious boosting's hooks of the boosting loop: one tree for all outputs.

    The training predictions ``F`` are float64; in ordered boosting every
    entry (a row of a block's body or tail) also keeps its own approximation,
    moved by the steps of its block's body (:eq:`eq-ordered-score`). The
    reported metric is the training loss, computed only when progress is shown.
    """

    def __init__(self, grower, *, model, objective, y, w, F, entries, **loop):
        super().__init__(grower, **loop)
        self.model, self.objective = model, objective
        self.y, self.w, self.F, self.entries = y, w, F, entries
        self.newton = not grower.gradient_step

    def statistics(self, m):
        model, objective = self.model, self.objective
        S, H = model._derivatives(self.y, self.F, self.w, objective)
        if self.entries is None:
            return S, H, None, None
        entry_y, entry_w, approx = self.entries
        S_e, H_e = model._derivatives(entry_y, approx, entry_w, objective)
        return S, H, S_e, H_e

    def grow_stage(self, m, statistics, features):
        S, H, S_e, H_e = statistics
        grower = self.grower
        grown = grower.grow(S, H if self.newton else self.w[:, None], features, scoring=S_e)
        self.F += grown.tree.value[grown.leaf_of_row]
        if self.entries is not None:
            _, entry_w, approx = self.entries
            curvature = H_e if self.newton else entry_w[:, None]
            steps = grower.entry_steps(grown, S_e, curvature)
            if self.objective == "Logloss":  # CatBoost moves exp(F) there, through a fast log
                approx += exp_approx_steps(steps, grower.learning_rate)
            else:
                approx += grower.learning_rate * steps
        return [grown]

    def round_scores(self, stage) -> list[float]:
        if not self.model.verbose:
            return []
        return [self.model._loss(self.y, self.F, self.w, self.objective)]


class _BaseObliviousBoosting(BaseEstimator):
    """The boosting loop shared by the regressor and the classifier."""

    def __init__(
        self,
        *,
        n_estimators=100,
        learning_rate=0.1,
        depth=6,
        l2_leaf_reg=3.0,
        boosting_type="Plain",
        has_time=False,
        random_state=None,
        cat_features=None,
        one_hot_max_size=2,
        border_count=254,
        score_function="Cosine",
        leaf_estimation_method="Newton",
        boost_from_average=None,
        verbose=0,
    ):
        for name, value in locals().items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    # ------------------------------------------------------------------ checks
    def _validate_params(self):
        check_positive_int(self.n_estimators, "n_estimators")
        check_fraction(self.learning_rate, "learning_rate", high=np.inf)
        check_positive_int(self.depth, "depth")
        if self.depth > 16:
            raise ValueError(f"depth must be at most 16, got {self.depth!r}")
        check_fraction(self.l2_leaf_reg, "l2_leaf_reg", low_open=False, high=np.inf)
        for name, allowed in (
            ("boosting_type", ("Plain", "Ordered")),
            ("score_function", ("Cosine", "L2")),
            ("leaf_estimation_method", ("Newton", "Gradient")),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        for name in ("has_time",):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if self.boost_from_average is not None and not isinstance(
            self.boost_from_average, (bool, np.bool_)
        ):
            raise ValueError(
                f"boost_from_average must be a bool or None, got {self.boost_from_average!r}"
            )
        check_positive_int(self.one_hot_max_size, "one_hot_max_size", low=0)
        check_positive_int(self.border_count, "border_count")
        if self.border_count > 254:
            raise ValueError(f"border_count must be at most 254, got {self.border_count!r}")
        check_verbose(self.verbose)

    def _split_input(self, X, *, reset: bool):
        """Float32 numeric matrix, the numeric column indices, the categorical columns."""
        table = as_table(X)
        validate_data(self, table, reset=reset, skip_check_array=True)
        if table.shape[0] == 0:
            raise ValueError(
                f"X is empty: 0 sample(s) (shape={table.shape}) while a minimum of 1 is required."
            )
        names = [str(c) for c in table.columns] if isinstance(table, pd.DataFrame) else None
        if reset:
            self._cat = self._categorical_indices(table, names)
        numeric = [j for j in range(table.shape[1]) if j not in set(self._cat)]
        if isinstance(table, pd.DataFrame):
            numbers = np.empty((table.shape[0], len(numeric)))
            for k, j in enumerate(numeric):
                column = table.iloc[:, j]
                if column.dtype.kind != "b" and is_categorical(column, names[j]):
                    raise TypeError(
                        f"X column {names[j]!r} is categorical ({column.dtype}) but was numeric "
                        "in fit (or is not listed in cat_features): list it in cat_features"
                    )
                numbers[:, k] = numeric_values(column, names[j])
            cat_columns = [table.iloc[:, j].to_numpy() for j in self._cat]
            if not reset and getattr(self, "_cat_stats", None) is not None:
                for k, j in enumerate(self._cat):
                    check_category_values(
                        table.iloc[:, j], _text_categories(self._cat_stats.categories[k]), names[j]
                    )
        else:
            try:
                numbers = table[:, numeric].astype(np.float64)
            except (TypeError, ValueError) as error:
                raise TypeError(
                    f"X holds values that are not numbers ({error}); list categorical "
                    "features in cat_features"
                ) from error
            cat_columns = [table[:, j] for j in self._cat]
        if np.isinf(numbers).any():
            k = int(np.flatnonzero(np.isinf(numbers).any(axis=0))[0])
            column = str(numeric[k]) if names is None else str(names[numeric[k]])
            raise ValueError(f"X contains inf in column {column!r}; missing values must be NaN")
        if reset:
            check_float32_range(
                numbers,
                None if names is None else [names[j] for j in numeric],
                library="CatBoost",
                reason="catboost then puts an infinite border next to it (a constant model)",
            )
        cleaned = []
        for column in cat_columns:
            column = np.asarray(column, dtype=object)
            missing = pd.isna(column)
            known = column[~missing]
            if known.size and isinstance(known[0], (float, np.floating)):
                as_float = known.astype(np.float64)
                if np.array_equal(as_float, np.round(as_float)):
                    column = column.copy()
                    column[~missing] = as_float.astype(np.int64).astype(object)
            # A category of its own (CatBoost refuses NaN); np.where widens the strings.
            cleaned.append(np.where(missing, MISSING_CATEGORY, column.astype(str)))
        with np.errstate(over="ignore"):  # beyond float32 at predict: ±inf compares as the value
            return numbers.astype(np.float32), numeric, cleaned

    def _categorical_indices(self, X, names) -> list:
        spec = self.cat_features
        n_columns = X.shape[1]
        names = names or []
        if spec is None:
            if not isinstance(X, pd.DataFrame):
                return []
            return [j for j, c in enumerate(X.columns) if is_categorical(X[c], str(c))]
        if isinstance(spec, str) or not hasattr(spec, "__iter__"):
            raise ValueError(
                f"cat_features must be a list of column indices or names, got {spec!r}"
            )
        out = []
        for c in spec:
            if isinstance(c, str):
                if c not in names:
                    raise ValueError(f"cat_features names an unknown column {c!r}")
                out.append(names.index(c))
            elif (
                isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < n_columns
            ):
                out.append(int(c))
            else:
                raise ValueError(
                    f"cat_features holds {c!r}, not a column index in [0, {n_columns}) or a name"
                )
        return sorted(set(out))

    # ------------------------------------------------------------------- fit
    def _fit(self, X, y, w, objective: str, n_outputs: int):
        numbers, numeric, cat_columns = self._split_input(X, reset=True)
        w = np.asarray(w, dtype=np.float32).astype(np.float64)  # CatBoost's weights are float32
        n = numbers.shape[0]
        rng = library_rng(self.random_state)
        order = np.arange(n) if self.has_time else rng.permutation(n)
        self._objective = objective
        self._numeric = numeric
        bins = fit_borders(numbers, int(self.border_count))
        self._borders = bins.borders
        codes = bins.codes
        n_borders = [len(b) for b in bins.borders]
        self._cat_stats = None
        if cat_columns:
            if objective == "RMSE":
                target_class = (y > target_class_border(y)).astype(np.float64)[:, None]
            elif objective == "Logloss":
                target_class = y.astype(np.float64)[:, None]
            else:  # K - 1 borders between the class indices
                target_class = (y[:, None] > np.arange(n_outputs - 1)).astype(np.float64)
            stats, cat_codes = fit_categorical_statistics(
                cat_columns, self._cat, target_class, order, int(self.one_hot_max_size)
            )
            self._cat_stats = stats
            codes = np.concatenate((codes, cat_codes))
            n_borders += stats.n_borders
        self._n_borders = np.asarray(n_borders, dtype=np.intp)
        if codes.shape[0] == 0:
            raise ValueError(
                "X has no feature to split on: its only features are categorical with a "
                "single category (CatBoost ignores such features and refuses such data)"
            )
        candidates = _candidate_order(self._n_borders, len(self._borders), self._cat_stats)

        # CatBoost's ScaleL2Reg: the float32 l2_leaf_reg times (Σw / n), Σw in row order.
        lam = float(np.float32(self.l2_leaf_reg)) * (float(np.cumsum(w)[-1]) / n)
        lr = float(np.float32(self.learning_rate))
        bias = self._bias(y, w, objective, n_outputs)
        F = np.tile(bias, (n, 1))
        newton = self.leaf_estimation_method == "Newton"
        # One row has no "earlier rows" to score it with: plain scores then.
        ordered = self.boosting_type == "Ordered" and n > 1
        if ordered:
            ends = doubling_blocks(n)
            starts = np.r_[0, ends[:-1]]
            block_sizes = ends[1:]
            position = np.concatenate([np.arange(e) for e in block_sizes])
            block = np.repeat(np.arange(len(block_sizes)), block_sizes)
            part = 2 * block + (position >= np.repeat(starts[1:], block_sizes))
            entry_rows = order[position]
            entry_codes = codes[:, entry_rows]
            entry_w = w[entry_rows]
            entry_y = y[entry_rows]
            approx = np.tile(bias, (len(entry_rows), 1))
            # Each block scales λ by its own body: l2 · (Σ w of the body / its rows).
            body_weight = np.cumsum(w[order])[ends[:-1] - 1]
            block_lam = float(np.float32(self.l2_leaf_reg)) * (body_weight / ends[:-1])
        grower = ObliviousGrower(
            codes,
            self._n_borders,
            int(self.depth),
            lam,
            self.score_function,
            lr,
            w,
            gradient_step=not newton,
            order=candidates,
            ordered=OrderedEntries(entry_codes, part, entry_w, block_lam) if ordered else None,
            search=grow_oblivious,
        )
        rounds = _ObliviousRounds(
            grower,
            rng=rng,
            n_features=codes.shape[0],
            model=self,
            objective=objective,
            y=y,
            w=w,
            F=F,
            entries=(entry_y, entry_w, approx) if ordered else None,
        )
        trees = [
            stage[0]
            for stage in rounds.run(
                self.n_estimators,
                verbose=self.verbose,
                patience=None,
                name=type(self).__name__,
                prefix="learn_",
            ).trees
        ]
        self._trees = trees
        self._lambda = lam
        self.init_score_ = bias
        self.n_estimators_ = len(trees)
        self._learning_rate32 = lr
        self._close_empty_tests()
        self._compile()
        # (T, 2**d, K) leaf values: each tree's largest |leaf| per output, summed.
        check_score_bound(np.abs(self._values).max(axis=1).sum(axis=0), bias, self.learning_rate)
        return self

    def _close_empty_tests(self):
        """Give a border to float columns that trees test without having one.

        When no column has a border (every feature constant, or one row),
        the trees have no level (:func:`~mltrees.hist.catboost.oblivious.grow_oblivious`
        pads them with column 0, border 0) and every leaf holds the root's
        value, so the model predicts a constant whatever the test answers.
        The border is stored as the largest float32, a finite number that
        no training value passes. CatBoost refuses such data ("All features
        are either constant or ignored"); a constant model is what the data
        support.
        """
        n_float = len(self._borders)
        for tree in self._trees:
            for column, border in zip(tree.feature, tree.border_index, strict=True):
                if column < n_float and border >= len(self._borders[column]):
                    top = np.finfo(np.float32).max
                    self._borders[column] = np.full(border + 1, top, dtype=np.float32)
                    self._n_borders[column] = border + 1

    @staticmethod
    def _bias(y, w, objective, K):
        return np.zeros(K)

    @staticmethod
    def _derivatives(y, F, w, objective):
        """``S = w (y - F)`` or ``w (y - p)`` per row, and what the Newton step needs.

        The second item is the per-row curvature ``w`` (RMSE) or
        ``w p (1 - p)`` (Logloss), shape (n, 1); for MultiClass it is the
        pair ``(w, p)`` from which the leaves' full Hessians
        ``Σ w (diag p - p pᵀ)`` are summed.
        """
        if objective == "RMSE":
            S = (w * (y - F[:, 0]))[:, None]
            return S, w[:, None]
        if objective == "Logloss":
            p = _sigmoid(F[:, 0])
            return (w * (y - p))[:, None], (w * p * (1.0 - p))[:, None]
        p = _softmax(F)
        onehot = np.zeros_like(p)
        onehot[np.arange(len(y)), y.astype(np.intp)] = 1.0
        return w[:, None] * (onehot - p), (w, p)

    @staticmethod
    def _loss(y, F, w, objective):
        if objective == "RMSE":
            return float(np.sqrt(np.average((y - F[:, 0]) ** 2, weights=w)))
        if objective == "Logloss":
            p = np.clip(_sigmoid(F[:, 0]), 1e-15, 1 - 1e-15)
            return float(np.average(-(y * np.log(p) + (1 - y) * np.log(1 - p)), weights=w))
        p = np.clip(_softmax(F), 1e-15, 1.0)
        return float(np.average(-np.log(p[np.arange(len(y)), y.astype(np.intp)]), weights=w))

    # --------------------------------------------------------------- predict
    def _compile(self):
        """The model as arrays, for :meth:`_raw`.

        ``_tests`` are the distinct (column, border) questions of all trees,
        ``_test_of[t, i]`` the question of tree ``t`` at level ``i``; a float
        question is kept as its float32 border value, so prediction compares
        the raw values and never computes bin codes.
        """
        depth = int(self.depth)
        tests = np.array(
            [(f, b) for t in self._trees for f, b in zip(t.feature, t.border_index, strict=True)],
            dtype=np.intp,
        ).reshape(-1, 2)
        unique, inverse = np.unique(tests, axis=0, return_inverse=True)
        self._tests = unique
        self._test_of = inverse.reshape(len(self._trees), depth)
        self._values = np.stack([t.value for t in self._trees])  # (T, 2**d, K)

    def _raw(self, X, n_trees=None) -> np.ndarray:
        """Raw scores ``b + Σ_t v_t[Σ_i [x_{f_ti} > b_ti] 2^i]`` (:eq:`eq-oblivious-leaf`).

        Each distinct question is asked once per row; a tree's leaf is then
        ``depth`` gathers of those answers and one gather of its values.
        """
        check_is_fitted(self, "_trees")
        numbers, _, cat_columns = self._split_input(X, reset=False)
        cat_codes = self._cat_stats.encode(cat_columns) if self._cat_stats is not None else None
        T = len(self._trees) if n_trees is None else n_trees
        depth = int(self.depth)
        n, K = numbers.shape[0], self._values.shape[2]
        columns, borders = self._tests[:, 0], self._tests[:, 1]
        n_float = len(self._borders)
        is_float = columns < n_float
        float_cols = columns[is_float]
        float_cuts = np.array(
            [self._borders[c][b] for c, b in zip(float_cols, borders[is_float], strict=True)],
            dtype=np.float32,
        )
        cat_cols, cat_cuts = columns[~is_float] - n_float, borders[~is_float]
        leaf_dtype = np.uint8 if depth <= 8 else np.uint16
        index_dtype = np.int32 if T << depth < 2**31 else np.intp
        offsets = (np.arange(T, dtype=index_dtype) << depth)[:, None]
        values = self._values[:T]
        raw = np.empty((n, K))
        answers = np.empty((len(columns), 0), dtype=leaf_dtype)
        for start in range(0, n, PREDICT_CHUNK):
            stop = min(start + PREDICT_CHUNK, n)
            block = np.ascontiguousarray(numbers[start:stop].T)  # one row per feature
            answers = np.empty((len(columns), stop - start), dtype=leaf_dtype)
            # NaN > border is False: missing values go left, below every border.
            answers[is_float] = block[float_cols] > float_cuts[:, None]
            if cat_codes is not None:
                answers[~is_float] = cat_codes[cat_cols, start:stop] > cat_cuts[:, None]
            leaf = answers[self._test_of[:T, 0]]
            for i in range(1, depth):
                leaf |= answers[self._test_of[:T, i]] << leaf_dtype(i)
            raw[start:stop] = _sum_of_leaves(values, leaf, offsets)
        return raw + self.init_score_

    # ------------------------------------------------- as ordinary binary trees
    def _column_source(self):
        """For every model column: (original feature, kind, detail).

        kind is "float" (detail: its borders) or "category" (detail: the index of
        the categorical feature and the row of :meth:`encode_feature` it is).
        """
        out = [(j, "float", self._borders[i]) for i, j in enumerate(self._numeric)]
        stats = self._cat_stats
        if stats is not None:
            for c, j in enumerate(stats.features):
                if len(stats.categories[c]) < 2:
                    n_rows = 0  # one category: no column
                elif stats.one_hot[c]:
                    n_rows = len(stats.categories[c])
                else:
                    n_rows = 3 * stats.class_count[c].shape[1] + 1
                out.extend((j, "category", (c, r)) for r in range(n_rows))
        return out

    def _tree_inputs(self, X) -> np.ndarray:
        """Rows as the binary trees of :meth:`_binary_trees` read them.

        Float features are rounded to float32 (the model compares in float32);
        a categorical feature becomes the position of its category among the
        training categories, ``len(categories)`` when unseen.
        """
        check_is_fitted(self, "_trees")
        numbers, numeric, cat_columns = self._split_input(X, reset=False)
        out = np.empty((numbers.shape[0], self.n_features_in_))
        out[:, numeric] = numbers
        for c, column in enumerate(cat_columns):
            out[:, self._cat_stats.features[c]] = self._cat_stats.positions(c, column)
        return out

    def _binary_trees(self) -> list:
        """Every oblivious tree as a full binary :class:`~mltrees.tree._tree.Tree`.

        A test on a statistics or one-hot column is a function of the category
        alone (at prediction time), so it becomes a categorical node of the
        original feature, with a routing table over the training categories
        plus one slot for unseen ones. TreeSHAP and the model views then see
        the original features, as CatBoost's own SHAP values do.
        """
        from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, NUMERIC_NODE, Tree

        sources = self._column_source()
        routes = {}  # (column, border) -> slot of every category (+ unseen)
        stats = self._cat_stats
        out = []
        for t in self._trees:
            d = t.depth
            n_internal, n_nodes = (1 << d) - 1, (1 << (d + 1)) - 1
            feature = np.full(n_nodes, LEAF, dtype=np.intp)
            kind = np.full(n_nodes, -1, dtype=np.intp)
            threshold = np.full(n_nodes, np.nan)
            route_offset = np.zeros(n_nodes, dtype=np.intp)
            n_categories = np.zeros(n_nodes, dtype=np.intp)
            tables = []
            offset = 0
            for level in range(d):
                column, border = int(t.feature[level]), int(t.border_index[level])
                j, what, detail = sources[column]
                nodes = np.arange((1 << level) - 1, (1 << (level + 1)) - 1)
                feature[nodes] = j
                if what == "float":
                    kind[nodes] = NUMERIC_NODE
                    threshold[nodes] = float(detail[border])
                    continue
                key = (column, border)
                if key not in routes:
                    c, r = detail
                    codes = stats.encode_feature(c, np.append(stats.categories[c], "\0unseen"))
                    routes[key] = (codes[r] > border).astype(np.intp)
                table = routes[key]
                kind[nodes] = CATEGORICAL_NODE
                n_categories[nodes] = len(table)
                for node in nodes:
                    route_offset[node] = offset
                    tables.append(table)
                    offset += len(table)
            first_child = np.where(np.arange(n_nodes) < n_internal, 2 * np.arange(n_nodes) + 1, 0)
            n_children = np.where(np.arange(n_nodes) < n_internal, 2, 0)
            order = t.bfs_leaf_order()
            K = t.value.shape[1]
            value = np.zeros((n_nodes, K))
            weight = np.zeros(n_nodes)
            count = np.zeros(n_nodes, dtype=np.int64)
            gradient = np.zeros((n_nodes, K))
            value[n_internal:] = t.value[order]
            weight[n_internal:] = t.weight[order]
            count[n_internal:] = t.count[order]
            gradient[n_internal:] = t.gradient[order]
            for node in range(n_internal - 1, -1, -1):  # children before parents
                a, b = 2 * node + 1, 2 * node + 2
                weight[node] = weight[a] + weight[b]
                count[node] = count[a] + count[b]
                gradient[node] = gradient[a] + gradient[b]
                if weight[node] > 0:
                    value[node] = (weight[a] * value[a] + weight[b] * value[b]) / weight[node]
            # W·impurity = -Σ S²/(W + λ), so a split's impurity decrease is
            # the rise of the L2 score (:eq:`eq-catboost-l2-score`) it brings.
            score = (gradient**2).sum(axis=1) / (weight + self._lambda)
            with np.errstate(divide="ignore", invalid="ignore"):
                impurity = np.where(weight > 0, -score / weight, 0.0)
            depth = np.floor(np.log2(np.arange(n_nodes) + 1)).astype(np.intp)
            parent = np.where(np.arange(n_nodes) > 0, (np.arange(n_nodes) - 1) // 2, -1)
            missing = np.where(np.arange(n_nodes) < n_internal, 0, -1).astype(np.int8)
            out.append(
                Tree(
                    feature=feature,
                    kind=kind,
                    threshold=threshold,
                    first_child=first_child.astype(np.intp),
                    n_children=n_children.astype(np.intp),
                    route_offset=route_offset,
                    route_table=(np.concatenate(tables) if tables else np.zeros(0, dtype=np.intp)),
                    n_categories=n_categories,
                    value=value,
                    impurity=impurity,
                    n_node_samples=count,
                    weighted_n_node_samples=weight,
                    depth=depth,
                    parent=parent.astype(np.intp),
                    missing_slot=missing,  # NaN is below every border: left
                )
            )
        return out

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total split gain per feature, normalised to sum 1 (:eq:`eq-importance-gain`).

        A split's gain is the rise of the L2 score ``Σ S²/(W + λ)`` of its
        round's gradients (:eq:`eq-catboost-l2-score`); statistics and one-hot
        columns count for the categorical feature they come from.
        """
        check_is_fitted(self, "_trees")
        # The sums of inspection.importance(self, "total_gain", normalize=True),
        # tree by tree in the same order, so that both agree to the last bit.
        p = self.n_features_in_
        gains = np.zeros(p)
        for tree in self._binary_trees():
            internal = np.flatnonzero(~tree.is_leaf)
            feature = tree.feature[internal].astype(np.intp)
            gains += np.bincount(feature, weights=tree.node_gains()[internal], minlength=p)
        total = gains.sum()
        return gains / total if total > 0 else gains

    @property
    def trees_(self) -> list:
        """The fitted :class:`~mltrees.hist.catboost.oblivious.ObliviousTree` of every round."""
        check_is_fitted(self, "_trees")
        return list(self._trees)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _tree_model_view(self):
        """The model as a :class:`~mltrees.tree.view.TreeModelView` of its raw score."""
        from mltrees.tree.view import TreeModelView, feature_names_of

        check_is_fitted(self, "_trees")
        trees = self._binary_trees()
        K = self._values.shape[2]
        classifier = isinstance(self, ClassifierMixin)
        return TreeModelView(
            trees=trees,
            tables=[t.value for t in trees],
            columns=[np.arange(K)] * len(trees),
            n_outputs=K,
            base=np.asarray(self.init_score_, dtype=np.float64).reshape(K),
            encode=self._tree_inputs,
            output=lambda X: self._raw(X),
            feature_names=feature_names_of(self),
            output_name="raw score (log-odds)" if classifier else "raw score",
            squeeze=K == 1,
        )

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_tests", "_test_of", "_values")

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.ensemble._model_file import _rebuild_oblivious

        _rebuild_oblivious(self)

    def _drawable_tree(self, tree_index):
        """Tree ``tree_index`` as a binary tree, its categorical statistics' categories named."""
        from mltrees.tree._data import CATEGORICAL, FeatureSpec
        from mltrees.tree._drawable import boosted_drawable

        check_is_fitted(self, "_trees")
        trees = self._binary_trees()
        stats = self._cat_stats
        specs = [None] * int(self.n_features_in_)
        if stats is not None:
            for c, j in enumerate(stats.features):
                values = np.append(np.asarray(stats.categories[c], dtype=object), "(unseen)")
                specs[j] = FeatureSpec(CATEGORICAL, values)
        return boosted_drawable(self, trees, [t.value for t in trees], tree_index, specs)

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model: float32 borders, category positions.

        A category's code is its position among the training categories.
        """
        from sklearn.base import is_classifier

        from mltrees.io.onnx_export import OnnxCategories, OnnxPlan, boosting_link
        from mltrees.tree.view import view_of

        view = view_of(self)
        classes = np.asarray(self.classes_) if is_classifier(self) else None
        n = self.n_features_in_
        categories, names = {}, {}
        stats = self._cat_stats
        categorical = np.zeros(n, dtype=bool)
        if stats is not None:
            for c, j in enumerate(stats.features):
                known = len(stats.categories[c])
                codes = np.arange(known)
                # Any other code is an unseen category (the trees' last code).
                categories[j] = OnnxCategories(codes.astype(np.float64), codes, other=known)
                names[j] = [str(v) for v in stats.categories[c]]
                categorical[j] = True
        link = boosting_link(view.n_outputs) if classes is not None else "identity"
        return OnnxPlan(
            view=view,
            dtype=np.float32,
            comparison="<=",
            encode=view.encode,
            link=link,
            categories=categories,
            reject_nan=categorical,  # a missing category is an error
            reject_inf=~categorical,
            classes=classes,
            category_names=names,
        )


@_doc
class ObliviousBoostingRegressor(RegressorMixin, _BaseObliviousBoosting):
    """CatBoost's algorithm for regression with squared error (RMSE), chapter 15.

    Parameters
    ----------
    {params}

    Attributes
    ----------
    init_score_ : ndarray of shape (1,)
    n_estimators_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import ObliviousBoostingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = ObliviousBoostingRegressor(n_estimators=30, depth=3, random_state=0).fit(X, y)
    >>> round(model.score(X, y), 3)
    0.587
    """

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` oblivious trees on ``(X, y)``."""
        self._validate_params()
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight)
        y = real_targets(y)
        # CatBoost keeps labels in float32.
        return self._fit(X, y.astype(np.float32).astype(np.float64), sample_weight, "RMSE", 1)

    def _bias(self, y, w, objective, K):
        if self.boost_from_average is False:
            return np.zeros(1)
        return np.array([_weighted_target_average(y, w)])

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Predicted values (the raw score)."""
        return self._raw(X)[:, 0]


@_doc
class ObliviousBoostingClassifier(ClassifierMixin, _BaseObliviousBoosting):
    """CatBoost's algorithm for classification (Logloss; MultiClass for K > 2), chapter 15.

    Parameters
    ----------
    {params}

    Attributes
    ----------
    classes_ : ndarray
    init_score_ : ndarray of shape (1,) or (K,)
    n_estimators_ : int

    Examples
    --------
    >>> from mltrees import ObliviousBoostingClassifier
    >>> from mltrees.datasets import load_titanic
    >>> X, y = load_titanic(return_X_y=True)  # class and sex are categories, age has NaN
    >>> model = ObliviousBoostingClassifier(n_estimators=30, depth=3, random_state=0).fit(X, y)
    >>> round(model.score(X, y), 3)
    0.804
    """

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` oblivious trees on ``(X, y)``."""
        self._validate_params()
        X, y, sample_weight = validate_fit_input(self, X, y, sample_weight)
        self.classes_, codes = class_codes(y)
        K = len(self.classes_)
        require_two_classes(K, type(self).__name__)
        objective = "Logloss" if K == 2 else "MultiClass"
        return self._fit(X, codes.astype(np.float64), sample_weight, objective, 1 if K == 2 else K)

    def _bias(self, y, w, objective, K):
        if not self.boost_from_average:
            return np.zeros(K)
        if objective == "Logloss":
            p = _weighted_target_average(y, w)
            return np.array([np.log(p / (1.0 - p))])
        shares = np.bincount(y.astype(np.intp), weights=w, minlength=K) / w.sum()
        return np.log(np.maximum(shares, 1e-15))

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Raw scores: log-odds of class 1 (shape (n,)) or one per class (n, K)."""
        raw = self._raw(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities, shape (n, K)."""
        raw = self._raw(X)
        if raw.shape[1] == 1:
            p = _sigmoid(raw[:, 0])
            return np.column_stack([1.0 - p, p])
        return _softmax(raw)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The most probable class."""
        check_is_fitted(self, "_trees")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
