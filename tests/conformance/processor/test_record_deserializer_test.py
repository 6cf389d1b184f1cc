"""Kafka's ``RecordDeserializerTest``, translated to a source in kslab's driver.

Java's ``RecordDeserializer`` runs the source node's deserializers over a raw
``ConsumerRecord`` and asks the deserialization exception handler when they throw. Here
``TheSourceNode`` is a source whose key and value serdes throw ``RuntimeException("KABOOM!")``
(or answer ``"key"``/``"value"``), the raw record is piped into the driver (topic ``topic``,
partition 0, offset 0: the driver's first record, with Java's headers and timestamp 10), and a
sink behind the source shows what came through. ``DeserializationExceptionHandlerMock`` is a
handler class given as ``deserialization.exception.handler``, checking what it is handed as
Java's does (the task is ``0_0``). ``StreamsException`` is ``ks.StreamsError``; for FAIL it is a
``kslab.errors.DeserializationError`` (a ``StreamsError``), and Java's ``getCause()`` is
``__cause__``; Java's ``NullPointerException`` for a ``null`` answer is a ``TypeError`` with
Java's message.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import DeserializationError, DeserializationHandlerResponse

SOURCE_NODE_NAME = "source-node"
TIMESTAMP = 10
HEADERS = [("key", b"value")]
FAIL_MESSAGE = (
    "Deserialization exception handler is set to fail upon a deserialization error. If you "
    "would rather have the streaming pipeline continue after a deserialization error, please "
    "set the deserialization.exception.handler appropriately.")


class Answering:
    """A serde whose deserializer throws ``RuntimeException("KABOOM!")`` or answers ``answer``
    (Java's ``TheSourceNode`` overrides ``deserializeKey``/``deserializeValue`` so)."""

    def __init__(self, answer, throws):
        self.answer, self.throws = answer, throws

    def serialize(self, topic, data, headers=None):
        return b""

    def deserialize(self, topic, data, headers=None):
        if self.throws:
            msg = "KABOOM!"
            raise RuntimeError(msg)
        return self.answer


def answering(answer, throws):
    return Answering(answer, throws)


class DeserializationExceptionHandlerMock:
    """Java's mock: checks the context and record, then answers (``None`` answers null; the
    string ``"throw"`` throws ``RuntimeException("CRASH")``)."""

    response = DeserializationHandlerResponse.FAIL
    calls: list = []

    def configure(self, configs):
        pass

    def handle(self, context, record, exception):
        DeserializationExceptionHandlerMock.calls.append((context, record, exception))
        assert context.topic == "topic"
        assert context.partition == 0
        assert context.offset == 0
        assert context.processor_node_id == SOURCE_NODE_NAME
        assert context.task_id == ks.TaskId(0, 0)
        assert context.timestamp == TIMESTAMP
        assert (record.topic, record.partition, record.offset) == ("topic", 0, 0)
        assert record.timestamp == TIMESTAMP
        assert [(h.key, h.value) for h in record.headers] == HEADERS
        assert [(h.key, h.value) for h in context.headers] == HEADERS
        assert isinstance(exception, RuntimeError)
        assert str(exception) == "KABOOM!"
        if self.response == "throw":
            msg = "CRASH"
            raise RuntimeError(msg)
        return self.response


def run(key_throws, value_throws, response="unused"):
    """Pipe the raw record through ``TheSourceNode``; return what reached the sink."""
    DeserializationExceptionHandlerMock.response = response
    DeserializationExceptionHandlerMock.calls = []
    topology = ks.Topology()
    topology.add_source(SOURCE_NODE_NAME, "topic", key_serde=answering("key", key_throws),
                        value_serde=answering("value", value_throws))
    topology.add_sink("sink", "out", SOURCE_NODE_NAME, key_serde=serdes.String(),
                      value_serde=serdes.String())
    config = {"deserialization.exception.handler": DeserializationExceptionHandlerMock}
    with ks.TopologyTestDriver(topology, config) as driver:
        headers = ks.Headers()
        for key, value in HEADERS:
            headers.add(key, value)
        driver.create_input_topic("topic", serdes.Bytes(), serdes.Bytes()).pipe_input(
            b"", b"", TIMESTAMP, headers=headers)
        out = driver.create_output_topic("out", serdes.String(), serdes.String())
        return [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]


def test_should_return_consumer_record_with_deserialized_value_when_no_exceptions():
    assert run(False, False) == [("key", "value", TIMESTAMP)]
    assert DeserializationExceptionHandlerMock.calls == []


@pytest.mark.parametrize(("key_throws", "value_throws"), [(True, True), (True, False),
                                                          (False, True)])
def test_should_throw_streams_exception_when_deserialization_fails_and_exception_handler_replies_with_fail(  # noqa: E501
        key_throws, value_throws):
    with pytest.raises(DeserializationError) as caught:
        run(key_throws, value_throws, DeserializationHandlerResponse.FAIL)
    assert str(caught.value) == FAIL_MESSAGE
    assert isinstance(caught.value, ks.StreamsError)
    assert str(caught.value.__cause__) == "KABOOM!"


@pytest.mark.parametrize(("key_throws", "value_throws"), [(True, True), (True, False),
                                                          (False, True)])
def test_should_not_throw_streams_exception_when_deserialization_fails_and_exception_handler_replies_with_continue(  # noqa: E501
        key_throws, value_throws):
    assert run(key_throws, value_throws, DeserializationHandlerResponse.CONTINUE) == []
    assert len(DeserializationExceptionHandlerMock.calls) == 1


def test_should_fail_when_deserialization_fails_and_exception_handler_returns_null():
    with pytest.raises(ks.StreamsError) as caught:
        run(True, False, None)
    assert str(caught.value) == "Fatal user code error in deserialization error callback"
    assert isinstance(caught.value.__cause__, TypeError)
    assert str(caught.value.__cause__) == "Invalid DeserializationExceptionHandler response."


def test_should_fail_when_deserialization_fails_and_exception_handler_throws():
    with pytest.raises(ks.StreamsError) as caught:
        run(True, False, "throw")
    assert str(caught.value) == "Fatal user code error in deserialization error callback"
    assert str(caught.value.__cause__) == "CRASH"


def test_a_skipped_record_is_counted_as_dropped():
    """Java's ``droppedRecordsSensor.record()`` after CONTINUE: the task's dropped records."""
    DeserializationExceptionHandlerMock.response = DeserializationHandlerResponse.CONTINUE
    topology = ks.Topology().add_source(SOURCE_NODE_NAME, "topic",
                                        key_serde=answering("key", True),
                                        value_serde=answering("value", False))
    config = {"deserialization.exception.handler": DeserializationExceptionHandlerMock}
    with ks.TopologyTestDriver(topology, config) as driver:
        headers = ks.Headers()
        headers.add("key", b"value")
        driver.create_input_topic("topic", serdes.Bytes(), serdes.Bytes()).pipe_input(
            b"", b"", TIMESTAMP, headers=headers)
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
