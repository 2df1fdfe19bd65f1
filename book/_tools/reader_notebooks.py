"""Reader notebooks: the chapters as they read in JupyterLab, markup resolved.

    python book/_tools/reader_notebooks.py [--out _build/reader]

JupyterLab with jupyterlab-myst renders a chapter's MyST markup within one
notebook only: it cannot number an equation as the book does, follow a
reference into another chapter, format a citation from the ``.bib`` file, or
read the package's source for a ``{literalinclude}``. This script writes a
copy of every executed chapter, and of the introduction, glossary and
references, under ``_build/reader/`` (the layout of ``book/``) in which:

* every ``{literalinclude}`` is the listing itself, a fenced code block cut
  from the source as Sphinx cuts it (``:pyobject:`` found with ``ast``, then
  ``:start-at:``/``:start-after:``/``:end-at:``/``:end-before:``/``:lines:``
  and ``:dedent:``), under a line naming the file, linked;
* numbered equations carry the website's numbers (``\\tag{3.4}``) and every
  ``{eq}`` reads ``(3.4)``; sections are numbered in their headings, and
  ``{numref}``/``{ref}``/``{doc}`` read as on the website;
* references into another chapter are links to that chapter's reader
  notebook (JupyterLab opens it in a new tab), within a chapter to the anchor;
* ``{cite:t}``/``{cite:p}`` read "Quinlan [1986]" / "(Quinlan, 1986)", as on
  the website, linked to a list of the works cited at the end of the notebook,
  formatted from ``book/references.bib`` by pybtex in the website's ``plain``
  style;
* ``{term}`` links to the glossary and the Python roles become code.

The numbering is computed from ``_toc.yml`` the way Sphinx numbers the site
(multitoc numbering: chapters 1, 2, ... across parts, a chapter's sections
8.1, 8.2, ...; equations and tables counted per chapter, 3.1, 3.2, ...);
``tests/test_reader_notebooks.py`` compares it, the listings and the citations
with the built website, and ``tests/test_jupyterlab.py`` opens a chapter in
JupyterLab. The copies
keep the executed outputs, so a chapter reads at once and runs as it is
(the kernel starts in the chapter's folder; chapters read only installed
packages). They are generated, never edited nor committed: ``make reader``
(or ``make lab``) writes them again from the chapters.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import re
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "_build" / "reader"
BIBLIOGRAPHY = ROOT / "book" / "references.bib"
# Sphinx's numfig defaults (Jupyter Book keeps them) and the book's _config.yml.
NUMREF_FORMAT = {"section": "Section %s", "table": "Table %s", "equation": "(%s)"}
# Pages that are not chapters but that chapters refer to; the API page is
# autodoc output, which only the website shows.
EXTRA_PAGES = ("book/intro", "book/glossary", "book/references")
WEBSITE_ONLY = {"book/api"}
PYTHON_ROLES = {"func", "class", "mod", "meth", "attr", "data", "obj", "exc"}

ROLE = re.compile(r"\{(?P<name>[a-z]+(?::[a-z]+)?)\}$")
LABEL_LINE = re.compile(r"^\s*\((?P<label>[A-Za-z0-9_.:-]+)\)=\s*$")
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
EQUATION_END = re.compile(r"^(?P<indent>\s*)\$\$\s*\((?P<label>[A-Za-z0-9_.:-]+)\)\s*$")


class ReaderError(ValueError):
    """The chapters hold markup that the reader notebooks cannot resolve."""


@dataclass
class Target:
    """Something a reference can point to: a document, a section, an equation, a table."""

    kind: str  # "doc", "section", "equation" or "table"
    doc: str  # the docname, e.g. "book/part2_trees/03_splitting"
    number: tuple[int, ...] | None
    title: str
    anchor: str

    @property
    def number_text(self) -> str:
        return ".".join(map(str, self.number or ()))


# ---------------------------------------------------------------------------
# The documents and their numbers
# ---------------------------------------------------------------------------


def toc_documents() -> list[tuple[str, tuple[int, ...] | None]]:
    """Every document of ``_toc.yml`` in reading order, with its number (None: unnumbered).

    Numbered parts are numbered continuously (``use_multitoc_numbering``):
    a chapter is ``(k,)``, a section file under it ``(k, j)``.
    """
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    documents = [(toc["root"], None)]
    chapter = 0
    for part in toc.get("parts", []):
        numbered = bool(part.get("numbered"))
        for entry in part.get("chapters", []):
            if numbered:
                chapter += 1
            documents.append((entry["file"], (chapter,) if numbered else None))
            for j, section in enumerate(entry.get("sections", []), start=1):
                documents.append((section["file"], (chapter, j) if numbered else None))
    return documents


def source_path(docname: str) -> Path:
    return ROOT / f"{docname}.md"


def read_notebook(docname: str):
    """The executed notebook of a chapter, or a MyST page read as a notebook."""
    executed = ROOT / f"{docname}.ipynb"
    if executed.exists():
        return nbformat.read(executed, as_version=4)
    return jupytext.read(source_path(docname), fmt="md:myst")


def markdown_cells(notebook) -> list[str]:
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


def collect_targets(documents) -> dict[str, Target]:
    """Every label of the book, numbered as the website numbers it.

    The same walk as the rewriting (:class:`Chapter`), in collecting mode, so
    that a number is counted once and shown the same everywhere.
    """
    targets: dict[str, Target] = {}
    counters: dict[tuple[str, tuple[int, ...]], int] = {}
    for docname, number in documents:
        chapter = Chapter(docname, number, targets, None, DEFAULT_OUT, counters=counters)
        for source in markdown_cells(read_notebook(docname)):
            chapter.markdown(source)
        chapter.close_labels()
    return targets


def _number_prefix(number) -> str:
    return f"{'.'.join(map(str, number))} " if number else ""


def fence_match(line: str):
    """The opening of a fenced block, as CommonMark reads it: after a backtick fence the
    info string may not hold a backtick (then the line is text, and so on the website)."""
    fenced = FENCE.match(line)
    if fenced and fenced["fence"][0] == "`" and "`" in fenced["info"]:
        return None
    return fenced


@dataclass
class _Directive:
    options: dict[str, str]
    body: list[str]
    end: int  # index of the closing fence line


def _directive_body(lines: list[str], start: int, fence: str) -> _Directive:
    options: dict[str, str] = {}
    body: list[str] = []
    end = start + 1
    in_options = True
    while end < len(lines) and lines[end].strip() != fence:
        line = lines[end]
        option = re.match(r"^\s*:(?P<key>[a-z-]+):\s*(?P<value>.*)$", line)
        if in_options and option:
            value = option["value"].strip()
            if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
                value = yaml.safe_load(value)  # MyST reads option values as YAML
            options[option["key"]] = value
        else:
            in_options = False
            body.append(line)
        end += 1
    if end == len(lines):
        raise ReaderError(f"unclosed {fence} fence: {lines[start]!r}")
    return _Directive(options, body, end)


# ---------------------------------------------------------------------------
# Listings: {literalinclude} cut as Sphinx cuts it
# ---------------------------------------------------------------------------


def python_object_lines(source: str, name: str, path: Path) -> tuple[int, int]:
    """First and last line (1-based, decorators included) of ``name`` (``Class.method``)."""
    scope = ast.parse(source).body
    node = None
    for part in name.split("."):
        node = next(
            (
                child
                for child in scope
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and child.name == part
            ),
            None,
        )
        if node is None:
            raise ReaderError(f"{path}: no object {name!r} for :pyobject:")
        scope = node.body
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno


def listing(path: Path, options: dict[str, str]) -> str:
    """The text a ``{literalinclude}`` with these options shows."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    if "pyobject" in options:
        first, last = python_object_lines(source, options["pyobject"], path)
        lines = lines[first - 1 : last]
    for key in ("start-at", "start-after"):
        if key in options:
            found = next((i for i, line in enumerate(lines) if options[key] in line), None)
            if found is None:
                raise ReaderError(f"{path}: {options[key]!r} of :{key}: not found")
            lines = lines[found + (key == "start-after") :]
    for key in ("end-at", "end-before"):
        if key in options:
            found = next((i for i, line in enumerate(lines) if options[key] in line), None)
            if found is None:
                raise ReaderError(f"{path}: {options[key]!r} of :{key}: not found")
            lines = lines[: found + (key == "end-at")]
    if "lines" in options:
        picked = []
        for span in options["lines"].split(","):
            low, _, high = span.strip().partition("-")
            picked += lines[int(low) - 1 : int(high or low)]
        lines = picked
    if "dedent" in options:
        if options["dedent"]:
            width = int(options["dedent"])
            lines = [line[width:] for line in lines]
        else:
            lines = textwrap.dedent("\n".join(lines)).splitlines()
    unknown = set(options) - {
        "pyobject",
        "start-at",
        "start-after",
        "end-at",
        "end-before",
        "lines",
        "dedent",
        "language",
        "caption",
        "linenos",
        "lineno-match",
        "emphasize-lines",
    }
    if unknown:
        raise ReaderError(f"{path}: unsupported literalinclude options {sorted(unknown)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Citations from the .bib file
# ---------------------------------------------------------------------------


class Bibliography:
    """Author-year labels and ``plain``-style entries, as sphinxcontrib-bibtex renders them."""

    def __init__(self, path: Path = BIBLIOGRAPHY):
        from pybtex.database import parse_file
        from pybtex.plugin import find_plugin

        self.data = parse_file(str(path))
        style = find_plugin("pybtex.style.formatting", "plain")()
        self.entries = {
            entry.key: " ".join(entry.text.render_as("markdown").split())
            for entry in style.format_entries(self.data.entries.values())
        }

    def _entry(self, key: str):
        if key not in self.data.entries:
            raise ReaderError(f"citation {key!r} is not in {BIBLIOGRAPHY.name}")
        return self.data.entries[key]

    def authors(self, key: str) -> str:
        entry = self._entry(key)
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        # The "von" part belongs to the name as the website prints it
        # ("van der Laan et al."), as sphinxcontrib-bibtex's author-year style does.
        names = [" ".join(person.prelast_names + person.last_names) for person in people]
        names = [_latex_to_text(name) for name in names]
        if not names:
            return _latex_to_text(entry.fields.get("organization", key))
        if len(names) == 1:
            return names[0]
        if len(names) == 2:
            return f"{names[0]} and {names[1]}"
        return f"{names[0]} et al."

    def year(self, key: str) -> str:
        return self._entry(key).fields.get("year", "n.d.")

    def anchor(self, key: str) -> str:
        return f"cite-{key}"


def _latex_to_text(text: str) -> str:
    """BibTeX's LaTeX accents as characters (Gavald{\\`a}: Gavaldà), braces dropped."""
    import codecs

    import latexcodec  # noqa: F401 (registers the "ulatex" codec; a pybtex dependency)

    return codecs.decode(text, "ulatex").replace("{", "").replace("}", "")


# ---------------------------------------------------------------------------
# Rewriting a markdown cell
# ---------------------------------------------------------------------------


class Chapter:
    """Rewrites the markdown of one document for its reader notebook."""

    def __init__(self, docname, number, targets, bibliography, out: Path, counters=None):
        self.docname = docname
        self.number = number
        self.targets = targets
        self.bibliography = bibliography
        self.out = out
        # collecting: the first pass, which numbers and registers the targets
        self.counters = counters
        self.collecting = counters is not None
        self.pending: list[str] = []
        self.cited: list[str] = []
        self.section: list[int] = []
        self.seen_title = False

    # numbering (collecting pass) -----------------------------------------

    def add(self, label: str, target: Target) -> None:
        if label in self.targets:
            other = self.targets[label].doc
            raise ReaderError(f"label {label!r} defined twice ({other}, {target.doc})")
        self.targets[label] = target

    def next_number(self, kind: str) -> tuple[int, ...]:
        prefix = tuple((self.number or ())[:1])  # Sphinx's numfig_secnum_depth = 1
        key = (kind, prefix)
        self.counters[key] = self.counters.get(key, 0) + 1
        return (*prefix, self.counters[key])

    def close_labels(self) -> None:
        """Labels not followed by a heading point at the paragraph after them."""
        for label in self.pending:
            self.add(label, Target("label", self.docname, None, "", label))
        self.pending = []

    # links -------------------------------------------------------------

    def reader_path(self, docname: str) -> Path:
        return self.out / f"{docname}.ipynb"

    def link(self, target: Target) -> str:
        if target.doc in WEBSITE_ONLY:
            html = ROOT / "_build" / "html" / f"{target.doc}.html"
            here = self.reader_path(self.docname).parent
            return os.path.relpath(html, here) + (f"#{target.anchor}" if target.anchor else "")
        fragment = f"#{target.anchor}" if target.anchor else ""
        if target.doc == self.docname:
            return fragment or "#"
        here = self.reader_path(self.docname).parent
        return os.path.relpath(self.reader_path(target.doc), here) + fragment

    def target(self, label: str, role: str) -> Target:
        if label not in self.targets:
            raise ReaderError(f"{self.docname}: {{{role}}} to unknown label {label!r}")
        return self.targets[label]

    # roles -------------------------------------------------------------

    def role(self, name: str, content: str) -> str:
        explicit, _, label = _split_title(content)
        if name == "eq":
            target = self.target(label, name)
            return f"[{NUMREF_FORMAT['equation'] % target.number_text}]({self.link(target)})"
        if name == "numref":
            target = self.target(label, name)
            kind = "section" if target.kind == "doc" else target.kind
            text = explicit or NUMREF_FORMAT[kind]
            text = text.replace("%s", target.number_text).replace("{number}", target.number_text)
            text = text.replace("{name}", target.title)
            return f"[{text}]({self.link(target)})"
        if name == "doc":
            folder = Path(self.docname).parent
            target = self.target(os.path.normpath(folder / label).replace(os.sep, "/"), name)
            return f"[{explicit or target.title}]({self.link(target)})"
        if name == "ref":
            target = self.target(label, name)
            return f"[{explicit or target.title}]({self.link(target)})"
        if name == "term":
            glossary = self.targets["book/glossary"]
            return f"[{explicit or label}]({self.link(glossary)})"
        if name in ("cite", "cite:p", "cite:t", "cite:ps", "cite:ts"):
            keys = [key.strip() for key in label.split(",")]
            self.cited += [key for key in keys if key not in self.cited]
            if name.startswith("cite:t"):
                parts = [  # "Breiman et al. [1984]", the year linked, as on the website
                    f"{self.bibliography.authors(k)} [[{self.bibliography.year(k)}]]"
                    f"(#{self.bibliography.anchor(k)})"
                    for k in keys
                ]
                return ", ".join(parts)
            parts = [
                f"[{self.bibliography.authors(k)}, {self.bibliography.year(k)}]"
                f"(#{self.bibliography.anchor(k)})"
                for k in keys
            ]
            return "(" + "; ".join(parts) + ")"
        if name.removeprefix("py:") in PYTHON_ROLES:
            # as Sphinx shows them: `~` keeps the last component, functions get "()"
            shown = explicit or (label[1:].split(".")[-1] if label.startswith("~") else label)
            if name.endswith(("func", "meth")) and not explicit and not shown.endswith(")"):
                shown += "()"
            return f"`{shown}`"
        if name == "math":
            return f"${content}$"
        raise ReaderError(f"{self.docname}: role {{{name}}} is not supported by the reader")

    def inline(self, text: str) -> str:
        """Resolve the roles of a paragraph; leave code spans and math alone."""
        if self.collecting:
            return text
        out = []
        i = 0
        while i < len(text):
            if text[i] == "`":
                run = len(text[i:]) - len(text[i:].lstrip("`"))
                close = text.find("`" * run, i + run)
                if close == -1:
                    out.append(text[i:])
                    break
                content = text[i + run : close]
                role = ROLE.search("".join(out)[-40:]) if out else None
                if role is not None:
                    joined = "".join(out)
                    out = [joined[: len(joined) - len(role.group(0))]]
                    out.append(self.role(role["name"], content))
                else:
                    out.append(text[i : close + run])
                i = close + run
            elif text[i] == "\\" and i + 1 < len(text):
                out.append(text[i : i + 2])
                i += 2
            elif text[i] == "$":
                double = text.startswith("$$", i)
                marker = "$$" if double else "$"
                close = text.find(marker, i + len(marker))
                if close == -1:
                    out.append(text[i:])
                    break
                out.append(text[i : close + len(marker)])
                i = close + len(marker)
            else:
                out.append(text[i])
                i += 1
        return "".join(out)

    # blocks ------------------------------------------------------------

    def markdown(self, source: str) -> str:
        lines = source.splitlines()
        out: list[str] = []
        i = 0
        paragraph: list[str] = []

        def flush():
            if paragraph:
                out.extend(self.inline("\n".join(paragraph)).split("\n"))
                paragraph.clear()

        while i < len(lines):
            line = lines[i]
            fenced = fence_match(line)
            if fenced:
                flush()
                if self.collecting:
                    self.close_labels()
                info = fenced["info"].strip()
                directive = _directive_body(lines, i, fenced["fence"])
                out += self.directive(fenced["indent"], fenced["fence"], info, directive)
                i = directive.end + 1
                continue
            if line.strip() == "$$" or (line.strip().startswith("$$") and line.count("$$") == 1):
                flush()
                if self.collecting:
                    self.close_labels()
                end = i + 1
                while end < len(lines) and not lines[end].strip().startswith("$$"):
                    end += 1
                if end == len(lines):
                    raise ReaderError(f"{self.docname}: unclosed $$ at {line!r}")
                out += self.equation(lines[i : end + 1])
                i = end + 1
                continue
            labelled = LABEL_LINE.match(line)
            if labelled:
                flush()
                if self.collecting:
                    self.pending.append(labelled["label"])
                out.append(self.anchor(labelled["label"]))
                i += 1
                continue
            heading = HEADING.match(line)
            if heading:
                flush()
                out.append(self.heading(heading))
                i += 1
                continue
            if line.strip() and self.collecting:
                self.close_labels()
            paragraph.append(line)
            i += 1
        flush()
        return "\n".join(out)

    def anchor(self, label: str) -> str:
        """A MyST target: jupyterlab-myst gives the next element this id (raw HTML ids
        are sanitized away)."""
        return f"({label})="

    def heading(self, match) -> str:
        level = len(match["hashes"])
        title = self.inline(match["title"])
        if not self.seen_title:
            self.seen_title = True
            number = self.number
        else:
            depth = level - 1
            while len(self.section) < depth:
                self.section.append(0)
            self.section = self.section[:depth]
            self.section[-1] += 1
            number = None if self.number is None else (*self.number, *self.section)
        if self.collecting:
            plain = match["title"]
            if self.docname not in self.targets:
                self.add(self.docname, Target("doc", self.docname, number, plain, ""))
            for label in self.pending:
                self.add(label, Target("section", self.docname, number, plain, label))
            self.pending = []
        return f"{match['hashes']} {_number_prefix(number)}{title}"

    def equation(self, block: list[str]) -> list[str]:
        indent = block[0][: len(block[0]) - len(block[0].lstrip())]
        closing = EQUATION_END.match(block[-1])
        if closing is None:  # unnumbered
            return block
        if self.collecting:
            number = self.next_number("equation")
            self.add(
                closing["label"], Target("equation", self.docname, number, "", closing["label"])
            )
        target = self.targets[closing["label"]]
        return [
            f"{indent}{self.anchor(closing['label'])}",
            *block[:-1],
            f"{indent}\\tag{{{target.number_text}}}",
            f"{indent}$$",
        ]

    def directive(self, indent: str, fence: str, info: str, directive: _Directive) -> list[str]:
        name_match = re.match(r"^\{(?P<name>[a-z-]+)\}\s*(?P<argument>.*)$", info)
        raw = [
            f"{indent}{fence}{info}",
            *(f"{indent}:{k}: {v}" for k, v in directive.options.items()),
            *directive.body,
            f"{indent}{fence}",
        ]
        if name_match is None:  # a plain code block
            return [f"{indent}{fence}{info}", *directive.body, f"{indent}{fence}"]
        name, argument = name_match["name"], name_match["argument"].strip()
        if name == "literalinclude":
            if self.collecting:
                return []
            return self.literalinclude(indent, argument, directive.options)
        if name == "math":
            label = directive.options.get("label")
            body = [line for line in directive.body if line.strip()]
            if label is None:
                return [f"{indent}$$", *body, f"{indent}$$"]
            if self.collecting:
                number = self.next_number("equation")
                self.add(label, Target("equation", self.docname, number, "", label))
            number = self.targets[label].number_text
            return [
                f"{indent}{self.anchor(label)}",
                f"{indent}$$",
                *body,
                f"{indent}\\tag{{{number}}}",
                f"{indent}$$",
            ]
        if name == "bibliography":
            return [] if self.collecting else self.full_bibliography()
        if name == "list-table" and "name" in directive.options:
            if self.collecting:
                number = self.next_number("table")
                label = directive.options["name"]
                self.add(label, Target("table", self.docname, number, argument, label))
            target = self.targets[directive.options["name"]]
            caption = f"Table {target.number_text}: {self.inline(argument)}"
            return [
                f"{indent}{fence}{{list-table}} {caption}",
                *(f"{indent}:{k}: {v}" for k, v in directive.options.items()),
                *self.markdown("\n".join(directive.body)).split("\n"),
                f"{indent}{fence}",
            ]
        if name in ("admonition", "dropdown", "note", "tip", "warning", "list-table", "glossary"):
            body = self.markdown("\n".join(directive.body)).split("\n")
            # a colon fence longer than any inside: the listings added to the body are
            # backtick fences, which may now be as long as a backtick fence around them
            inner = [len(found[1]) for line in body if (found := re.match(r"^\s*(:{3,})", line))]
            colons = ":" * max(3, 1 + max(inner, default=0))
            return [
                f"{indent}{colons}{{{name}}} {self.inline(argument)}".rstrip(),
                *(f"{indent}:{k}: {v}" for k, v in directive.options.items()),
                *body,
                f"{indent}{colons}",
            ]
        if name in ("code-block", "code") or (name == "eval-rst" and self.collecting):
            return raw  # eval-rst: autodoc on the API page, which only the website shows
        raise ReaderError(f"{self.docname}: directive {{{name}}} is not supported by the reader")

    def literalinclude(self, indent: str, argument: str, options: dict[str, str]) -> list[str]:
        chapter_folder = source_path(self.docname).parent
        path = (chapter_folder / argument).resolve()
        if not path.is_file():
            raise ReaderError(f"{self.docname}: literalinclude of a missing file {argument}")
        text = listing(path, options)
        shown = path.relative_to(ROOT).as_posix()
        link = os.path.relpath(path, self.reader_path(self.docname).parent)
        where = f" — `{options['pyobject']}`" if "pyobject" in options else ""
        caption = options.get("caption")
        head = f"{indent}*Listing:* [`{shown}`]({link}){where}" + (
            f". {caption}" if caption else ""
        )
        language = options.get("language", "python" if path.suffix == ".py" else "")
        fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
        body = [f"{indent}{line}" if line else "" for line in text.splitlines()]
        return [head, "", f"{indent}{fence}{language}", *body, f"{indent}{fence}"]

    def entries(self, keys) -> list[str]:
        """One paragraph per work, each a target that citations link to."""
        out = []
        for key in sorted(keys, key=self._sort_key):
            out += [self.anchor(self.bibliography.anchor(key)), self.bibliography.entries[key], ""]
        return out

    def full_bibliography(self) -> list[str]:
        return self.entries(self.bibliography.entries)

    def _sort_key(self, key: str):
        return (self.bibliography.authors(key).lower(), self.bibliography.year(key))

    def cited_section(self) -> str | None:
        if not self.cited:
            return None
        return "\n".join(["## Works cited", "", *self.entries(self.cited)])


def _split_title(content: str) -> tuple[str | None, str, str]:
    """``"text <label>"`` -> ("text", "", "label"); ``"label"`` -> (None, "", "label")."""
    match = re.match(r"^(?P<text>.*?)\s*<(?P<label>[^<>]+)>$", content, flags=re.S)
    if match and match["text"]:
        return match["text"], "", match["label"]
    return None, "", content.strip()


# ---------------------------------------------------------------------------
# Writing the reader notebooks
# ---------------------------------------------------------------------------


def reader_notebook(docname, number, targets, bibliography, out: Path):
    """The reader copy of one document (a new notebook; the chapter is not modified)."""
    notebook = copy.deepcopy(read_notebook(docname))
    chapter = Chapter(docname, number, targets, bibliography, out)
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = chapter.markdown(cell.source)
    works = chapter.cited_section()
    if works is not None and docname != "book/references":
        notebook.cells.append(nbformat.v4.new_markdown_cell(works))
    # The front matter turns off jupyterlab-myst's own numbering (1, 2, ... per notebook):
    # the book's numbers are written into the text.
    note = (
        "---\nnumbering: false\n---\n"
        f"*Reader copy of `{docname}.md`, generated by `book/_tools/reader_notebooks.py`: "
        "listings, numbers, references and citations as on the website. "
        "Edits here are not kept; the chapter's source is the `.md` file.*"
    )
    notebook.cells.insert(0, nbformat.v4.new_markdown_cell(note))
    notebook.metadata.pop("jupytext", None)  # not paired: JupyterLab opens it as it is
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }
    for index, cell in enumerate(notebook.cells):
        cell.id = f"reader-{index}"
    nbformat.validate(notebook)
    return notebook


def build(out: Path = DEFAULT_OUT) -> list[Path]:
    """Write every reader notebook under ``out``; return their paths."""
    documents = toc_documents()
    targets = collect_targets(documents)
    bibliography = Bibliography()
    if out.exists():
        shutil.rmtree(out)
    written = []
    for docname, number in documents:
        if docname in WEBSITE_ONLY:
            continue
        if not (ROOT / f"{docname}.ipynb").exists() and docname not in EXTRA_PAGES:
            continue
        notebook = reader_notebook(docname, number, targets, bibliography, out)
        path = out / f"{docname}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, path)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the reader notebooks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    written = build(args.out.resolve())
    print(f"{len(written)} reader notebooks in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
