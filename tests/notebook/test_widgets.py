"""Widget models on a fake comm: click Step, move the slider, assert state and tables."""

from __future__ import annotations

import pandas as pd
import pytest

import kslab as ks
from kslab.notebook import options
from tests.notebook.fixtures import lines_frame, word_count


class FakeComm:
    """Records what a widget sends; ``kernel`` is set so ipywidgets reports its errors."""

    comm_id = "fake"

    def __init__(self, *args, **kwargs):
        self.kernel = object()
        self.sent = []
        self.comm_id = kwargs.get("comm_id") or f"fake-{id(self)}"

    def send(self, data=None, metadata=None, buffers=None):
        self.sent.append({"data": data, "metadata": metadata, "buffers": buffers or []})

    def on_msg(self, callback):
        self.callback = callback

    def close(self, *args, **kwargs):
        pass

    def on_close(self, callback):
        pass

    def open(self, *args, **kwargs):
        pass


@pytest.fixture(autouse=True)
def fake_comm(monkeypatch):
    import comm

    monkeypatch.setattr(comm, "create_comm", FakeComm)
    monkeypatch.setattr(options, "renderer", "builtin")


@pytest.fixture
def explorer():
    from kslab.widgets import DriverExplorer

    builder, _ = word_count()
    widget = DriverExplorer(builder, {"lines": lines_frame()})
    yield widget
    widget.close()


def test_click_step_drives_one_record_and_updates_the_views(explorer):
    assert explorer.position == 0
    assert "nothing driven yet" in explorer.record_view.value
    explorer.step_button.click()
    assert explorer.position == 1
    assert explorer.slider.value == 1
    assert ('key <code>None</code> value <code>the quick fox</code> timestamp '
            '<code title="1 ms">0:00.001</code>') in explorer.record_view.value
    assert explorer.path()[0] == "KSTREAM-SOURCE-0000000000"
    assert "KSTREAM-AGGREGATE-0000000003" in explorer.path()
    assert explorer.graph_view.value.count(" highlighted") >= 5
    assert explorer.outputs()["counts-out"] == [("the", 1, 1), ("quick", 1, 1), ("fox", 1, 1)]
    assert "<td>fox</td><td>1</td>" in explorer.outputs_view.value
    assert "<b>counts</b>" in explorer.stores_view.value


def test_the_slider_rewinds_and_replays(explorer):
    explorer.slider.value = 3
    assert explorer.position == 3
    assert explorer.stores()["counts"].set_index("key").loc["dog", "value"] == 2
    explorer.slider.value = 1
    assert explorer.position == 1
    counts = explorer.stores()["counts"].set_index("key")["value"].to_dict()
    assert counts == {"the": 1, "quick": 1, "fox": 1}
    assert len(explorer.outputs()["counts-out"]) == 3
    assert "record 1 of 3" in explorer.record_view.value
    explorer.reset_button.click()
    assert explorer.position == 0
    assert explorer.stores()["counts"].empty


def test_widget_state_reaches_the_comm(explorer):
    explorer.step()
    sent = [m["data"] for m in explorer.slider.comm.sent if m["data"].get("method") == "update"]
    assert sent[-1]["state"] == {"value": 1}


def test_play_and_pause_drive_the_player(explorer):
    explorer.play()
    assert explorer.playing
    explorer.player.value = 2  # what the front end's timer does
    assert explorer.position == 2
    explorer.pause()
    assert not explorer.playing


def test_long_rewinds_use_checkpoints_and_the_progress_bar():
    from kslab.notebook import widgets
    from kslab.widgets import DriverExplorer

    builder, _ = word_count()
    frame = lines_frame([f"w{i % 7}" for i in range(260)])
    explorer = DriverExplorer(builder, {"lines": frame}, rewind="snapshot")
    seen = []
    explorer.progress.observe(lambda c: seen.append(c["new"]), names="value")
    explorer.seek(260)
    assert seen and explorer.progress.layout.display == "none"
    # internal on purpose: where the explorer keeps its snapshots
    assert sorted(explorer._checkpoints) == [0, 50, 100, 150, 200, 250]
    explorer.seek(120)
    assert explorer.position == 120
    assert explorer.stores()["counts"]["value"].sum() == 120
    assert widgets.CHECKPOINT_EVERY == 50
    explorer.close()


