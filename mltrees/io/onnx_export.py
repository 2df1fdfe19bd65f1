r"""Tree models as ONNX graphs that onnxruntime runs with the model's own routing (chapter 18).

:func:`to_onnx` writes a fitted tree model as one ``TreeEnsemble`` node of
the ``ai.onnx.ml`` domain, opset 5 (ONNX 1.16 and later), followed by a few
standard operators for the starting score, the link function and the class
labels. The trees are those of the model's inspection view
(:func:`mltrees.inspection.view_of`): a constant plus a sum of trees whose
node tables are already scaled, :math:`F(x) = b + \sum_t v_t(\mathrm{leaf}_t(x))`.

How each part of a model becomes ONNX:

* **Thresholds.** Models that compare doubles (CART, C4.5, forests,
  bagging, AdaBoost, gradient boosting, LightGBM) get a ``double`` input and
  ``BRANCH_LEQ`` nodes with their float64 thresholds. Models that compare
  float32 values (XGBoost, CatBoost's oblivious trees) get a ``float`` input:
  XGBoost's nodes are ``BRANCH_LT`` with the float32 cut :math:`t`, the
  smallest float32 above the stored :math:`s` of :eq:`eq-xgb-threshold`;
  oblivious trees' are ``BRANCH_LEQ`` with their float32 borders. Leaf values
  and sums are then float32, as in those libraries.
* **Categories** become ``BRANCH_MEMBER`` nodes: one set per child, tried in
  turn, the last child taking every other value. A value that reaches no
  child in the model (a category a CART node never saw, a negative code)
  ends at a leaf that holds the node's own value, as :meth:`Tree.apply`
  stops there. LightGBM's sets are written on the raw category values (its
  trees read bin codes), and oblivious trees' tests on target statistics of
  a category are written as the set of categories whose statistic passes the
  border: the statistic is a function of the category at prediction time, so
  the set is exact and no ``LabelEncoder`` is needed.
* **Missing values** follow ``nodes_missing_value_tracks_true`` where the
  model has a direction. Where a row with a missing value stops at a node,
  an "is missing" node ``x <= +inf`` (false only for NaN) sends it to a leaf
  with the node's value. CART's surrogate splits are expanded into such
  nodes: a chain that tries each surrogate's feature in turn; since a binary
  tree cannot share a subtree, the chain copies the children below it, and a
  model whose copies would exceed :data:`MAX_NODES` nodes is refused.
* **LightGBM's zero band** (``zero_as_missing``: ``|x| <= float32(1e-35)``
  is missing) is mapped to NaN by standard operators before the trees, as an
  imported model does before its walk.
* **Rows a model rejects** (NaN without a missing-value method, infinities)
  get NaN scores and probabilities, instead of a silent answer.
* **Starting score and link**: ``Add`` of the base score, then ``Sigmoid``,
  ``Softmax`` or ``Exp`` as the model's ``predict_proba`` or ``predict``
  computes them; classes by ``ArgMax`` and a ``Gather`` of the labels.

What cannot be expressed is refused with :class:`OnnxExportError`, naming
the reason: C4.5's fractional routing of missing values (a row goes down
every branch with a share of its weight; ``TreeEnsemble`` routes a row down
one path), trees whose surrogate chains would need too many copies, oblique
splits, and ensembles of members that are not mltrees trees. Other models
(rules, incremental trees, stacking) raise a TypeError.

The graph reads one matrix ``X`` of shape ``(n, n_features)``: numeric
features as they are, categorical features as codes (:func:`onnx_input`
prepares it from a table, and the model's metadata lists each feature's
categories in code order).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from mltrees._optional import import_optional
from mltrees.tree._data import CATEGORICAL
from mltrees.tree._tree import CATEGORICAL_NODE, MISSING_ALL_BRANCHES, MISSING_NONE, Tree

__all__ = ["MAX_NODES", "OnnxExportError", "onnx_input", "to_onnx"]

ONNX_OPSET = 21  # the default domain's opset (ONNX 1.16)
ONNX_ML_OPSET = 5  # ai.onnx.ml: TreeEnsemble with set membership (ONNX 1.16)
IR_VERSION = 10  # ONNX 1.16's IR version
# Largest TreeEnsemble the exporter writes (nodes and leaves of all trees),
# reached only when surrogate chains copy subtrees: the copies grow with
# the product of the chains' lengths along a path.
MAX_NODES = 4_000_000

_LEQ, _LT, _MEMBER = 0, 1, 6  # TreeEnsemble's nodes_modes
_STOP = -1  # destination: the row ends at the node (a leaf with the node's value)


class OnnxExportError(ValueError):
    """A model (or a part of it) that ONNX's ``TreeEnsemble`` cannot express.

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees import ObliqueTreeClassifier
    >>> from mltrees.io import OnnxExportError, to_onnx
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> tree = ObliqueTreeClassifier(random_state=0).fit(X, [0, 1, 0, 1])
    >>> try:
    ...     to_onnx(tree)  # a weighted sum per node: not an ONNX tree test
    ... except OnnxExportError as error:
    ...     print(type(error).__name__)
    ...
    OnnxExportError
    """


# ----------------------------------------------------------------- what a model needs
# Each estimator says how it is exported in its own ``_onnx_plan(self) -> OnnxPlan``
# method, next to its state (as it writes its TreeModelView for the explainers);
# OnnxPlan, OnnxCategories, codes_plan and boosting_link are what those methods use.
@dataclass
class OnnxCategories:
    """How the graph's input column of a categorical feature becomes the trees' codes.

    ``values[i]`` (a value of the input) is the trees' code ``codes[i]``; any
    other value is ``other`` (None: no code, the row stops at the node) and
    NaN is ``nan`` (None: NaN reaches the trees, whose missing-value rule
    routes it).
    """

    values: np.ndarray
    codes: np.ndarray
    other: int | None = None
    nan: int | None = None


@dataclass
class OnnxPlan:
    """Everything the graph is built from: the view's trees and the model's conventions."""

    view: object  # TreeModelView
    dtype: type  # np.float64 or np.float32: input, thresholds, leaves, outputs
    comparison: str  # "<=" or "<" on the graph's dtype
    encode: object  # X -> the graph's input, before the cast to dtype
    link: str  # identity, exp, proba, logistic, softmax, adaboost
    categories: dict = field(default_factory=dict)  # feature -> OnnxCategories
    rounding: str = "floor"  # how a category column's values become whole codes
    reject_nan: np.ndarray | None = None  # per feature: NaN makes the model raise
    reject_inf: np.ndarray | None = None  # per feature: +-inf makes the model raise
    zero_band: np.ndarray | None = None  # per feature: |x| <= 1e-35 (float32) is missing
    scale: float = 1.0  # raw score factor inside the link (LightGBM's sigmoid)
    classes: np.ndarray | None = None
    category_names: dict = field(default_factory=dict)  # feature -> categories in code order


def _codes_categories(specs) -> tuple[dict, dict]:
    """Category codes as the input (trees that encode features with ``encode_features``)."""
    categories, names = {}, {}
    for j, spec in enumerate(specs):
        if spec.kind == CATEGORICAL:
            codes = np.arange(spec.n_codes)
            categories[j] = OnnxCategories(codes.astype(np.float64), codes)
            names[j] = [str(v) for v in spec.values]
    return categories, names


def codes_plan(model, view, specs, missing: str, link: str, classes) -> OnnxPlan:
    """Trees, bagging, AdaBoost, gradient boosting: float64, ``x <= t``, category codes.

    ``specs``: the model's feature specifications (how its trees read each
    column); ``missing``: its missing-value method.
    """
    if missing == "c45" and view.splits_missing():
        raise OnnxExportError(
            f"{type(model).__name__} uses C4.5's fractional routing of missing values "
            "(missing='c45'): a row whose tested value is missing goes down every branch "
            "with a share of its weight and gets the weighted mix of their leaves, while "
            "ONNX's TreeEnsemble sends a row down one path. Refit with "
            "missing='default_direction' (or 'surrogate' for CART), or with missing='error' "
            "and impute missing values before prediction"
        )
    n = len(specs)
    categories, names = _codes_categories(specs)
    return OnnxPlan(
        view=view,
        dtype=np.float64,
        comparison="<=",
        encode=view.encode,
        link=link,
        categories=categories,
        reject_nan=np.full(n, missing == "error"),
        reject_inf=np.ones(n, dtype=bool),
        classes=classes,
        category_names=names,
    )


def boosting_link(n_outputs: int) -> str:
    return "logistic" if n_outputs == 1 else "softmax"


def _plan(model) -> OnnxPlan:
    """The export plan of a fitted model: its own ``_onnx_plan()`` (TypeError if it has none)."""
    hook = getattr(model, "_onnx_plan", None)
    if hook is None:
        raise TypeError(
            "to_onnx exports mltrees trees (ID3, C4.5, CART), random forests, bagging of "
            "mltrees trees, AdaBoost, gradient boosting, XGBoost, LightGBM and oblivious "
            "boosting models, and imported XGBoost or LightGBM models; got "
            f"{type(model).__name__}"
        )
    return hook()


def foreign_members_error(model) -> OnnxExportError:
    """The error for an ensemble whose members are not mltrees trees."""
    return OnnxExportError(
        f"{type(model).__name__} holds members that are not mltrees trees; to_onnx "
        "writes mltrees trees (export the members with their own library's converter)"
    )


def _imported_plan(model) -> OnnxPlan:
    """An imported XGBoost (float32, ``x < t``) or LightGBM (double, ``x <= t``) model."""
    from mltrees.tree.view import TreeModelView

    if not hasattr(model, "trees_"):
        raise TypeError("an ImportedTreeModel comes from import_xgboost or import_lightgbm")
    K = model.base_margin_.size
    scale = 1.0
    if model.average_output_:  # LightGBM's random forest: the mean of the rounds
        scale = 1.0 / (len(model.trees_) // K)
    tables = [
        tree.value[:, :1] * scale if scale != 1.0 else tree.value[:, :1] for tree in model.trees_
    ]
    names = getattr(model, "feature_names_in_", None)
    n = model.n_features_in_

    def output(X):
        raw = model.decision_function(X)
        return raw[:, None] if raw.ndim == 1 else raw

    view = TreeModelView(
        trees=list(model.trees_),
        tables=tables,
        columns=[np.array([k]) for k in model.tree_output_],
        n_outputs=K,
        base=np.asarray(model.base_margin_, dtype=np.float64),
        encode=model._input_numbers,
        output=output,
        feature_names=[str(v) for v in names] if names is not None else [f"f{j}" for j in range(n)],
        output_name="raw score",
        squeeze=K == 1,
    )
    categories = {}
    for j in np.flatnonzero(model.categorical_):
        codes = np.arange(int(model.n_codes_[j]))
        categories[int(j)] = OnnxCategories(codes.astype(np.float64), codes, other=codes.size)
    xgboost = model.source_ == "xgboost"
    link = {"identity": "identity", "log": "exp", "logit": "logistic", "softmax": "softmax"}
    return OnnxPlan(
        view=view,
        dtype=np.float32 if xgboost else np.float64,
        comparison="<" if xgboost else "<=",
        encode=view.encode,
        link=link[model.link_],
        categories=categories,
        # XGBoost: a negative value is no category; LightGBM: C's cast toward zero.
        rounding="floor" if xgboost else "trunc",
        zero_band=np.asarray(model.zero_as_missing_, dtype=bool),
        scale=float(model.sigmoid_),
    )


# --------------------------------------------------------------- trees as node arrays
@dataclass
class _Rows:
    """One tree in TreeEnsemble's layout: nodes, and leaves that name a node of the tree.

    A reference is ``(is_leaf, index)``; ``leaf_node[l]`` is the node of the
    mltrees tree whose table row leaf ``l`` outputs (a leaf, or the node where
    a row stops).
    """

    feature: np.ndarray
    mode: np.ndarray
    split: np.ndarray
    track: np.ndarray
    true_leaf: np.ndarray
    true_id: np.ndarray
    false_leaf: np.ndarray
    false_id: np.ndarray
    leaf_node: np.ndarray
    members: dict  # row -> membership values


def _split_values(threshold: np.ndarray, dtype, comparison: str) -> np.ndarray:
    """The split of ``x <= threshold`` (float64) for the graph's dtype and comparison.

    Implements :eq:`eq-onnx-cut` (chapter 18): float64 keeps the threshold. For
    a float32 ``x``, ``x <= s`` holds exactly when ``x < t`` for the smallest
    float32 ``t > s`` (XGBoost's cut), and exactly when ``x <= t`` for the
    largest float32 ``t <= s``.
    """
    threshold = np.asarray(threshold, dtype=np.float64)
    if dtype == np.float64:
        return threshold
    rounded = threshold.astype(np.float32)
    with np.errstate(invalid="ignore"):
        if comparison == "<=":
            down = rounded.astype(np.float64) > threshold
            rounded = np.where(down, np.nextafter(rounded, np.float32(-np.inf)), rounded)
        else:
            up = rounded.astype(np.float64) <= threshold
            rounded = np.where(up, np.nextafter(rounded, np.float32(np.inf)), rounded)
    return rounded.astype(np.float64)


class _TreeWriter:
    """Turns one :class:`Tree` into :class:`_Rows`, the model's routing kept exactly."""

    def __init__(self, plan: OnnxPlan):
        self.plan = plan
        self.mode = _LT if plan.comparison == "<" else _LEQ

    # -- destinations of a node's rows: ("child", slot), ("stop",), ("row", k)
    def _numeric_chain(self, tree: Tree, i: int, nan_dest) -> list:
        f = int(tree.feature[i])
        split = ("split", f, float(tree.threshold[i]), None, 0, ("child", 0), ("child", 1))
        return [("missing", f, ("row", 1), nan_dest), split]

    def _category_chain(self, tree: Tree, i: int, nan_dest) -> list:
        """Membership tests of a categorical node: one set per child, the last child gets the rest.

        ``nan_dest`` is where NaN goes when it reaches the trees as NaN; a
        feature whose NaN is a code of its own (LightGBM's bin 0) overrides it.
        """
        f = int(tree.feature[i])
        n_i = int(tree.n_categories[i])
        table = tree.route_table[tree.route_offset[i] : tree.route_offset[i] + n_i]
        cats = self.plan.categories.get(f)
        if cats is None:  # no map given: the codes 0..n-1 are the input itself
            cats = OnnxCategories(np.arange(n_i, dtype=np.float64), np.arange(n_i))

        def slot_of(code):  # a code outside the node's table, or slot -1: the row stops
            code = np.asarray(code)
            inside = (code >= 0) & (code < n_i)
            slot = np.where(inside, table[np.where(inside, code, 0)], _STOP)
            return np.where(slot < 0, _STOP, slot)

        listed = slot_of(cats.codes)
        other = int(slot_of(cats.other)) if cats.other is not None else _STOP
        if cats.nan is not None:
            nan_dest = _dest(int(slot_of(cats.nan)))
        nan_slot = {"child": nan_dest[-1], "stop": _STOP}.get(nan_dest[0])  # None: surrogates
        groups = {int(d): cats.values[listed == d] for d in np.unique(listed) if d != other}
        by_member = nan_slot is not None and nan_slot in groups
        rows = []
        if nan_slot != other and not by_member:
            rows.append(["missing", f, None, nan_dest])
        for dest, values in groups.items():
            track = int(by_member and dest == nan_slot)
            rows.append(["member", f, 0.0, values, track, _dest(dest), None])
        if not rows:  # every value goes one way: a test that always holds
            return [("split", f, np.inf, None, 1, _dest(other), ("stop",))]
        for k, row in enumerate(rows):  # each test fails over to the next; the last to `other`
            onward = ("row", k + 1) if k + 1 < len(rows) else _dest(other)
            row[2 if row[0] == "missing" else 6] = onward
        return [tuple(row) for row in rows]

    def _surrogate_chain(self, tree: Tree, i: int, start: int) -> list:
        """Rows that route a row whose tested value is missing by CART's surrogates."""
        rows = []
        ranks = [
            r for r in range(tree.surrogate_feature.shape[1]) if tree.surrogate_feature[i, r] >= 0
        ]
        default = int(tree.missing_slot[i])
        for r in ranks:
            f = int(tree.surrogate_feature[i, r])
            low = int(tree.surrogate_low_slot[i, r])
            here = start + len(rows)
            after = ("row", here + 2) if r != ranks[-1] else _dest(default)
            rows.append(("missing", f, ("row", here + 1), after))
            rows.append(
                (
                    "split",
                    f,
                    float(tree.surrogate_threshold[i, r]),
                    None,
                    0,
                    ("child", low),
                    ("child", 1 - low),
                )
            )
        return rows

    def _chain(self, tree: Tree, i: int, nan_dest, surrogates: bool) -> list:
        """The rows of internal node ``i`` and their destinations."""
        if surrogates:
            nan_dest = ("surrogates",)
        if tree.kind[i] == CATEGORICAL_NODE:
            rows = self._category_chain(tree, i, nan_dest)
        else:
            rows = self._numeric_chain(tree, i, nan_dest)
        if surrogates:
            start = len(rows)
            rows = [
                (*row[:3], ("row", start)) if row[0] == "missing" and row[3] == nan_dest else row
                for row in rows
            ]
            rows += self._surrogate_chain(tree, i, start)
        return rows

    def rows(self, tree: Tree) -> _Rows:
        """All rows of ``tree``: plain numeric nodes vectorized, the others chain by chain."""
        if (tree.missing_slot == MISSING_ALL_BRANCHES).any():
            raise OnnxExportError(
                "a tree sends missing values down every branch with fractional weights "
                "(C4.5's missing='c45'), which TreeEnsemble cannot express"
            )
        leaf = tree.is_leaf
        if leaf[0]:  # a single leaf: one test whose branches both end in it
            return _Rows(
                feature=np.zeros(1, np.int64),
                mode=np.array([_LEQ], np.uint8),
                split=np.zeros(1),
                track=np.zeros(1, np.int64),
                true_leaf=np.ones(1, np.int64),
                true_id=np.zeros(1, np.int64),
                false_leaf=np.ones(1, np.int64),
                false_id=np.zeros(1, np.int64),
                leaf_node=np.zeros(1, np.int64),
                members={},
            )
        routes_missing = bool((tree.missing_slot != MISSING_NONE).any())
        # Where NaN goes at a numeric node, as Tree.apply walks: its slot; without
        # one it stops there, unless no node of the tree routes NaN: then the walk
        # never looks, and ``NaN > threshold`` being false takes slot 0.
        slot = tree.missing_slot.astype(np.int64)
        nan_slot = np.where(slot >= 0, slot, _STOP if routes_missing else 0)
        surrogates = (tree.surrogate_feature >= 0).any(axis=1)
        internal = ~leaf
        numeric = internal & (tree.kind != CATEGORICAL_NODE)
        simple = numeric & ~surrogates & (nan_slot >= 0) & (tree.n_children == 2)
        complex_nodes = np.flatnonzero(internal & ~simple)
        chains = {}
        for i in complex_nodes:  # categorical, stop-at-missing and surrogate nodes
            dest = (
                _dest(int(nan_slot[i]))
                if tree.kind[i] != CATEGORICAL_NODE
                else (_dest(int(slot[i])) if slot[i] >= 0 else ("stop",))
            )
            chains[int(i)] = self._chain(tree, int(i), dest, bool(surrogates[i]))
        count = simple.astype(np.int64)
        for i, chain in chains.items():
            count[i] = len(chain)
        start = np.cumsum(count) - count
        n_rows = int(count.sum())
        leaf_id = np.cumsum(leaf) - 1
        leaf_node = [np.flatnonzero(leaf)]
        n_leaves = int(leaf.sum())

        def resolve(child):  # (is_leaf, index) of mltrees nodes
            child = np.asarray(child, dtype=np.int64)
            return leaf[child].astype(np.int64), np.where(leaf[child], leaf_id[child], start[child])

        feature = np.zeros(n_rows, np.int64)
        mode = np.full(n_rows, self.mode, np.uint8)
        split = np.zeros(n_rows)
        track = np.zeros(n_rows, np.int64)
        refs = np.zeros((4, n_rows), np.int64)  # true_leaf, true_id, false_leaf, false_id
        at = start[simple]
        feature[at] = tree.feature[simple]
        split[at] = _split_values(tree.threshold[simple], self.plan.dtype, self.plan.comparison)
        track[at] = nan_slot[simple] == 0
        refs[0, at], refs[1, at] = resolve(tree.first_child[simple])
        refs[2, at], refs[3, at] = resolve(tree.first_child[simple] + 1)
        members = {}
        stops = []
        for i, chain in chains.items():
            base = int(start[i])
            for k, row in enumerate(chain):
                r = base + k
                kind, f = row[0], row[1]
                feature[r] = f
                if kind == "missing":  # x <= +inf fails for NaN alone
                    mode[r], split[r], track[r] = _LEQ, np.inf, 0
                    true, false = row[2], row[3]
                else:
                    if kind == "member":
                        mode[r] = _MEMBER
                        members[r] = np.asarray(row[3], dtype=np.float64)
                    elif np.isinf(row[2]):
                        mode[r], split[r] = _LEQ, np.inf
                    else:
                        split[r] = _split_values([row[2]], self.plan.dtype, self.plan.comparison)[0]
                    track[r] = row[4]
                    true, false = row[5], row[6]
                for side, dest in ((0, true), (2, false)):
                    if dest[0] == "row":
                        refs[side, r], refs[side + 1, r] = 0, base + dest[1]
                    elif dest[0] == "child":
                        is_leaf, index = resolve([tree.first_child[i] + dest[1]])
                        refs[side, r], refs[side + 1, r] = is_leaf[0], index[0]
                    else:  # the row stops at node i: a leaf with its value
                        refs[side, r], refs[side + 1, r] = 1, n_leaves + len(stops)
                        stops.append(i)
        leaf_node.append(np.asarray(stops, dtype=np.int64))
        rows = _Rows(
            feature,
            mode,
            split,
            track,
            refs[0],
            refs[1],
            refs[2],
            refs[3],
            np.concatenate(leaf_node),
            members,
        )
        return _unshared(rows) if surrogates.any() else rows


def _dest(slot: int):
    return ("stop",) if slot == _STOP else ("child", int(slot))


def _unshared(rows: _Rows) -> _Rows:
    """The same routing as a tree: every subtree reached by several references is copied.

    Surrogate chains send rows to the same child from several places; a
    ``TreeEnsemble`` tree (and onnxruntime, which copies shared subtrees when
    it loads them) needs one parent per node. Sizes are counted first, so a
    model that would need more than :data:`MAX_NODES` nodes is refused
    before anything is copied.
    """
    n = rows.feature.size
    size = np.ones(n, dtype=object)  # exact integers: the counts can grow fast
    for r in range(n - 1, -1, -1):  # references point to later rows
        for is_leaf, index in (
            (rows.true_leaf[r], rows.true_id[r]),
            (rows.false_leaf[r], rows.false_id[r]),
        ):
            size[r] += 1 if is_leaf else size[index]
    if size[0] > MAX_NODES:
        raise OnnxExportError(
            f"expanding CART's surrogate splits into 'is missing' nodes needs {size[0]:,} "
            f"nodes for one tree (more than {MAX_NODES:,}): each chain of surrogates copies "
            "the subtrees below it. Export a shallower tree, fewer surrogates "
            "(max_surrogates), or missing='default_direction'"
        )
    out = {k: [] for k in ("feature", "mode", "split", "track", "tl", "ti", "fl", "fi")}
    leaf_node, members = [], {}
    stack = [(0, None, 0)]  # (old row, parent new row, side)
    while stack:
        old, parent, side = stack.pop()
        new = len(out["feature"])
        for key, array in (
            ("feature", rows.feature),
            ("mode", rows.mode),
            ("split", rows.split),
            ("track", rows.track),
        ):
            out[key].append(array[old])
        out["tl"].append(0)
        out["ti"].append(0)
        out["fl"].append(0)
        out["fi"].append(0)
        if old in rows.members:
            members[new] = rows.members[old]
        if parent is not None:
            out["ti" if side == 0 else "fi"][parent] = new
        for s, is_leaf, index in (
            (1, rows.false_leaf[old], rows.false_id[old]),
            (0, rows.true_leaf[old], rows.true_id[old]),
        ):
            if is_leaf:
                out["tl" if s == 0 else "fl"][new] = 1
                out["ti" if s == 0 else "fi"][new] = len(leaf_node)
                leaf_node.append(rows.leaf_node[index])
            else:
                stack.append((index, new, s))
    return _Rows(
        np.array(out["feature"], np.int64),
        np.array(out["mode"], np.uint8),
        np.array(out["split"], np.float64),
        np.array(out["track"], np.int64),
        np.array(out["tl"], np.int64),
        np.array(out["ti"], np.int64),
        np.array(out["fl"], np.int64),
        np.array(out["fi"], np.int64),
        np.array(leaf_node, np.int64),
        members,
    )


# ------------------------------------------------------------------------- the graph
def _ensemble_attributes(plan: OnnxPlan) -> dict:
    """The attributes of the TreeEnsemble node: every tree, once per output column it feeds."""
    view, dtype = plan.view, plan.dtype
    writer = _TreeWriter(plan)
    parts = {k: [] for k in ("f", "m", "s", "t", "tl", "ti", "fl", "fi", "target", "weight")}
    roots, membership = [], []
    n_nodes = n_leaves = 0
    for tree, table, columns in zip(view.trees, view.tables, view.columns, strict=True):
        rows = writer.rows(tree)
        member_rows = sorted(rows.members)
        mixed_root = rows.true_leaf[0] != rows.false_leaf[0]
        for c, target in enumerate(np.asarray(columns).reshape(-1)):
            leaf_side = rows.true_id[0] if rows.true_leaf[0] else rows.false_id[0]
            node_side = rows.false_id[0] if rows.true_leaf[0] else rows.true_id[0]
            if mixed_root and leaf_side + n_leaves == node_side + n_nodes:
                # onnxruntime < 1.24 takes a root whose leaf and node children have
                # the same index for a single leaf (its issue 24679): an unused leaf
                # shifts this tree's leaf indices.
                parts["target"].append(np.zeros(1, np.int64))
                parts["weight"].append(np.zeros(1))
                n_leaves += 1
            roots.append(n_nodes)
            parts["f"].append(rows.feature)
            parts["m"].append(rows.mode)
            parts["s"].append(rows.split)
            parts["t"].append(rows.track)
            parts["tl"].append(rows.true_leaf)
            parts["fl"].append(rows.false_leaf)
            parts["ti"].append(rows.true_id + np.where(rows.true_leaf == 1, n_leaves, n_nodes))
            parts["fi"].append(rows.false_id + np.where(rows.false_leaf == 1, n_leaves, n_nodes))
            parts["target"].append(np.full(rows.leaf_node.size, int(target), np.int64))
            parts["weight"].append(np.asarray(table, dtype=np.float64)[rows.leaf_node, c])
            for r in member_rows:
                membership.append(rows.members[r])
                membership.append(np.array([np.nan]))
            n_nodes += rows.feature.size
            n_leaves += rows.leaf_node.size
            if n_nodes + n_leaves > MAX_NODES:
                raise OnnxExportError(
                    f"the model needs more than {MAX_NODES:,} TreeEnsemble nodes and leaves"
                )
    joined = {k: np.concatenate(v) for k, v in parts.items()}
    attributes = {
        "n_targets": int(view.n_outputs),
        "aggregate_function": 1,  # SUM
        "post_transform": 0,  # NONE: the link is applied after the base score
        "tree_roots": np.asarray(roots, np.int64),
        "nodes_featureids": joined["f"],
        "nodes_modes": joined["m"].astype(np.uint8),
        "nodes_splits": joined["s"].astype(dtype),
        "nodes_missing_value_tracks_true": joined["t"],
        "nodes_trueleafs": joined["tl"],
        "nodes_truenodeids": joined["ti"],
        "nodes_falseleafs": joined["fl"],
        "nodes_falsenodeids": joined["fi"],
        "leaf_targetids": joined["target"],
        "leaf_weights": joined["weight"].astype(dtype),
    }
    if membership:
        attributes["membership_values"] = np.concatenate(membership).astype(dtype)
    return attributes


def _attribute(name: str, value):
    """An AttributeProto from an int, a 1-D int64 array (INTS) or any other array (TENSOR)."""
    from onnx import AttributeProto, helper, numpy_helper

    if isinstance(value, int):
        return helper.make_attribute(name, value)
    value = np.asarray(value)
    if value.dtype == np.int64:
        attribute = AttributeProto(name=name, type=AttributeProto.INTS)
        attribute.ints.extend(value.tolist())
        return attribute
    return helper.make_attribute(name, numpy_helper.from_array(value, name))


class _Graph:
    """A small builder of ONNX nodes and constants with unique names."""

    def __init__(self, dtype):
        from onnx import TensorProto

        self.nodes, self.initializers = [], []
        self.dtype = dtype
        self.elem = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
        self._count = 0

    def name(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"

    def constant(self, stem: str, value) -> str:
        from onnx import numpy_helper

        name = self.name(stem)
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type: str, inputs: list, stem: str | None = None, *, output=None, **attrs):
        from onnx import helper

        output = output or self.name(stem or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [output], **attrs))
        return output


