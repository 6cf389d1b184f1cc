"""The graph viewer's script in Chromium on a plain page (no Jupyter): zoom limits, pan, the
full-window view, picking a node into a widget's drop-down, the "+N more" node, and the
picture without the script."""

from __future__ import annotations

from pathlib import Path

import pytest

from kslab.notebook import options
from kslab.notebook.viewer import MIN_LABEL_PX, graph_html
from tests.notebook.fixtures import lines_frame, word_count
from tests.notebook.test_browser import CHROMIUM, CHROMIUM_ARGS, need

SIZES = """() => [...document.querySelectorAll('.kslab-graph')].map(g => {
    const texts = [...g.querySelectorAll('text')].map(t => t.getBoundingClientRect().height)
        .filter(h => h > 0);
    return {live: g.classList.contains('kslab-live'), smallest: Math.min(...texts),
            zoom: (g.querySelector('.kslab-zoom') || {}).innerText};
})"""
PICKER = """<div class="kslab-pick-scope">{graph}<div class="kslab-node-pick"><select>
<option value=""></option><option value="KSTREAM-SOURCE-0000000000">src</option></select>
</div></div><script>document.querySelector('select').addEventListener('change',
e => {{ window.picked = e.target.value; }});</script>"""


@pytest.fixture(scope="module")
def page():
    need(Path(CHROMIUM).exists(), f"no {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(viewport={"width": 1000, "height": 700})
        finally:
            browser.close()


@pytest.fixture(scope="module")
def handle_html():
    _, handles = word_count(lines_frame())
    return handles["words"]._repr_mimebundle_()["text/html"]


def test_a_handle_becomes_a_viewer_that_zooms_only_to_legible_labels(page, handle_html):
    page.set_content(f"<html><body>{handle_html}</body></html>")
    page.wait_for_selector(".kslab-live")
    graph = page.locator(".kslab-graph").first
    box = graph.locator(".kslab-viewport").bounding_box()
    page.mouse.move(box["x"] + 50, box["y"] + 50)
    for _ in range(10):
        page.mouse.wheel(0, 500)  # zoom out as far as it goes
    page.wait_for_timeout(100)
    smallest = page.evaluate(SIZES)[0]["smallest"]
    assert MIN_LABEL_PX <= smallest < MIN_LABEL_PX * 1.4  # a 10 px font's glyphs: 11-13 px
    page.mouse.wheel(0, -300)
    page.wait_for_timeout(100)
    assert page.evaluate(SIZES)[0]["smallest"] > smallest
    graph.locator("button", has_text="1:1").click()
    assert graph.locator(".kslab-zoom").inner_text() == "100%"
    canvas = graph.locator(".kslab-canvas")
    page.mouse.move(box["x"] + 50, box["y"] + 50)
    page.mouse.down()
    page.mouse.move(box["x"] + 90, box["y"] + 70, steps=4)
    page.mouse.up()
    assert canvas.evaluate("c => c.style.transform") == "translate(40px, 20px) scale(1)"


def test_the_more_node_opens_the_whole_graph_and_full_window_closes_on_escape(page, handle_html):
    page.set_content(f"<html><body>{handle_html}</body></html>")
    page.wait_for_selector(".kslab-live")
    whole = page.locator("details.kslab-whole")
    assert whole.evaluate("d => d.open") is False
    page.locator(".kslab-handle g.node", has=page.locator("text=+11 more")).click()
    assert whole.evaluate("d => d.open") is True
    page.locator(".kslab-handle button", has_text="full window").click()
    full = page.locator("body > .kslab-graph.kslab-full")
    assert full.bounding_box() == {"x": 0, "y": 0, "width": 1000, "height": 700}
    page.keyboard.press("Escape")
    assert full.count() == 0


def test_a_click_picks_the_node_in_the_scopes_drop_down(page, monkeypatch):
    monkeypatch.setattr(options, "renderer", "builtin")  # the builtin layout's nodes too
    builder, _ = word_count()
    from kslab.notebook.render import draw

    graph = draw(builder.build()).html()
    page.set_content(f"<html><body>{PICKER.format(graph=graph)}</body></html>")
    page.wait_for_selector(".kslab-live.kslab-pickable")
    page.locator('g.node[data-key="KSTREAM-SOURCE-0000000000"]').click()
    assert page.evaluate("() => window.picked") == "KSTREAM-SOURCE-0000000000"


def test_without_the_script_the_picture_is_natural_size_in_a_scroll_box(page):
    builder, _ = word_count()
    from kslab.notebook.render import draw

    drawing = draw(builder.build())
    html = graph_html(drawing.svg, drawing.renderer, script=False)
    page.set_content(f"<html><body style='width:300px'>{html}</body></html>")
    sizes = page.evaluate(SIZES)
    assert sizes[0]["live"] is False
    assert sizes[0]["smallest"] >= 11  # not shrunk to the 300 px body
    viewport = page.locator(".kslab-viewport")
    assert viewport.evaluate("v => v.scrollWidth > v.clientWidth")  # it scrolls instead
    assert viewport.bounding_box()["height"] <= 480
