"""Docstrings as users read them: help() without Sphinx roles, Examples everywhere.

* Every public class has an Examples section (``make test`` runs them with
  ``--doctest-modules``).
* ``help()`` shows no raw Sphinx role on any object of the package: the
  roles of the sources are rewritten to plain text at import
  (:mod:`mltrees._docstrings`), and the website's hook
  (``book/_ext/docstring_links.py``) turns that plain text back into links;
  every equation label and citation a docstring names exists in the book, so
  the links resolve.
"""

from __future__ import annotations

import importlib
import inspect
import pydoc
import re
import sys
from pathlib import Path

import pytest

import mltrees
from mltrees._docstrings import plain

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_MODULES = [
    "mltrees",
    "mltrees.tree",
    "mltrees.ensemble",
    "mltrees.inspection",
    "mltrees.io",
    "mltrees.incremental",
    "mltrees.datasets",
    "mltrees.losses",
    "mltrees.criteria",
    "mltrees.information",
    "mltrees.target_statistics",
    "mltrees.dask",
]
ROLE = re.compile(
    r":(?:py:)?(?:eq|math|func|class|meth|mod|attr|data|obj|exc|ref|numref|cite:p|cite:t):`"
)


def _public_classes():
    found = {}
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", []):
            value = getattr(module, attribute)
            if inspect.isclass(value):
                found.setdefault(value, f"{name}.{attribute}")
    return found


def _hook():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        return importlib.import_module("docstring_links")
    finally:
        sys.path.pop(0)


def test_every_public_class_has_an_examples_section():
    missing = sorted(
        name for cls, name in _public_classes().items() if "Examples\n" not in (cls.__doc__ or "")
    )
    assert missing == []


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_help_shows_no_sphinx_roles(module_name):
    module = importlib.import_module(module_name)
    for attribute in getattr(module, "__all__", []):
        value = getattr(module, attribute)
        if not getattr(value, "__module__", "").startswith("mltrees"):
            continue  # re-exported from elsewhere (none today)
        text = pydoc.render_doc(value, renderer=pydoc.plaintext)
        # Inherited scikit-learn methods (score, set_params, ...) keep their
        # own docstrings; only the package's text is checked.
        own = (
            [
                inspect.getdoc(member) or ""
                for member in [value, *vars(value).values()]
                if getattr(member, "__module__", "mltrees").startswith("mltrees")
            ]
            if inspect.isclass(value)
            else [text]
        )
        for doc in own:
            assert not ROLE.search(doc), f"{module_name}.{attribute}: {ROLE.search(doc).group()}"


def _book_labels() -> set[str]:
    labels = set()
    for path in (ROOT / "book").rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        labels |= set(re.findall(r"\$\$\s*\((eq-[a-z0-9-]+)\)", text))
        labels |= set(re.findall(r"^\(((?:eq|sec|ch)[a-z0-9-]*)\)=", text, flags=re.MULTILINE))
        labels |= set(re.findall(r":label:\s*(eq-[a-z0-9-]+)", text))
    return labels


def test_every_reference_the_api_page_links_exists():
    hook = _hook()
    labels, keys = _book_labels(), hook._bib_keys()
    docs = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("mltrees"):
            continue
        for value in list(vars(module).values()):
            docs.append(getattr(value, "__doc__", None))
            if inspect.isclass(value):
                docs += [getattr(member, "__doc__", None) for member in vars(value).values()]
    equations, citations = set(), set()
    for doc in filter(None, docs):
        if not isinstance(doc, str):
            continue
        for line in doc.splitlines():
            for part in hook._LITERAL.split(line):
                if part.startswith("``"):
                    continue
                equations |= set(hook._EQUATION.findall(part))
                for group in hook._CITATION.findall(part):
                    citations |= {key.strip() for key in group.split(",")}
    assert equations, "no equation named: the rewrite lost them"
    assert equations <= labels, sorted(equations - labels)
    assert {key for key in citations if key in keys}, "no citation kept"


def test_plain_text_round_trips_into_roles():
    hook = _hook()
    keys = {"quinlan1993", "breiman1984"}
    source = (
        "Implements :eq:`eq-entropy` :cite:p:`quinlan1993,breiman1984` with "
        ":func:`~mltrees.tree.export_text`, :math:`\\alpha < 1` and :ref:`sec-forest-histogram`."
    )
    text = plain(source)
    assert text == (
        "Implements eq-entropy (quinlan1993, breiman1984) with mltrees.tree.export_text, "
        "$\\alpha < 1$ and sec-forest-histogram."
    )
    assert hook._link(text, keys) == (
        "Implements :eq:`eq-entropy` :cite:p:`quinlan1993,breiman1984` with "
        ":py:obj:`mltrees.tree.export_text`, :math:`\\alpha < 1` and "
        ":ref:`sec-forest-histogram`."
    )
    # Literals are left alone, and so are doctest lines and their output.
    lines = ["``mltrees.tree`` eq-entropy", ">>> import mltrees.tree", "mltrees.tree"]
    app = type("App", (), {"env": type("Env", (), {"mltrees_bib_keys": keys})})()
    hook._process(app, "function", "f", None, None, lines)
    assert lines == ["``mltrees.tree`` :eq:`eq-entropy`", ">>> import mltrees.tree", "mltrees.tree"]


def test_the_package_still_documents_its_equations():
    # The rewrite keeps the labels: "Implements eq-entropy" is what help() shows.
    assert "eq-entropy" in inspect.getdoc(mltrees.entropy)
    assert "``" in inspect.getdoc(mltrees.entropy) or "$" in inspect.getdoc(mltrees.entropy)


# ---------------------------------------------------------------------------
# Type hints: a py.typed package whose estimators say what they take and return
# ---------------------------------------------------------------------------

ESTIMATOR_METHODS = (
    "fit",
    "partial_fit",
    "predict",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
    "transform",
    "apply",
    "staged_predict",
    "staged_predict_proba",
    "staged_decision_function",
)


def test_the_package_is_typed():
    assert (ROOT / "mltrees" / "py.typed").is_file()


def test_every_public_estimator_method_is_annotated():
    import typing

    unannotated = []
    for cls, name in _public_classes().items():
        for method_name in ESTIMATOR_METHODS:
            method = getattr(cls, method_name, None)
            if method is None or not getattr(method, "__module__", "").startswith("mltrees"):
                continue
            hints = typing.get_type_hints(method)
            parameters = [
                p
                for p in inspect.signature(method).parameters.values()
                if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ]
            missing = [p.name for p in parameters if p.name not in hints]
            if missing or "return" not in hints:
                unannotated.append(f"{name}.{method_name}: {missing or 'return'}")
    assert unannotated == []


def test_tables_keep_their_columns_and_attributes_stay_literal():
    hook = _hook()
    border = "=====================  ===="
    table = f"x\n\n{border}\n:func:`load_weather`   14\n{border}\n"
    text = plain(table)
    assert text.splitlines()[3] == "load_weather           14"  # the column still starts at 23
    lines = text.splitlines()
    app = type("App", (), {"env": type("Env", (), {"mltrees_bib_keys": set()})})()
    hook._process(app, "module", "m", None, None, lines)
    assert lines[3] == "load_weather           14"
    # feature_importances_ would be a hyperlink reference in reStructuredText.
    assert hook._link("What feature_importances_ counts", set()) == (
        "What ``feature_importances_`` counts"
    )
