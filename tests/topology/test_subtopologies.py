"""Sub-topologies as Kafka groups and numbers them, and the wiring checks before they are used."""

from __future__ import annotations

import re

import pytest

from kslab.errors import TopologyError
from kslab.topology import Subtopology, Topology, subtopologies, validate


def supplier() -> None:
    """A processor supplier; grouping never calls it."""


def test_parent_links_make_one_group_with_fields_in_insertion_order(topology, store):
    topology.add_source("source", "b-topic", "a-topic")
    topology.add_source("pattern-source", re.compile("logs-.*"))
    topology.add_processor("processor", supplier, "source", "pattern-source")
    topology.add_state_store(store("totals"), "processor")
    topology.add_state_store(store("counts"), "processor")
    topology.add_sink("sink", "out", "processor")
    topology.add_sink("dynamic", lambda k, v, c: "x", "processor")
    assert subtopologies(topology) == [
        Subtopology(
            id=0,
            nodes=("source", "pattern-source", "processor", "sink", "dynamic"),
            source_topics=("b-topic", "a-topic"),
            source_patterns=(re.compile("logs-.*"),),
            sink_topics=("out",),
            stores=("totals", "counts"),
            is_global=False,
        )
    ]


def test_unconnected_groups_are_numbered_by_their_first_node(topology):
    # Kafka's makeNodeGroups walks nodes in insertion order and opens a group per new root.
    topology.add_source("a", "ta")
    topology.add_source("b", "tb")
    topology.add_processor("a-child", supplier, "a")
    topology.add_processor("b-child", supplier, "b")
    groups = subtopologies(topology)
    assert [(g.id, g.nodes) for g in groups] == [(0, ("a", "a-child")), (1, ("b", "b-child"))]


def test_sharing_a_store_unites_groups(topology, store):
    # Kafka's connectProcessorAndStateStore unites the store's first user with the new one.
    topology.add_source("a", "ta").add_processor("pa", supplier, "a")
    topology.add_source("b", "tb").add_processor("pb", supplier, "b")
    topology.add_source("c", "tc").add_processor("pc", supplier, "c")
    topology.add_state_store(store("shared"), "pa")
    topology.connect_processor_and_state_stores("pc", "shared")
    groups = subtopologies(topology)
    assert [(g.id, g.nodes, g.stores) for g in groups] == [
        (0, ("a", "pa", "c", "pc"), ("shared",)),
        (1, ("b", "pb"), ()),
    ]


def test_global_groups_take_an_id_and_shift_later_groups(topology, store):
    # A global store's source+processor is a node group of its own; its id is consumed like
    # any other, so the groups after it (and their TaskIds) are numbered one higher.
    topology.add_source("first", "t1")
    topology.add_global_store(store("g", logging_enabled=False), "gs", "gt", "gp", supplier)
    topology.add_source("second", "t2")
    groups = subtopologies(topology)
    assert [(g.id, g.nodes, g.is_global) for g in groups] == [
        (0, ("first",), False),
        (1, ("gs", "gp"), True),
        (2, ("second",), False),
    ]
    assert groups[1].source_topics == ("gt",)
    assert groups[1].stores == ("g",)


def test_internal_topics_keep_their_raw_names(topology):
    topology.add_source("source", "in").add_sink("to-repartition", "x-repartition", "source")
    topology.add_internal_topic("x-repartition")
    topology.add_source("from-repartition", "x-repartition")
    first, second = subtopologies(topology)
    assert first.sink_topics == ("x-repartition",)
    assert second.source_topics == ("x-repartition",)


def test_empty_topology_has_no_subtopologies(topology):
    assert subtopologies(topology) == []


# -- wiring mistakes caught when they are made -----------------------------------------------------


def test_unknown_parent(topology):
    topology.add_source("source", "in")
    with pytest.raises(TopologyError, match=r"'ghost' is not added yet for 'processor'"):
        topology.add_processor("processor", supplier, "ghost")


def test_duplicate_name(topology):
    topology.add_source("source", "in")
    with pytest.raises(TopologyError, match=r"Processor 'source' is already added"):
        topology.add_processor("source", supplier, "source")


def test_sink_used_as_parent(topology):
    topology.add_source("source", "in").add_sink("sink", "out", "source")
    with pytest.raises(TopologyError, match=r"Sink 'sink' cannot be used a parent of 'processor'"):
        topology.add_processor("processor", supplier, "sink")


def test_store_not_added_before_connect(topology):
    topology.add_source("source", "in").add_processor("processor", supplier, "source")
    with pytest.raises(TopologyError, match=r"StateStore 'counts' is not added yet.*'processor'"):
        topology.connect_processor_and_state_stores("processor", "counts")


def test_store_connected_to_a_source(topology, store):
    topology.add_source("source", "in")
    with pytest.raises(TopologyError, match=r"state store 'counts' to a source .*\('source'\)"):
        topology.add_state_store(store("counts"), "source")


