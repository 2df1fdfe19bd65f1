"""Saving and loading fitted mltrees estimators without pickle (chapter 18).

:func:`to_json` writes an estimator's parameters and fitted state as the
typed JSON values of :mod:`mltrees.io.format`; :func:`from_json` reads them
back. Only the classes of a fixed registry (:mod:`mltrees.io.registry`) can
appear in a file; an estimator names the caches that are rebuilt rather than
stored, and checks its loaded state, in its own hooks
(:func:`~mltrees.io.registry.register_estimator`).
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import os

import numpy as np
from sklearn.base import is_classifier as sklearn_is_classifier

from mltrees.io.format import (
    ESTIMATOR_CELLS,
    FORMAT_NAME,
    FORMAT_VERSION,
    MAX_DEPTH,
    Budget,
    ModelFormatError,
    check_finite,
    check_name,
    check_tree_features,
    decode_array,
    decode_float,
    dtype_name,
    encode_float_list,
)
from mltrees.io.registry import (
    _ESTIMATORS,
    _OBJECTS,
    _registered_name,
    register_estimator,
    register_object,
)

__all__ = [
    "from_json",
    "load_model",
    "register_estimator",
    "register_object",
    "save_model",
    "to_json",
]

DEFAULT_MAX_BYTES = 1 << 31  # 2 GiB: a larger file is refused before it is read


# ---------------------------------------------------------------- encoding


class _Encoder:
    def __init__(self):
        self.done: dict[int, int] = {}  # id(obj) -> reference number
        self.keep: list = []  # keeps encoded objects alive, so ids stay unique
        self.active: set[int] = set()

    def _remember(self, obj):
        self.done[id(obj)] = len(self.keep)
        self.keep.append(obj)

    def value(self, obj, path: str):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, float)) and type(obj) in (int, float):
            if isinstance(obj, float) and not math.isfinite(obj):
                return {"float": encode_float_list(np.array([obj]))[0]}
            return obj
        if id(obj) in self.done:
            return {"ref": self.done[id(obj)]}
        if isinstance(obj, np.generic):
            return self.scalar(obj, path)
        if isinstance(obj, np.ndarray):
            out = self.array(obj, path)
            self._remember(obj)
            return out
        if isinstance(obj, list):
            return [self.value(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, tuple):
            return {"tuple": [self.value(v, f"{path}[{i}]") for i, v in enumerate(obj)]}
        if isinstance(obj, dict):
            return {
                "dict": [
                    [self.value(k, f"{path}.key"), self.value(v, f"{path}[{k!r}]")]
                    for k, v in obj.items()
                ]
            }
        if id(obj) in self.active:
            raise ModelFormatError(f"{path}: the model contains itself")
        self.active.add(id(obj))
        name = _registered_name(obj, _ESTIMATORS)
        if name is not None:
            out = self.estimator(obj, name, path)
        else:
            name = _registered_name(obj, _OBJECTS)
            if name is None:
                raise ModelFormatError(
                    f"{path}: cannot store an object of type {type(obj).__module__}."
                    f"{type(obj).__qualname__}; model files hold registered mltrees classes only"
                )
            entry = _OBJECTS[name]
            state = entry.encode(obj) if entry.encode else dict(vars(obj))
            out = {
                "object": name,
                "state": {k: self.value(v, f"{path}.{k}") for k, v in state.items()},
            }
        self.active.discard(id(obj))
        self._remember(obj)
        return out

    def scalar(self, obj, path):
        dtype = dtype_name(obj.dtype)
        value = encode_float_list(np.array([obj]))[0] if obj.dtype.kind == "f" else obj.item()
        return {"scalar": dtype, "value": value}

    def array(self, obj, path):
        dtype = dtype_name(obj.dtype)
        if obj.dtype.kind == "f":
            data = encode_float_list(obj)
        elif obj.dtype == object:
            data = [self.value(v, f"{path}[{i}]") for i, v in enumerate(obj.ravel().tolist())]
            if any(isinstance(v, list) for v in data):
                raise ModelFormatError(f"{path}: an object array cannot hold lists")
        else:
            data = obj.ravel().tolist()
        return {"ndarray": dtype, "shape": list(obj.shape), "data": data}

    def estimator(self, obj, name, path):
        entry = _ESTIMATORS[name]
        params = obj.get_params(deep=False)
        out = {
            "estimator": name,
            "params": {k: self.value(v, f"{path}.{k}") for k, v in sorted(params.items())},
        }
        fitted = {
            k: v
            for k, v in vars(obj).items()
            if k not in params and k not in entry.skip and not k.startswith("__")
        }
        if fitted:
            out["fitted"] = {k: self.value(v, f"{path}.{k}") for k, v in fitted.items()}
        return out


# ---------------------------------------------------------------- decoding


class _Decoder:
    """Tagged JSON values to Python objects, spending each one's cells from ``budget``.

    A fresh array costs its entries; an object of a class registered with
    ``cells`` (a tree) costs them again as the predictor's share, and an
    estimator ``ESTIMATOR_CELLS``. ``uses[n]`` is what the ``n``-th decoded
    value costs at each ``{"ref": n}``: the predictor's cells inside it (so a
    repeated tree or member is paid in full every time, a shared array or
    binning is free).
    """

    def __init__(self, budget: Budget):
        self.table: list = []
        self.uses: list[int] = []
        self.budget = budget
        self.walked = 0  # predictor cells charged so far, references included

    def _walk(self, cells: int, path: str) -> None:
        if cells:
            self.walked += cells
            self.budget.spend(cells, path, "trees and estimators, counted at every use")

    def value(self, data, path: str, depth: int = 0):
        if depth > MAX_DEPTH:
            raise ModelFormatError(f"{path}: values are nested deeper than {MAX_DEPTH}")
        if data is None or type(data) in (bool, int, float, str):
            return data
        if isinstance(data, list):
            return [self.value(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(data)]
        if not isinstance(data, dict) or len(data) == 0:
            raise ModelFormatError(f"{path}: unexpected JSON value")
        tags = set(data)
        if tags == {"float"}:
            return decode_float(data["float"], path)
        if tags == {"ref"}:
            ref = data["ref"]
            if type(ref) is not int or not 0 <= ref < len(self.table):
                raise ModelFormatError(f"{path}: a reference to an object not decoded before it")
            self._walk(self.uses[ref], path)
            return self.table[ref]
        if tags == {"tuple"}:
            items = data["tuple"]
            if not isinstance(items, list):
                raise ModelFormatError(f"{path}: a tuple holds a list")
            return tuple(self.value(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(items))
        if tags == {"dict"}:
            return self.dict(data["dict"], path, depth)
        if tags == {"scalar", "value"}:
            return self.scalar(data, path)
        if tags == {"ndarray", "shape", "data"}:
            shape = data["shape"]
            if isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape):
                self.budget.spend(math.prod(shape), path, "array entries")
            out = decode_array(
                data["ndarray"],
                shape,
                data["data"],
                path,
                lambda v, p: self.value(v, p, depth + 1),
            )
            self.table.append(out)
            self.uses.append(0)
            return out
        before = self.walked
        if tags == {"object", "state"}:
            out = self.object(data, path, depth)
        elif tags in ({"estimator", "params"}, {"estimator", "params", "fitted"}):
            out = self.estimator(data, path, depth)
        else:
            raise ModelFormatError(f"{path}: unknown tag(s) {sorted(tags)[:4]}")
        self.table.append(out)
        self.uses.append(self.walked - before)
        return out

    def dict(self, pairs, path, depth):
        if not isinstance(pairs, list):
            raise ModelFormatError(f"{path}: a dict holds a list of [key, value] pairs")
        out = {}
        for i, pair in enumerate(pairs):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ModelFormatError(f"{path}[{i}]: a [key, value] pair")
            key = self.value(pair[0], f"{path}[{i}].key", depth + 1)
            try:
                hash(key)
            except TypeError:
                raise ModelFormatError(f"{path}[{i}]: a dict key is hashable") from None
            out[key] = self.value(pair[1], f"{path}[{key!r}]", depth + 1)
        return out

    def scalar(self, data, path):
        dtype, value = data["scalar"], data["value"]
        if isinstance(value, (dict, list)):
            raise ModelFormatError(f"{path}: a scalar's value is a number or a string")
        array = decode_array(dtype, [], [value], path, lambda v, p: v)
        if array.dtype == object:
            raise ModelFormatError(f"{path}: a NumPy scalar has a numeric or string dtype")
        return array[()]

    def _state(self, state, path, depth) -> dict:
        if not isinstance(state, dict):
            raise ModelFormatError(f"{path}: attributes are a JSON object")
        return {
            check_name(k, f"{path}.{k}"): self.value(v, f"{path}.{k}", depth + 1)
            for k, v in state.items()
        }

    def object(self, data, path, depth):
        name = data["object"]
        entry = _OBJECTS.get(name) if isinstance(name, str) else None
        if entry is None:
            raise ModelFormatError(f"{path}: {str(name)[:60]!r} is not a registered class")
        state = self._state(data["state"], f"{path}<{name}>", depth)
        if entry.attributes is not None and set(state) != set(entry.attributes):
            missing = sorted(set(entry.attributes) - set(state))
            extra = sorted(set(state) - set(entry.attributes))
            raise ModelFormatError(
                f"{path}: a {name} has the attributes {list(entry.attributes)}; "
                f"missing {missing[:5]}, unexpected {extra[:5]}"
            )
        if entry.decode is not None:
            obj = entry.decode(state, path)
        else:
            _check_attributes(entry.cls, state, path)
            obj = entry.cls.__new__(entry.cls)  # no __init__: nothing runs
            obj.__dict__.update(state)
        if entry.validate is not None:
            entry.validate(obj, path)
        else:
            check_finite(state, path)
        if entry.cells is not None:
            self._walk(entry.cells(obj), path)
        return obj

    def estimator(self, data, path, depth):
        name = data["estimator"]
        if isinstance(name, str) and name not in _ESTIMATORS and name in _REGISTERED_ON_IMPORT:
            _import_registering_module(name)
        entry = _ESTIMATORS.get(name) if isinstance(name, str) else None
        if entry is None:
            raise ModelFormatError(f"{path}: {str(name)[:60]!r} is not a registered estimator")
        path = f"{path}<{name}>"
        self._walk(ESTIMATOR_CELLS, path)  # the fixed work of one predict call
        params = self._state(data["params"], f"{path}.params", depth)
        known = _init_parameters(entry.cls)
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ModelFormatError(f"{path}: unknown parameter(s) {unknown[:5]}")
        # A parameter added after the file was written takes its default.
        params = {k: params.get(k, default) for k, default in known.items()}
        estimator = entry.cls.__new__(entry.cls)  # no __init__: nothing runs
        estimator.__dict__.update(params)
        _check_params(estimator, path)
        if "fitted" in data:
            fitted = self._state(data["fitted"], f"{path}.fitted", depth)
            clash = sorted(set(fitted) & (set(params) | set(entry.skip)))
            if clash:
                raise ModelFormatError(f"{path}: fitted attribute(s) {clash[:5]} are reserved")
            _check_attributes(entry.cls, fitted, path)
            _check_fitted(fitted, path, sklearn_is_classifier(estimator))
            for key, value in fitted.items():
                if key not in entry.non_finite:
                    check_finite(value, f"{path}.{key}")
            estimator.__dict__.update(fitted)
            if entry.rebuild is not None:
                try:
                    entry.rebuild(estimator)
                except ModelFormatError:
                    raise
                except Exception as error:  # the stored state does not fit together
                    raise ModelFormatError(
                        f"{path}: inconsistent fitted state ({type(error).__name__}: "
                        f"{str(error)[:200]})"
                    ) from error
        return estimator


def _init_parameters(cls) -> dict:
    """The constructor's named parameters and their defaults (``*args``/``**kwargs`` aside)."""
    signature = inspect.signature(cls.__init__).parameters
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {k: p.default for k, p in signature.items() if k != "self" and p.kind in named}


