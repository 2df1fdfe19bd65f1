"""Alternative text for the figures that chapters draw, read from the code that draws them.

myst-nb writes a cell's figure as an image without ``alt``, and Sphinx then
uses the file's path (``../../_images/0b91…png``), which is what a screen
reader announces and what shows when an image cannot load. This extension
describes each such figure from the cell that draws it: its titles
(``suptitle``, ``set_title``, ``ax.set(title=...)``) and the quantities on
its axes (``set_ylabel`` against ``set_xlabel``), with the section it belongs
to; values computed in f-strings read as "…". A cell can still give its own
text (myst-nb's ``mystnb: image: alt:`` metadata), which is kept.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from docutils import nodes

TITLE_CALLS = {"suptitle": 0, "set_title": 1, "title": 1}
AXIS_CALLS = {"set_xlabel": "x", "xlabel": "x", "set_ylabel": "y", "ylabel": "y"}
# mltrees' own pictures, named by what they show
DRAWINGS = {
    "plot_tree": "drawing of a fitted tree: its tests, leaves and class counts",
    "summary_plot": "beeswarm of SHAP values, one row per feature",
    "dependence_plot": "SHAP value of a feature against its value",
    "plot_partial_dependence": "partial dependence over individual conditional expectation curves",
    "plot_importance": "bars of feature importances",
}


def _text(node) -> str | None:
    """A string literal or an f-string with its computed parts as "…"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "…" for v in node.values)
    return None


def _plain(text: str) -> str:
    """Math markup read aloud plainly: ``$\\lg$ (leaves)`` -> ``lg (leaves)``."""
    text = text.replace("$", "").replace("\n", " ")
    text = re.sub(r"\\(?:mathrm|operatorname|text|mathbf|tilde|hat|bar)\b", "", text)
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)
    return re.sub(r"[{}]", "", re.sub(r"\s+", " ", text)).strip()


def describe(source: str) -> str | None:
    """A one-sentence description of the figure a cell's code draws, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    titles: list[tuple[int, str]] = []
    axes: dict[str, list[str]] = {"x": [], "y": []}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = getattr(node.func, "attr", getattr(node.func, "id", None))
        if called in DRAWINGS:
            titles.append((2, DRAWINGS[called]))
        if not isinstance(node.func, ast.Attribute):
            continue
        name = node.func.attr
        first = _text(node.args[0]) if node.args else None
        if name in TITLE_CALLS and first:
            titles.append((TITLE_CALLS[name], _plain(first)))
        elif name in AXIS_CALLS and first:
            axes[AXIS_CALLS[name]].append(_plain(first))
        elif name == "set":
            for keyword in node.keywords:
                value = _text(keyword.value)
                if keyword.arg == "title" and value:
                    titles.append((1, _plain(value)))
                elif keyword.arg in ("xlabel", "ylabel") and value:
                    axes[keyword.arg[0]].append(_plain(value))
    parts = list(dict.fromkeys(title for _, title in sorted(titles, key=lambda t: t[0])))
    pairs = []
    for i, y in enumerate(axes["y"]):
        x = axes["x"][i] if i < len(axes["x"]) else (axes["x"][-1] if axes["x"] else None)
        pairs.append(f"{y} against {x}" if x else y)
    if not pairs and axes["x"]:
        pairs = [f"horizontal axis: {axes['x'][0]}"]
    pairs = list(dict.fromkeys(pairs))
    if not parts and not pairs:
        return None
    return ". ".join(p[:1].upper() + p[1:] for p in [*parts, *pairs] if p)


def _section_title(node) -> str:
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    if node is None:
        return ""
    title = next(iter(node.findall(nodes.title)), None)
    return title.astext() if title is not None else ""


def _add_alt_text(app, doctree, docname) -> None:
    notebook = None
    for image in doctree.findall(nodes.image):
        alt = image.get("alt")
        if alt and alt != image.get("uri") and not alt.endswith((".png", ".jpg", ".svg")):
            continue
        cell = image.parent
        while cell is not None and cell.get("nb_element") != "cell_code":
            cell = cell.parent
        if cell is None:
            continue
        if notebook is None:
            import nbformat

            path = Path(app.srcdir) / f"{docname}.ipynb"
            if not path.is_file():
                return
            notebook = nbformat.read(path, as_version=4)
        source = notebook.cells[cell["cell_index"]].source
        section = _section_title(cell)
        described = describe(source)
        where = f" (section “{section}”)" if section else ""
        image["alt"] = (
            f"Figure: {described}{where}." if described else f"Figure drawn by the code{where}."
        )


def setup(app):
    """Register the hook with Sphinx."""
    app.connect("doctree-resolved", _add_alt_text)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