def test_replay_mode_rewinds_with_a_fresh_driver():
    from kslab.widgets import DriverExplorer

    builder, _ = word_count()
    explorer = DriverExplorer(builder, {"lines": lines_frame()})
    assert explorer.rewind_mode == "replay"
    explorer.seek(3)
    first = explorer.driver
    explorer.seek(1)
    assert explorer.driver is not first and first.closed
    assert explorer.stores()["counts"]["value"].sum() == 3
    explorer.step()
    assert explorer.position == 2
    explorer.close()


def test_an_error_shows_in_the_record_view_and_stops_driving():
    from kslab.widgets import DriverExplorer

    builder = ks.StreamsBuilder()
    builder.stream("nums").map_values(lambda v: 1 / v).to("out")
    frame = pd.DataFrame({"key": ["a", "b", "c"], "value": [1, 0, 2], "timestamp": [1, 2, 3]})
    explorer = DriverExplorer(builder, {"nums": frame})
    explorer.seek(3)
    assert explorer.position == 2
    assert "ZeroDivisionError: division by zero (record 1: topic &#x27;nums&#x27; row 1" in \
        explorer.record_view.value
    explorer.seek(1)
    assert explorer.error is None
    explorer.close()


def test_a_topology_without_sinks_shows_the_empty_output_tab():
    from kslab.widgets import DriverExplorer

    builder = ks.StreamsBuilder()
    builder.stream("lines").flat_map_values(str.split).foreach(lambda k, v: None)
    explorer = DriverExplorer(builder, {"lines": lines_frame()})
    explorer.step()
    assert explorer.outputs() == {}
    assert explorer.outputs_view.value.endswith('<div class="kslab-muted">no output topics</div>')
    assert explorer.stores_view.value.endswith('<div class="kslab-muted">no stores</div>')
    assert explorer.tables.titles == ("output topics", "stores")
    explorer.close()


def test_a_frame_without_key_or_value_is_refused_in_one_line():
    from kslab.widgets import DriverExplorer

    builder, _ = word_count()
    with pytest.raises(ValueError, match=r"^the sample for topic 'lines' has no value column"):
        DriverExplorer(builder, {"lines": pd.DataFrame({"key": [1], "text": ["x"]})})


def test_store_browser_selects_and_looks_up(explorer):
    from kslab.widgets import StoreBrowser

    explorer.seek(3)
    browser = StoreBrowser(explorer)
    assert browser.store_names() == ["counts"]
    assert "<td>quick</td><td>2</td>" in browser.table.value
    browser.lookup("dog")
    assert browser.table.value.endswith(
        '<tr><td>dog</td><td>2</td><td title="3 ms">0:00.003</td></tr></table>')
    browser.lookup("")
    browser.select("counts")
    assert "<td>the</td><td>2</td>" in browser.table.value


def test_plot_windows_from_start_columns_and_windowed_keys():
    from kslab.widgets import plot_windows

    frame = pd.DataFrame({
        "key": ["a", "a", "b", "a"],
        "start": [0, 60_000, 0, 60_000],
        "end": [60_000, 120_000, 60_000, 120_000],
        "value": [3, 1, 2, 4],
    })
    chart = plot_windows(frame)
    assert chart.series == {"a": [(0, 3), (60_000, 4)], "b": [(0, 2)]}
    assert chart._repr_mimebundle_()["text/html"].count('class="series"') == 2
    windowed = pd.DataFrame({
        "key": [ks.Windowed("a", ks.Window(0, 10)), ks.Windowed("a", ks.Window(10, 20))],
        "value": [1, 2],
    })
    assert plot_windows(windowed).series == {"a": [(0, 1), (10, 2)]}
    with pytest.raises(ValueError, match="plot_windows needs a 'value' column"):
        plot_windows(pd.DataFrame({"x": [1]}))


