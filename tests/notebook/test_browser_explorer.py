"""The driver explorer in a real browser (JupyterLab on loopback, Debian's Chromium driven by
Playwright): over a windowed count with suppress, Step marks the output rows and store entries
the record produced, the window chips say which windows are open, in grace or closed, a late
record says it was dropped, the counter reads "n of N", and the slider's arrow keys step and go
back. Screenshots go to a temporary folder (printed; ``KSLAB_SCREENSHOTS`` to choose it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.notebook.test_browser import CHROMIUM, CHROMIUM_ARGS, need, run_all

NOTEBOOK = "explorer-windows.ipynb"
SOURCE = '''\
%load_ext kslab
import pandas as pd
import kslab as ks
from kslab.widgets import DriverExplorer

builder = ks.StreamsBuilder()
(builder.stream("clicks", key_serde="string").group_by_key()
 .windowed_by(ks.TimeWindows.of_size_and_grace(60_000, 5_000)).count(materialized="per-minute")
 .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()).with_name("final"))
 .to_stream().to("final-counts"))
clicks = pd.DataFrame({"key": ["a", "b", "a", "a", "b", "a"], "value": [1] * 6,
                       "timestamp": [1_000, 2_000, 3_000, 61_000, 66_000, 4_000]})
DriverExplorer(builder, {"clicks": clicks})'''
COUNTER = "() => document.querySelector('.kslab-driver-explorer .kslab-counter').innerText"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab over a one-cell notebook that shows the explorer on a windowed count."""
    import sys

    import nbformat  # (here, not at collection: it loads jsonschema, ~3 CPU-s per xdist worker)

    from tests.notebook.test_browser import ROOT

    sys.path.insert(0, str(ROOT / "extensions"))
    from scratch_lab import start_scratch_lab, stop_scratch_lab

    work = tmp_path_factory.mktemp("explorer-lab")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SOURCE)])
    notebook.metadata["kernelspec"] = {"name": "kslab", "display_name": "kslab",
                                       "language": "python"}
    nbformat.write(notebook, work / NOTEBOOK)
    with (work / "lab.log").open("w") as log:
        try:
            started = start_scratch_lab(work / "lab", work / NOTEBOOK, log)
        except RuntimeError:
            pytest.fail("JupyterLab did not start: " + (work / "lab.log").read_text())
        try:
            yield started
        finally:
            stop_scratch_lab(started)


def test_the_explorer_marks_what_each_record_did_and_steps_with_the_keys(lab, tmp_path_factory):
    need(Path(CHROMIUM).exists(), f"no {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    shots = Path(os.environ.get("KSLAB_SCREENSHOTS") or tmp_path_factory.mktemp("screens"))
    print("explorer screenshots in", shots)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})  # a laptop's
            page.goto(lab.url_for(f"lab/tree/{NOTEBOOK}"))
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            run_all(page)
            try:
                explorer = page.wait_for_selector(".kslab-driver-explorer", timeout=90_000)
            except Exception:
                page.screenshot(path=str(shots / "no-explorer.png"), full_page=True)
                raise
            record = page.locator(".kslab-driver-explorer .kslab-record")

            def at(n: int) -> None:
                page.wait_for_function(
                    "() => document.querySelector('.kslab-driver-explorer .kslab-record')"
                    f".innerText.includes('record {n} of 6')", timeout=30_000)

            assert "record 0 of 6" in record.inner_text()
            page.screenshot(path=str(shots / "explorer-start.png"))
            assert page.evaluate(COUNTER).strip() == "0 of 6"
            for title in ("drive the next record", "rewind one record", "drive a record every",
                          "stop playing", "start again from record 0"):
                assert explorer.query_selector(f"button[title^='{title}'], "
                                               f"button[title*='{title}']") is not None, title
            for n in range(1, 6):
                explorer.query_selector("button:has-text('Step')").click()
                at(n)
            assert page.evaluate(COUNTER).strip() == "5 of 6"
            effects = page.locator(".kslab-driver-explorer .kslab-effects").inner_text()
            assert effects.startswith("this record wrote 2 output records, 2 store entries "
                                      "changed, 2 removed · stream time 1:06")
            chips = page.locator(".kslab-driver-explorer .kslab-window").all_inner_texts()
            assert chips == ["[0:00, 1:00) closed", "[1:00, 2:00) open"]
            page.wait_for_function(  # the output tab: both final counts of [0:00, 1:00)
                "() => document.querySelectorAll('.kslab-driver-explorer .kslab-outputs "
                "tr.kslab-new').length == 2", timeout=10_000)
            new_rows = page.locator(".kslab-driver-explorer .kslab-outputs tr.kslab-new")
            assert new_rows.first.evaluate("r => getComputedStyle(r.cells[0])"
                                           ".backgroundColor") == "rgb(255, 243, 196)"
            page.screenshot(path=str(shots / "explorer-step-5.png"))
            buttons = page.locator(".kslab-driver-explorer button.jupyter-button")
            clipped = buttons.evaluate_all("bs => bs.filter(b => b.scrollWidth > b.clientWidth)"
                                           ".map(b => b.innerText)")
            assert clipped == []  # every button's label whole
            width = page.evaluate("() => document.querySelector('.kslab-driver-explorer "
                                  ".widget-slider').getBoundingClientRect().width")
            assert width >= 300, width  # the slider takes the row's room
            page.click(".kslab-driver-explorer .lm-TabBar-tabLabel:text-is('stores')")
            page.wait_for_selector(".kslab-stores tr.kslab-removed", timeout=10_000)
            page.locator(".kslab-stores tr.kslab-removed").first \
                .scroll_into_view_if_needed()
            assert page.locator(".kslab-stores tr.kslab-removed").count() == 2
            page.screenshot(path=str(shots / "explorer-stores.png"))

            handle = page.locator(".kslab-driver-explorer .noUi-handle")
            handle.focus()
            page.keyboard.press("ArrowRight")  # the slider's keys: step
            at(6)
            assert "dropped: its window had closed" in page.locator(
                ".kslab-driver-explorer .kslab-effects").inner_text()
            page.screenshot(path=str(shots / "explorer-dropped.png"))
            handle.focus()
            page.keyboard.press("ArrowLeft")  # and back
            at(5)
            assert page.evaluate(COUNTER).strip() == "5 of 6"
        finally:
            browser.close()
