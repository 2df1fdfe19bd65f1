"""Each estimator's fitted state, checked as a whole when a model file is loaded (chapter 18).

One ``_rebuild_*`` function per estimator family, in the book's order: what
must agree between the fitted attributes (shapes, indices into other
attributes, sizes declared and stored, objectives and classes, bounded raw
scores) before the prediction caches are rebuilt. The registry
(:mod:`mltrees.io._registry`) names the function of each estimator class;
with the format's own checks (:mod:`mltrees.io.format`) and the objects'
validators there, this is what makes a file that loads a model that predicts.
"""

from __future__ import annotations

import math

import numpy as np

from mltrees.io.format import (
    ModelFormatError,
    binary_tree_levels,
    check_tree_features,
    expect,
    expect_array,
    expect_int,
)

MAX_RAW_SCORE = 1e300
MAX_LOG_LINK_SCORE = 700.0  # exp(700) ~ 1e304: a log link stays finite
# A linear model (a stack's final estimator) keeps every input of at most this
# magnitude at a raw score below MAX_RAW_SCORE.
MAX_INPUT = 1e100


def _bounded(terms, path: str, limit: float = MAX_RAW_SCORE) -> None:
    """Refuse a model whose raw scores can come near overflow.

    ``terms`` are the largest absolute values of the parts a raw score adds
    up; their sum bounds every raw score, in any order of summation.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        bound = float(np.sum(np.asarray(list(terms), dtype=np.float64)))
    expect(
        math.isfinite(bound) and bound <= limit,
        path,
        f"the model can reach a raw score of {bound:.3g}; at most {limit:.3g}",
    )


def _largest(tree) -> float:
    return float(np.abs(tree.value).max())


def _n_classes(estimator, path: str) -> int:
    classes = estimator.classes_
    expect(len(set(classes.tolist())) == classes.size, f"{path}.classes_", "distinct labels")
    return int(classes.size)


def _tree_members(estimator, path: str, attribute: str = "estimators_") -> list:
    """Members of an ensemble that are fitted mltrees trees, with the ensemble's features."""
    members = getattr(estimator, attribute)
    expect(isinstance(members, list) and members, f"{path}.{attribute}", "a non-empty list")
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:  # members fitted on the same table share its names
        names = next(
            (m.feature_names_in_ for m in members if hasattr(m, "feature_names_in_")), None
        )
    for i, member in enumerate(members):
        where = f"{path}.{attribute}[{i}]"
        expect(hasattr(member, "tree_"), where, "a fitted tree estimator")
        expect(
            getattr(member, "n_features_in_", None) == estimator.n_features_in_,
            where,
            "as many features as the ensemble",
        )
        own = getattr(member, "feature_names_in_", None)
        expect(own is None or list(own) == list(names), where, "the ensemble's feature names")
    return members


# ---------------------------------------------------------------- single trees and rules


def _rebuild_single_tree(estimator) -> None:
    path = type(estimator).__name__
    expect_int(estimator.n_outputs_, f"{path}.n_outputs_", 1, 1)
    expect(hasattr(estimator, "_specs") and hasattr(estimator, "tree_"), path, "_specs and tree_")


