"""Kafka's ``GlobalStateTaskTest``: the global task's public effects, in kslab's driver.

Java's topology is two global sources, ``t1`` (String serdes) and ``t2`` (Integer serdes), each
feeding a mock processor that counts what it receives; here each is a global store's source and
state-update processor (``add_global_store``). ``update(record)`` is piping raw bytes into the
global topic; ``LogAndFailExceptionHandler`` / ``LogAndContinueExceptionHandler`` are
``default.deserialization.exception.handler``; ``StreamsException`` is ``ks.StreamsError``.

Left out, as the global task's internals the driver drives itself: the state manager's
initialization, flushes, offsets and checkpoints (``shouldFlushStateManagerWithOffsets``,
``shouldCheckpoint*``, ``shouldNotCheckpoint*``) and ``shouldWipeGlobalStateDirectory``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

STRING, INTEGER, LONG = serdes.String(), serdes.Integer(), serdes.Long()


class Counting(ks.Processor):
    received: dict[str, int] = {}
    initialized: set[str] = set()

    def __init__(self, topic):
        self.topic = topic

    def init(self, context):
        Counting.initialized.add(self.topic)

    def process(self, record):
        Counting.received[self.topic] = Counting.received.get(self.topic, 0) + 1


def driver(handler="log_and_fail"):
    Counting.received, Counting.initialized = {}, set()
    topology = ks.Topology()
    for topic, serde in (("t1", STRING), ("t2", INTEGER)):
        store = ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store(f"{topic}-store"), serde, serde)
        topology.add_global_store(store.with_logging_disabled(), f"source-{topic}", topic,
                                  f"processor-{topic}",
                                  lambda topic=topic: Counting(topic), key_serde=serde,
                                  value_serde=serde)
    return ks.TopologyTestDriver(topology, {
        "default.deserialization.exception.handler": handler})


def update(d, topic, key, value):
    d.create_input_topic(topic, serdes.Bytes(), serdes.Bytes()).pipe_input(key, value, 0)


def test_should_initialize_processor_topology():
    with driver():
        assert Counting.initialized == {"t1", "t2"}


def test_should_process_records_for_topic():
    with driver() as d:
        update(d, "t1", b"foo", b"bar")
        assert Counting.received == {"t1": 1}


def test_should_process_records_for_other_topic():
    integer_bytes = INTEGER.serialize("foo", 1)
    with driver() as d:
        update(d, "t2", integer_bytes, integer_bytes)
        assert Counting.received == {"t2": 1}


@pytest.mark.parametrize(("key", "value"), [
    (LONG.serialize("t2", 1), INTEGER.serialize("t2", 10)),  # the key fails
    (INTEGER.serialize("t2", 1), LONG.serialize("t2", 10)),  # the value fails
], ids=["key", "value"])
def test_should_throw_streams_exception_when_deserialization_fails(key, value):
    """``shouldThrowStreamsExceptionWhen{Key,Value}DeserializationFails``."""
    with driver() as d, pytest.raises(ks.StreamsError):
        update(d, "t2", key, value)


@pytest.mark.parametrize(("key", "value"), [
    (LONG.serialize("t2", 1), INTEGER.serialize("t2", 10)),
    (INTEGER.serialize("t2", 1), LONG.serialize("t2", 10)),
], ids=["key", "value"])
def test_should_not_throw_streams_exception_when_deserialization_fails_with_skip_handler(
        key, value):
    """``shouldNotThrowStreamsExceptionWhen{Key,Value}DeserializationFails...``: skipped."""
    with driver("log_and_continue") as d:
        update(d, "t2", key, value)
        assert Counting.received == {}
        assert d.get_key_value_store("t2-store").approximate_num_entries() == 0


class ContinueHandler:
    """A user's deserialization handler: Java's ``GlobalStateUpdateTask`` asks it too."""

    seen: list = []

    def handle(self, context, record, exception):
        ContinueHandler.seen.append((context.processor_node_id, context.task_id, record.topic))
        return ks.DeserializationHandlerResponse.CONTINUE


def test_a_user_deserialization_handler_is_asked_for_global_records():
    ContinueHandler.seen = []
    with driver(ContinueHandler) as d:
        update(d, "t2", LONG.serialize("t2", 1), INTEGER.serialize("t2", 10))
        assert Counting.received == {}
    assert ContinueHandler.seen == [("source-t2", ks.TaskId(-1, -1), "t2")]
