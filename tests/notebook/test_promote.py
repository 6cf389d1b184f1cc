"""%kslab broker and %kslab promote on the real runtime: a local broker, an app, its monitor."""

from __future__ import annotations

import time

import pytest
from IPython.core.error import UsageError

import kslab as ks
from kslab import serdes
from kslab.notebook import options
from tests.notebook.fixtures import word_count
from tests.notebook.test_widgets import FakeComm

confluent_kafka = pytest.importorskip("confluent_kafka")


@pytest.fixture
def ip(monkeypatch, tmp_path):
    import comm
    from IPython.testing.globalipapp import get_ipython

    monkeypatch.setattr(comm, "create_comm", FakeComm)
    monkeypatch.setattr(options, "renderer", "builtin")
    monkeypatch.delenv("KSLAB_BOOTSTRAP_SERVERS", raising=False)
    shell = get_ipython()
    shell.extension_manager.load_extension("kslab")
    builder, _ = word_count()
    shell.user_ns["wc"] = builder
    yield shell
    shell.run_line_magic("kslab", "broker stop")
    shell.user_ns.pop("wc", None)


def test_broker_then_promote_then_query_then_stop(ip, tmp_path, capsys):
    ip.run_line_magic("kslab", "broker start")
    assert "kslab: local broker running at 127.0.0.1:" in capsys.readouterr().out
    ip.run_line_magic("kslab", "broker status")
    assert "0 app(s) promoted" in capsys.readouterr().out
    monitor = ip.run_line_magic(
        "kslab", f"promote wc --application-id nb-wc state.dir={tmp_path} "
                 "commit.interval.ms=100 consumer.session.timeout.ms=6000 "
                 "consumer.heartbeat.interval.ms=500")
    out = capsys.readouterr().out
    assert "kslab: created topics lines (1 partition each)" in out
    assert "nb-wc running on 127.0.0.1:" in out
    monitor.stop()
    streams = monitor.streams
    producer = confluent_kafka.Producer({"bootstrap.servers": streams.bootstrap_servers})
    json = serdes.Json()
    for line in ("kafka streams", "kafka lab"):
        producer.produce("lines", json.serialize("lines", line))
    assert producer.flush(10) == 0
    del producer  # before the broker goes: no reconnect noise
    monitor.store_picker.value = "counts"
    deadline = time.monotonic() + 60
    while monitor.lookup('"kafka"') != 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert monitor.lookup('"kafka"') == 2
    monitor.refresh()
    assert "<b>RUNNING</b>" in monitor.state_view.value
    assert "lines-0" in monitor.lag_view.value
    ip.run_line_magic("kslab", "broker stop")  # closes the app and the monitor's clients
    assert streams.state is ks.KafkaStreams.State.NOT_RUNNING
    assert "<b>NOT_RUNNING</b> · 0 thread(s)" in monitor.state_view.value  # issue 23: truth
    assert "the app is NOT_RUNNING: it reads no partitions" in monitor.lag_view.value
    monitor.close()
    ip.run_line_magic("kslab", "broker status")
    assert "no local broker" in capsys.readouterr().out


def test_promote_with_a_bad_config_pair_is_one_line(ip):
    with pytest.raises(UsageError, match="'nonsense' is not KEY=VALUE"):
        ip.run_line_magic("kslab", "promote wc --bootstrap-servers 127.0.0.1:1 nonsense")