def _rebuild_rules(estimator) -> None:
    """Conditions test features, codes and classes the model has; distributions sum to 1."""
    path = "RuleSetClassifier"
    base = estimator.tree_estimator_
    expect(
        hasattr(base, "tree_") and hasattr(base, "_specs"),
        f"{path}.tree_estimator_",
        "a fitted tree",
    )
    K = _n_classes(estimator, path)
    expect(
        base.n_features_in_ == estimator.n_features_in_
        and np.array_equal(base.classes_.astype(object), estimator.classes_.astype(object)),
        f"{path}.tree_estimator_",
        "the features and classes of the rule set",
    )
    specs = base._specs
    labels = set(estimator.classes_.tolist())
    for r, rule in enumerate(estimator.rules_):
        where = f"{path}.rules_[{r}]"
        expect(rule.label in labels, where, "a label among classes_")
        for condition in rule.conditions:
            expect(
                condition.feature < len(specs), where, f"conditions test features < {len(specs)}"
            )
            n_codes = specs[condition.feature].n_codes
            expect(
                all(type(c) is int and 0 <= c < n_codes for c in condition.codes),
                where,
                "category codes of the tested feature",
            )
            expect(
                (condition.op == "in") == (specs[condition.feature].kind == 1),
                where,
                "'in' tests categorical features, '<=' and '>' numeric ones",
            )
    expect(estimator.default_class_ in labels, f"{path}.default_class_", "one of classes_")
    order = estimator.class_order_
    expect(
        isinstance(order, np.ndarray)
        and sorted(order.tolist(), key=str) == sorted(labels, key=str)
        and order.size == K,
        f"{path}.class_order_",
        "the classes in some order",
    )
    table = expect_array(
        estimator.class_distributions_,
        f"{path}.class_distributions_",
        shape=(len(estimator.rules_) + 1, K),
        low=0.0,
        high=1.0,
    )
    expect(
        np.allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-9),
        f"{path}.class_distributions_",
        "rows sum to 1",
    )


# ---------------------------------------------------------------- bagging and forests


def _rebuild_bagging(estimator) -> None:
    from mltrees.tree.builder import TreeBuilder

    path = type(estimator).__name__
    expect(isinstance(estimator._binned, bool), f"{path}._binned", "a boolean")
    members = estimator.estimators_
    expect(isinstance(members, list) and members, f"{path}.estimators_", "a non-empty list")
    n_features = estimator.n_features_in_
    subsets = estimator.estimators_features_
    expect(
        isinstance(subsets, list) and len(subsets) == len(members),
        f"{path}.estimators_features_",
        "one feature subset per member",
    )
    for i, subset in enumerate(subsets):
        where = f"{path}.estimators_features_[{i}]"
        expect_array(subset, where, kinds="iu", ndim=1, low=0, high=n_features - 1)
        expect(np.unique(subset).size == subset.size, where, "distinct features")
    seeds = _sampling(estimator, path)[0]
    expect(len(seeds) == len(members), f"{path}._sampling", "one seed per member")
    if estimator._binned:
        _tree_members(estimator, path)
        width = len(estimator.classes_) if hasattr(estimator, "classes_") else 1
        for i, member in enumerate(members):
            where = f"{path}.estimators_[{i}]"
            expect(type(member) is type(estimator.estimator_), where, "a copy of estimator_")
            expect(member.tree_.value.shape[1] == width, where, f"{width} value column(s)")
            expect(len(member._specs) == len(estimator._specs), where, "the ensemble's binning")
        _bounded((_largest(m.tree_) for m in members), path)
        if TreeBuilder.accepts(estimator.estimator_):
            estimator._stack, estimator._stack_key = (
                estimator._build_stack(),
                estimator._walker_key(),
            )


def _sampling(estimator, path: str):
    sampling = estimator._sampling
    expect(isinstance(sampling, tuple) and len(sampling) == 4, f"{path}._sampling", "4 entries")
    seeds, kept, n_draws, probabilities = sampling
    expect(
        isinstance(seeds, list) and all(type(s) is np.random.SeedSequence for s in seeds),
        f"{path}._sampling",
        "seeds are SeedSequences",
    )
    expect_array(kept, f"{path}._sampling", kinds="iu", ndim=1, low=0)
    expect_int(n_draws, f"{path}._sampling", 1, 1 << 40)
    if probabilities is not None:
        expect_array(probabilities, f"{path}._sampling", shape=kept.shape, low=0.0, high=1.0)
    return seeds, kept, n_draws, probabilities


# ---------------------------------------------------------------- AdaBoost and LogitBoost


