// Search results with snippets when the site is opened from disk (file://).
//
// Sphinx's search shows a snippet of each result by fetch()ing the page and reading its
// main text; browsers refuse fetch() of file:// URLs, so offline the results came without
// snippets. _static/search_texts.js (written at build time by book/_ext/offline_assets.py)
// holds each page's main text and the span of each section in it; here fetch() of a page
// of the site answers with that text, laid out as the HTML the search reads. Served over
// http(s), nothing changes.
(() => {
  if (window.location.protocol !== "file:") return;
  const escape = (text) =>
    text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const quote = (text) => escape(text).replace(/"/g, "&quot;");
  const original = window.fetch.bind(window);
  window.fetch = (resource, options) => {
    const texts = window.OFFLINE_SEARCH_TEXTS || {};
    const root = new URL(document.documentElement.dataset.content_root || "", window.location.href);
    const url = new URL(resource instanceof Request ? resource.url : String(resource), root);
    const name = decodeURIComponent(url.pathname.slice(root.pathname.length)).replace(/\.html$/, "");
    const page = url.href.startsWith(root.href) ? texts[name] : undefined;
    if (!page) return original(resource, options);
    // The whole text first (a result without an anchor reads it), then one block per section.
    let html = `<div role="main"><div>${escape(page.text)}</div>`;
    for (const [id, [start, end]] of Object.entries(page.sections)) {
      html += `<div id="${quote(id)}">${escape(page.text.slice(start, end))}</div>`;
    }
    html += "</div>";
    return Promise.resolve(new Response(html, { headers: { "Content-Type": "text/html" } }));
  };
})();
