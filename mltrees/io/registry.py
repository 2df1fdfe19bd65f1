"""Which classes a model file may name: the registry of :mod:`mltrees.io` (chapter 18).

A model file names classes, never code: :func:`~mltrees.io.from_json` builds
only the classes registered here. An estimator joins with one call of
:func:`register_estimator`; what it stores, which caches it rebuilds and how
it checks a loaded state are its own hooks (class attributes and a method it
defines next to its state), so this module knows no estimator's internals.
The objects inside estimators (trees, losses, rules...) join with
:func:`register_object`. mltrees' own classes are registered once, on the
first save or load (:mod:`mltrees.io._builtin`, called from
:mod:`mltrees.io.serialize`); classes registered by a user before that are
kept beside them.

This module imports nothing from mltrees but the format's name check, so
that every other module of the package may import it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from mltrees.io.format import check_name

__all__ = ["register_estimator", "register_object"]


@dataclass(frozen=True)
class _EstimatorEntry:
    cls: type
    skip: tuple  # fitted attributes not stored (caches), rebuilt by ``rebuild``
    rebuild: Callable | None
    non_finite: tuple  # fitted attributes that may hold NaN or inf


@dataclass(frozen=True)
class _ObjectEntry:
    cls: type
    attributes: tuple | None  # the exact attribute set (None: any identifiers)
    validate: Callable | None
    encode: Callable | None
    decode: Callable | None
    cells: Callable | None  # cells one use of an instance costs the predictor


_ESTIMATORS: dict[str, _EstimatorEntry] = {}
_OBJECTS: dict[str, _ObjectEntry] = {}


def register_estimator(cls, *, skip=None, rebuild=None, non_finite=None, name=None) -> None:
    """Allow estimators of class ``cls`` in model files.

    By default everything comes from the class's own hooks, which a new
    estimator defines next to its state:

    * ``_cache_attributes`` (tuple of str): fitted attributes that are
      caches (e.g. a stacked walk over all trees), not written to the file;
    * ``_rebuild_caches(self)``: called after loading; checks the loaded
      state as a whole (shapes that must agree, indices into other
      attributes) and recomputes the caches;
    * ``_non_finite_attributes`` (tuple of str): fitted attributes that may
      hold NaN or infinity.

    The keyword arguments override them, for classes one cannot edit.

    Parameters
    ----------
    cls : type
        A scikit-learn style estimator: ``__init__`` stores its parameters,
        fitted attributes live in the instance ``__dict__``.
    skip : tuple of str or None
        Fitted attributes that are caches: not written, and rebuilt after
        loading by ``rebuild``. None: ``cls._cache_attributes`` (or none).
    rebuild : callable or None
        ``rebuild(estimator)`` checks the loaded state as a whole and
        recomputes the skipped caches. An exception it raises becomes a
        :class:`~mltrees.io.ModelFormatError`. None:
        ``cls._rebuild_caches`` (or no check).
    non_finite : tuple of str or None
        Fitted attributes that may hold NaN or infinity; every other number
        of the fitted state must be finite. None:
        ``cls._non_finite_attributes`` (or none).
    name : str or None
        The name in files (default: the class name).

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from mltrees.io import from_json, register_estimator, to_json
    >>> class Constant(BaseEstimator):
    ...     _cache_attributes = ("_twice",)
    ...
    ...     def __init__(self, value=1.0):
    ...         self.value = value
    ...
    ...     def fit(self, X=None, y=None):
    ...         self.value_ = float(self.value)
    ...         self._rebuild_caches()
    ...         return self
    ...
    ...     def _rebuild_caches(self):
    ...         self._twice = 2 * self.value_
    >>> register_estimator(Constant)
    >>> from_json(to_json(Constant(3.0).fit()))._twice
    6.0
    """
    skip = getattr(cls, "_cache_attributes", ()) if skip is None else skip
    rebuild = getattr(cls, "_rebuild_caches", None) if rebuild is None else rebuild
    if non_finite is None:
        non_finite = getattr(cls, "_non_finite_attributes", ())
    name = _free_name(name or cls.__name__, cls, _ESTIMATORS)
    _ESTIMATORS[name] = _EstimatorEntry(cls, tuple(skip), rebuild, tuple(non_finite))


def _free_name(name: str, cls: type, table: dict) -> str:
    """A name not yet given to another class (two private ``_Objective`` classes exist)."""
    check_name(name, "name")
    if name in table and table[name].cls is not cls:
        raise ValueError(
            f"{name!r} already names {table[name].cls.__module__}.{table[name].cls.__name__}; "
            "pass name= to register_estimator/register_object"
        )
    return name


def register_object(
    cls, *, attributes=None, validate=None, encode=None, decode=None, cells=None, name=None
):
    """Allow instances of a plain class (tree, loss, rule...) inside model files.

    ``attributes`` is the exact set of instance attributes (dataclasses: their
    fields by default); ``validate(obj, path)`` checks a decoded instance
    (without ``validate``, its numbers must be finite);
    ``encode(obj) -> dict`` and ``decode(state, path) -> obj`` replace the
    default (the instance ``__dict__``) for classes without one.
    ``cells(obj)`` is what one use of an instance costs the predictor, in
    cells of the :class:`~mltrees.io.format.Budget` (trees: their node
    arrays); it is charged again for every ``{"ref": n}`` to it.
    """
    if attributes is None and dataclasses.is_dataclass(cls):
        attributes = tuple(f.name for f in dataclasses.fields(cls))
    name = _free_name(name or cls.__name__, cls, _OBJECTS)
    _OBJECTS[name] = _ObjectEntry(cls, attributes, validate, encode, decode, cells)


def _registered_name(obj, table) -> str | None:
    for name, entry in table.items():
        if type(obj) is entry.cls:
            return name
    return None
