"""Open every page of the built website in headless Chromium and check it renders.

Run after ``make book``. For each page in ``_toc.yml`` the test asserts that
math is typeset by MathJax without errors, every image loads and has a text
alternative that is not its file name, no MyST role or directive shows as
raw text, every Chinese character is drawn by the site's own CJK font (the
machine has none), no JavaScript error occurs, nothing is fetched from outside
the site, and every link into the site resolves (page and ``#fragment``).
External links cannot be followed on an offline machine; they are checked for
form only. Search shows snippets, served and from disk; the API page's
contents sidebar shows its long names whole.
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


IMAGE_FILE = re.compile(r"\.(?:png|jpe?g|svg|gif)\b|_images/", re.I)
RAW_MARKUP = re.compile(
    r"\{(?:eq|numref|ref|cite(?::[a-z]+)?|term|doc|py:[a-z]+|literalinclude|dropdown|math|"
    r"code-cell|list-table|glossary|admonition|figure)\}|^\s*(?:`{3,}|:{3,})\{|:pyobject:",
    re.M,
)
# The text of the page's article, code blocks excepted (they may quote MyST on purpose).
MAIN_TEXT = """() => {
    const main = document.querySelector('[role="main"]') || document.body;
    const copy = main.cloneNode(true);
    copy.querySelectorAll('pre, code, script, style').forEach(node => node.remove());
    return copy.textContent;
}"""
CJK_FONT = "Noto Sans CJK SC"  # the family name inside the served subset
# CJK radicals, symbols and punctuation, ideographs (and extension A), compatibility
# ideographs, full-width forms: the ranges the subset is declared for (custom.css).
CJK_CLASS = r"\u2e80-\u2fdf\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
CJK = re.compile(f"[{CJK_CLASS}]")
# Mark every rendered element whose own text holds CJK characters, with their count.
MARK_CJK = """async () => {
    await document.fonts.ready;
    const cjk = /[CJK_CLASS]/gu;
    const counts = new Map();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const found = (text.nodeValue.match(cjk) || []).length;
        const owner = text.parentElement;
        if (!found || !owner || !owner.getClientRects().length) continue;
        if (getComputedStyle(owner).visibility === "hidden") continue;
        // A collapsed cell or dropdown (a closed <details>) is not drawn until opened.
        if (owner.closest("details:not([open])") && !owner.closest("summary")) continue;
        counts.set(owner, (counts.get(owner) || 0) + found);
    }
    let index = 0;
    for (const [owner, found] of counts) {
        owner.setAttribute("data-cjk-check", `${index++}:${found}`);
    }
    return index;
}""".replace("CJK_CLASS", CJK_CLASS)


def _cjk_not_drawn_by_the_site_font(page) -> list[str]:
    """Elements whose CJK characters are not all drawn with the served CJK subset.

    Chromium reports, per element, the fonts that drew its text and how many glyphs
    each drew (DevTools protocol, CSS.getPlatformFontsForNode).
    """
    if not page.evaluate(MARK_CJK):
        return []
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    found = session.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[data-cjk-check]"})
    problems = []
    for node_id in found["nodeIds"]:
        attributes = session.send("DOM.getAttributes", {"nodeId": node_id})["attributes"]
        marker = dict(zip(attributes[::2], attributes[1::2], strict=True))["data-cjk-check"]
        expected = int(marker.split(":")[1])
        fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node_id})["fonts"]
        drawn = sum(
            f["glyphCount"] for f in fonts if f["isCustomFont"] and f["familyName"] == CJK_FONT
        )
        if drawn < expected:
            text = session.send("DOM.getOuterHTML", {"nodeId": node_id})["outerHTML"][:120]
            problems.append(f"{text} ({drawn} of {expected} glyphs; fonts: {fonts})")
    session.detach()
    return problems


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
    alts = page.eval_on_selector_all("img", "images => images.map(i => i.alt)")
    bad_alts = [alt for alt in alts if not alt.strip() or IMAGE_FILE.search(alt)]
    assert not bad_alts, f"images without a description: {bad_alts}"

    shown = page.evaluate(MAIN_TEXT)
    raw = RAW_MARKUP.search(shown)
    assert raw is None, (
        f"raw MyST markup shown: {shown[max(0, raw.start() - 150) : raw.end() + 150]!r}"
    )

    missing_glyphs = _cjk_not_drawn_by_the_site_font(page)
    assert not missing_glyphs, f"CJK text not drawn by the site's font: {missing_glyphs}"

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


# Wait until the search has finished listing its results and the snippets of those that
# show a page's text have arrived (each fetches its page), or 20 s have passed.
SEARCH_RESULTS = """async () => {
    const results = () => document.querySelectorAll('#search-results li');
    const snippets = () => document.querySelectorAll('#search-results li p.context');
    // results that show a page's text (API objects show their description instead)
    const pages = () => Array.from(results()).filter(li => !li.querySelector(':scope > span'));
    for (let i = 0; i < 200; i++) {
        const finished = /finished/i.test(
            (document.querySelector('#search-results .search-summary') || {}).textContent || '');
        if (finished && results().length && snippets().length === pages().length) break;
        await new Promise(done => setTimeout(done, 100));
    }
    return {
        results: results().length,
        pages: pages().length,
        snippets: Array.from(snippets()).map(node => node.textContent),
    };
}"""


@pytest.mark.parametrize("where", ["served", "from disk"])
def test_search_shows_snippets(browser, site_url, where):
    """Results come with a snippet of the page around the word, also from file://."""
    base = site_url if where == "served" else SITE.as_uri() + "/"
    page = browser.new_page()
    # "gini" is its own stem: Sphinx centres a snippet on the stemmed word ("entropi"
    # would not be found in "entropy", and the snippet would be the page's first lines)
    page.goto(f"{base}search.html?q=gini", wait_until="load")
    found = page.evaluate(SEARCH_RESULTS)
    page.close()
    assert found["pages"] >= 8
    assert len(found["snippets"]) == found["pages"], found
    with_word = [snippet for snippet in found["snippets"] if "gini" in snippet.lower()]
    assert len(with_word) >= 0.8 * len(found["snippets"]), found


