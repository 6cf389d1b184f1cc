# ruff: noqa: E501 - expected describe() texts are copied verbatim from Kafka
"""describe() of DSL programs: node names, index use, stores and repartition topics as in Kafka.

Expected texts come from Kafka Streams' own tests (TopologyTest, StreamsBuilderTest,
KStreamImplTest) where one exists; each test names the naming rule it exercises.
"""

from __future__ import annotations

import re

import kslab as ks
from kslab import serdes


def describe(builder: ks.StreamsBuilder, props: dict | None = None) -> str:
    return str(builder.build(props).describe())


def test_filter_and_sink_use_one_index_each():
    # Rule: every generated name is prefix + the next index of the one counter.
    b = ks.StreamsBuilder()
    b.stream("in").filter(lambda k, v: True).to("out")
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-FILTER-0000000001
    Processor: KSTREAM-FILTER-0000000001 (stores: [])
      --> KSTREAM-SINK-0000000002
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000002 (topic: out)
      <-- KSTREAM-FILTER-0000000001

"""


def test_group_by_key_count_names_store_before_processor():
    # TopologyTest.kGroupedStreamZeroArgCountShouldPreserveTopologyStructure: the anonymous
    # store takes index 1, the aggregate processor index 2; no repartition without a key change.
    b = ks.StreamsBuilder()
    b.stream("input-topic").group_by_key().count()
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])
      --> KSTREAM-AGGREGATE-0000000002
    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000001])
      --> none
      <-- KSTREAM-SOURCE-0000000000

"""


def test_named_materialized_count_uses_no_store_index():
    # TopologyTest.kGroupedStreamNamedMaterializedCountShouldPreserveTopologyStructure.
    b = ks.StreamsBuilder()
    b.stream("input-topic").group_by_key().count(
        materialized=ks.Materialized.as_("count-store").with_store_type("in_memory"))
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])
      --> KSTREAM-AGGREGATE-0000000001
    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [count-store])
      --> none
      <-- KSTREAM-SOURCE-0000000000

"""


def test_anonymous_materialized_count_burns_an_extra_index():
    # TopologyTest.kGroupedStreamAnonymousMaterializedCountShouldPreserveTopologyStructure:
    # count(Materialized) without a name uses index 1 for a store name it then drops.
    b = ks.StreamsBuilder()
    b.stream("input-topic").group_by_key().count(
        materialized=ks.Materialized.with_(None, serdes.Long()).with_store_type("persistent"))
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])
      --> KSTREAM-AGGREGATE-0000000003
    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000002])
      --> none
      <-- KSTREAM-SOURCE-0000000000

"""


def test_table_group_by_count_goes_through_a_repartition_topic():
    # TopologyTest.tableZeroArgCountShouldPreserveTopologyStructure: the table's store name
    # takes index 0 (topic + "-STATE-STORE-"), the source 1 and the table source 2.
    b = ks.StreamsBuilder()
    b.table("input-topic").group_by(lambda k, v: None).count()
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [input-topic-STATE-STORE-0000000000])
      --> KTABLE-SELECT-0000000003
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-SELECT-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KTABLE-SOURCE-0000000002
    Sink: KSTREAM-SINK-0000000005 (topic: KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition)
      <-- KTABLE-SELECT-0000000003

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000006 (topics: [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])
      --> KTABLE-AGGREGATE-0000000007
    Processor: KTABLE-AGGREGATE-0000000007 (stores: [KTABLE-AGGREGATE-STATE-STORE-0000000004])
      --> none
      <-- KSTREAM-SOURCE-0000000006

"""


def test_table_map_values_unmaterialized():
    # TopologyTest.kTableNonMaterializedMapValuesShouldPreserveTopologyStructure: a source
    # table nobody reads by key keeps no store.
    b = ks.StreamsBuilder()
    b.table("input-topic").map_values(lambda v: None)
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [])
      --> KTABLE-MAPVALUES-0000000003
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-MAPVALUES-0000000003 (stores: [])
      --> none
      <-- KTABLE-SOURCE-0000000002

"""