def test_processor_with_no_parent(topology):
    with pytest.raises(TopologyError, match=r"Processor 'processor' must have at least one parent"):
        topology.add_processor("processor", supplier)


def test_pattern_overlapping_a_registered_topic(topology):
    topology.add_source("orders", "orders-eu")
    with pytest.raises(TopologyError, match=r"source 'all-orders' will match topic 'orders-eu'"):
        topology.add_source("all-orders", re.compile("orders-.*"))


def test_topic_overlapping_a_registered_pattern(topology):
    topology.add_source("all-orders", re.compile("orders-.*"))
    with pytest.raises(TopologyError, match=r"'orders-eu' matches a Pattern .*\('all-orders'\)"):
        topology.add_source("orders", "orders-eu")


def test_duplicate_topic_across_sources(topology):
    topology.add_source("first", "orders")
    with pytest.raises(TopologyError, match=r"'orders' has already been registered .*\('first'\)"):
        topology.add_source("second", "orders")


def test_duplicate_topic_within_one_source(topology):
    # Kafka checks each topic against the ones before it in the same addSource call too.
    with pytest.raises(TopologyError, match=r"'orders' has already been registered .*\('source'\)"):
        topology.add_source("source", "orders", "orders")
    assert "source" not in topology.nodes


# -- wiring mistakes caught by validate() ---------------------------------------------------------


def test_empty_topology_fails_validation_with_a_hint(topology):
    with pytest.raises(TopologyError, match=r"no nodes.*add a source with topology\.add_source"):
        validate(topology)


def test_valid_topology_passes(topology, store):
    topology.add_source("source", "in").add_processor("processor", supplier, "source")
    topology.add_state_store(store("counts"), "processor")
    topology.add_global_store(store("g", logging_enabled=False), "gs", "gt", "gp", supplier)
    validate(topology)


def test_processor_using_an_unregistered_store(topology):
    # Defensive: add-time checks prevent this, code that edits nodes directly may not.
    topology.add_source("source", "in").add_processor("processor", supplier, "source")
    topology.nodes["processor"].stores.append("lost")
    with pytest.raises(TopologyError, match=r"Processor 'processor' uses StateStore 'lost'"):
        validate(topology)
    with pytest.raises(TopologyError, match=r"'processor'"):
        topology.describe()


def test_parent_missing_from_the_topology(topology):
    topology.add_source("source", "in").add_processor("processor", supplier, "source")
    del topology.nodes["source"]
    with pytest.raises(TopologyError, match=r"Node 'processor' names parent 'source'"):
        validate(topology)


def test_child_of_a_global_store_processor(topology, store):
    topology.add_global_store(store("g", logging_enabled=False), "gs", "gt", "gp", supplier)
    topology.add_processor("downstream", supplier, "gp")
    with pytest.raises(TopologyError, match=r"Node 'downstream' has parent 'gp'.*global store"):
        validate(topology)


def test_global_store_processor_connected_to_a_local_store(topology, store):
    topology.add_source("source", "in").add_processor("processor", supplier, "source")
    topology.add_state_store(store("local"), "processor")
    topology.add_global_store(store("g", logging_enabled=False), "gs", "gt", "gp", supplier)
    topology.connect_processor_and_state_stores("gp", "local")
    with pytest.raises(TopologyError, match=r"Global store processor 'gp' .* 'local'"):
        validate(topology)


def test_global_store_passed_to_a_local_processor(topology, store):
    topology.add_global_store(store("g", logging_enabled=False), "gs", "gt", "gp", supplier)
    topology.add_source("source", "in").add_processor("processor", supplier, "source")
    with pytest.raises(TopologyError, match=r"Global StateStore 'g'.*processor 'processor'"):
        topology.connect_processor_and_state_stores("processor", "g")
    topology.nodes["processor"].stores.append("g")
    with pytest.raises(TopologyError, match=r"Global StateStore 'g'.*processor 'processor'"):
        validate(topology)


def test_copartitioned_repartition_topics_must_agree(topology):
    # Kafka's validateCopartition, with Java's TreeMap text for the topics.
    topology.add_internal_topic("left-repartition", partitions=2)
    topology.add_internal_topic("right-repartition", partitions=3)
    topology.add_source("left", "left-repartition").add_source("right", "right-repartition")
    topology.add_copartition_group({"left", "right"})
    with pytest.raises(
        TopologyError,
        match=re.escape(
            "Following topics do not have the same number of partitions: "
            "[{left-repartition=2, right-repartition=3}]"
        ),
    ):
        validate(topology)


def test_copartition_groups_with_unknown_counts_pass(topology):
    topology.add_internal_topic("left-repartition", partitions=2)
    topology.add_source("left", "left-repartition").add_source("right", "user-topic")
    topology.add_copartition_group({"left", "right"})
    validate(topology)


def test_describe_of_an_empty_topology_does_not_raise():
    # Kafka describes an empty topology; only building it fails.
    assert str(Topology().describe()) == "Topologies:\n "