def _rebuild_adaboost(estimator) -> None:
    path = "AdaBoostClassifier"
    K = _n_classes(estimator, path)
    expect(isinstance(estimator._native, bool), f"{path}._native", "a boolean")
    expect(
        estimator._missing in ("error", "c45", "default_direction", "surrogate", "separate"),
        f"{path}._missing",
        "a missing-value method",
    )
    members = estimator.estimators_
    expect(isinstance(members, list) and members, f"{path}.estimators_", "a non-empty list")
    M = len(members)
    weights = expect_array(estimator.estimator_weights_, f"{path}.estimator_weights_", shape=(M,))
    expect((weights > 0).all(), f"{path}.estimator_weights_", "positive votes")
    expect_array(
        estimator.estimator_errors_, f"{path}.estimator_errors_", shape=(M,), low=0, high=1
    )
    _bounded(weights, f"{path}.estimator_weights_")
    estimator._stack = None
    if estimator._native:
        for i, member in enumerate(_tree_members(estimator, path)):
            expect(member.tree_.value.shape[1] == K, f"{path}.estimators_[{i}]", f"{K} classes")
        estimator._build_stack()


def _rebuild_logitboost(estimator) -> None:
    path = "LogitBoostClassifier"
    expect(_n_classes(estimator, path) == 2, f"{path}.classes_", "two classes")
    members = _tree_members(estimator, path)
    for i, member in enumerate(members):
        expect(not hasattr(member, "classes_"), f"{path}.estimators_[{i}]", "a regression tree")
    _bounded((_largest(m.tree_) for m in members), path)


# ---------------------------------------------------------------- boosted trees


def _stacked(estimator, scale: float = 1.0, base=0.0, limit: float = MAX_RAW_SCORE) -> None:
    """The one-walk predictor of the boosted models, as their ``fit`` builds it.

    Checks first that every round holds one single-column tree per output,
    that the starting score ``base`` has one entry per output, and that no
    raw score can come near overflow.
    """
    from mltrees.ensemble._common import StackedTrees

    path = type(estimator).__name__
    stages = estimator._trees
    expect(isinstance(stages, list) and stages, f"{path}._trees", "at least one round of trees")
    width = len(stages[0])
    expect(
        width >= 1 and all(len(stage) == width for stage in stages),
        f"{path}._trees",
        "every round holds the same number of trees",
    )
    flat = [tree for stage in stages for tree in stage]
    expect(all(t.value.shape[1] == 1 for t in flat), f"{path}._trees", "one value column per tree")
    base = np.atleast_1d(np.asarray(base, dtype=np.float64))
    expect(base.shape in ((1,), (width,)), path, f"a starting score per output ({width})")
    expect_int(estimator.n_estimators_, f"{path}.n_estimators_", len(stages), len(stages))
    _bounded([np.abs(base).max(), *(abs(scale) * _largest(t) for t in flat)], path, limit)
    outputs = np.tile(np.arange(width), len(stages))
    values = [scale * t.value for t in flat] if scale != 1.0 else [t.value for t in flat]
    estimator._stack = StackedTrees(flat, values, outputs, width)


def _rebuild_gradient_boosting(estimator) -> None:
    from mltrees import losses

    path = type(estimator).__name__
    n_outputs = expect_int(estimator._n_outputs, f"{path}._n_outputs", 1, 1 << 20)
    init = estimator.init_
    ok = isinstance(init, float) or (isinstance(init, np.ndarray) and init.dtype.kind == "f")
    expect(ok and np.size(init) == n_outputs, f"{path}.init_", f"{n_outputs} float(s)")
    loss = estimator._loss
    if hasattr(estimator, "classes_"):
        K = _n_classes(estimator, path)
        expected = (
            (losses.BinomialLogLoss, losses.ExponentialLoss)
            if K == 2
            else (losses.MultinomialLogLoss,)
        )
        expect(type(loss) in expected, f"{path}._loss", "the loss of its number of classes")
        expect(n_outputs == (1 if K == 2 else K), f"{path}._n_outputs", "one output per class")
        if K > 2:
            expect(loss.n_classes == K, f"{path}._loss", f"{K} classes")
    else:
        expect(
            type(loss) in (losses.SquaredError, losses.AbsoluteError, losses.HuberLoss),
            f"{path}._loss",
            "a regression loss",
        )
        expect(n_outputs == 1, f"{path}._n_outputs", "one output")
    rounds = len(estimator._trees) if isinstance(estimator._trees, list) else 0
    expect_array(estimator.train_score_, f"{path}.train_score_", shape=(rounds,))
    members = estimator.estimators_
    expect(
        isinstance(members, np.ndarray) and members.shape == (rounds, n_outputs),
        f"{path}.estimators_",
        "one tree estimator per round and output",
    )
    for (i, k), member in np.ndenumerate(members):
        expect(
            getattr(member, "tree_", None) is estimator._trees[i][k],
            f"{path}.estimators_[{i}, {k}]",
            "the estimator of _trees[i][k]",
        )
    _stacked(estimator, float(estimator.learning_rate), init)


