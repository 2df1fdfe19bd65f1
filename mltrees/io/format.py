"""The mltrees model file: typed JSON values, their bounds, and the tree checks (chapter 18).

A model file is one JSON object (standard JSON: no ``NaN`` tokens)::

    {"format": "mltrees-model", "format_version": 1, "mltrees_version": "0.1.0",
     "model": <value>}

Every value is plain JSON (``null``, booleans, integers, strings, lists) or one
of the tagged objects below; a dictionary always carries exactly one tag.

==============  ==========================================================
tag             meaning
==============  ==========================================================
``float``       a Python float that is not finite: ``"NaN"``, ``"Infinity"``
                or ``"-Infinity"`` (finite floats are JSON numbers)
``scalar``      a NumPy scalar: ``{"scalar": dtype, "value": number}``
``ndarray``     ``{"ndarray": dtype, "shape": [...], "data": [...]}``, data
                flattened in C order; non-finite floats as the strings above
``tuple``       a tuple: ``{"tuple": [values]}``
``dict``        a dictionary: ``{"dict": [[key, value], ...]}``
``object``      an instance of a registered class (a tree, a feature
                specification, a loss, ...): ``{"object": name, "state":
                {attribute: value}}``
``estimator``   a registered estimator: ``{"estimator": name, "params":
                {...}, "fitted": {...}}`` (``fitted`` absent if unfitted)
``ref``         the ``n``-th object/estimator/array already decoded in this
                file (shared objects, e.g. the feature specifications of
                an ensemble and of its members): ``{"ref": n}``
==============  ==========================================================

Loading never imports a name found in the file and never runs code it
carries: classes come from the fixed registry of
:mod:`mltrees.io.registry`, arrays are built from lists of numbers of a
white-listed dtype, and every bound (sizes, nesting, indices) is checked
before memory is allocated. Every violation raises :class:`ModelFormatError`.

The work a file can cause is bounded by its size (:class:`Budget`): a model
read from ``S`` bytes holds at most ``max(MIN_CELLS, CELLS_PER_BYTE * S)``
*cells* (8-byte array entries), counting the nodes of a tree once for every
place that uses it, since the predictor walks (and stacks) it there. A
``{"ref": n}`` costs nothing when it shares an array or a feature binning, and
the whole tree when it repeats a tree; an estimator costs ``ESTIMATOR_CELLS``
more at every use (the fixed work of calling its ``predict``). Sizes a file
declares without storing
them (a number of classes, of features, of category codes) must agree with
the arrays it does store.

The value checks of this module (:func:`expect`, :func:`expect_array`,
:func:`check_score_bound`, ...) are the vocabulary of the estimators'
``_rebuild_caches`` hooks, which check a loaded state as a whole.
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = [
    "CELLS_PER_BYTE",
    "ESTIMATOR_CELLS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MIN_CELLS",
    "Budget",
    "ModelFormatError",
    "validate_tree",
]

FORMAT_NAME = "mltrees-model"
FORMAT_VERSION = 1
MAX_DEPTH = 64  # nesting of tagged values (an ensemble of trees needs about 8)
MAX_ELEMENTS = 200_000_000  # entries of one array
MAX_NDIM = 8
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_NUMERIC_DTYPES = {
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
}
_STR_DTYPE = re.compile(r"^<U([0-9]{1,6})$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


# The budget of cells (8-byte entries) a model file of S bytes may cause:
# max(MIN_CELLS, CELLS_PER_BYTE * S). A JSON number takes at least two bytes
# ("0,"), so the arrays of a file fill at most S / 2 cells, and an honest
# file that uses each tree in two places (gradient boosting keeps its trees
# in ``estimators_`` and in ``_trees``) about S; the factor leaves room for
# that, and the floor for small files with many shared parts.
CELLS_PER_BYTE = 4
MIN_CELLS = 1 << 22  # 32 MiB of float64
# An estimator costs this much at every use besides its trees: ensembles call
# each member's predict, whose fixed cost is that of a walk over ~1000 cells.
# A member takes more than 1 KB of an honest file (its parameters alone).
ESTIMATOR_CELLS = 1024


class ModelFormatError(ValueError):
    """A model file (or a model to be saved) that does not follow the mltrees format.

    Raised for malformed JSON, unknown or unregistered classes, wrong types,
    shapes, dtypes or value ranges, broken child links and oversized values.
    A subclass of ``ValueError``.

    Examples
    --------
    >>> from mltrees import ModelFormatError, from_json
    >>> try:
    ...     from_json('{"format": "something else"}')
    ... except ModelFormatError as error:
    ...     print("refused:", type(error).__name__)
    ...
    refused: ModelFormatError
    """


def _fail(path: str, message: str):
    raise ModelFormatError(f"{path}: {message}")


class Budget:
    """The cells a model read from a file of ``n_bytes`` bytes may hold and walk.

    Implements the bound :eq:`eq-model-budget` (chapter 18).

    ``limit = max(MIN_CELLS, CELLS_PER_BYTE * n_bytes)``, or ``max_cells`` when
    the caller gives one (to load a trusted model whose trees expand more,
    e.g. dense category tables). Readers :meth:`spend` the cells of what they
    are about to allocate *before* allocating it; going over the limit raises
    :class:`ModelFormatError`.
    """

    def __init__(self, n_bytes: int, max_cells: int | None = None):
        if max_cells is None:
            self.limit = max(MIN_CELLS, CELLS_PER_BYTE * int(n_bytes))
        elif type(max_cells) is int and max_cells > 0:
            self.limit = max_cells
        else:
            raise ValueError(f"max_cells must be a positive int or None, got {max_cells!r}")
        self.n_bytes = int(n_bytes)
        self.used = 0

    def spend(self, cells, path: str, what: str = "entries") -> None:
        """Count ``cells`` more (an integer, possibly huge); refuse past the limit."""
        self.used += int(cells)
        if self.used > self.limit:
            _fail(
                path,
                f"the model would hold {self.used} cells ({what}), more than the "
                f"{self.limit} allowed for a file of {self.n_bytes} bytes (max_cells)",
            )


def check_name(name, path: str) -> str:
    """An attribute or class name: an identifier, never a dunder."""
    if not isinstance(name, str) or not _NAME.match(name) or name.startswith("__"):
        _fail(path, f"expected an identifier, got {str(name)[:60]!r}")
    return name


# ---------------------------------------------------------------- arrays


def dtype_name(dtype: np.dtype) -> str:
    """The dtype string stored in a file, or a ModelFormatError if it cannot be stored."""
    if dtype.name in _NUMERIC_DTYPES:
        return dtype.name
    if dtype.kind == "U":
        return f"<U{dtype.itemsize // 4}"
    if dtype.kind == "O":
        return "object"
    raise ModelFormatError(f"arrays of dtype {dtype} cannot be stored")


def encode_float_list(array: np.ndarray) -> list:
    """A float array as a flat list, non-finite entries as strings (standard JSON)."""
    flat = array.ravel()
    data = flat.tolist()
    for i in np.flatnonzero(~np.isfinite(flat)).tolist():
        value = data[i]
        data[i] = "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    return data


def decode_array(dtype, shape, data, path: str, decode_item) -> np.ndarray:
    """Build an ndarray from its stored parts, checking dtype, shape and entries first."""
    if not isinstance(dtype, str):
        _fail(path, "the dtype must be a string")
    if not isinstance(shape, list) or len(shape) > MAX_NDIM:
        _fail(path, f"the shape must be a list of at most {MAX_NDIM} integers")
    if not all(type(n) is int and 0 <= n <= MAX_ELEMENTS for n in shape):
        _fail(path, f"shape entries must be integers in [0, {MAX_ELEMENTS}]")
    size = math.prod(shape)
    if size > MAX_ELEMENTS:
        _fail(path, f"an array of {size} entries is larger than the limit {MAX_ELEMENTS}")
    if not isinstance(data, list) or len(data) != size:
        _fail(path, f"data must be a list of {size} entries (shape {shape})")
    kinds = set(map(type, data))
    if dtype == "object":
        if not kinds <= {str, int, float, bool, dict, type(None)}:
            _fail(path, "object arrays hold strings, numbers, booleans, null or tagged values")
        out = np.empty(size, dtype=object)
        for i, item in enumerate(data):  # one by one: a tuple stays one entry
            out[i] = decode_item(item, f"{path}[{i}]") if type(item) is dict else item
        return out.reshape(shape)
    match = _STR_DTYPE.match(dtype)
    if match:
        if not kinds <= {str}:
            _fail(path, f"an array of dtype {dtype} holds strings only")
        width = int(match.group(1))
        if any(len(s) > width for s in data):
            _fail(path, f"a string is longer than the dtype {dtype} allows")
        return np.array(data, dtype=dtype).reshape(shape)
    if dtype not in _NUMERIC_DTYPES:
        _fail(path, f"unknown dtype {dtype[:40]!r}")
    np_dtype = np.dtype(dtype)
    if np_dtype.kind == "b":
        if not kinds <= {bool}:
            _fail(path, "a boolean array holds true/false only")
        return np.array(data, dtype=bool).reshape(shape)
    if np_dtype.kind in "iu":
        if not kinds <= {int}:
            _fail(path, f"an array of dtype {dtype} holds integers only")
        info = np.iinfo(np_dtype)
        if data and (min(data) < info.min or max(data) > info.max):
            _fail(path, f"an integer is out of the range of {dtype}")
        return np.array(data, dtype=np_dtype).reshape(shape)
    # float
    if not kinds <= {int, float, str}:
        _fail(path, f"an array of dtype {dtype} holds numbers (and 'NaN'/'Infinity' strings)")
    if str in kinds:
        data = list(data)
        for i, value in enumerate(data):
            if type(value) is str:
                if value not in _NON_FINITE:
                    _fail(path, f"unknown float string {value[:20]!r}")
                data[i] = _NON_FINITE[value]
    with np.errstate(over="ignore"):
        out = np.array(data, dtype=np.float64)
        if np_dtype == np.float32:
            converted = out.astype(np.float32)
            if (np.isinf(converted) & np.isfinite(out)).any():
                _fail(path, "a value overflows float32")
            return converted.reshape(shape)
    return out.reshape(shape)


def decode_float(value, path: str) -> float:
    if type(value) is not str or value not in _NON_FINITE:
        _fail(path, "a non-finite float is 'NaN', 'Infinity' or '-Infinity'")
    return _NON_FINITE[value]


# ---------------------------------------------------------------- trees

_INT_FIELDS = (
    "feature",
    "kind",
    "first_child",
    "n_children",
    "route_offset",
    "n_categories",
    "n_node_samples",
    "depth",
    "parent",
    "missing_slot",
)
_FLOAT_FIELDS = ("threshold", "impurity", "weighted_n_node_samples")
MAX_CHILDREN = 1 << 20


def _check_surrogates(tree, n: int, leaf: np.ndarray, n_features, bad) -> None:
    """CART's surrogate splits (chapter 6): one row of up to S surrogates per node."""
    arrays = [getattr(tree, f"surrogate_{name}", None) for name in _SURROGATE_FIELDS]
    if all(a is None for a in arrays):
        return
    if any(not isinstance(a, np.ndarray) or a.ndim != 2 or a.shape[0] != n for a in arrays):
        bad("surrogate_* are arrays of shape (n_nodes, max_surrogates), all four or none")
    feature, threshold, low_slot, agreement = arrays
    if len({a.shape for a in arrays}) != 1:
        bad("surrogate_* share one shape")
    if feature.shape[1] == 0:  # no surrogates
        return
    if feature.dtype.kind not in "iu" or low_slot.dtype.kind not in "iu":
        bad("surrogate_feature and surrogate_low_slot are integers")
    used = feature >= 0
    limit = np.iinfo(np.int64).max if n_features is None else n_features
    if (feature < -1).any() or (feature >= limit).any() or used[leaf].any():
        bad(f"surrogate_feature is -1 or in [0, {n_features}), and -1 at leaves")
    if not np.isfinite(threshold[used]).all() or not np.isin(low_slot[used], (0, 1)).all():
        bad("a used surrogate has a finite threshold and a low slot of 0 or 1")
    known = agreement[used]
    if not ((known >= 0) & (known <= 1)).all():
        bad("surrogate_agreement lies in [0, 1]")