# The parameter checks an estimator's ``fit`` runs, by the name mltrees gives
# them; scikit-learn's own estimators check theirs with ``_validate_params``
# against their ``_parameter_constraints``.
_PARAMETER_CHECKS = (
    "_validate_params",
    "_validate_ensemble_params",
    "_check_params",
    "_check_estimators",
    "_check_common",
)


def _check_params(estimator, path: str) -> None:
    """The estimator's own parameter checks (those ``fit`` runs), as format errors."""
    for method in _PARAMETER_CHECKS:
        check = getattr(type(estimator), method, None)
        module = getattr(check, "__module__", "") or ""
        ours = module.startswith("mltrees.")
        theirs = module.startswith("sklearn.") and hasattr(estimator, "_parameter_constraints")
        if check is None or not (ours or theirs):
            continue
        try:
            check(estimator)
        except Exception as error:  # a parameter fit would have refused
            raise ModelFormatError(
                f"{path}.params: {type(error).__name__}: {str(error)[:200]}"
            ) from None


def _check_attributes(cls, state: dict, path: str) -> None:
    """Refuse attributes that would shadow a method or a property of the class."""
    for name in state:
        if _shadows(cls, name):
            raise ModelFormatError(f"{path}: {name!r} would replace a method of {cls.__name__}")


