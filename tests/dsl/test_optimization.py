"""topology.optimization: merged repartition topics and source topics reused as changelogs."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()

# RepartitionWithMergeOptimizingTest.EXPECTED_OPTIMIZED_TOPOLOGY
OPTIMIZED = """\
Topologies:
   Sub-topology: 0
    Source: sourceAStream (topics: [inputA])
      --> mappedAStream
    Source: sourceBStream (topics: [inputB])
      --> mappedBStream
    Processor: mappedAStream (stores: [])
      --> mergedStream
      <-- sourceAStream
    Processor: mappedBStream (stores: [])
      --> mergedStream
      <-- sourceBStream
    Processor: mergedStream (stores: [])
      --> long-groupByKey-repartition-filter
      <-- mappedAStream, mappedBStream
    Processor: long-groupByKey-repartition-filter (stores: [])
      --> long-groupByKey-repartition-sink
      <-- mergedStream
    Sink: long-groupByKey-repartition-sink (topic: long-groupByKey-repartition)
      <-- long-groupByKey-repartition-filter

  Sub-topology: 1
    Source: long-groupByKey-repartition-source (topics: [long-groupByKey-repartition])
      --> long-count, string-count
    Processor: string-count (stores: [string-store])
      --> string-toStream
      <-- long-groupByKey-repartition-source
    Processor: long-count (stores: [long-store])
      --> long-toStream
      <-- long-groupByKey-repartition-source
    Processor: string-toStream (stores: [])
      --> string-mapValues
      <-- string-count
    Processor: long-toStream (stores: [])
      --> long-to
      <-- long-count
    Processor: string-mapValues (stores: [])
      --> string-to
      <-- string-toStream
    Sink: long-to (topic: outputTopic_0)
      <-- long-toStream
    Sink: string-to (topic: outputTopic_1)
      <-- string-mapValues

"""

# RepartitionWithMergeOptimizingTest.EXPECTED_UNOPTIMIZED_TOPOLOGY
UNOPTIMIZED = """\
Topologies:
   Sub-topology: 0
    Source: sourceAStream (topics: [inputA])
      --> mappedAStream
    Source: sourceBStream (topics: [inputB])
      --> mappedBStream
    Processor: mappedAStream (stores: [])
      --> mergedStream
      <-- sourceAStream
    Processor: mappedBStream (stores: [])
      --> mergedStream
      <-- sourceBStream
    Processor: mergedStream (stores: [])
      --> long-groupByKey-repartition-filter, string-groupByKey-repartition-filter
      <-- mappedAStream, mappedBStream
    Processor: long-groupByKey-repartition-filter (stores: [])
      --> long-groupByKey-repartition-sink
      <-- mergedStream
    Processor: string-groupByKey-repartition-filter (stores: [])
      --> string-groupByKey-repartition-sink
      <-- mergedStream
    Sink: long-groupByKey-repartition-sink (topic: long-groupByKey-repartition)
      <-- long-groupByKey-repartition-filter
    Sink: string-groupByKey-repartition-sink (topic: string-groupByKey-repartition)
      <-- string-groupByKey-repartition-filter

  Sub-topology: 1
    Source: long-groupByKey-repartition-source (topics: [long-groupByKey-repartition])
      --> long-count
    Processor: long-count (stores: [long-store])
      --> long-toStream
      <-- long-groupByKey-repartition-source
    Processor: long-toStream (stores: [])
      --> long-to
      <-- long-count
    Sink: long-to (topic: outputTopic_0)
      <-- long-toStream

  Sub-topology: 2
    Source: string-groupByKey-repartition-source (topics: [string-groupByKey-repartition])
      --> string-count
    Processor: string-count (stores: [string-store])
      --> string-toStream
      <-- string-groupByKey-repartition-source
    Processor: string-toStream (stores: [])
      --> string-mapValues
      <-- string-count
    Processor: string-mapValues (stores: [])
      --> string-to
      <-- string-toStream
    Sink: string-to (topic: outputTopic_1)
      <-- string-mapValues

