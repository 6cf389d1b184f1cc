"""The renderer chain: dot, graphviz-pure, the built-in layout, text; and its failure notes."""

from __future__ import annotations

import html
import re
import time
import xml.dom.minidom

import pytest

from kslab.notebook import options, render
from kslab.notebook._layout import layout_svg
from kslab.topology.rendering import to_rendered
from tests.notebook.fixtures import word_count


@pytest.fixture
def topology():
    builder, _ = word_count()
    return builder.build()


def test_builtin_layout_is_well_formed_svg_with_shapes_and_clusters(topology):
    svg = layout_svg(to_rendered(topology, "counts"))
    xml.dom.minidom.parseString(svg)  # well-formed
    assert svg.count('class="cluster"') == 2
    assert 'class="node store highlighted"' in svg
    assert 'class="node topic internal"' in svg  # the repartition and changelog topics
    assert svg.count('class="node source') == 2
    assert "<ellipse" in svg  # the store's cylinder
    assert layout_svg(to_rendered(topology, "counts")) == svg  # deterministic


def test_builtin_layout_survives_a_cycle_through_a_topic():
    import kslab as ks

    builder = ks.StreamsBuilder()
    builder.stream("loop").filter(lambda k, v: v < 3).map_values(lambda v: v + 1).to("loop")
    svg = layout_svg(to_rendered(builder.build()))
    xml.dom.minidom.parseString(svg)
    assert "topic:loop" in svg


def test_auto_uses_dot_when_present_and_falls_back(topology, monkeypatch):
    if render.find_program("dot"):
        assert render.draw(topology).renderer == "dot"
    monkeypatch.setattr(render, "find_program", lambda name: None)
    drawing = render.draw(topology)
    assert drawing.renderer == "builtin"
    assert drawing.note is None  # absent renderers are not a failure in auto mode


def test_each_renderer_on_request(topology):
    for name in render.RENDERERS:
        if name in ("dot", "graphviz-pure") and not render.find_program(name):
            continue
        drawing = render.draw(topology, "counts", renderer=name)
        assert drawing.renderer == name
        assert "KSTREAM-AGGREGATE-0000000003" in html.unescape(drawing.svg)


def test_a_failing_renderer_gives_one_line_saying_what_to_do(topology, monkeypatch):
    def broken(*args):
        raise RuntimeError("dot crashed\nwith a long trace")

    monkeypatch.setitem(render._RUN, "dot", broken)
    monkeypatch.setitem(render._RUN, "graphviz-pure", broken)
    drawing = render.draw(topology)
    assert drawing.renderer == "builtin"
    assert "\n" not in drawing.note
    assert "dot failed (RuntimeError: dot crashed)" in drawing.note
    assert "pip install graphviz-pure" in drawing.note
    assert 'class="kslab-note"' in drawing.html()


def test_a_missing_renderer_that_was_asked_for_is_named(topology, monkeypatch):
    monkeypatch.setattr(render, "find_program", lambda name: None)
    drawing = render.draw(topology, renderer="dot")
    assert drawing.renderer == "builtin"
    assert drawing.note.startswith("kslab: dot is not installed")


def test_options_pick_the_renderer(topology, monkeypatch):
    monkeypatch.setattr(options, "renderer", "text")
    drawing = render.draw(topology)
    assert drawing.renderer == "text"
    assert drawing.svg.startswith('<pre class="kslab-describe">Topologies:')
    with pytest.raises(ValueError, match="unknown renderer 'svgx'"):
        render.draw(topology, renderer="svgx")


def test_dot_svg_loses_its_prolog_for_inline_html(topology):
    if not render.find_program("dot"):
        pytest.skip("no dot here")
    svg = render.draw(topology, renderer="dot").svg
    assert svg.startswith('<svg class="kslab-svg" ')
    assert not re.search(r"<\?xml|<!DOCTYPE", svg)


def test_builtin_renders_fifty_nodes_fast():
    import kslab as ks

    builder = ks.StreamsBuilder()
    stream = builder.stream("in")
    for _ in range(48):
        stream = stream.map_values(lambda v: v)
    stream.to("out")
    topology = builder.build()
    start = time.perf_counter()
    render.draw(topology, renderer="builtin")
    assert time.perf_counter() - start < 0.5
