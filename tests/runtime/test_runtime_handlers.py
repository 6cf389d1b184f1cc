"""Production and processing exception handlers and the KIP-1034 dead-letter queue, on a broker.

Sink records that cannot be serialized or that the producer refuses (larger than
``message.max.bytes``) and processors that raise: ``log_and_fail`` stops the client with an
error naming topic, key and cause; ``log_and_continue`` skips only the failing node's work,
counts it and logs it; with a DLQ topic the source record goes there with the error headers.
"""

from __future__ import annotations

from confluent_kafka import Consumer, TopicPartition
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

S = serdes.String()
BIG = 2_000_000  # over librdkafka's message.max.bytes (1 MB): the producer refuses it


class Shape(ks.Processor):
    """'big' becomes a 2 MB value, 'text' stays text (the Long sink cannot serialize it),
    digits become longs; 'boom' raises."""

    def init(self, context):
        self.context = context

    def process(self, record):
        if record.value == "boom":
            msg = "boom on purpose"
            raise ValueError(msg)
        if record.value == "big":
            self.context.forward(record.with_value("x" * BIG))
        elif record.value.isdigit():
            self.context.forward(record.with_value(int(record.value)))
        else:
            self.context.forward(record)


class LongOrBytes(serdes.Serde):
    """Longs as 8 bytes, and big strings as UTF-8 (so only 'text' fails to serialize)."""

    def serialize(self, topic, data, headers=None):
        if isinstance(data, str) and len(data) >= BIG:
            return data.encode()
        return serdes.Long().serialize(topic, data)

    def deserialize(self, topic, data, headers=None):
        return data


def _topology(source, sink, copy):
    """src -> shape -> sink (longs) and src -> copy (every record, untouched)."""
    return (ks.Topology()
            .add_source("src", source, key_serde=S, value_serde=S)
            .add_processor("shape", Shape, "src")
            .add_sink("out", sink, "shape", key_serde=S, value_serde=LongOrBytes())
            .add_sink("copy", copy, "src", key_serde=S, value_serde=S))


def _setup(kafka, values):
    source = kafka.create(kafka.name("in"))
    sink, copy = kafka.create(kafka.name("out")), kafka.create(kafka.name("copy"))
    dlq = kafka.create(kafka.name("dlq"))
    kafka.produce(source, [(f"k{i}".encode(), v.encode(), ) for i, v in enumerate(values)],
                  timestamp=1000)
    return source, sink, copy, dlq


def _read_all(kafka, topic, count):
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": kafka.name("r"),
                         "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    out = []
    wait_for(lambda: out.extend(m for m in consumer.consume(100, 0.1) if m.error() is None)
             or len(out) >= count, timeout=20)
    consumer.close()
    return out


def _client(streams):
    return streams.metrics()["client"]


def test_log_and_continue_skips_failed_sink_records_and_writes_the_dlq(kafka):
    source, sink, copy, dlq = _setup(kafka, ["1", "text", "2", "big", "3"])
    config = kafka.config("prod-continue", **{
        "default.production.exception.handler": "log_and_continue",
        "errors.dead.letter.queue.topic.name": dlq})
    streams = kafka.track(ks.KafkaStreams(_topology(source, sink, copy), config))
    streams.start()
    out = kafka.read(sink, 3)
    assert [(k, int.from_bytes(v, "big")) for k, v, _ in out] == [(b"k0", 1), (b"k2", 2),
                                                                   (b"k4", 3)]
    assert len(kafka.read(copy, 5)) == 5  # the sibling sink saw every record
    assert wait_for(lambda: _client(streams)["production-errors-skipped"] == 2)
    client = _client(streams)
    assert (client["dead-letter-records"], client["processing-errors-skipped"]) == (2, 0)
    thread = next(iter(streams.metrics()["threads"].values()))
    assert thread["tasks"]["0_0"]["dropped-records-total"] == 2
    letters = _read_all(kafka, dlq, 2)
    assert [(m.key(), m.value(), m.timestamp()[1]) for m in letters] == [
        (b"k1", b"text", 1001), (b"k3", b"big", 1003)]  # the source records, as read
    first, second = (dict(m.headers()) for m in letters)
    assert (first["__streams.errors.topic"], first["__streams.errors.partition"],
            first["__streams.errors.offset"]) == (source.encode(), b"0", b"1")
    assert first["__streams.errors.exception"] == b"SerializationError"
    assert b"cannot serialize the value 'text'" in first["__streams.errors.message"]
    assert (second["__streams.errors.exception"], second["__streams.errors.offset"]) == (
        b"ProductionError", b"3")
    assert b"MSG_SIZE_TOO_LARGE" in second["__streams.errors.message"]
    assert b"Traceback" in second["__streams.errors.stacktrace"]


