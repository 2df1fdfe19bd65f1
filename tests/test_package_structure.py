"""The package's structure: import cost, no import cycle, private names crossing only at seams.

* ``import mltrees`` loads no estimator and none of scikit-learn, pandas,
  SciPy, matplotlib or Dask (PEP 562 ``__getattr__``), checked in a fresh
  interpreter through ``sys.modules``;
* the import graph of ``mltrees`` has no cycle;
* a module imports a private name of another subpackage only through one of
  the seams listed in ``ARCHITECTURE.md`` (the list below is that list).

The import graph is read from the import statements of every module (with
:mod:`ast`, without importing anything). Imports inside functions count:
they are deferred, so they never fail at import time, but they are still a
dependency of the importing module on the imported one, and a deferred
import is the usual way a cycle is hidden (the adapter tables of
``inspection`` and ``io`` did exactly that). Imports under
``if TYPE_CHECKING:`` do not count (they never run). A statement
``from package import name`` is an edge to ``package.name`` when that is a
module, otherwise to ``package`` (its ``__init__``); the implicit import of
a parent package by its children is not an edge (Python runs the parent
first, and a parent importing its children is not a cycle).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from _fresh_interpreter import run_in_fresh_interpreter

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mltrees"

# ------------------------------------------------------------------ the import graph


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_in(source: str, package: str) -> list[tuple[str, str | None, int]]:
    """``(imported module, imported name or None, line)`` for every mltrees import in ``source``.

    ``package`` is the package that relative imports start from.
    """
    found = []

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node):
            if _is_type_checking(node.test):
                for child in node.orelse:
                    self.visit(child)
            else:
                self.generic_visit(node)

        def visit_Import(self, node):
            for alias in node.names:
                if alias.name.split(".")[0] == "mltrees":
                    found.append((alias.name, None, node.lineno))

        def visit_ImportFrom(self, node):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            if origin.split(".")[0] != "mltrees":
                return
            for alias in node.names:
                if f"{origin}.{alias.name}" in MODULES:
                    found.append((f"{origin}.{alias.name}", None, node.lineno))
                else:
                    found.append((origin, alias.name, node.lineno))

    Visitor().visit(ast.parse(source))
    return found


def imports_of(module: str) -> list[tuple[str, str | None, int]]:
    """The mltrees imports of one module of the package."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package)


