"""Store types of a stream-stream join: ``StreamJoined.with_dsl_store_suppliers`` and the shared
outer-join store, whose kind follows Java's ``OuterStreamJoinStoreFactory``."""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.dsl.config import internal

S = serdes.String()
WINDOWS = ks.JoinWindows.of_time_difference_with_no_grace(100)
IN_MEMORY = ks.Materialized.StoreType.IN_MEMORY
ROCKS_DB = ks.Materialized.StoreType.ROCKS_DB


def _outer_join(stream_joined, props=None):
    builder = ks.StreamsBuilder(props)
    left = builder.stream("left", ks.Consumed.with_(S, S))
    right = builder.stream("right", ks.Consumed.with_(S, S))
    left.outer_join(right, lambda a, b: f"{a}+{b}", WINDOWS, stream_joined).to(
        "out", ks.Produced.with_(S, S))
    return builder.build()


def _persistent(topology):
    return [b.persistent for b in topology.state_stores.values()]


def test_outer_store_follows_the_builder_default_store_type():
    assert _persistent(_outer_join(ks.StreamJoined.as_("j"))) == [True, True, True]
    in_memory = {"default.dsl.store": "in_memory"}
    assert _persistent(_outer_join(ks.StreamJoined.as_("j"), in_memory)) == [False] * 3


def test_dsl_store_suppliers_win_over_the_builder_default():
    joined = ks.StreamJoined.as_("j").with_dsl_store_suppliers(ROCKS_DB)
    assert _persistent(_outer_join(joined, {"default.dsl.store": "in_memory"})) == [True] * 3
    joined = ks.StreamJoined.as_("j").with_dsl_store_suppliers(
        "org.apache.kafka.streams.state.BuiltInDslStoreSuppliers$InMemoryDslStoreSuppliers")
    assert _persistent(_outer_join(joined)) == [False] * 3


def test_dsl_store_suppliers_is_a_refinement_that_none_resets():
    joined = ks.StreamJoined.with_(S, S, S)
    refined = joined.with_dsl_store_suppliers(IN_MEMORY)
    assert internal(refined).dsl_store_type == "in_memory"
    assert internal(joined).dsl_store_type is None
    assert internal(refined.with_dsl_store_suppliers(None)).dsl_store_type is None


def _run(topology):
    with ks.TopologyTestDriver(topology) as driver:
        left = driver.create_input_topic("left", S, S)
        right = driver.create_input_topic("right", S, S)
        out = driver.create_output_topic("out", S, S)
        left.pipe_input("a", "A", 0)
        right.pipe_input("b", "B", 10)
        parked = driver.get_state_store("j-outer-shared-join-store")
        assert len(parked.items()) == 2
        left.pipe_input("c", "C", 500)  # closes the windows of a and b
        return out.read_key_values_to_list(), len(parked.items())


def test_outer_join_parks_records_in_either_store_kind():
    expected = ([("a", "A+None"), ("b", "None+B")], 1)
    for store_type in (IN_MEMORY, ROCKS_DB):
        joined = ks.StreamJoined.as_("j").with_dsl_store_suppliers(store_type)
        assert _run(_outer_join(joined, {"default.key.serde": "string"})) == expected


def test_with_a_store_type_is_java_s_static_with_dsl_store_suppliers():
    assert ks.StreamJoined.with_(IN_MEMORY)._dsl_store_type == "in_memory"
    assert ks.StreamJoined.with_(
        "org.apache.kafka.streams.state.BuiltInDslStoreSuppliers$RocksDBDslStoreSuppliers"
    )._dsl_store_type == "persistent"
    assert ks.StreamJoined.with_("string")._key_serde == "string"