def test_log_and_fail_is_the_default_and_names_topic_key_and_cause(kafka):
    source, sink, copy, _ = _setup(kafka, ["1", "text", "2"])
    streams = kafka.track(ks.KafkaStreams(_topology(source, sink, copy),
                                          kafka.config("prod-fail")))
    streams.start()
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    error = streams.errors[0]
    assert isinstance(error, ks.StreamsError)
    text = str(error)
    assert f"sending a record to topic '{sink}' failed (key 'k1')" in text
    assert "cannot serialize the value 'text'" in text and "log_and_fail" in text
    assert (error.topic, error.key) == (sink, "k1")


def test_a_record_too_large_fails_the_client_under_log_and_fail(kafka):
    source, sink, copy, _ = _setup(kafka, ["1", "big"])
    streams = kafka.track(ks.KafkaStreams(_topology(source, sink, copy),
                                          kafka.config("big-fail")))
    streams.start()
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    text = str(streams.errors[0])
    assert f"topic '{sink}' failed (key 'k1')" in text and "MSG_SIZE_TOO_LARGE" in text


def test_processing_handler_continue_skips_the_failing_node_only(kafka):
    source, sink, copy, dlq = _setup(kafka, ["1", "boom", "2"])
    config = kafka.config("proc-continue", **{
        "processing.exception.handler": "log_and_continue",
        "errors.dead.letter.queue.topic.name": dlq})
    streams = kafka.track(ks.KafkaStreams(_topology(source, sink, copy), config))
    streams.start()
    assert [k for k, _, _ in kafka.read(sink, 2)] == [b"k0", b"k2"]
    assert [v for _, v, _ in kafka.read(copy, 3)] == [b"1", b"boom", b"2"]
    assert wait_for(lambda: _client(streams)["processing-errors-skipped"] == 1)
    (letter,) = _read_all(kafka, dlq, 1)
    headers = dict(letter.headers())
    assert (letter.key(), letter.value()) == (b"k1", b"boom")
    assert (headers["__streams.errors.exception"], headers["__streams.errors.message"]) == (
        b"ValueError", b"boom on purpose")
    assert headers["__streams.errors.offset"] == b"1"
    assert streams.state is ks.KafkaStreams.State.RUNNING


def test_processing_log_and_fail_with_a_dlq_writes_the_record_then_fails(kafka):
    source, sink, copy, dlq = _setup(kafka, ["boom"])
    config = kafka.config("proc-fail", **{"errors.dead.letter.queue.topic.name": dlq})
    streams = kafka.track(ks.KafkaStreams(_topology(source, sink, copy), config))
    streams.start()
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    text = str(streams.errors[0])
    assert "processor=shape" in text and "boom on purpose" in text and "log_and_fail" in text
    (letter,) = _read_all(kafka, dlq, 1)
    assert (letter.key(), letter.value()) == (b"k0", b"boom")


def test_unknown_handler_names_are_refused():
    config = {"application.id": "x", "bootstrap.servers": "127.0.0.1:9",
              "processing.exception.handler": "retry_forever"}
    try:
        ks.KafkaStreams(ks.Topology().add_source("s", "t"), config)
        raise AssertionError("an unknown handler must be refused")
    except ks.KslabError as exc:
        assert "processing.exception.handler" in str(exc) and "log_and_continue" in str(exc)


class TickFails(ks.Processor):
    """Passes records on; its stream-time punctuation (every second) raises."""

    def init(self, context):
        self.context = context
        context.schedule(1000, ks.PunctuationType.STREAM_TIME, self.tick)

    def tick(self, timestamp):
        msg = f"tick at {timestamp} failed"
        raise RuntimeError(msg)

    def process(self, record):
        self.context.forward(record)


def test_a_failing_punctuation_goes_to_the_processing_handler_and_the_dlq(kafka):
    source, sink, _, dlq = _setup(kafka, ["a", "b", "c"])  # timestamps 1000, 1001, 1002
    topo = (ks.Topology().add_source("src", source, key_serde=S, value_serde=S)
            .add_processor("tick", TickFails, "src")
            .add_sink("out", sink, "tick", key_serde=S, value_serde=S))
    config = kafka.config("tick", **{"processing.exception.handler": "log_and_continue",
                                     "errors.dead.letter.queue.topic.name": dlq})
    streams = kafka.track(ks.KafkaStreams(topo, config))
    streams.start()
    assert [v for _, v, _ in kafka.read(sink, 3)] == [b"a", b"b", b"c"]
    assert wait_for(lambda: _client(streams)["processing-errors-skipped"] == 1)
    (letter,) = _read_all(kafka, dlq, 1)
    headers = dict(letter.headers())
    assert (letter.key(), letter.value(), letter.timestamp()[1]) == (None, None, 1000)
    assert headers["__streams.errors.message"] == b"tick at 1000 failed"
    assert (headers["__streams.errors.topic"], headers["__streams.errors.partition"],
            headers["__streams.errors.offset"]) == (None, b"-1", b"-1")
