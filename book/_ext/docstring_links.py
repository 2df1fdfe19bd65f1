"""Links in the API page for docstrings that ``help()`` shows as plain text.

``mltrees._docstrings`` rewrites the package's docstrings at import, so that
``help()`` shows no Sphinx roles: an equation becomes its label
(``eq-entropy``), inline mathematics ``$...$``, a citation
``(quinlan1993)``, an object of the package its dotted name
(``mltrees.tree.export_text``), a book section its label
(``sec-forest-histogram``). When autodoc reads those docstrings for the API
page, this hook turns the same plain forms back into roles, so the page keeps
its equation numbers, citations and cross-references. Literals (````...````)
and doctest lines are left alone.
"""

from __future__ import annotations

import re
from pathlib import Path

_BIB = Path(__file__).resolve().parents[1] / "references.bib"
_LITERAL = re.compile(r"(``.*?``)")
_EQUATION = re.compile(r"(?<![\w`:-])(eq-[a-z0-9]+(?:-[a-z0-9]+)*)(?![\w`-])")
_SECTION = re.compile(r"(?<![\w`:-])((?:sec|ch)-[a-z0-9]+(?:-[a-z0-9]+)*)(?![\w`-])")
_OBJECT = re.compile(r"(?<![\w.`:~])(mltrees(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?![\w`])")
_MATH = re.compile(r"\$([^$\n]+)\$")
# A name ending in "_" (an attribute such as feature_importances_) would be a
# hyperlink reference in reStructuredText: it becomes a literal.
_TRAILING_UNDERSCORE = re.compile(r"(?<![\w`.])([A-Za-z][A-Za-z0-9_]*_)(?![\w`])")
_TABLE_BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")
_CITATION = re.compile(r"\(([a-z][a-z0-9]*\d{4}[a-z]?(?:,\s*[a-z][a-z0-9]*\d{4}[a-z]?)*)\)")


def _bib_keys() -> set[str]:
    text = _BIB.read_text(encoding="utf-8")
    return set(re.findall(r"@\w+\{([^,\s]+),", text))


def _link(text: str, keys: set[str]) -> str:
    def citation(match: re.Match) -> str:
        cited = [key.strip() for key in match.group(1).split(",")]
        if all(key in keys for key in cited):
            return ":cite:p:`" + ",".join(cited) + "`"
        return match.group(0)

    text = _MATH.sub(lambda m: f":math:`{m.group(1)}`", text)
    text = _EQUATION.sub(r":eq:`\1`", text)
    text = _SECTION.sub(r":ref:`\1`", text)
    text = _OBJECT.sub(lambda m: f":py:obj:`{m.group(1).rstrip('.')}`", text)
    text = _TRAILING_UNDERSCORE.sub(r"``\1``", text)
    return _CITATION.sub(citation, text)


def _process(app, what, name, obj, options, lines) -> None:
    keys = app.env.mltrees_bib_keys
    in_example = in_table = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        # A simple table (a block from a border to a blank line) keeps its widths.
        in_table = bool(_TABLE_BORDER.match(line)) or (in_table and bool(stripped))
        if in_table:
            continue
        if stripped.startswith((">>>", "...")):
            in_example = True
            continue
        if in_example and stripped:
            continue  # the expected output of a doctest
        in_example = False
        parts = _LITERAL.split(line)
        lines[i] = "".join(p if p.startswith("``") else _link(p, keys) for p in parts)


def _load_keys(app, env, docnames) -> None:
    env.mltrees_bib_keys = _bib_keys()


def setup(app):
    """Register the hook with Sphinx."""
    app.connect("env-before-read-docs", _load_keys)
    app.connect("autodoc-process-docstring", _process)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
