"""Kafka's ``InternalStreamsBuilderTest`` ``should(Not)SetUseVersionedSemantics...`` tests, as
behaviour. Java asserts a flag on internal processor suppliers (``isUseVersionedSemantics``),
which ``test_internal_streams_builder_test.py`` cannot read; the flag decides whether a table
operation drops out-of-order updates of a versioned table (KIP-914), so each case here builds
Java's topology, pipes an update and then an older one, and checks what comes out. A node uses
versioned semantics when the nearest materialized table above it (through unmaterialized
``filter`` / ``map_values``) is versioned: a repartition map (``group_by``), each side of a
table-table join, and each side of a foreign-key join. The out-of-order update reaches the
versioned store either way; only the downstream result differs.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S, LONG = serdes.String(), serdes.Long()
CONFIG = {"default.key.serde": "string", "default.value.serde": "string"}


def versioned(name: str) -> ks.Materialized:
    return ks.Materialized.as_(ks.Stores.persistent_versioned_key_value_store(name, 300_000))


def run(builder: ks.StreamsBuilder, inputs: list, value_serde=S) -> list:
    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        topics = {}
        for topic, key, value, timestamp in inputs:
            if topic not in topics:
                topics[topic] = driver.create_input_topic(topic, S, S)
            topics[topic].pipe_input(key, value, timestamp)
        out = driver.create_output_topic("out", S, value_serde)
        return [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]


OUT_OF_ORDER = [("t1", "a", "x", 10), ("t1", "a", "y", 5)]


def _count_by_value(table: ks.KTable) -> None:
    table.group_by(lambda k, v: (v, v)).count().to_stream().to("out")


def _versioned_source(b: ks.StreamsBuilder) -> ks.KTable:
    return b.table("t1", materialized=versioned("versioned"))


def _twice(v: str) -> str:
    return v + v


COUNT_CASES = {
    # shouldSetUseVersionedSemanticsOnTableRepartitionMap
    "versioned source": (lambda b: _versioned_source(b), "x", True),
    "unversioned source": (lambda b: b.table("t1", materialized="unversioned"), "x", False),
    # ...WithIntermediateNode: an unmaterialized map_values passes the flag on
    "unmaterialized map_values": (lambda b: _versioned_source(b).map_values(_twice), "xx", True),
    # shouldNotSetUseVersionedSemanticsWithMaterializedIntermediateNode
    "map_values materialized unversioned": (
        lambda b: _versioned_source(b).map_values(_twice, materialized="unversioned"), "xx",
        False),
    # ...WithIntermediateNodeMaterializedAsVersioned
    "map_values materialized versioned": (
        lambda b: _versioned_source(b).map_values(_twice, materialized=versioned("versioned2")),
        "xx", True),
    # shouldSetUseVersionedSemanticsOnTableRepartitionMapWithIntermediateNodes
    "filter and map_values": (
        lambda b: _versioned_source(b).filter(lambda k, v: v is not None).map_values(_twice),
        "xx", True),
    # shouldNotSetUseVersionedSemanticsWithToStreamAndBack
    "to_stream and back": (lambda b: _versioned_source(b).to_stream().to_table(), "x", False),
    # ...WithToStreamAndBackIfMaterializedAsVersioned
    "to_stream and back, versioned": (
        lambda b: _versioned_source(b).to_stream().to_table(materialized=versioned("versioned2")),
        "x", True),
}


@pytest.mark.parametrize("case", list(COUNT_CASES))
def test_group_by_skips_out_of_order_updates_only_with_versioned_semantics(case):
    make_table, x, versioned_semantics = COUNT_CASES[case]
    builder = ks.StreamsBuilder()
    _count_by_value(make_table(builder))
    y = "y" * len(x)
    expected = [(x, 1, 10)] if versioned_semantics else [(x, 1, 10), (x, 0, 10), (y, 1, 5)]
    assert run(builder, OUT_OF_ORDER, LONG) == expected


JOIN_INPUT = [("t1", "a", "x", 10), ("t2", "a", "p", 10), ("t1", "a", "y", 5),
              ("t2", "a", "q", 4)]


@pytest.mark.parametrize(("left", "right", "expected"), [
    # shouldSetUseVersionedSemanticsOnTableJoin: both sides drop their out-of-order update
    (True, True, [("a", "x+p", 10)]),
    # ...LeftOnly: the right side's older update joins the left's latest value
    (True, False, [("a", "x+p", 10), ("a", "x+q", 10)]),
    # ...RightOnly
    (False, True, [("a", "x+p", 10), ("a", "y+p", 10)]),
    (False, False, [("a", "x+p", 10), ("a", "y+p", 10), ("a", "y+q", 5)]),
])
def test_table_table_join_sides(left, right, expected):
    builder = ks.StreamsBuilder()
    t1 = builder.table("t1", materialized=versioned("versioned") if left else "unversioned")
    t2 = builder.table("t2", materialized=versioned("versioned2") if right else "unversioned2")
    t1.join(t2, lambda v1, v2: f"{v1}+{v2}").to_stream().to("out")
    assert run(builder, JOIN_INPUT) == expected


def test_table_self_join():
    """shouldSetUseVersionedSemanticsOnTableSelfJoin: both join processors drop the update."""
    builder = ks.StreamsBuilder()
    t1 = _versioned_source(builder)
    t1.join(t1, lambda v1, v2: f"{v1}+{v2}").to_stream().to("out")
    assert run(builder, OUT_OF_ORDER) == [("a", "x+x", 10), ("a", "x+x", 10)]


FK_INPUT = [("t2", "f", "F1", 10), ("t1", "a", "f1", 10), ("t1", "a", "f2", 5),
            ("t2", "f", "F2", 4)]


@pytest.mark.parametrize(("left", "right", "expected"), [
    # shouldSetUseVersionedSemanticsOnTableForeignJoin
    (True, True, [("a", "f1+F1", 10)]),
    # ...LeftOnly: the subscription side drops, the foreign side does not
    (True, False, [("a", "f1+F1", 10), ("a", "f1+F2", 4)]),
    # ...RightOnly
    (False, True, [("a", "f1+F1", 10), ("a", "f2+F1", 10)]),
    (False, False, [("a", "f1+F1", 10), ("a", "f2+F1", 10), ("a", "f2+F2", 4)]),
])
def test_foreign_key_join_sides(left, right, expected):
    builder = ks.StreamsBuilder()
    t1 = builder.table("t1", materialized=versioned("versioned") if left else "unversioned")
    t2 = builder.table("t2", materialized=versioned("versioned2") if right else "unversioned2")
    t1.join(t2, lambda v: v[0], lambda v1, v2: f"{v1}+{v2}").to_stream().to("out")
    assert run(builder, FK_INPUT) == expected
