"""A changelog restore that stalls is waited for, not failed, and close() ends it in time, as it
ends a pending rebalance.

The stall is real, on the broker: a producer that never finishes its transaction on the
changelog holds the last stable offset back, and a ``read_committed`` restore starting past it
(from a checkpoint written after later changelog records) gets neither records nor the end of
the partition. (On Tansu 0.6 one open transaction holds back ``read_committed`` readers of every
partition of the broker, so the records after it are written under ``at_least_once``, and the
app restarts under ``exactly_once_v2``, as an upgrade would.) Kafka Streams keeps restoring
through that; so must kslab: it warns naming the partition, offset and the open transaction,
shows the wait in ``metrics()`` and to the restore listener, stays in REBALANCING, and goes on
as soon as the transaction ends.
"""

from __future__ import annotations

import logging
import time

import pytest
from apps import final_counts, lines, reference_counts, word_count_papi
from confluent_kafka import Producer
from runtime_fixtures import wait_for

import kslab as ks
from kslab.runtime._state import ChangelogReader, Checkpoint


class Listener:
    """Records the restore listener's calls."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def on_restore_start(self, tp, store, start, end):
        self.calls.append(("start", tp, store, start))

    def on_batch_restored(self, tp, store, last, count):
        self.calls.append(("batch", tp, store, count))

    def on_restore_waiting(self, tp, store, offset, waited_ms):
        self.calls.append(("waiting", tp, store, offset))

    def on_restore_end(self, tp, store, total):
        self.calls.append(("end", tp, store, total))


def _run(kafka, source, sink, config, expected, listener=None):
    streams = kafka.track(ks.KafkaStreams(word_count_papi(source, sink), config))
    if listener is not None:
        streams.set_global_state_restore_listener(listener)
    streams.start()
    if expected is not None:
        got = kafka.read_until(sink, lambda r: final_counts(r) == expected)
        assert final_counts(got) == expected
    return streams


@pytest.fixture
def stuck(kafka):
    """``stuck(changelog)``: a producer whose transaction on ``changelog`` stays open (its one
    record deletes a key no input has, so reading it, committed or not, changes no count).
    Aborted at the end if the test left it open: on Tansu an open transaction holds back the
    ``read_committed`` readers of every partition, so it must not outlive the test."""
    made: list[tuple[Producer, list[bool]]] = []

    def begin(changelog: str) -> tuple[Producer, list[bool]]:
        producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5,
                             "transactional.id": kafka.name(f"stuck-{len(made)}"),
                             "transaction.timeout.ms": 600_000})
        producer.init_transactions(10)
        producer.begin_transaction()
        producer.produce(changelog, None, b"zz-stuck", partition=0)
        assert producer.flush(10) == 0
        still_open = [True]  # the test sets it False when it ends the transaction itself
        made.append((producer, still_open))
        return producer, still_open

    yield begin
    for producer, still_open in made:
        if still_open[0]:
            producer.abort_transaction(10)


def test_a_stalled_restore_waits_warns_and_goes_on(kafka, caplog, monkeypatch, stuck):
    monkeypatch.setattr(ChangelogReader, "WARN_AFTER", 1.0)
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    config = kafka.config("stall")
    changelog = f"{config['application.id']}-counts-changelog"
    first, second, third = lines(60, seed=11), lines(60, seed=12), lines(60, seed=13)
    kafka.produce(source, [(None, t.encode()) for t in first])
    streams = _run(kafka, source, sink, config, reference_counts(first))
    producer, still_open = stuck(changelog)  # before the changelog records of `second`
    kafka.produce(source, [(None, t.encode()) for t in second])
    got = kafka.read_until(sink, lambda r: final_counts(r) == reference_counts(first + second))
    assert final_counts(got) == reference_counts(first + second)
    assert streams.close(timeout=10_000)
    config["processing.guarantee"] = "exactly_once_v2"  # its restores read committed records
    checkpoint = Checkpoint(streams.state_root / "0_0" / ".checkpoint").read()
    assert checkpoint[(changelog, 0)] > 0  # past the open transaction's record

    listener = Listener()
    caplog.set_level(logging.WARNING, logger="kslab.runtime")
    again = _run(kafka, source, sink, config, None, listener)
    name = next(iter(again.metrics()["threads"]))
    assert wait_for(lambda: again.metrics()["threads"].get(name, {})
                    .get("restore-waiting-ms", {}).get(f"{changelog}-0", 0) >= 1000, 20)
    assert wait_for(lambda: ("waiting", (changelog, 0), "counts", checkpoint[(changelog, 0)])
                    in listener.calls, 10)
    warned = [r.getMessage() for r in caplog.records if "restoring changelog" in r.getMessage()]
    assert warned and warned[0].startswith(
        f"restoring changelog {changelog}-0: no record and no end of partition at offset "
        f"{checkpoint[(changelog, 0)]} for ")
    assert "an open transaction" in warned[0]
    # under exactly-once the waiting thread commits a record of its own to the control topic,
    # which instances ignore (Tansu settles the thread's own earlier commits then:
    # bench/unstable_commit.py)
    control = kafka.read(f"{config['application.id']}-kslab-control", 1, timeout=10)
    assert (name.encode(), b"kslab-settle") in [(k, v) for k, v, _ in control]
    time.sleep(1)
    assert again.state is ks.KafkaStreams.State.REBALANCING  # waiting, not failed
    assert again.errors == []
    restoring = again.metrics()["threads"][name]["restoring"]  # what the monitor draws
    assert list(restoring) == [f"{changelog}-0"]
    assert restoring[f"{changelog}-0"]["restored"] == 0

    producer.commit_transaction(10)  # the transaction ends: the restore goes on
    still_open[0] = False
    assert again.wait_until_running(30)
    metrics = again.metrics()["threads"][name]
    assert metrics["restore-waiting-ms"] == {}
    assert metrics["restoring"] == {}
    # the tail after the checkpoint (a checkpoint may lie before the end, never after it)
    assert [c for c in listener.calls if c[0] == "end"] == [
        ("end", (changelog, 0), "counts", metrics["restore-total"])]
    kafka.produce(source, [(None, t.encode()) for t in third])
    expected = reference_counts(first + second + third)
    got = kafka.read_until(sink, lambda r: final_counts(r) == expected, committed=True)
    assert final_counts(got) == expected
    assert {w: again.store("counts").get(w) for w in expected} == expected
    assert again.store("counts").get("zz-stuck") is None


def test_close_during_a_stalled_restore_returns_within_its_timeout(kafka, stuck):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    config = kafka.config("stallclose")
    changelog = f"{config['application.id']}-counts-changelog"
    first, second = lines(40, seed=21), lines(40, seed=22)
    kafka.produce(source, [(None, t.encode()) for t in first])
    streams = _run(kafka, source, sink, config, reference_counts(first))
    stuck(changelog)  # aborted by the fixture
    kafka.produce(source, [(None, t.encode()) for t in second])
    kafka.read_until(sink, lambda r: final_counts(r) == reference_counts(first + second))
    assert streams.close(timeout=10_000)
    config["processing.guarantee"] = "exactly_once_v2"

    again = _run(kafka, source, sink, config, None)
    name = next(iter(again.metrics()["threads"]))
    assert wait_for(lambda: again.metrics()["threads"].get(name, {})
                    .get("restore-waiting-ms", {}).get(f"{changelog}-0", 0) > 500, 20)
    assert again.state is ks.KafkaStreams.State.REBALANCING
    started = time.monotonic()
    closed = again.close(timeout=5_000)
    elapsed = time.monotonic() - started
    assert elapsed < 5.5, elapsed
    assert closed  # the restore stopped at once, the thread committed and left the group
    assert again.state is ks.KafkaStreams.State.NOT_RUNNING


def test_close_while_the_group_rebalances_returns_within_its_timeout(kafka):
    """A member that joined the application's group and then stops polling holds every
    rebalance until its rebalance timeout (its max.poll.interval.ms): the app stays in
    REBALANCING, and close(timeout) must still return in time."""
    from confluent_kafka import Consumer

    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    config = kafka.config("rebalclose")
    joined: list[object] = []
    member = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": config["application.id"],
                       "partition.assignment.strategy": "range", "session.timeout.ms": 6_000,
                       "max.poll.interval.ms": 120_000, "heartbeat.interval.ms": 500})
    member.subscribe([source], on_assign=lambda _c, parts: joined.append(parts))
    try:
        assert wait_for(lambda: member.poll(0.2) is None and bool(joined), 30)
        streams = kafka.track(ks.KafkaStreams(word_count_papi(source, sink), config))
        streams.start()
        time.sleep(3)  # the app's join waits for the member, which no longer polls
        assert streams.state is ks.KafkaStreams.State.REBALANCING
        started = time.monotonic()
        # True, or False when librdkafka's consumer close waits for the join in flight (the
        # stream thread, a daemon, ends when the join does): either way within the timeout
        streams.close(timeout=4_000)
        elapsed = time.monotonic() - started
        assert elapsed < 4.5, elapsed
        assert streams.state is ks.KafkaStreams.State.NOT_RUNNING
    finally:
        member.close()