def windowed_final_counts() -> tuple[ks.StreamsBuilder, pd.DataFrame]:
    """Clicks counted per 60 ms window (grace 5), final counts only, and five sample clicks."""
    builder = ks.StreamsBuilder()
    (builder.stream("clicks", key_serde="string").group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(60, 5)).count(materialized="per-window")
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())
               .with_name("final"))
     .to_stream().to("final-counts"))
    clicks = pd.DataFrame({"key": ["a", "b", "a", "a", "b"], "value": [1] * 5,
                           "timestamp": [1, 2, 3, 61, 66]})
    return builder, clicks


def test_the_suppress_buffer_and_window_stores_are_browsable():
    from kslab.widgets import DriverExplorer, StoreBrowser

    builder, clicks = windowed_final_counts()
    explorer = DriverExplorer(builder, {"clicks": clicks})
    explorer.seek(4)  # stream time 61: window [0, 60) stays open until 65
    buffer = explorer.stores()["final-store"]
    assert list(buffer.columns) == ["key", "start", "end", "value", "buffer_time", "timestamp"]
    assert buffer.values.tolist() == [["a", 0, 60, 2, 60, 3], ["b", 0, 60, 1, 60, 2],
                                      ["a", 60, 120, 1, 120, 61]]
    explorer.seek(5)  # stream time 66: window [0, 60) emitted and gone from the buffer
    assert explorer.stores()["final-store"].values.tolist() == [
        ["a", 60, 120, 1, 120, 61], ["b", 60, 120, 1, 120, 66]]
    assert [k.window.start for k, _, _ in explorer.outputs()["final-counts"]] == [0, 0]
    browser = StoreBrowser(explorer)
    assert browser.store_names() == ["final-store", "per-window"]
    assert ('<td>a</td><td title="60 ms">0:00.060</td><td title="120 ms">0:00.120</td><td>1</td>'
            '<td title="120 ms">0:00.120</td><td title="61 ms">0:00.061</td>') \
        in browser.table.value
    browser.select("per-window")
    browser.lookup("a")  # a window store has no get(): the key's rows, one per window
    assert '<td>a</td><td title="0 ms">0:00</td><td title="60 ms">0:00.060</td>' \
        in browser.table.value
    assert "<td>b</td>" not in browser.table.value
    explorer.seek(1)  # the aggregate and suppress see stream time 1 again, not 66
    assert explorer.stores()["final-store"].values.tolist() == [["a", 0, 60, 1, 60, 1]]
    assert explorer.driver.metrics()["0_0"]["dropped-records-total"] == 0
    explorer.seek(5)
    assert [k.window.start for k, _, _ in explorer.outputs()["final-counts"]] == [0, 0]


def test_plot_windows_labels_every_window_and_counts_in_whole_numbers():
    import re

    from kslab.widgets import plot_windows

    frame = pd.DataFrame({"key": ["a", "a", "a"], "start": [0, 60_000, 120_000],
                          "end": [60_000, 120_000, 180_000], "clicks": [3, 1, 4]})
    svg = plot_windows(frame, value="clicks").svg
    labels = re.findall(r'text-anchor="(?:middle|end)">([^<]+)</text>', svg)
    assert labels[:5] == ["0", "1", "2", "3", "4"]  # gridlines: whole numbers up to the top
    # ms from 0 read as m:ss, as every table shows them (not as hours of 1 January 1970)
    assert labels[5:8] == ["0:00", "1:00", "2:00"]  # one tick per window start
    assert "window start (m:ss)</text>" in svg and ">clicks</text>" in svg
    assert "<title>a at 2:00: 4</title>" in svg
    seconds = pd.DataFrame({"key": ["a", "a"], "start": [1_500, 3_000], "value": [0.5, 1.5]})
    svg = plot_windows(seconds).svg
    assert ">0:01.500<" in svg and ">0:03<" in svg and ">0.5</text>" in svg
    epoch = pd.DataFrame({"key": ["a", "a"], "start": [1_700_000_040_000, 1_700_000_100_000],
                          "value": [1, 2]})  # real times: the hour and minute, in UTC
    svg = plot_windows(epoch).svg
    assert ">22:14<" in svg and ">22:15<" in svg and "window start (UTC)</text>" in svg
    many = pd.DataFrame({"key": ["a"] * 20, "start": [i * 60_000 for i in range(20)],
                         "value": range(20)})
    assert plot_windows(many).svg.count('y2="256" stroke="#333"/>') == 7  # at most 8 labels


