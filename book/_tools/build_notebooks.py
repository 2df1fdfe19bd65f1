"""Turn each chapter's MyST source into its executed notebook pair.

    python book/_tools/build_notebooks.py [CHAPTER.md ...]

With no argument every ``book/part*/*.md`` is processed. For each chapter the
MyST file is read with jupytext, executed top to bottom in a fresh kernel
(working directory: the chapter's folder), and written next to it as
``.ipynb``. The notebook is made reproducible on purpose:

* cell ids are derived from the cell's content, not drawn at random;
* per-cell timing metadata and the Python patch version are not recorded;
* a chapter that writes to stderr (a warning, say) or raises is an error,
  and so is one that runs longer than its time budget (DESIGN.md section 6).

Pairing is checked by ``tests/test_notebook_pairs.py``; ``jupytext --sync``
is not used because it decides by file timestamps, which a fresh clone lacks.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
TIME_BUDGET_SECONDS = 60.0


def chapter_sources() -> list[Path]:
    """Every paired chapter source, in reading order."""
    return sorted(ROOT.glob("book/part*/*.md"))


def stable_cell_ids(notebook) -> None:
    """Give each cell an id derived from its type and source, unique within the notebook."""
    seen: dict[str, int] = {}
    for cell in notebook.cells:
        digest = hashlib.sha1(f"{cell.cell_type}\n{cell.source}".encode()).hexdigest()[:8]
        seen[digest] = seen.get(digest, 0) + 1
        cell.id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"


def coalesce_streams(notebook) -> None:
    """Merge consecutive stream outputs of the same name (stdout/stderr).

    The kernel may deliver one ``print`` in several messages depending on
    timing; merging them keeps the stored notebook identical from run to run.
    """
    for cell in notebook.cells:
        merged = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (
                previous is not None
                and output.get("output_type") == "stream"
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")
            ):
                previous["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def strip_volatile_metadata(notebook) -> None:
    """Drop metadata that changes from run to run or machine to machine."""
    notebook.metadata.pop("language_info", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)


def stderr_outputs(notebook) -> list[str]:
    """Text written to stderr by any cell: DESIGN.md forbids it in compared output."""
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                found.append(f"cell {index}: {output['text'][:300]}")
    return found


def build(source: Path) -> float:
    """Execute one chapter and write its ``.ipynb``; return the run time in seconds."""
    notebook = jupytext.read(source)
    stable_cell_ids(notebook)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(source.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    strip_volatile_metadata(notebook)
    coalesce_streams(notebook)
    problems = stderr_outputs(notebook)
    if problems:
        raise SystemExit(f"{source}: output on stderr:\n" + "\n".join(problems))
    target = source.with_suffix(".ipynb")
    jupytext.write(notebook, target, fmt="ipynb")
    nbformat.validate(nbformat.read(target, as_version=4))
    return elapsed


def main(argv: list[str] | None = None) -> int:
    """Build the chapters named on the command line, or all of them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", type=Path)
    args = parser.parse_args(argv)
    sources = [path.resolve() for path in args.chapters] or chapter_sources()
    too_slow = []
    for source in sources:
        elapsed = build(source)
        print(f"{source.relative_to(ROOT)}: executed in {elapsed:.1f} s")
        if elapsed > TIME_BUDGET_SECONDS:
            too_slow.append(source.name)
    if too_slow:
        budget = f"{TIME_BUDGET_SECONDS:.0f} s"
        print(f"over the {budget} budget: {', '.join(too_slow)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