def _preprocess(graph: _Graph, plan: OnnxPlan, x: str, n_features: int) -> str:
    """Category columns to whole codes, and LightGBM's zero band to NaN."""
    dtype = plan.dtype
    if plan.categories:
        mask = np.zeros((1, n_features), dtype=bool)
        mask[0, list(plan.categories)] = True
        whole = graph.op("Floor", [x])
        if plan.rounding == "trunc":  # toward zero, as C's cast to int
            negative = graph.op("Less", [x, graph.constant("zero", np.zeros(1, dtype))])
            whole = graph.op("Where", [negative, graph.op("Ceil", [x]), whole])
        x = graph.op("Where", [graph.constant("category_columns", mask), whole, x], "codes")
    if plan.zero_band is not None and plan.zero_band.any():
        # LightGBM's IsZero: -kZeroThreshold <= x <= kZeroThreshold, kZeroThreshold = 1e-35f.
        band = float(np.float32(1e-35))
        low = graph.constant("minus_zero_band", np.array([-band], dtype))
        above = graph.op("GreaterOrEqual", [x, low])
        below = graph.op("LessOrEqual", [x, graph.constant("zero_band", np.array([band], dtype))])
        inside = graph.op("And", [above, below])
        columns = graph.constant("zero_as_missing", plan.zero_band.reshape(1, -1))
        missing = graph.op("And", [inside, columns])
        nan = graph.constant("nan", np.array([np.nan], dtype))
        x = graph.op("Where", [missing, nan, x], "zero_as_missing")
    return x


