"""No private name of mltrees in the reader-facing parts of the book (issue 34, section 4).

A chapter speaks about the algorithm, not about the package's wiring: its prose
and its visible executed cells use the public API only. Exempt are source
listings (``literalinclude`` and ``code-block`` directives, whose captions name
the algorithm), collapsed dropdowns, and code cells tagged ``hide-cell``,
``remove-cell`` or ``remove-input``, where verification that needs internals
may live.

The check is mechanical. In a visible code cell it flags an import of a private
module or name (``from mltrees.tree._split import ...``, ``import _x``), a
dotted path with a private segment (``mltrees.tree._data``) and any access to a
private attribute (``model._specs``, ``cls._criteria``); dunders such as
``__version__`` are public. In the prose it flags inline code that names a
private identifier (```_grow```, ```Tree._route```) or a module file
(```mltrees/tree/_grow.py```).

``CHECKED`` is every page of the book: a new chapter is checked from its first
commit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Every page of the book (the fonts' README under _static is not a page).
CHECKED = sorted(
    path.relative_to(ROOT).as_posix()
    for path in (ROOT / "book").rglob("*.md")
    if "_static" not in path.parts
)

DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\s*\{([\w-]+)\}")
PLAIN_FENCE = re.compile(r"^(`{3,}|~{3,})")
HIDDEN_TAGS = re.compile(r"^:tags:.*\b(hide-cell|remove-cell|remove-input)\b")
EXEMPT_DIRECTIVES = {"literalinclude", "code-block", "dropdown"}

PRIVATE_IN_CODE = re.compile(
    r"\bmltrees(?:\.\w+)*\._(?!_)\w+"  # a private module or name on a dotted path
    r"|\bimport\s+_\w+"  # from mltrees.x import _private
    r"|\b\w+\._(?!_)[A-Za-z]\w*"  # a private attribute: model._specs
    r"|\bmltrees/[\w/]+\.py"  # a module file
)
PRIVATE_IN_PROSE = re.compile(
    r"`[^`\n]*(?:(?<![\w.])_[A-Za-z]\w*|\._[A-Za-z]\w*|mltrees/[\w/]+\.py)[^`\n]*`"
)


def visible_lines(text: str) -> list[tuple[str, int, str]]:
    """(kind, line number, line) of the prose and of the visible code cells."""
    lines = text.splitlines()
    visible, i = [], 0
    while i < len(lines):
        directive = DIRECTIVE.match(lines[i])
        plain = None if directive else PLAIN_FENCE.match(lines[i])
        if directive or plain:
            fence = (directive or plain).group(1)
            end = i + 1
            while end < len(lines) and lines[end].strip() != fence:
                end += 1
            block = lines[i + 1 : end]
            name = directive.group(2) if directive else None
            if name == "code-cell":
                options = [line for line in block if line.startswith(":")]
                if not any(HIDDEN_TAGS.match(line) for line in options):
                    visible += [("code", i + 2 + k, line) for k, line in enumerate(block)]
            elif name is not None and name not in EXEMPT_DIRECTIVES:
                # admonitions, list-tables, figures: their body is prose
                visible += [("prose", i + 2 + k, line) for k, line in enumerate(block)]
            i = end + 1
            continue
        visible.append(("prose", i + 1, lines[i]))
        i += 1
    return visible


def private_names(text: str) -> list[str]:
    """Every private name in the visible parts of a MyST page, as 'line: name'."""
    found = []
    for kind, number, line in visible_lines(text):
        pattern = PRIVATE_IN_CODE if kind == "code" else PRIVATE_IN_PROSE
        found += [f"{number}: {match.group(0)}" for match in pattern.finditer(line)]
    return found


@pytest.mark.parametrize("page", CHECKED)
def test_no_private_names_in_reader_facing_parts(page):
    assert private_names((ROOT / page).read_text(encoding="utf-8")) == []


CELL = "```{{code-cell}} ipython3\n{options}{body}\n```\n"


@pytest.mark.parametrize(
    "body",
    [
        "from mltrees.tree._split import SplitRules",
        "from mltrees.tree import _select",
        "values = model._values(X)",
        "print(cls._criteria)",
        "import mltrees.tree._data as data",
    ],
)
def test_checker_flags_private_code(body):
    assert private_names(CELL.format(options="", body=body))


@pytest.mark.parametrize(
    "body",
    [
        'print("mltrees", mltrees.__version__)',
        "from mltrees.tree.pruning import prune_collapse",
        "tree = model.tree_",
    ],
)
def test_checker_accepts_public_code(body):
    assert private_names(CELL.format(options="", body=body)) == []


def test_checker_exempts_hidden_cells_listings_and_dropdowns():
    hidden = CELL.format(options=":tags: [hide-cell]\n\n", body="from mltrees.tree._split import x")
    listing = "```{literalinclude} ../../mltrees/tree/_grow.py\n:pyobject: _splittable\n```\n"
    dropdown = "````{dropdown} Wiring\nThe `_grow` method.\n````\n"
    assert private_names(hidden + listing + dropdown) == []


@pytest.mark.parametrize(
    "prose",
    [
        "The engine is `grow_tree` in `mltrees/tree/_grow.py`.",
        "`_grow` turns them into configuration objects.",
        "The helpers `_xlogx` never evaluate the logarithm of zero.",
        "It calls `Tree._route_categories`.",
    ],
)
def test_checker_flags_private_prose(prose):
    assert private_names(prose + "\n")


def test_checker_accepts_public_prose():
    prose = "Fit `CARTClassifier(ccp_alpha=0.01)` and read `tree_.route_table` and `__version__`.\n"
    assert private_names(prose) == []