@functools.lru_cache(maxsize=4096)
def _shadows(cls, name: str) -> bool:
    static = inspect.getattr_static(cls, name, None)
    return callable(static) or isinstance(static, (property, staticmethod, classmethod))


def _check_fitted(fitted: dict, path: str, is_classifier: bool = False) -> None:
    """Types and cross-checks of the fitted attributes every estimator shares."""
    from mltrees.tree._data import FeatureSpec
    from mltrees.tree._tree import Tree

    n_features = fitted.get("n_features_in_")
    if n_features is not None and (type(n_features) is not int or n_features < 1):
        raise ModelFormatError(f"{path}.n_features_in_: a positive integer")
    names = fitted.get("feature_names_in_")
    if names is not None and (not isinstance(names, np.ndarray) or names.shape != (n_features,)):
        raise ModelFormatError(f"{path}.feature_names_in_: an array of n_features_in_ names")
    if names is not None and not all(isinstance(name, str) for name in names.tolist()):
        raise ModelFormatError(f"{path}.feature_names_in_: strings")
    classes = fitted.get("classes_")
    if classes is None and is_classifier:
        raise ModelFormatError(f"{path}: a fitted classifier has classes_")
    if classes is not None and (
        not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size < 1
    ):
        raise ModelFormatError(f"{path}.classes_: a non-empty 1-D array")
    specs = fitted.get("_specs")
    if specs is not None:
        if not isinstance(specs, list) or not all(type(s) is FeatureSpec for s in specs):
            raise ModelFormatError(f"{path}._specs: a list of FeatureSpec")
        if n_features is not None and len(specs) != n_features:
            raise ModelFormatError(f"{path}._specs: one FeatureSpec per feature")
    n_classes = fitted.get("n_classes_")
    if n_classes is not None and (classes is None or n_classes != classes.size):
        raise ModelFormatError(f"{path}.n_classes_: the number of classes_")
    tree = fitted.get("tree_")
    if tree is not None:
        if not isinstance(tree, Tree):
            raise ModelFormatError(f"{path}.tree_: a Tree")
        width = len(specs) if specs is not None else n_features
        if width is not None:  # features and surrogate features in range
            check_tree_features(tree, width, f"{path}.tree_")
        if specs is not None:
            _check_tree_specs(tree, specs, f"{path}.tree_")
        if classes is not None and tree.value.shape[1] != classes.size:
            raise ModelFormatError(f"{path}.tree_: one value column per class")
        if classes is not None and (
            ((tree.value < 0) | (tree.value > 1)).any()
            or not np.allclose(tree.value.sum(axis=1), 1.0, rtol=0, atol=1e-9)
        ):
            raise ModelFormatError(f"{path}.tree_: class fractions lie in [0, 1] and sum to 1")
        outputs = fitted.get("n_outputs_")
        if classes is None and outputs is not None and tree.value.shape[1] != outputs:
            raise ModelFormatError(f"{path}.tree_: one value column per output")
    stages = fitted.get("_trees")
    if isinstance(stages, list) and stages and all(_is_oblivious(t) for t in stages):
        stages = None  # oblivious trees: checked against the model's columns on rebuild
    if stages is not None:
        if not isinstance(stages, list) or not all(
            isinstance(s, list) and all(isinstance(t, Tree) for t in s) for s in stages
        ):
            raise ModelFormatError(f"{path}._trees: a list of lists of Tree")
        width = len(specs) if specs is not None else n_features
        for i, stage in enumerate(stages):
            for k, t in enumerate(stage):
                if width is not None:
                    check_tree_features(t, width, f"{path}._trees[{i}][{k}]")
                if specs is not None:
                    _check_tree_specs(t, specs, f"{path}._trees[{i}][{k}]")