def _rebuild_xgboost(estimator) -> None:
    from mltrees import losses

    path = type(estimator).__name__
    objective = estimator._objective
    if hasattr(estimator, "classes_"):
        K = _n_classes(estimator, path)
        if K == 2:
            ok = (
                objective.name == "binary:logistic"
                and type(objective.loss) is losses.BinomialLogLoss
            )
        else:
            ok = (
                objective.name == "multi:softprob"
                and type(objective.loss) is losses.MultinomialLogLoss
                and objective.loss.n_classes == K
            )
        n_outputs = 1 if K == 2 else K
    else:
        ok = (objective.name, type(objective.loss)) in (
            ("reg:squarederror", losses.SquaredError),
            ("count:poisson", losses.PoissonLoss),
        )
        n_outputs = 1
    expect(ok and objective.n_outputs == n_outputs, f"{path}._objective", "the model's objective")
    base = expect_array(estimator.base_margin_, f"{path}.base_margin_", shape=(n_outputs,))
    expect(
        len(estimator._trees[0]) == n_outputs if estimator._trees else True,
        path,
        "a tree per output",
    )
    limit = MAX_LOG_LINK_SCORE if objective.name == "count:poisson" else MAX_RAW_SCORE
    _stacked(estimator, base=base, limit=limit)


def _rebuild_lightgbm(estimator) -> None:
    path = type(estimator).__name__
    objective = estimator._objective
    n_features = estimator.n_features_in_
    if hasattr(estimator, "classes_"):
        K = _n_classes(estimator, path)
        ok = objective.name == ("binary" if K == 2 else "multiclass")
        n_outputs = 1 if K == 2 else K
    else:
        ok, n_outputs = objective.name == "regression", 1
    expect(ok and objective.n_outputs == n_outputs, f"{path}._objective", "the model's objective")
    base = expect_array(estimator.init_score_, f"{path}.init_score_", shape=(n_outputs,))
    categories = estimator._categories
    expect(isinstance(categories, dict), f"{path}._categories", "a dict")
    for j, values in categories.items():
        where = f"{path}._categories[{j!r}]"
        expect_int(j, where, 0, n_features - 1)
        expect_array(values, where, kinds="iu", ndim=1, low=0)
        expect(np.unique(values).size == values.size, where, "distinct category codes")
    gains = estimator._gains
    expect(
        isinstance(gains, list) and len(gains) == len(estimator._trees),
        f"{path}._gains",
        "one list of gains per round",
    )
    for i, stage in enumerate(estimator._trees):
        expect(len(stage) == n_outputs, f"{path}._trees[{i}]", f"{n_outputs} tree(s)")
        expect(len(gains[i]) == len(stage), f"{path}._gains[{i}]", "a gain array per tree")
        for k, tree in enumerate(stage):
            where = f"{path}._trees[{i}][{k}]"
            check_tree_features(tree, n_features, where)
            expect_array(gains[i][k], f"{path}._gains[{i}][{k}]", shape=(tree.node_count,))
            internal = tree.feature >= 0
            on_categories = np.isin(tree.feature, list(categories)) & internal
            expect(
                np.array_equal(on_categories, (tree.kind == 1) & internal),
                where,
                "categorical nodes test exactly the categorical features",
            )
            for node in np.flatnonzero(on_categories):
                size = categories[int(tree.feature[node])].size + 1
                expect(tree.n_categories[node] <= size, where, "a routing table of its codes")
    names = getattr(estimator, "feature_names_in_", None)
    for name in getattr(estimator, "_pandas_categories", {}):
        expect(
            names is not None and name in set(names.tolist()),
            f"{path}._pandas_categories",
            "categories of named columns",
        )
    best = getattr(estimator, "best_iteration_", None)
    if best is not None:
        expect_int(best, f"{path}.best_iteration_", 0, len(estimator._trees) - 1)
    _stacked(estimator, base=base)