def test_each_step_marks_what_its_record_did_and_where_the_windows_stand():
    from kslab.widgets import DriverExplorer

    builder, clicks = windowed_final_counts()
    late = pd.DataFrame({"key": ["a"], "value": [1], "timestamp": [4]})  # window [0, 60) closed
    explorer = DriverExplorer(builder, {"clicks": pd.concat([clicks, late], ignore_index=True)})
    explorer.seek(4)  # stream time 61: [0, 60) in grace until 65, [60, 120) open
    windows = explorer.windows()
    assert [(r.start, r.end, r.state, r.closes_at) for r in windows] == [
        (0, 60, "grace", 65), (60, 120, "open", 125)]
    assert ('<span class="kslab-window grace" title="stream time is past the window&#x27;s end '
            'but before end + grace: late records for it are still counted; closes at stream '
            'time 0:00.065 (65 ms)">[0:00, 0:00.060) in grace</span>') in explorer.record_view.value
    assert ("this record wrote 0 output records, 2 store entries changed · stream time "
            '<code title="61 ms">0:00.061</code>') in explorer.record_view.value
    assert explorer.counter.value == "<b>4</b> of 6"

    explorer.step()  # stream time 66 closes [0, 60): suppress emits both final counts
    effects = explorer.effects
    assert effects.new_outputs == {"final-counts": 2}
    assert effects.changed == {"final-store": {1}, "per-window": {3}}
    assert effects.removed == {"final-store": [("a", 0, 60, 2, 60, 3), ("b", 0, 60, 1, 60, 2)]}
    assert "2 output records, 2 store entries changed, 2 removed" in explorer.record_view.value
    assert "[0:00, 0:00.060) closed</span>" in explorer.record_view.value
    assert explorer.outputs_view.value.count('<tr class="kslab-new">') == 2
    assert "(2 records, 2 new from this record)" in explorer.outputs_view.value
    assert explorer.stores_view.value.count('<tr class="kslab-new">') == 2
    assert explorer.stores_view.value.count('<tr class="kslab-removed">') == 2
    assert "(2 entries: 1 changed, 2 removed by this record)" in explorer.stores_view.value

    explorer.step()  # the click at 4 comes after [0, 60) closed: dropped
    assert explorer.effects.dropped == 1 and explorer.effects.changed == {}
    assert ('<span class="kslab-dropped">dropped: its window had closed ([0:00, 0:00.060) at '
            'stream time 0:00.065, its end + grace); counted in dropped-records-total</span>') \
        in explorer.record_view.value
    assert '<tr class="kslab-new">' not in explorer.outputs_view.value

    explorer.back_button.click()  # back to 5: the same marks as when stepping to it
    assert explorer.position == 5 and explorer.effects == effects
    explorer.seek(0)
    assert "no record driven" in explorer.record_view.value
    assert "stream time" not in explorer.record_view.value
    explorer.close()