def _is_oblivious(tree) -> bool:
    from mltrees.hist.catboost.oblivious import ObliviousTree

    return type(tree) is ObliviousTree


def _check_tree_specs(tree, specs, path: str) -> None:
    """A categorical node tests a categorical feature and routes at most its codes."""
    from mltrees.tree._data import CATEGORICAL
    from mltrees.tree._tree import CATEGORICAL_NODE

    kinds = np.array([s.kind for s in specs])
    codes = np.array([s.n_codes for s in specs])
    internal = np.flatnonzero(tree.feature >= 0)
    at = internal[tree.kind[internal] == CATEGORICAL_NODE]
    if (kinds[tree.feature[at]] != CATEGORICAL).any():
        raise ModelFormatError(f"{path}: a categorical node tests a numeric feature")
    if (tree.n_categories[at] > codes[tree.feature[at]]).any():
        raise ModelFormatError(f"{path}: a routing table is longer than its feature's categories")


# ---------------------------------------------------------------- public API


def to_json(model, *, indent=None) -> str:
    """The model file of a (fitted or unfitted) mltrees estimator, as a JSON string.

    The format is documented in :mod:`mltrees.io.format` and in
    :ref:`ch-model-files`; floats are written with the shortest repr that
    reads back to the same bits, so predictions after :func:`from_json` are
    identical.

    Raises
    ------
    ModelFormatError
        If the model holds an object the format cannot store (e.g. a
        scikit-learn member inside an mltrees ensemble).

    Notes
    -----
    An estimator fitted on a cluster (:mod:`mltrees.dask`) is written as
    ``model.to_local()``, the same fitted model without its client: the
    Dask XGBoost estimators as the single-machine XGBoost estimator they
    extend, the Dask forests as themselves with ``client=None``. Loading
    gives that model; it predicts the same values.
    """
    _ensure_registry()
    if hasattr(model, "to_local"):
        model = model.to_local()  # a cluster's model: saved without its client
    if _registered_name(model, _ESTIMATORS) is None and _registered_name(model, _OBJECTS) is None:
        raise ModelFormatError(
            f"model: {type(model).__name__} is not a registered mltrees estimator"
        )
    from mltrees import __version__

    document = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "mltrees_version": __version__,
        "model": _Encoder().value(model, "model"),
    }
    return json.dumps(document, indent=indent, allow_nan=False)