def test_table_map_values_anonymous_materialized_uses_an_index_but_no_store():
    # TopologyTest.kTableAnonymousMaterializedMapValuesShouldPreserveTopologyStructure.
    b = ks.StreamsBuilder()
    b.table("input-topic").map_values(
        lambda k, v: None, materialized=ks.Materialized.with_(None, None)
        .with_store_type("in_memory"), with_key=True)
    text = describe(b)
    assert "Processor: KTABLE-MAPVALUES-0000000004 (stores: [])" in text


def test_table_filter_named_materialized():
    # TopologyTest.kTableNamedMaterializedFilterShouldPreserveTopologyStructure.
    b = ks.StreamsBuilder()
    b.table("input-topic").filter(lambda k, v: False, materialized="store-name")
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [input-topic])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [])
      --> KTABLE-FILTER-0000000003
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-FILTER-0000000003 (stores: [store-name])
      --> none
      <-- KTABLE-SOURCE-0000000002

"""


def test_table_filter_anonymous_materialized():
    # TopologyTest.kTableAnonymousMaterializedFilterShouldPreserveTopologyStructure.
    b = ks.StreamsBuilder()
    b.table("input-topic").filter(lambda k, v: False, ks.Materialized.with_(None, None))
    assert "Processor: KTABLE-FILTER-0000000004 (stores: [])" in describe(b)


def test_word_count_repartition_is_named_after_the_store():
    # Rule: group_by's repartition topic is <store name>-repartition, and the null-key filter,
    # sink and source take three indexes after the aggregate's name.
    b = ks.StreamsBuilder()
    (b.stream("in").flat_map_values(lambda v: v.split()).group_by(lambda k, w: w).count()
     .to_stream().to("out"))
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-FLATMAPVALUES-0000000001
    Processor: KSTREAM-FLATMAPVALUES-0000000001 (stores: [])
      --> KSTREAM-KEY-SELECT-0000000002
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])
      --> KSTREAM-FILTER-0000000006
      <-- KSTREAM-FLATMAPVALUES-0000000001
    Processor: KSTREAM-FILTER-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-KEY-SELECT-0000000002
    Sink: KSTREAM-SINK-0000000005 (topic: KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition)
      <-- KSTREAM-FILTER-0000000006

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000007 (topics: [KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition])
      --> KSTREAM-AGGREGATE-0000000004
    Processor: KSTREAM-AGGREGATE-0000000004 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> KTABLE-TOSTREAM-0000000008
      <-- KSTREAM-SOURCE-0000000007
    Processor: KTABLE-TOSTREAM-0000000008 (stores: [])
      --> KSTREAM-SINK-0000000009
      <-- KSTREAM-AGGREGATE-0000000004
    Sink: KSTREAM-SINK-0000000009 (topic: out)
      <-- KTABLE-TOSTREAM-0000000008

"""


def test_grouped_name_names_the_repartition_topic_and_its_nodes():
    # Rule: a user-given Grouped name gives <name>-repartition and its -sink/-filter/-source.
    b = ks.StreamsBuilder()
    b.stream("in").group_by(lambda k, v: v, ks.Grouped.as_("by-value")).count()
    text = describe(b)
    assert "Sink: by-value-repartition-sink (topic: by-value-repartition)" in text
    assert "Processor: by-value-repartition-filter (stores: [])" in text
    assert "Source: by-value-repartition-source (topics: [by-value-repartition])" in text
    assert "Processor: KSTREAM-KEY-SELECT-0000000001" not in text
    assert "Processor: by-value (stores: [])" in text


