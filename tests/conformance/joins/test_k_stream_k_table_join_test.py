"""Kafka's ``KStreamKTableJoinTest`` (streams, kstream/internals), translated to kslab's DSL.

Java's ``MockApiProcessorSupplier`` under the join becomes a capture processor appending
``(key, value, timestamp)``; ``checkAndClearProcessResult`` becomes ``drain()``.
``MockValueJoiner.TOSTRING_JOINER`` is ``f"{v1}+{v2}"`` with ``None`` printed as Java's
``null``. ``pushToTable``'s random timestamps come from a seeded ``random.Random``.
``copartitionGroups()`` of Java's internal topology builder is ``Topology.copartition_groups()``.
Java's ``IllegalArgumentException`` for a grace period on an unversioned table (or one longer
than the history retention) is an error that is both a ``ks.TopologyError`` and a
``ValueError`` here. ``LogCaptureAppender`` becomes pytest's ``caplog`` on the ``kslab.dsl``
logger. Nothing is skipped.
"""

from __future__ import annotations

import logging
import random

import pytest

import kslab as ks
from kslab import serdes

INT, S = serdes.Integer(), serdes.String()
STREAM_TOPIC = "streamTopic"
TABLE_TOPIC = "tableTopic"
EXPECTED_KEYS = [0, 1, 2, 3]
PROPS = {"default.key.serde": "integer", "default.value.serde": "string"}
NO_OPTIMIZATION = {"topology.optimization": "none"}
STRINGS = {"default.key.serde": "string", "default.value.serde": "string"}
NOT_VERSIONED = "KTable must be versioned to use a grace period in a stream table join."


def _s(value: object) -> str:
    return "null" if value is None else str(value)


def tostring_joiner(v1: object, v2: object) -> str:
    """Java's MockValueJoiner.TOSTRING_JOINER."""
    return f"{_s(v1)}+{_s(v2)}"


class Capture(ks.Processor):
    """Java's MockApiProcessor: records what reaches it."""

    seen: list = []

    def process(self, record: ks.Record) -> None:
        Capture.seen.append((record.key, record.value, record.timestamp))


def drain() -> list:
    seen, Capture.seen = Capture.seen, []
    return seen


class Fixture:
    """setUp(): a stream joined with a table, the capture processor under the join."""

    def __init__(self, builder: ks.StreamsBuilder, table_topic: str) -> None:
        Capture.seen = []
        self.builder = builder
        self.driver = ks.TopologyTestDriver(builder.build(), PROPS)
        self.stream = self.driver.create_input_topic(STREAM_TOPIC, INT, S)
        self.table = self.driver.create_input_topic(table_topic, INT, S)

    def push_to_stream(self, count: int, prefix: str) -> None:
        for i in range(count):
            self.stream.pipe_input(EXPECTED_KEYS[i], f"{prefix}{EXPECTED_KEYS[i]}", i)

    def push_to_table_non_random(self, count: int, prefix: str) -> None:
        for i in range(count):
            self.table.pipe_input(EXPECTED_KEYS[i], f"{prefix}{EXPECTED_KEYS[i]}", 0)

    def push_to_table(self, count: int, prefix: str) -> None:
        r = random.Random(42)
        for i in range(count):
            self.table.pipe_input(EXPECTED_KEYS[i], f"{prefix}{EXPECTED_KEYS[i]}",
                                  r.randrange(2**31 - 1))

    def push_null_value_to_table(self) -> None:
        for i in range(2):
            self.table.pipe_input(EXPECTED_KEYS[i], None)


@pytest.fixture
def fx():
    builder = ks.StreamsBuilder()
    consumed = ks.Consumed.with_(INT, S)
    stream = builder.stream(STREAM_TOPIC, consumed)
    table = builder.table(TABLE_TOPIC, consumed)
    stream.join(table, tostring_joiner).process(Capture)
    f = Fixture(builder, TABLE_TOPIC)
    yield f
    f.driver.close()


@pytest.fixture
def make_join():
    made = []

    def make(grace: int) -> Fixture:
        builder = ks.StreamsBuilder()
        consumed = ks.Consumed.with_(INT, S)
        stream = builder.stream(STREAM_TOPIC, consumed)
        table = builder.table("tableTopic2", consumed, ks.Materialized.as_(
            ks.Stores.persistent_versioned_key_value_store("V-grace", 5 * 60_000)))
        stream.join(table, tostring_joiner, ks.Joined.with_(INT, S, S, "Grace", grace)) \
            .process(Capture)
        made.append(Fixture(builder, "tableTopic2"))
        return made[-1]

    yield make
    for f in made:
        f.driver.close()


