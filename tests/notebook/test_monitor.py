"""The runtime monitor's model on a fake comm, over a stand-in with KafkaStreams' public API."""

from __future__ import annotations

import enum
import threading
import time

import pytest

from kslab.notebook.charts import nice_ticks, time_label
from kslab.notebook.monitor import RuntimeMonitor, lag_rows, rate_svg, restore_bars
from tests.notebook.test_widgets import FakeComm
from tests.runtime.runtime_fixtures import open_clients


class State(enum.Enum):
    RUNNING = 2
    NOT_RUNNING = 4


class Topology:
    state_stores = {"counts": object()}
    global_stores = {"users": object()}


class Streams:
    """The slice of ks.KafkaStreams the monitor reads."""

    state = State.RUNNING
    topology = Topology()
    dlq_topic = None
    bootstrap_servers = "127.0.0.1:9"

    def __init__(self):
        self.processed = 0

    def metrics(self):
        self.processed += 50
        return {
            "client": {"alive-stream-threads": 1, "dropped-records-total": 2,
                       "dead-letter-records": 0},
            "threads": {"app-StreamThread-1": {
                "process-total": self.processed,
                "tasks": {"0_0": {"records-lag": {"words-0": 7}},
                          "0_1": {"records-lag": {"words-1": 0}}},
            }},
        }

    def store(self, name):
        if name != "counts":
            raise KeyError(f"store {name} is not queryable yet")
        return {"kafka": 3}


@pytest.fixture(autouse=True)
def fake_comm(monkeypatch):
    import comm

    monkeypatch.setattr(comm, "create_comm", FakeComm)


def test_refresh_shows_state_lag_and_throughput():
    monitor = RuntimeMonitor(Streams(), auto=False)
    assert "<b>RUNNING</b> · 1 thread(s) · 50 records processed · 2 dropped" in \
        monitor.state_view.value
    assert "<th>lag (records)</th>" in monitor.lag_view.value
    assert "<td>StreamThread-1</td><td>0_0</td><td>words-0</td><td>7</td>" in \
        monitor.lag_view.value
    assert "after the second sample" in monitor.rate_view.value
    monitor.refresh_button.click()
    assert '<polyline points="' in monitor.rate_view.value
    assert ">records/s</text>" in monitor.rate_view.value  # the value axis and its unit
    assert ">now</text>" in monitor.rate_view.value  # the time axis
    assert ">records behind</text>" in monitor.lag_view.value  # total lag over time
    assert "total lag (now 7)" in monitor.lag_view.value
    assert "no DLQ topic configured" in monitor.dlq_view.value
    monitor.close()


def test_store_lookup_through_interactive_queries():
    monitor = RuntimeMonitor(Streams(), auto=False)
    assert monitor.store_names() == ["counts", "users"]
    monitor.store_picker.value = "counts"
    assert monitor.lookup('"kafka"') == 3
    assert "<td>counts</td><td>kafka</td><td>3</td>" in monitor.lookup_view.value
    monitor.store_picker.value = "users"
    assert monitor.lookup("x") is None
    assert "KeyError" in monitor.lookup_view.value
    monitor.close()


def test_timer_refreshes_and_a_failing_metrics_call_shows_one_line():
    streams = Streams()
    monitor = RuntimeMonitor(streams, interval=0.01)
    import time

    deadline = time.monotonic() + 5
    while len(monitor.samples) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    monitor.stop()
    assert len(monitor.samples) >= 3

    def broken():
        raise RuntimeError("broker gone")

    streams.metrics = broken
    monitor.refresh()
    assert "metrics unavailable: RuntimeError: broker gone" in monitor.state_view.value
    monitor.close()


def test_stop_ends_the_timer_and_closes_the_dead_letter_consumer():
    pytest.importorskip("confluent_kafka")
    streams = Streams()
    streams.dlq_topic = "dlq"  # refreshes read it with a consumer (its broker need not exist)
    threads, clients = set(threading.enumerate()), open_clients()  # kept: ids stay unique
    known = {id(c) for c in clients}
    monitor = RuntimeMonitor(streams, interval=0.01)
    deadline = time.monotonic() + 5
    while len(monitor.samples) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len([c for c in open_clients() if id(c) not in known]) == 1
    monitor.stop()
    assert [t.name for t in threading.enumerate() if t not in threads] == []
    assert [c for c in open_clients() if id(c) not in known] == []
    monitor.close()