# ---------------------------------------------------------------- oblivious trees (CatBoost)


def _rebuild_oblivious(estimator) -> None:
    """Check every split against the model's columns, then rebuild the predictor."""
    path = type(estimator).__name__
    n_features = estimator.n_features_in_
    cat = estimator._cat
    expect(
        isinstance(cat, list)
        and all(type(j) is int and 0 <= j < n_features for j in cat)
        and len(set(cat)) == len(cat),
        f"{path}._cat",
        "distinct feature indices",
    )
    numeric = [j for j in range(n_features) if j not in set(cat)]
    expect(estimator._numeric == numeric, f"{path}._numeric", "the features not in _cat")
    borders = estimator._borders
    expect(
        isinstance(borders, list) and len(borders) == len(numeric),
        f"{path}._borders",
        "one border array per numeric feature",
    )
    for i, b in enumerate(borders):
        expect_array(b, f"{path}._borders[{i}]", ndim=1)
        expect((np.diff(b) > 0).all(), f"{path}._borders[{i}]", "increasing borders")
    n_borders = [len(b) for b in borders]
    stats = estimator._cat_stats
    if cat:
        expect(
            stats is not None and stats.features == cat, f"{path}._cat_stats", "statistics of _cat"
        )
        n_borders += stats.n_borders
    else:
        expect(stats is None, f"{path}._cat_stats", "None without categorical features")
    expect(
        isinstance(estimator._n_borders, np.ndarray) and estimator._n_borders.tolist() == n_borders,
        f"{path}._n_borders",
        "the borders of every column",
    )
    if hasattr(estimator, "classes_"):
        K = _n_classes(estimator, path)
        expected = ("Logloss", 1) if K == 2 else ("MultiClass", K)
    else:
        expected = ("RMSE", 1)
    expect(estimator._objective == expected[0], f"{path}._objective", repr(expected[0]))
    n_outputs = expected[1]
    trees = estimator._trees
    expect(isinstance(trees, list) and trees, f"{path}._trees", "at least one tree")
    n_borders = np.asarray(n_borders, dtype=np.int64)
    for i, t in enumerate(trees):
        where = f"{path}._trees[{i}]"
        expect(t.depth == estimator.depth, where, "a tree of the model's depth")
        expect(t.value.shape[1] == n_outputs, where, f"{n_outputs} value column(s)")
        expect((t.feature < len(n_borders)).all(), where, "columns the model has")
        expect((t.border_index < n_borders[t.feature]).all(), where, "borders the model has")
    base = expect_array(estimator.init_score_, f"{path}.init_score_", shape=(n_outputs,))
    expect_int(estimator.n_estimators_, f"{path}.n_estimators_", len(trees), len(trees))
    _bounded([np.abs(base).max(), *(_largest(t) for t in trees)], path)
    estimator._compile()


# ---------------------------------------------------------------- oblique and imported trees


def _rebuild_oblique(estimator) -> None:
    path = type(estimator).__name__
    tree = estimator.tree_
    expect(
        tree.coef.shape[1] == estimator.n_features_in_,
        f"{path}.tree_.coef",
        "one weight per feature",
    )
    if hasattr(estimator, "classes_"):
        expect(tree.value.shape[1] == _n_classes(estimator, path), path, "a column per class")
    else:
        expect(tree.value.shape[1] == 1, path, "one value column")
        expect(isinstance(estimator._y_mean, float), f"{path}._y_mean", "a float")


def _rebuild_imported(estimator) -> None:
    estimator._check()


# ---------------------------------------------------------------- incremental trees


