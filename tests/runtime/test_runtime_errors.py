"""Errors on a real broker: deserialization handlers, the DLQ, uncaught exceptions, metrics."""

from __future__ import annotations

from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes


def _long_passthrough(source, sink):
    return (ks.Topology()
            .add_source("src", source, key_serde=serdes.String(), value_serde=serdes.Long())
            .add_sink("out", sink, "src", key_serde=serdes.String(), value_serde=serdes.Long()))


def _bad_input(kafka, source):
    good = (1).to_bytes(8, "big")
    kafka.produce(source, [(b"a", good), (b"b", b"bad"), (b"c", good)])


def test_log_and_fail_stops_with_topic_partition_and_offset(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    _bad_input(kafka, source)
    streams = kafka.track(ks.KafkaStreams(_long_passthrough(source, sink), kafka.config("fail")))
    streams.start()
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    error = streams.errors[0]
    assert isinstance(error, ks.SerdeError)
    assert (error.topic, error.partition, error.offset) == (source, 0, 1)
    assert f"topic '{source}', partition 0, offset 1" in str(error)


def test_log_and_continue_skips_counts_and_writes_the_dlq(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    dlq = kafka.create(kafka.name("dlq"))
    _bad_input(kafka, source)
    config = kafka.config("continue", **{
        "default.deserialization.exception.handler": "log_and_continue",
        "errors.deadletterqueue.topic.name": dlq})
    streams = kafka.track(ks.KafkaStreams(_long_passthrough(source, sink), config))
    streams.start()
    assert [k for k, _, _ in kafka.read(sink, 2)] == [b"a", b"c"]
    assert wait_for(lambda: streams.metrics()["client"]["deserialization-errors-skipped"] == 1)
    tasks = next(iter(streams.metrics()["threads"].values()))["tasks"]
    assert tasks["0_0"]["dropped-records-total"] == 1
    consumer_records = _read_with_headers(kafka, dlq)
    (key, value, headers), = consumer_records
    assert (key, value) == (b"b", b"bad")
    assert headers["__streams.errors.topic"] == source.encode()
    assert headers["__streams.errors.offset"] == b"1"
    assert headers["__streams.errors.exception"] == b"SerdeError"


def _read_with_headers(kafka, topic):
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": kafka.name("h"),
                         "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    out = []
    assert wait_for(lambda: out.extend(
        (m.key(), m.value(), dict(m.headers() or [])) for m in consumer.consume(10, 0.1)
        if m.error() is None) or out, timeout=20)
    consumer.close()
    return out


class FailOnce(ks.Processor):
    """Raises on the first 'boom' it sees in this process, then passes records through."""

    failed = False

    def init(self, context):
        self.context = context

    def process(self, record):
        if record.value == "boom" and not FailOnce.failed:
            FailOnce.failed = True
            msg = "boom"
            raise RuntimeError(msg)
        self.context.forward(record)


def test_replace_thread_reprocesses_from_the_last_commit(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    s = serdes.String()
    topo = (ks.Topology().add_source("src", source, key_serde=s, value_serde=s)
            .add_processor("p", FailOnce, "src").add_sink("out", sink, "p", key_serde=s,
                                                          value_serde=s))
    kafka.produce(source, [(b"1", b"x"), (b"2", b"boom"), (b"3", b"y")])
    streams = kafka.track(ks.KafkaStreams(topo, kafka.config(
        "replace", processing__guarantee="exactly_once_v2")))
    seen = []
    streams.set_uncaught_exception_handler(
        lambda exc: seen.append(exc) or ks.KafkaStreams.REPLACE_THREAD)
    streams.start()
    got = kafka.read(sink, 3, committed=True)
    assert [v for _, v, _ in got] == [b"x", b"boom", b"y"]
    assert len(seen) == 1 and "boom" in str(seen[0])
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.RUNNING)
    metrics = streams.metrics()
    assert metrics["client"]["alive-stream-threads"] == 1
    # the replacement takes the free index 1 (its name, transactional and instance ids)
    assert list(metrics["threads"]) == [f"{streams.client_id}-StreamThread-1"]
    thread = next(iter(metrics["threads"].values()))
    for name in ("process-total", "process-rate", "commit-latency-avg-ms", "restore-total"):
        assert name in thread
    assert "records-lag" in thread["tasks"]["0_0"]


def test_shutdown_client_goes_to_error(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    FailOnce.failed = False
    s = serdes.String()
    topo = (ks.Topology().add_source("src", source, key_serde=s, value_serde=s)
            .add_processor("p", FailOnce, "src").add_sink("out", sink, "p", key_serde=s,
                                                          value_serde=s))
    kafka.produce(source, [(b"2", b"boom")])
    states = []
    streams = kafka.track(ks.KafkaStreams(topo, kafka.config("shutdown")))
    streams.set_state_listener(lambda new, old: states.append(new.name))
    streams.set_uncaught_exception_handler(lambda exc: "SHUTDOWN_CLIENT")
    streams.start()
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    assert states[-2:] == ["PENDING_ERROR", "ERROR"]


class AlwaysFail(ks.Processor):
    """Raises on every 'boom'."""

    def init(self, context):
        self.context = context

    def process(self, record):
        if record.value == "boom":
            msg = "boom"
            raise RuntimeError(msg)
        self.context.forward(record)


def test_shutdown_application_stops_every_instance(kafka):
    source, sink = kafka.create(kafka.name("in"), 2), kafka.create(kafka.name("out"))
    s = serdes.String()

    def topology():
        return (ks.Topology().add_source("src", source, key_serde=s, value_serde=s)
                .add_processor("p", AlwaysFail, "src")
                .add_sink("out", sink, "p", key_serde=s, value_serde=s))

    apps = []
    for name in ("a", "b"):
        config = kafka.config("app", state__dir=str(kafka.tmp_path / name))
        streams = kafka.track(ks.KafkaStreams(topology(), config))
        streams.set_uncaught_exception_handler(lambda exc: "SHUTDOWN_APPLICATION")
        streams.start()
        apps.append(streams)
    assert wait_for(lambda: all(len(a.local_tasks()) == 1 for a in apps), timeout=30)
    kafka.produce(source, [(b"x", b"boom")], partition=0)
    assert wait_for(lambda: all(a.state is ks.KafkaStreams.State.ERROR for a in apps),
                    timeout=30)