def _rejected(graph: _Graph, plan: OnnxPlan, x: str) -> str | None:
    """A (n, 1) mask of the rows the model would refuse (NaN or inf where it raises)."""
    cells = []
    for mask, test in ((plan.reject_nan, "IsNaN"), (plan.reject_inf, "IsInf")):
        if mask is not None and mask.any():
            found = graph.op(test, [x])
            if not mask.all():
                found = graph.op("And", [found, graph.constant("columns", mask.reshape(1, -1))])
            cells.append(found)
    if not cells:
        return None
    bad = cells[0] if len(cells) == 1 else graph.op("Or", cells)
    counted = graph.op("Cast", [bad], to=graph.elem)
    axes = graph.constant("axes", np.array([1], np.int64))
    total = graph.op("ReduceMax", [counted, axes], keepdims=1)
    return graph.op("Greater", [total, graph.constant("zero", np.zeros(1, plan.dtype))], "rejected")


def _labels_tensor(classes: np.ndarray):
    """Class labels as a constant the label output can gather from."""
    if classes.dtype.kind == "b":
        return classes.astype(bool)
    if classes.dtype.kind in "iu":
        return classes.astype(np.int64)
    if classes.dtype.kind == "f":
        return classes.astype(np.float64)
    if classes.dtype.kind in "OUS" and all(isinstance(c, str) for c in classes.tolist()):
        return np.array(classes.tolist(), dtype=object)
    raise OnnxExportError(
        "class labels must be booleans, integers, floats or strings to become an ONNX "
        f"tensor; got {classes.dtype} labels {classes[:3].tolist()!r}"
    )


