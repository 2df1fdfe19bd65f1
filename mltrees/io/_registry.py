"""The classes a model file may name, and how each estimator checks and rebuilds its state.

Adding an estimator is one call of
:func:`mltrees.io.serialize.register_estimator` in :func:`register_defaults`.
Each estimator's persisted state is described in one place, its
``_rebuild_*`` function below: what must agree between the fitted
attributes (shapes, indices into other attributes, sizes declared and
stored) before its prediction caches are rebuilt. Together with the
format's own checks (:mod:`mltrees.io.format`) this is what makes a file
that loads a model that predicts.
"""

from __future__ import annotations

import math

import numpy as np

from mltrees.io.format import (
    ModelFormatError,
    binary_tree_levels,
    check_finite,
    check_tree_features,
    expect,
    expect_array,
    expect_int,
    tree_cells,
    validate_feature_spec,
    validate_tree,
)
from mltrees.io.serialize import register_estimator, register_object

# The largest raw score a loaded model may reach: far from overflow, so that
# sums in any order, a division by a vote total or a softmax stay finite.
MAX_RAW_SCORE = 1e300
MAX_LOG_LINK_SCORE = 700.0  # exp(700) ~ 1e304: a log link stays finite


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
    for i, member in enumerate(members):
        where = f"{path}.{attribute}[{i}]"
        expect(hasattr(member, "tree_"), where, "a fitted tree estimator")
        expect(
            getattr(member, "n_features_in_", None) == estimator.n_features_in_,
            where,
            "as many features as the ensemble",
        )
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


def _check_statistics(stats, path: str) -> None:
    """CatBoost's categorical columns: one entry per feature in every list, counts that count.

    Per feature: its sorted training categories; for a statistics (not
    one-hot) feature, the rows per category ``count`` and per category and
    target border ``class_count``. One border count and one name per column
    built: a column per category of a one-hot feature, ``3 B + 1`` (the
    Borders statistics of each of the ``B`` target borders and the Counter)
    otherwise.
    """
    n = len(stats.features)
    for name in ("features", "categories", "one_hot", "class_count", "count", "n_borders", "names"):
        expect(isinstance(getattr(stats, name), list), f"{path}.{name}", "a list")
    for name in ("categories", "one_hot", "class_count", "count"):
        expect(len(getattr(stats, name)) == n, f"{path}.{name}", "one entry per feature")
    expect(all(type(f) is int and f >= 0 for f in stats.features), f"{path}.features", "indices")
    n_columns = 0
    for c in range(n):
        known = stats.categories[c]
        where = f"{path}.categories[{c}]"
        expect(
            isinstance(known, np.ndarray) and known.ndim == 1 and known.size >= 1,
            where,
            "a non-empty 1-D array",
        )
        try:
            ordered = bool((known[1:] > known[:-1]).all())
        except TypeError:
            ordered = False
        expect(ordered, where, "sorted distinct categories")
        expect(isinstance(stats.one_hot[c], bool), f"{path}.one_hot[{c}]", "a boolean")
        if stats.one_hot[c]:
            n_columns += known.size
            continue
        count = expect_array(
            stats.count[c], f"{path}.count[{c}]", kinds="iuf", shape=(known.size,), low=0
        )
        table = expect_array(
            stats.class_count[c], f"{path}.class_count[{c}]", kinds="iuf", ndim=2, low=0
        )
        expect(table.shape[0] == known.size, f"{path}.class_count[{c}]", "a row per category")
        check_finite([count, table], f"{path}.count[{c}]")
        n_columns += 3 * table.shape[1] + 1
    expect(
        len(stats.n_borders) == n_columns
        and all(type(v) is int and v >= 1 for v in stats.n_borders),
        f"{path}.n_borders",
        f"a positive border count for each of the {n_columns} columns",
    )
    expect(
        len(stats.names) == n_columns and all(isinstance(v, str) for v in stats.names),
        f"{path}.names",
        "a name per column",
    )


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
    shapes = {
        "_class_w": (K,),
        "_present": (K,),
        "_since": (),
        "_active": (),
        "_g_n": (F, K),
        "_g_mean": (F, K),
        "_g_m2": (F, K),
        "_g_min": (F, K),
        "_g_max": (F, K),
        "_mc_right": (),
        "_nb_right": (),
    }
    n_slots = estimator._class_w.shape[0] if isinstance(estimator._class_w, np.ndarray) else 0
    for name in type(estimator)._SLOT_ARRAYS:
        kinds = "b" if name in ("_present", "_active") else "f"
        array = expect_array(
            getattr(estimator, name),
            f"{path}.{name}",
            kinds=kinds,
            shape=(n_slots, *shapes.get(name, ())),
        )
        if kinds == "f":
            expect(not np.isnan(array).any(), f"{path}.{name}", "numbers, not NaN")
            if name not in ("_g_min", "_g_max", "_g_mean"):
                expect(
                    (array >= 0).all() and np.isfinite(array).all(),
                    f"{path}.{name}",
                    "finite values >= 0",
                )
    used = slot[leaf]
    free = estimator._free_slots
    expect(
        isinstance(free, list) and all(type(v) is int for v in free),
        f"{path}._free_slots",
        "a list of slots",
    )
    taken = np.concatenate([used, np.asarray(free, dtype=np.int64)])
    expect(
        (slot[~leaf] == -1).all()
        and ((taken >= 0) & (taken < n_slots)).all()
        and np.unique(taken).size == taken.size,
        f"{path}._slot",
        "a distinct statistics row per leaf",
    )
    seen = estimator.n_samples_seen_
    expect(isinstance(seen, float) and 0 <= seen < math.inf, f"{path}.n_samples_seen_", ">= 0")


