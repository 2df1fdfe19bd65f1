"""The chapters in JupyterLab, as ``make lab`` opens them.

One JupyterLab server on 127.0.0.1 (random port and token, configuration and
runtime folders of its own, the project's settings overrides), started once
for the module and stopped at the end with everything it started:

* the contents API opens a chapter's MyST source as a notebook (jupytext) and
  the settings make jupytext's notebook view the default viewer of ``.md``;
* a kernel runs the chapter's first code cells and prints what the stored
  notebook shows;
* headless Chromium loads the chapter's reader notebook in JupyterLab's UI:
  no MyST role or directive is shown raw, the equations carry the book's
  numbers, and the first listing is visible.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHAPTER = "book/part1_foundations/01_information_theory"
READER = ROOT / "_build" / "reader"
SETTINGS = ROOT / "book" / "_tools" / "jupyterlab"
FIRST_CELLS = 3
TIMEOUT = 90  # seconds for the server, the kernel and the UI, each
RAW = re.compile(
    r"\{(?:eq|numref|ref|cite(?::[a-z]+)?|term|doc|literalinclude|math|py:[a-z]+)\}"
    r"|:pyobject:|^\s*\([a-z0-9-]+\)=\s*$",
    re.M,
)

pytestmark = pytest.mark.jupyterlab


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def reader_notebooks():
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import reader_notebooks as reader

    reader.build(READER)
    return READER


@pytest.fixture(scope="module")
def server(tmp_path_factory, reader_notebooks):
    home = tmp_path_factory.mktemp("jupyter")
    token = secrets.token_hex(16)
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),  # the kernel imports this checkout's mltrees
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
    }
    env.pop("MPLBACKEND", None)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={ROOT}",
        f"--LabApp.app_settings_dir={SETTINGS}",
        "--ServerApp.allow_root=True",  # CI runs as root
    ]
    log = (home / "server.log").open("w")
    process = subprocess.Popen(
        command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + TIMEOUT
    try:
        while True:
            try:
                _get(f"{base}api/status?token={token}")
                break
            except (urllib.error.URLError, ConnectionError):
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start: {(home / 'server.log').read_text()}")
                time.sleep(0.5)
        yield {"base": base, "token": token}
    finally:
        try:  # shuts down the kernels, then the server
            request = urllib.request.Request(f"{base}api/shutdown?token={token}", method="POST")
            urllib.request.urlopen(request, timeout=10)
            process.wait(timeout=30)
        except Exception:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        log.close()


def test_md_chapters_open_as_notebooks_by_default(server):
    base, token = server["base"], server["token"]
    plugin = _get(f"{base}lab/api/settings/@jupyterlab/docmanager-extension:plugin?token={token}")
    viewers = plugin["schema"]["properties"]["defaultViewers"]["default"]
    assert viewers.get("markdown") == "Jupytext Notebook"
    assert viewers.get("myst") == "Jupytext Notebook"
    # the book is read offline: JupyterLab asks no website for news or updates
    news = _get(f"{base}lab/api/settings/@jupyterlab/apputils-extension:notification?token={token}")
    assert news["schema"]["properties"]["fetchNews"]["default"] == "false"
    assert news["schema"]["properties"]["checkForUpdates"]["default"] is False
    model = _get(f"{base}api/contents/{CHAPTER}.md?type=notebook&content=1&token={token}")
    assert model["type"] == "notebook"
    cells = model["content"]["cells"]
    stored = nbformat.read(ROOT / f"{CHAPTER}.ipynb", as_version=4)
    assert [c["source"] for c in cells] == [c.source for c in stored.cells]


async def _execute(base: str, token: str, kernel_id: str, sources: list[str]) -> list[str]:
    """Run the sources one by one on the kernel's websocket; return each cell's stdout."""
    from tornado.websocket import websocket_connect

    url = base.replace("http", "ws", 1) + f"api/kernels/{kernel_id}/channels?token={token}"
    connection = await websocket_connect(url)
    session = uuid.uuid4().hex
    outputs = []
    try:
        for source in sources:
            msg_id = uuid.uuid4().hex
            request = {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "session": session,
                    "username": "test",
                    "version": "5.3",
                },
                "parent_header": {},
                "metadata": {},
                "content": {
                    "code": source,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
                "channel": "shell",
            }
            await connection.write_message(json.dumps(request))
            stdout, status, idle = "", None, False
            while status is None or not idle:  # the reply, then the kernel idle: all output
                message = json.loads(await asyncio.wait_for(connection.read_message(), TIMEOUT))
                if message["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = message["header"]["msg_type"], message["content"]
                if kind == "stream" and content["name"] == "stdout":
                    stdout += content["text"]
                elif kind == "error":
                    raise AssertionError("\n".join(content["traceback"]))
                elif kind == "execute_reply":
                    status = content["status"]
                elif kind == "status":
                    idle = content["execution_state"] == "idle"
            assert status == "ok"
            outputs.append(stdout)
    finally:
        connection.close()
    return outputs


def test_first_cells_run_in_a_kernel(server):
    base, token = server["base"], server["token"]
    body = json.dumps(
        {"path": f"{CHAPTER}.md", "type": "notebook", "name": "", "kernel": {"name": "python3"}}
    ).encode()
    request = urllib.request.Request(
        f"{base}api/sessions?token={token}",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        session = json.load(response)
    stored = nbformat.read(ROOT / f"{CHAPTER}.ipynb", as_version=4)
    code = [cell for cell in stored.cells if cell.cell_type == "code"][:FIRST_CELLS]
    try:
        printed = asyncio.run(
            _execute(base, token, session["kernel"]["id"], [c.source for c in code])
        )
    finally:
        delete = urllib.request.Request(
            f"{base}api/sessions/{session['id']}?token={token}", method="DELETE"
        )
        urllib.request.urlopen(delete, timeout=30)
    expected = [
        "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
        for cell in code
    ]
    assert printed == expected
    assert printed[0].startswith("mltrees ")


def test_reader_chapter_renders_in_jupyterlab(server):
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing at /usr/bin/chromium: `apt-get install chromium`")
    sync_api = pytest.importorskip("playwright.sync_api")
    base, token = server["base"], server["token"]
    source = (ROOT / f"{CHAPTER}.md").read_text(encoding="utf-8")
    first_object = re.search(r":pyobject: (\w+)", source)[1]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(TIMEOUT * 1000)
            page.goto(f"{base}lab/tree/_build/reader/{CHAPTER}.ipynb?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .myst")
            # JupyterLab asks which kernel to start for a notebook that has none running
            page.keyboard.press("Escape")
            n_markdown = page.locator(".jp-Notebook .jp-MarkdownCell").count()
            page.wait_for_function(
                "n => document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .myst').length >= n",
                arg=n_markdown,
            )
            # the rendered text, typeset math left out (KaTeX writes "(x)=" on a line)
            shown = page.evaluate(
                """() => Array.from(document.querySelectorAll('.jp-MarkdownCell .myst'))
                          .map(node => {
                              const copy = node.cloneNode(true);
                              copy.querySelectorAll('.katex').forEach(math => math.remove());
                              return copy.textContent;
                          }).join('\\n')"""
            )
            raw = RAW.search(shown)
            assert raw is None, shown[max(0, raw.start() - 200) : raw.end() + 200]
            tags = page.evaluate(
                """() => Array.from(document.querySelectorAll('.jp-MarkdownCell .katex-display'))
                          .map(node => (node.querySelector('.tag') || {}).textContent || '')"""
            )
            assert "(1.1)" in tags
            assert len([t for t in tags if re.fullmatch(r"\(1\.\d+\)", t)]) >= 10
            # jupyterlab-myst renders a cell again when the targets of its links appear,
            # so the listing is found, scrolled to and measured in one step
            listing = page.wait_for_function(
                """name => {
                    const pre = Array.from(document.querySelectorAll('.jp-MarkdownCell .myst pre'))
                        .find(node => node.textContent.includes('def ' + name + '('));
                    if (!pre) return null;
                    pre.scrollIntoView({block: 'center'});
                    const box = pre.getBoundingClientRect();
                    const style = getComputedStyle(pre);
                    const shown = box.width > 0 && box.height > 0 && box.top >= 0
                        && box.bottom <= window.innerHeight + box.height
                        && style.visibility !== 'hidden' && style.display !== 'none';
                    return shown ? pre.textContent.split('\\n')[0] : null;
                }""",
                arg=first_object,
            ).json_value()
            assert listing.startswith(f"def {first_object}(")
        finally:
            browser.close()