def _outputs(graph: _Graph, plan: OnnxPlan, raw: str) -> list:
    """Probabilities and labels (classifiers) or the prediction, from the raw score."""
    from onnx import TensorProto

    dtype = plan.dtype
    K = plan.view.n_outputs
    outputs = [("raw_score", graph.elem, ["N", K])]
    graph.op("Identity", [raw], output="raw_score")
    scaled = raw
    if plan.scale != 1.0:
        scaled = graph.op("Mul", [raw, graph.constant("scale", np.array([plan.scale], dtype))])
    if plan.classes is None:
        if plan.link == "identity":
            prediction = raw
        elif plan.link == "exp":
            prediction = graph.op("Exp", [raw])
        elif plan.link == "logistic":
            prediction = graph.op("Sigmoid", [scaled])
        else:
            prediction = graph.op("Softmax", [raw], axis=-1)
        if K == 1:
            axes = graph.constant("axes", np.array([1], np.int64))
            graph.op("Squeeze", [prediction, axes], output="prediction")
            return [*outputs, ("prediction", graph.elem, ["N"])]
        graph.op("Identity", [prediction], output="prediction")
        return [*outputs, ("prediction", graph.elem, ["N", K])]
    n_classes = len(plan.classes)
    if plan.link == "proba":
        probabilities = raw
    elif plan.link == "adaboost" and n_classes == 1:  # one class: probability 1
        zero = graph.constant("zero", np.zeros(1, dtype))
        one = graph.constant("one", np.ones(1, dtype))
        probabilities = graph.op("Add", [graph.op("Mul", [raw, zero]), one])
    elif (plan.link == "adaboost" and n_classes == 2) or plan.link == "logistic":
        p = graph.op("Sigmoid", [scaled])
        one = graph.constant("one", np.ones(1, dtype))
        probabilities = graph.op("Concat", [graph.op("Sub", [one, p]), p], axis=1)
    elif plan.link == "adaboost":  # softmax of the votes over K - 1 (as scikit-learn)
        factor = graph.constant("factor", np.array([1.0 / (n_classes - 1)], dtype))
        probabilities = graph.op("Softmax", [graph.op("Mul", [raw, factor])], axis=-1)
    else:
        probabilities = graph.op("Softmax", [raw], axis=-1)
    graph.op("Identity", [probabilities], output="probabilities")
    index = graph.op("ArgMax", [probabilities], axis=1, keepdims=0)
    labels = _labels_tensor(plan.classes)
    graph.op("Gather", [graph.constant("classes", labels), index], output="label", axis=0)
    label_type = {
        "b": TensorProto.BOOL,
        "i": TensorProto.INT64,
        "f": TensorProto.DOUBLE,
        "O": TensorProto.STRING,
    }[labels.dtype.kind]
    return [("label", label_type, ["N"]), ("probabilities", graph.elem, ["N", n_classes]), *outputs]


