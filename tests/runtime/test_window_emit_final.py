"""Emit-on-window-close on the live runtime (a LocalBroker): each window's final count once,
and window changelogs created with retention.ms = retention + the configured extra retention."""

from __future__ import annotations

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import ConfigResource

import kslab as ks
from kslab import serdes
from kslab.core.commit_metadata import decode_commit_metadata
from kslab.runtime._state import CommittedMetadata
from kslab.runtime._thread import METADATA_FILE

S = serdes.String()


def _app(source: str, sink: str) -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream(source, ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(1000, 100))
     .emit_strategy(ks.EmitStrategy.on_window_close())
     .count(ks.Materialized.as_("final-counts"))
     .to_stream().map(lambda k, v: (f"{k.key}@{k.window.start}", str(v)))
     .to(sink, ks.Produced.with_(S, S)))
    return b.build()


def test_final_counts_and_changelog_retention(kafka) -> None:
    source = kafka.create(kafka.name("in"))
    sink = kafka.create(kafka.name("out"))
    # a@50 comes after stream time 1999: [0, 1000) closed at 1100 (end + grace), so it is dropped
    events = [("a", 10), ("b", 20), ("a", 500), ("a", 1200), ("b", 1300), ("c", 1999),
              ("a", 50), ("c", 2150), ("a", 3500)]
    for key, ts in events:
        kafka.produce(source, [(key.encode(), b"x")], timestamp=ts)
    config = kafka.config("final", windowstore__changelog__additional__retention__ms=5_000)
    config["__emit.interval.ms.kstreams.windowed.aggregation__"] = 0  # no wall-clock throttle
    streams = kafka.track(ks.KafkaStreams(_app(source, sink), config))
    streams.start()
    assert streams.wait_until_running(30)
    out = kafka.read(sink, 6, settle=1.0)
    assert [(k.decode(), v.decode()) for k, v, _partition in out] == [
        ("a@0", "2"), ("b@0", "1"),  # emitted at a@1200 (close time 1100)
        ("a@1000", "1"), ("b@1000", "1"), ("c@1000", "1"), ("c@2000", "1"),  # at a@3500
    ]
    changelog = f"{config['application.id']}-final-counts-changelog"
    resource = ConfigResource(ConfigResource.Type.TOPIC, changelog)
    described = kafka.admin.describe_configs([resource])[resource].result(10)
    assert described["cleanup.policy"].value == "compact,delete"
    assert described["retention.ms"].value == str(1000 + 100 + 5_000)


def _final_outputs(out: list) -> list[tuple[str, str]]:
    return [(k.decode(), v.decode()) for k, v, _partition in out]


def _committed(kafka, config: dict, topic: str) -> tuple[int, str | None]:
    """The app's committed offset of ``topic`` partition 0 and its metadata."""
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap,
                         "group.id": config["application.id"]})
    try:
        (tp,) = consumer.committed([TopicPartition(topic, 0)], 10)
        return tp.offset, tp.metadata
    finally:
        consumer.close()


@pytest.mark.parametrize("guarantee", ["at_least_once", "exactly_once_v2"])
def test_a_restart_does_not_emit_closed_windows_again(kafka, guarantee: str) -> None:
    """The last window close time an emit-final count emitted is committed with the offsets
    (Java's TopicPartitionMetadata), so a restarted app does not emit its windows again."""
    source = kafka.create(kafka.name("in"))
    sink = kafka.create(kafka.name("out"))
    config = kafka.config("restart", processing__guarantee=guarantee)
    config["__emit.interval.ms.kstreams.windowed.aggregation__"] = 0
    for key, ts in [("a", 10), ("b", 20), ("a", 500), ("a", 1200)]:
        kafka.produce(source, [(key.encode(), b"x")], timestamp=ts)
    first = ks.KafkaStreams(_app(source, sink), config)
    first.start()
    assert first.wait_until_running(30)
    assert _final_outputs(kafka.read(sink, 2, committed=True)) == [("a@0", "2"), ("b@0", "1")]
    assert first.close(timeout=10_000)

    offset, broker_metadata = _committed(kafka, config, source)
    assert offset == 4
    saved = CommittedMetadata(first.state_root / "0_0" / METADATA_FILE).read()
    assert saved[(source, 0)][0] == 4
    partition_time, metadata = decode_commit_metadata(saved[(source, 0)][1])
    assert (partition_time, metadata.values) == (1200, {"final-counts": 1100})
    if broker_metadata:  # a broker that keeps offset metadata (Kafka) has the same
        assert broker_metadata == saved[(source, 0)][1]

    # c@1300 closes nothing new: without the committed close time, [0, 1000) came out again
    for key, ts in [("c", 1300), ("a", 2500)]:
        kafka.produce(source, [(key.encode(), b"x")], timestamp=ts)
    second = kafka.track(ks.KafkaStreams(_app(source, sink), config))
    second.start()
    assert second.wait_until_running(30)
    out = kafka.read(sink, 4, committed=True, settle=1.5)
    assert _final_outputs(out) == [("a@0", "2"), ("b@0", "1"), ("a@1000", "1"), ("c@1000", "1")]