def _rebuild_hoeffding(estimator) -> None:
    """The node arrays form a binary tree whose leaves own distinct rows of statistics."""
    path = "HoeffdingTreeClassifier"
    K, F = _n_classes(estimator, path), estimator.n_features_in_
    nodes = [getattr(estimator, name) for name in type(estimator)._NODE_ARRAYS]
    n = nodes[0].shape[0] if isinstance(nodes[0], np.ndarray) else 0
    for name, array in zip(type(estimator)._NODE_ARRAYS, nodes, strict=True):
        kinds = "f" if name == "_threshold" else "iu"
        expect_array(array, f"{path}.{name}", kinds=kinds, shape=(n,))
    feature, threshold = estimator._feature, estimator._threshold
    left, right, depth, slot = estimator._left, estimator._right, estimator._depth, estimator._slot
    leaf = feature < 0
    expect(
        n >= 1 and (feature >= -1).all() and (feature < F).all(),
        f"{path}._feature",
        f"-1 or a feature in [0, {F})",
    )
    expect(np.array_equal(leaf, left < 0), f"{path}._left", "children at internal nodes only")
    levels = binary_tree_levels(left, right, f"{path}._left")
    expected_depth = np.zeros(n, dtype=np.int64)
    for d, level in enumerate(levels):
        expected_depth[level] = d
    expect(np.array_equal(depth, expected_depth), f"{path}._depth", "the depth of each node")
    expect(np.isfinite(threshold[~leaf]).all(), f"{path}._threshold", "finite at internal nodes")
    shapes = {"_class_w": (K,), "_present": (K,), **dict.fromkeys(("_g_n", "_g_mean"), (F, K))}
    shapes.update(dict.fromkeys(("_key_rank", "_estimator_rank"), (K,)))
    shapes.update(dict.fromkeys(("_g_m2", "_g_min", "_g_max"), (F, K)))
    n_slots = estimator._class_w.shape[0] if isinstance(estimator._class_w, np.ndarray) else 0
    n_rows = estimator._g_n.shape[0] if isinstance(estimator._g_n, np.ndarray) else 0
    arrays = [(name, n_slots) for name in type(estimator)._SLOT_ARRAYS]
    arrays += [(name, n_rows) for name in type(estimator)._STATS_ARRAYS]
    for name, length in arrays:
        kinds = {"_present": "b", "_active": "b", "_stats": "iu"}.get(name, "f")
        array = expect_array(
            getattr(estimator, name),
            f"{path}.{name}",
            kinds=kinds,
            shape=(length, *shapes.get(name, ())),
        )
        if kinds == "f":
            expect(not np.isnan(array).any(), f"{path}.{name}", "numbers, not NaN")
            if name in ("_key_rank", "_estimator_rank"):  # river's dictionary orders
                # a new leaf's keys keep its parent's estimator ranks (below K)
                # and add ranks after them: below 2K
                ranked = array[np.isfinite(array)]
                expect(
                    ((ranked >= 0) & (ranked < 2 * K) & (ranked == ranked.round())).all(),
                    f"{path}.{name}",
                    f"whole ranks in [0, {2 * K}) or inf",
                )
            elif name not in ("_g_min", "_g_max", "_g_mean"):
                expect(
                    (array >= 0).all() and np.isfinite(array).all(),
                    f"{path}.{name}",
                    "finite values >= 0",
                )
    used = slot[leaf]
    # Freed slots and rows may have been saved as NumPy integers.
    for name in ("_free_slots", "_free_stats"):
        free = getattr(estimator, name)
        expect(
            isinstance(free, list)
            and all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in free),
            f"{path}.{name}",
            "a list of rows",
        )
        setattr(estimator, name, [int(v) for v in free])
    taken = np.concatenate([used, np.asarray(estimator._free_slots, dtype=np.int64)])
    expect(
        (slot[~leaf] == -1).all()
        and ((taken >= 0) & (taken < n_slots)).all()
        and np.unique(taken).size == taken.size,
        f"{path}._slot",
        "a distinct statistics row per leaf",
    )
    # Active leaves own distinct rows of Gaussian estimates; inactive leaves none.
    rows = estimator._stats[used]
    active = estimator._active[used]
    held = np.concatenate([rows[active], np.asarray(estimator._free_stats, dtype=np.int64)])
    expect(
        (rows[~active] == -1).all()
        and ((held >= 0) & (held < n_rows)).all()
        and np.unique(held).size == held.size,
        f"{path}._stats",
        "a distinct row of Gaussian estimates per active leaf, -1 for an inactive one",
    )
    expect(
        isinstance(estimator._growth_allowed, bool | np.bool_),
        f"{path}._growth_allowed",
        "True or False",
    )
    seen = estimator.n_samples_seen_
    expect(isinstance(seen, float) and 0 <= seen < math.inf, f"{path}.n_samples_seen_", ">= 0")


