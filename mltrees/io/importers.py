"""XGBoost and LightGBM models as mltrees trees (chapter 18).

:func:`import_xgboost` reads the JSON of ``Booster.save_model("m.json")``,
:func:`import_lightgbm` the text of ``Booster.model_to_string()``; both return
an :class:`ImportedTreeModel` whose trees are :class:`~mltrees.tree._tree.Tree`
arrays, so the book can draw, explain and predict with them. The split tests
are translated exactly into mltrees' ``x <= threshold`` on float64 values:

* XGBoost sends ``x`` left when ``float32(x) < t``. Rounding to float32 is
  monotone, so this holds exactly when ``x`` lies below the midpoint ``m``
  between ``t`` and the float32 just below it, ``p``; at ``x = m`` the tie goes
  to the even one of ``p`` and ``t`` (:eq:`eq-xgb-threshold`). ``m`` is exact in
  float64 (a float32 has 24 significant bits, ``m`` needs 25).
* LightGBM sends ``x`` left when ``x <= t`` in double, so ``t`` is kept. Its
  ``decision_type`` bits give the categorical flag (bit 0), the default
  direction (bit 1) and the missing type (bits 2-3: None, Zero, NaN); a
  categorical node tests membership of ``int(x)`` in a bitset.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
from sklearn.base import BaseEstimator

from mltrees.io.format import ModelFormatError, validate_tree

__all__ = ["ImportedTreeModel", "import_lightgbm", "import_xgboost", "xgboost_threshold"]

_LINKS = ("identity", "logit", "log", "softmax")


class ImportedTreeModel(BaseEstimator):
    """Trees trained by another library, held as mltrees :class:`Tree` arrays.

    Built by :func:`import_xgboost` or :func:`import_lightgbm`, not by ``fit``.
    The raw score of output ``k`` is ``base_margin_[k]`` plus the leaf values
    of the trees with ``tree_output_ == k`` (divided by the number of rounds
    when ``average_output_``: LightGBM's random forest mode).

    Attributes
    ----------
    trees_ : list of Tree
        One regression tree per (round, output); ``value`` holds the leaf
        values (internal nodes: the cover-weighted mean of their leaves).
    tree_output_ : ndarray of int
        The output each tree adds to.
    base_margin_ : ndarray of float, shape (n_outputs,)
        The starting raw score (XGBoost's ``base_score`` as a margin; 0 for
        LightGBM, whose initial score is folded into its first trees).
    link_ : {"identity", "logit", "log", "softmax"}
        How :meth:`predict` maps raw scores to the library's prediction.
    sigmoid_ : float
        LightGBM's ``sigmoid`` of binary objectives (1 for XGBoost).
    objective_ : str
        The objective as the library names it.
    source_ : {"xgboost", "lightgbm"}
    categorical_ : ndarray of bool, shape ``(n_features_in_,)``
        Features tested by category membership (LightGBM).
    zero_as_missing_ : ndarray of bool, shape ``(n_features_in_,)``
        Features whose nodes treat 0 (``|x| <= 1e-35``) as missing (LightGBM's
        ``zero_as_missing``): such values are mapped to NaN before the walk.
    n_codes_ : ndarray of int, shape ``(n_features_in_,)``
        For a categorical feature, the codes its routing tables cover; any
        other value (negative, too large) gets code ``n_codes_`` (routed right).
    feature_names_in_ : ndarray of str
    """

    def _check(self):
        n_features = self.n_features_in_
        if not isinstance(self.trees_, list) or not self.trees_:
            raise ModelFormatError("trees_: a non-empty list of Tree")
        outputs = self.tree_output_
        base = self.base_margin_
        if (
            not isinstance(outputs, np.ndarray)
            or outputs.shape != (len(self.trees_),)
            or not isinstance(base, np.ndarray)
            or base.ndim != 1
            or base.size < 1
            or outputs.dtype.kind not in "iu"
            or (outputs < 0).any()
            or (outputs >= base.size).any()
        ):
            raise ModelFormatError("tree_output_: one output index in [0, n_outputs) per tree")
        if self.link_ not in _LINKS or (self.link_ == "softmax") != (base.size > 1):
            raise ModelFormatError(f"link_: one of {_LINKS}; softmax for several outputs only")
        for i, tree in enumerate(self.trees_):
            validate_tree(tree, n_features, path=f"trees_[{i}]")
            if tree.value.shape[1] != 1:
                raise ModelFormatError(f"trees_[{i}]: one value column")
        categorical = self.categorical_
        if not isinstance(categorical, np.ndarray) or categorical.shape != (n_features,):
            raise ModelFormatError("categorical_: one boolean per feature")
        zero = self.zero_as_missing_
        if not isinstance(zero, np.ndarray) or zero.shape != (n_features,) or zero.dtype != bool:
            raise ModelFormatError("zero_as_missing_: one boolean per feature")
        codes = self.n_codes_
        if not isinstance(codes, np.ndarray) or codes.shape != (n_features,) or (codes < 0).any():
            raise ModelFormatError("n_codes_: one count per feature")

    def _values(self, X) -> np.ndarray:
        """The input as float64, categorical columns mapped to their codes."""
        if hasattr(X, "iloc") and hasattr(X, "dtypes"):
            X = X.apply(
                lambda c: c.cat.codes.where(c.cat.codes >= 0) if hasattr(c, "cat") else c
            ).to_numpy(dtype=np.float64)
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have shape (n_samples, {self.n_features_in_}), got {X.shape}")
        zero = np.flatnonzero(self.zero_as_missing_)
        if zero.size:  # LightGBM's missing type Zero: the band (-1e-35, 1e-35] is missing
            X = X.copy()
            band = (X[:, zero] > -_ZERO) & (X[:, zero] <= _ZERO)
            X[:, zero] = np.where(band, np.nan, X[:, zero])
        columns = np.flatnonzero(self.categorical_)
        if columns.size:
            X = X.copy()
            for j in columns:
                x = X[:, j]
                with np.errstate(invalid="ignore"):
                    code = np.trunc(x)  # C's static_cast<int>: toward zero
                outside = ~(code >= 0) | (code >= self.n_codes_[j])
                if self.source_ == "xgboost":  # XGBoost: any negative value is no category
                    outside |= x < 0
                X[:, j] = np.where(np.isnan(x), np.nan, np.where(outside, self.n_codes_[j], code))
        return X

    def tree_estimator(self, index: int):
        """Tree ``index`` as a fitted :class:`~mltrees.tree.CARTRegressor` (to draw or explain it).

        Its ``predict`` returns the tree's leaf values for inputs prepared as
        this model prepares them (categorical columns as codes); drawing
        functions such as :func:`mltrees.plot_tree` and :func:`mltrees.export_text`
        accept it.
        """
        from mltrees.tree._data import CATEGORICAL, NUMERIC, FeatureSpec
        from mltrees.tree.classes import CARTRegressor

        tree = self.trees_[int(index)]
        if not tree.n_node_samples.any():  # XGBoost stores no row counts, only covers
            tree = dataclasses.replace(tree, n_node_samples=np.ones(tree.node_count, np.int64))
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = [f"f{j}" for j in range(self.n_features_in_)]
        specs = [
            FeatureSpec(CATEGORICAL, np.arange(self.n_codes_[j] + 1), name=str(names[j]))
            if self.categorical_[j]
            else FeatureSpec(NUMERIC, np.zeros(0), name=str(names[j]))
            for j in range(self.n_features_in_)
        ]
        member = CARTRegressor(missing="default_direction")
        member.tree_, member._specs = tree, specs
        member.n_features_in_, member.n_outputs_ = self.n_features_in_, 1
        if hasattr(self, "feature_names_in_"):
            member.feature_names_in_ = self.feature_names_in_
        return member

    def apply(self, X) -> np.ndarray:
        """The leaf of every tree each sample reaches, shape (n_samples, n_trees)."""
        values = self._values(X)
        return np.column_stack([tree.apply(values) for tree in self.trees_])

    def decision_function(self, X) -> np.ndarray:
        """Raw scores (margins): shape (n_samples,) or (n_samples, n_outputs)."""
        values = self._values(X)
        raw = np.tile(self.base_margin_, (values.shape[0], 1))
        for tree, k in zip(self.trees_, self.tree_output_, strict=True):
            raw[:, k] += tree.value[tree.apply(values), 0]
        if self.average_output_:
            raw = (raw - self.base_margin_) / (len(self.trees_) // self.base_margin_.size)
            raw += self.base_margin_
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict(self, X) -> np.ndarray:
        """What the library's ``Booster.predict`` returns: the raw score through the link."""
        raw = self.decision_function(X)
        if self.link_ == "logit":
            return 1.0 / (1.0 + np.exp(-self.sigmoid_ * raw))
        if self.link_ == "log":
            return np.exp(raw)
        if self.link_ == "softmax":
            shifted = np.exp(raw - raw.max(axis=1, keepdims=True))
            return shifted / shifted.sum(axis=1, keepdims=True)
        return raw


def _finish_model(
    trees,
    outputs,
    base,
    link,
    objective,
    source,
    n_features,
    names,
    categorical=None,
    n_codes=None,
    zero_as_missing=None,
    sigmoid=1.0,
    average=False,
):
    model = ImportedTreeModel()
    model.trees_ = trees
    model.tree_output_ = np.asarray(outputs, dtype=np.int64)
    model.base_margin_ = np.asarray(base, dtype=np.float64)
    model.link_ = link
    model.sigmoid_ = float(sigmoid)
    model.average_output_ = bool(average)
    model.objective_ = objective
    model.source_ = source
    model.n_features_in_ = int(n_features)
    if names is not None and len(names) == n_features:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model.categorical_ = (
        np.zeros(n_features, dtype=bool) if categorical is None else np.asarray(categorical)
    )
    model.zero_as_missing_ = (
        np.zeros(n_features, dtype=bool) if zero_as_missing is None else zero_as_missing
    )
    model.n_codes_ = (
        np.zeros(n_features, dtype=np.int64) if n_codes is None else np.asarray(n_codes)
    )
    model._check()
    return model


def _tree_from_links(
    left,
    right,
    feature,
    threshold,
    missing_slot,
    leaf_value,
    cover,
    categorical=None,
    count=None,
    path="tree",
):
    """An mltrees :class:`Tree` from binary child links (-1 at leaves), in breadth-first order.

    Children become consecutive ids; internal values are the cover-weighted
    means of their children (what path-dependent TreeSHAP expects). Routing
    tables of categorical nodes come from ``categorical``: a dict node ->
    array of slots (0 left, 1 right) per code.
    """
    from mltrees.tree._tree import Tree

    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    n = left.size
    leaf = left < 0
    if ((left >= n) | (right >= n) | ((right < 0) != leaf)).any():
        raise ModelFormatError(f"{path}: child indices out of range")
    order = [np.zeros(1, dtype=np.int64)]  # old ids, level by level
    seen = np.zeros(n, dtype=np.int64)
    seen[0] = 1
    level = order[0]
    for _ in range(n):
        inner = level[~leaf[level]]
        if inner.size == 0:
            break
        level = np.column_stack([left[inner], right[inner]]).ravel()
        np.add.at(seen, level, 1)
        if seen.max() > 1:
            raise ModelFormatError(f"{path}: a node is reached twice (a cycle or shared child)")
        order.append(level)
    old = np.concatenate(order)
    if old.size != n:
        raise ModelFormatError(f"{path}: {n - old.size} node(s) unreachable from the root")
    new = np.empty(n, dtype=np.int64)
    new[old] = np.arange(n)
    is_leaf = leaf[old]
    first_child = np.where(is_leaf, -1, new[np.where(leaf, 0, left)][old])
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    internal = np.flatnonzero(~is_leaf)
    for d, ids in enumerate(order):
        depth[new[ids]] = d
    parent[first_child[internal]] = internal
    parent[first_child[internal] + 1] = internal
    weight = np.asarray(cover, dtype=np.float64)[old]
    value = np.where(is_leaf, np.asarray(leaf_value, dtype=np.float64)[old], 0.0)
    # Bottom-up: an internal node's value is the cover-weighted mean of its children.
    for d in range(len(order) - 2, -1, -1):
        ids = internal[depth[internal] == d]
        a, b = first_child[ids], first_child[ids] + 1
        total = weight[a] + weight[b]
        value[ids] = np.where(
            total > 0,
            (weight[a] * value[a] + weight[b] * value[b]) / np.where(total > 0, total, 1.0),
            0.5 * (value[a] + value[b]),
        )
    kind = np.where(is_leaf, -1, 0).astype(np.int8)
    n_categories = np.zeros(n, dtype=np.int64)
    route_offset = np.zeros(n, dtype=np.int64)
    tables = []
    offset = 0
    for old_id, slots in sorted((categorical or {}).items()):
        i = new[old_id]
        kind[i] = 1
        n_categories[i] = slots.size
        route_offset[i] = offset
        offset += slots.size
        tables.append(np.asarray(slots, dtype=np.int64))
    tree = Tree(
        feature=np.where(is_leaf, -1, np.asarray(feature, dtype=np.int64)[old]),
        kind=kind,
        threshold=np.where(is_leaf, np.nan, np.asarray(threshold, dtype=np.float64)[old]),
        first_child=first_child,
        n_children=np.where(is_leaf, 0, 2).astype(np.int64),
        route_offset=route_offset,
        route_table=np.concatenate(tables) if tables else np.zeros(0, dtype=np.int64),
        n_categories=n_categories,
        value=value[:, None],
        impurity=np.zeros(n),
        n_node_samples=np.zeros(n, dtype=np.int64)
        if count is None
        else np.maximum(np.asarray(count, dtype=np.int64)[old], 0),
        weighted_n_node_samples=np.maximum(weight, 0.0),
        depth=depth,
        parent=parent,
        missing_slot=np.where(is_leaf, -1, np.asarray(missing_slot)[old]).astype(np.int8),
    )
    validate_tree(tree, path=path)
    return tree


# ---------------------------------------------------------------- XGBoost


def xgboost_threshold(t) -> np.ndarray:
    """The float64 ``s`` with ``x <= s  <=>  float32(x) < t`` for every float64 ``x``.

    Implements :eq:`eq-xgb-threshold` (chapter 18, where ``t``, ``s``, ``m`` and
    ``p`` are θ, θ', θ̄ and θ⁻): ``s`` is the midpoint ``m`` of ``t`` and the
    float32 ``p`` just below it when the tie ``x = m`` rounds to ``p`` (``p``
    has an even significand), else the float64 just below ``m``.
    """
    t = np.asarray(t, dtype=np.float32)
    p = np.nextafter(t, np.float32(-np.inf))
    m = (p.astype(np.float64) + t.astype(np.float64)) / 2.0
    p_even = (p.view(np.uint32) & 1) == 0
    return np.where(p_even, m, np.nextafter(m, -np.inf))


def _parse_list(text) -> list[float]:
    """XGBoost writes scalars like base_score as "5E-1" or "[5E-1,2E-1]"."""
    if isinstance(text, (int, float)):
        return [float(text)]
    if not isinstance(text, str) or len(text) > 100_000:
        raise ModelFormatError("base_score: a number or a list of numbers")
    try:
        return [float(v) for v in text.strip().strip("[]").split(",") if v.strip()]
    except ValueError:
        raise ModelFormatError(f"base_score: cannot read {text[:40]!r}") from None


_XGB_LINKS = {
    "reg:squarederror": "identity",
    "reg:squaredlogerror": "identity",
    "reg:pseudohubererror": "identity",
    "reg:absoluteerror": "identity",
    "reg:quantileerror": "identity",
    "binary:logitraw": "identity",
    "reg:logistic": "logit",
    "binary:logistic": "logit",
    "count:poisson": "log",
    "reg:gamma": "log",
    "reg:tweedie": "log",
    "multi:softprob": "softmax",
    "multi:softmax": "softmax",
}


def import_xgboost(model) -> ImportedTreeModel:
    """An XGBoost ``gbtree`` model as an :class:`ImportedTreeModel`.

    Parameters
    ----------
    model : str, bytes, dict or path-like
        The JSON of ``Booster.save_model("m.json")`` (or ``save_raw("json")``),
        already parsed, or the path of the file.

    Notes
    -----
    Numeric splits are translated with :func:`xgboost_threshold`, a missing
    value goes to the node's default child, and ``base_score`` becomes a
    margin through the objective's link (logit for ``binary:logistic``, log
    for Poisson, Gamma and Tweedie). ``predict`` equals ``Booster.predict``
    (``multi:softmax``: the probabilities of ``multi:softprob``) to float32
    precision. A categorical split sends the categories listed for its node
    right and every other value (negative, unlisted, too large) left; pass
    categorical columns as the codes of the training categories (a pandas
    ``category`` column is converted to its codes). ``dart`` and ``gblinear``
    boosters are refused.
    """
    document = _load_document(model)
    try:
        learner = document["learner"]
        param = learner["learner_model_param"]
        objective = learner["objective"]["name"]
        booster = learner["gradient_booster"]
        if booster.get("name") != "gbtree":
            raise ModelFormatError(
                f"only gbtree boosters are imported, got {booster.get('name')!r}"
            )
        forest = booster["model"]
        trees_json = forest["trees"]
        tree_info = forest["tree_info"]
        n_features = int(param["num_feature"])
        n_class = int(param.get("num_class", "0"))
        base = _parse_list(param["base_score"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        if isinstance(error, ModelFormatError):
            raise
        raise ModelFormatError(f"not an XGBoost JSON model: {error!r}") from None
    if objective not in _XGB_LINKS:
        raise ModelFormatError(f"objective {objective!r} is not supported")
    link = _XGB_LINKS[objective]
    n_outputs = max(n_class, 1)
    if len(base) == 1:
        base = base * n_outputs
    if len(base) != n_outputs:
        raise ModelFormatError(f"base_score has {len(base)} values for {n_outputs} outputs")
    base32 = np.asarray(base, dtype=np.float32)
    if link == "logit":
        margin = np.log(base32 / (np.float32(1) - base32))
    elif link == "log":
        margin = np.log(base32)
    else:
        margin = base32
    parsed = []
    n_codes = np.zeros(n_features, dtype=np.int64)
    categorical = np.zeros(n_features, dtype=bool)
    for i, tj in enumerate(trees_json):
        try:
            left = np.asarray(tj["left_children"], dtype=np.int64)
            right = np.asarray(tj["right_children"], dtype=np.int64)
            feature = np.asarray(tj["split_indices"], dtype=np.int64)
            condition = np.asarray(tj["split_conditions"], dtype=np.float32)
            default_left = np.asarray(tj["default_left"], dtype=np.int64)
            cover = np.asarray(tj["sum_hessian"], dtype=np.float64)
            split_type = np.asarray(tj.get("split_type", [0] * left.size), dtype=np.int64)
            sets = _xgb_category_sets(tj, left.size)
        except (KeyError, TypeError, ValueError, OverflowError) as error:
            if isinstance(error, ModelFormatError):
                raise
            raise ModelFormatError(f"trees[{i}]: {error!r}") from None
        arrays = (left, right, feature, condition, default_left, cover, split_type)
        if len({a.size for a in arrays}) != 1 or left.size == 0:
            raise ModelFormatError(f"trees[{i}]: node arrays of different lengths")
        is_leaf = left < 0
        if ((feature < 0) | (feature >= n_features))[~is_leaf].any():
            raise ModelFormatError(f"trees[{i}]: a split index out of range")
        if set(sets) != set(np.flatnonzero((split_type == 1) & ~is_leaf).tolist()):
            raise ModelFormatError(f"trees[{i}]: categories_nodes and split_type disagree")
        for node, codes in sets.items():
            categorical[feature[node]] = True
            largest = max(codes, default=-1) + 1
            n_codes[feature[node]] = max(n_codes[feature[node]], largest)
        parsed.append((i, left, right, feature, condition, default_left, cover, sets, is_leaf))
    trees = []
    for i, left, right, feature, condition, default_left, cover, sets, is_leaf in parsed:
        # XGBoost sends a category of the node's set right, any other value left.
        tables = {}
        for node, codes in sets.items():
            table = np.zeros(n_codes[feature[node]] + 1, dtype=np.int64)
            table[list(codes)] = 1
            tables[node] = table
        trees.append(
            _tree_from_links(
                left,
                right,
                np.where(is_leaf, 0, feature),
                xgboost_threshold(condition),
                np.where(default_left != 0, 0, 1),
                condition.astype(np.float64),
                cover,
                categorical=tables,
                path=f"trees[{i}]",
            )
        )
    names = learner.get("feature_names") or None
    return _finish_model(
        trees,
        np.asarray(tree_info, dtype=np.int64),
        margin.astype(np.float64),
        link,
        objective,
        "xgboost",
        n_features,
        names,
        categorical=categorical,
        n_codes=n_codes,
    )


_MAX_CATEGORY = 1 << 24  # XGBoost's categories are exact float32 integers


def _xgb_category_sets(tree: dict, n_nodes: int) -> dict:
    """Node -> the category codes XGBoost sends right, from the ``categories*`` arrays."""
    nodes = [int(v) for v in tree.get("categories_nodes", [])]
    if not nodes:
        return {}
    segments = [int(v) for v in tree["categories_segments"]]
    sizes = [int(v) for v in tree["categories_sizes"]]
    values = [int(v) for v in tree["categories"]]
    if not (len(nodes) == len(segments) == len(sizes)):
        raise ModelFormatError("categories_nodes, _segments and _sizes differ in length")
    out = {}
    for node, start, size in zip(nodes, segments, sizes, strict=True):
        codes = values[start : start + size]
        if not 0 <= node < n_nodes or start < 0 or size < 0 or len(codes) != size:
            raise ModelFormatError("a categorical node's category list is out of range")
        if any(not 0 <= c < _MAX_CATEGORY for c in codes):
            raise ModelFormatError("a category code is negative or too large")
        out[node] = set(codes)
    return out


def _load_document(model):
    if isinstance(model, dict):
        return model
    if isinstance(model, (bytes, bytearray)):
        model = bytes(model).decode("utf-8")
    if isinstance(model, str) and model.lstrip().startswith("{"):
        text = model
    else:
        with open(model, encoding="utf-8") as handle:
            text = handle.read()
    try:
        return json.loads(text)
    except ValueError as error:
        raise ModelFormatError(f"not a JSON document: {error}") from None


# ---------------------------------------------------------------- LightGBM

_ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold, a float


def _lgb_sections(text: str):
    """The header key=value pairs and one dict per ``Tree=`` block."""
    header, trees, current = {}, [], None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Tree="):
            current = {}
            trees.append(current)
            continue
        if (
            line in ("end of trees",)
            or line.startswith("feature_importances:")
            or line.startswith("parameters:")
        ):
            current = None
            if line.startswith("parameters:") or line.startswith("feature_importances:"):
                break
            continue
        if "=" not in line:
            continue
        key, _, value = line.partition("=")
        (current if current is not None else header)[key] = value
    return header, trees


def _numbers(block, key, dtype, n, path):
    text = block.get(key, "")
    try:
        values = np.array([float(v) for v in text.split()], dtype=np.float64)
    except ValueError:
        raise ModelFormatError(f"{path}.{key}: numbers expected") from None
    if n is not None and values.size != n:
        raise ModelFormatError(f"{path}.{key}: {n} values expected, got {values.size}")
    if dtype is np.int64:
        if not np.all(np.isfinite(values)) or (values != np.round(values)).any():
            raise ModelFormatError(f"{path}.{key}: integers expected")
        return values.astype(np.int64)
    return values


def import_lightgbm(model) -> ImportedTreeModel:
    """A LightGBM model (``Booster.model_to_string()``) as an :class:`ImportedTreeModel`.

    Parameters
    ----------
    model : str or path-like
        The model text, or the path of a file written by ``Booster.save_model``.

    Notes
    -----
    Implements :eq:`eq-lgb-decision` (chapter 18). Each node keeps LightGBM's
    threshold (``x <= t`` in double). Its
    ``decision_type`` decides where a missing value goes: missing type NaN
    sends NaN to the default child; missing type None treats NaN as 0; missing
    type Zero sends NaN and every ``x`` in ``(-1e-35, 1e-35]`` to the default
    child, so the model maps that band to NaN for such features (a feature
    that is zero-as-missing at one node and NaN-aware at another is refused).
    Categorical nodes route the codes of their bitset left and everything
    else (NaN, negative, unlisted) right. ``predict`` equals LightGBM's
    ``Booster.predict`` (raw, sigmoid or softmax) to float32 precision.
    Linear trees are refused.
    """
    if not isinstance(model, str) or "\n" not in model:
        with open(model, encoding="utf-8") as handle:
            model = handle.read()
    header, blocks = _lgb_sections(model)
    try:
        n_features = int(header["max_feature_idx"]) + 1
        per_round = int(header.get("num_tree_per_iteration", "1"))
        objective_text = header.get("objective", "regression")
    except (KeyError, ValueError) as error:
        raise ModelFormatError(f"not a LightGBM model: {error!r}") from None
    if n_features < 1 or per_round < 1 or not blocks:
        raise ModelFormatError("a LightGBM model has features and trees")
    objective, *options = objective_text.split()
    settings = dict(o.split(":", 1) for o in options if ":" in o)
    link = "identity"
    sigmoid = 1.0
    if objective in ("binary", "cross_entropy", "xentropy"):
        link, sigmoid = "logit", float(settings.get("sigmoid", 1.0))
    elif objective in ("multiclass", "softmax"):
        link = "softmax"
    elif objective in ("poisson", "gamma", "tweedie"):
        link = "log"
    elif objective in ("multiclassova", "multiclass_ova", "ova", "ovr"):
        raise ModelFormatError("one-vs-all multiclass models are not imported")
    names = header.get("feature_names", "").split() or None
    trees, codes_needed = [], np.zeros(n_features, dtype=np.int64)
    categorical = np.zeros(n_features, dtype=bool)
    zero_features = np.zeros(n_features, dtype=bool)
    nan_features = np.zeros(n_features, dtype=bool)
    band_none_features = np.zeros(n_features, dtype=bool)
    parsed = []
    for i, block in enumerate(blocks):
        path = f"Tree={i}"
        if block.get("is_linear", "0") != "0":
            raise ModelFormatError(f"{path}: linear trees are not imported")
        try:
            n_leaves = int(block["num_leaves"])
        except (KeyError, ValueError):
            raise ModelFormatError(f"{path}: num_leaves missing") from None
        if not 1 <= n_leaves <= 1 << 24:
            raise ModelFormatError(f"{path}: num_leaves out of range")
        leaf_value = _numbers(block, "leaf_value", np.float64, n_leaves, path)
        m = n_leaves - 1
        if m == 0:
            parsed.append((path, leaf_value, None))
            continue
        node = {
            key: _numbers(block, key, dtype, m, path)
            for key, dtype in (
                ("split_feature", np.int64),
                ("threshold", np.float64),
                ("decision_type", np.int64),
                ("left_child", np.int64),
                ("right_child", np.int64),
            )
        }
        node["leaf_weight"] = _numbers(block, "leaf_weight", np.float64, n_leaves, path)
        node["internal_weight"] = _numbers(block, "internal_weight", np.float64, m, path)
        node["count"] = np.concatenate(
            [
                _numbers(block, "internal_count", np.int64, m, path),
                _numbers(block, "leaf_count", np.int64, n_leaves, path),
            ]
        )
        feature, decision = node["split_feature"], node["decision_type"]
        if ((feature < 0) | (feature >= n_features)).any() or (
            (decision < 0) | (decision > 15)
        ).any():
            raise ModelFormatError(f"{path}: split_feature or decision_type out of range")
        is_cat = (decision & 1) == 1
        if is_cat.any():
            n_cat = int(block.get("num_cat", "0"))
            bounds = _numbers(block, "cat_boundaries", np.int64, n_cat + 1, path)
            words = _numbers(block, "cat_threshold", np.int64, None, path)
            if bounds[0] != 0 or (np.diff(bounds) < 0).any() or bounds[-1] != words.size:
                raise ModelFormatError(f"{path}: cat_boundaries do not delimit cat_threshold")
            if ((words < 0) | (words >= 1 << 32)).any():
                raise ModelFormatError(f"{path}: cat_threshold holds 32-bit words")
            index = node["threshold"][is_cat]
            if ((index < 0) | (index >= n_cat) | (index != np.round(index))).any():
                raise ModelFormatError(f"{path}: a categorical threshold is no bitset index")
            node["bitsets"] = (bounds, words)
            for f, k in zip(feature[is_cat], index.astype(np.int64), strict=True):
                categorical[f] = True
                codes_needed[f] = max(codes_needed[f], 32 * int(bounds[k + 1] - bounds[k]))
        parsed.append((path, leaf_value, node))
        numeric = ~is_cat
        types = (decision >> 2) & 3
        zero_features[feature[numeric & (types == 1)]] = True
        nan_features[feature[numeric & (types == 2)]] = True
        none = numeric & (types == 0)
        in_band = (node["threshold"] > -_ZERO) & (node["threshold"] <= _ZERO)
        band_none_features[feature[none & in_band]] = True
    clash = zero_features & (nan_features | band_none_features | categorical)
    if clash.any():
        raise ModelFormatError(
            f"feature {int(np.argmax(clash))} is zero-as-missing at some nodes and compared "
            "with NaN or inside the zero band at others: one preprocessing cannot serve both"
        )
    for path, leaf_value, node in parsed:
        trees.append(_lgb_tree(path, leaf_value, node, codes_needed))
    if len(trees) % per_round:
        raise ModelFormatError("the number of trees is not a multiple of num_tree_per_iteration")
    outputs = np.tile(np.arange(per_round), len(trees) // per_round)
    return _finish_model(
        trees,
        outputs,
        np.zeros(per_round),
        link,
        objective_text,
        "lightgbm",
        n_features,
        names,
        categorical=categorical,
        n_codes=codes_needed,
        zero_as_missing=zero_features,
        sigmoid=sigmoid,
        average="average_output" in model.split("\nTree=", 1)[0],
    )


def _lgb_tree(path, leaf_value, node, n_codes):
    """One LightGBM tree in mltrees arrays: internal nodes first, then leaves."""
    if node is None:  # a single leaf
        return _tree_from_links([-1], [-1], [0], [np.nan], [-1], leaf_value, [1.0], path=path)
    m = leaf_value.size - 1

    def target(child):  # LightGBM: >= 0 an internal node, < 0 the leaf ~child
        return np.where(child >= 0, child, m + ~child)

    left, right = target(node["left_child"]), target(node["right_child"])
    if ((left < 0) | (left > 2 * m) | (right < 0) | (right > 2 * m)).any():
        raise ModelFormatError(f"{path}: child index out of range")
    feature, threshold, decision = node["split_feature"], node["threshold"], node["decision_type"]
    default_left = (decision & 2) != 0
    missing_type = (decision >> 2) & 3
    default_slot = np.where(default_left, 0, 1)
    zero_slot = np.where(threshold >= 0.0, 0, 1)  # where x = 0 goes by the threshold
    slot = np.where(missing_type == 2, default_slot, zero_slot)  # NaN: default, or as 0
    # Missing type Zero: 0, the band (-1e-35, 1e-35] and NaN go to the default
    # child. The predictor maps the band to NaN for these features (see
    # ImportedTreeModel.zero_as_missing_), so the NaN slot covers all three.
    slot = np.where(missing_type == 1, default_slot, slot)
    tables = {}
    is_cat = (decision & 1) == 1
    if is_cat.any():
        bounds, words = node["bitsets"]
        for i in np.flatnonzero(is_cat):
            k = int(threshold[i])
            bits = words[bounds[k] : bounds[k + 1]].astype(np.uint64)
            codes = np.arange(n_codes[feature[i]] + 1)  # the last code: anything else
            word = np.minimum(codes // 32, max(bits.size - 1, 0))
            inside = (codes < 32 * bits.size) & (
                ((bits[word] >> (codes % 32).astype(np.uint64)) & np.uint64(1)) == 1
            )
            tables[i] = np.where(inside, 0, 1)
        slot = np.where(is_cat, 1, slot)  # NaN at a categorical node goes right
    n = 2 * m + 1
    pad = np.zeros(m + 1)
    cover = np.concatenate([node["internal_weight"], node["leaf_weight"]])
    return _tree_from_links(
        np.concatenate([left, np.full(m + 1, -1)]),
        np.concatenate([right, np.full(m + 1, -1)]),
        np.concatenate([feature, np.zeros(m + 1, dtype=np.int64)]),
        np.concatenate([np.where(is_cat, 0.0, threshold), pad + np.nan]),
        np.concatenate([slot, np.full(m + 1, -1)]),
        np.concatenate([np.zeros(m), leaf_value]),
        cover[:n],
        categorical=tables,
        count=node["count"],
        path=path,
    )
