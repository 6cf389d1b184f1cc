"""Restoring a suppression buffer on a real broker: the changelog records keep their headers
(the buffer reads Java's changelog format version from the ``v`` header), so a restarted
instance emits what the first one buffered."""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.dsl.suppress import BufferConfig, Suppressed
from kslab.records import Headers
from kslab.runtime._state import _changelog_record
from kslab.state.buffer import ChangelogRecord

S = serdes.String()


class _Message:
    """The parts of a confluent_kafka ``Message`` a restore reads."""

    def key(self) -> bytes:
        return b"k"

    def value(self) -> bytes:
        return b"v"

    def timestamp(self) -> tuple[int, int]:
        return (1, 42)

    def headers(self) -> list[tuple[str, bytes]]:
        return [("v", b"\x03")]

    def topic(self) -> str:
        return "app-limit-store-changelog"

    def partition(self) -> int:
        return 2

    def offset(self) -> int:
        return 7


def test_consumed_changelog_message_keeps_headers_topic_partition_and_offset():
    record = _changelog_record(_Message())
    assert record == ChangelogRecord(b"k", b"v", 42, record.headers,
                                     "app-limit-store-changelog", 2, 7)
    assert isinstance(record.headers, Headers)
    assert record.headers.last_header("v").value == b"\x03"
    assert record[:3] == (b"k", b"v", 42)  # what every other store reads


def _limited(source: str, sink: str) -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.table(source, ks.Consumed.with_(S, S))
     .suppress(Suppressed.until_time_limit(1000, BufferConfig.unbounded()).with_name("limit"))
     .to_stream().to(sink, ks.Produced.with_(S, S)))
    return b.build()


def test_suppress_buffer_restart_emits_what_was_buffered(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    config = kafka.config("suppress-restore")
    changelog = f"{config['application.id']}-limit-store-changelog"
    kafka.produce(source, [(b"a", b"1"), (b"b", b"2")], timestamp=1000)  # 0: "now"
    first = kafka.track(ks.KafkaStreams(_limited(source, sink), config))
    first.start()
    assert len(kafka.read_until(changelog, lambda r: len(r) >= 2)) == 2
    assert first.close(timeout=10_000)
    kafka.produce(source, [(b"c", b"3")], timestamp=10_000)
    second = kafka.track(ks.KafkaStreams(_limited(source, sink), config))
    second.start()
    out = kafka.read_until(sink, lambda r: len(r) >= 2)
    assert [(k, v) for k, v, _ in out] == [(b"a", b"1"), (b"b", b"2")]


def test_a_java_v2_changelog_restores_through_its_headers(kafka):
    """The buffer's changelog holds Java's v2 records (``v`` = 2 header): the runtime's restore
    must hand the headers over, or the bytes are read as v3 and the buffer is wrong. Java's
    TimeOrderedKeyValueBufferTest.shouldRestoreV2Format values, then the evictions Java makes."""
    from confluent_kafka import Producer

    from tests.testing.test_driver_restore_changelog_records import _JAVA_EVICTIONS, _V2

    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    config = kafka.config("suppress-v2")
    changelog = kafka.create(f"{config['application.id']}-limit-store-changelog",
                             **{"cleanup.policy": "compact"})
    producer = Producer({"bootstrap.servers": kafka.bootstrap})
    for key, value, ts in _V2:
        producer.produce(changelog, bytes.fromhex(value), key.encode(), timestamp=ts,
                         headers=[("v", b"\x02")])
    producer.produce(changelog, None, b"todelete", timestamp=3)
    assert producer.flush(30) == 0
    streams = kafka.track(ks.KafkaStreams(_limited(source, sink), config))
    streams.start()
    assert streams.wait_until_running(30)
    kafka.produce(source, [(b"other", b"x")], timestamp=2000)  # past 1000 ms: both are due
    out = kafka.read(sink, 2, settle=1.0)
    assert [(k.decode(), v.decode()) for k, v, _ in out] == [(k, v) for k, v, _ in _JAVA_EVICTIONS]
