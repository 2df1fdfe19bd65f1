"""Every source listing of the book still finds the code it quotes.

A ``literalinclude`` with ``:pyobject:``, ``:start-at:``, ``:end-at:``,
``:start-after:`` or ``:end-before:`` breaks silently when the package's code
moves, and only the book build (with warnings as errors) would notice. This
check reads the chapters' sources and the package's files directly.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LISTING = re.compile(r"```\{literalinclude\} (\S+)\n((?::[a-z-]+:.*\n)*)")
OPTION = re.compile(r":([a-z-]+):[ \t]*(.*)")
CHAPTERS = sorted(
    p
    for p in (ROOT / "book").rglob("*.md")
    if "_build" not in p.parts and not p.name.startswith("_")  # _chapter_template.md
)


def _listings():
    for chapter in CHAPTERS:
        for match in LISTING.finditer(chapter.read_text(encoding="utf-8")):
            options = {k: v.strip().strip('"') for k, v in OPTION.findall(match[2])}
            yield pytest.param(chapter, match[1], options, id=f"{chapter.stem}:{match[1]}")


def _object_source(source: str, dotted: str) -> str | None:
    node = ast.parse(source)
    for name in dotted.split("."):
        found = [n for n in ast.iter_child_nodes(node) if getattr(n, "name", None) == name]
        if not found:
            return None
        node = found[0]
    return ast.get_source_segment(source, node)


@pytest.mark.parametrize(("chapter", "target", "options"), list(_listings()))
def test_listing_finds_its_code(chapter, target, options):
    path = (chapter.parent / target).resolve()
    assert path.is_file(), f"{chapter.name}: {target} does not exist"
    source = path.read_text(encoding="utf-8")
    if "pyobject" in options:
        source = _object_source(source, options["pyobject"])
        assert source is not None, f"{chapter.name}: no {options['pyobject']} in {target}"
    for key in ("start-at", "end-at", "start-after", "end-before"):
        if key in options:
            assert options[key] in source, f"{chapter.name}: {key} {options[key]!r} not in {target}"