def test_a_stopped_app_shows_as_stopped_with_no_live_looking_lag():
    """Issue 23: after the app is closed the monitor says so, in the state line and the lag
    tab, keeps the last count, and stops reading dead letters."""
    streams = Streams()
    monitor = RuntimeMonitor(streams, auto=False)
    monitor.refresh()
    streams.state = State.NOT_RUNNING
    streams.metrics = lambda: {"client": {"alive-stream-threads": 0, "dropped-records-total": 2,
                                          "dead-letter-records": 0}, "threads": {}}
    monitor.stop()  # draws one last sample
    assert "<b>NOT_RUNNING</b> · 0 thread(s) · 100 records processed · 2 dropped" in \
        monitor.state_view.value
    assert "the app is NOT_RUNNING: it reads no partitions" in monitor.lag_view.value
    assert "<table" not in monitor.lag_view.value
    assert len(monitor.samples) == 2  # no sample of a stopped app
    monitor.close()


def test_helpers():
    assert lag_rows({}) == []
    assert lag_rows({"threads": {"wc-9f1c-StreamThread-2": {"tasks": {"1_0": {
        "records-lag": {"words-0": 4}}}}}}) == [("StreamThread-2", "1_0", "words-0", 4)]
    svg = rate_svg([(0.0, 0), (1.0, 100), (121.0, 100)])
    assert svg.count("polyline") == 1
    assert "throughput (max 100/s, now 0/s)" in svg
    assert [label in svg for label in (">-2 min</text>", ">-60 s</text>", ">now</text>")] == \
        [True, True, True]
    assert [t in svg for t in (">0</text>", ">50</text>", ">100</text>")] == [True] * 3


def test_chart_axes_use_round_ticks_and_say_how_long_ago():
    assert nice_ticks(100) == [0, 50, 100]
    assert nice_ticks(7) == [0, 5, 10]
    assert nice_ticks(1234) == [0, 500, 1000, 1500]
    assert nice_ticks(0) == [0.0, 1.0]
    assert [time_label(s) for s in (0, 30, 89, 120, 600)] == \
        ["now", "-30 s", "-89 s", "-2 min", "-10 min"]


def test_a_restore_in_progress_shows_as_a_bar_per_partition():
    """Issue 22 item 4: the monitor shows restore progress from metrics()."""
    metrics = {"threads": {"wc-1f-StreamThread-1": {"restoring": {
        "wc-counts-changelog-0": {"restored": 2500, "total": 10000},
        "wc-counts-changelog-1": {"restored": 0, "total": 0}}}}}
    assert restore_bars(metrics) == (
        '<div class="kslab-restore">restoring wc-counts-changelog-0 (StreamThread-1): '
        '<progress value="2500" max="10000"></progress> 2,500 of 10,000 records (25%)</div>'
        '<div class="kslab-restore">restoring wc-counts-changelog-1 (StreamThread-1): '
        '<progress value="0" max="1"></progress> 0 of 1 records (0%)</div>')
    assert restore_bars({"threads": {"t": {"restoring": {}}}}) == ""


def test_a_saved_monitor_shows_its_last_sample_without_widget_code():
    monitor = RuntimeMonitor(Streams(), auto=False)
    bundle = monitor._repr_mimebundle_()  # what the kernel sends when the cell shows it
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "<kslab RuntimeMonitor: open in Jupyter to use it>"
    html = bundle["text/html"]
    assert "RuntimeMonitor, as it was when this output was made" in html
    assert "<b>RUNNING</b> · 1 thread(s) · 50 records processed · 2 dropped" in html
    assert "<td>StreamThread-1</td><td>0_0</td><td>words-0</td><td>7</td>" in html
    assert "children=(" not in html
    monitor.close()
