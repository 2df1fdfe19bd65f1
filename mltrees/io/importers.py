"""XGBoost and LightGBM models as mltrees trees (chapter 18).

:func:`import_xgboost` reads the JSON of ``Booster.save_model("m.json")``,
:func:`import_lightgbm` the text of ``Booster.model_to_string()``; both return
an :class:`ImportedTreeModel` whose trees are :class:`~mltrees.tree.Tree`
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
import functools
import json
import math
import os

import numpy as np
from sklearn.base import BaseEstimator

from mltrees._typing import MatrixLike
from mltrees.io.format import (
    Budget,
    ModelFormatError,
    binary_tree_levels,
    check_tree_features,
    expect,
    expect_array,
    expect_int,
    validate_tree,
)
from mltrees.tree._tree import Tree

__all__ = ["ImportedTreeModel", "import_lightgbm", "import_xgboost", "xgboost_threshold"]

DEFAULT_MAX_BYTES = 1 << 31  # 2 GiB, as for mltrees model files

_LINKS = ("identity", "logit", "log", "softmax")
_SOURCES = ("xgboost", "lightgbm", "catboost")


class ImportedTreeModel(BaseEstimator):
    """Trees trained by another library, held as mltrees :class:`Tree` arrays.

    Built by :func:`import_xgboost`, :func:`import_lightgbm` or
    :func:`~mltrees.io.import_catboost`, not by ``fit``.
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
        LightGBM, whose initial score is folded into its first trees;
        CatBoost's bias, added after the trees).
    link_ : {"identity", "logit", "log", "softmax"}
        How :meth:`predict` maps raw scores to the library's prediction.
    sigmoid_ : float
        LightGBM's ``sigmoid`` of binary objectives (1 for XGBoost).
    objective_ : str
        The objective as the library names it.
    source_ : {"xgboost", "lightgbm", "catboost"}
    categorical_ : ndarray of bool, shape ``(n_features_in_,)``
        Features tested by category membership (LightGBM).
    zero_as_missing_ : ndarray of bool, shape ``(n_features_in_,)``
        Features whose nodes treat 0 (``|x| <= float32(1e-35)``) as missing (LightGBM's
        ``zero_as_missing``): such values are mapped to NaN before the walk.
    n_codes_ : ndarray of int, shape ``(n_features_in_,)``
        For a categorical feature, the codes its routing tables cover; any
        other value (negative, too large) gets code ``n_codes_`` (routed right).
    feature_names_in_ : ndarray of str

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost
    >>> from mltrees import import_xgboost
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = X[:, 0] + rng.normal(size=200)
    >>> booster = xgboost.train({"max_depth": 2}, xgboost.DMatrix(X, y), num_boost_round=5)
    >>> model = import_xgboost(booster.save_raw("json"))  # or the path of a saved .json file
    >>> bool(np.allclose(model.predict(X), booster.predict(xgboost.DMatrix(X)), atol=1e-5))
    True
    """

    def _check(self):
        """Every field agrees with the others (run by the importers and by the loader).

        Trees valid and of one value column, each adding to an existing
        output; per-feature arrays of ``n_features_in_`` entries; categorical
        nodes only on categorical features, each with the routing table of
        its feature's codes; a finite starting score; raw scores bounded away
        from overflow (through the link, for ``log``).
        """
        from mltrees.io.format import MAX_LOG_LINK_SCORE, MAX_RAW_SCORE, check_score_bound

        n_features = expect_int(self.n_features_in_, "n_features_in_", 1)
        trees = self.trees_
        expect(
            isinstance(trees, list) and trees and all(type(t) is Tree for t in trees),
            "trees_",
            "a non-empty list of Tree",
        )
        base = expect_array(self.base_margin_, "base_margin_", ndim=1)
        n_outputs = base.size
        expect(n_outputs >= 1 and np.isfinite(base).all(), "base_margin_", "finite margins")
        expect_array(
            self.tree_output_,
            "tree_output_",
            kinds="iu",
            shape=(len(trees),),
            low=0,
            high=n_outputs - 1,
        )
        expect(
            self.link_ in _LINKS and (self.link_ == "softmax") == (n_outputs > 1),
            "link_",
            f"one of {_LINKS}; softmax for several outputs only",
        )
        expect(self.source_ in _SOURCES, "source_", f"one of {_SOURCES}")
        expect(isinstance(self.objective_, str), "objective_", "a string")
        sigmoid = self.sigmoid_
        expect(
            isinstance(sigmoid, float) and math.isfinite(sigmoid) and sigmoid > 0,
            "sigmoid_",
            "a positive float",
        )
        expect(isinstance(self.average_output_, bool), "average_output_", "a boolean")
        expect(len(trees) >= n_outputs, "trees_", "at least one tree per output")
        categorical = expect_array(
            self.categorical_, "categorical_", kinds="b", shape=(n_features,)
        )
        expect_array(self.zero_as_missing_, "zero_as_missing_", kinds="b", shape=(n_features,))
        codes = expect_array(self.n_codes_, "n_codes_", kinds="iu", shape=(n_features,), low=0)
        expect(not (codes[~categorical] > 0).any(), "n_codes_", "0 for numeric features")
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            expect_array(names, "feature_names_in_", kinds="OU", shape=(n_features,))
        for i, tree in enumerate(trees):  # each a valid Tree (read from a file or built)
            where = f"trees_[{i}]"
            check_tree_features(tree, n_features, where)
            expect(tree.value.shape[1] == 1, where, "one value column")
            internal = tree.feature >= 0
            on_categorical = internal & categorical[np.maximum(tree.feature, 0)]
            expect(
                np.array_equal(on_categorical, internal & (tree.kind == 1)),
                where,
                "categorical nodes test exactly the categorical features",
            )
            sizes = tree.n_categories[on_categorical]
            expect(
                np.array_equal(sizes, codes[tree.feature[on_categorical]] + 1),
                where,
                "a categorical node routes every code of its feature, plus one for the rest",
            )
        largest = [float(np.abs(tree.value).max()) for tree in trees]
        limit = MAX_LOG_LINK_SCORE if self.link_ == "log" else MAX_RAW_SCORE
        check_score_bound([float(np.abs(base).max()), *largest], "trees_", limit)

    def _input_numbers(self, X) -> np.ndarray:
        """The input as float64, pandas categories as their codes (NaN when missing).

        The first step of :meth:`_values`, shared with the ONNX export, whose
        graph does the rest (zero band, category codes) itself.
        """
        if hasattr(X, "iloc") and hasattr(X, "dtypes"):
            X = X.apply(
                lambda c: c.cat.codes.where(c.cat.codes >= 0) if hasattr(c, "cat") else c
            ).to_numpy(dtype=np.float64)
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have shape (n_samples, {self.n_features_in_}), got {X.shape}")
        return X

    def _values(self, X) -> np.ndarray:
        """The input as float64, categorical columns mapped to their codes."""
        X = self._input_numbers(X)
        zero = np.flatnonzero(self.zero_as_missing_)
        if zero.size:  # LightGBM's missing type Zero: IsZero's closed band [-z, z] is missing
            X = X.copy()
            # Prediction's IsZero (tree.h) is closed, -z <= x <= z; only the
            # training-time binning uses the half-open (-z, z].
            band = (X[:, zero] >= -_ZERO) & (X[:, zero] <= _ZERO)
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

    def apply(self, X: MatrixLike) -> np.ndarray:
        """The leaf of every tree each sample reaches, shape (n_samples, n_trees)."""
        values = self._values(X)
        return np.column_stack([tree.apply(values) for tree in self.trees_])

    def _stacked(self):
        """The trees as one walk (:class:`~mltrees.ensemble._walk.StackedTrees`), built once."""
        from mltrees.ensemble._walk import StackedTrees

        cached = self.__dict__.get("_stack")
        if cached is None or cached[0] is not self.trees_:
            stack = StackedTrees(
                self.trees_,
                [tree.value for tree in self.trees_],
                self.tree_output_,
                self.base_margin_.size,
            )
            cached = (self.trees_, stack)
            self.__dict__["_stack"] = cached
        return cached[1]

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Raw scores (margins): shape (n_samples,) or (n_samples, n_outputs).

        The sum of every tree's leaf, per output, in tree order (one walk of
        all trees), plus ``base_margin_``; averaged over rounds with
        ``average_output_``.
        """
        values = self._values(X)
        raw = self._stacked().predict(values)
        if self.average_output_:
            raw = raw / (len(self.trees_) // self.base_margin_.size)
        raw = raw + self.base_margin_
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict(self, X: MatrixLike) -> np.ndarray:
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

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_stack",)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        self._check()

    def _drawable_tree(self, tree_index):
        """Tree ``tree_index`` of the imported model, for ``plot_tree`` and ``to_dot``."""
        from sklearn.utils.validation import check_is_fitted

        from mltrees.tree._drawable import boosted_drawable

        check_is_fitted(self, "trees_")
        trees = list(self.trees_)
        return boosted_drawable(self, trees, [t.value for t in trees], tree_index)

    def _onnx_plan(self):
        """How ``mltrees.io.to_onnx`` writes this model (its source library's comparisons)."""
        from mltrees.io.onnx_export import _imported_plan

        return _imported_plan(self)


@functools.cache
def _c_logf():
    """The C library's ``logf``, which XGBoost calls, or None where it cannot be loaded."""
    try:
        import ctypes
    except ImportError:
        return None
    # The interpreter itself links the C math library: look there first, and
    # only then by name (ctypes.util.find_library may run ldconfig or a compiler).
    for name in (None, "libm.so.6", "libm.dylib"):
        try:
            logf = ctypes.CDLL(name).logf
        except (OSError, AttributeError):
            continue
        logf.restype, logf.argtypes = ctypes.c_float, [ctypes.c_float]
        return logf
    return None


def _logf32(values) -> np.ndarray:
    """``logf`` of float32 values, as XGBoost computes its starting margin.

    The C library's ``logf`` is not always correctly rounded (glibc's differs
    from the float64 log rounded once on about 0.3% of base scores); calling
    it keeps the imported margin XGBoost's to the bit. Without a loadable C
    library the float64 log rounded once stands in (at most one float32 step off).
    """
    values = np.asarray(values, dtype=np.float32)
    logf = _c_logf()
    if logf is None:
        return np.log(values.astype(np.float64)).astype(np.float32)
    return np.array([logf(float(v)) for v in values.ravel()], dtype=np.float32).reshape(
        values.shape
    )


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
    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    n = left.size
    leaf = left < 0
    order = binary_tree_levels(left, right, path)  # old ids, level by level
    old = np.concatenate(order)
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
    for level in order[-2::-1]:
        ids = new[level]
        ids = ids[~is_leaf[ids]]
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
        tables.append(np.asarray(slots, dtype=np.int8))
    tree = Tree(
        feature=np.where(is_leaf, -1, np.asarray(feature, dtype=np.int64)[old]),
        kind=kind,
        threshold=np.where(is_leaf, np.nan, np.asarray(threshold, dtype=np.float64)[old]),
        first_child=first_child,
        n_children=np.where(is_leaf, 0, 2).astype(np.int64),
        route_offset=route_offset,
        route_table=np.concatenate(tables) if tables else np.zeros(0, dtype=np.int8),
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


# ---------------------------------------------------------------- reading files


def _file_text(model, max_bytes: int, *, json_object: bool) -> str:
    """The text of a model given as text, bytes or a path (a ModelFormatError for anything bad)."""
    if isinstance(model, bytes | bytearray):
        data = bytes(model)
    elif isinstance(model, str) and (
        (json_object and model.lstrip().startswith("{")) or (not json_object and "\n" in model)
    ):
        if len(model) > max_bytes:
            raise ModelFormatError(f"the model text is longer than max_bytes={max_bytes}")
        return model
    else:
        path = os.fspath(model)
        if os.path.getsize(path) > max_bytes:
            raise ModelFormatError(f"{path} is larger than max_bytes={max_bytes}")
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ModelFormatError(f"the model is larger than max_bytes={max_bytes}")
    if json_object and data[:1] == b"{" and data[1:2] in (b"i", b"U", b"I", b"l", b"L", b"$", b"#"):
        # a UBJSON object: "{" then a length marker, where JSON text has a quote or a space
        raise ModelFormatError(
            "the model is UBJSON (binary JSON, XGBoost's default format since 2.1); write it as "
            "JSON: booster.save_model('model.json') or bytes(booster.save_raw('json'))"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelFormatError(f"the model is not UTF-8 text: {error}") from None


def _no_constant(token):
    raise ModelFormatError(f"the file contains {token}, which is not standard JSON")


def _json_document(model, max_bytes: int) -> tuple[dict, int]:
    """A JSON model file (text, bytes, path or an already parsed dict) and its size in bytes."""
    if isinstance(model, dict):
        try:
            text = json.dumps(model, allow_nan=False)
        except (ValueError, TypeError, RecursionError) as error:
            raise ModelFormatError(f"not a JSON model: {str(error)[:200]}") from None
    else:
        text = _file_text(model, max_bytes, json_object=True)
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except ModelFormatError:
        raise
    except (ValueError, RecursionError) as error:
        raise ModelFormatError(f"not a JSON document: {str(error)[:200]}") from None
    if not isinstance(document, dict):
        raise ModelFormatError("a model file is a JSON object")
    return document, len(text)


def _numbers(values, path: str, *, n=None, integer=False, finite=True) -> np.ndarray:
    """A JSON list of numbers as an array: float64, or int64 when ``integer``."""
    expect(isinstance(values, list), path, "a list of numbers")
    expect(n is None or len(values) == n, path, f"{n} entries")
    if integer:
        expect(all(type(v) is int for v in values), path, "integers")
        expect(all(-(1 << 62) <= v < 1 << 62 for v in values), path, "integers below 2**62")
        return np.asarray(values, dtype=np.int64).reshape(-1)
    expect(all(type(v) in (int, float) for v in values), path, "numbers")
    with np.errstate(over="ignore"):
        out = np.asarray(values, dtype=np.float64).reshape(-1)
    expect(not finite or np.isfinite(out).all(), path, "finite numbers")
    return out


def _header_int(value, path: str, low: int, high: int) -> int:
    """An integer header field (XGBoost writes them as strings, e.g. ``"4"``)."""
    try:
        number = (
            int(value) if isinstance(value, str | int) and not isinstance(value, bool) else None
        )
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise ModelFormatError(f"{path}: an integer in [{low}, {high}], got {str(value)[:40]!r}")
    return number


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
    if isinstance(text, int | float) and not isinstance(text, bool):
        return [float(text)]
    if not isinstance(text, str) or len(text) > 100_000:
        raise ModelFormatError("base_score: a number or a list of numbers")
    try:
        values = [float(v) for v in text.strip().strip("[]").split(",") if v.strip()]
    except ValueError:
        raise ModelFormatError(f"base_score: cannot read {text[:40]!r}") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise ModelFormatError(f"base_score: finite numbers, got {text[:40]!r}")
    return values


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
# Cells per node of an XGBoost tree while it is read: its JSON arrays, the
# translated arrays and the mltrees Tree (see Budget).
_CELLS_PER_NODE = 32


def import_xgboost(
    model, *, max_bytes: int = DEFAULT_MAX_BYTES, max_cells: int | None = None
) -> ImportedTreeModel:
    """An XGBoost ``gbtree`` model as an :class:`ImportedTreeModel`.

    Parameters
    ----------
    model : str, bytes, dict or path-like
        The JSON of ``Booster.save_model("m.json")`` (or ``save_raw("json")``),
        already parsed, or the path of the file.
    max_bytes : int
        A longer file is refused before it is read.
    max_cells : int or None
        The most cells (8-byte entries: nodes, routing tables) the model may
        hold; None: ``max(2**22, 4 * file size)`` (:class:`~mltrees.io.format.Budget`).

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
    boosters are refused, and so is a log-link model whose ``base_score`` is
    0 (XGBoost's model of all-zero counts: margin -inf, predictions 0).
    Every size is checked against the budget before anything of that size
    is allocated, and any malformed content raises
    :class:`ModelFormatError`.
    """
    document, n_bytes = _json_document(model, max_bytes)
    budget = Budget(n_bytes, max_cells)
    try:
        learner = document["learner"]
        param = learner["learner_model_param"]
        objective = learner["objective"]["name"]
        booster = learner["gradient_booster"]
        if not isinstance(booster, dict) or booster.get("name") != "gbtree":
            name = booster.get("name") if isinstance(booster, dict) else booster
            raise ModelFormatError(f"only gbtree boosters are imported, got {str(name)[:40]!r}")
        forest = booster["model"]
        trees_json = forest["trees"]
        tree_info = forest["tree_info"]
        num_feature, num_class = param["num_feature"], param.get("num_class", "0")
        base_score = param["base_score"]
        names = learner.get("feature_names") or None
    except (KeyError, TypeError, AttributeError) as error:
        raise ModelFormatError(f"not an XGBoost JSON model: {error!r}") from None
    if not isinstance(objective, str) or objective not in _XGB_LINKS:
        raise ModelFormatError(f"objective {str(objective)[:40]!r} is not supported")
    link = _XGB_LINKS[objective]
    n_features = _header_int(num_feature, "num_feature", 1, 1 << 40)
    budget.spend(4 * n_features, "num_feature", "entries per feature")
    if names is not None and (
        not isinstance(names, list)
        or len(names) != n_features
        or not all(isinstance(v, str) for v in names)
    ):
        raise ModelFormatError("feature_names: one string per feature")
    expect(isinstance(trees_json, list) and trees_json, "trees", "a non-empty list")
    for i, tj in enumerate(trees_json):
        param_of_tree = tj.get("tree_param") if isinstance(tj, dict) else None
        leaf_size = "1"
        if isinstance(param_of_tree, dict):
            leaf_size = param_of_tree.get("size_leaf_vector", "1")
        if str(leaf_size) not in ("0", "1"):
            # A tree whose leaves hold a vector, one value per output: its node
            # arrays are not scalar trees, and one tree serves every class.
            raise ModelFormatError(
                f"trees[{i}].tree_param.size_leaf_vector: vector-leaf trees "
                "(multi_strategy='multi_output_tree') are not imported; train with "
                "multi_strategy='one_output_per_tree', the default"
            )
    outputs = _numbers(tree_info, "tree_info", n=len(trees_json), integer=True)
    n_outputs = max(_header_int(num_class, "num_class", 0, len(trees_json)), 1)
    expect(((outputs >= 0) & (outputs < n_outputs)).all(), "tree_info", "outputs of the model")
    base = _parse_list(base_score)
    if len(base) == 1:
        base = base * n_outputs
    if len(base) != n_outputs:
        raise ModelFormatError(f"base_score has {len(base)} values for {n_outputs} outputs")
    base32 = np.asarray(base, dtype=np.float32)
    # XGBoost's ProbToMargin in float32 (regression_loss.h): for the logistic
    # link the probability is clamped to [1e-6, 1 - 1e-6] (kRtEps; 0 and 1 are
    # accepted) and the margin is -logf(1/p - 1); for the log link, logf(p).
    # logf is the C library's, as XGBoost's (see _logf32).
    if link == "logit":
        expect(((base32 >= 0) & (base32 <= 1)).all(), "base_score", "a probability in [0, 1]")
        eps = np.float32(1e-6)
        clamped = np.minimum(np.maximum(base32, eps), np.float32(1) - eps)
        margin = -_logf32(np.float32(1) / clamped - np.float32(1))
    elif link == "log":
        # A base_score of 0 (XGBoost's model of all-zero counts) has the margin
        # -inf, which a fitted model here cannot hold: refused, and said so.
        expect(
            (base32 > 0).all(),
            "base_score",
            "positive (0, a model of all-zero counts whose margin is -inf, is not imported)",
        )
        margin = _logf32(base32)
    else:
        margin = base32
    expect(np.isfinite(margin).all(), "base_score", "a finite margin")
    parsed = []
    n_codes = np.zeros(n_features, dtype=np.int64)
    categorical = np.zeros(n_features, dtype=bool)
    for i, tj in enumerate(trees_json):
        path = f"trees[{i}]"
        expect(isinstance(tj, dict), path, "a JSON object")
        try:
            left = tj["left_children"]
            expect(isinstance(left, list), f"{path}.left_children", "a list")
            budget.spend(_CELLS_PER_NODE * len(left), path, "tree nodes")
            n = len(left)
            left = _numbers(left, f"{path}.left_children", integer=True)
            right = _numbers(tj["right_children"], f"{path}.right_children", n=n, integer=True)
            feature = _numbers(tj["split_indices"], f"{path}.split_indices", n=n, integer=True)
            condition = _numbers(tj["split_conditions"], f"{path}.split_conditions", n=n)
            default_left = _numbers(tj["default_left"], f"{path}.default_left", n=n, integer=True)
            cover = _numbers(tj["sum_hessian"], f"{path}.sum_hessian", n=n)
            split_type = tj.get("split_type", [0] * n)
            split_type = _numbers(split_type, f"{path}.split_type", n=n, integer=True)
            sets = _xgb_category_sets(tj, n, path)
        except KeyError as error:
            raise ModelFormatError(f"{path}: {error!r} missing") from None
        expect(n > 0, path, "at least one node")
        expect((cover >= 0).all(), f"{path}.sum_hessian", "covers >= 0")
        with np.errstate(over="ignore"):
            expect(
                np.isfinite(condition.astype(np.float32)).all(),
                f"{path}.split_conditions",
                "float32 numbers",
            )
        is_leaf = left < 0
        if ((feature < 0) | (feature >= n_features))[~is_leaf].any():
            raise ModelFormatError(f"{path}: a split index out of range")
        if set(sets) != set(np.flatnonzero((split_type == 1) & ~is_leaf).tolist()):
            raise ModelFormatError(f"{path}: categories_nodes and split_type disagree")
        for node, codes in sets.items():
            categorical[feature[node]] = True
            largest = max(codes, default=-1) + 1
            n_codes[feature[node]] = max(n_codes[feature[node]], largest)
        parsed.append((i, left, right, feature, condition, default_left, cover, sets, is_leaf))
    # Every categorical node routes every code of its feature: the tables'
    # total size is known (and paid for) before any is built.
    table_cells = sum(int(n_codes[tree[3][node]]) + 1 for tree in parsed for node in tree[7])
    budget.spend(table_cells, "categories", "routing-table entries")
    trees = []
    for i, left, right, feature, condition, default_left, cover, sets, is_leaf in parsed:
        # XGBoost sends a category of the node's set right, any other value left.
        tables = {}
        for node, codes in sets.items():
            table = np.zeros(n_codes[feature[node]] + 1, dtype=np.int8)
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
    return _finish_model(
        trees,
        outputs,
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


def _xgb_category_sets(tree: dict, n_nodes: int, path: str) -> dict:
    """Node -> the category codes XGBoost sends right, from the ``categories*`` arrays."""
    nodes = _numbers(tree.get("categories_nodes", []), f"{path}.categories_nodes", integer=True)
    if not nodes.size:
        return {}
    segments = _numbers(
        tree.get("categories_segments"), f"{path}.categories_segments", integer=True
    )
    sizes = _numbers(tree.get("categories_sizes"), f"{path}.categories_sizes", integer=True)
    values = _numbers(tree.get("categories"), f"{path}.categories", integer=True)
    if not (nodes.size == segments.size == sizes.size):
        raise ModelFormatError(f"{path}: categories_nodes, _segments and _sizes differ in length")
    if np.unique(nodes).size != nodes.size:
        raise ModelFormatError(f"{path}: a node listed twice in categories_nodes")
    if ((values < 0) | (values >= _MAX_CATEGORY)).any():
        raise ModelFormatError(f"{path}: a category code is negative or >= 2**24")
    out = {}
    for node, start, size in zip(nodes.tolist(), segments.tolist(), sizes.tolist(), strict=True):
        if not 0 <= node < n_nodes or start < 0 or size < 0 or start + size > values.size:
            raise ModelFormatError(f"{path}: a categorical node's category list is out of range")
        out[node] = set(values[start : start + size].tolist())
    return out


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


def _lgb_numbers(block, key, n, path, *, integer=False, finite=True, low=None) -> np.ndarray:
    """A space-separated list of a tree block as an array (int64 when ``integer``)."""
    text = block.get(key, "")
    try:
        values = np.array([float(v) for v in text.split()], dtype=np.float64)
    except ValueError:
        raise ModelFormatError(f"{path}.{key}: numbers expected") from None
    if n is not None and values.size != n:
        raise ModelFormatError(f"{path}.{key}: {n} values expected, got {values.size}")
    if integer:
        if not (np.abs(values) < 2**53).all() or (values != np.round(values)).any():
            raise ModelFormatError(f"{path}.{key}: integers expected")
        values = values.astype(np.int64)
    elif finite and not np.isfinite(values).all():
        raise ModelFormatError(f"{path}.{key}: finite numbers expected")
    if low is not None and (values < low).any():
        raise ModelFormatError(f"{path}.{key}: values >= {low} expected")
    return values


# LightGBM objectives whose raw score is the prediction.
_LGB_IDENTITY = {
    "regression",
    "regression_l2",
    "l2",
    "mean_squared_error",
    "mse",
    "l2_root",
    "root_mean_squared_error",
    "rmse",
    "regression_l1",
    "l1",
    "mean_absolute_error",
    "mae",
    "huber",
    "fair",
    "quantile",
    "mape",
    "mean_absolute_percentage_error",
    "lambdarank",
    "rank_xendcg",
    "custom",
}


def import_lightgbm(
    model, *, max_bytes: int = DEFAULT_MAX_BYTES, max_cells: int | None = None
) -> ImportedTreeModel:
    """A LightGBM model (``Booster.model_to_string()``) as an :class:`ImportedTreeModel`.

    Parameters
    ----------
    model : str, bytes or path-like
        The model text, or the path of a file written by ``Booster.save_model``.
    max_bytes : int
        A longer file is refused before it is read.
    max_cells : int or None
        The most cells (8-byte entries: nodes, routing tables) the model may
        hold; None: ``max(2**22, 4 * file size)`` (:class:`~mltrees.io.format.Budget`).

    Notes
    -----
    Implements :eq:`eq-lgb-decision` (chapter 18). Each node keeps LightGBM's
    threshold (``x <= t`` in double). Its
    ``decision_type`` decides where a missing value goes: missing type NaN
    sends NaN to the default child; missing type None treats NaN as 0; missing
    type Zero sends NaN and every ``x`` with ``|x| <= z``, ``z = float32(1e-35)``
    (LightGBM's ``IsZero``, a closed band since LightGBM 3.0), to the default
    child, so the model maps that band to NaN for such features (a feature
    that is zero-as-missing at one node and NaN-aware at another is refused).
    Categorical nodes route the codes of their bitset left and everything
    else (NaN, negative, unlisted) right. ``predict`` equals LightGBM's
    ``Booster.predict`` (raw, sigmoid or softmax) to float32 precision.
    Linear trees, one-vs-all multiclass and ranking-specific links
    (``cross_entropy_lambda``) are refused; so is any malformed content, with
    :class:`ModelFormatError`, before anything of its size is allocated.
    """
    model = _file_text(model, max_bytes, json_object=False)
    budget = Budget(len(model), max_cells)
    header, blocks = _lgb_sections(model)
    if "max_feature_idx" not in header or not blocks:
        raise ModelFormatError("not a LightGBM model: no max_feature_idx or no Tree= block")
    n_features = _header_int(header["max_feature_idx"], "max_feature_idx", 0, 1 << 40) + 1
    budget.spend(6 * n_features, "max_feature_idx", "entries per feature")
    per_round = _header_int(
        header.get("num_tree_per_iteration", "1"), "num_tree_per_iteration", 1, len(blocks)
    )
    objective_text = header.get("objective", "regression")
    objective, *options = objective_text.split() or [""]
    settings = dict(o.split(":", 1) for o in options if ":" in o)
    sigmoid = 1.0
    if objective in ("binary", "cross_entropy", "xentropy"):
        link = "logit"
        try:
            sigmoid = float(settings.get("sigmoid", 1.0))
        except ValueError:
            sigmoid = math.nan
        expect(math.isfinite(sigmoid) and sigmoid > 0, "objective", "a positive finite sigmoid")
    elif objective in ("multiclass", "softmax"):
        link = "softmax"
    elif objective in ("poisson", "gamma", "tweedie"):
        link = "log"
    elif objective in ("multiclassova", "multiclass_ova", "ova", "ovr"):
        raise ModelFormatError("one-vs-all multiclass models are not imported")
    elif objective in _LGB_IDENTITY:
        link = "identity"
    else:
        raise ModelFormatError(f"objective {objective_text[:40]!r} is not supported")
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
        n_leaves = _header_int(block.get("num_leaves"), f"{path}.num_leaves", 1, 1 << 24)
        budget.spend(_CELLS_PER_NODE * (2 * n_leaves - 1), path, "tree nodes")
        leaf_value = _lgb_numbers(block, "leaf_value", n_leaves, path)
        m = n_leaves - 1
        if m == 0:
            parsed.append((path, leaf_value, None))
            continue
        node = {
            "split_feature": _lgb_numbers(block, "split_feature", m, path, integer=True),
            "threshold": _lgb_numbers(block, "threshold", m, path, finite=False),
            "decision_type": _lgb_numbers(block, "decision_type", m, path, integer=True),
            "left_child": _lgb_numbers(block, "left_child", m, path, integer=True),
            "right_child": _lgb_numbers(block, "right_child", m, path, integer=True),
            "leaf_weight": _lgb_numbers(block, "leaf_weight", n_leaves, path, low=0),
            "internal_weight": _lgb_numbers(block, "internal_weight", m, path, low=0),
        }
        node["count"] = np.concatenate(
            [
                _lgb_numbers(block, "internal_count", m, path, integer=True, low=0),
                _lgb_numbers(block, "leaf_count", n_leaves, path, integer=True, low=0),
            ]
        )
        feature, decision = node["split_feature"], node["decision_type"]
        if ((feature < 0) | (feature >= n_features)).any() or (
            (decision < 0) | (decision > 11)
        ).any():
            raise ModelFormatError(f"{path}: split_feature or decision_type out of range")
        is_cat = (decision & 1) == 1
        if is_cat.any():
            n_cat = _header_int(block.get("num_cat", "0"), f"{path}.num_cat", 1, m)
            bounds = _lgb_numbers(block, "cat_boundaries", n_cat + 1, path, integer=True)
            words = _lgb_numbers(block, "cat_threshold", None, path, integer=True)
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
        in_band = (node["threshold"] >= -_ZERO) & (node["threshold"] <= _ZERO)
        band_none_features[feature[none & in_band]] = True
    clash = zero_features & (nan_features | band_none_features | categorical)
    if clash.any():
        raise ModelFormatError(
            f"feature {int(np.argmax(clash))} is zero-as-missing at some nodes and compared "
            "with NaN or inside the zero band at others: one preprocessing cannot serve both"
        )
    # Every categorical node routes every code of its feature: pay for the tables first.
    table_cells = sum(
        int(codes_needed[f]) + 1
        for _, _, node in parsed
        if node is not None
        for f in node["split_feature"][(node["decision_type"] & 1) == 1].tolist()
    )
    budget.spend(table_cells, "cat_threshold", "routing-table entries")
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
    # Missing type Zero: 0, the band [-z, z] and NaN go to the default
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
            tables[i] = np.where(inside, 0, 1).astype(np.int8)
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
