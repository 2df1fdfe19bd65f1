"""Ensembles in model files: their fitted state checked as a whole, caches rebuilt (chapter 18).

One function per estimator family, in the book's order, called by the
family's ``_rebuild_caches`` hook when :func:`mltrees.io.load_model` has read
a fitted state: what must agree between the fitted attributes (shapes,
indices into other attributes, sizes declared and stored, objectives and
classes, bounded raw scores) before the prediction caches (the stacked walk
of every tree) are rebuilt. The format's own checks are in
:mod:`mltrees.io.format`.
"""

from __future__ import annotations

import numpy as np

from mltrees.io.format import (
    MAX_LOG_LINK_SCORE,
    MAX_RAW_SCORE,
    ModelFormatError,
    check_score_bound,
    check_tree_features,
    distinct_classes,
    expect,
    expect_array,
    expect_int,
    largest_value,
)


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
            own = TreeBuilder.specs(member)  # the tree engine's contract, not its private state
            expect(own is not None, where, "a member fitted on bins")
            expect(len(own) == len(estimator._specs), where, "the ensemble's binning")
        check_score_bound((largest_value(m.tree_) for m in members), path)
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


def _rebuild_adaboost(estimator) -> None:
    path = "AdaBoostClassifier"
    K = distinct_classes(estimator, path)
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
    check_score_bound(weights, f"{path}.estimator_weights_")
    estimator._stack = None
    if estimator._native:
        for i, member in enumerate(_tree_members(estimator, path)):
            expect(member.tree_.value.shape[1] == K, f"{path}.estimators_[{i}]", f"{K} classes")
        estimator._build_stack()


def _rebuild_logitboost(estimator) -> None:
    path = "LogitBoostClassifier"
    expect(distinct_classes(estimator, path) == 2, f"{path}.classes_", "two classes")
    members = _tree_members(estimator, path)
    for i, member in enumerate(members):
        expect(not hasattr(member, "classes_"), f"{path}.estimators_[{i}]", "a regression tree")
    check_score_bound((largest_value(m.tree_) for m in members), path)


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
    check_score_bound(
        [np.abs(base).max(), *(abs(scale) * largest_value(t) for t in flat)], path, limit
    )
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
        K = distinct_classes(estimator, path)
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
        K = distinct_classes(estimator, path)
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
        K = distinct_classes(estimator, path)
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
        K = distinct_classes(estimator, path)
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
    check_score_bound([np.abs(base).max(), *(largest_value(t) for t in trees)], path)
    estimator._compile()


def _output_width(member, method: str, n_classes: int) -> int:
    """Columns one member adds to the level-1 features (binary probabilities: one)."""
    if method == "predict" or not hasattr(member, "classes_"):
        return 1
    if method == "predict_proba":
        return 1 if n_classes == 2 else n_classes
    return 1 if len(member.classes_) == 2 else len(member.classes_)


def _rebuild_stacking(estimator, FoldAverage: type) -> None:
    """Fitted members for the declared ones, level-1 widths that feed the final estimator.

    ``FoldAverage`` is the class of a member averaged over folds, passed by
    the stack (which defines it) rather than imported back from it.
    """
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
    K = distinct_classes(estimator, path) if hasattr(estimator, "classes_") else 0
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
