"""Reader notebooks (book/_tools/reader_notebooks.py): the chapters as JupyterLab shows them.

Without the website: every chapter converts, no MyST role or directive is left
for jupyterlab-myst to show raw, every link resolves (file and target), and a
listing is cut from the source exactly as ``:pyobject:`` and the other
options say. With the built website (``make book``; marked ``website``): the
numbers of equations and tables, the listings and the citations are those
the website shows.
"""

from __future__ import annotations

import re
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))

import reader_notebooks as reader  # noqa: E402

SITE = ROOT / "_build" / "html"
RAW_MARKUP = re.compile(
    r"\{[a-z]+(?::[a-z]+)?\}`|^\s*(?:```|:::)\s*\{(?!list-table|dropdown|admonition|glossary)"
)
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
TARGET = re.compile(r"^\s*(?:\((?P<label>[A-Za-z0-9_.:-]+)\)=|:name: (?P<name>\S+))\s*$", re.M)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("reader") / "reader"
    paths = reader.build(out)
    return out, {path: nbformat.read(path, as_version=4) for path in paths}


def _without_code(markdown: str) -> str:
    """The markdown with fenced blocks and code spans removed (their text is literal)."""
    markdown = re.sub(r"^(\s*)(`{3,})(?!\{)[^\n]*\n.*?^\1\2\s*$", "", markdown, flags=re.S | re.M)
    return re.sub(r"(`+)(?!\{).+?\1", "", markdown, flags=re.S)


def test_every_chapter_has_a_reader_notebook(built):
    out, notebooks = built
    chapters = sorted(ROOT.glob("book/part*/*.ipynb"))
    expected = {out / path.relative_to(ROOT) for path in chapters}
    expected |= {out / f"{page}.ipynb" for page in reader.EXTRA_PAGES}
    assert set(notebooks) == expected


def test_no_myst_markup_is_left_raw(built):
    _, notebooks = built
    for path, notebook in notebooks.items():
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                continue
            text = _without_code(cell.source)
            raw = RAW_MARKUP.search(text)
            assert raw is None, f"{path.name}: {text[max(0, raw.start() - 80) : raw.end() + 80]!r}"
            assert ":pyobject:" not in text


def test_equations_are_tagged_and_listings_expanded(built):
    out, notebooks = built
    chapter = notebooks[out / "book/part1_foundations/01_information_theory.ipynb"]
    text = "\n".join(cell.source for cell in chapter.cells if cell.cell_type == "markdown")
    assert "(eq-entropy)=\n$$" in text
    assert "\\tag{1.1}" in text
    assert "# 1 Information theory" in text
    listing = re.search(r"\*Listing:\* \[`mltrees/information.py`\]\([^)]*\) — `entropy`", text)
    assert listing is not None
    code = text[listing.end() :].split("```python\n", 1)[1].split("\n```", 1)[0]
    assert code.startswith("def entropy(")
    assert "return" in code


def test_links_resolve_to_files_and_targets(built):
    _, notebooks = built
    labels = {}
    for path, notebook in notebooks.items():
        text = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        labels[path] = {m["label"] or m["name"] for m in TARGET.finditer(text)}
    broken = []
    for path, notebook in notebooks.items():
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                continue
            for match in LINK.finditer(_without_code(cell.source)):
                target = match["target"]
                if target.startswith(("http://", "https://")):
                    continue
                file, _, fragment = target.partition("#")
                if not file:
                    destination = path
                else:
                    destination = (path.parent / file).resolve()
                    if "_build/html" in file:  # the API page exists only on the website
                        continue
                    if not destination.exists():
                        broken.append(f"{path.name}: {target} (no file)")
                        continue
                known = labels.get(destination, set())
                if fragment and destination.suffix == ".ipynb" and fragment not in known:
                    broken.append(f"{path.name}: {target} (no target)")
    assert not broken, "\n".join(broken[:20])


def test_citations_list_the_works_cited(built):
    out, notebooks = built
    chapter = notebooks[out / "book/part2_trees/03_splitting.ipynb"]
    last = chapter.cells[-1].source
    assert last.startswith("## Works cited")
    assert "(cite-quinlan1986)=" in last
    text = "\n".join(cell.source for cell in chapter.cells)
    assert "Breiman et al. [[1984]](#cite-breiman1984)" in text  # {cite:t}, as on the website
    assert "([Quinlan, 1986](#cite-quinlan1986); " in text  # {cite:p} with several keys


def test_reader_notebooks_are_not_paired_and_keep_outputs(built):
    out, notebooks = built
    chapter = notebooks[out / "book/part1_foundations/01_information_theory.ipynb"]
    assert "jupytext" not in chapter.metadata
    source = nbformat.read(ROOT / "book/part1_foundations/01_information_theory.ipynb", 4)
    code = [cell for cell in chapter.cells if cell.cell_type == "code"]
    stored = [cell for cell in source.cells if cell.cell_type == "code"]
    assert [c.source for c in code] == [c.source for c in stored]
    assert [c.outputs for c in code] == [c.outputs for c in stored]


# ---------------------------------------------------------------------------
# Listings cut as Sphinx's literalinclude cuts them
# ---------------------------------------------------------------------------

