"""describe(): Kafka Streams' TopologyDescription text, byte for byte, and its values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kslab.topology import Topology
from kslab.topology.description import (
    GlobalStoreDescription,
    ProcessorDescription,
    SinkDescription,
    SourceDescription,
    TopologyDescription,
    extractor_label,
)


def supplier() -> None:
    """A processor supplier; describe() never calls it."""


def route(key: object, value: object, record_context: object) -> str:
    """A module-level topic extractor."""
    return f"out-{key}"


class AnonymousExtractor:
    """Kafka TopologyTest's extractor: a class overriding toString()."""

    def __call__(self, key: object, value: object, record_context: object) -> str:
        return f"{record_context}-{key}"

    def __str__(self) -> str:
        return "anonymous topic name extractor. topic is [recordContext.topic()]-[key]"


# -- exact text -----------------------------------------------------------------------------------


def test_empty_topology_describes_as_kafka_does(topology):
    # Kafka TopologyTest.shouldDescribeEmptyTopology: just the header and its trailing space.
    assert str(topology.describe()) == "Topologies:\n "


def test_source_processor_sink_chain(topology):
    # Kafka's node comparator: larger "size" (nodes downstream, counted per path) first, so a
    # chain prints in flow order; each sub-topology ends with a blank line.
    topology.add_source("source", "input")
    topology.add_processor("processor", supplier, "source")
    topology.add_sink("sink", "output", "processor")
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: source (topics: [input])\n"
        "      --> processor\n"
        "    Processor: processor (stores: [])\n"
        "      --> sink\n"
        "      <-- source\n"
        "    Sink: sink (topic: output)\n"
        "      <-- processor\n"
        "\n"
    )


def test_two_subtopologies_through_a_repartition_topic(topology, store):
    # Kafka TopologyTest.tableZeroArgCountShouldPreserveTopologyStructure, wired by hand:
    # unconnected groups are numbered by their first node; the repartition topic prints
    # without an application id; later sub-topologies are indented by two spaces only.
    repartition = "KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition"
    topology.add_source("KSTREAM-SOURCE-0000000001", "input-topic")
    topology.add_processor("KTABLE-SOURCE-0000000002", supplier, "KSTREAM-SOURCE-0000000001")
    topology.add_state_store(
        store("input-topic-STATE-STORE-0000000000"), "KTABLE-SOURCE-0000000002"
    )
    topology.add_processor("KTABLE-SELECT-0000000003", supplier, "KTABLE-SOURCE-0000000002")
    topology.add_sink("KSTREAM-SINK-0000000005", repartition, "KTABLE-SELECT-0000000003")
    topology.add_internal_topic(repartition)
    topology.add_source("KSTREAM-SOURCE-0000000006", repartition)
    topology.add_processor("KTABLE-AGGREGATE-0000000007", supplier, "KSTREAM-SOURCE-0000000006")
    topology.add_state_store(
        store("KTABLE-AGGREGATE-STATE-STORE-0000000004"), "KTABLE-AGGREGATE-0000000007"
    )
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])\n"
        "      --> KTABLE-SOURCE-0000000002\n"
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [input-topic-STATE-STORE-0000000000])\n"
        "      --> KTABLE-SELECT-0000000003\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KTABLE-SELECT-0000000003 (stores: [])\n"
        "      --> KSTREAM-SINK-0000000005\n"
        "      <-- KTABLE-SOURCE-0000000002\n"
        "    Sink: KSTREAM-SINK-0000000005 (topic: KTABLE-AGGREGATE-STATE-STORE-0000000004-"
        "repartition)\n"
        "      <-- KTABLE-SELECT-0000000003\n"
        "\n"
        "  Sub-topology: 1\n"
        "    Source: KSTREAM-SOURCE-0000000006 (topics: [KTABLE-AGGREGATE-STATE-STORE-0000000004-"
        "repartition])\n"
        "      --> KTABLE-AGGREGATE-0000000007\n"
        "    Processor: KTABLE-AGGREGATE-0000000007 (stores: [KTABLE-AGGREGATE-STATE-STORE-"
        "0000000004])\n"
        "      --> none\n"
        "      <-- KSTREAM-SOURCE-0000000006\n"
        "\n"
    )


