"""Kafka's ``RecordCollectorTest`` (streams/processor/internals): its public effects, in the driver.

Java calls ``RecordCollectorImpl.send`` on a ``MockProducer``; the collector is what a sink
hands its record to: it asks the sink's ``StreamPartitioner`` for the partitions, serializes
the key and value (with the record's headers) and hands serialization failures to the
production exception handler. Here a source feeds a sink of topic ``topic`` (3 partitions, as
Java's mock cluster has) in a ``TopologyTestDriver``; ``dropped-records-total`` is the task's
``driver.metrics()["0_0"]`` entry; ``StreamsException`` is ``ks.StreamsError`` with Java's
``getCause()`` as ``__cause__``; Java's ``NullPointerException`` for a ``null`` handler answer is
a ``TypeError`` with Java's message.

Ported: ``shouldSendOnlyToEvenPartitions`` and ``shouldBroadcastToAllPartitions`` (a partitioner
returning a set of partitions multicasts), ``shouldDropAllRecords`` (an empty set drops the
record and counts it), ``shouldPassThroughRecordHeaderToSerializer`` (headers the serializers add
are produced), the serialization-failure cases of the production exception handler
(``shouldThrowStreamsExceptionUsingDefaultExceptionHandler``,
``shouldDropRecordExceptionUsingAlwaysContinueExceptionHandler``,
``shouldThrowStreamsExceptionWhen{Key,Value}SerializationFailedAndProductionExceptionHandlerRepliesWithFail``,
``...ProductionExceptionHandlerReturnsNull``, ``...ProductionExceptionHandlerThrows``), whose
handler checks the context it is given (topic, partition, offset, node, task, timestamp) and
gets the serializer's own exception ("KABOOM!") and its origin.

Not ported: offsets, flush, close and transaction cases (``MockProducer`` internals, EOS
fencing, producer send callbacks), the ``ClassCastException`` messages (Java's static types;
a Python serde meets a wrong type as any other failure) and the partitioner's
``KafkaException``/``TimeoutException`` from ``partitionsFor`` (broker metadata).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.error_policy import SerializationExceptionOrigin

TOPIC = "topic"
KEYS = ["3", "9", "27", "81", "243", "28", "82", "244", "245"]
WITH_HEADERS = {"28", "82", "244"}


class ErrorStringSerializer:
    def serialize(self, topic, data, headers=None):
        msg = "KABOOM!"
        raise RuntimeError(msg)

    def deserialize(self, topic, data, headers=None):
        return None if data is None else data.decode()


class CustomStringSerializer:
    """Java's: adds a header named after what it serializes ("key" or "value")."""

    def __init__(self, is_key):
        self.name = "key" if is_key else "value"

    def serialize(self, topic, data, headers=None):
        headers.add(self.name, self.name.encode())
        return data.encode()

    def deserialize(self, topic, data, headers=None):
        return data.decode()


def _topology(partitioner=None, key_serde=None, value_serde=None):
    string = serdes.String()
    return (ks.Topology()
            .add_source("source", "input", key_serde=string, value_serde=string)
            .add_sink("sink", TOPIC, "source", key_serde=key_serde or string,
                      value_serde=value_serde or string, partitioner=partitioner))


def _send_all(partitioner):
    with ks.TopologyTestDriver(_topology(partitioner), partitions={TOPIC: 3}) as driver:
        source = driver.create_input_topic("input")
        for key in KEYS:
            headers = [("key", b"value")] if key in WITH_HEADERS else None
            source.pipe_input(key, "0", 0, headers=headers)
        records = driver.create_output_topic(TOPIC).read_records_to_list()
        return records, driver.metrics()["0_0"]["dropped-records-total"]


def test_should_send_only_to_even_partitions():
    def even(topic, key, value, num_partitions):
        return set(range(0, num_partitions, 2))

    records, dropped = _send_all(even)
    assert len(records) == 18  # partitions 0 and 2, each record once
    assert [r.key for r in records[:2]] == ["3", "3"]
    assert dropped == 0


def test_should_broadcast_to_all_partitions():
    def broadcast(topic, key, value, num_partitions):
        return set(range(num_partitions))

    records, dropped = _send_all(broadcast)
    assert len(records) == 27
    assert dropped == 0


def test_should_drop_all_records():
    def dropping(topic, key, value, num_partitions):
        return set()

    records, dropped = _send_all(dropping)
    assert records == []
    assert dropped == 9.0


