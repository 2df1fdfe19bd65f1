r"""Docstrings that read as plain text in ``help()`` and still link on the API page.

The sources write references as Sphinx roles (``:eq:`eq-entropy```,
``:func:`~mltrees.tree.export_text```, ``:cite:p:`quinlan1993```), which
``help()`` would show raw. When the package is imported, :func:`plain_docstrings`
rewrites the docstrings of its public objects once, role by role, into text
that reads well in a terminal and that the website's Sphinx hook
(``book/_ext/docstring_links.py``) turns back into links:

* an equation, ``:eq:`eq-entropy```, becomes its label ``eq-entropy``;
* inline mathematics, ``:math:`\alpha```, becomes ``$\alpha$``;
* a citation, ``:cite:p:`quinlan1993```, becomes ``(quinlan1993)``, and
  ``:cite:t:`key``` becomes ``key``;
* a Python object becomes its name: the full dotted name for the names of
  the package (``mltrees.tree.export_text``), the written one otherwise;
* a cross-reference to the book keeps its label (``sec-forest-histogram``).
"""

from __future__ import annotations

import inspect
import re
import sys

__all__ = ["plain", "plain_docstrings"]

# A role, unless it is quoted as a literal (``:eq:`x```), as in this module's docstring.
_ROLE = re.compile(r"(?<!``):(?:py:)?([a-z]+(?::[a-z]+)?):`(~?)([^`]+)`")


def _target(text: str) -> str:
    """The target of ``title <target>`` (Sphinx's explicit-title form), or the text."""
    match = re.fullmatch(r"(.*?)\s*<([^>]+)>", text.strip(), flags=re.DOTALL)
    return match.group(2) if match else text.strip()


def _replace(match: re.Match) -> str:
    role, _tilde, text = match.groups()
    if role == "math":
        return f"${text}$"
    target = _target(text)
    if role == "cite:p":
        return "(" + ", ".join(key.strip() for key in target.split(",")) + ")"
    if role == "cite:t":
        return ", ".join(key.strip() for key in target.split(","))
    if role in ("ref", "numref", "eq"):
        return target
    return target.lstrip("!.")  # func, class, meth, mod, attr, data, obj, exc


_TABLE_BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")


def _padded(match: re.Match) -> str:
    """A role's plain form padded to the role's width: the columns of a table stay put."""
    return _replace(match).ljust(len(match.group(0)))


def plain(text: str | None) -> str | None:
    """``text`` with every Sphinx role replaced by its plain-text form.

    Inside a reStructuredText simple table (between ``=====`` borders) the
    plain form is padded to the role's width, so the columns keep their place.
    """
    if not text or ":" not in text:
        return text
    if "==" not in text:
        return _ROLE.sub(_replace, text)
    lines, in_table = text.split("\n"), False
    for i, line in enumerate(lines):
        # A simple table is a block of lines that starts at a border and ends at a blank line.
        in_table = bool(_TABLE_BORDER.match(line)) or (in_table and bool(line.strip()))
        lines[i] = _ROLE.sub(_padded if in_table else _replace, line)
    return "\n".join(lines)


def _rewrite(obj) -> None:
    try:
        doc = obj.__doc__
        cleaned = plain(doc)
        if cleaned != doc:
            obj.__doc__ = cleaned
    except (AttributeError, TypeError):  # read-only docstrings (builtins, some descriptors)
        pass


def plain_docstrings(prefix: str = "mltrees") -> None:
    """Rewrite the docstrings of every loaded ``prefix`` module, its classes and their members.

    Idempotent; cheap (a regular expression over a few hundred docstrings).
    """
    for name, module in list(sys.modules.items()):
        if module is None or not (name == prefix or name.startswith(prefix + ".")):
            continue
        _rewrite(module)
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) != name:
                continue
            if inspect.isclass(value):
                _rewrite(value)
                for member in vars(value).values():
                    if isinstance(member, staticmethod | classmethod):
                        _rewrite(member)  # keeps its own copy of the docstring
                    function = member.fget if isinstance(member, property) else member
                    function = getattr(function, "__func__", function)  # static/class methods
                    if inspect.isfunction(function):
                        _rewrite(function)
                    elif isinstance(member, property):
                        _rewrite(member)
            elif inspect.isfunction(value):
                _rewrite(value)
