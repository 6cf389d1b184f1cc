"""Take docs/lab.png: the quickstart notebook run in a real JupyterLab, its graph on screen.

``.venv/bin/python docs/screenshot.py [OUT.png]`` starts JupyterLab on loopback over a copy of
notebooks/01-quickstart-word-count.ipynb with the kslab kernel (as tests/notebook/test_browser.py
does), runs every cell in Debian's Chromium through Playwright, scrolls to the finished
topology's graph and saves the window.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "extensions"))
from scratch_lab import KERNEL_IDLE, start_scratch_lab, stop_scratch_lab  # noqa: E402

NOTEBOOK = "01-quickstart-word-count.ipynb"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def shoot(url: str, out: Path) -> None:
    """Open the notebook at ``url`` (the lab's token in it), run it and save the window with
    the finished topology's graph in view."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.goto(url)
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
        lab = start_scratch_lab(Path(work), ROOT / "notebooks" / NOTEBOOK)
        try:
            shoot(lab.url_for(f"lab/tree/{NOTEBOOK}"), out)
        finally:
            stop_scratch_lab(lab)
    print(f"{out} ({out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
