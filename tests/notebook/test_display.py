"""Rich display: every DSL handle and the topology answer a mimebundle with the SVG inside HTML."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

import kslab as ks
from kslab.notebook import options
from tests.notebook.fixtures import lines_frame, word_count


@pytest.fixture(autouse=True)
def builtin_renderer(monkeypatch):
    monkeypatch.setattr(options, "renderer", "builtin")


def test_topology_and_builder_show_the_graph_inside_html():
    builder, _ = word_count()
    for obj in (builder, builder.build()):
        bundle = obj._repr_mimebundle_()
        assert set(bundle) == {"text/plain", "text/html", "image/svg+xml"}
        assert '<div class="kslab-graph" data-renderer="builtin" data-max-height="480">' \
               '<div class="kslab-viewport" style="max-height:480px;overflow:auto">' \
               '<div class="kslab-canvas"><svg' in bundle["text/html"]
        assert "class=\"kslab-handle" not in bundle["text/html"]  # the whole graph alone
        assert bundle["text/html"].count("<script>") == 1  # the viewer's, once
        assert bundle["image/svg+xml"].startswith("<svg")
        assert "highlighted" not in bundle["text/html"]


@pytest.mark.parametrize("handle", ["lines", "words", "grouped", "counts"])
def test_each_handle_highlights_its_own_node(handle):
    _, handles = word_count()
    obj = handles[handle]
    html = obj._repr_mimebundle_()["text/html"]
    mark = f'<g class="node {"source" if handle == "lines" else "processor"} highlighted" ' \
           f'data-key="{obj.name}">'
    compact, _, whole = html.partition('<details class="kslab-whole">')
    assert compact.count(mark) == compact.count(" highlighted") == 1  # the neighbourhood
    assert whole.count(mark) == whole.count(" highlighted") == 1  # the whole graph, folded
    assert compact.count('data-key="more:rest"') == 1  # the rest, collapsed
    assert 'data-max-height="360"' in compact


def test_a_handle_that_needs_the_whole_graph_has_no_folded_copy():
    builder = ks.StreamsBuilder()
    last = builder.stream("in").map_values(str.upper)
    html = last._repr_mimebundle_()["text/html"]
    assert 'data-key="more:rest"' not in html
    assert "<details" not in html
    assert html.count('<div class="kslab-graph"') == 1


def test_the_preview_sits_beside_the_neighbourhood():
    _, handles = word_count(lines_frame())
    html = handles["words"]._repr_mimebundle_()["text/html"]
    graph, _, preview = html.partition('<div class="kslab-handle-preview">')
    assert '<div class="kslab-handle"><div class="kslab-handle-graph">' in graph
    assert "kslab-graph" in graph and "<table" not in graph
    assert "first record(s) forwarded by this node" in preview.split("<details")[0]


def test_branches_and_cogroups_display():
    builder = ks.StreamsBuilder()
    stream = builder.stream("in")
    split = stream.split()
    split.branch(lambda k, v: v > 0)
    assert "kslab-graph" in split._repr_mimebundle_()["text/html"]
    grouped = stream.group_by_key()
    cogrouped = grouped.cogroup(lambda k, v, a: a + v)
    assert "kslab-graph" in cogrouped._repr_mimebundle_()["text/html"]


def test_include_and_exclude_are_honoured():
    builder, _ = word_count()
    assert set(builder._repr_mimebundle_(include=["text/html"])) == {"text/html"}
    assert "image/svg+xml" not in builder._repr_mimebundle_(exclude=["image/svg+xml"])


def test_an_empty_or_unbuildable_builder_shows_one_line_not_a_traceback(monkeypatch):
    builder = ks.StreamsBuilder()
    html = builder._repr_mimebundle_()["text/html"]
    assert "kslab: the topology is empty; add a source with builder.stream(topic)" in html
    builder.stream("in")

    def broken(props=None):
        raise ks.TopologyError("bad wiring\nmore")

    monkeypatch.setattr(builder, "build_detached", broken)
    html = builder._repr_mimebundle_()["text/html"]
    assert "kslab: cannot build the topology yet (bad wiring); add the missing" in html
    assert "Traceback" not in html


def test_text_renderer_is_the_last_resort(monkeypatch):
    monkeypatch.setattr(options, "renderer", "text")
    builder, _ = word_count()
    bundle = builder._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert "Sub-topology: 1" in bundle["text/html"]


def test_displaying_does_not_change_the_builder():
    builder, handles = word_count(lines_frame())
    handles["counts"]._repr_mimebundle_()
    handles["words"]._repr_mimebundle_()
    fresh, _ = word_count()
    assert str(builder.build().describe()) == str(fresh.build().describe())


def test_driver_formatter_lists_written_topics():
    from kslab.notebook.display import driver_bundle

    builder, _ = word_count()
    with ks.TopologyTestDriver(builder.build()) as driver:
        driver.create_input_topic("lines").pipe_input(None, "a b")
        html = driver_bundle(driver)["text/html"]
    assert "counts-out" in html
    assert "kslab-graph" in html


def test_extension_registers_magic_and_formatter():
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.extension_manager.load_extension("kslab")
    assert "kslab" in ip.magics_manager.magics["line"]
    assert ks.widgets.DriverExplorer.__name__ == "DriverExplorer"
    formatter = ip.display_formatter.mimebundle_formatter
    builder, _ = word_count()
    with ks.TopologyTestDriver(builder.build()) as driver:
        assert "text/html" in formatter(driver)[0]


def test_an_apps_state_reads_as_its_name_also_inside_a_tuple():
    from IPython.testing.globalipapp import get_ipython

    from kslab.runtime.streams import State

    ip = get_ipython()
    ip.extension_manager.load_extension("kslab")
    text = ip.display_formatter.formatters["text/plain"]
    assert text(State.RUNNING) == "RUNNING"
    assert text((State.RUNNING, {"alive-stream-threads": 1})) == \
        "(RUNNING, {'alive-stream-threads': 1})"


def test_import_kslab_imports_no_widgets():
    import subprocess
    import sys

    code = ("import sys, kslab, kslab.notebook; "
            "print(any(m.split('.')[0] in ('ipywidgets', 'IPython') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def windowed_clicks() -> tuple[ks.StreamsBuilder, Any]:
    """A hopping-windowed stream over three sample clicks."""
    clicks = pd.DataFrame({"key": ["a", "b", "a"], "value": [1, 1, 1],
                           "timestamp": [5, 12, 61]})
    builder = ks.StreamsBuilder()
    windowed = (builder.stream("clicks", key_serde="string", sample=clicks).group_by_key()
                .windowed_by(ks.TimeWindows.of_size_with_no_grace(60).advance_by(30)))
    return builder, windowed


def test_a_windowed_stream_shows_the_stream_it_windows_and_each_records_windows():
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.extension_manager.load_extension("kslab")
    _, windowed = windowed_clicks()
    html = ip.display_formatter.format(windowed)[0]["text/html"]
    assert ("<b>TimeWindowedKStream KSTREAM-SOURCE-0000000000 windowed by TimeWindows{sizeMs=60, "
            "advanceMs=30, graceMs=0}</b>") in html
    assert 'highlighted" data-key="KSTREAM-SOURCE-0000000000"' in html
    assert "<th>timestamp</th><th>windows</th>" in html
    # times as m:ss.mmm (ms from 0), the raw ms on hover; windows as [start, end) times
    assert ('<td>a</td><td>1</td><td title="5 ms">0:00.005</td><td>[0:00, 0:00.060)</td>'
            in html)
    assert ('<td>a</td><td>1</td><td title="61 ms">0:00.061</td>'
            "<td>[0:00.030, 0:00.090) [0:00.060, 0:00.120)</td>") in html



def test_windowed_streams_display_without_the_extension():
    builder, windowed = windowed_clicks()
    sessions = builder.stream("s", key_serde="string").group_by_key().windowed_by(
        ks.SessionWindows.of_inactivity_gap_with_no_grace(10))
    cogrouped = builder.stream("c", key_serde="string").group_by_key().cogroup(
        lambda key, value, agg: agg).windowed_by(ks.TimeWindows.of_size_with_no_grace(10))
    html = windowed._repr_mimebundle_()["text/html"]
    assert "<b>TimeWindowedKStream KSTREAM-SOURCE-0000000000 windowed by" in html
    assert "<b>SessionWindowedKStream" in sessions._repr_mimebundle_()["text/html"]
    assert "<svg" in cogrouped._repr_mimebundle_()["image/svg+xml"]

def test_windowed_keys_show_with_their_window_and_as_kafka_prints_them_on_hover():
    _, windowed = windowed_clicks()
    html = windowed.count()._repr_mimebundle_()["text/html"]
    assert ('<td title="[a@0/60]">a [0:00, 0:00.060)</td><td>1</td>'
            '<td title="5 ms">0:00.005</td>') in html
    assert ('<td title="[a@30/90]">a [0:00.030, 0:00.090)</td><td>1</td>'
            '<td title="61 ms">0:00.061</td>') in html
    assert "<th>windows</th>" not in html  # a windowed table's keys carry their window
