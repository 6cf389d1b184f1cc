# ruff: noqa: E501 - expected describe() texts are copied verbatim from Kafka
"""describe() of KStreamImplTest programs: to_table, joins on tables from streams, process_values."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()
C = ks.Consumed.with_(S, S)


class Length(ks.FixedKeyProcessor):
    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_value(len(record.value)))


def test_should_materialize_k_table_from_k_stream():
    # KStreamImplTest.shouldMaterializeKTableFromKStream
    b = ks.StreamsBuilder()
    b.stream("input", C).to_table(ks.Materialized.as_(ks.Stores.in_memory_key_value_store("store")))
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> KSTREAM-TOTABLE-0000000001
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [store])
      --> none
      <-- KSTREAM-SOURCE-0000000000

"""


def test_should_support_key_change_k_table_from_k_stream():
    # KStreamImplTest.shouldSupportKeyChangeKTableFromKStream
    b = ks.StreamsBuilder()
    (b.stream("input", C).map(lambda k, v: (ord(k[0]) - 65, v))
     .to_table(ks.Materialized.with_(serdes.Integer(), None)).to_stream().to("output"))
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> KSTREAM-MAP-0000000001
    Processor: KSTREAM-MAP-0000000001 (stores: [])
      --> KSTREAM-FILTER-0000000005
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-FILTER-0000000005 (stores: [])
      --> KSTREAM-SINK-0000000004
      <-- KSTREAM-MAP-0000000001
    Sink: KSTREAM-SINK-0000000004 (topic: KSTREAM-TOTABLE-0000000002-repartition)
      <-- KSTREAM-FILTER-0000000005

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000006 (topics: [KSTREAM-TOTABLE-0000000002-repartition])
      --> KSTREAM-TOTABLE-0000000002
    Processor: KSTREAM-TOTABLE-0000000002 (stores: [])
      --> KTABLE-TOSTREAM-0000000007
      <-- KSTREAM-SOURCE-0000000006
    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])
      --> KSTREAM-SINK-0000000008
      <-- KSTREAM-TOTABLE-0000000002
    Sink: KSTREAM-SINK-0000000008 (topic: output)
      <-- KTABLE-TOSTREAM-0000000007

"""


def test_should_support_foreign_key_table_table_join_with_k_table_from_k_stream():
    # KStreamImplTest.shouldSupportForeignKeyTableTableJoinWithKTableFromKStream
    b = ks.StreamsBuilder()
    left, right = b.stream("input1", C).to_table(), b.stream("input2", C).to_table()
    (left.join(right, lambda v: v.split("|")[1], lambda a, c: f"({a},{c})")
     .to_stream().to("output"))
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KTABLE-SOURCE-0000000016 (topics: [KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017
    Source: KSTREAM-SOURCE-0000000000 (topics: [input1])
      --> KSTREAM-TOTABLE-0000000001
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000002])
      --> KTABLE-FK-JOIN-OUTPUT-0000000018
      <-- KTABLE-SOURCE-0000000016
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000002])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-FK-JOIN-OUTPUT-0000000018 (stores: [])
      --> KTABLE-TOSTREAM-0000000020
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007 (stores: [])
      --> KTABLE-SINK-0000000008
      <-- KSTREAM-TOTABLE-0000000001
    Processor: KTABLE-TOSTREAM-0000000020 (stores: [])
      --> KSTREAM-SINK-0000000021
      <-- KTABLE-FK-JOIN-OUTPUT-0000000018
    Sink: KSTREAM-SINK-0000000021 (topic: output)
      <-- KTABLE-TOSTREAM-0000000020
    Sink: KTABLE-SINK-0000000008 (topic: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic)
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000003 (topics: [input2])
      --> KSTREAM-TOTABLE-0000000004
    Source: KTABLE-SOURCE-0000000009 (topics: [KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011
    Processor: KSTREAM-TOTABLE-0000000004 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000005])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013
      <-- KSTREAM-SOURCE-0000000003
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012
      <-- KTABLE-SOURCE-0000000009
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000005])
      --> KTABLE-SINK-0000000015
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010])
      --> KTABLE-SINK-0000000015
      <-- KSTREAM-TOTABLE-0000000004
    Sink: KTABLE-SINK-0000000015 (topic: KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic)
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012, KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013

"""


