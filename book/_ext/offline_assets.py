"""Keep the website self-contained: it must render offline.

* MathJax 3 comes from the ``django-static-mathjax`` package (import name
  ``mathjax``). After an HTML build its ``es5`` folder is copied to
  ``_static/mathjax`` and Sphinx's ``mathjax_path`` points there, not at a CDN.
* Jupyter Book always loads ``sphinx_thebe``, which adds its configuration
  script twice per page (a JavaScript error: ``THEBE_JS_URL`` is declared
  twice) and names a CDN. The book does not use live code, so its assets are
  dropped from every page.
* Search snippets from disk: Sphinx's search page fetch()es every result's
  page to show a snippet, which browsers refuse for ``file://`` URLs. After
  the build, the main text of every page and the span of each section in it
  are written to ``_static/search_texts.js``; ``_static/offline_search.js``,
  on the search page, loads it and answers those fetches from it when the site
  is read from disk (served, the 1.7 MB file is never loaded).
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

MATHJAX_TARGET = "mathjax"


def _mathjax_source() -> Path:
    import mathjax  # provided by django-static-mathjax

    source = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (source / "tex-chtml.js").is_file():
        raise RuntimeError(f"MathJax 3 not found at {source}; reinstall django-static-mathjax")
    return source


def _use_local_mathjax(app, config) -> None:
    config.mathjax_path = f"{MATHJAX_TARGET}/tex-chtml.js"


def _copy_mathjax(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    destination = Path(app.outdir) / "_static" / MATHJAX_TARGET
    shutil.copytree(_mathjax_source(), destination, dirs_exist_ok=True)


def _is_thebe_asset(asset) -> bool:
    filename = getattr(asset, "filename", None) or str(asset)
    body = (getattr(asset, "attributes", None) or {}).get("body", "")
    return "thebe" in filename or "THEBE_JS_URL" in body


def _drop_thebe(app, pagename, templatename, context, doctree) -> None:
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not _is_thebe_asset(asset)]


class _MainText(HTMLParser):
    """The text of a page's ``[role=main]`` element as the search reads it (without
    header links, scripts and styles; whitespace collapsed), and each section's span."""

    VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"})

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = ""
        self.sections: dict[str, list[int]] = {}
        self._stack: list[tuple[str, bool, bool, str | None]] = []
        self._in_main = 0
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        attrs = dict(attrs)
        main = attrs.get("role") == "main"
        skip = tag in ("script", "style") or "headerlink" in (attrs.get("class") or "").split()
        # the anchors a search result can carry: sections, API objects, glossary terms
        section = attrs.get("id") if tag in ("section", "dt") and self._in_main else None
        self._stack.append((tag, main, skip, section))
        self._in_main += main
        self._skipping += skip
        if section:
            self.sections[section] = [len(self.text), len(self.text)]

    def handle_endtag(self, tag):
        if all(entry[0] != tag for entry in self._stack):
            return  # a stray end tag (HTML lets some be implied): nothing to close
        while self._stack:
            name, main, skip, section = self._stack.pop()
            self._in_main -= main
            self._skipping -= skip
            if section:
                self.sections[section][1] = len(self.text)
            if name == tag:
                break

    def handle_data(self, data):
        if self._in_main and not self._skipping:
            words = re.sub(r"\s+", " ", data)
            if self.text.endswith(" "):
                words = words.lstrip()
            self.text += words


def _write_search_texts(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    texts = {}
    for docname in sorted(app.env.found_docs):
        page = Path(app.outdir) / f"{docname}.html"
        if page.is_file():
            parser = _MainText()
            parser.feed(page.read_text(encoding="utf-8"))
            texts[docname] = {"text": parser.text, "sections": parser.sections}
    script = "window.OFFLINE_SEARCH_TEXTS = " + json.dumps(texts, ensure_ascii=False) + ";\n"
    (Path(app.outdir) / "_static" / "search_texts.js").write_text(script, encoding="utf-8")


def _search_page_scripts(app, pagename, templatename, context, doctree) -> None:
    if pagename == "search":  # it loads search_texts.js itself, from disk only
        app.add_js_file("offline_search.js")


def setup(app):
    """Register the hooks with Sphinx."""
    _mathjax_source()  # fail at start-up, not after a long build
    app.connect("config-inited", _use_local_mathjax, priority=900)
    app.connect("build-finished", _copy_mathjax)
    app.connect("html-page-context", _drop_thebe)
    # before _drop_thebe, which replaces the page's list of scripts with a filtered copy
    app.connect("html-page-context", _search_page_scripts, priority=400)
    app.connect("build-finished", _write_search_texts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
