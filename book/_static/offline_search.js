// Search results with snippets when the site is opened from disk (file://).
//
// Sphinx's search shows a snippet of each result by fetch()ing the page and reading its
// main text; browsers refuse fetch() of file:// URLs, so offline the results came without
// snippets. _static/search_texts.js (written at build time by book/_ext/offline_assets.py)
// holds each page's main text and the span of each section in it. Read from disk, this
// script loads it and answers fetch() of a page of the site with that text, laid out as
// the HTML the search reads. Served over http(s), it does nothing.
(() => {
  if (window.location.protocol !== "file:") return;
  const root = new URL(document.documentElement.dataset.content_root || "", window.location.href);
  const loaded = new Promise((done) => {
    const script = document.createElement("script");
    script.src = new URL("_static/search_texts.js", root).href;
    script.onload = script.onerror = done;
    document.head.appendChild(script);
  });
  const escape = (text) =>
    text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const quote = (text) => escape(text).replace(/"/g, "&quot;");
  const asHtml = (page) => {
    // The whole text first (a result without an anchor reads it), then one block per
    // section, API object and glossary term (a result with that anchor reads it).
    let html = `<div role="main"><div>${escape(page.text)}</div>`;
    for (const [id, [start, end]] of Object.entries(page.sections)) {
      html += `<div id="${quote(id)}">${escape(page.text.slice(start, end))}</div>`;
    }
    return html + "</div>";
  };
  const original = window.fetch.bind(window);
  window.fetch = (resource, options) => {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), root);
    if (!url.href.startsWith(root.href) || !url.pathname.endsWith(".html")) {
      return original(resource, options);
    }
    const name = decodeURIComponent(url.pathname.slice(root.pathname.length)).replace(/\.html$/, "");
    return loaded.then(() => {
      const page = (window.OFFLINE_SEARCH_TEXTS || {})[name];
      if (!page) return original(resource, options);
      return new Response(asHtml(page), { headers: { "Content-Type": "text/html" } });
    });
  };
})();
