"""A sink's direct writer on a real broker: headers, timestamps, null keys, serde refusals (the
encoding rule's fallback, tests/core/sink_codec_cases.py) and a full producer queue."""

from __future__ import annotations

from confluent_kafka import Consumer, Producer, TopicPartition
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from tests.core import sink_codec_cases as cases


class _Stamp(ks.Processor):
    """Forwards each value as a Long with a header and timestamp 1000 + value; "none" drops
    the key, "text" forwards a str the Long sink cannot serialize."""

    def init(self, context):
        self.context = context

    def process(self, record):
        if record.value == "text":
            self.context.forward(record)
            return
        n = len(record.value)
        key = None if record.value == "none" else record.key
        self.context.forward(record.with_key(key).with_value(n).with_timestamp(1000 + n)
                             .with_headers([("h", record.value.encode())]))


def _topology(source, sink):
    return (ks.Topology()
            .add_source("src", source, key_serde=serdes.String(), value_serde=serdes.String())
            .add_processor("stamp", _Stamp, "src")
            .add_sink("out", sink, "stamp", key_serde=serdes.String(), value_serde=serdes.Long()))


def _read(kafka, topic, count):
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": kafka.name("r"),
                         "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    out = []
    try:
        assert wait_for(lambda: out.extend(
            (m.key(), m.value(), m.timestamp()[1], m.headers()) for m in consumer.consume(10, 0.1)
            if m.error() is None) or len(out) >= count, timeout=20)
    finally:
        consumer.close()
    return out


def test_sink_writes_headers_timestamps_and_null_keys(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    kafka.produce(source, [(b"a", b"xy"), (b"b", b"none")])
    streams = kafka.track(ks.KafkaStreams(_topology(source, sink), kafka.config("sinkw")))
    streams.start()
    assert _read(kafka, sink, 2) == [
        (b"a", (2).to_bytes(8, "big"), 1002, [("h", b"xy")]),
        (None, (4).to_bytes(8, "big"), 1004, [("h", b"none")]),
    ]


def test_sink_value_its_serde_refuses_fails_the_app_naming_the_sink(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    kafka.produce(source, [(b"a", b"text")])
    streams = kafka.track(ks.KafkaStreams(_topology(source, sink), kafka.config("sinkf")))
    streams.start()
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    error = streams.errors[0]
    assert type(error).__name__ == "HandlerFailed"
    assert f"sink 'out' cannot serialize the value 'text' (str) for topic '{sink}'" in str(error)
    assert "the production exception handler is log_and_fail" in str(error)


def _produce_json(kafka, topic, values):
    """``(value, timestamp, headers)`` rows as JSON values under key ``k``, in order."""
    producer = Producer({"bootstrap.servers": kafka.bootstrap})
    json = serdes.Json()
    for value, timestamp, headers in values:
        producer.produce(topic, json.serialize(topic, value), b"k", timestamp=timestamp,
                         headers=headers)
    assert producer.flush(30) == 0


def test_sink_writer_writes_what_the_serdes_write_for_records_their_codecs_refuse(kafka):
    """The runtime's topic writer under the one encoding rule: the driver's writers' bytes
    (tests/core/test_sink_codec_rule.py), headers and timestamps for the same records."""
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    _produce_json(kafka, source, cases.INPUT)
    streams = kafka.track(ks.KafkaStreams(cases.topology(source, sink), kafka.config("sinkc")))
    streams.start()
    got = _read(kafka, sink, len(cases.EXPECTED))
    assert [(k, v, ts, headers or []) for k, v, ts, headers in got] == cases.EXPECTED


def test_sink_writer_raises_the_sinks_error_for_what_the_serde_refuses_too(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    _produce_json(kafka, source, [(cases.REFUSED, 106, None)])
    streams = kafka.track(ks.KafkaStreams(cases.topology(source, sink), kafka.config("sinkr")))
    streams.start()
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    assert cases.refused_message(sink) in str(streams.errors[0])


def test_sink_writer_waits_for_room_when_the_producers_queue_is_full(kafka):
    """A local queue of one message: each produce after the first finds it full until the
    broker acknowledges (``BufferError``); the writer polls and produces again, losing none."""
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    rows = [(["k", i], 100 + i, None) for i in range(30)]
    _produce_json(kafka, source, rows)
    config = kafka.config("sinkq", producer__queue__buffering__max__messages=1)
    streams = kafka.track(ks.KafkaStreams(cases.topology(source, sink), config))
    streams.start()
    got = _read(kafka, sink, len(rows))
    assert [(k, v, ts) for k, v, ts, _ in got] == [
        (b"k", i.to_bytes(8, "big"), 100 + i) for i in range(30)]