def test_processor_with_two_stores_lists_them_in_java_hash_set_order(topology, store):
    # Kafka prints a processor's stores from a java.util.HashSet: bucket order of the names'
    # String.hashCode(), not the order they were connected in.
    topology.add_source("source", "topic")
    topology.add_processor("processor", supplier, "source")
    topology.add_state_store(store("totals"), "processor")
    topology.add_state_store(store("counts"), "processor")
    topology.add_state_store(store("averages"), "processor")
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: source (topics: [topic])\n"
        "      --> processor\n"
        "    Processor: processor (stores: [counts, averages, totals])\n"
        "      --> none\n"
        "      <-- source\n"
        "\n"
    )


def test_outer_join_stores_match_kafkas_expected_text(topology, store):
    # Kafka TopologyTest.streamStreamOuterJoinTopologyWithDefaultStoresNames, wired by hand:
    # two stores per join processor in HashSet order (OUTERSHARED after OUTERTHIS), and stores
    # shared across the two source branches unite them into one sub-topology.
    src1, src2 = "KSTREAM-SOURCE-0000000000", "KSTREAM-SOURCE-0000000001"
    win1, win2 = "KSTREAM-WINDOWED-0000000002", "KSTREAM-WINDOWED-0000000003"
    this, other, merge = (
        "KSTREAM-OUTERTHIS-0000000004",
        "KSTREAM-OUTEROTHER-0000000005",
        "KSTREAM-MERGE-0000000006",
    )
    this_store, other_store = f"{this}-store", f"{other}-store"
    shared_store = "KSTREAM-OUTERSHARED-0000000004-store"
    topology.add_source(src1, "input-topic1").add_source(src2, "input-topic2")
    topology.add_processor(win1, supplier, src1).add_processor(win2, supplier, src2)
    topology.add_processor(this, supplier, win1).add_processor(other, supplier, win2)
    topology.add_processor(merge, supplier, this, other)
    topology.add_state_store(store(this_store), win1, other)
    topology.add_state_store(store(other_store), win2, this)
    topology.add_state_store(store(shared_store), this, other)
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic1])\n"
        "      --> KSTREAM-WINDOWED-0000000002\n"
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic2])\n"
        "      --> KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-OUTERTHIS-0000000004-"
        "store])\n"
        "      --> KSTREAM-OUTERTHIS-0000000004\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-OUTEROTHER-0000000005-store"
        "])\n"
        "      --> KSTREAM-OUTEROTHER-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000001\n"
        "    Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [KSTREAM-OUTERTHIS-0000000004-"
        "store, KSTREAM-OUTERSHARED-0000000004-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-OUTERTHIS-0000000004 (stores: [KSTREAM-OUTEROTHER-0000000005-"
        "store, KSTREAM-OUTERSHARED-0000000004-store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-OUTERTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n"
        "\n"
    )


def test_predecessors_keep_the_order_of_kafkas_growing_tree_set(topology, store):
    # Kafka TopologyTest.streamStreamJoinTopologyWithDefaultStoresNames: MERGE's predecessors
    # print JOINTHIS before JOINOTHER, against name order, because JOINTHIS's size grew (to 2)
    # after it entered MERGE's TreeSet and before JOINOTHER (size 1) was compared with it.
    src1, src2 = "KSTREAM-SOURCE-0000000000", "KSTREAM-SOURCE-0000000001"
    win1, win2 = "KSTREAM-WINDOWED-0000000002", "KSTREAM-WINDOWED-0000000003"
    this, other = "KSTREAM-JOINTHIS-0000000004", "KSTREAM-JOINOTHER-0000000005"
    merge = "KSTREAM-MERGE-0000000006"
    topology.add_source(src1, "input-topic1").add_source(src2, "input-topic2")
    topology.add_processor(win1, supplier, src1).add_processor(win2, supplier, src2)
    topology.add_processor(this, supplier, win1).add_processor(other, supplier, win2)
    topology.add_processor(merge, supplier, this, other)
    topology.add_state_store(store(f"{this}-store"), win1, other)
    topology.add_state_store(store(f"{other}-store"), win2, this)
    text = str(topology.describe())
    assert text.endswith(
        "    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-"
        "store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000003\n"
        "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-JOINOTHER-0000000005-"
        "store])\n"
        "      --> KSTREAM-MERGE-0000000006\n"
        "      <-- KSTREAM-WINDOWED-0000000002\n"
        "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
        "      --> none\n"
        "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n\n"
    )