def _str_builder() -> tuple[ks.StreamsBuilder, ks.KStream]:
    builder = ks.StreamsBuilder()
    return builder, builder.stream("topic", ks.Consumed.with_(S, S))


def _grace_joined(grace: int) -> ks.Joined:
    return ks.Joined.with_(S, S, S, "first-join", grace)


def test_should_fail_if_table_is_not_versioned():
    _, stream_a = _str_builder()
    table_b = stream_a.builder.table("topic2", ks.Consumed.with_(S, S))
    with pytest.raises(ValueError) as info:
        stream_a.join(table_b, lambda v1, v2: v1 + v2, _grace_joined(6)).to("out-one")
    assert isinstance(info.value, ks.TopologyError)
    assert str(info.value) == NOT_VERSIONED


def test_should_fail_if_table_is_not_versioned_but_materialization_is_inherited():
    builder, stream_a = _str_builder()
    source = builder.table("topic2", ks.Consumed.with_(S, S),
                           ks.Materialized.as_(ks.Stores.in_memory_key_value_store("tableB")))
    table_b = source.filter(lambda k, v: True)
    stream_a.join(table_b, lambda v1, v2: v1 + v2, _grace_joined(6)).to("out-one")
    with pytest.raises(ValueError) as info:
        builder.build()
    assert str(info.value) == NOT_VERSIONED


def test_should_not_fail_if_table_is_versioned_but_materialization_is_inherited():
    builder, stream_a = _str_builder()
    source = builder.table("topic2", ks.Consumed.with_(S, S), ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("tableB", 5 * 60_000)))
    table_b = source.filter(lambda k, v: True)
    stream_a.join(table_b, lambda v1, v2: v1 + v2, _grace_joined(6)).to("out-one")
    builder.build()  # should not throw an error


def test_should_not_fail_if_table_is_versioned_but_materialization_is_inherited_and_run():
    # beyond Java's test, which only builds: the topology also runs, the join reading the
    # versioned store through the filter's getter as of each stream record's time
    builder, stream_a = _str_builder()
    source = builder.table("topic2", ks.Consumed.with_(S, S), ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("tableB", 5 * 60_000)))
    table_b = source.filter(lambda k, v: v != "skip")
    stream_a.join(table_b, lambda v1, v2: v1 + v2, _grace_joined(6)).to("out-one")
    with ks.TopologyTestDriver(builder.build(NO_OPTIMIZATION), STRINGS) as driver:
        table = driver.create_input_topic("topic2", S, S)
        stream = driver.create_input_topic("topic", S, S)
        out = driver.create_output_topic("out-one", S, S)
        table.pipe_input("k", "v1", 0)
        table.pipe_input("k", "skip", 10)
        table.pipe_input("k", "v3", 20)
        stream.pipe_input("k", "a", 5)
        stream.pipe_input("k", "b", 12)
        stream.pipe_input("k", "c", 30)  # stream time 30: releases a and b
        assert [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()] == [
            ("k", "av1", 5)]


def test_should_fail_if_grace_period_is_longer_than_history_retention():
    builder, stream_a = _str_builder()
    table_b = builder.table("topic2", ks.Consumed.with_(S, S), ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("tableB", 5 * 60_000)))
    stream_a.join(table_b, lambda v1, v2: v1 + v2, _grace_joined(6 * 60_000)).to("out-one")
    with pytest.raises(ValueError) as info:
        builder.build(NO_OPTIMIZATION)
    assert str(info.value) == "History retention must be at least grace period."


def test_should_fail_if_grace_period_is_longer_than_history_retention_and_inherited_store():
    builder, stream_a = _str_builder()
    source = builder.table("topic2", ks.Consumed.with_(S, S), ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("V-grace", 0)))
    table_b = source.filter(lambda k, v: True)
    stream_a.join(table_b, lambda v1, v2: v1 + v2, _grace_joined(6)).to("out-one")
    with pytest.raises(ValueError) as info:
        builder.build(NO_OPTIMIZATION)
    assert str(info.value) == "History retention must be at least grace period."


