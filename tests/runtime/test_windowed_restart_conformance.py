"""The restart half of Kafka's ``TimeWindowedKStreamIntegrationTest`` and
``SlidingWindowedKStreamIntegrationTest`` ``shouldRestoreAfterJoinRestart`` on the live runtime
(a LocalBroker): a stream-stream join (2 ms, no grace) feeds a windowed aggregation with
``EmitStrategy.on_window_close()``; the application is closed, its local state wiped
(``cleanup()``), a record more is written to each input and the application restarted: the
window store is restored from its changelog and the last emitted close time from the committed
offsets' metadata, so only the window the new record closes comes out (and no window already
emitted, nor one expired from the store). The first run must emit what the TopologyTestDriver
emits for the same records (Java's
first-run lists, checked on the driver by ``tests/conformance/windows/test_{time,sliding}_
windowed_k_stream_integration_test.py``, assume timestamps from 0, where windows are clamped,
and a producer cannot write timestamp 0); the
``ON_WINDOW_UPDATE`` restart outputs only what the new records update, which the driver cases
cover. Java's cache-enabled variants run with a zero-byte cache, as these do. Timestamps are
Java's plus ``BASE`` (windows are shown relative to it).
"""

from __future__ import annotations

import pytest
from confluent_kafka import Consumer, TopicPartition

import kslab as ks
from kslab import serdes

S = serdes.String()
BASE = 1_000_000  # a producer's timestamp 0 means "now"; a multiple of the 10 ms windows
WINDOWED = serdes.TimeWindowed(S, window_size=10)


def _app(one: str, two: str, sink: str, sliding: bool) -> ks.Topology:
    builder = ks.StreamsBuilder()
    left = builder.stream(one, ks.Consumed.with_(S, S))
    right = builder.stream(two, ks.Consumed.with_(S, S))
    windows = ks.SlidingWindows.of_time_difference_with_no_grace(10) if sliding \
        else ks.TimeWindows.of_size_with_no_grace(10).advance_by(5)
    joined = left.join(right, lambda v1, v2: f"{v1},{v2}",
                       ks.JoinWindows.of_time_difference_with_no_grace(2))
    joined \
        .group_by_key().windowed_by(windows).emit_strategy(ks.EmitStrategy.on_window_close()) \
        .aggregate(lambda: "0", lambda k, v, agg: f"{agg}+{v}",
                   ks.Materialized.with_(None, S).with_caching_disabled()) \
        .to_stream().to(sink, ks.Produced.with_(WINDOWED, S))
    return builder.build()


def _broker_keeps_commit_metadata(kafka, config: dict, topic: str) -> bool:
    """Whether the broker returned the offset metadata the app committed for ``topic``."""
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap,
                         "group.id": config["application.id"]})
    try:
        (tp,) = consumer.committed([TopicPartition(topic, 0)], 10)
        return bool(tp.metadata)
    finally:
        consumer.close()


def _produce(kafka, topic: str, records: list[tuple[str, str, int]]) -> None:
    for key, value, timestamp in records:
        kafka.produce(topic, [(key.encode(), value.encode())], timestamp=BASE + timestamp)


def _decoded(records: list) -> list[tuple[ks.Windowed, str]]:
    decoded = []
    for k, v, _partition in records:
        key = WINDOWED.deserialize("t", k)
        window = ks.Window(key.window.start - BASE, key.window.end - BASE)
        decoded.append((ks.Windowed(key.key, window), v.decode()))
    return decoded


def _driver_first_run(topology: ks.Topology, config: dict, one: str, two: str, sink: str,
                      left: list, right: list) -> list[tuple[ks.Windowed, str]]:
    """What the first run emits, from the TopologyTestDriver fed the same records in timestamp
    order (Java's first-run outputs assume timestamps from 0, where windows are clamped)."""
    with ks.TopologyTestDriver(topology, config) as driver:
        inputs = (driver.create_input_topic(one, S, S), driver.create_input_topic(two, S, S))
        for pair in zip(left, right, strict=True):
            for inp, (key, value, timestamp) in zip(inputs, pair, strict=True):
                inp.pipe_input(key, value, BASE + timestamp)
        out = driver.create_output_topic(sink, serdes.Bytes(), serdes.Bytes())
        return _decoded([(r.key, r.value, 0) for r in out.read_records_to_list()])


def _w(key: str, start: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, start + 10))


@pytest.mark.parametrize("sliding", [False, True], ids=["time_windows", "sliding_windows"])
def test_should_restore_after_join_restart_on_window_close(kafka, sliding):
    one, two = kafka.create(kafka.name("one")), kafka.create(kafka.name("two"))
    sink = kafka.create(kafka.name("out"))
    if sliding:
        left = [("A", "L1", 0), ("A", "L2", 5), ("B", "L3", 11), ("B", "L4", 15), ("C", "L5", 25)]
        right = [("A", "R1", 0), ("A", "R2", 5), ("B", "R3", 11), ("B", "R4", 15),
                 ("C", "R5", 25)]
        more, after_restart = ("L6", "R6"), [(_w("C", 15), "0+L5,R5")]
    else:
        left = [("A", "L1", 0), ("A", "L1", 5), ("B", "L2", 11), ("B", "L2", 15), ("C", "L3", 25)]
        right = [("A", "R1", 0), ("A", "R1", 5), ("B", "R2", 11), ("B", "R2", 15),
                 ("C", "R3", 25)]
        more, after_restart = ("L3", "R3"), [(_w("C", 25), "0+L3,R3")]
    _produce(kafka, one, left)
    _produce(kafka, two, right)
    config = kafka.config("restart", statestore__cache__max__bytes=0,
                          windowstore__changelog__additional__retention__ms=2**63 - 1)
    config["__emit.interval.ms.kstreams.windowed.aggregation__"] = 0
    first_run = _driver_first_run(_app(one, two, sink, sliding), config, one, two, sink, left,
                                  right)
    first = kafka.track(ks.KafkaStreams(_app(one, two, sink, sliding), config))
    first.start()
    assert first.wait_until_running(30)
    assert _decoded(kafka.read(sink, len(first_run), settle=1.0)) == first_run
    assert first.close(timeout=10_000)
    if sliding and not _broker_keeps_commit_metadata(kafka, config, one):
        # the last emitted close time travels in the committed offsets' metadata; a broker
        # that drops it (Tansu) leaves only the local copy, which cleanup() wipes, so the
        # restarted sliding aggregation would emit its unexpired closed windows again
        pytest.skip("the broker keeps no offset-commit metadata; needs Kafka to check the "
                    "restart of a sliding emit-final aggregation after cleanup()")
    first.cleanup()  # purge the store to force its restoration

    _produce(kafka, one, [("C", more[0], 35)])
    _produce(kafka, two, [("C", more[1], 35)])
    second = kafka.track(ks.KafkaStreams(_app(one, two, sink, sliding), config))
    second.start()
    assert second.wait_until_running(30)
    out = kafka.read(sink, len(first_run) + 1, settle=1.5)
    assert _decoded(out) == first_run + after_restart