def test_shared_stores_unite_branches_into_one_subtopology(topology, store):
    # Kafka KStreamKTableJoinTest.expectedTopologyWithGeneratedRepartitionTopicNames, wired by
    # hand: connecting a store unites its first user with the new one, so each table source
    # joins the repartitioned stream's sub-topology; sources need not print first (size rules).
    repartition = "KSTREAM-MAP-0000000007-repartition"
    table2, table3 = "topic2-STATE-STORE-0000000001", "topic3-STATE-STORE-0000000004"
    topology.add_source("KSTREAM-SOURCE-0000000000", "topic")
    topology.add_source("KSTREAM-SOURCE-0000000002", "topic2")
    topology.add_processor("KTABLE-SOURCE-0000000003", supplier, "KSTREAM-SOURCE-0000000002")
    topology.add_state_store(store(table2), "KTABLE-SOURCE-0000000003")
    topology.add_source("KSTREAM-SOURCE-0000000005", "topic3")
    topology.add_processor("KTABLE-SOURCE-0000000006", supplier, "KSTREAM-SOURCE-0000000005")
    topology.add_state_store(store(table3), "KTABLE-SOURCE-0000000006")
    topology.add_processor("KSTREAM-MAP-0000000007", supplier, "KSTREAM-SOURCE-0000000000")
    topology.add_processor("KSTREAM-FILTER-0000000009", supplier, "KSTREAM-MAP-0000000007")
    topology.add_sink("KSTREAM-SINK-0000000008", repartition, "KSTREAM-FILTER-0000000009")
    topology.add_internal_topic(repartition)
    topology.add_source("KSTREAM-SOURCE-0000000010", repartition)
    topology.add_processor("KSTREAM-JOIN-0000000011", supplier, "KSTREAM-SOURCE-0000000010")
    topology.connect_processor_and_state_stores("KSTREAM-JOIN-0000000011", table2)
    topology.add_sink("KSTREAM-SINK-0000000012", "out-one", "KSTREAM-JOIN-0000000011")
    topology.add_processor("KSTREAM-JOIN-0000000016", supplier, "KSTREAM-SOURCE-0000000010")
    topology.connect_processor_and_state_stores("KSTREAM-JOIN-0000000016", table3)
    topology.add_sink("KSTREAM-SINK-0000000017", "out-two", "KSTREAM-JOIN-0000000016")
    assert str(topology.describe()) == (
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
        "      <-- KSTREAM-SOURCE-0000000005\n"
        "\n"
    )


def test_global_store_takes_an_id_and_prints_in_id_order(topology, store):
    # Kafka's GlobalStore.toString and TopologyDescription.toString: a global group takes the
    # next node-group id like any other (here 0, shifting the stream to 1), prints "for global
    # store (will not generate tasks)" and ends with a single newline, not a blank line.
    topology.add_global_store(
        store("global-store", logging_enabled=False),
        "global-source",
        "global-topic",
        "global-processor",
        supplier,
    )
    topology.add_source("source", "input")
    topology.add_processor("processor", supplier, "source")
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0 for global store (will not generate tasks)\n"
        "    Source: global-source (topics: [global-topic])\n"
        "      --> global-processor\n"
        "    Processor: global-processor (stores: [global-store])\n"
        "      --> none\n"
        "      <-- global-source\n"
        "  Sub-topology: 1\n"
        "    Source: source (topics: [input])\n"
        "      --> processor\n"
        "    Processor: processor (stores: [])\n"
        "      --> none\n"
        "      <-- source\n"
        "\n"
    )


