"""Kafka's ``TaskMetadataIntegrationTest`` (streams/src/test/.../integration) on the live runtime
(a LocalBroker): one task's ``TaskMetadata`` (from ``metadata_for_local_threads()``) reports
the offset its commits stored for its input partition (``committed_offsets``) and the highest
offset it has read (``end_offsets``). A processor requests a commit after each record, or not.

Mapping: ``TaskMetadata.committedOffsets()`` / ``endOffsets()`` are ``committed_offsets`` /
``end_offsets``, read-only maps keyed by ``(topic, partition)``; each check reads the metadata again
(Java's copy is a snapshot too: its test swallows the timeouts that follow, which a port must
not). Two stream threads and a commit interval of 1 ms, as Java's. The last case ports
``TaskMetadataImplTest``'s equality rules (task id and partitions only).
"""

from __future__ import annotations

import time
from types import MappingProxyType

import pytest
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.runtime import TaskMetadata

STR = serdes.String()


class _Flags:
    def __init__(self) -> None:
        self.process = True
        self.commit = True


def _pause_processor(flags: _Flags):
    class PauseProcessor(ks.Processor):
        """Java's ``PauseProcessor``: waits until let through, commits if told, then stops."""

        def init(self, context) -> None:
            self.context = context

        def process(self, record) -> None:
            while not flags.process:
                time.sleep(0.1)
            if flags.commit:
                self.context.commit()
            flags.process = False

    return PauseProcessor


def _app(kafka, flags: _Flags) -> tuple[ks.KafkaStreams, tuple[str, int]]:
    """The running app, once it has its one task, and the task's input partition."""
    source = kafka.create(kafka.name("input"))
    builder = ks.StreamsBuilder()
    builder.stream(source).process(_pause_processor(flags))
    config = kafka.config("TaskMetadataTest", num__stream__threads=2, commit__interval__ms=1,
                          default__key__serde="string", default__value__serde="string")
    streams = kafka.track(ks.KafkaStreams(builder.build(), config))
    streams.start()
    assert streams.wait_until_running(60)
    assert wait_for(lambda: _task(streams) is not None)
    return streams, (source, 0)


def _task(streams: ks.KafkaStreams):
    """The one active task's metadata, read now."""
    tasks = [t for thread in streams.metadata_for_local_threads() for t in thread.active_tasks]
    return tasks[0] if len(tasks) == 1 else None


def _produce(kafka, topic: str, value: str) -> None:
    kafka.produce(topic, [(STR.serialize(topic, "1"), STR.serialize(topic, value))], timestamp=0)


def test_should_report_correct_committed_offset_information(kafka):
    flags = _Flags()
    streams, tp = _app(kafka, flags)
    assert len(_task(streams).committed_offsets) == 1
    for expected, value in enumerate(["test", "test1", "test1"], start=1):
        _produce(kafka, tp[0], value)
        assert wait_for(lambda: not flags.process, timeout=30), "the record was not processed"
        assert wait_for(lambda e=expected: _task(streams).committed_offsets.get(tp) == e,
                        timeout=30), _task(streams)
        flags.process = True


def test_should_report_correct_end_offset_information(kafka):
    flags = _Flags()
    streams, tp = _app(kafka, flags)
    assert len(_task(streams).end_offsets) == 1
    flags.commit = False
    for _ in range(10):
        _produce(kafka, tp[0], "test")
        assert wait_for(lambda: not flags.process, timeout=30), "the record was not processed"
        flags.process = True
    assert wait_for(lambda: _task(streams).end_offsets.get(tp) == 9, timeout=10), \
        _task(streams)


def test_task_metadata_equality_ignores_the_offsets():
    """Kafka's ``TaskMetadataImplTest``: equal and hashed by task id and partitions only (the
    offsets move on), and its offset maps cannot be changed."""
    partitions = (("t", 0), ("t", 1))
    one = TaskMetadata("1_2", partitions, MappingProxyType({("t", 1): 2}),
                       MappingProxyType({("t", 1): 3}))
    same = TaskMetadata("1_2", partitions, MappingProxyType({("t", 1): 1_000_000}))
    assert one == same
    assert hash(one) == hash(same)
    assert one != TaskMetadata("1_3", partitions)
    assert one != TaskMetadata("1_2", partitions[:1])
    with pytest.raises(TypeError):
        one.committed_offsets[("t", 1)] = 5  # type: ignore[index]
