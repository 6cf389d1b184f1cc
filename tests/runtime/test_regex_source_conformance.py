"""Kafka's ``RegexSourceIntegrationTest`` on the live runtime (a LocalBroker), the cases that
need no consumer wrapper (Java's ``KafkaClientSupplier`` spies) nor internal builder: a pattern
source picks up a topic created while the application runs (with more than one sub-topology:
each stream thread matches the broker's topics every ``metadata.max.age.ms``, as Java's
consumer does, and subscribes again); two patterns and a named-topics source read together;
overlapping patterns (``foo.*`` and ``f.*``) send nothing and fail the application: Java's
stream thread fails with a ``TopologyException``, kslab's ``start()`` raises ``TopologyError``
(the client goes to ERROR), as it resolves the patterns against the broker's topics when it
starts. Topic names carry a per-test prefix (patterns are anchored on it).
Java's configs: no cache, commit every 100 ms, metadata max age 1000 ms, earliest reset,
``max.task.idle.ms`` 0, String serdes.
"""

from __future__ import annotations

import re
import threading

import pytest
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

S = serdes.String()


def _config(kafka):
    return kafka.config("regex-source", default__key__serde=S, default__value__serde=S,
                        statestore__cache__max__bytes=0, commit__interval__ms=100,
                        consumer__metadata__max__age__ms=1000,
                        consumer__auto__offset__reset="earliest", max__task__idle__ms=0)


def test_regex_records_are_processed_after_new_topic_created_with_multiple_subtopologies(kafka):
    prefix = kafka.name("TEST-TOPIC")
    topic1 = kafka.create(f"{prefix}-1")
    output = kafka.create(kafka.name("outputTopic"))
    builder = ks.StreamsBuilder()
    pattern1 = builder.stream(re.compile(re.escape(prefix) + r"-\d"))
    builder.stream(re.compile(re.escape(kafka.name("not-a-match"))))
    pattern1.select_key(lambda k, v: k).group_by_key() \
        .aggregate(lambda: "", lambda k, v, a: v).to_stream() \
        .to(output, ks.Produced.with_(S, S))
    topology = builder.build()
    assert len(topology.describe().subtopologies) > 1
    streams = kafka.track(ks.KafkaStreams(topology, _config(kafka)))
    streams.start()
    assert streams.wait_until_running(30)

    topic2 = kafka.create(f"{prefix}-2")
    kafka.produce(topic1, [(b"1", b"1")])
    kafka.produce(topic2, [(b"2", b"2")])
    got = kafka.read_until(output, lambda r: {(k, v) for k, v, _p in r} >= {
        (b"1", b"1"), (b"2", b"2")}, timeout=20)
    assert {(k, v) for k, v, _p in got} == {(b"1", b"1"), (b"2", b"2")}
    assert streams.close(timeout=10_000)


def test_should_read_from_regex_and_named_topics(kafka):
    prefix = kafka.name("rx")
    names = ["1", "2", "A", "C", "Y", "Z"]
    topics = {n: kafka.create(f"{prefix}-topic-{n}") for n in names}
    output = kafka.create(kafka.name("outputTopic"))
    builder = ks.StreamsBuilder()
    escaped = re.escape(prefix)
    streams_ = [builder.stream(re.compile(rf"{escaped}-topic-\d")),
                builder.stream(re.compile(rf"{escaped}-topic-[A-D]")),
                builder.stream([topics["Y"], topics["Z"]])]
    for stream in streams_:
        stream.to(output, ks.Produced.with_(S, S))
    streams = kafka.track(ks.KafkaStreams(builder.build(), _config(kafka)))
    streams.start()
    for name, topic in topics.items():
        kafka.produce(topic, [(None, f"topic-{name} test".encode())])
    got = kafka.read(output, 6, settle=1.0)
    assert sorted(v.decode() for _k, v, _p in got) == sorted(f"topic-{n} test" for n in names)
    assert streams.close(timeout=10_000)


def test_no_messages_sent_exception_from_overlapping_patterns(kafka):
    prefix = kafka.name("ov")
    fa, foo = kafka.create(f"{prefix}-fa"), kafka.create(f"{prefix}-foo")
    output = kafka.create(kafka.name("outputTopic"))
    builder = ks.StreamsBuilder()
    escaped = re.escape(prefix)
    builder.stream(re.compile(rf"{escaped}-foo.*")).to(output, ks.Produced.with_(S, S))
    builder.stream(re.compile(rf"{escaped}-f.*")).to(output, ks.Produced.with_(S, S))
    expect_error = threading.Event()
    streams = kafka.track(ks.KafkaStreams(builder.build(), _config(kafka)))

    def on_state(new_state, old_state) -> None:
        if new_state == ks.KafkaStreams.State.ERROR:
            expect_error.set()
    streams.set_state_listener(on_state)
    streams.set_uncaught_exception_handler(
        lambda exc: expect_error.set() or ks.KafkaStreams.SHUTDOWN_CLIENT)
    kafka.produce(fa, [(None, b"fMessage")])
    kafka.produce(foo, [(None, b"fooMessage")])
    with pytest.raises(ks.TopologyError, match=f"Topic {re.escape(foo)} is already matched for "
                       "another regex pattern"):
        streams.start()
    assert kafka.read(output, 2, timeout=5) == []
    assert wait_for(expect_error.is_set, 30)
