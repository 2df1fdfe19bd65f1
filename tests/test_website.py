"""Open every page of the built website in headless Chromium and check it renders.

Run after ``make book``. For each page in ``_toc.yml`` the test asserts that
math is typeset by MathJax without errors, every image loads, no JavaScript
error occurs, nothing is fetched from outside the site, and every link into
the site resolves (page and ``#fragment``). External links cannot be followed
on an offline machine; they are checked for form only.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar
from urllib.parse import urldefrag, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.website


def toc_docnames() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]
    for part in toc.get("parts", []):
        names += [chapter["file"] for chapter in part.get("chapters", [])]
    return names


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def site_url():
    if not (SITE / "index.html").exists():
        pytest.fail("no website at _build/html: run `make book` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing at /usr/bin/chromium: `apt-get install chromium`")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@functools.cache
def _fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read().decode("utf-8", errors="replace")
            return response.status, body
    except urllib.error.HTTPError as error:
        return error.code, ""


def _has_anchor(html: str, fragment: str) -> bool:
    return re.search(rf"""\b(?:id|name)=["']{re.escape(fragment)}["']""", html) is not None


def _check_links(hrefs: list[str], site_url: str) -> list[str]:
    """Return the links that do not resolve; internal ones down to the #fragment."""
    site = urlsplit(site_url)
    broken = []
    for href in sorted(set(hrefs)):
        parts = urlsplit(href)
        if parts.scheme in ("http", "https") and parts.netloc == site.netloc:
            page, fragment = urldefrag(href)
            status, html = _fetch(page)
            if status != 200:
                broken.append(f"{href} (HTTP {status})")
            elif fragment and not _has_anchor(html, fragment):
                broken.append(f"{href} (no element with id {fragment!r})")
        elif parts.scheme in ("http", "https"):
            if not parts.netloc or " " in href:  # offline: the form is all we can check
                broken.append(f"{href} (malformed external link)")
        elif parts.scheme not in ("mailto",):
            broken.append(f"{href} (unexpected scheme {parts.scheme!r})")
    return broken


WAIT_FOR_IMAGES = """async () => {
    const images = Array.from(document.images);
    images.forEach(image => { image.loading = "eager"; });
    await Promise.all(images.map(image => image.complete ? null :
        new Promise(done => { image.onload = done; image.onerror = done; })));
    return images.filter(image => !image.complete || image.naturalWidth === 0)
                 .map(image => image.currentSrc || image.src);
}"""

MATH_REPORT = """async () => {
    const math = Array.from(document.querySelectorAll(".math"));
    if (math.length && window.MathJax && MathJax.startup) { await MathJax.startup.promise; }
    return {
        math: math.length,
        typeset: math.filter(node => node.querySelector("mjx-container")).length,
        errors: Array.from(document.querySelectorAll("mjx-merror"))
                     .map(node => node.getAttribute("data-mjx-error") || node.textContent),
        mathjax: Boolean(window.MathJax && MathJax.version),
    };
}"""


@pytest.mark.parametrize("docname", toc_docnames())
def test_page_renders_offline(browser, site_url, docname):
    page = browser.new_page()
    js_errors, console_errors, outside = [], [], []
    page.on("pageerror", lambda error: js_errors.append(str(error)))
    page.on(
        "console",
        lambda message: console_errors.append(message.text) if message.type == "error" else None,
    )

    def keep_it_local(route):
        url = route.request.url
        if url.startswith(site_url) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.route("**/*", keep_it_local)
    response = page.goto(f"{site_url}{docname}.html", wait_until="load")
    assert response is not None
    assert response.status == 200

    math = page.evaluate(MATH_REPORT)
    if docname.startswith("book/part"):
        assert math["math"] > 0, "a chapter without a single formula?"
    if math["math"]:
        assert math["mathjax"], "the page has math but MathJax did not load"
        assert math["typeset"] == math["math"], f"untypeset math: {math}"
        assert not math["errors"], f"MathJax errors: {math['errors']}"

    broken_images = page.evaluate(WAIT_FOR_IMAGES)
    assert not broken_images, f"images that did not load: {broken_images}"

    hrefs = page.eval_on_selector_all("a[href]", "anchors => anchors.map(a => a.href)")
    broken_links = _check_links(hrefs, site_url)
    assert not broken_links, "links that do not resolve:\n" + "\n".join(broken_links)

    page.close()
    assert not outside, f"requests outside the site: {outside}"
    assert not js_errors, f"JavaScript errors: {js_errors}"
    assert not console_errors, f"console errors: {console_errors}"


class _ResourceCollector(HTMLParser):
    """Collect the URLs a page loads to render: scripts, stylesheets, fonts, images, frames."""

    RENDERING_LINKS: ClassVar[set[str]] = {
        "stylesheet",
        "preload",
        "modulepreload",
        "icon",
        "prefetch",
    }

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "video", "audio") and attrs.get("src"):
            self.urls.append(attrs["src"])
        elif tag == "link" and self.RENDERING_LINKS & set((attrs.get("rel") or "").split()):
            self.urls.append(attrs.get("href") or "")


def _is_remote(url: str) -> bool:
    return url.strip().lower().startswith(("http://", "https://", "//"))


def test_html_loads_nothing_from_the_internet():
    """No script, stylesheet, font or image of the built site comes from http(s)://."""
    offenders = []
    for html in sorted(SITE.rglob("*.html")):
        collector = _ResourceCollector()
        collector.feed(html.read_text(encoding="utf-8", errors="replace"))
        page = html.relative_to(SITE)
        offenders += [f"{page}: {url}" for url in collector.urls if _is_remote(url)]
    css_url = re.compile(r"""url\(\s*['"]?((?:https?:)?//[^)'"]+)""")
    for css in sorted(SITE.rglob("*.css")):
        offenders += [
            f"{css.relative_to(SITE)}: {url}"
            for url in css_url.findall(css.read_text(encoding="utf-8", errors="replace"))
        ]
    assert not offenders, "remote resources:\n" + "\n".join(offenders[:20])