def _rebuild_id5r(estimator) -> None:
    """Counts, stored examples and category codes agree with the features and classes."""
    path = type(estimator).__name__
    K, F = _n_classes(estimator, path), estimator.n_features_in_
    categories = estimator.categories_
    expect(
        isinstance(categories, list) and len(categories) == F,
        f"{path}.categories_",
        "one list of categories per feature",
    )
    for j, values in enumerate(categories):
        expect(isinstance(values, list), f"{path}.categories_[{j}]", "a list")
        try:
            distinct = len(set(values)) == len(values)
        except TypeError:
            distinct = False
        expect(distinct, f"{path}.categories_[{j}]", "distinct, hashable categories")
    V = expect_int(estimator._n_values, f"{path}._n_values", 1)
    expect(max(len(c) for c in categories) <= V, f"{path}._n_values", "room for every category")
    n = expect_int(estimator.n_examples_, f"{path}.n_examples_", 0)
    X = expect_array(estimator._X, f"{path}._X", kinds="iu", ndim=2, low=0)
    y = expect_array(estimator._y, f"{path}._y", kinds="iu", ndim=1, low=0, high=K - 1)
    expect(X.shape[1] == F and X.shape[0] == y.shape[0] >= n, f"{path}._X", "the examples")
    sizes = np.array([len(c) for c in categories])
    expect((X[:n] < sizes).all(), f"{path}._X", "codes of the categories")
    for name in ("n_transpositions_", "n_test_changes_", "n_discarded_"):
        if hasattr(estimator, name):
            expect_int(getattr(estimator, name), f"{path}.{name}", 0)
    stack = [estimator._root]
    while stack:
        node = stack.pop()
        expect(node.counts.shape == (F, V, K), f"{path}._root", "counts of shape (F, V, K)")
        per_feature = node.counts.sum(axis=1)
        expect(
            (per_feature == per_feature[0]).all() and per_feature[0].sum() > 0,
            f"{path}._root",
            "every node counts its examples once per feature",
        )
        expect(node.test < F, f"{path}._root", "tests of the features")
        expect(
            all(v < sizes[node.test] for v in node.children) if node.test >= 0 else True,
            f"{path}._root",
            "children by codes of the tested feature",
        )
        expect(
            node.rows is None or all(i < n for i in node.rows),
            f"{path}._root",
            "rows among the examples seen",
        )
        stack.extend(node.children.values())
    estimator._flat = None
    estimator._flatten()


# ---------------------------------------------------------------- stacking and blending


def _output_width(member, method: str, n_classes: int) -> int:
    """Columns one member adds to the level-1 features (binary probabilities: one)."""
    if method == "predict" or not hasattr(member, "classes_"):
        return 1
    if method == "predict_proba":
        return 1 if n_classes == 2 else n_classes
    return 1 if len(member.classes_) == 2 else len(member.classes_)