def import_graph() -> dict[str, set[str]]:
    return {
        module: {target for target, _, _ in imports_of(module) if target in MODULES}
        for module in MODULES
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, or a self-import (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v):  # the graph is small (about 100 modules): recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle_through_a_deferred_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert sorted(cycles(graph)) == [["a", "b", "c"], ["e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_counts_function_level_imports_and_skips_type_checking():
    source = textwrap.dedent(
        """
        from typing import TYPE_CHECKING

        from mltrees.tree import _tree
        from .classes import _BaseTree

        if TYPE_CHECKING:
            from mltrees.ensemble import xgboost

        def f():
            import mltrees.io.format
            from mltrees.ensemble.bagging import _BaseBagging
        """
    )
    assert sorted(imports_in(source, "mltrees.tree")) == [
        ("mltrees.ensemble.bagging", "_BaseBagging", 12),
        ("mltrees.io.format", None, 11),
        ("mltrees.tree._tree", None, 4),
        ("mltrees.tree.classes", "_BaseTree", 5),
    ]


def test_no_import_cycle_in_the_package():
    assert cycles(import_graph()) == []


# ------------------------------------------------------------------ the seams

# A module may import a private name (``_name``, or any name of a ``_module``)
# of another subpackage only through these seams; ARCHITECTURE.md explains
# each. Root modules whose name starts with ``_`` (``mltrees._validation``,
# ``mltrees._frames``...) are the package's shared helpers and not a seam.
# Keys: (importing subpackage, or one importing module, or "*";
# imported module, or a prefix ending in ".*"). Values: why.
SEAMS = {
    ("*", "mltrees.tree._tree"): "Tree, the flat arrays every learner builds, and its node codes",
    ("*", "mltrees.tree._data"): "the tree engine's input checks and feature binning (FeatureSpec)",
    ("ensemble", "mltrees.tree._split"): "the node statistics that ensembles of trees reuse",
    ("dask", "mltrees.ensemble.xgboost"): "the distributed XGBoost subclasses the local one",
    ("dask", "mltrees.ensemble._common"): "the local ensembles' target checks, shared",
    ("dask", "mltrees.ensemble.catboost"): "the Dask oblivious boosting subclasses the local one",
    ("dask", "mltrees.ensemble.lightgbm"): "the Dask LightGBM subclasses the local one",
    ("mltrees.io._builtin", "mltrees.*"): "the format's allow-list names every class a file holds",
    ("mltrees.io.importers", "mltrees.ensemble._walk"): "imported models predict with the walk",
    ("*", "mltrees.tree._drawable"): "what the estimators' _drawable_tree hooks share",
}


def _subpackage(module: str) -> str:
    """``tree`` for ``mltrees.tree`` and ``mltrees.tree.classes``; "" for a root module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else ""


def private_crossings() -> list[tuple[str, str, str | None, int]]:
    """Imports of another subpackage's private module or private name."""
    out = []
    for module in MODULES:
        own = _subpackage(module)
        for target, name, line in imports_of(module):
            theirs = _subpackage(target)
            if not theirs or theirs == own:
                continue  # a root module, or the same subpackage
            private_module = any(part.startswith("_") for part in target.split(".")[1:])
            private_name = name is not None and name.startswith("_") and not name.startswith("__")
            if private_module or private_name:
                out.append((module, target, name, line))
    return out


def _matches(seam: tuple[str, str], module: str, target: str) -> bool:
    importer, imported = seam
    if importer not in ("*", _subpackage(module), module):
        return False
    return imported == target or (imported.endswith(".*") and target.startswith(imported[:-1]))


def _allowed(module: str, target: str) -> bool:
    return any(_matches(seam, module, target) for seam in SEAMS)


def test_private_names_cross_subpackages_only_at_the_listed_seams():
    outside = [
        f"{module}:{line} imports {target}{'.' + name if name else ''}"
        for module, target, name, line in private_crossings()
        if not _allowed(module, target)
    ]
    assert outside == []


def test_every_listed_seam_is_used_and_documented():
    used = {
        seam
        for module, target, _, _ in private_crossings()
        for seam in SEAMS
        if _matches(seam, module, target)
    }
    assert set(SEAMS) - used == set(), "a seam nobody uses any more: remove it from the list"
    architecture = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for importer, imported in SEAMS:
        row = f"| `{importer}` | `{imported}` |"
        assert row in architecture, f"ARCHITECTURE.md's list of seams lacks {row}"


# ------------------------------------------------------------------ import cost

HEAVY = ("sklearn", "pandas", "scipy", "matplotlib", "dask")


def _fresh(code: str) -> str:
    return run_in_fresh_interpreter(code).strip()


def test_import_mltrees_loads_no_heavy_dependency_and_no_estimator():
    out = _fresh(
        f"""
        import sys
        import mltrees
        heavy = [m for m in {HEAVY!r} if m in sys.modules]
        loaded = sorted(m for m in sys.modules if m.startswith("mltrees."))
        print(heavy, loaded)
        """
    )
    assert out == "[] []"


def test_public_names_load_on_first_access():
    out = _fresh(
        """
        import sys
        import mltrees
        from mltrees import CARTClassifier
        assert "mltrees.tree.classes" in sys.modules
        assert mltrees.CARTClassifier is CARTClassifier
        assert mltrees.inspection.tree_shap.__module__ == "mltrees.inspection.treeshap"
        assert set(mltrees.__all__) <= set(dir(mltrees))
        missing = [name for name in mltrees.__all__ if getattr(mltrees, name, None) is None]
        assert missing == [], missing
        try:
            mltrees.no_such_name
        except AttributeError as error:
            assert "no_such_name" in str(error)
        else:
            raise AssertionError("an unknown name must raise AttributeError")
        print("ok")
        """
    )
    assert out == "ok"


def test_the_information_measures_load_no_heavy_dependency():
    out = _fresh(
        f"""
        import sys
        import mltrees
        mltrees.entropy([0.5, 0.5])
        mltrees.mutual_information([[0.1, 0.2], [0.3, 0.4]])
        mltrees.contingency_table([0, 0, 1, 1], [0, 1, 1, 1])
        mltrees.gini([0.5, 0.5])
        print([m for m in {HEAVY!r} if m in sys.modules])
        """
    )
    assert out == "[]"


@pytest.mark.parametrize("name", ["CARTClassifier", "XGBoostRegressor", "inspection", "losses"])
def test_from_mltrees_import_works_for_lazy_names(name):
    out = _fresh(f"from mltrees import {name}; print(type({name}).__name__)")
    assert out in ("type", "ABCMeta", "module")