"""


def merge_program(optimization: str) -> ks.Topology:
    b = ks.StreamsBuilder()
    a = b.stream("inputA", ks.Consumed.with_(S, S).with_name("sourceAStream"))
    c = b.stream("inputB", ks.Consumed.with_(S, S).with_name("sourceBStream"))
    mapped_a = a.map(lambda k, v: (v.split(":")[0], v), ks.Named.as_("mappedAStream"))
    mapped_b = c.map(lambda k, v: (v.split(":")[0], v), ks.Named.as_("mappedBStream"))
    merged = mapped_a.merge(mapped_b, ks.Named.as_("mergedStream"))
    (merged.group_by_key(ks.Grouped.as_("long-groupByKey"))
     .count(ks.Named.as_("long-count"),
            ks.Materialized.as_(ks.Stores.in_memory_key_value_store("long-store")))
     .to_stream(named=ks.Named.as_("long-toStream"))
     .to("outputTopic_0", ks.Produced.with_(S, L).with_name("long-to")))
    (merged.group_by_key(ks.Grouped.as_("string-groupByKey"))
     .count(ks.Named.as_("string-count"),
            ks.Materialized.as_(ks.Stores.in_memory_key_value_store("string-store")))
     .to_stream(named=ks.Named.as_("string-toStream"))
     .map_values(str, ks.Named.as_("string-mapValues"))
     .to("outputTopic_1", ks.Produced.with_(S, S).with_name("string-to")))
    return b.build({"topology.optimization": optimization})


@pytest.mark.parametrize(("optimization", "expected", "topics"), [
    ("all", OPTIMIZED, 1), ("none", UNOPTIMIZED, 2)])
def test_repartition_topics_after_a_merge_are_merged_into_one(optimization, expected, topics):
    # RepartitionWithMergeOptimizingTest: the repartitions of both groupings follow the same
    # key changers (through the merge), so "all" keeps only the first one.
    topology = merge_program(optimization)
    assert str(topology.describe()) == expected
    assert len(topology.internal_topics) == topics
    with ks.TopologyTestDriver(topology, {"default.key.serde": "string",
                                          "default.value.serde": "string"}) as driver:
        for topic in ("inputA", "inputB"):
            inp = driver.create_input_topic(topic, S, S)
            for key in "XYZ":
                for value in ("A:foo", "B:foo", "C:foo"):
                    inp.pipe_input(key, value)
        assert driver.create_output_topic("outputTopic_0", S, L).read_key_values_to_map() == {
            "A": 6, "B": 6, "C": 6}
        assert driver.create_output_topic("outputTopic_1", S, S).read_key_values_to_map() == {
            "A": "6", "B": "6", "C": "6"}


def test_table_source_topic_is_reused_as_changelog():
    # reuse.ktable.source.topics: the table's store is restored from its source topic, so no
    # <app>-<store>-changelog topic is written.
    def run(optimization):
        b = ks.StreamsBuilder()
        b.table("t", ks.Consumed.with_(S, S), "store").to_stream().to("out")
        topology = b.build({"topology.optimization": optimization})
        with ks.TopologyTestDriver(topology, {"application.id": "app"}) as driver:
            driver.create_input_topic("t", S, S).pipe_input("k", "v")
            return topology.changelog_topic_for("store", "app"), driver.produced_topic_names()

    changelog, produced = run("all")
    assert changelog == "t"
    assert "app-store-changelog" not in produced
    changelog, produced = run("none")
    assert changelog == "app-store-changelog"
    assert "app-store-changelog" in produced


def test_unknown_optimization_is_refused():
    b = ks.StreamsBuilder()
    b.stream("in").to("out")
    with pytest.raises(ks.TopologyError, match=r"topology\.optimization"):
        b.build({"topology.optimization": "fastest"})


def test_default_dsl_store_picks_the_store_type_of_dsl_stores():
    # default.dsl.store (Java's DEFAULT_DSL_STORE_CONFIG): rocksDB by default, or in_memory;
    # Materialized.with_store_type still wins for its own store.
    def counts() -> ks.StreamsBuilder:
        b = ks.StreamsBuilder()
        b.stream("in").group_by_key().count(materialized="c")
        b.stream("other").group_by_key().count(
            materialized=ks.Materialized.as_("p").with_store_type("persistent"))
        return b

    topology = counts().build({"default.dsl.store": "in_memory"})
    assert (topology.state_stores["c"].persistent, topology.state_stores["p"].persistent) == (
        False, True)
    assert counts().build().state_stores["c"].persistent