def test_should_delay_join_by_grace_period(make_join):
    f = make_join(2)
    f.push_to_table_non_random(4, "Y")
    assert drain() == []
    f.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1)]
    f.push_to_table_non_random(4, "YY")
    assert drain() == []
    f.push_to_stream(4, "X")
    assert drain() == [(0, "X0+YY0", 0), (1, "X1+YY1", 1)]
    f.stream.pipe_input(5, "test", 7)
    assert drain() == [(2, "X2+YY2", 2), (2, "X2+YY2", 2), (3, "X3+YY3", 3), (3, "X3+YY3", 3)]
    f.push_to_table_non_random(4, "YYY")
    assert drain() == []


def test_should_handle_late_joins_with_grace_period(make_join):
    f = make_join(2)
    f.push_to_table_non_random(4, "Y")
    assert drain() == []
    f.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1)]
    f.push_to_stream(1, "X")
    assert drain() == [(0, "X0+Y0", 0)]


def _rekeyed(joined_b: ks.Joined | None, joined_c: ks.Joined | None) -> ks.Topology:
    builder, stream_a = _str_builder()
    table_b = builder.table("topic2", ks.Consumed.with_(S, S))
    table_c = builder.table("topic3", ks.Consumed.with_(S, S))
    rekeyed = stream_a.map(lambda k, v: ks.KeyValue(v, k))
    rekeyed.join(table_b, lambda v1, v2: v1 + v2, joined_b).to("out-one")
    rekeyed.join(table_c, lambda v1, v2: v1 + v2, joined_c).to("out-two")
    return builder.build(NO_OPTIMIZATION)


def test_should_reuse_repartition_topic_with_generated_name():
    topology = _rekeyed(None, None)
    assert str(topology.describe()) == EXPECTED_TOPOLOGY_WITH_GENERATED_REPARTITION_TOPIC_NAMES


def test_should_create_repartition_topics_with_user_provided_name():
    topology = _rekeyed(ks.Joined.with_(S, S, S, "first-join"),
                        ks.Joined.with_(S, S, S, "second-join"))
    assert str(topology.describe()) == EXPECTED_TOPOLOGY_WITH_USER_PROVIDED_REPARTITION_TOPIC_NAMES


def test_should_require_copartitioned_streams(fx):
    groups = fx.builder.build().copartition_groups()
    assert len(groups) == 1
    assert groups[0] == {STREAM_TOPIC, TABLE_TOPIC}


def test_should_not_join_with_empty_table_on_stream_updates(fx):
    fx.push_to_stream(2, "X")
    assert drain() == []


def test_should_not_join_on_table_updates(fx):
    fx.push_to_stream(2, "X")
    assert drain() == []
    fx.push_to_table(2, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1)]
    fx.push_to_table(4, "YY")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+YY0", 0), (1, "X1+YY1", 1), (2, "X2+YY2", 2), (3, "X3+YY3", 3)]
    fx.push_to_table(4, "YYY")
    assert drain() == []


def test_should_join_only_if_match_found_on_stream_updates(fx):
    fx.push_to_table(2, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1)]


def test_should_clear_table_entry_on_null_value_updates(fx):
    fx.push_to_table(4, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1), (2, "X2+Y2", 2), (3, "X3+Y3", 3)]
    fx.push_null_value_to_table()
    assert drain() == []
    fx.push_to_stream(4, "XX")
    assert drain() == [(2, "XX2+Y2", 2), (3, "XX3+Y3", 3)]


def test_should_log_and_meter_when_skipping_null_left_key(fx, caplog):
    with caplog.at_level(logging.WARNING, logger="kslab.dsl"):
        fx.driver.create_input_topic(STREAM_TOPIC, INT, S).pipe_input(None, "A")
    assert ("Skipping record due to null join key or value. topic=[streamTopic] partition=[0] "
            "offset=[0]") in caplog.messages


def test_should_log_and_meter_when_skipping_null_left_value(fx, caplog):
    with caplog.at_level(logging.WARNING, logger="kslab.dsl"):
        fx.driver.create_input_topic(STREAM_TOPIC, INT, S).pipe_input(1, None)
    assert ("Skipping record due to null join key or value. topic=[streamTopic] partition=[0] "
            "offset=[0]") in caplog.messages