MODULE = '''\
"""A module."""


def plain(x):
    return x


@staticmethod
@property
def decorated(y):
    # the decorators belong to the object
    return y


class Box:
    """A box."""

    def open(self):
        first = 1
        second = 2
        return first + second

    def close(self):
        return None
'''


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "module.py"
    path.write_text(MODULE, encoding="utf-8")
    return path


def test_pyobject_function_with_decorators(module):
    text = reader.listing(module, {"pyobject": "decorated"})
    assert text.splitlines()[0] == "@staticmethod"
    assert text.splitlines()[-1] == "    return y"


def test_pyobject_method_start_end_and_dedent(module):
    options = {"pyobject": "Box.open", "start-at": "second", "end-before": "return", "dedent": "8"}
    assert reader.listing(module, options) == "second = 2"
    options = {"pyobject": "Box.open", "start-after": "def open", "end-at": "second"}
    assert reader.listing(module, options) == "        first = 1\n        second = 2"
    assert reader.listing(module, {"pyobject": "Box.close", "dedent": ""}) == textwrap.dedent(
        """\
        def close(self):
            return None"""
    )


def test_listing_errors_name_what_is_missing(module):
    with pytest.raises(reader.ReaderError, match=r"no object 'Box\.shut'"):
        reader.listing(module, {"pyobject": "Box.shut"})
    with pytest.raises(reader.ReaderError, match="not found"):
        reader.listing(module, {"pyobject": "plain", "start-at": "nothing like this"})
    with pytest.raises(reader.ReaderError, match="unsupported"):
        reader.listing(module, {"pyobject": "plain", "tab-width": "4"})


def test_unknown_role_is_an_error():
    chapter = reader.Chapter("book/x", (1,), {}, None, ROOT / "_build" / "reader")
    with pytest.raises(reader.ReaderError, match="role"):
        chapter.markdown("A {kbd}`Ctrl` key.")
    # a role-like text inside a code span is literal
    assert chapter.markdown("`x in {categories}` and `y`") == "`x in {categories}` and `y`"


# ---------------------------------------------------------------------------
# The same numbers, listings and citations as the website
# ---------------------------------------------------------------------------


class _Page(HTMLParser):
    """Equation and table numbers, code blocks and citation texts of a built page."""

    def __init__(self):
        super().__init__()
        self.equations: dict[str, str] = {}
        self.tables: list[str] = []
        self.code: list[str] = []
        self.citations: list[str] = []
        self._eqno = self._caption = self._pre = self._cite = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "span" and "eqno" in classes:
            self._eqno = ""
        elif tag == "a" and self._eqno is not None and attrs.get("href", "").startswith("#"):
            self.equations[attrs["href"].removeprefix("#equation-")] = self._eqno.strip("() ")
            self._eqno = None
        elif tag == "span" and "caption-number" in classes:
            self._caption = ""
        elif tag == "pre":
            self._pre = ""
        elif tag == "a" and "references.html#" in attrs.get("href", ""):
            self._cite = ""

    def handle_endtag(self, tag):
        if tag == "span" and self._caption is not None:
            self.tables.append(self._caption.strip())
            self._caption = None
        elif tag == "pre" and self._pre is not None:
            self.code.append(self._pre)
            self._pre = None
        elif tag == "a" and self._cite is not None:
            # Sphinx joins a name's "von" part with no-break spaces ("van\xa0der Laan")
            self.citations.append(" ".join(self._cite.split()))
            self._cite = None

    def handle_data(self, data):
        for name in ("_eqno", "_caption", "_pre", "_cite"):
            if getattr(self, name) is not None:
                setattr(self, name, getattr(self, name) + data)


def _page(docname: str) -> _Page:
    page = _Page()
    page.feed((SITE / f"{docname}.html").read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site():
    if not (SITE / "index.html").exists():
        pytest.fail("no website at _build/html: run `make book` first")
    return SITE


@pytest.mark.website
def test_equation_and_table_numbers_are_the_websites(site):
    targets = reader.collect_targets(reader.toc_documents())
    for docname, _ in reader.toc_documents():
        if docname in reader.WEBSITE_ONLY:
            continue
        page = _page(docname)
        ours = {
            label: t.number_text
            for label, t in targets.items()
            if t.kind == "equation" and t.doc == docname
        }
        assert ours == page.equations, docname
        tables = [
            f"Table {t.number_text}"
            for t in targets.values()
            if t.kind == "table" and t.doc == docname
        ]
        assert [t for t in page.tables if t.startswith("Table")] == tables, docname


@pytest.mark.website
def test_listings_and_citations_are_the_websites(site, built):
    out, notebooks = built
    for path, notebook in notebooks.items():
        docname = path.relative_to(out).with_suffix("").as_posix()
        if docname in reader.EXTRA_PAGES:
            continue
        page = _page(docname)
        website_code = {block.strip("\n") for block in page.code}
        text = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        for listing in re.finditer(r"\*Listing:\*[^\n]*\n\n(`{3,})python\n(.*?)\n\1", text, re.S):
            assert listing[2] in website_code, f"{docname}: {listing[2][:200]}"
        shown = set(page.citations)
        for label in re.findall(r"\[\[?([^\[\]\n$]+)\]\]?\(#cite-", text):
            assert label in shown, (docname, label)
