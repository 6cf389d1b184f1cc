"""Kafka's ``SourceNodeTest`` and ``SinkNodeTest`` (streams/processor/internals), in the driver.

Java calls ``SourceNode.deserializeKey/Value(topic, headers, data)`` and ``SinkNode.process`` on
nodes built by hand; here the nodes are a ``Topology``'s source and sink in a
``TopologyTestDriver``, with a serde that answers ``topic + headers + data`` (Java's
``TheDeserializer``; ``RecordHeaders``' ``toString`` is the list of header pairs here).
Serialization happens at every topic boundary in the driver (API.md), so the serdes see exactly
the topic, headers and bytes Java's nodes hand them: the source's deserializers the input
record's headers, the sink's serializers the headers of the record forwarded to it
(``RecordCollectorImpl.send`` passes ``record.headers()`` to both serializers).

``SinkNodeTest.shouldThrowStreamsExceptionOnInputRecordWithInvalidTimestamp``: Java's
``new Record<>(key, value, -1)`` throws ``StreamsException("Malformed Record")`` before the sink
sees it; so does ``ks.Record`` (and ``with_timestamp(-1)``), and a processor doing so fails the
task with a ``ks.StreamsError`` and nothing is written.

Not ported: ``SourceNodeTest.shouldExposeProcessMetrics`` (JMX sensor names and parents, outside
API.md), and the ``Failed to initialize key/value serdes for source/sink node`` cases (Java
mocks ``WrappingNullableUtils`` to fail a missing default serde; API.md makes ``serdes.Json()``
the default key and value serde, so a node always has one: ``ProcessorNodeTest``'s port checks
that such a topology runs).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes


class TheSerde:
    """Java's ``TheDeserializer``: deserializes to ``topic + headers + data``; as a serializer it
    records what it was handed and writes ``str(data)``."""

    def __init__(self):
        self.serialized = []

    def serialize(self, topic, data, headers=None):
        self.serialized.append((topic, _pairs(headers), data))
        return None if data is None else str(data).encode()

    def deserialize(self, topic, data, headers=None):
        return f"{topic}{_pairs(headers)}{data.decode()}"


def _pairs(headers):
    """``RecordHeaders.toString()``'s content: the header pairs, in order."""
    return None if headers is None else [(key, value) for key, value in headers]


def _headers(*pairs):
    headers = ks.Headers()
    for key, value in pairs:
        headers.add(key, value)
    return headers


def _source_to_sink(key_serde, value_serde, processor=None):
    topology = ks.Topology().add_source("source", "topic", key_serde=key_serde,
                                        value_serde=value_serde)
    parent = "source"
    if processor is not None:
        topology.add_processor("p", processor, "source")
        parent = "p"
    return topology.add_sink("sink", "out", parent, key_serde=key_serde, value_serde=value_serde)


@pytest.mark.parametrize("headers", [None, (("h", b"1"), ("h", None))],
                         ids=["no_headers", "headers"])
def test_should_provide_topic_headers_and_data_to_key_and_value_deserializer(headers):
    """Java's ``RecordHeaders`` is never null: a record piped without headers has empty ones."""
    seen = []

    class Capture(ks.Processor):
        def process(self, record):
            seen.append((record.key, record.value))

    topology = ks.Topology().add_source("source", "topic", key_serde=TheSerde(),
                                        value_serde=TheSerde())
    topology.add_processor("p", Capture, "source")
    with ks.TopologyTestDriver(topology) as driver:
        topic = driver.create_input_topic("topic", key_serde=serdes.String(),
                                          value_serde=serdes.String())
        topic.pipe_input("data", "value", 0,
                         headers=None if headers is None else _headers(*headers))
    listed = list(headers or ())
    assert seen == [(f"topic{listed}data", f"topic{listed}value")]


def test_should_provide_topic_headers_and_data_to_sink_serializers():
    class AddHeader(ks.Processor):
        def init(self, context):
            self.context = context

        def process(self, record):
            headers = _headers(*record.headers)
            headers.add("added", b"2")
            self.context.forward(record.with_headers(headers))

    key_serde, value_serde = TheSerde(), TheSerde()
    topology = _source_to_sink(key_serde, value_serde, AddHeader)
    with ks.TopologyTestDriver(topology) as driver:
        topic = driver.create_input_topic("topic", key_serde=serdes.String(),
                                          value_serde=serdes.String())
        topic.pipe_input("k", "v", 0, headers=_headers(("h", b"1")))
        out = driver.create_output_topic("out", key_serde=serdes.String(),
                                         value_serde=serdes.String())
        record = out.read_record()
    expected_headers = [("h", b"1"), ("added", b"2")]
    key = f"topic{[('h', b'1')]}k"
    value = f"topic{[('h', b'1')]}v"
    assert key_serde.serialized == [("out", expected_headers, key)]
    assert value_serde.serialized == [("out", expected_headers, value)]
    assert (record.key, record.value, record.timestamp) == (key, value, 0)
    assert list(record.headers) == expected_headers


def test_should_throw_streams_exception_on_input_record_with_invalid_timestamp():
    class NegativeTimestamp(ks.Processor):
        def init(self, context):
            self.context = context

        def process(self, record):
            self.context.forward(record.with_timestamp(-1))

    with pytest.raises(ks.StreamsError, match=r"^Malformed Record"):
        ks.Record(b"any key", b"any value", -1)
    topology = _source_to_sink(serdes.String(), serdes.String(), NegativeTimestamp)
    with ks.TopologyTestDriver(topology) as driver:
        topic = driver.create_input_topic("topic")
        out = driver.create_output_topic("out")
        with pytest.raises(ks.StreamsError):
            topic.pipe_input("any key", "any value", 0)
        assert out.is_empty()