def test_pattern_source_prints_the_pattern_itself(topology):
    # Kafka's Source.toString: with no topic set, "(topics: <Pattern.toString()>)", unbracketed.
    topology.add_source("source", re.compile(r"topic[0-9]"))
    topology.add_processor("processor", supplier, "source")
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: source (topics: topic[0-9])\n"
        "      --> processor\n"
        "    Processor: processor (stores: [])\n"
        "      --> none\n"
        "      <-- source\n"
        "\n"
    )


def test_multiple_topics_on_one_source_print_in_java_hash_set_order(topology):
    # Kafka's Source.toString prints new HashSet<>(topics).toString(): Java's List format in
    # String.hashCode bucket order, not the order the topics were given.
    topology.add_source("source", "orders", "payments", "clicks", "users")
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: source (topics: [payments, clicks, orders, users])\n"
        "      --> none\n"
        "\n"
    )


def test_sink_with_extractor_prints_its_to_string(topology):
    # Kafka TopologyTest.topologyWithDynamicRoutingShouldDescribeExtractorClass: a dynamic sink
    # prints "(extractor class: <toString()>)"; a Python __str__ stands in for toString().
    topology.add_source("KSTREAM-SOURCE-0000000000", "input-topic")
    topology.add_sink("KSTREAM-SINK-0000000001", AnonymousExtractor(), "KSTREAM-SOURCE-0000000000")
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n"
        "      --> KSTREAM-SINK-0000000001\n"
        "    Sink: KSTREAM-SINK-0000000001 (extractor class: anonymous topic name extractor. "
        "topic is [recordContext.topic()]-[key])\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "\n"
    )


def test_sink_with_function_extractor_prints_its_qualified_name(topology):
    # Kafka prints the extractor's toString(); kslab's stand-in for a function is module.qualname.
    topology.add_source("source", "input")
    topology.add_sink("sink", route, "source")
    assert str(topology.describe()).endswith(
        f"    Sink: sink (extractor class: {route.__module__}.route)\n      <-- source\n\n"
    )


def test_read_only_state_store_is_a_regular_subtopology(topology, store):
    # Kafka TopologyTest.readOnlyStateStoresShouldHaveTheirOwnSubTopology: unlike a global
    # store, a read-only store's source and processor form an ordinary sub-topology.
    topology.add_read_only_state_store(store("store"), "source", "topic", "processor", supplier)
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: source (topics: [topic])\n"
        "      --> processor\n"
        "    Processor: processor (stores: [store])\n"
        "      --> none\n"
        "      <-- source\n"
        "\n"
    )


# -- Kafka's own describe() code on random wirings -----------------------------------------------

GOLDEN = json.loads((Path(__file__).parent / "describe_golden.json").read_text(encoding="utf-8"))


class _Labelled:
    def __init__(self, label: str) -> None:
        self.label = label

    def __call__(self, key: object, value: object, record_context: object) -> str:
        return self.label

    def __str__(self) -> str:
        return self.label


def _replay(script: list[list[str]], store) -> Topology:
    topology = Topology()
    for command, *args in script:
        if command == "source":
            topology.add_source(args[0], *args[1:])
        elif command == "pattern":
            topology.add_source(args[0], re.compile(args[1]))
        elif command == "processor":
            topology.add_processor(args[0], supplier, *args[1:])
        elif command == "sink":
            topology.add_sink(args[0], args[1], *args[2:])
        elif command == "xsink":
            topology.add_sink(args[0], _Labelled(args[1]), *args[2:])
        elif command == "store":
            topology.add_state_store(store(args[0], logging_enabled=False), *args[1:])
        elif command == "connect":
            topology.connect_processor_and_state_stores(args[0], *args[1:])
        elif command == "global":
            builder = store(args[0], logging_enabled=False)
            topology.add_global_store(builder, args[1], args[2], args[3], supplier)
    return topology


