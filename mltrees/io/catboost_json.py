"""CatBoost models (``save_model(path, format="json")``) as mltrees trees (chapter 18).

A CatBoost model of numeric features is a sum of trees over the binarized
features: a split asks whether ``float32(x) > b`` for a float32 border
``b`` (the book's θ) and answers with a bit. An oblivious (symmetric) tree
of depth δ asks δ questions, the same at every node of a level; the
answers, split ``r`` giving bit ``r``, form the index of its leaf,
:eq:`eq-oblivious-leaf`.
Non-symmetric trees (``grow_policy="Depthwise"`` or ``"Lossguide"``) are
written as nested ``split``/``left``/``right`` objects, ``left`` the answer 0.
The raw score is ``scale * sum of leaves + bias``.

:func:`import_catboost` turns each tree into a binary
:class:`~mltrees.tree.Tree` (an oblivious tree into the full tree of
depth δ), one per tree and output, so the model predicts with the
book's walk and :class:`~mltrees.io.ImportedTreeModel`. The float32 test
becomes a float64 threshold with :func:`catboost_threshold`; a missing
value goes where CatBoost sends it (``nan_mode``: ``Min`` or ``Forbidden``
below every border, ``Max`` above).

Categorical features are refused: CatBoost turns a category into numbers
through a hash of its text (CityHash) and target statistics (CTR tables of
hashed category combinations), which this importer does not reproduce.
Text and embedding features, one-vs-all multiclass and multi-output
regression are refused too.
"""

from __future__ import annotations

import math

import numpy as np

from mltrees.io.format import Budget, ModelFormatError, expect, validate_tree
from mltrees.io.importers import (
    _CELLS_PER_NODE,
    DEFAULT_MAX_BYTES,
    ImportedTreeModel,
    _finish_model,
    _json_document,
    _numbers,
    _tree_from_links,
    xgboost_threshold,
)

__all__ = ["catboost_threshold", "import_catboost"]

MAX_DEPTH = 16  # CatBoost's largest depth of an oblivious tree

# CatBoost's losses and the link from the raw score to what ``predict``
# (``predict_proba`` for classifiers) returns.
_LINKS = {
    "Logloss": "logit",
    "CrossEntropy": "logit",
    "MultiClass": "softmax",
    "Poisson": "log",
    "Tweedie": "log",
}
_IDENTITY = {
    "RMSE",
    "MAE",
    "Quantile",
    "Expectile",
    "LogLinQuantile",
    "MAPE",
    "Huber",
    "Lq",
    "LogCosh",
    "FairLoss",
    "YetiRank",
    "YetiRankPairwise",
    "PairLogit",
    "PairLogitPairwise",
    "QueryRMSE",
    "QuerySoftMax",
    "StochasticFilter",
    "StochasticRank",
    "LambdaMart",
}
_NAN_SLOT = {"AsIs": 0, "AsFalse": 0, "AsTrue": 1}  # NaN's answer: 0 left, 1 right


