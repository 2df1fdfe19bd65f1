"""Every name a chapter's visible cells import from mltrees is documented on the API page.

A reader who copies a cell into a project should find each imported name in
``book/api.md`` (its index table, which :mod:`test_api_page` ties to the
package's ``__all__``). Hidden cells (``hide-cell``, ``remove-cell``,
``remove-input``) may verify with anything; visible ones use the documented
API. Imports are read with :mod:`ast` from the visible code cells of every page.
"""

from __future__ import annotations

import ast
import importlib
import re
import types
from pathlib import Path

import pytest
from test_book_private_names import DIRECTIVE, HIDDEN_TAGS

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p for p in (ROOT / "book").rglob("*.md") if "_static" not in p.parts)
ROWS = set(re.findall(r"^\|\s*`(mltrees(?:\.\w+)+)`", (ROOT / "book" / "api.md").read_text(), re.M))


def visible_cells(text: str):
    """(line, source) of each visible code cell of a MyST page, options and magics removed."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        directive = DIRECTIVE.match(lines[i])
        if directive and directive.group(2) == "code-cell":
            fence, end = directive.group(1), i + 1
            while end < len(lines) and lines[end].strip() != fence:
                end += 1
            block = lines[i + 1 : end]
            options = [line for line in block if line.startswith(":")]
            if not any(HIDDEN_TAGS.match(line) for line in options):
                body = [line for line in block if not line.startswith((":", "%"))]
                yield i + 2, "\n".join(body)
            i = end + 1
            continue
        i += 1


def imported_names(source: str) -> list[str]:
    """``module.name`` of every ``from mltrees... import name`` in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mltrees":
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def resolve(dotted: str):
    """The object at ``package.module.name``, or None."""
    module, _, name = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def documented(dotted: str) -> bool:
    """The imported object is a submodule, or the object of a row of the API page.

    A name re-exported under several paths is one object with one row
    (``mltrees.CARTClassifier`` is ``mltrees.tree.classes.CARTClassifier``), so
    rows are compared by identity, not by spelling.
    """
    target = resolve(dotted)
    if target is None:
        return False
    if isinstance(target, types.ModuleType):
        return True  # ``from mltrees import losses``: its names have their own rows
    name = dotted.rpartition(".")[2]
    return any(resolve(row) is target for row in ROWS if row.rpartition(".")[2] == name)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_visible_cells_import_documented_names(page):
    undocumented = [
        f"{line}: {dotted}"
        for line, source in visible_cells(page.read_text(encoding="utf-8"))
        for dotted in imported_names(source)
        if not documented(dotted)
    ]
    assert undocumented == []


def test_the_check_finds_an_undocumented_import():
    cell = "```{code-cell} ipython3\nfrom mltrees.tree._grow import grow_tree\n```\n"
    names = [d for _, src in visible_cells(cell) for d in imported_names(src)]
    assert names == ["mltrees.tree._grow.grow_tree"]
    assert not documented(names[0])
    hidden = "```{code-cell} ipython3\n:tags: [hide-cell]\nfrom mltrees.tree._grow import x\n```\n"
    assert list(visible_cells(hidden)) == []