def test_should_support_table_table_join_with_k_stream_to_k_table():
    # KStreamImplTest.shouldSupportTableTableJoinWithKStreamToKTable
    b = ks.StreamsBuilder()
    left, right = b.stream("left", C).to_table(), b.stream("right", C).to_table()
    left.join(right, lambda a, c: a + c).to_stream().to("output")
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [left])
      --> KSTREAM-TOTABLE-0000000001
    Source: KSTREAM-SOURCE-0000000003 (topics: [right])
      --> KSTREAM-TOTABLE-0000000004
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000002])
      --> KTABLE-JOINTHIS-0000000007
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-TOTABLE-0000000004 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000005])
      --> KTABLE-JOINOTHER-0000000008
      <-- KSTREAM-SOURCE-0000000003
    Processor: KTABLE-JOINOTHER-0000000008 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000002])
      --> KTABLE-MERGE-0000000006
      <-- KSTREAM-TOTABLE-0000000004
    Processor: KTABLE-JOINTHIS-0000000007 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000005])
      --> KTABLE-MERGE-0000000006
      <-- KSTREAM-TOTABLE-0000000001
    Processor: KTABLE-MERGE-0000000006 (stores: [])
      --> KTABLE-TOSTREAM-0000000009
      <-- KTABLE-JOINTHIS-0000000007, KTABLE-JOINOTHER-0000000008
    Processor: KTABLE-TOSTREAM-0000000009 (stores: [])
      --> KSTREAM-SINK-0000000010
      <-- KTABLE-MERGE-0000000006
    Sink: KSTREAM-SINK-0000000010 (topic: output)
      <-- KTABLE-TOSTREAM-0000000009

"""


def test_should_support_stream_table_join_with_k_stream_to_k_table():
    # KStreamImplTest.shouldSupportStreamTableJoinWithKStreamToKTable
    b = ks.StreamsBuilder()
    stream = b.stream("streamTopic", C)
    stream.join(b.stream("tableTopic", C).to_table(), lambda a, c: a + c).to("output")
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [streamTopic])
      --> KSTREAM-JOIN-0000000004
    Processor: KSTREAM-JOIN-0000000004 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000003])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-SOURCE-0000000000
    Source: KSTREAM-SOURCE-0000000001 (topics: [tableTopic])
      --> KSTREAM-TOTABLE-0000000002
    Sink: KSTREAM-SINK-0000000005 (topic: output)
      <-- KSTREAM-JOIN-0000000004
    Processor: KSTREAM-TOTABLE-0000000002 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000003])
      --> none
      <-- KSTREAM-SOURCE-0000000001

"""


def test_should_support_group_by_count_with_k_stream_to_k_table():
    # KStreamImplTest.shouldSupportGroupByCountWithKStreamToKTable
    b = ks.StreamsBuilder()
    (b.stream("input", C).to_table().group_by(lambda k, v: (v, v), ks.Grouped.with_(S, S))
     .count().to_stream().to("output"))
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> KSTREAM-TOTABLE-0000000001
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [KSTREAM-TOTABLE-STATE-STORE-0000000002])
      --> KTABLE-SELECT-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-SELECT-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-TOTABLE-0000000001
    Sink: KSTREAM-SINK-0000000005 (topic: KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition)
      <-- KTABLE-SELECT-0000000003

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000006 (topics: [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])
      --> KTABLE-AGGREGATE-0000000007
    Processor: KTABLE-AGGREGATE-0000000007 (stores: [KTABLE-AGGREGATE-STATE-STORE-0000000004])
      --> KTABLE-TOSTREAM-0000000008
      <-- KSTREAM-SOURCE-0000000006
    Processor: KTABLE-TOSTREAM-0000000008 (stores: [])
      --> KSTREAM-SINK-0000000009
      <-- KTABLE-AGGREGATE-0000000007
    Sink: KSTREAM-SINK-0000000009 (topic: output)
      <-- KTABLE-TOSTREAM-0000000008

"""


def test_should_support_trigger_materialized_with_k_table_from_k_stream():
    # KStreamImplTest.shouldSupportTriggerMaterializedWithKTableFromKStream
    b = ks.StreamsBuilder()
    (b.stream("input", C).to_table()
     .map_values(lambda v: ord(v[0]) - 97, materialized=ks.Materialized.as_("store")
                 .with_key_serde(S).with_value_serde(serdes.Integer()))
     .to_stream().to("output"))
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> KSTREAM-TOTABLE-0000000001
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [])
      --> KTABLE-MAPVALUES-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-MAPVALUES-0000000003 (stores: [store])
      --> KTABLE-TOSTREAM-0000000004
      <-- KSTREAM-TOTABLE-0000000001
    Processor: KTABLE-TOSTREAM-0000000004 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KTABLE-MAPVALUES-0000000003
    Sink: KSTREAM-SINK-0000000005 (topic: output)
      <-- KTABLE-TOSTREAM-0000000004

"""


def test_should_process_values():
    # KStreamImplTest.shouldProcessValues
    b = ks.StreamsBuilder()
    (b.stream("input", C).process_values(Length, ks.Named.as_("fkp"))
     .to("output", ks.Produced.value_serde(serdes.Integer())))
    assert str(b.build().describe()) == """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> fkp
    Processor: fkp (stores: [])
      --> KSTREAM-SINK-0000000001
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000001 (topic: output)
      <-- fkp

"""
