"""The one real-browser test: JupyterLab on loopback, Debian's Chromium driven by Playwright.

It opens the quickstart notebook on the kslab kernel, runs all cells, checks that the graph and
the driver explorer are on the page, and that clicking Step changes the record shown while the
explorer's tables keep their width and whole tab titles (in a laptop-wide window).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "extensions"))
from scratch_lab import KERNEL_IDLE, start_scratch_lab, stop_scratch_lab  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
NOTEBOOK = "01-quickstart-word-count.ipynb"
TABLES = """() => {
    const tab = document.querySelector('.kslab-driver-explorer .jupyter-widget-tab');
    const labels = [...tab.querySelectorAll('.lm-TabBar-tabLabel')];
    return {width: tab.getBoundingClientRect().width,
            clipped: labels.filter(l => l.scrollWidth > l.clientWidth).map(l => l.innerText)};
}"""  # the explorer's tables: their width and the tab titles cut short


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"{why}; .ci/run installs it")
        pytest.skip(why)


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on 127.0.0.1 over a copy of the quickstart, with the kslab kernel."""
    _need(Path(CHROMIUM).exists(), f"no {CHROMIUM} (apt-get install chromium)")
    jupyter = Path(sys.executable).parent / "jupyter"
    _need(jupyter.exists(), "no jupyter in this environment (pip install 'kslab[notebook]')")
    with (tmp_path / "lab.log").open("w") as log:
        try:
            server, url = start_scratch_lab(tmp_path, ROOT / "notebooks" / NOTEBOOK, log)
        except RuntimeError:
            pytest.fail("JupyterLab did not start: " + (tmp_path / "lab.log").read_text())
        try:
            yield url
        finally:
            stop_scratch_lab(server)


def run_all(page) -> None:
    """Run > Run All Cells once the notebook's kernel is connected and idle."""
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")


def test_quickstart_runs_in_jupyterlab_and_step_moves_the_record(lab):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 1000})  # a laptop's
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
            tables = page.evaluate(TABLES)
            assert tables["clipped"] == []
            for n in range(1, 5):
                explorer.query_selector("button:has-text('Step')").click()
                page.wait_for_function(
                    "() => document.querySelector('.kslab-driver-explorer .kslab-record')"
                    f".innerText.includes('record {n} of 4')", timeout=30_000)
                if n == 1:
                    assert "the quick brown fox" in record.inner_text()
                assert page.evaluate(TABLES) == tables  # steady while stepping
            assert page.locator(".jp-OutputArea-output[data-mime-type*='error']").count() == 0
        finally:
            browser.close()