def _rebuild_stacking(estimator) -> None:
    """Fitted members for the declared ones, level-1 widths that feed the final estimator."""
    from sklearn.utils import Bunch
    from sklearn.utils.validation import check_is_fitted

    from mltrees.ensemble.stacking import FoldAverage

    path = type(estimator).__name__
    names, _ = estimator._check_estimators()
    members = estimator.estimators_
    M = len(names)
    expect(
        isinstance(members, list) and len(members) == M,
        f"{path}.estimators_",
        "one fitted member per declared estimator",
    )
    methods = estimator.stack_method_
    expect(
        isinstance(methods, list) and len(methods) == M,
        f"{path}.stack_method_",
        "a method per member",
    )
    widths = estimator._n_feature_outs
    expect(
        isinstance(widths, list) and len(widths) == M,
        f"{path}._n_feature_outs",
        "a width per member",
    )
    K = _n_classes(estimator, path) if hasattr(estimator, "classes_") else 0
    for k, (member, method, width) in enumerate(zip(members, methods, widths, strict=True)):
        where = f"{path}.estimators_[{k}]"
        expect(method in ("predict_proba", "decision_function", "predict"), where, "a method")
        if isinstance(member, FoldAverage):  # refit=False: the fold models, averaged
            expect(
                member.n_classes == (K or None) and (K == 0 or method != "predict"),
                where,
                "the stack's number of classes, and no averaged labels",
            )
            parts = [
                (f"{where}.estimators_[{q}]", fold) for q, fold in enumerate(member.estimators_)
            ]
        else:
            parts = [(where, member)]
        for part_path, part in parts:
            try:
                check_is_fitted(part)
            except Exception:
                raise ModelFormatError(f"{part_path}: a fitted estimator") from None
            expect(hasattr(part, method), part_path, f"an estimator with {method}")
            if K and hasattr(part, "classes_"):
                codes = np.asarray(part.classes_)
                expect(
                    codes.dtype.kind in "iu" and ((codes >= 0) & (codes < K)).all(),
                    part_path,
                    "classes coded 0 .. K-1, as stacking fits its members",
                )
        expect(width == _output_width(member, method, K), where, "its level-1 width")
        n = getattr(member, "n_features_in_", estimator.n_features_in_)
        expect(n == estimator.n_features_in_, where, "the stack's features")
    final = estimator.final_estimator_
    try:
        check_is_fitted(final)
    except Exception:
        raise ModelFormatError(f"{path}.final_estimator_: a fitted estimator") from None
    level1 = sum(widths) + (estimator.n_features_in_ if estimator.passthrough else 0)
    expect(
        getattr(final, "n_features_in_", level1) == level1,
        f"{path}.final_estimator_",
        f"{level1} level-1 features",
    )
    if K:
        codes = np.asarray(final.classes_)
        expect(
            codes.dtype.kind in "iu" and ((codes >= 0) & (codes < K)).all(),
            f"{path}.final_estimator_",
            "classes coded 0 .. K-1",
        )
    for name in ("oof_predictions_", "holdout_predictions_"):
        if hasattr(estimator, name):
            table = expect_array(getattr(estimator, name), f"{path}.{name}", ndim=2)
            expect(table.shape[1] == sum(widths), f"{path}.{name}", "the level-1 columns")
    estimator.named_estimators_ = Bunch(**dict(zip(names, members, strict=True)))


def _rebuild_linear(estimator) -> None:
    """A scikit-learn linear model (a stack's final estimator): coefficients of its shape."""
    path = type(estimator).__name__
    F = estimator.n_features_in_
    coef = expect_array(estimator.coef_, f"{path}.coef_")
    intercept = np.asarray(estimator.intercept_)
    expect(intercept.dtype.kind == "f", f"{path}.intercept_", "floats")
    if hasattr(estimator, "classes_"):
        K = _n_classes(estimator, path)
        rows = 1 if K == 2 else K
        expect(
            coef.shape == (rows, F) and intercept.shape == (rows,),
            path,
            f"coef_ of shape ({rows}, {F}) and an intercept per row",
        )
    else:
        expect(
            (coef.shape == (F,) and intercept.shape == ())
            or (coef.ndim == 2 and coef.shape[1] == F and intercept.shape == coef.shape[:1]),
            path,
            "coef_ of shape (n_features,) or (n_targets, n_features), an intercept per target",
        )
    rows = np.abs(coef).reshape(-1, F).sum(axis=1) * MAX_INPUT + np.abs(intercept).reshape(-1)
    _bounded([rows.max()], f"{path}.coef_ (for inputs up to {MAX_INPUT:.0e})")
