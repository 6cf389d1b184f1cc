"""Kafka's ``KTableKTableForeignKeyInnerJoinCustomPartitionerIntegrationTest`` (streams/src/
test/.../integration), translated to kslab on the TopologyTestDriver with Java's partition counts
(4 for each topic, ``partitions=``) instead of three instances on an embedded cluster. Both
tables come from repartition topics of 4 partitions with custom partitioners (table A's by the
foreign key ``getKeyB``, table B's by its key, each ``abs(String.hashCode()) % n`` as Java
computes it), and the foreign-key join is given the same two partitioners through
``TableJoined.with_``, so subscriptions and responses go where the tables' rows live. Java's
``UniqueTopicSerdeScope`` is replaced by plain String serdes.

``shouldThrowIllegalArgumentExceptionWhenCustomPartitionerReturnsMultiplePartitions``: a
partitioner that returns several partitions for the subscription topic stops processing with
Java's message (the driver raises it from ``pipe_input``; Java's thread dies and the client
shuts down).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

TABLE_1, TABLE_2, OUTPUT = "table1", "table2", "output-"
S = serdes.String()
NOW = 1_700_000_000_000
CONFIG = {"application.id": "KTable-FKJ-Partitioner", "statestore.cache.max.bytes": 0,
          "commit.interval.ms": 100, "default.key.serde": "string",
          "default.value.serde": "string"}
PARTITIONS = {TABLE_1: 4, TABLE_2: 4, OUTPUT: 4}
MULTI_MESSAGE = ("The partitions returned by StreamPartitioner#partitions method when used for FK "
                 "join should be a singleton set")


def java_hash(text: str) -> int:
    """Java's ``String.hashCode`` (a signed 32-bit int)."""
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - 0x100000000 if h & 0x80000000 else h


def get_key_b(value: str) -> str:
    return value[:value.index("-")]


def by_foreign_key(topic, key, value, num_partitions):
    return {abs(java_hash(get_key_b(key))) % num_partitions}


def by_key(topic, key, value, num_partitions):
    return {abs(java_hash(key)) % num_partitions}


def multi_partitioner(topic, key, value, num_partitions):
    """Java's ``MultiPartitioner``: partitions 0 and 1."""
    return {0, 1}


def build(partitioner) -> ks.Topology:
    builder = ks.StreamsBuilder()
    table1 = builder.stream(TABLE_1, ks.Consumed.with_(S, S)).repartition(
        ks.Repartitioned.as_("a").with_key_serde(S).with_value_serde(S)
        .with_stream_partitioner(by_foreign_key).with_number_of_partitions(4)) \
        .to_table(ks.Named.as_("table.a"))
    table2 = builder.stream(TABLE_2, ks.Consumed.with_(S, S)).repartition(
        ks.Repartitioned.as_("b").with_key_serde(S).with_value_serde(S)
        .with_stream_partitioner(by_key).with_number_of_partitions(4)) \
        .to_table(ks.Named.as_("table.b"))
    materialized = ks.Materialized.as_("INNER-store1").with_key_serde(S).with_value_serde(S) \
        .with_caching_disabled()
    table1.join(table2, get_key_b, lambda v1, v2: f"value1={v1},value2={v2}",
                table_joined=ks.TableJoined.with_(partitioner, by_key),
                materialized=materialized).to_stream().to(OUTPUT, ks.Produced.with_(S, S))
    return builder.build(CONFIG)


def pipe_tables(driver: ks.TopologyTestDriver) -> None:
    driver.create_input_topic(TABLE_1, S, S).pipe_key_value_list(
        [(f"ID123-{i}", f"ID123-A{i}") for i in range(1, 5)], NOW, 1)
    driver.create_input_topic(TABLE_2, S, S).pipe_key_value_list([("ID123", "BBB")], NOW + 10)


def test_should_inner_join_multi_partition_queryable():
    with ks.TopologyTestDriver(build(by_foreign_key), CONFIG, partitions=PARTITIONS) as driver:
        pipe_tables(driver)
        result = driver.create_output_topic(OUTPUT, S, S).read_key_values_to_list()
    assert {tuple(kv) for kv in result} == {
        (f"ID123-{i}", f"value1=ID123-A{i},value2=BBB") for i in range(1, 5)}
    assert len(result) == 4


def test_should_throw_when_custom_partitioner_returns_multiple_partitions():
    with ks.TopologyTestDriver(build(multi_partitioner), CONFIG, partitions=PARTITIONS) as driver, \
            pytest.raises(ks.KslabError) as raised:
        pipe_tables(driver)
    error = raised.value
    messages = [str(error), str(error.__cause__)]
    assert any(MULTI_MESSAGE in m for m in messages), messages