def to_onnx(model, path=None):
    """The fitted tree model as an ONNX model (``onnx.ModelProto``), optionally saved to ``path``.

    The graph has one input ``X``, a ``double`` (``float`` for XGBoost and
    oblivious boosting) matrix of shape ``(n, n_features)``: numbers as they
    are, categorical features as codes (see :func:`onnx_input`). Its outputs
    are ``raw_score`` (the model's raw output: class fractions of a tree or
    forest, votes of AdaBoost, margins of boosting) and, for a classifier,
    ``label`` and ``probabilities``, for a regressor ``prediction``. Each
    output equals the model's own (``predict``, ``predict_proba``,
    ``decision_function``) to the rounding of a sum: 1e-12 relative for
    double models, float32 rounding for float ones (chapter 18).

    Parameters
    ----------
    model : fitted estimator
        An mltrees tree (ID3, C4.5, CART), random forest, bagging of mltrees
        trees, AdaBoost, gradient boosting, XGBoost, LightGBM or oblivious
        boosting model, or an :class:`~mltrees.io.ImportedTreeModel`.
    path : str or path-like, optional
        Where to save the model (``onnx.save``).

    Returns
    -------
    onnx.ModelProto

    Raises
    ------
    OnnxExportError
        A model ONNX's ``TreeEnsemble`` cannot express, with the reason: C4.5's
        fractional routing of missing values, surrogate chains that need more
        than :data:`MAX_NODES` nodes, bagging of members that are not mltrees trees.
    TypeError
        An object that is not a fitted tree model of these kinds.

    Notes
    -----
    Thresholds keep the model's comparison: ``x <= t`` in double (CART,
    LightGBM), ``x < t`` in float32 with XGBoost's cut (:eq:`eq-onnx-cut`, from
    the stored threshold of :eq:`eq-xgb-threshold`),
    ``x <= t`` in float32 with CatBoost's borders. Needs ``onnx>=1.16`` (checked
    with 1.16.2 and 1.23.2). onnxruntime runs the graphs from 1.23 on (checked
    with 1.23.0 to 1.32.0); 1.21 and 1.22 fail on category sets with a member
    above 30 or more than 30 members, and 1.20 has no ``TreeEnsemble`` of opset 5.
    """
    onnx = import_optional("onnx", extra="onnx", feature="to_onnx")
    from onnx import helper

    from mltrees import __version__

    plan = _plan(model)
    view = plan.view
    n_features = len(view.feature_names)
    attributes = _ensemble_attributes(plan)
    graph = _Graph(plan.dtype)
    x = _preprocess(graph, plan, "X", n_features)
    ensemble = helper.make_node("TreeEnsemble", [x], ["scores"], domain="ai.onnx.ml", name="trees")
    ensemble.attribute.extend(_attribute(k, v) for k, v in attributes.items())
    graph.nodes.append(ensemble)
    raw = "scores"
    base = np.asarray(view.base, dtype=np.float64).reshape(1, -1)
    if base.any():
        raw = graph.op(
            "Add", ["scores", graph.constant("base_score", base.astype(plan.dtype))], "raw"
        )
    rejected = _rejected(graph, plan, "X")
    if rejected is not None:
        nan = graph.constant("nan", np.array([np.nan], plan.dtype))
        raw = graph.op("Where", [rejected, nan, raw], "checked")
    outputs = _outputs(graph, plan, raw)
    onnx_graph = helper.make_graph(
        graph.nodes,
        f"mltrees_{type(model).__name__}",
        [helper.make_tensor_value_info("X", graph.elem, ["N", n_features])],
        [helper.make_tensor_value_info(name, elem, shape) for name, elem, shape in outputs],
        initializer=graph.initializers,
    )
    proto = helper.make_model(
        onnx_graph,
        opset_imports=[
            helper.make_opsetid("", ONNX_OPSET),
            helper.make_opsetid("ai.onnx.ml", ONNX_ML_OPSET),
        ],
        producer_name="mltrees",
        producer_version=__version__,
        doc_string=f"{type(model).__name__} exported by mltrees.io.to_onnx",
    )
    proto.ir_version = IR_VERSION
    metadata = {
        "mltrees.model": type(model).__name__,
        "mltrees.feature_names": json.dumps(view.feature_names),
        "mltrees.categories": json.dumps(
            {view.feature_names[j]: names for j, names in plan.category_names.items()}
        ),
    }
    helper.set_model_props(proto, metadata)
    onnx.checker.check_model(proto)
    if path is not None:
        onnx.save(proto, path)
    return proto


def onnx_input(model, X) -> np.ndarray:
    """``X`` as the graph of :func:`to_onnx` reads it, with the model's own checks.

    Numeric columns keep their values (float32 for XGBoost and oblivious
    boosting, as those models compare); a categorical column becomes codes:
    the position of the category in the model's categories (listed in the
    ONNX model's metadata ``mltrees.categories``), -1 for a category unseen in
    training, NaN for a missing one. LightGBM and imported models read their
    categorical columns as the integer category values they were trained on.

    Parameters
    ----------
    model : fitted estimator
        A model :func:`to_onnx` exports.
    X : array_like or DataFrame of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64 or float32
    """
    plan = _plan(model)
    values = np.asarray(plan.encode(X), dtype=np.float64)
    return np.ascontiguousarray(values, dtype=plan.dtype)
