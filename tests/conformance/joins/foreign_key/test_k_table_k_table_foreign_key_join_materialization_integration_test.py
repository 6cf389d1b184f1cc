"""Kafka's ``KTableKTableForeignKeyJoinMaterializationIntegrationTest`` (streams/src/test/...
/integration; it runs on the TopologyTestDriver), translated to kslab: only a queryable
(named) result store, with its record cache, can tell that deleting a row that never joined
needs no tombstone. Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

LEFT_TABLE, RIGHT_TABLE, OUTPUT = "left_table", "right_table", "output-topic"
S = serdes.String()


def get_topology(config: dict, queryable_store_name: str, materialized: bool,
                 queryable: bool) -> ks.Topology:
    builder = ks.StreamsBuilder()
    left = builder.table(LEFT_TABLE, ks.Consumed.with_(S, S))
    right = builder.table(RIGHT_TABLE, ks.Consumed.with_(S, S))

    def extractor(value: str) -> str:
        return value.split("|")[1]

    def joiner(value1: object, value2: object) -> str:
        return f"({value1},{'null' if value2 is None else value2})"

    if queryable:
        materialized_store = ks.Materialized.as_(queryable_store_name).with_value_serde(S)
    else:
        materialized_store = ks.Materialized.with_(None, S)
    if materialized:
        join_result = left.join(right, extractor, joiner, materialized=materialized_store)
    else:
        join_result = left.join(right, extractor, joiner)
    join_result.to_stream().to(OUTPUT, ks.Produced.with_(None, S))
    return builder.build(config)


@pytest.mark.parametrize(("materialized", "queryable"),
                         [(False, False), (True, False), (True, True)])
def test_should_emit_tombstone_when_deleting_non_joining_records(tmp_path, materialized,
                                                                 queryable):
    config = {"state.dir": str(tmp_path)}
    topology = get_topology(config, "store", materialized, queryable)
    with ks.TopologyTestDriver(topology, config) as driver:
        left = driver.create_input_topic(LEFT_TABLE, S, S)
        output = driver.create_output_topic(OUTPUT, S, S)

        def store_map() -> dict:
            with driver.get_key_value_store("store").all() as entries:
                return dict(entries)

        left.pipe_input("lhs1", "lhsValue1|rhs1")
        assert output.read_key_values_to_map() == {}
        if materialized and queryable:
            assert store_map() == {}
        # an inner join cannot know whether it emitted a result: an unnecessary tombstone, except
        # when the cache of a queryable store sees old, new and stored value all missing
        left.pipe_input("lhs1", None)
        if materialized and queryable:
            assert output.read_key_values_to_map() == {}
            assert store_map() == {}
        else:
            assert output.read_key_values_to_map() == {"lhs1": None}
        # deleting a non-existing record is idempotent
        left.pipe_input("lhs1", None)
        assert output.read_key_values_to_map() == {}
        if materialized and queryable:
            assert store_map() == {}
