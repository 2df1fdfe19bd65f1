"""Each chapter's MyST source and its executed notebook must say the same thing.

The ``.md`` is the source of truth and the ``.ipynb`` carries the outputs the
website shows and nbval re-checks, so a stale pair would publish outputs of
code that is no longer in the book. Cells are compared by type and source;
file timestamps (what ``jupytext --sync`` uses) mean nothing in a fresh clone.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

import mltrees

ROOT = Path(__file__).resolve().parents[1]
CHAPTER_SOURCES = sorted(ROOT.glob("book/part*/*.md"))
CHAPTER_IDS = [str(p.relative_to(ROOT / "book")) for p in CHAPTER_SOURCES]


def _cells(notebook) -> list[tuple[str, str]]:
    return [(cell.cell_type, cell.source.strip()) for cell in notebook.cells]


def _toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            files.append(chapter["file"])
            files += [section["file"] for section in chapter.get("sections", [])]
    return files


def test_there_are_chapters():
    assert CHAPTER_SOURCES, "no chapter sources found under book/part*/"


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=CHAPTER_IDS)
def test_notebook_pair_in_sync(source):
    notebook_path = source.with_suffix(".ipynb")
    assert notebook_path.exists(), f"{notebook_path.name} is missing: run `make notebooks`"
    text = jupytext.read(source)
    notebook = nbformat.read(notebook_path, as_version=4)
    stale = [
        index
        for index, (a, b) in enumerate(zip(_cells(text), _cells(notebook), strict=False))
        if a != b
    ]
    message = f"{notebook_path.name} is out of sync with {source.name}: run `make notebooks`"
    assert len(text.cells) == len(notebook.cells), message
    assert not stale, f"{message} (first differing cell: {stale[0]})"


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=CHAPTER_IDS)
def test_notebook_was_executed_in_order(source):
    notebook = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    counts = [cell.execution_count for cell in notebook.cells if cell.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), "execute the notebook top to bottom once"


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=CHAPTER_IDS)
def test_first_cell_prints_package_version(source):
    notebook = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    assert "mltrees.__version__" in first.source
    printed = "".join(out.get("text", "") for out in first.outputs)
    assert f"mltrees {mltrees.__version__}" in printed, (
        f"{source.name} was executed with another mltrees version: re-run `make notebooks`"
    )


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=CHAPTER_IDS)
def test_text_header_has_no_version_fields(source):
    header = source.read_text(encoding="utf-8").split("---")[1]
    assert "jupytext_version" not in header
    assert "format_version" not in header


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=CHAPTER_IDS)
def test_chapter_is_in_the_toc(source):
    docname = str(source.relative_to(ROOT).with_suffix(""))
    assert docname in _toc_files(), f"{docname} is not listed in _toc.yml"
