"""Kafka's ``KTableSourceTopicRestartIntegrationTest`` on the live runtime (a LocalBroker): a
table materialized as ``"store"`` over a source topic, its updates collected by ``foreach``,
is closed and restarted; when the restore listener's ``on_restore_start`` writes one more record
to the source topic ("d", as Java's ``UpdatingSourceTopicOnRestoreStartStateRestoreListener``
does) the restarted application must read it as well as the records written after it is
running, under at-least-once and exactly-once v2. Java's configs: no record cache, commit every
5 ms, wall-clock timestamps, String serdes (the fixture's faster-than-default group timeouts
stand in for Java's 1000/300 ms ones, which Tansu's group coordinator does not need).
"""

from __future__ import annotations

import threading

import pytest
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

S = serdes.String()


def _expected(*keys: str) -> dict[str, str]:
    return {key: key + "1" for key in keys}


class _Case:
    """One test's source topic, collected table updates and application config."""

    def __init__(self, kafka, guarantee: str) -> None:
        self.kafka = kafka
        self.source = kafka.create(kafka.name("source-topic"))
        self.read: dict[str, str] = {}
        self.lock = threading.Lock()
        builder = ks.StreamsBuilder()
        builder.table(self.source, materialized=ks.Materialized.as_("store")) \
            .to_stream().foreach(self.collect)
        self.builder = builder
        self.config = kafka.config(
            "ktable-restart", default__key__serde=S, default__value__serde=S,
            statestore__cache__max__bytes=0, commit__interval__ms=5,
            default__timestamp__extractor=ks.WallclockTimestampExtractor,
            processing__guarantee=guarantee)

    def collect(self, key: str, value: str) -> None:
        with self.lock:
            self.read[key] = value

    def produce(self, *keys: str) -> None:
        self.kafka.produce(self.source, [(k.encode(), (k + "1").encode()) for k in keys])

    def streams(self, listener=None, *, wait: bool = True) -> ks.KafkaStreams:
        streams = self.kafka.track(ks.KafkaStreams(self.builder.build(), self.config))
        if listener is not None:
            streams.set_global_state_restore_listener(listener)
        streams.start()
        if wait:
            assert streams.wait_until_running(30)
        return streams

    def assert_read(self, expected: dict[str, str]) -> None:
        def done() -> bool:
            with self.lock:
                return self.read == expected
        assert wait_for(done, 30), (self.read, expected)


class _UpdatingSourceTopicOnRestoreStart:
    """Java's listener: the restore's start writes key "d" to the source topic."""

    def __init__(self, case: _Case) -> None:
        self.case = case

    def on_restore_start(self, topic_partition, store_name, start_offset, end_offset) -> None:
        self.case.produce("d")


@pytest.mark.parametrize("guarantee", ["at_least_once", "exactly_once_v2"],
                         ids=["eos_disabled", "eos_v2_enabled"])
def test_should_restore_and_progress_when_topic_written_to_during_restoration(kafka, guarantee):
    case = _Case(kafka, guarantee)
    streams = case.streams()
    case.produce("a", "b", "c")
    case.assert_read(_expected("a", "b", "c"))
    assert streams.close(timeout=10_000)

    streams = case.streams(_UpdatingSourceTopicOnRestoreStart(case))
    case.produce("f", "g", "h")
    case.assert_read(_expected("a", "b", "c", "d", "f", "g", "h"))
    assert streams.close(timeout=5_000)


def test_should_restore_and_progress_when_topic_not_written_to_during_restoration(kafka):
    case = _Case(kafka, "at_least_once")
    streams = case.streams(wait=False)
    case.produce("a", "b", "c")
    case.assert_read(_expected("a", "b", "c"))
    assert streams.close(timeout=10_000)

    streams = case.streams()
    case.produce("f", "g", "h")
    case.assert_read(_expected("a", "b", "c", "f", "g", "h"))
    assert streams.close(timeout=5_000)
