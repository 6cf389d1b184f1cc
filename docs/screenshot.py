"""Take docs/lab.png: the quickstart notebook run in a real JupyterLab, its graph on screen.

``.venv/bin/python docs/screenshot.py [OUT.png]`` starts JupyterLab on loopback over a copy of
notebooks/01-quickstart-word-count.ipynb with the kslab kernel (as tests/notebook/test_browser.py
does), runs every cell in Debian's Chromium through Playwright, scrolls to the finished
topology's graph and saves the window.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "01-quickstart-word-count.ipynb"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
KERNEL_IDLE = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = panel && panel.sessionContext && panel.sessionContext.session
        && panel.sessionContext.session.kernel;
    return !!kernel && kernel.connectionStatus === "connected" && kernel.status === "idle";
}"""


def start_lab(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    """JupyterLab over a copy of the quickstart, with the kslab kernel and lab settings."""
    prefix, root, settings = work / "prefix", work / "notebooks", work / "settings"
    root.mkdir()
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, root / NOTEBOOK)
    subprocess.run([sys.executable, str(ROOT / "extensions" / "install.py"), "--prefix",
                    str(prefix)], check=True, capture_output=True)
    overrides = json.loads((ROOT / "extensions/lab/overrides.d/kslab.json").read_text())
    for plugin, values in overrides.items():
        package, _, name = plugin.partition(":")
        target = settings / package / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, JUPYTER_PATH=str(prefix / "share" / "jupyter"),
               JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTER_RUNTIME_DIR=str(work / "rt"),
               JUPYTERLAB_WORKSPACES_DIR=str(work / "ws"))
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--IdentityProvider.token=",
         "--ServerApp.password=", f"--ServerApp.root_dir={root}",
         "--MultiKernelManager.default_kernel_name=kslab", "--LabApp.expose_app_in_browser=True"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            return server, url
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                msg = "JupyterLab did not start"
                raise RuntimeError(msg) from None
            time.sleep(0.2)


def shoot(url: str, out: Path) -> None:
    """Run the notebook and save the window with the finished topology's graph in view."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.goto(f"{url}/lab/tree/{NOTEBOOK}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            page.wait_for_function(KERNEL_IDLE, timeout=60_000)
            page.click(".lm-MenuBar-itemLabel:text-is('Run')")
            page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
            page.wait_for_selector(".kslab-driver-explorer", timeout=120_000)
            page.wait_for_function(KERNEL_IDLE, timeout=60_000)
            page.click(".jp-Notebook")
            page.keyboard.press("Control+b")  # fold the file browser: room for the graph
            cell = page.locator(".jp-CodeCell", has_text="count(materialized=")
            cell.scroll_into_view_if_needed()
            cell.evaluate("c => c.scrollIntoView({block: 'start'})")
            page.mouse.move(0, 0)
            time.sleep(0.5)
            page.screenshot(path=str(out))
        finally:
            browser.close()


def main(argv: list[str]) -> int:
    """Write the screenshot to ``argv[0]`` (default docs/lab.png)."""
    out = Path(argv[0]) if argv else ROOT / "docs" / "lab.png"
    with tempfile.TemporaryDirectory(prefix="kslab-shot-") as work:
        server, url = start_lab(Path(work))
        try:
            shoot(url, out)
        finally:
            server.terminate()
            server.wait(15)
    print(f"{out} ({out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
