"""Kafka's ``KTableKTableForeignKeyInnerJoinMultiIntegrationTest`` (streams/src/test/.../
integration), translated to kslab on the TopologyTestDriver instead of three application
instances on an embedded cluster: the driver's ``partitions=`` gives the topics Java's partition
counts (3, 5, 7 and 11), each sub-topology runs one task per partition, and records are routed by
murmur2 of the serialized key, so the subscription and response topics cross partitions as they
do across Java's instances. Java produces all three tables before it starts; we pipe them in the
same order. Java's ``UniqueTopicSerdeScope`` (which checks each topic keeps one serde) is replaced
by the plain serdes. The joiners print Java's ``Float.toString`` of the float value.
"""

from __future__ import annotations

import struct

import kslab as ks
from kslab import serdes

TABLE_1, TABLE_2, TABLE_3, OUTPUT = "table1", "table2", "table3", "output-"
INT, FLOAT, STR, LONG = serdes.Integer(), serdes.Float(), serdes.String(), serdes.Long()
NOW = 1_700_000_000_000


def java_float_str(value: float) -> str:
    """Java's ``Float.toString``: the shortest decimal that reads back as the same float."""
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if struct.unpack(">f", struct.pack(">f", float(text)))[0] == value:
            return text if "." in text or "e" in text else text + ".0"
    return repr(value)


def build() -> ks.Topology:
    builder = ks.StreamsBuilder()
    table1 = builder.table(TABLE_1, ks.Consumed.with_(INT, FLOAT))
    table2 = builder.table(TABLE_2, ks.Consumed.with_(STR, LONG))
    table3 = builder.table(TABLE_3, ks.Consumed.with_(INT, STR))
    materialized = ks.Materialized.as_("INNER-store1").with_key_serde(INT) \
        .with_value_serde(STR).with_caching_disabled()
    materialized_two = ks.Materialized.as_("INNER-store2").with_key_serde(INT) \
        .with_value_serde(STR).with_caching_disabled()

    def table_one_key_extractor(value: float) -> str:
        return str(int(value))

    def joined_table_key_extractor(value: str) -> int:
        return 10 if "value2=10" in value else 0  # hardwired, as Java's test

    def joiner(value1: float, value2: int) -> str:
        return f"value1={java_float_str(value1)},value2={value2}"

    def joiner_two(value1: str, value2: str) -> str:
        return f"{value1},value3={value2}"

    table1.join(table2, table_one_key_extractor, joiner, materialized=materialized) \
        .join(table3, joined_table_key_extractor, joiner_two, materialized=materialized_two) \
        .to_stream().to(OUTPUT, ks.Produced.with_(INT, STR))
    return builder.build()


def test_should_inner_join_multi_partition_queryable():
    config = {"application.id": "KTable-FKJ-Multi", "statestore.cache.max.bytes": 0,
              "commit.interval.ms": 100}
    partitions = {TABLE_1: 3, TABLE_2: 5, TABLE_3: 7, OUTPUT: 11}
    with ks.TopologyTestDriver(build(), config, partitions=partitions) as driver:
        driver.create_input_topic(TABLE_1, INT, FLOAT).pipe_key_value_list(
            [(1, 1.33), (2, 2.22), (3, -1.22), (4, -2.22)], NOW)
        driver.create_input_topic(TABLE_2, STR, LONG).pipe_key_value_list(
            [(str(n), n * 10) for n in range(10)], NOW)
        driver.create_input_topic(TABLE_3, INT, STR).pipe_key_value_list([(10, "waffle")], NOW)
        result = driver.create_output_topic(OUTPUT, INT, STR).read_key_values_to_list()
    assert set(result) == {(1, "value1=1.33,value2=10,value3=waffle")}
    assert len(result) == 1
    assert java_float_str(struct.unpack(">f", struct.pack(">f", -2.22))[0]) == "-2.22"