def test_the_monitor_looks_up_every_window_of_a_key(ip, tmp_path):
    grace = 600_000  # stores retain size (or gap) + grace: long enough to keep every window
    builder = ks.StreamsBuilder()
    windowed = (builder.stream("clicks", key_serde="string", value_serde="string")
                .group_by_key().windowed_by(ks.TimeWindows.of_size_and_grace(60_000, grace)))
    windowed.count(materialized="per-minute")
    windowed_by_session = (builder.stream("visits", key_serde="string", value_serde="string")
                           .group_by_key()
                           .windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(
                               30_000, grace)))
    windowed_by_session.count(materialized="sessions")
    ip.user_ns["clicks_app"] = builder
    monitor = ip.run_line_magic(
        "kslab", f"promote clicks_app --application-id nb-clicks state.dir={tmp_path} "
                 "commit.interval.ms=100 consumer.session.timeout.ms=6000 "
                 "consumer.heartbeat.interval.ms=500")
    monitor.stop()
    producer = confluent_kafka.Producer({"bootstrap.servers": monitor.streams.bootstrap_servers})
    for topic, key, ts in (("clicks", "/home", 1_000), ("clicks", "/home", 2_000),
                           ("clicks", "/home", 61_000), ("clicks", "/docs", 3_000),
                           ("visits", "ada", 1_000), ("visits", "ada", 20_000),
                           ("visits", "ada", 90_000)):
        producer.produce(topic, b"x", key.encode(), timestamp=ts)
    assert producer.flush(10) == 0
    del producer
    deadline = time.monotonic() + 60
    monitor.store_picker.value = "per-minute"
    while len(monitor.lookup('"/home"') or []) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    home = monitor.lookup('"/home"')
    assert [(w.key, w.window.start, w.window.end, n) for w, n in home] == [
        ("/home", 0, 60_000, 2), ("/home", 60_000, 120_000, 1)]
    assert ('<td>per-minute</td><td>/home</td><td title="60000 ms">1:00</td>'
            '<td title="120000 ms">2:00</td><td>1</td>') in \
        monitor.lookup_view.value
    monitor.store_picker.value = "sessions"
    while len(monitor.lookup("ada") or []) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [(w.window.start, w.window.end, n) for w, n in monitor.lookup("ada")] == [
        (1_000, 20_000, 2), (90_000, 90_000, 1)]
    monitor.close()


PROMOTE = ("promote wc --application-id nb-rerun commit.interval.ms=100 "
           "consumer.session.timeout.ms=6000 consumer.heartbeat.interval.ms=500")


def produce_lines_and_count(monitor, lines, word, expected):
    """Produce ``lines``; wait until ``word``'s count reads ``expected``; return what it read."""
    producer = confluent_kafka.Producer({"bootstrap.servers": monitor.streams.bootstrap_servers})
    json = serdes.Json()
    for line in lines:
        producer.produce("lines", json.serialize("lines", line))
    assert producer.flush(10) == 0
    del producer
    monitor.store_picker.value = "counts"
    deadline = time.monotonic() + 60
    while monitor.lookup(f'"{word}"') != expected and time.monotonic() < deadline:
        time.sleep(0.2)
    return monitor.lookup(f'"{word}"')


def test_a_notebook_promoting_again_on_the_lab_broker_starts_as_the_first_run(
        ip, capsys, monkeypatch):
    """Issue 23: a second run gives the first run's counts (not the sum), a third as well;
    with --keep the earlier run's state and input stay, as on a production broker."""
    ip.run_line_magic("kslab", "broker start")
    first = ip.run_line_magic("kslab", PROMOTE)
    first.stop()
    assert produce_lines_and_count(first, ["kafka streams", "kafka lab"], "kafka", 2) == 2
    capsys.readouterr()

    second = ip.run_line_magic("kslab", PROMOTE)  # the cell run again, the same kernel
    second.stop()
    out = capsys.readouterr().out
    assert "kslab: closed the nb-rerun this kernel promoted before" in out
    assert ("kslab: nb-rerun ran on this broker before: emptied counts-out, lines; deleted 3 "
            "internal topic(s); reset its offsets, so this run starts as the first did") in out
    assert first.streams.state is ks.KafkaStreams.State.NOT_RUNNING
    assert produce_lines_and_count(second, ["kafka streams", "kafka lab"], "kafka", 2) == 2
    assert second.lookup('"lab"') == 1

    kept = ip.run_line_magic("kslab", PROMOTE + " --keep")
    kept.stop()
    assert "ran on this broker before" not in capsys.readouterr().out
    assert produce_lines_and_count(kept, ["kafka again"], "kafka", 3) == 3


def test_promote_on_a_broker_the_lab_does_not_own_deletes_nothing(ip, capsys):
    """Only the lab's brokers are cleared without being asked: this one is external."""
    external = ks.LocalBroker()
    external.start()
    try:
        promote = PROMOTE + f" --bootstrap-servers {external.bootstrap_servers}"
        first = ip.run_line_magic("kslab", promote)
        first.stop()
        assert produce_lines_and_count(first, ["kafka streams"], "kafka", 1) == 1
        again = ip.run_line_magic("kslab", promote)
        again.stop()
        assert "ran on this broker before" not in capsys.readouterr().out
        assert produce_lines_and_count(again, ["kafka lab"], "kafka", 2) == 2
        ip.run_line_magic("kslab", "broker stop")  # closes the apps before their broker goes
    finally:
        external.stop()
