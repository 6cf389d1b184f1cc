# ruff: noqa: E501 - expected describe() texts are copied verbatim from Kafka
"""Kafka's ``CogroupedKStreamImplTest``, its non-windowed tests: argument checks, the names of
cogroup processors, stores and repartition topics in ``describe()`` (with and without
optimization), and cogrouped aggregation results.

Mapping: Java's ``NullPointerException`` for a null grouped stream or function is
``MissingArgumentError`` with Java's message; ``MockAggregator.TOSTRING_ADDER/REMOVER`` build
``"agg+value"``/``"agg-value"``, ``MockInitializer.STRING_INIT`` is ``lambda: "0"``,
``MockValueJoiner.TOSTRING_JOINER`` is ``f"{v1}+{v2}"``. Skipped: the ``(Named) null`` and
``(Materialized) null`` tests (in Python ``None`` is the default for both, not an error) and
the windowed tests (``windowedBy(null)``: translated with the windowed conformance files).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError

S, INT = serdes.String(), serdes.Integer()
STRING_CONSUMED = ks.Consumed.with_(S, S)
TOPIC = "topic"
OUTPUT = "output"
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}


def STRING_AGGREGATOR(key, value, aggregate):
    return aggregate + value


def STRING_INITIALIZER():
    return ""


def STRING_SUM_AGGREGATOR(key, value, aggregate):
    return aggregate + int(value)


def SUM_AGGREGATOR(key, value, aggregate):
    return aggregate + value


def SUM_INITIALIZER():
    return 0


def tostring_adder(key, value, agg):
    return f"{agg}+{value}"


def tostring_remover(key, value, agg):
    return f"{agg}-{value}"


@pytest.fixture
def grouped_stream():
    builder = ks.StreamsBuilder()
    stream = builder.stream(TOPIC, ks.Consumed.with_(S, S))
    return stream.group_by_key(ks.Grouped.with_(S, S))


@pytest.fixture
def cogrouped_stream(grouped_stream):
    return grouped_stream.cogroup(tostring_adder)


def test_should_throw_npe_in_cogroup_if_k_grouped_stream_is_null(cogrouped_stream):
    with pytest.raises(MissingArgumentError, match="groupedStream can't be null"):
        cogrouped_stream.cogroup(None, tostring_adder)


def test_should_not_have_null_aggregator_on_cogroup(cogrouped_stream, grouped_stream):
    with pytest.raises(MissingArgumentError, match="aggregator can't be null"):
        cogrouped_stream.cogroup(grouped_stream, None)


def test_should_not_have_null_initializer_on_aggregate(cogrouped_stream):
    with pytest.raises(MissingArgumentError, match="initializer can't be null"):
        cogrouped_stream.aggregate(None)


def test_should_not_have_null_initializer_on_aggregate_wit_named(cogrouped_stream):
    with pytest.raises(MissingArgumentError, match="initializer can't be null"):
        cogrouped_stream.aggregate(None, ks.Named.as_("name"))


def test_should_not_have_null_initializer_on_aggregate_wit_materialized(cogrouped_stream):
    with pytest.raises(MissingArgumentError, match="initializer can't be null"):
        cogrouped_stream.aggregate(None, ks.Materialized.as_("store"))


def test_should_not_have_null_initializer_on_aggregate_wit_named_and_materialized(
        cogrouped_stream):
    with pytest.raises(MissingArgumentError, match="initializer can't be null"):
        cogrouped_stream.aggregate(None, ks.Named.as_("name"), ks.Materialized.as_("store"))


def test_should_name_processors_and_store_based_on_named_parameter():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    test2 = builder.stream("two", STRING_CONSUMED)
    grouped_one = stream1.group_by_key()
    grouped_two = test2.group_by_key()
    customers = (grouped_one
        .cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER, ks.Named.as_("test"), ks.Materialized.as_("store")))
    customers.to_stream().to(OUTPUT)
    topology_description = str(builder.build().describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> test-cogroup-agg-0
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> test-cogroup-agg-1
    Processor: test-cogroup-agg-0 (stores: [store])
      --> test-cogroup-merge
      <-- KSTREAM-SOURCE-0000000000
    Processor: test-cogroup-agg-1 (stores: [store])
      --> test-cogroup-merge
      <-- KSTREAM-SOURCE-0000000001
    Processor: test-cogroup-merge (stores: [])
      --> KTABLE-TOSTREAM-0000000005
      <-- test-cogroup-agg-0, test-cogroup-agg-1
    Processor: KTABLE-TOSTREAM-0000000005 (stores: [])
      --> KSTREAM-SINK-0000000006
      <-- test-cogroup-merge
    Sink: KSTREAM-SINK-0000000006 (topic: output)
      <-- KTABLE-TOSTREAM-0000000005

"""


