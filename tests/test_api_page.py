"""The API page lists every public name, each next to the equation or section it implements.

Public names: everything in ``mltrees.__all__`` and in the ``__all__`` of every
module of the package whose dotted path has no component starting with an
underscore (``mltrees.tree``, ``mltrees.tree.pruning``, ``mltrees.hist.lightgbm.goss``,
``mltrees.inspection``, ``mltrees.io``, ``mltrees.datasets``, ...). A module
states what it exports in ``__all__``; a private module (``mltrees.tree._grow``)
exports nothing to users. ``mltrees.hist`` has no ``__all__`` of its own, so
its stage modules count one by one. A name re-exported under several paths
(``mltrees.CARTClassifier`` is ``mltrees.tree.classes.CARTClassifier``) is one
object and needs one row, under any of its paths. Submodules themselves
(``mltrees.inspection``) and ``__version__`` are not rows.

The rows are the tables of the index section of ``book/api.md``: one line
``| `dotted.name` | {eq}`eq-label` | {numref}`ch-label` |`` per object. A
class or function must have an equation or section reference on its row; a
docstring that names book equations must be matched by one of them on the
row; every label used must exist in the book.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import mltrees

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "api.md"

ROW = re.compile(r"^\|\s*`(mltrees(?:\.\w+)+)`\s*\|(.*)$")
REFERENCE = re.compile(r"\{(eq|ref|numref)\}`(?:[^`<]*<)?([A-Za-z0-9_-]+)>?`")
DOC_EQUATION = re.compile(r"eq-[a-z0-9-]+")


def public_modules() -> list[str]:
    """Every public module, without the deprecated old paths of moved modules."""
    from mltrees.hist._moved import MOVED

    old_paths = {f"mltrees.hist.{old}" for old in MOVED}
    names = ["mltrees"]
    for info in pkgutil.walk_packages(mltrees.__path__, "mltrees."):
        private = any(part.startswith("_") for part in info.name.split("."))
        if not private and info.name not in old_paths:
            names.append(info.name)
    return names


def public_objects() -> dict:
    """{key: (object, [public dotted paths])}, one entry per object."""
    found: dict = {}
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", None) or []:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or name == "__version__":
                continue
            # classes and functions are one object under many paths; constants are per path
            key = id(obj) if inspect.isclass(obj) or inspect.isroutine(obj) else (module_name, name)
            found.setdefault(key, (obj, []))[1].append(f"{module_name}.{name}")
    return found


def index_rows(text: str) -> dict[str, str]:
    """{dotted name: rest of its table row} for every row of the page."""
    rows = {}
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def missing_names(text: str, objects: dict) -> list[str]:
    rows = index_rows(text)
    return sorted(
        min(paths, key=len)
        for _, paths in objects.values()
        if not any(path in rows for path in paths)
    )


def book_labels() -> set[str]:
    labels = set()
    for path in (ROOT / "book").rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        labels.update(re.findall(r"^\(([A-Za-z0-9_-]+)\)=", text, re.MULTILINE))
        labels.update(re.findall(r"\((eq-[a-z0-9-]+)\)\s*$", text, re.MULTILINE))
        labels.update(re.findall(r"^:label:\s*(eq-[a-z0-9-]+)", text, re.MULTILINE))
    return labels


@pytest.fixture(scope="module")
def page() -> str:
    return API.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def objects() -> dict:
    return public_objects()


def test_public_names_are_found(objects):
    paths = {path for _, names in objects.values() for path in names}
    # one name from each kind of module the rule must reach
    for expected in (
        "mltrees.entropy",
        "mltrees.tree.pruning.prune_pessimistic",
        "mltrees.hist.lightgbm.goss.goss_sample",
        "mltrees.inspection.tree_shap",
        "mltrees.io.validate_tree",
        "mltrees.datasets.load_adult",
    ):
        assert expected in paths
    assert not any("._" in path for path in paths)


def test_a_missing_row_is_reported(page, objects):
    lines = [line for line in page.splitlines() if not line.startswith("| `mltrees.entropy` ")]
    assert missing_names("\n".join(lines), objects) == ["mltrees.entropy"]


def test_every_public_name_is_listed(page, objects):
    assert missing_names(page, objects) == []


def test_every_row_names_a_public_object(page, objects):
    paths = {path for _, names in objects.values() for path in names}
    stale = sorted(set(index_rows(page)) - paths)
    assert stale == [], f"rows for names that are not public (any more): {stale}"


def test_every_class_and_function_has_a_reference(page, objects):
    rows = index_rows(page)
    bare = []
    for obj, paths in objects.values():
        if not (inspect.isclass(obj) or inspect.isroutine(obj)):
            continue
        for path in paths:
            if path in rows and not REFERENCE.search(rows[path]):
                bare.append(path)
    assert bare == [], f"rows without an {{eq}}, {{ref}} or {{numref}} reference: {bare}"


def test_row_equation_is_one_the_docstring_names(page, objects):
    """A docstring naming book equations and a row citing another one disagree."""
    rows = index_rows(page)
    labels = book_labels()
    disagree = []
    for obj, paths in objects.values():
        if not (inspect.isclass(obj) or inspect.isroutine(obj)):
            continue
        documented = set(DOC_EQUATION.findall(inspect.getdoc(obj) or "")) & labels
        for path in paths:
            if path not in rows or not documented:
                continue
            cited = {label for kind, label in REFERENCE.findall(rows[path]) if kind == "eq"}
            if not cited & documented:
                disagree.append(f"{path}: row {sorted(cited)}, docstring {sorted(documented)}")
    assert disagree == []


def test_every_reference_exists(page):
    labels = book_labels()
    unknown = sorted(
        {label for row in index_rows(page).values() for _, label in REFERENCE.findall(row)} - labels
    )
    assert unknown == [], f"labels not defined in the book: {unknown}"