def test_should_pass_through_record_header_to_serializer():
    topology = _topology(key_serde=CustomStringSerializer(True),
                         value_serde=CustomStringSerializer(False))
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("input").pipe_input("3", "0", 0)
        (record,) = driver.create_output_topic(TOPIC, serdes.String(),
                                               serdes.String()).read_records_to_list()
    assert len(list(record.headers)) == 2
    assert record.headers.last_header("key") == ("key", b"key")
    assert record.headers.last_header("value") == ("value", b"value")


class ProductionExceptionHandlerMock:
    """Java's: checks what it is given, then answers ``response`` (or raises "CRASH")."""

    def __init__(self, response, origin, should_throw=False):
        self.response = response
        self.origin = origin
        self.should_throw = should_throw
        self.calls = 0

    def handle_serialization_exception(self, context, record, exception, origin):
        self.calls += 1
        assert (context.topic, context.partition, context.offset) == ("input", 0, 0)
        assert context.processor_node_id == "sink"
        assert context.task_id == ks.TaskId(0, 0)
        assert context.timestamp == 0
        assert isinstance(exception, RuntimeError)
        assert str(exception) == "KABOOM!"
        assert origin == self.origin
        assert (record.key, record.value) == ("key", "val")
        if self.should_throw:
            msg = "CRASH"
            raise RuntimeError(msg)
        return self.response


def _serialize_failing(handler, origin):
    error = ErrorStringSerializer()
    if origin is SerializationExceptionOrigin.KEY:
        topology = _topology(key_serde=error)
    else:
        topology = _topology(value_serde=error)
    config = {} if handler is None else {"default.production.exception.handler": handler}
    driver = ks.TopologyTestDriver(topology, config)
    return driver, driver.create_input_topic("input")


def test_should_throw_streams_exception_using_default_exception_handler():
    driver, source = _serialize_failing(None, SerializationExceptionOrigin.VALUE)
    with driver, pytest.raises(ks.StreamsError) as info:
        source.pipe_input("key", "val", 0)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert str(info.value.__cause__) == "KABOOM!"


def test_should_drop_record_exception_using_always_continue_exception_handler():
    handler = ProductionExceptionHandlerMock(ks.ProductionHandlerResponse.CONTINUE,
                                             SerializationExceptionOrigin.KEY)
    driver, source = _serialize_failing(handler, SerializationExceptionOrigin.KEY)
    with driver:
        source.pipe_input("key", "val", 0)
        assert driver.create_output_topic(TOPIC).is_empty()
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1.0
    assert handler.calls == 1


@pytest.mark.parametrize("origin", [SerializationExceptionOrigin.VALUE,
                                    SerializationExceptionOrigin.KEY], ids=["value", "key"])
def test_should_throw_streams_exception_when_serialization_failed_and_handler_replies_fail(
        origin):
    handler = ProductionExceptionHandlerMock(ks.ProductionHandlerResponse.FAIL, origin)
    driver, source = _serialize_failing(handler, origin)
    with driver, pytest.raises(ks.StreamsError) as info:
        source.pipe_input("key", "val", 0)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert str(info.value.__cause__) == "KABOOM!"
    assert handler.calls == 1


def test_should_throw_streams_exception_when_serialization_failed_and_handler_returns_null():
    handler = ProductionExceptionHandlerMock(None, SerializationExceptionOrigin.KEY)
    driver, source = _serialize_failing(handler, SerializationExceptionOrigin.KEY)
    with driver, pytest.raises(ks.StreamsError) as info:
        source.pipe_input("key", "val", 0)
    assert str(info.value) == "Fatal user code error in production error callback"
    assert isinstance(info.value.__cause__, TypeError)
    assert str(info.value.__cause__) == "Invalid ProductionExceptionHandler response."


def test_should_throw_streams_exception_when_serialization_failed_and_handler_throws():
    handler = ProductionExceptionHandlerMock(None, SerializationExceptionOrigin.KEY,
                                             should_throw=True)
    driver, source = _serialize_failing(handler, SerializationExceptionOrigin.KEY)
    with driver, pytest.raises(ks.StreamsError) as info:
        source.pipe_input("key", "val", 0)
    assert str(info.value) == "Fatal user code error in production error callback"
    assert str(info.value.__cause__) == "CRASH"