def test_the_controls_carry_tooltips_and_loop_sets_the_timer_repeat(explorer):
    tips = {b.description: b.tooltip for b in (
        explorer.back_button, explorer.step_button, explorer.play_button,
        explorer.stop_button, explorer.loop_button, explorer.reset_button)}
    assert all(tips.values()) and set(tips) == {"Back", "Step", "Play", "Stop", "Loop", "Reset"}
    assert "→" in tips["Step"] and "←" in tips["Back"]
    assert explorer.player.layout.display == "none"  # its buttons have no tooltips
    explorer.loop_button.value = True
    assert explorer.player.repeat
    explorer.seek(3)
    explorer.play_button.click()  # at the end: play starts over
    assert explorer.playing and explorer.position == 0
    explorer.stop_button.click()
    assert not explorer.playing
    explorer.back_button.click()  # at 0: nothing to rewind
    assert explorer.position == 0
    assert explorer.slider.layout.flex == "1 1 auto" and not explorer.slider.readout


def test_sliding_and_session_windows_close_after_their_inclusive_end():
    from kslab.widgets import DriverExplorer

    clicks = pd.DataFrame({"key": ["a", "a", "b"], "value": [1] * 3, "timestamp": [10, 30, 45]})
    sliding = ks.StreamsBuilder()
    (sliding.stream("c", key_serde="string").group_by_key()
     .windowed_by(ks.SlidingWindows.of_time_difference_and_grace(10, 5)).count())
    explorer = DriverExplorer(sliding, {"c": clicks})
    explorer.seek(3)  # stream time 45: [20, 30] closed once 30 < 45 - 5; [35, 45] still on time
    assert [(r.start, r.end, r.state, r.closes_at) for r in explorer.windows()] == [
        (20, 30, "closed", 36), (35, 45, "open", 51)]
    explorer.close()
    session = ks.StreamsBuilder()
    (session.stream("c", key_serde="string").group_by_key()
     .windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(10, 5)).count())
    explorer = DriverExplorer(session, {"c": clicks})
    explorer.seek(3)  # a session closes once its end < stream time - grace - gap
    assert [(r.start, r.end, r.state, r.closes_at) for r in explorer.windows()] == [
        (45, 45, "open", 61)]
    explorer.close()


def test_picking_a_node_shows_the_records_it_received(explorer):
    assert explorer.node_pick.value is None
    assert "click a node in the graph" in explorer.node_view.value
    assert explorer.node_pick.options == tuple(explorer.topology.nodes)
    explorer.seek(2)
    explorer.node_pick.value = "KSTREAM-FLATMAPVALUES-0000000001"  # what a click in the graph sets
    assert explorer.node_records("KSTREAM-FLATMAPVALUES-0000000001") == [
        (1, None, "the quick fox", 1), (2, None, "the lazy dog", 2)]
    assert "<b>KSTREAM-FLATMAPVALUES-0000000001</b> received 2 record(s)" \
        in explorer.node_view.value
    assert "<td>2</td><td>None</td><td>the lazy dog</td>" in explorer.node_view.value
    explorer.step()  # the picked node's records follow the steps
    assert "received 3 record(s)" in explorer.node_view.value
    explorer.select_node("KSTREAM-AGGREGATE-0000000003")
    assert [r[1:3] for r in explorer.node_records("KSTREAM-AGGREGATE-0000000003")][-3:] == [
        ("a", "a"), ("quick", "quick"), ("dog", "dog")]
    with pytest.raises(ValueError, match="no node 'nope' in this topology; pick one of: "
                                         "KSTREAM-SOURCE-0000000000"):
        explorer.select_node("nope")


def test_the_graph_panel_is_a_viewer_that_keeps_its_place(explorer):
    html = explorer.graph_view.value
    assert f'data-view="explorer-{id(explorer)}"' in html
    assert 'data-max-height="380"' in html
    assert "<script>" not in html  # a widget's HTML runs none: the Output below runs it
    viewer = explorer.graph_panel.children[-1]
    assert "window.kslabGraphs" in viewer.outputs[0]["data"]["text/html"]
