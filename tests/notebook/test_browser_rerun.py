"""All five notebooks run twice in a row in one lab session, in a real browser (issue 23).

The lab is set up as ``make lab`` sets it up: one broker for the whole lab, named to every
kernel in ``KSLAB_BOOTSTRAP_SERVERS`` and ``KSLAB_LAB_BROKER``. Each notebook is run with
Run All, then its kernel is restarted and it is run again; both runs must end with every code
cell run and no error output, and the second run's text outputs (the counts and records each
notebook prints; kslab's own ``kslab:`` status lines aside, which say what a rerun cleared) must
equal the first's, so a notebook that depended on what its
previous run left on the broker (notebook 04's offsets and changelog) would fail here.
Screenshots of each second run go to a temporary folder (``KSLAB_ARTIFACTS`` moves it).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

import kslab as ks
from tests.notebook.test_browser import CHROMIUM, CHROMIUM_ARGS, ROOT, need_browser_lab
from tests.notebook.test_browser_graphs import NB, run_all_to_end

sys.path.insert(0, str(ROOT / "extensions"))
from scratch_lab import KERNEL_IDLE, start_scratch_lab, stop_scratch_lab

NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
RESTART = "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
CLEAR = "() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')"
TEXTS = """() => [...NB.querySelectorAll('.jp-CodeCell')].map(c => [...c.querySelectorAll(
    ".jp-OutputArea-output[data-mime-type='text/plain'], .jp-OutputArea-output pre")]
    .map(o => o.innerText).join('\\n'))""".replace("NB", NB)
# what differs between two correct runs: times, durations, rates, ports, ids, memory addresses
VOLATILE = re.compile(r"\d+(\.\d+)?\s*(ms|s|rec/s|records/s|it/s)\b|\d{1,2}:\d{2}(:\d{2})?|"
                      r"127\.0\.0\.1:\d+|0x[0-9a-f]+|[0-9a-f]{8,}|\d{10,}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A scratch JupyterLab over copies of every notebook, with one lab broker, as make lab."""
    need_browser_lab()
    work = tmp_path_factory.mktemp("rerun")
    with ks.LocalBroker() as broker:
        servers = broker.bootstrap_servers
        saved = {k: os.environ.get(k) for k in ("KSLAB_BOOTSTRAP_SERVERS", "KSLAB_LAB_BROKER")}
        os.environ.update(KSLAB_BOOTSTRAP_SERVERS=servers, KSLAB_LAB_BROKER=servers)
        try:
            with (work / "lab.log").open("w") as log:
                try:
                    started = start_scratch_lab(work, ROOT / "notebooks" / NOTEBOOKS[0], log,
                                                timeout=180)
                except RuntimeError:
                    pytest.fail("JupyterLab did not start: " + (work / "lab.log").read_text())
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        for name in NOTEBOOKS[1:]:
            shutil.copy(ROOT / "notebooks" / name, work / "notebooks" / name)
        try:
            yield started
        finally:
            stop_scratch_lab(started)


def _run_all(page) -> list[str]:
    """Run All on the notebook on show, to its end; its code cells' text outputs, steadied."""
    run_all_to_end(page)
    return [VOLATILE.sub("#", "\n".join(line for line in text.splitlines()
                                         if not line.startswith("kslab:")))
            for text in page.evaluate(TEXTS)]


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_runs_twice_in_one_lab_session_with_the_same_outputs(lab, name,
                                                                        tmp_path_factory):
    from playwright.sync_api import sync_playwright

    folder = Path(os.environ.get("KSLAB_ARTIFACTS") or tmp_path_factory.mktemp("rerun-shots"))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(lab.url_for(f"lab/tree/{name}") + "&reset")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=180_000)
            first = _run_all(page)
            page.evaluate(RESTART)  # "Restart Kernel and Run All", without its dialog
            page.wait_for_function(KERNEL_IDLE, timeout=120_000)
            page.evaluate(CLEAR)  # outputs and prompts' numbers, so DONE waits for this run
            second = _run_all(page)
            page.screenshot(path=str(folder / f"{name}-second-run.png"), full_page=True)
        finally:
            browser.close()
    assert len(first) == len(second) > 0
    assert second == first, next(
        f"cell {i + 1} printed\n{b}\nthe second time, against\n{a}"
        for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b)
