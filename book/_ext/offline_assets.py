"""Keep the website self-contained: it must render offline.

* MathJax 3 comes from the ``django-static-mathjax`` package (import name
  ``mathjax``). After an HTML build its ``es5`` folder is copied to
  ``_static/mathjax`` and Sphinx's ``mathjax_path`` points there, not at a CDN.
* Jupyter Book always loads ``sphinx_thebe``, which adds its configuration
  script twice per page (a JavaScript error: ``THEBE_JS_URL`` is declared
  twice) and names a CDN. The book does not use live code, so its assets are
  dropped from every page.
"""

from __future__ import annotations

import shutil
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


def setup(app):
    """Register the hooks with Sphinx."""
    _mathjax_source()  # fail at start-up, not after a long build
    app.connect("config-inited", _use_local_mathjax, priority=900)
    app.connect("build-finished", _copy_mathjax)
    app.connect("html-page-context", _drop_thebe)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