@pytest.mark.parametrize("case", GOLDEN, ids=[f"{i}-{c['why']}" for i, c in enumerate(GOLDEN)])
def test_matches_kafkas_describe_code_on_random_wirings(case, store):
    # Expected texts came from Kafka 4.0's InternalTopologyBuilder describe code (verbatim, with
    # its node comparator, HashSet and TreeSet orders) run on JDK 17 over the same wiring.
    # "why" names the Java rule a naive port gets wrong on that case: the growing TreeSet
    # ("sortedtree"), red-black rebalancing ("norebalance") or HashSet order ("nohash").
    assert str(_replay(case["script"], store).describe()) == case["expected"]


# -- the description as values --------------------------------------------------------------------


def _chain(topology: Topology) -> Topology:
    topology.add_source("source", "input")
    topology.add_processor("processor", supplier, "source")
    return topology.add_sink("sink", "output", "processor")


def test_nodes_carry_kafkas_fields(topology, store):
    _chain(topology)
    topology.add_state_store(store("counts"), "processor")
    topology.add_source("dynamic-source", re.compile("t.*"))
    topology.add_sink("dynamic-sink", route, "dynamic-source")
    first, second = topology.describe().subtopologies
    source, processor, sink = first.nodes
    assert source == SourceDescription("source", (), ("processor",), ("input",), None)
    assert (source.topics, source.topic_pattern) == (("input",), None)
    assert isinstance(processor, TopologyDescription.Processor)
    assert (processor.name, processor.stores) == ("processor", ("counts",))
    assert (processor.predecessors, processor.successors) == (("source",), ("sink",))
    assert (sink.topic, sink.topic_extractor, sink.predecessors) == ("output", None, ("processor",))
    pattern_source, dynamic_sink = second.nodes
    assert pattern_source.topics is None
    assert pattern_source.topic_pattern.pattern == "t.*"
    assert (dynamic_sink.topic, dynamic_sink.topic_extractor) == (None, route)


def test_global_stores_are_described_apart(topology, store):
    topology.add_global_store(store("g", logging_enabled=False), "gs", "gt", "gp", supplier)
    description = topology.describe()
    assert description.subtopologies == ()
    assert description.global_stores == (
        GlobalStoreDescription(
            0,
            SourceDescription("gs", (), ("gp",), ("gt",), None),
            ProcessorDescription("gp", ("gs",), (), ("g",)),
        ),
    )


def test_descriptions_of_equal_wirings_are_equal(store):
    # Kafka TopologyTest.topologyWithStaticTopicNameExtractorShouldRespectEqualHashcodeContract.
    first, second = _chain(Topology()).describe(), _chain(Topology()).describe()
    assert first == second
    assert hash(first) == hash(second)
    other = _chain(Topology()).add_sink("sink2", "output2", "processor").describe()
    assert first != other


def test_equality_ignores_printing_order_of_sets():
    one = SinkDescription("s", ("a", "b"), (), "t")
    assert one == SinkDescription("s", ("b", "a"), (), "t")
    assert one != SinkDescription("s", ("a", "b"), (), "u")
    assert one != ProcessorDescription("s", ("a", "b"), ())


def test_repr_is_short_and_str_is_kafkas_text(topology, store):
    _chain(topology)
    topology.add_global_store(store("g", logging_enabled=False), "gs", "gt", "gp", supplier)
    description = topology.describe()
    assert repr(description) == (
        "<TopologyDescription: sub-topologies 0 (3 nodes); global stores 1 [g]>"
    )
    assert str(description).startswith("Topologies:\n   Sub-topology: 0\n")


def test_extractor_labels():
    class Plain:
        def __call__(self, key: object, value: object, context: object) -> str:
            return "x"

    assert extractor_label(AnonymousExtractor()).startswith("anonymous topic name extractor")
    assert extractor_label(Plain()).endswith("test_extractor_labels.<locals>.Plain")
    assert extractor_label(route).endswith("test_description.route")
    assert extractor_label(str.upper) == "str.upper"