_SURROGATE_FIELDS = ("feature", "threshold", "low_slot", "agreement")


def check_tree_features(tree, n_features: int, path: str = "tree") -> None:
    """The features (and surrogate features) a valid tree tests are below ``n_features``."""
    if tree.feature.size and tree.feature.max() >= n_features:
        _fail(path, f"a node tests a feature >= {n_features}")
    surrogates = tree.surrogate_feature
    if surrogates.size and surrogates.max() >= n_features:
        _fail(path, f"a surrogate split tests a feature >= {n_features}")


def validate_tree(tree, n_features: int | None = None, path: str = "tree") -> None:
    """Check that a :class:`~mltrees.tree.Tree` is a well-formed tree.

    Implements :eq:`eq-tree-links` (chapter 18), plus the field checks:
    shapes and dtypes of every field; each internal node's children are
    in range and consecutive; starting from the root, every node is reached
    exactly once (so there is no cycle and no orphan); ``parent`` and
    ``depth`` agree with the child links; features, node kinds, routing
    tables and missing-value slots are in range; values are finite.
    The loop runs over depth (one vectorized step per level), never over nodes.

    Raises
    ------
    ModelFormatError
    """
    from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, NUMERIC_NODE

    def bad(message):
        _fail(path, message)

    n = tree.feature.shape[0] if isinstance(tree.feature, np.ndarray) else 0
    if n < 1:
        bad("a tree has at least one node (feature must be a 1-D array)")
    for name in _INT_FIELDS + _FLOAT_FIELDS:
        array = getattr(tree, name)
        if not isinstance(array, np.ndarray) or array.shape != (n,):
            bad(f"{name} must be an array of shape ({n},)")
        expected = "iu" if name in _INT_FIELDS else "f"
        if array.dtype.kind not in expected:
            bad(f"{name} must have an {'integer' if expected == 'iu' else 'float'} dtype")
    table = tree.route_table
    if not isinstance(table, np.ndarray) or table.ndim != 1 or table.dtype.kind not in "iu":
        bad("route_table must be a 1-D integer array")
    value = tree.value
    if not isinstance(value, np.ndarray) or value.ndim != 2 or value.shape[0] != n:
        bad(f"value must be an array of shape ({n}, n_outputs)")
    if value.shape[1] < 1 or value.dtype.kind != "f" or not np.isfinite(value).all():
        bad("value must hold finite floats, at least one column")
    feature = tree.feature.astype(np.int64)
    leaf = feature == LEAF
    internal = np.flatnonzero(~leaf)
    if (feature < LEAF).any() or (n_features is not None and (feature >= n_features).any()):
        bad(f"feature must be -1 (leaf) or in [0, {n_features})")
    kind = tree.kind.astype(np.int64)
    if (kind[leaf] != -1).any() or np.isin(
        kind[internal], [NUMERIC_NODE, CATEGORICAL_NODE]
    ).sum() < internal.size:
        bad("kind must be -1 at leaves, 0 (numeric) or 1 (categorical) at internal nodes")
    n_children = tree.n_children.astype(np.int64)
    first = tree.first_child.astype(np.int64)
    if (n_children[leaf] != 0).any():
        bad("a leaf has no children")
    count, start = n_children[internal], first[internal]
    if (count < 2).any() or (count > MAX_CHILDREN).any():
        bad("an internal node has between 2 and 2**20 children")
    if (start < 1).any() or (start + count > n).any():
        bad("children ids must lie in [1, n_nodes)")
    numeric = internal[kind[internal] == NUMERIC_NODE]
    if (n_children[numeric] != 2).any():
        bad("a numeric node has exactly two children")
    if np.isnan(tree.threshold[numeric]).any():
        bad("a numeric node's threshold is a number (not NaN)")
    # Every node reached exactly once from the root, level by level.
    reached = np.zeros(n, dtype=np.int64)
    reached[0] = 1
    depth = np.zeros(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    level = np.zeros(1, dtype=np.int64)
    for d in range(1, n):
        level = level[~leaf[level]]
        if level.size == 0:
            break
        sizes = n_children[level]
        offsets = np.cumsum(sizes) - sizes
        children = np.repeat(first[level] - offsets, sizes) + np.arange(int(sizes.sum()))
        np.add.at(reached, children, 1)
        if reached.max() > 1:
            bad("a node is the child of two nodes, or of itself (a cycle)")
        depth[children] = d
        parent[children] = np.repeat(level, sizes)
        level = children
    if (reached != 1).any():
        bad(f"{int((reached == 0).sum())} node(s) cannot be reached from the root")
    if not np.array_equal(depth, tree.depth) or not np.array_equal(parent, tree.parent):
        bad("depth and parent must agree with the child links")
    slot = tree.missing_slot.astype(np.int64)
    if (slot[leaf] != -1).any():
        bad("missing_slot is -1 at leaves")
    at = slot[internal]
    if ((at < -2) | (at >= n_children[internal])).any():
        bad("missing_slot is -2, -1 or a child slot of its node")
    if (tree.n_node_samples < 0).any() or not (tree.weighted_n_node_samples >= 0).all():
        bad("n_node_samples and weighted_n_node_samples are >= 0")
    if not (np.isfinite(tree.weighted_n_node_samples).all() and np.isfinite(tree.impurity).all()):
        bad("weighted_n_node_samples and impurity are finite")
    _check_surrogates(tree, n, leaf, n_features, bad)
    # C4.5's nodes share a missing value among their children by the children's
    # weights (Tree.branch_fraction): those must add up to the node's weight.
    shared = internal[slot[internal] == -2]
    if shared.size:
        weight = tree.weighted_n_node_samples
        sizes = n_children[shared]
        offsets = np.cumsum(sizes) - sizes
        children = np.repeat(first[shared] - offsets, sizes) + np.arange(int(sizes.sum()))
        total = np.add.reduceat(weight[children], offsets)
        parent = weight[shared]
        if not ((parent > 0) & (np.abs(total - parent) <= 1e-9 * parent)).all():
            bad(
                "a node that shares missing values among its children has a positive "
                "weight, the sum of theirs"
            )
    categorical = internal[kind[internal] == CATEGORICAL_NODE]
    sizes = tree.n_categories.astype(np.int64)[categorical]
    offsets = tree.route_offset.astype(np.int64)[categorical]
    if (sizes < 0).any() or (offsets < 0).any() or (offsets + sizes > table.size).any():
        bad("a categorical node's routing table lies inside route_table")
    if sizes.size:
        index = np.repeat(offsets - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
        slots = table.astype(np.int64)[index]
        limit = np.repeat(n_children[categorical], sizes)
        if ((slots < -1) | (slots >= limit)).any():
            bad("route_table entries are -1 or a child slot of their node")


def tree_cells(tree) -> int:
    """The cells of a (validated) tree's arrays: what one use of it costs (:class:`Budget`)."""
    n = tree.feature.shape[0]
    per_node = len(_INT_FIELDS) + len(_FLOAT_FIELDS) + tree.value.shape[1]
    per_node += 4 * tree.surrogate_feature.shape[1]
    return n * per_node + tree.route_table.size


def binary_tree_levels(left, right, path: str) -> list:
    """The node ids of a binary tree given by child links, level by level from node 0.

    ``left[i]``, ``right[i]`` are the children of node ``i``, both negative
    at a leaf (the form of XGBoost's files and of the Hoeffding tree). The
    links must form a tree rooted at 0 (:eq:`eq-tree-links`): children in
    range, every node reached exactly once. One vectorized step per level.

    Raises
    ------
    ModelFormatError
    """
    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    n = left.size
    leaf = left < 0
    if right.shape != left.shape or left.ndim != 1 or n == 0:
        _fail(path, "child links are two 1-D arrays of the same, non-zero length")
    if ((left >= n) | (right >= n) | ((right < 0) != leaf)).any():
        _fail(path, "child indices out of range (or one child missing)")
    levels = [np.zeros(1, dtype=np.int64)]
    seen = np.zeros(n, dtype=np.int64)
    seen[0] = 1
    level = levels[0]
    while True:
        inner = level[~leaf[level]]
        if inner.size == 0:
            break
        level = np.column_stack([left[inner], right[inner]]).ravel()
        np.add.at(seen, level, 1)
        if seen.max() > 1:
            _fail(path, "a node is reached twice (a cycle or a shared child)")
        levels.append(level)
    if sum(level.size for level in levels) != n:
        _fail(path, f"{int((seen == 0).sum())} node(s) cannot be reached from the root")
    return levels


def expect(ok, path: str, message: str) -> None:
    """Raise :class:`ModelFormatError` (``path: message``) unless ``ok``."""
    if not ok:
        _fail(path, message)


def expect_int(value, path: str, low: int = 0, high: int | None = None) -> int:
    """An integer (Python or NumPy) in ``[low, high]``."""
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
    if not ok or value < low or (high is not None and value > high):
        _fail(path, f"an integer in [{low}, {'inf' if high is None else high}]")
    return int(value)


def expect_array(value, path: str, *, kinds="f", shape=None, ndim=None, low=None, high=None):
    """An ndarray whose dtype kind is in ``kinds``, of the given shape, entries in [low, high]."""
    expect(isinstance(value, np.ndarray), path, "an array")
    expect(value.dtype.kind in kinds, path, f"an array of dtype kind {kinds!r}")
    if shape is not None:
        expect(value.shape == tuple(shape), path, f"an array of shape {tuple(shape)}")
    if ndim is not None:
        expect(value.ndim == ndim, path, f"a {ndim}-D array")
    if value.size and value.dtype.kind in "iuf":
        expect(low is None or value.min() >= low, path, f"entries >= {low}")
        expect(high is None or value.max() <= high, path, f"entries <= {high}")
    return value


def check_finite(value, path: str) -> None:
    """Refuse NaN and infinite numbers anywhere in a decoded value.

    Walks numbers, NumPy arrays and scalars, lists, tuples and dicts; other
    objects are left to their own checks.
    """
    if isinstance(value, float | np.floating):
        if not math.isfinite(value):
            _fail(path, f"a number is {value} (finite numbers only)")
    elif isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and not np.isfinite(value).all():
            _fail(path, "an array holds NaN or infinite values (finite numbers only)")
        elif value.dtype == object:
            for i, item in enumerate(value.ravel().tolist()):
                check_finite(item, f"{path}[{i}]")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_finite(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_finite(key, f"{path}.key")
            check_finite(item, f"{path}[{key!r}]")


def validate_feature_spec(spec, path: str) -> None:
    """Check a :class:`~mltrees.tree._data.FeatureSpec` (binning of one feature)."""
    from mltrees.tree._data import CATEGORICAL, NUMERIC

    if type(spec.kind) is not int or spec.kind not in (NUMERIC, CATEGORICAL):
        _fail(path, "kind is 0 (numeric) or 1 (categorical)")
    if type(spec.exact) is not bool or not isinstance(spec.name, str):
        _fail(path, "exact is a boolean and name a string")
    values = spec.values
    if not isinstance(values, np.ndarray) or values.ndim != 1:
        _fail(path, "values is a 1-D array")
    if spec.kind == NUMERIC:
        if values.dtype.kind != "f" or np.isnan(values).any():
            _fail(path, "a numeric feature's values are floats, not NaN")
        if (np.diff(values) <= 0).any():
            _fail(path, "a numeric feature's values (or bin edges) increase strictly")
    elif len(set(values.tolist())) != len(values):
        _fail(path, "a categorical feature's categories are distinct")
    expected = len(values) + 1 if spec.kind == NUMERIC and not spec.exact else len(values)
    if type(spec.n_codes) is not int or spec.n_codes != expected:
        _fail(path, f"n_codes must be {expected}")


# ------------------------------------------------- checks of a fitted state as a whole
# What an estimator's ``_rebuild_caches`` (its model-file hook, see
# :func:`mltrees.io.register_estimator`) uses to check a loaded state.

MAX_RAW_SCORE = 1e300
MAX_LOG_LINK_SCORE = 700.0  # exp(700) ~ 1e304: a log link stays finite
# A linear model (a stack's final estimator) keeps every input of at most this
# magnitude at a raw score below MAX_RAW_SCORE.
MAX_INPUT = 1e100


def check_score_bound(terms, path: str, limit: float = MAX_RAW_SCORE) -> None:
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


def largest_value(tree) -> float:
    """The largest absolute value in a tree's node table."""
    return float(np.abs(tree.value).max())


def distinct_classes(estimator, path: str) -> int:
    """The number of ``classes_``, after checking that they are distinct labels."""
    classes = estimator.classes_
    expect(len(set(classes.tolist())) == classes.size, f"{path}.classes_", "distinct labels")
    return int(classes.size)