def catboost_threshold(border) -> np.ndarray:
    """The float64 ``s`` with ``x <= s  <=>  float32(x) <= b`` for every float64 ``x``.

    Chapter 18 writes ``b``, ``u`` and ``s`` as θ, θ⁺ and θ'. CatBoost answers
    1 when ``float32(x) > b``; mltrees sends ``x <= s`` to the first child.
    ``float32(x) <= b`` holds exactly when ``float32(x) < u``, ``u`` the
    float32 just above ``b``, so ``s`` is :func:`~mltrees.io.xgboost_threshold`
    of ``u`` (:eq:`eq-xgb-threshold`); above the largest float32 ``u`` is
    ``2**128``, where rounding to float32 overflows.
    """
    b = np.asarray(border, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        above = np.nextafter(b, np.float32(np.inf))
        s = xgboost_threshold(np.where(np.isinf(above), np.float32(0), above))
    # u = 2**128: its float32 neighbour below is the largest float32, of odd significand.
    largest = float(np.finfo(np.float32).max)
    overflow = np.nextafter((largest + 2.0**128) / 2.0, -np.inf)
    return np.where(np.isinf(above), overflow, s)


def import_catboost(
    model, *, max_bytes: int = DEFAULT_MAX_BYTES, max_cells: int | None = None
) -> ImportedTreeModel:
    """A CatBoost model saved as JSON, as an :class:`~mltrees.io.ImportedTreeModel`.

    Parameters
    ----------
    model : str, bytes, dict or path-like
        The JSON of ``model.save_model(path, format="json")``, already
        parsed, or the path of the file.
    max_bytes : int
        A longer file is refused before it is read.
    max_cells : int or None
        The most cells (8-byte entries of tree nodes) the model may hold;
        None: ``max(2**22, 4 * file size)`` (:class:`~mltrees.io.format.Budget`).

    Returns
    -------
    ImportedTreeModel
        ``decision_function`` equals CatBoost's raw score
        (``prediction_type="RawFormulaVal"``) to rounding; ``predict`` equals
        ``predict_proba`` (its class-1 column for ``Logloss``) for
        classifiers, ``predict`` for regressors (``exp`` of the raw score for
        Poisson and Tweedie).

    Notes
    -----
    Numeric features only. Models with categorical, text or embedding
    features are refused with :class:`~mltrees.io.ModelFormatError`
    (CatBoost's category hashing and CTR tables are not reproduced); so are
    one-vs-all multiclass, multi-output regression, and any malformed file,
    before anything of its size is allocated.
    """
    document, n_bytes = _json_document(model, max_bytes)
    budget = Budget(n_bytes, max_cells)
    try:
        info = document["features_info"]
        loss = document["model_info"]["params"]["loss_function"]["type"]
        trees_json = document.get("oblivious_trees", document.get("trees"))
        scale_and_bias = document.get("scale_and_bias", [1.0, [0.0]])
    except (KeyError, TypeError) as error:
        raise ModelFormatError(f"not a CatBoost JSON model: {error!r}") from None
    expect(isinstance(info, dict), "features_info", "a JSON object")
    for key in ("categorical_features", "ctrs", "text_features", "embedding_features"):
        if info.get(key):
            raise ModelFormatError(
                f"features_info.{key}: models with categorical, text or embedding features are "
                "not imported (CatBoost's category hashing and CTR tables are not reproduced); "
                "one-hot or ordinal-encode such columns before training"
            )
    if document.get("ctr_data"):
        raise ModelFormatError("ctr_data: models with categorical features are not imported")
    if not isinstance(loss, str) or (loss not in _LINKS and loss not in _IDENTITY):
        raise ModelFormatError(f"loss_function {str(loss)[:40]!r} is not supported")
    link = _LINKS.get(loss, "identity")
    columns, borders, nan_slot, names = _float_features(info.get("float_features"), budget)
    n_features = int(columns.max()) + 1
    budget.spend(4 * n_features, "flat_feature_index", "entries per input column")
    scale, bias = _scale_and_bias(scale_and_bias)
    n_outputs = bias.size
    if (link == "softmax") != (n_outputs > 1):
        raise ModelFormatError(
            f"loss_function {loss!r} with {n_outputs} output(s): multi-output regression is "
            "not imported, and multiclass models have one output per class"
        )
    expect(isinstance(trees_json, list) and trees_json, "trees", "a non-empty list")
    symmetric = "oblivious_trees" in document
    trees, outputs = [], []
    for i, tree_json in enumerate(trees_json):
        if symmetric:
            path = f"oblivious_trees[{i}]"
            made = _oblivious_trees(
                tree_json, n_outputs, borders, columns, nan_slot, scale, budget, path
            )
            trees.extend(made)
            outputs.extend(range(n_outputs))
            continue
        path = f"trees[{i}]"
        links = _non_symmetric_tree(tree_json, n_outputs, borders, budget, path)
        left, right, feature, split, leaf_values, cover = links
        split_feature = np.where(feature >= 0, columns[np.maximum(feature, 0)], 0)
        threshold = np.where(feature >= 0, catboost_threshold(split), np.nan)
        missing = np.where(feature >= 0, nan_slot[np.maximum(feature, 0)], -1)
        for k in range(n_outputs):
            trees.append(
                _tree_from_links(
                    left,
                    right,
                    split_feature,
                    threshold,
                    missing,
                    scale * leaf_values[:, k],
                    cover,
                    path=f"{path}[{k}]",
                )
            )
            outputs.append(k)
    return _finish_model(
        trees,
        np.asarray(outputs, dtype=np.int64),
        bias,
        link,
        loss,
        "catboost",
        n_features,
        names if names is not None and len(names) == n_features else None,
    )


def _float_features(features, budget: Budget):
    """Input column, float32 borders and NaN slot of every float feature, and their names."""
    expect(isinstance(features, list) and features, "float_features", "a non-empty list")
    budget.spend(8 * len(features), "float_features", "entries per feature")  # before reading
    columns, borders, nan_slot, names = [], [], [], []
    for i, feature in enumerate(features):
        path = f"float_features[{i}]"
        expect(isinstance(feature, dict), path, "a JSON object")
        index, column = feature.get("feature_index"), feature.get("flat_feature_index")
        expect(type(index) is int and index == i, f"{path}.feature_index", f"{i}")
        expect(
            type(column) is int and 0 <= column < 1 << 24,
            f"{path}.flat_feature_index",
            "a column index",
        )
        values = _numbers(feature.get("borders", []), f"{path}.borders")
        with np.errstate(over="ignore"):
            as_float32 = values.astype(np.float32)
        expect(np.isfinite(as_float32).all(), f"{path}.borders", "float32 numbers")
        treatment = feature.get("nan_value_treatment", "AsIs")
        expect(
            isinstance(treatment, str) and treatment in _NAN_SLOT,
            f"{path}.nan_value_treatment",
            f"one of {list(_NAN_SLOT)}",
        )
        columns.append(column)
        borders.append(as_float32)
        nan_slot.append(_NAN_SLOT[treatment])
        name = feature.get("feature_name", feature.get("feature_id"))
        names.append(name if isinstance(name, str) and name else None)
    columns = np.asarray(columns, dtype=np.int64)
    # Without categorical, text or embedding features every input column is a float feature.
    expect(
        np.array_equal(np.sort(columns), np.arange(columns.size)),
        "flat_feature_index",
        "the input columns 0, 1, ..., one per float feature",
    )
    by_column = [None] * (int(columns.max()) + 1)
    for column, name in zip(columns.tolist(), names, strict=True):
        by_column[column] = name
    named = by_column if all(n is not None for n in by_column) else None
    return columns, borders, np.asarray(nan_slot, dtype=np.int64), named


def _scale_and_bias(value):
    ok = isinstance(value, list) and len(value) == 2 and isinstance(value[1], list)
    expect(ok, "scale_and_bias", "[scale, [bias, ...]]")
    scale = value[0]
    expect(
        type(scale) in (int, float) and math.isfinite(scale) and scale != 0,
        "scale_and_bias",
        "a finite, non-zero scale",
    )
    bias = _numbers(value[1], "scale_and_bias[1]")
    expect(1 <= bias.size <= 1 << 16, "scale_and_bias[1]", "one bias per output")
    return float(scale), bias


def _split(split, borders, path):
    """The float feature and float32 border of a split (numeric splits only)."""
    expect(isinstance(split, dict), path, "a JSON object")
    kind = split.get("split_type")
    if kind != "FloatFeature":
        raise ModelFormatError(f"{path}: split type {str(kind)[:40]!r} is not imported")
    feature, border = split.get("float_feature_index"), split.get("border")
    expect(type(feature) is int and 0 <= feature < len(borders), path, "a float feature index")
    expect(type(border) in (int, float), path, "a numeric border")
    with np.errstate(over="ignore"):
        border32 = np.float32(border)
    expect(math.isfinite(border32), path, "a float32 border")
    return feature, border32


def _oblivious_trees(tree, n_outputs, borders, columns, nan_slot, scale, budget, path):
    """The full binary trees (one per output) of an oblivious tree, split ``d - 1`` at the root.

    Leaf ``k`` (left to right) is the leaf of index ``k``: its path answers
    split ``d - 1`` first, so the answers read from the root are the bits of
    ``k``, most significant first. Breadth-first, node ``i`` has children
    ``2i + 1`` and ``2i + 2``: already the order of the format, so the node
    layout of each depth is built and checked once (:func:`_layout`);
    internal values are the cover-weighted means of their children and
    internal covers the sums of their leaves' weights, one level at a time.
    """
    from mltrees.tree._tree import Tree

    expect(isinstance(tree, dict), path, "a JSON object")
    splits = tree.get("splits")
    if splits is None:  # CatBoost writes "splits": null for a tree without a split
        splits = []
    expect(
        isinstance(splits, list) and len(splits) <= MAX_DEPTH,
        f"{path}.splits",
        f"a list of at most {MAX_DEPTH} splits",
    )
    depth = len(splits)
    n_leaves = 1 << depth
    budget.spend(_CELLS_PER_NODE * (2 * n_leaves - 1) * n_outputs, path, "tree nodes")
    values = _numbers(tree.get("leaf_values"), f"{path}.leaf_values", n=n_leaves * n_outputs)
    weights = tree.get("leaf_weights")
    weights = (
        np.ones(n_leaves)
        if weights is None
        else _numbers(weights, f"{path}.leaf_weights", n=n_leaves)
    )
    expect((weights >= 0).all(), f"{path}.leaf_weights", "weights >= 0")
    parsed = [_split(s, borders, f"{path}.splits[{i}]") for i, s in enumerate(splits)]
    layout = _layout(depth)
    n_internal = n_leaves - 1
    split_of_node = layout["split"]  # the split asked at each internal node
    feature = np.array([f for f, _ in parsed], dtype=np.int64)[split_of_node]
    border = np.array([b for _, b in parsed], dtype=np.float32)[split_of_node]
    internal = layout["internal"]
    node_feature = np.full(2 * n_leaves - 1, -1, dtype=np.int64)
    node_feature[:n_internal] = columns[feature]
    threshold = np.full(2 * n_leaves - 1, np.nan)
    threshold[:n_internal] = catboost_threshold(border)
    missing = np.full(2 * n_leaves - 1, -1, dtype=np.int8)
    missing[:n_internal] = nan_slot[feature]
    cover = np.zeros(2 * n_leaves - 1)
    cover[n_internal:] = weights
    value = np.zeros((2 * n_leaves - 1, n_outputs))
    value[n_internal:] = scale * values.reshape(n_leaves, n_outputs)
    for d in range(depth - 1, -1, -1):  # bottom-up, one level a step
        ids = np.arange((1 << d) - 1, (1 << (d + 1)) - 1)
        a, b = 2 * ids + 1, 2 * ids + 2
        total = cover[a] + cover[b]
        value[ids] = np.where(
            (total > 0)[:, None],
            (cover[a, None] * value[a] + cover[b, None] * value[b])
            / np.where(total > 0, total, 1.0)[:, None],
            0.5 * (value[a] + value[b]),
        )
        cover[ids] = total
    expect(np.isfinite(value).all() and np.isfinite(cover).all(), path, "finite values")
    n = 2 * n_leaves - 1
    out = []
    for k in range(n_outputs):
        tree_k = Tree(
            feature=node_feature.copy(),
            kind=np.where(internal, 0, -1).astype(np.int8),
            threshold=threshold.copy(),
            first_child=layout["first_child"].copy(),
            n_children=layout["n_children"].copy(),
            route_offset=np.zeros(n, dtype=np.int64),
            route_table=np.zeros(0, dtype=np.int8),
            n_categories=np.zeros(n, dtype=np.int64),
            value=value[:, k : k + 1].copy(),
            impurity=np.zeros(n),
            n_node_samples=np.zeros(n, dtype=np.int64),
            weighted_n_node_samples=cover.copy(),
            depth=layout["depth"].copy(),
            parent=layout["parent"].copy(),
            missing_slot=missing.copy(),
        )
        if not layout["checked"]:  # the layout of this depth, checked on its first tree
            validate_tree(tree_k, path=f"{path}[{k}]")
            layout["checked"] = True
        out.append(tree_k)
    return out


_LAYOUTS: dict = {}  # depth -> the node layout of the full binary tree of that depth


def _layout(depth: int) -> dict:
    """Breadth-first layout of the full binary tree of ``depth``: links, levels, splits."""
    layout = _LAYOUTS.get(depth)
    if layout is None:
        n = (2 << depth) - 1
        node = np.arange(n)
        level = np.zeros(n, dtype=np.int64)
        for d in range(1, depth + 1):
            level[(1 << d) - 1 :] = d
        internal = level < depth
        layout = {
            "internal": internal,
            "first_child": np.where(internal, 2 * node + 1, -1),
            "n_children": np.where(internal, 2, 0),
            "parent": np.where(node > 0, (node - 1) // 2, -1),
            "depth": level,
            "split": depth - 1 - level[internal],
            "checked": False,
        }
        _LAYOUTS[depth] = layout
    return layout


def _non_symmetric_tree(tree, n_outputs, borders, budget, path):
    """Child links of a tree written as nested ``split``/``left``/``right`` objects.

    Read with an explicit stack (never recursion), one node at a time, each
    paid from the budget before it is stored.
    """
    left, right, feature, border, values, cover = [], [], [], [], [], []
    stack = [(tree, -1, 0, path)]  # (JSON node, parent id, side, path)
    while stack:
        item, parent, side, where = stack.pop()
        budget.spend(_CELLS_PER_NODE * n_outputs, where, "tree nodes")
        expect(isinstance(item, dict), where, "a JSON object")
        i = len(left)
        if parent >= 0:
            (left if side == 0 else right)[parent] = i
        if "value" in item:
            value = item["value"]
            value = _numbers(
                value if isinstance(value, list) else [value], f"{where}.value", n=n_outputs
            )
            weight = item.get("weight", 1.0)
            expect(
                type(weight) in (int, float) and 0 <= weight < math.inf,
                f"{where}.weight",
                "a finite weight >= 0",
            )
            left.append(-1)
            right.append(-1)
            feature.append(-1)
            border.append(0.0)
            values.append(value)
            cover.append(float(weight))
            continue
        f, b = _split(item.get("split"), borders, f"{where}.split")
        left.append(-2)  # filled when the child is read
        right.append(-2)
        feature.append(f)
        border.append(b)
        values.append(np.zeros(n_outputs))
        cover.append(0.0)
        stack.append((item.get("right"), i, 1, f"{where}.right"))
        stack.append((item.get("left"), i, 0, f"{where}.left"))
    left, right = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64).reshape(len(left), n_outputs)
    cover = np.asarray(cover)
    # Internal covers: the sum of their leaves (children come after their parent).
    for i in range(len(left) - 1, -1, -1):
        if left[i] >= 0:
            cover[i] = cover[left[i]] + cover[right[i]]
    return (
        left,
        right,
        np.asarray(feature, dtype=np.int64),
        np.asarray(border, dtype=np.float32),
        values,
        cover,
    )
