"""The one real-browser test: JupyterLab on loopback, Debian's Chromium driven by Playwright.

It opens the quickstart notebook on the kslab kernel, runs all cells, checks that the graph and
the driver explorer are on the page, and that clicking Step changes the record shown.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
NOTEBOOK = "01-quickstart-word-count.ipynb"


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"{why}; .ci/run installs it")
        pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on 127.0.0.1 over a copy of the quickstart, with the kslab kernel."""
    _need(Path(CHROMIUM).exists(), f"no {CHROMIUM} (apt-get install chromium)")
    jupyter = Path(sys.executable).parent / "jupyter"
    _need(jupyter.exists(), "no jupyter in this environment (pip install 'kslab[notebook]')")
    prefix, root, settings = tmp_path / "prefix", tmp_path / "notebooks", tmp_path / "settings"
    root.mkdir()
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, root / NOTEBOOK)
    subprocess.run([sys.executable, str(ROOT / "extensions" / "install.py"), "--prefix",
                    str(prefix)], check=True, capture_output=True)
    # the overrides of extensions/lab, as user settings of this throwaway lab
    overrides = json.loads((ROOT / "extensions/lab/overrides.d/kslab.json").read_text())
    for plugin, values in overrides.items():
        package, _, name = plugin.partition(":")
        target = settings / package / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    env = dict(os.environ, JUPYTER_PATH=str(prefix / "share" / "jupyter"),
               JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    port = _free_port()
    log = (tmp_path / "lab.log").open("w")
    server = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--IdentityProvider.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={root}", "--MultiKernelManager.default_kernel_name=kslab",
         "--LabApp.expose_app_in_browser=True"],  # the test waits on the kernel's status
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("JupyterLab did not start: " + (tmp_path / "lab.log").read_text())
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


_KERNEL_READY = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const ctx = panel && panel.sessionContext;
    const kernel = ctx && ctx.session && ctx.session.kernel;
    return !!kernel && kernel.connectionStatus === "connected" && kernel.status === "idle";
}"""


def run_all(page) -> None:
    """Run > Run All Cells once the notebook's kernel is connected and idle."""
    page.wait_for_function(_KERNEL_READY, timeout=60_000)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")


def test_quickstart_runs_in_jupyterlab_and_step_moves_the_record(lab):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            console: list[str] = []
            page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
            page.goto(f"{lab}/lab/tree/{NOTEBOOK}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            run_all(page)
            try:
                explorer = page.wait_for_selector(".kslab-driver-explorer", timeout=60_000)
            except Exception:
                page.screenshot(path=os.environ.get("KSLAB_SCREENSHOT", "/tmp/kslab-lab.png"),
                                full_page=True)
                print("browser console:", *console[-30:], sep="\n")
                raise
            assert page.locator(".jp-OutputArea-output .kslab-graph svg").count() >= 4
            assert page.locator(".kslab-graph .highlighted, .kslab-graph g.node polygon"
                                "[fill='#ffd54f']").count() >= 1
            record = page.locator(".kslab-driver-explorer .kslab-record")  # re-queried on use
            assert "record 0 of 4" in record.inner_text()
            explorer.query_selector("button:has-text('Step')").click()
            page.wait_for_function(
                "() => document.querySelector('.kslab-driver-explorer .kslab-record')"
                ".innerText.includes('record 1 of 4')", timeout=30_000)
            assert "the quick brown fox" in record.inner_text()
            assert page.locator(".jp-OutputArea-output[data-mime-type*='error']").count() == 0
        finally:
            browser.close()
