"""The runtime monitor's model on a fake comm, over a stand-in with KafkaStreams' public API."""

from __future__ import annotations

import enum
import threading
import time

import pytest

from kslab.notebook.monitor import RuntimeMonitor, lag_rows, rate_svg
from tests.notebook.test_widgets import FakeComm
from tests.runtime.runtime_fixtures import open_clients


class State(enum.Enum):
    RUNNING = 2


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
    assert "<td>app-StreamThread-1</td><td>0_0</td><td>words-0</td><td>7</td>" in \
        monitor.lag_view.value
    assert "after the second sample" in monitor.rate_view.value
    monitor.refresh_button.click()
    assert '<polyline points="' in monitor.rate_view.value
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


def test_helpers():
    assert lag_rows({}) == []
    assert rate_svg([(0.0, 0), (1.0, 100)]).count("polyline") == 1