def test_should_name_repartition_topic():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    test2 = builder.stream("two", STRING_CONSUMED)
    grouped_one = (stream1.map(lambda k, v: ks.KeyValue(v, k))
        .group_by_key(ks.Grouped.as_("repartition-test")))
    grouped_two = test2.group_by_key()
    customers = (grouped_one
        .cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    customers.to_stream().to(OUTPUT)
    topology_description = str(builder.build().describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> repartition-test-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: repartition-test-repartition-filter (stores: [])
      --> repartition-test-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Sink: repartition-test-repartition-sink (topic: repartition-test-repartition)
      <-- repartition-test-repartition-filter

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000008
    Source: repartition-test-repartition-source (topics: [repartition-test-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000007
    Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- repartition-test-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000009 (stores: [])
      --> KTABLE-TOSTREAM-0000000010
      <-- COGROUPKSTREAM-AGGREGATE-0000000007, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: KTABLE-TOSTREAM-0000000010 (stores: [])
      --> KSTREAM-SINK-0000000011
      <-- COGROUPKSTREAM-MERGE-0000000009
    Sink: KSTREAM-SINK-0000000011 (topic: output)
      <-- KTABLE-TOSTREAM-0000000010

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    test2 = builder.stream("two", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = test2.group_by_key()
    customers = (grouped_one
        .cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER, ks.Named.as_("test"), ks.Materialized.as_("store")))
    customers.to_stream().to(OUTPUT)
    topology_description = str(builder.build().describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> store-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: store-repartition-filter (stores: [])
      --> store-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Sink: store-repartition-sink (topic: store-repartition)
      <-- store-repartition-filter

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> test-cogroup-agg-1
    Source: store-repartition-source (topics: [store-repartition])
      --> test-cogroup-agg-0
    Processor: test-cogroup-agg-0 (stores: [store])
      --> test-cogroup-merge
      <-- store-repartition-source
    Processor: test-cogroup-agg-1 (stores: [store])
      --> test-cogroup-merge
      <-- KSTREAM-SOURCE-0000000001
    Processor: test-cogroup-merge (stores: [])
      --> KTABLE-TOSTREAM-0000000009
      <-- test-cogroup-agg-0, test-cogroup-agg-1
    Processor: KTABLE-TOSTREAM-0000000009 (stores: [])
      --> KSTREAM-SINK-0000000010
      <-- test-cogroup-merge
    Sink: KSTREAM-SINK-0000000010 (topic: output)
      <-- KTABLE-TOSTREAM-0000000009

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification_with_grouped_reused_in_same_cogroups():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = stream2.group_by_key()
    cogrouped_two = (grouped_one
        .cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    cogrouped_one = (grouped_one
        .cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    cogrouped_one.to_stream().to(OUTPUT)
    cogrouped_two.to_stream().to("OUTPUT2")
    topology_description = str(builder.build().describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition-filter, COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition-filter

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000008, COGROUPKSTREAM-AGGREGATE-0000000015
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000007
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000014
    Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-AGGREGATE-0000000014 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> COGROUPKSTREAM-MERGE-0000000016
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000015 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> COGROUPKSTREAM-MERGE-0000000016
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000009 (stores: [])
      --> KTABLE-TOSTREAM-0000000019
      <-- COGROUPKSTREAM-AGGREGATE-0000000007, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: COGROUPKSTREAM-MERGE-0000000016 (stores: [])
      --> KTABLE-TOSTREAM-0000000017
      <-- COGROUPKSTREAM-AGGREGATE-0000000014, COGROUPKSTREAM-AGGREGATE-0000000015
    Processor: KTABLE-TOSTREAM-0000000017 (stores: [])
      --> KSTREAM-SINK-0000000018
      <-- COGROUPKSTREAM-MERGE-0000000016
    Processor: KTABLE-TOSTREAM-0000000019 (stores: [])
      --> KSTREAM-SINK-0000000020
      <-- COGROUPKSTREAM-MERGE-0000000009
    Sink: KSTREAM-SINK-0000000018 (topic: output)
      <-- KTABLE-TOSTREAM-0000000017
    Sink: KSTREAM-SINK-0000000020 (topic: OUTPUT2)
      <-- KTABLE-TOSTREAM-0000000019

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification_with_grouped_reused_in_same_cogroups_with_optimization():
    properties = {}
    properties["topology.optimization"] = "all"
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = stream2.group_by_key()
    cogrouped_two = (grouped_one
        .cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    cogrouped_one = (grouped_one
        .cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    cogrouped_one.to_stream().to(OUTPUT)
    cogrouped_two.to_stream().to("OUTPUT2")
    topology_description = str(builder.build(properties).describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter

  Sub-topology: 1
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000014, COGROUPKSTREAM-AGGREGATE-0000000007
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000015, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-AGGREGATE-0000000014 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> COGROUPKSTREAM-MERGE-0000000016
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000015 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> COGROUPKSTREAM-MERGE-0000000016
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000009 (stores: [])
      --> KTABLE-TOSTREAM-0000000019
      <-- COGROUPKSTREAM-AGGREGATE-0000000007, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: COGROUPKSTREAM-MERGE-0000000016 (stores: [])
      --> KTABLE-TOSTREAM-0000000017
      <-- COGROUPKSTREAM-AGGREGATE-0000000014, COGROUPKSTREAM-AGGREGATE-0000000015
    Processor: KTABLE-TOSTREAM-0000000017 (stores: [])
      --> KSTREAM-SINK-0000000018
      <-- COGROUPKSTREAM-MERGE-0000000016
    Processor: KTABLE-TOSTREAM-0000000019 (stores: [])
      --> KSTREAM-SINK-0000000020
      <-- COGROUPKSTREAM-MERGE-0000000009
    Sink: KSTREAM-SINK-0000000018 (topic: output)
      <-- KTABLE-TOSTREAM-0000000017
    Sink: KSTREAM-SINK-0000000020 (topic: OUTPUT2)
      <-- KTABLE-TOSTREAM-0000000019

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification_with_grouped_reused_in_different_cogroups():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", STRING_CONSUMED)
    stream3 = builder.stream("three", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = stream2.group_by_key()
    grouped_three = stream3.group_by_key()
    (grouped_one.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_three, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    (grouped_one.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    topology_description = str(builder.build().describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000003
    Processor: KSTREAM-MAP-0000000003 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-filter, COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-sink
      <-- KSTREAM-MAP-0000000003
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition-sink
      <-- KSTREAM-MAP-0000000003
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-filter
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition-filter

  Sub-topology: 1
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000015
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000016
    Processor: COGROUPKSTREAM-AGGREGATE-0000000015 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011])
      --> COGROUPKSTREAM-MERGE-0000000017
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000016 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011])
      --> COGROUPKSTREAM-MERGE-0000000017
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000017 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000015, COGROUPKSTREAM-AGGREGATE-0000000016

  Sub-topology: 2
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000008
    Source: KSTREAM-SOURCE-0000000002 (topics: [three])
      --> COGROUPKSTREAM-AGGREGATE-0000000009
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004])
      --> COGROUPKSTREAM-MERGE-0000000010
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000009 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004])
      --> COGROUPKSTREAM-MERGE-0000000010
      <-- KSTREAM-SOURCE-0000000002
    Processor: COGROUPKSTREAM-MERGE-0000000010 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000008, COGROUPKSTREAM-AGGREGATE-0000000009

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification_with_grouped_reused_in_different_cogroups_with_optimization():
    builder = ks.StreamsBuilder()
    properties = {}
    properties["topology.optimization"] = "all"
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", STRING_CONSUMED)
    stream3 = builder.stream("three", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = stream2.group_by_key()
    grouped_three = stream3.group_by_key()
    (grouped_one.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_three, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    (grouped_one.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    topology_description = str(builder.build(properties).describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000003
    Processor: KSTREAM-MAP-0000000003 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-sink
      <-- KSTREAM-MAP-0000000003
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-filter

  Sub-topology: 1
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000008, COGROUPKSTREAM-AGGREGATE-0000000015
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000016
    Source: KSTREAM-SOURCE-0000000002 (topics: [three])
      --> COGROUPKSTREAM-AGGREGATE-0000000009
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004])
      --> COGROUPKSTREAM-MERGE-0000000010
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000009 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004])
      --> COGROUPKSTREAM-MERGE-0000000010
      <-- KSTREAM-SOURCE-0000000002
    Processor: COGROUPKSTREAM-AGGREGATE-0000000015 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011])
      --> COGROUPKSTREAM-MERGE-0000000017
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000004-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000016 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000011])
      --> COGROUPKSTREAM-MERGE-0000000017
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000010 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000008, COGROUPKSTREAM-AGGREGATE-0000000009
    Processor: COGROUPKSTREAM-MERGE-0000000017 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000015, COGROUPKSTREAM-AGGREGATE-0000000016

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification_with_grouped_reused():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = stream2.group_by_key()
    (grouped_one.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    grouped_one.aggregate(STRING_INITIALIZER, STRING_AGGREGATOR)
    topology_description = str(builder.build().describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter, KSTREAM-FILTER-0000000013
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Processor: KSTREAM-FILTER-0000000013 (stores: [])
      --> KSTREAM-SINK-0000000012
      <-- KSTREAM-MAP-0000000002
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter
    Sink: KSTREAM-SINK-0000000012 (topic: KSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition)
      <-- KSTREAM-FILTER-0000000013

  Sub-topology: 1
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000007
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000009 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000007, COGROUPKSTREAM-AGGREGATE-0000000008

  Sub-topology: 2
    Source: KSTREAM-SOURCE-0000000014 (topics: [KSTREAM-AGGREGATE-STATE-STORE-0000000010-repartition])
      --> KSTREAM-AGGREGATE-0000000011
    Processor: KSTREAM-AGGREGATE-0000000011 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> none
      <-- KSTREAM-SOURCE-0000000014

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification_with_grouped_reused_with_optimization():
    builder = ks.StreamsBuilder()
    properties = {}
    properties["topology.optimization"] = "all"
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = stream2.group_by_key()
    (grouped_one.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    grouped_one.aggregate(STRING_INITIALIZER, STRING_AGGREGATOR)
    topology_description = str(builder.build(properties).describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter

  Sub-topology: 1
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000007, KSTREAM-AGGREGATE-0000000011
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000009 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000007, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: KSTREAM-AGGREGATE-0000000011 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source

"""


def test_should_insert_repartitions_topic_for_upstream_key_modification_with_grouped_remade_with_optimization():
    builder = ks.StreamsBuilder()
    properties = {}
    properties["topology.optimization"] = "all"
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", STRING_CONSUMED)
    stream3 = builder.stream("three", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    grouped_two = stream2.group_by_key()
    grouped_three = stream3.group_by_key()
    grouped_four = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key()
    (grouped_one.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_two, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    (grouped_three.cogroup(STRING_AGGREGATOR)
        .cogroup(grouped_four, STRING_AGGREGATOR)
        .aggregate(STRING_INITIALIZER))
    topology_description = str(builder.build(properties).describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000003, KSTREAM-MAP-0000000004
    Processor: KSTREAM-MAP-0000000003 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-MAP-0000000004 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-sink
      <-- KSTREAM-MAP-0000000003
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition-sink
      <-- KSTREAM-MAP-0000000004
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-filter
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition-filter

  Sub-topology: 1
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000009
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000010
    Processor: COGROUPKSTREAM-AGGREGATE-0000000009 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005])
      --> COGROUPKSTREAM-MERGE-0000000011
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000010 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005])
      --> COGROUPKSTREAM-MERGE-0000000011
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000011 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000009, COGROUPKSTREAM-AGGREGATE-0000000010

  Sub-topology: 2
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000017
    Source: KSTREAM-SOURCE-0000000002 (topics: [three])
      --> COGROUPKSTREAM-AGGREGATE-0000000016
    Processor: COGROUPKSTREAM-AGGREGATE-0000000016 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012])
      --> COGROUPKSTREAM-MERGE-0000000018
      <-- KSTREAM-SOURCE-0000000002
    Processor: COGROUPKSTREAM-AGGREGATE-0000000017 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012])
      --> COGROUPKSTREAM-MERGE-0000000018
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000012-repartition-source
    Processor: COGROUPKSTREAM-MERGE-0000000018 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000016, COGROUPKSTREAM-AGGREGATE-0000000017

"""


def test_should_insert_repartitions_topic_for_cogroups_used_twice():
    builder = ks.StreamsBuilder()
    properties = {}
    stream1 = builder.stream("one", STRING_CONSUMED)
    grouped_one = stream1.map(lambda k, v: ks.KeyValue(v, k)).group_by_key(ks.Grouped.as_("foo"))
    one = grouped_one.cogroup(STRING_AGGREGATOR)
    one.aggregate(STRING_INITIALIZER)
    one.aggregate(STRING_INITIALIZER)
    topology_description = str(builder.build(properties).describe())
    assert topology_description == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000001
    Processor: KSTREAM-MAP-0000000001 (stores: [])
      --> foo-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: foo-repartition-filter (stores: [])
      --> foo-repartition-sink
      <-- KSTREAM-MAP-0000000001
    Sink: foo-repartition-sink (topic: foo-repartition)
      <-- foo-repartition-filter

  Sub-topology: 1
    Source: foo-repartition-source (topics: [foo-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000006, COGROUPKSTREAM-AGGREGATE-0000000012
    Processor: COGROUPKSTREAM-AGGREGATE-0000000006 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000002])
      --> COGROUPKSTREAM-MERGE-0000000007
      <-- foo-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000012 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000008])
      --> COGROUPKSTREAM-MERGE-0000000013
      <-- foo-repartition-source
    Processor: COGROUPKSTREAM-MERGE-0000000007 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000006
    Processor: COGROUPKSTREAM-MERGE-0000000013 (stores: [])
      --> none
      <-- COGROUPKSTREAM-AGGREGATE-0000000012

"""


def assert_output(output_topic, expected_key, expected_value, expected_timestamp):
    assert output_topic.read_record() == ks.TestRecord(expected_key, expected_value,
                                                       expected_timestamp)


def test_should_cogroup_and_aggregate_single_k_streams():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    grouped1 = stream1.group_by_key()
    customers = grouped1.cogroup(STRING_AGGREGATOR).aggregate(STRING_INITIALIZER)
    customers.to_stream().to(OUTPUT)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        out = driver.create_output_topic(OUTPUT, S, S)
        inp.pipe_input("k1", "A", 0)
        inp.pipe_input("k2", "B", 0)
        inp.pipe_input("k2", "B", 0)
        inp.pipe_input("k1", "A", 0)
        assert_output(out, "k1", "A", 0)
        assert_output(out, "k2", "B", 0)
        assert_output(out, "k2", "BB", 0)
        assert_output(out, "k1", "AA", 0)


def test_cogroup_handle_null_values():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    grouped1 = stream1.group_by_key()
    customers = grouped1.cogroup(STRING_AGGREGATOR).aggregate(STRING_INITIALIZER)
    customers.to_stream().to(OUTPUT)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        out = driver.create_output_topic(OUTPUT, S, S)
        inp.pipe_input("k1", "A", 0)
        inp.pipe_input("k2", "B", 0)
        inp.pipe_input("k2", None, 0)
        inp.pipe_input("k2", "B", 0)
        inp.pipe_input("k1", "A", 0)
        assert_output(out, "k1", "A", 0)
        assert_output(out, "k2", "B", 0)
        assert_output(out, "k2", "BB", 0)
        assert_output(out, "k1", "AA", 0)


def two_streams(aggregator1=STRING_AGGREGATOR, aggregator2=STRING_AGGREGATOR,
                initializer=STRING_INITIALIZER, materialized=None, consumed2=STRING_CONSUMED):
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", STRING_CONSUMED)
    stream2 = builder.stream("two", consumed2)
    grouped1 = stream1.group_by_key()
    grouped2 = stream2.group_by_key()
    cogrouped = grouped1.cogroup(aggregator1).cogroup(grouped2, aggregator2)
    customers = (cogrouped.aggregate(initializer) if materialized is None
                 else cogrouped.aggregate(initializer, materialized))
    customers.to_stream().to(OUTPUT)
    return builder


def test_should_cogroup_and_aggregate_two_k_streams_with_distinct_keys():
    builder = two_streams()
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        inp2 = driver.create_input_topic("two", S, S)
        out = driver.create_output_topic(OUTPUT, S, S)
        for ts in (0, 1, 10, 100):
            inp.pipe_input("k1", "A", ts)
        for ts in (100, 200, 1, 500, 500, 100):
            inp2.pipe_input("k2", "B", ts)
        assert_output(out, "k1", "A", 0)
        assert_output(out, "k1", "AA", 1)
        assert_output(out, "k1", "AAA", 10)
        assert_output(out, "k1", "AAAA", 100)
        assert_output(out, "k2", "B", 100)
        assert_output(out, "k2", "BB", 200)
        assert_output(out, "k2", "BBB", 200)
        assert_output(out, "k2", "BBBB", 500)
        assert_output(out, "k2", "BBBBB", 500)
        assert_output(out, "k2", "BBBBBB", 500)


SHARED_ONE = [("k1", 0), ("k2", 1), ("k1", 10), ("k2", 100)]
SHARED_TWO = [("k2", 100), ("k2", 200), ("k1", 1), ("k2", 500), ("k1", 500), ("k2", 500),
              ("k3", 500), ("k2", 100)]


def test_should_cogroup_and_aggregate_two_k_streams_with_shared_keys():
    builder = two_streams()
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        inp2 = driver.create_input_topic("two", S, S)
        out = driver.create_output_topic(OUTPUT, S, S)
        for key, ts in SHARED_ONE:
            inp.pipe_input(key, "A", ts)
        for key, ts in SHARED_TWO:
            inp2.pipe_input(key, "B", ts)
        assert_output(out, "k1", "A", 0)
        assert_output(out, "k2", "A", 1)
        assert_output(out, "k1", "AA", 10)
        assert_output(out, "k2", "AA", 100)
        assert_output(out, "k2", "AAB", 100)
        assert_output(out, "k2", "AABB", 200)
        assert_output(out, "k1", "AAB", 10)
        assert_output(out, "k2", "AABBB", 500)
        assert_output(out, "k1", "AABB", 500)
        assert_output(out, "k2", "AABBBB", 500)


SUM_TWO = [("k2", 2, 100), ("k2", 2, 200), ("k1", 2, 1), ("k2", 2, 500), ("k1", 2, 500),
           ("k2", 3, 500), ("k3", 2, 500), ("k2", 2, 100)]
SUM_EXPECTED = [("k1", 1, 0), ("k2", 1, 1), ("k1", 2, 10), ("k2", 2, 100), ("k2", 4, 100),
                ("k2", 6, 200), ("k1", 4, 10), ("k2", 8, 500), ("k1", 6, 500), ("k2", 11, 500)]


def test_should_allow_different_output_type_in_co_group():
    builder = two_streams(STRING_SUM_AGGREGATOR, STRING_SUM_AGGREGATOR, SUM_INITIALIZER,
                          ks.Materialized.as_("store1").with_value_serde(INT))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        inp2 = driver.create_input_topic("two", S, S)
        out = driver.create_output_topic(OUTPUT, S, INT)
        for key, ts in SHARED_ONE:
            inp.pipe_input(key, "1", ts)
        for key, value, ts in SUM_TWO:
            inp2.pipe_input(key, str(value), ts)
        for key, value, ts in SUM_EXPECTED:
            assert_output(out, key, value, ts)


def test_should_co_group_streams_with_different_input_types():
    builder = two_streams(STRING_SUM_AGGREGATOR, SUM_AGGREGATOR, SUM_INITIALIZER,
                          ks.Materialized.as_("store1").with_value_serde(INT),
                          ks.Consumed.with_(S, INT))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        inp2 = driver.create_input_topic("two", S, INT)
        out = driver.create_output_topic(OUTPUT, S, INT)
        for key, ts in SHARED_ONE:
            inp.pipe_input(key, "1", ts)
        for key, value, ts in SUM_TWO:
            inp2.pipe_input(key, value, ts)
        for key, value, ts in [*SUM_EXPECTED, ("k3", 2, 500)]:
            assert_output(out, key, value, ts)


def test_cogroup_key_mixed_aggregators():
    builder = two_streams(tostring_remover, tostring_adder, lambda: "0",
                          ks.Materialized.as_("store1").with_value_serde(S))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        inp2 = driver.create_input_topic("two", S, S)
        out = driver.create_output_topic(OUTPUT, S, S)
        for key, ts in SHARED_ONE:
            inp.pipe_input(key, "1", ts)
        for key, ts in [("k1", 500), ("k2", 500), ("k1", 500), ("k2", 100)]:
            inp2.pipe_input(key, "2", ts)
        assert_output(out, "k1", "0-1", 0)
        assert_output(out, "k2", "0-1", 1)
        assert_output(out, "k1", "0-1-1", 10)
        assert_output(out, "k2", "0-1-1", 100)
        assert_output(out, "k1", "0-1-1+2", 500)
        assert_output(out, "k2", "0-1-1+2", 500)
        assert_output(out, "k1", "0-1-1+2+2", 500)
        assert_output(out, "k2", "0-1-1+2+2", 500)


def test_cogroup_with_three_grouped_streams():
    builder = ks.StreamsBuilder()
    grouped1 = builder.stream("one", STRING_CONSUMED).group_by_key()
    grouped2 = builder.stream("two", STRING_CONSUMED).group_by_key()
    grouped3 = builder.stream("three", STRING_CONSUMED).group_by_key()
    customers = (grouped1.cogroup(STRING_AGGREGATOR)
                 .cogroup(grouped2, STRING_AGGREGATOR)
                 .cogroup(grouped3, STRING_AGGREGATOR)
                 .aggregate(STRING_INITIALIZER))
    customers.to_stream().to(OUTPUT)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        inp2 = driver.create_input_topic("two", S, S)
        inp3 = driver.create_input_topic("three", S, S)
        out = driver.create_output_topic(OUTPUT, S, S)
        for key, ts in SHARED_ONE:
            inp.pipe_input(key, "A", ts)
        for key, ts in SHARED_TWO[:4]:
            inp2.pipe_input(key, "B", ts)
        for key, ts in SHARED_TWO[4:]:
            inp3.pipe_input(key, "B", ts)
        assert_output(out, "k1", "A", 0)
        assert_output(out, "k2", "A", 1)
        assert_output(out, "k1", "AA", 10)
        assert_output(out, "k2", "AA", 100)
        assert_output(out, "k2", "AAB", 100)
        assert_output(out, "k2", "AABB", 200)
        assert_output(out, "k1", "AAB", 10)
        assert_output(out, "k2", "AABBB", 500)
        assert_output(out, "k1", "AABB", 500)
        assert_output(out, "k2", "AABBBB", 500)
        assert_output(out, "k3", "B", 500)


def test_cogroup_with_k_table_k_table_inner_join():
    builder = ks.StreamsBuilder()
    grouped1 = builder.stream("one", STRING_CONSUMED).group_by_key()
    grouped2 = builder.stream("two", STRING_CONSUMED).group_by_key()
    table1 = (grouped1.cogroup(STRING_AGGREGATOR)
              .cogroup(grouped2, STRING_AGGREGATOR)
              .aggregate(STRING_INITIALIZER, ks.Named.as_("name"), ks.Materialized.as_("store")))
    table2 = builder.table("three", STRING_CONSUMED)
    joined = table1.join(table2, lambda v1, v2: f"{v1}+{v2}", ks.Materialized.with_(S, S))
    joined.to_stream().to(OUTPUT)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("one", S, S)
        inp2 = driver.create_input_topic("two", S, S)
        inp3 = driver.create_input_topic("three", S, S)
        out = driver.create_output_topic(OUTPUT, S, S)
        inp.pipe_input("k1", "A", 5)
        inp2.pipe_input("k2", "B", 6)
        assert out.is_empty()
        inp3.pipe_input("k1", "C", 0)
        inp3.pipe_input("k2", "D", 10)
        assert_output(out, "k1", "A+C", 5)
        assert_output(out, "k2", "B+D", 10)
        assert out.is_empty()