def test_split_branch_names():
    # StreamsBuilderTest.shouldUseSpecifiedNameForSplitOperation: branch names are the split
    # name followed by the Branched name (or the branch number, 0 for the default branch).
    b = ks.StreamsBuilder()
    branches = (b.stream("in").split(ks.Named.as_("branch-processor"))
                .branch(lambda k, v: True, ks.Branched.as_("-1"))
                .branch(lambda k, v: False, ks.Branched.as_("-2"))
                .default_branch())
    assert list(branches) == ["branch-processor-1", "branch-processor-2", "branch-processor0"]
    names = re.findall(r"Processor: (\S+)", describe(b))
    assert names == ["branch-processor", "branch-processor-1", "branch-processor-2",
                     "branch-processor0"]


def test_generated_split_names_and_index_use():
    # Rule: split takes one index; each branch name, though derived, also uses one.
    b = ks.StreamsBuilder()
    branches = b.stream("in").split().branch(lambda k, v: True).default_branch()
    assert list(branches) == ["KSTREAM-BRANCH-00000000011", "KSTREAM-BRANCH-00000000010"]
    b.stream("other").to("x")
    assert "KSTREAM-SOURCE-0000000004" in describe(b)


def test_merge_and_topic_extractor_sink():
    # TopologyTest (topic name extractor): an extractor sink prints its extractor.
    class Extractor:
        def __call__(self, key, value, record_context):
            return "t"

        def __str__(self):
            return "my extractor"

    b = ks.StreamsBuilder()
    b.stream("a").merge(b.stream("b")).to(Extractor())
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [a])
      --> KSTREAM-MERGE-0000000002
    Source: KSTREAM-SOURCE-0000000001 (topics: [b])
      --> KSTREAM-MERGE-0000000002
    Processor: KSTREAM-MERGE-0000000002 (stores: [])
      --> KSTREAM-SINK-0000000003
      <-- KSTREAM-SOURCE-0000000000, KSTREAM-SOURCE-0000000001
    Sink: KSTREAM-SINK-0000000003 (extractor class: my extractor)
      <-- KSTREAM-MERGE-0000000002

"""


def test_repartition_with_name_and_partitions():
    # Rule: repartition(Repartitioned.as_(n)) names topic and nodes after n; no null-key filter
    # rewrite changes its name.
    b = ks.StreamsBuilder()
    b.stream("in").repartition(ks.Repartitioned.as_("r").with_number_of_partitions(2)).to("out")
    topology = b.build()
    assert topology.internal_topics["r-repartition"].partitions == 2
    assert describe(b) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> r-repartition-filter
    Processor: r-repartition-filter (stores: [])
      --> r-repartition-sink
      <-- KSTREAM-SOURCE-0000000000
    Sink: r-repartition-sink (topic: r-repartition)
      <-- r-repartition-filter

  Sub-topology: 1
    Source: r-repartition-source (topics: [r-repartition])
      --> KSTREAM-SINK-0000000004
    Sink: KSTREAM-SINK-0000000004 (topic: out)
      <-- r-repartition-source

"""


def test_process_with_named_store_connects_it():
    # Rule: process() without a name takes KSTREAM-PROCESSOR- + index; named stores connect.
    class Noop(ks.Processor):
        def process(self, record):
            pass

    store = ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("s"))
    b = ks.StreamsBuilder().add_state_store(store)
    b.stream("in").process(Noop, "s")
    assert "Processor: KSTREAM-PROCESSOR-0000000001 (stores: [s])" in describe(b)


def test_to_table_names_and_store():
    # Rule: to_table's anonymous store is named KSTREAM-TOTABLE-STATE-STORE- after the node index.
    b = ks.StreamsBuilder()
    b.stream("in").to_table()
    text = describe(b)
    assert "Processor: KSTREAM-TOTABLE-0000000001 (stores: [])" in text
    b2 = ks.StreamsBuilder()
    b2.stream("in").to_table(materialized="t")
    assert "Processor: KSTREAM-TOTABLE-0000000001 (stores: [t])" in describe(b2)
