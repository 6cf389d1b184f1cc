"""The one real-browser test: JupyterLab on loopback, Debian's Chromium driven by Playwright
(and the scratch lab's token, checked on the same server).

It opens the quickstart notebook on the kslab kernel, runs all cells, checks that the graph and
the driver explorer are on the page, and that clicking Step changes the record shown while the
explorer's tables keep their width and whole tab titles (in a laptop-wide window).
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "extensions"))
from scratch_lab import (  # noqa: E402
    KERNEL_IDLE,
    lab_command,
    lab_env,
    start_scratch_lab,
    stop_scratch_lab,
)

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


def need(ok: bool, why: str) -> None:
    """Skip the test for ``why`` unless ``ok`` (fail instead under CI, which installs it all)."""
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"{why}; .ci/run installs it")
        pytest.skip(why)


def need_browser_lab() -> None:
    """What a test driving JupyterLab in Chromium needs: jupyter, Chromium and Playwright."""
    jupyter = Path(sys.executable).parent / "jupyter"
    need(jupyter.exists(), "no jupyter in this environment (pip install 'kslab[notebook]')")
    need(Path(CHROMIUM).exists(), f"no {CHROMIUM} (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 over a copy of the quickstart, with the kslab kernel."""
    jupyter = Path(sys.executable).parent / "jupyter"
    need(jupyter.exists(), "no jupyter in this environment (pip install 'kslab[notebook]')")
    work = tmp_path_factory.mktemp("lab")
    with (work / "lab.log").open("w") as log:
        try:
            started = start_scratch_lab(work, ROOT / "notebooks" / NOTEBOOK, log)
        except RuntimeError:
            pytest.fail("JupyterLab did not start: " + (work / "lab.log").read_text())
        try:
            yield started
        finally:
            stop_scratch_lab(started)


def test_the_scratch_lab_answers_only_with_its_token(lab):
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{lab.url}/api/contents", timeout=10)
    assert refused.value.code == 403
    request = urllib.request.Request(f"{lab.url}/api/contents",
                                     headers={"Authorization": f"token {lab.token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_the_token_is_random_and_off_the_command_line(tmp_path):
    options = [arg.partition("=")[0].lower() for arg in lab_command(8888, tmp_path)]
    assert not [o for o in options if "token" in o or "password" in o]  # ps shows them
    tokens = [lab_env(tmp_path)["JUPYTER_TOKEN"] for _ in range(2)]
    assert tokens[0] != tokens[1] and all(len(t) == 48 for t in tokens)


def run_all(page) -> None:
    """Run > Run All Cells once the notebook's kernel is connected and idle."""
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")


def test_quickstart_runs_in_jupyterlab_and_step_moves_the_record(lab):
    need(Path(CHROMIUM).exists(), f"no {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 1000})  # a laptop's
            console: list[str] = []
            page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
            page.goto(lab.url_for(f"lab/tree/{NOTEBOOK}"))
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