EXPECTED_TOPOLOGY_WITH_GENERATED_REPARTITION_TOPIC_NAMES = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n"
    "      --> KSTREAM-MAP-0000000007\n"
    "    Processor: KSTREAM-MAP-0000000007 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000009\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-FILTER-0000000009 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000008\n"
    "      <-- KSTREAM-MAP-0000000007\n"
    "    Sink: KSTREAM-SINK-0000000008 (topic: KSTREAM-MAP-0000000007-repartition)\n"
    "      <-- KSTREAM-FILTER-0000000009\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: KSTREAM-SOURCE-0000000010 (topics: [KSTREAM-MAP-0000000007-repartition])\n"
    "      --> KSTREAM-JOIN-0000000011, KSTREAM-JOIN-0000000016\n"
    "    Processor: KSTREAM-JOIN-0000000011 (stores: [topic2-STATE-STORE-0000000001])\n"
    "      --> KSTREAM-SINK-0000000012\n"
    "      <-- KSTREAM-SOURCE-0000000010\n"
    "    Processor: KSTREAM-JOIN-0000000016 (stores: [topic3-STATE-STORE-0000000004])\n"
    "      --> KSTREAM-SINK-0000000017\n"
    "      <-- KSTREAM-SOURCE-0000000010\n"
    "    Source: KSTREAM-SOURCE-0000000002 (topics: [topic2])\n"
    "      --> KTABLE-SOURCE-0000000003\n"
    "    Source: KSTREAM-SOURCE-0000000005 (topics: [topic3])\n"
    "      --> KTABLE-SOURCE-0000000006\n"
    "    Sink: KSTREAM-SINK-0000000012 (topic: out-one)\n"
    "      <-- KSTREAM-JOIN-0000000011\n"
    "    Sink: KSTREAM-SINK-0000000017 (topic: out-two)\n"
    "      <-- KSTREAM-JOIN-0000000016\n"
    "    Processor: KTABLE-SOURCE-0000000003 (stores: [topic2-STATE-STORE-0000000001])\n"
    "      --> none\n"
    "      <-- KSTREAM-SOURCE-0000000002\n"
    "    Processor: KTABLE-SOURCE-0000000006 (stores: [topic3-STATE-STORE-0000000004])\n"
    "      --> none\n"
    "      <-- KSTREAM-SOURCE-0000000005\n\n"
)

EXPECTED_TOPOLOGY_WITH_USER_PROVIDED_REPARTITION_TOPIC_NAMES = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n"
    "      --> KSTREAM-MAP-0000000007\n"
    "    Processor: KSTREAM-MAP-0000000007 (stores: [])\n"
    "      --> first-join-repartition-filter, second-join-repartition-filter\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: first-join-repartition-filter (stores: [])\n"
    "      --> first-join-repartition-sink\n"
    "      <-- KSTREAM-MAP-0000000007\n"
    "    Processor: second-join-repartition-filter (stores: [])\n"
    "      --> second-join-repartition-sink\n"
    "      <-- KSTREAM-MAP-0000000007\n"
    "    Sink: first-join-repartition-sink (topic: first-join-repartition)\n"
    "      <-- first-join-repartition-filter\n"
    "    Sink: second-join-repartition-sink (topic: second-join-repartition)\n"
    "      <-- second-join-repartition-filter\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: first-join-repartition-source (topics: [first-join-repartition])\n"
    "      --> first-join\n"
    "    Source: KSTREAM-SOURCE-0000000002 (topics: [topic2])\n"
    "      --> KTABLE-SOURCE-0000000003\n"
    "    Processor: first-join (stores: [topic2-STATE-STORE-0000000001])\n"
    "      --> KSTREAM-SINK-0000000012\n"
    "      <-- first-join-repartition-source\n"
    "    Sink: KSTREAM-SINK-0000000012 (topic: out-one)\n"
    "      <-- first-join\n"
    "    Processor: KTABLE-SOURCE-0000000003 (stores: [topic2-STATE-STORE-0000000001])\n"
    "      --> none\n"
    "      <-- KSTREAM-SOURCE-0000000002\n"
    "\n"
    "  Sub-topology: 2\n"
    "    Source: second-join-repartition-source (topics: [second-join-repartition])\n"
    "      --> second-join\n"
    "    Source: KSTREAM-SOURCE-0000000005 (topics: [topic3])\n"
    "      --> KTABLE-SOURCE-0000000006\n"
    "    Processor: second-join (stores: [topic3-STATE-STORE-0000000004])\n"
    "      --> KSTREAM-SINK-0000000017\n"
    "      <-- second-join-repartition-source\n"
    "    Sink: KSTREAM-SINK-0000000017 (topic: out-two)\n"
    "      <-- second-join\n"
    "    Processor: KTABLE-SOURCE-0000000006 (stores: [topic3-STATE-STORE-0000000004])\n"
    "      --> none\n"
    "      <-- KSTREAM-SOURCE-0000000005\n\n"
)