def _no_constant(token):
    raise ModelFormatError(f"the file contains {token}, which is not standard JSON")


def from_json(text, *, max_bytes: int = DEFAULT_MAX_BYTES, max_cells: int | None = None):
    """The estimator stored in a model file's text (see :func:`to_json`).

    Executes nothing from the file: classes come from the fixed registry,
    arrays are checked (dtype, shape, bounds) before they are built, trees
    are checked for well-formed child links (:func:`validate_tree`), every
    fitted number is finite unless the estimator documents otherwise, and
    each estimator's state is checked as a whole before its prediction
    caches are rebuilt.

    Parameters
    ----------
    text : str or bytes
    max_bytes : int
        Longer text is refused before it is parsed.
    max_cells : int or None
        The most cells (8-byte array entries, a tree counted at every use)
        the model may hold; None: ``max(2**22, 4 * len(text))``, see
        :class:`mltrees.io.format.Budget`. Raise it only for a trusted file.

    Raises
    ------
    ModelFormatError
        For any malformed, inconsistent or oversized content.
    TypeError
        If ``text`` is not a string or bytes.
    """
    _ensure_registry()
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_bytes:
            raise ModelFormatError(f"the file is larger than max_bytes={max_bytes}")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ModelFormatError(f"the file is not UTF-8 text: {error}") from None
    if not isinstance(text, str):
        raise TypeError(f"text must be a str or bytes, got {type(text).__name__}")
    if len(text) > max_bytes:
        raise ModelFormatError(f"the file is larger than max_bytes={max_bytes}")
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except ModelFormatError:
        raise
    except (ValueError, RecursionError) as error:
        raise ModelFormatError(f"not a JSON document: {str(error)[:200]}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"not an mltrees model file (no 'format': {FORMAT_NAME!r})")
    version = document.get("format_version")
    if type(version) is not int or version < 1:
        raise ModelFormatError("format_version must be a positive integer")
    if version > FORMAT_VERSION:
        raise ModelFormatError(
            f"the file has format_version {version}; this mltrees reads up to "
            f"{FORMAT_VERSION}: upgrade mltrees"
        )
    if not isinstance(document.get("mltrees_version", ""), str):
        raise ModelFormatError("mltrees_version must be a string")
    extra = set(document) - {"format", "format_version", "mltrees_version", "model"}
    if extra or "model" not in document:
        raise ModelFormatError("top-level keys are format, format_version, mltrees_version, model")
    try:
        model = _Decoder(Budget(len(text), max_cells)).value(document["model"], "model")
    except RecursionError:
        raise ModelFormatError("values are nested too deeply") from None
    if _registered_name(model, _ESTIMATORS) is None and _registered_name(model, _OBJECTS) is None:
        raise ModelFormatError("model: a registered estimator or object, not a plain value")
    return model


def save_model(model, path) -> None:
    """Write ``model`` to ``path`` as an mltrees model file (UTF-8 JSON, see :func:`to_json`)."""
    text = to_json(model)
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        handle.write(text)


def load_model(path, *, max_bytes: int = DEFAULT_MAX_BYTES, max_cells: int | None = None):
    """Read an estimator from an mltrees model file (see :func:`from_json`).

    A file larger than ``max_bytes`` is refused before it is read; the
    model may hold at most ``max_cells`` cells (default: four per byte of
    the file, at least 2**22).
    """
    path = os.fspath(path)
    if os.path.getsize(path) > max_bytes:
        raise ModelFormatError(f"{path} is larger than max_bytes={max_bytes}")
    with open(path, "rb") as handle:
        data = handle.read(max_bytes + 1)
    return from_json(data, max_bytes=max_bytes, max_cells=max_cells)


# ---------------------------------------------------------------- the registry

_BUILTIN_REGISTERED = False

# Estimators of optional subpackages register themselves when their module is
# imported (it needs dask); a file naming one imports the module first.
_REGISTERED_ON_IMPORT = {
    "DaskRandomForestClassifier": "mltrees.dask.forest",
    "DaskRandomForestRegressor": "mltrees.dask.forest",
}


def _import_registering_module(name: str) -> None:
    import importlib

    try:
        importlib.import_module(_REGISTERED_ON_IMPORT[name])
    except ImportError as error:
        raise ModelFormatError(
            f"the file holds a {name}, which needs {_REGISTERED_ON_IMPORT[name]}: {error}"
        ) from None


def _ensure_registry() -> None:
    """Register mltrees' own classes once, whatever was registered before.

    A flag, not an empty table, says whether they are in: an estimator
    registered before the first save or load (by the user's
    ``register_estimator``, or by an optional subpackage's import) must not
    keep them out.
    """
    global _BUILTIN_REGISTERED
    if not _BUILTIN_REGISTERED:
        _BUILTIN_REGISTERED = True
        from mltrees.io._builtin import register_builtin

        register_builtin()