def test_api_page_contents_show_long_names_whole(browser, site_url):
    """The right-hand contents of the API page: no entry is cut off at the sidebar's edge.

    The nested entries (methods) are shown as they are when their section is read.
    """
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{site_url}book/api.html", wait_until="load")
    page.add_style_tag(content=".bd-sidebar-secondary .toc-entry ul { display: block !important; }")
    report = page.evaluate(
        """() => {
            const side = document.querySelector('.bd-sidebar-secondary');
            const edge = side.getBoundingClientRect().right;
            const entries = Array.from(side.querySelectorAll('.toc-entry a'))
                .filter(a => a.getClientRects().length);
            const clipped = entries.filter(a =>
                a.scrollWidth > a.clientWidth + 1
                || [a, ...a.querySelectorAll('*')].some(
                       node => node.getBoundingClientRect().right > edge + 0.5));
            return {entries: entries.length, clipped: clipped.map(a => a.textContent.trim())};
        }"""
    )
    page.close()
    assert report["entries"] > 300  # every module, class and method
    assert not report["clipped"], f"clipped contents entries: {report['clipped'][:10]}"


def test_cjk_font_covers_every_character_of_the_site():
    """The served subset holds every CJK character of every built page."""
    fontTools = pytest.importorskip("fontTools.ttLib")
    css = (SITE / "_static" / "custom.css").read_text(encoding="utf-8")
    fonts = re.findall(r'url\("(fonts/[^"]+\.woff)"\)', css)
    assert len(fonts) == 2
    used = set()
    for html in SITE.rglob("*.html"):
        used |= set(CJK.findall(html.read_text(encoding="utf-8")))
    assert len(used) > 100
    for font in fonts:
        covered = set(map(chr, fontTools.TTFont(SITE / "_static" / font).getBestCmap()))
        assert not used - covered, (
            f"{font} lacks {sorted(used - covered)}: run book/_tools/subset_cjk_font.py"
        )