def _encode_id5r_node(root) -> dict:
    """An ID5R tree (nested nodes) as arrays, parents before children."""
    nodes, parent, value = [root], [-1], [-1]
    order = 0
    while order < len(nodes):
        for code, child in nodes[order].children.items():
            nodes.append(child)
            parent.append(order)
            value.append(code)
        order += 1
    rows = [node.rows for node in nodes]
    has_rows = np.array([r is not None for r in rows], dtype=bool)
    flat = [int(i) for r in rows if r is not None for i in r]
    sizes = [len(r) if r is not None else 0 for r in rows]
    return {
        "test": np.array([node.test for node in nodes], dtype=np.int64),
        "parent": np.array(parent, dtype=np.int64),
        "value": np.array(value, dtype=np.int64),
        "counts": np.stack([node.counts for node in nodes]),
        "dirty": np.array([node.dirty for node in nodes], dtype=bool),
        "has_rows": has_rows,
        "row_sizes": np.array(sizes, dtype=np.int64),
        "rows": np.array(flat, dtype=np.int64),
    }


def _decode_id5r_node(state: dict, path: str):
    """The nested nodes of an ID5R tree, after checking that the arrays describe a tree."""
    from mltrees.incremental.id5r import _Node

    test, parent, value = state["test"], state["parent"], state["value"]
    n = test.shape[0] if isinstance(test, np.ndarray) else 0
    expect_array(test, f"{path}.test", kinds="iu", shape=(n,), low=-1)
    expect_array(parent, f"{path}.parent", kinds="iu", shape=(n,))
    expect_array(value, f"{path}.value", kinds="iu", shape=(n,))
    counts = expect_array(state["counts"], f"{path}.counts", kinds="iu", ndim=4, low=0)
    expect(n >= 1 and counts.shape[0] == n, f"{path}.counts", "one table per node")
    for name in ("dirty", "has_rows"):
        expect_array(state[name], f"{path}.{name}", kinds="b", shape=(n,))
    sizes = expect_array(state["row_sizes"], f"{path}.row_sizes", kinds="iu", shape=(n,), low=0)
    rows = expect_array(state["rows"], f"{path}.rows", kinds="iu", shape=(int(sizes.sum()),), low=0)
    ids = np.arange(n)
    expect(
        parent[0] == -1
        and value[0] == -1
        and (parent[1:] >= 0).all()
        and (parent[1:] < ids[1:]).all(),
        f"{path}.parent",
        "the root first, every other node after its parent",
    )
    child = parent[1:]
    expect(
        (test[child] >= 0).all() and (value[1:] >= 0).all(),
        f"{path}.value",
        "children under decision nodes, by value code",
    )
    pairs = child * (int(value.max()) + 1) + value[1:]
    expect(np.unique(pairs).size == pairs.size, f"{path}.value", "one child per value")
    expect((sizes[~state["has_rows"]] == 0).all(), f"{path}.row_sizes", "rows at leaves only")
    nodes = []
    start = 0
    for i in range(n):  # one object per node: ID5R's own representation
        node = _Node(counts[i].copy(), None)
        node.test = int(test[i])
        node.dirty = bool(state["dirty"][i])
        if state["has_rows"][i]:
            node.rows = rows[start : start + sizes[i]].tolist()
        start += int(sizes[i])
        nodes.append(node)
        if i:
            nodes[parent[i]].children[int(value[i])] = node
    return nodes[0]


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
        try:
            check_is_fitted(member)
        except Exception:
            raise ModelFormatError(f"{where}: a fitted estimator") from None
        expect(method in ("predict_proba", "decision_function", "predict"), where, "a method")
        expect(hasattr(member, method), where, f"an estimator with {method}")
        if K and hasattr(member, "classes_"):
            codes = np.asarray(member.classes_)
            expect(
                codes.dtype.kind in "iu" and ((codes >= 0) & (codes < K)).all(),
                where,
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


def _check_splitter(splitter, path: str) -> None:
    ok = (
        type(splitter.n_splits) is int
        and 2 <= splitter.n_splits <= 1 << 20
        and type(splitter.shuffle) is bool
        and (splitter.random_state is None or type(splitter.random_state) is int)
    )
    expect(ok, path, "n_splits >= 2, shuffle a boolean, random_state None or an int")


def _encode_seed(seed: np.random.SeedSequence) -> dict:
    return {
        "entropy": seed.entropy,
        "spawn_key": tuple(seed.spawn_key),
        "pool_size": seed.pool_size,
        "n_children_spawned": seed.n_children_spawned,
    }


def _decode_seed(state: dict, path: str) -> np.random.SeedSequence:
    entropy, key = state["entropy"], state["spawn_key"]
    pool, spawned = state["pool_size"], state["n_children_spawned"]

    def small_int(v, bits):
        return type(v) is int and 0 <= v < (1 << bits)

    ok = (
        (
            small_int(entropy, 256)
            or (
                isinstance(entropy, list)
                and len(entropy) <= 64
                and all(small_int(v, 64) for v in entropy)
            )
        )
        and isinstance(key, tuple)
        and len(key) <= 64
        and all(small_int(v, 64) for v in key)
        and type(pool) is int
        and 4 <= pool <= 64
        and small_int(spawned, 32)
    )
    if not ok:
        raise ModelFormatError(f"{path}: a SeedSequence with out-of-range state")
    return np.random.SeedSequence(
        entropy, spawn_key=key, pool_size=pool, n_children_spawned=spawned
    )


def _plain_state(obj, path: str) -> None:
    """A loss or objective holds finite numbers and strings only (and an objective its loss)."""
    for name, value in vars(obj).items():
        if not (value is None or isinstance(value, (bool, int, float, str))) and not hasattr(
            value, "gradient"
        ):
            raise ModelFormatError(f"{path}.{name}: a number or a string")
        check_finite(value if isinstance(value, float) else 0.0, f"{path}.{name}")
    for name in ("n_classes", "n_outputs"):
        if name in vars(obj):
            expect_int(vars(obj)[name], f"{path}.{name}", 1, 1 << 20)


def _check_condition(condition, path: str) -> None:
    ok = (
        type(condition.feature) is int
        and condition.feature >= 0
        and isinstance(condition.name, str)
        and condition.op in ("<=", ">", "in")
        and isinstance(condition.threshold, float)
        and isinstance(condition.codes, tuple)
        and isinstance(condition.categories, tuple)
    )
    if not ok:
        raise ModelFormatError(f"{path}: a Condition (feature, name, op, threshold, codes...)")


def _check_rule(rule, path: str) -> None:
    from mltrees.tree.rules import Condition

    if not isinstance(rule.conditions, list) or not all(
        type(c) is Condition for c in rule.conditions
    ):
        raise ModelFormatError(f"{path}: a Rule's conditions are a list of Condition")
    if not isinstance(rule.extra, dict):
        raise ModelFormatError(f"{path}: a Rule's extra is a dict")


def _check_oblique(tree, path):
    """An oblique tree: a valid tree plus one finite weight vector per node."""
    validate_tree(tree, path=path)
    coef = tree.coef
    if (
        not isinstance(coef, np.ndarray)
        or coef.ndim != 2
        or coef.shape[0] != tree.node_count
        or coef.dtype.kind != "f"
        or not np.isfinite(coef).all()
    ):
        raise ModelFormatError(f"{path}.coef: finite floats, one row per node")


def _check_oblivious_tree(tree, path):
    """Splits as integer arrays of one length d, 2**d leaves of finite values."""
    arrays = (tree.feature, tree.border_index, tree.value, tree.weight, tree.count, tree.gradient)
    if not all(isinstance(a, np.ndarray) for a in arrays):
        raise ModelFormatError(f"{path}: an ObliviousTree holds arrays")
    d = tree.feature.shape[0] if tree.feature.ndim == 1 else -1
    ok = (
        0 < d <= 16
        and tree.feature.dtype.kind == "i"
        and tree.border_index.shape == (d,)
        and tree.border_index.dtype.kind == "i"
        and (tree.feature >= 0).all()
        and (tree.border_index >= 0).all()
        and tree.value.ndim == 2
        and tree.value.shape[0] == 1 << d
        and tree.value.dtype.kind == "f"
        and np.isfinite(tree.value).all()
        and tree.weight.shape == (1 << d,)
        and tree.count.shape == (1 << d,)
        and tree.gradient.shape == tree.value.shape
    )
    if not ok:
        raise ModelFormatError(f"{path}: an ObliviousTree of depth d has d splits and 2**d leaves")


def _encode_categories(dtype) -> dict:
    return {"categories": np.asarray(dtype.categories), "ordered": bool(dtype.ordered)}


def _decode_categories(state: dict, path: str):
    """A pandas ``CategoricalDtype`` (LightGBM's categories of a DataFrame column)."""
    import pandas as pd

    values, ordered = state["categories"], state["ordered"]
    ok = (
        isinstance(values, np.ndarray)
        and values.ndim == 1
        and type(ordered) is bool
        and (values.dtype.kind in "iufbU" or all(type(v) in (str, int) for v in values.tolist()))
    )
    if not ok or (values.dtype.kind == "f" and not np.isfinite(values).all()):
        raise ModelFormatError(f"{path}: categories are a 1-D array of labels, ordered a boolean")
    if len(set(values.tolist())) != values.size:
        raise ModelFormatError(f"{path}: the categories are distinct")
    return pd.CategoricalDtype(
        pd.Index(values.tolist()) if values.dtype == object else values, ordered=ordered
    )


def register_defaults() -> None:
    """Register every estimator and helper class of mltrees."""
    import pandas as pd
    from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge, RidgeCV
    from sklearn.model_selection import KFold, StratifiedKFold

    from mltrees import losses
    from mltrees.ensemble.adaboost import AdaBoostClassifier
    from mltrees.ensemble.bagging import BaggingClassifier, BaggingRegressor
    from mltrees.ensemble.catboost import ObliviousBoostingClassifier, ObliviousBoostingRegressor
    from mltrees.ensemble.forest import RandomForestClassifier, RandomForestRegressor
    from mltrees.ensemble.gradient_boosting import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
    )
    from mltrees.ensemble.lightgbm import LightGBMClassifier, LightGBMRegressor
    from mltrees.ensemble.lightgbm import _Objective as LightGBMObjective
    from mltrees.ensemble.logitboost import LogitBoostClassifier
    from mltrees.ensemble.stacking import (
        BlendingClassifier,
        BlendingRegressor,
        StackingClassifier,
        StackingRegressor,
    )
    from mltrees.ensemble.xgboost import XGBoostClassifier, XGBoostRegressor, _Objective
    from mltrees.hist.oblivious import ObliviousTree
    from mltrees.hist.oblivious_ctr import CategoricalStatistics
    from mltrees.incremental.hoeffding import HoeffdingTreeClassifier
    from mltrees.incremental.id5r import ID4Classifier, ID5RClassifier, _Node
    from mltrees.io.importers import ImportedTreeModel
    from mltrees.tree._data import FeatureSpec
    from mltrees.tree._tree import Tree
    from mltrees.tree.classes import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
    from mltrees.tree.oblique import ObliqueTree, ObliqueTreeClassifier, ObliqueTreeRegressor
    from mltrees.tree.rules import Condition, Rule, RuleSetClassifier

    register_object(
        Tree,
        # The tree's fields, without the walk caches it keeps between predictions.
        encode=lambda tree: tree.__getstate__(),
        validate=lambda tree, path: validate_tree(tree, path=path),
        cells=tree_cells,
    )
    register_object(FeatureSpec, validate=validate_feature_spec)
    register_object(Condition, validate=_check_condition)
    register_object(Rule, validate=_check_rule)
    register_object(_Objective, validate=_plain_state)
    # Two classes share the name _Objective: the LightGBM one is stored by its own name.
    register_object(LightGBMObjective, name="LightGBMObjective", validate=_plain_state)
    register_object(
        ObliqueTree, validate=_check_oblique, cells=lambda t: tree_cells(t) + t.coef.size
    )
    register_object(
        ObliviousTree,
        validate=_check_oblivious_tree,
        cells=lambda t: 2 * t.value.size + 3 * t.weight.size,
    )
    register_object(
        CategoricalStatistics,
        validate=lambda stats, path: _check_statistics(stats, path),
    )
    register_object(
        pd.CategoricalDtype,
        attributes=("categories", "ordered"),
        encode=_encode_categories,
        decode=_decode_categories,
    )
    register_object(
        np.random.SeedSequence,
        attributes=("entropy", "spawn_key", "pool_size", "n_children_spawned"),
        encode=_encode_seed,
        decode=_decode_seed,
    )
    for loss in (
        losses.SquaredError,
        losses.AbsoluteError,
        losses.HuberLoss,
        losses.BinomialLogLoss,
        losses.MultinomialLogLoss,
        losses.ExponentialLoss,
        losses.PoissonLoss,
    ):
        register_object(loss, validate=_plain_state)
    # Single trees and rule sets: everything they hold is stored; members of
    # ensembles drop the split codes of the histogram walk (floats suffice).
    for cls in (ID3Classifier, C45Classifier, CARTClassifier, CARTRegressor):
        register_estimator(cls, skip=("_split_codes",), rebuild=_rebuild_single_tree)
    register_estimator(RuleSetClassifier, rebuild=_rebuild_rules)
    register_estimator(LogitBoostClassifier, rebuild=_rebuild_logitboost)
    register_estimator(AdaBoostClassifier, skip=("_stack",), rebuild=_rebuild_adaboost)
    # Out-of-bag estimates are NaN for rows that every member drew.
    out_of_bag = ("oob_decision_function_", "oob_prediction_", "oob_score_")
    for cls in (BaggingClassifier, BaggingRegressor, RandomForestClassifier, RandomForestRegressor):
        register_estimator(
            cls, skip=("_stack", "_stack_key"), rebuild=_rebuild_bagging, non_finite=out_of_bag
        )
    for cls in (GradientBoostingClassifier, GradientBoostingRegressor):
        register_estimator(cls, skip=("_stack",), rebuild=_rebuild_gradient_boosting)
    for cls in (XGBoostClassifier, XGBoostRegressor):
        register_estimator(cls, skip=("_stack", "_timings"), rebuild=_rebuild_xgboost)
    for cls in (LightGBMClassifier, LightGBMRegressor):
        register_estimator(cls, skip=("_stack", "_timings"), rebuild=_rebuild_lightgbm)
    for cls in (ObliviousBoostingClassifier, ObliviousBoostingRegressor):
        register_estimator(cls, skip=("_tests", "_test_of", "_values"), rebuild=_rebuild_oblivious)
    register_estimator(ObliqueTreeClassifier, rebuild=_rebuild_oblique)
    register_estimator(ObliqueTreeRegressor, rebuild=_rebuild_oblique)
    register_estimator(ImportedTreeModel, skip=("_stack",), rebuild=_rebuild_imported)
    # Incremental trees: their whole state, so that partial_fit continues exactly.
    register_object(
        _Node,
        attributes=("test", "parent", "value", "counts", "dirty", "has_rows", "row_sizes", "rows"),
        encode=_encode_id5r_node,
        decode=_decode_id5r_node,
        name="ID5RNode",
    )
    register_estimator(
        HoeffdingTreeClassifier,
        rebuild=_rebuild_hoeffding,
        non_finite=("_threshold", "_g_min", "_g_max"),  # NaN at leaves, +-inf when empty
    )
    for cls in (ID5RClassifier, ID4Classifier):
        register_estimator(cls, skip=("_flat",), rebuild=_rebuild_id5r)
    # Stacking and blending, with the scikit-learn linear models that are their
    # default final estimators (and the usual ones) and the usual splitters.
    for cls in (StackingClassifier, StackingRegressor, BlendingClassifier, BlendingRegressor):
        register_estimator(cls, skip=("named_estimators_",), rebuild=_rebuild_stacking)
    for cls in (LogisticRegression, RidgeCV, Ridge, LinearRegression):
        register_estimator(cls, rebuild=_rebuild_linear)
    for cls in (KFold, StratifiedKFold):
        register_object(
            cls, attributes=("n_splits", "shuffle", "random_state"), validate=_check_splitter
        )
