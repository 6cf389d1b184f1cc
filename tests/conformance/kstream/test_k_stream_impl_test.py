# ruff: noqa: E501 - test names are Kafka's method names; describe() texts are Kafka's verbatim
"""Kafka's ``KStreamImplTest``, translated to kslab's ``KStream`` (all but the parts below).

Mapping: Java's ``NullPointerException`` is ``MissingArgumentError`` (kslab's error is also a
``ks.TopologyError``) with Java's message; ``MockApiProcessorSupplier`` is
``_mock_api_processor.MockApiProcessorSupplier``, a ``KeyValueTimestamp`` a
``(key, value, timestamp)`` tuple; ``MockValueJoiner.TOSTRING_JOINER`` is
``lambda a, b: f"{a}+{b}"``; deprecated ``JoinWindows.of(d)`` is
``JoinWindows.of_time_difference_with_no_grace(d)`` and ``of(d).grace(g)``
``of_time_difference_and_grace(d, g)``; a ``ValueJoinerWithKey`` is ``with_key=True``. Java's
``to(TopicNameExtractor)`` and ``to(String)`` are one Python ``to(topic_or_extractor)``, so a
``None`` there is "topic can't be null" for both. ``shouldUseRecordMetadataTimestampExtractor*``
look at the built ``ProcessorTopology`` (internal) in Java: they become driver tests of what the
``FailOnInvalidTimestamp`` on repartition sources means (a repartition source keeps the record's
timestamp and does not run ``default.timestamp.extractor`` again). The old-``Processor`` tests
(``shouldProcessWithOldProcessorAndState``, ``shouldBindStateWithOldProcessorSupplier``) are
run with kslab's ``Processor``, the same program in the current API.

Not applicable in Python (``None`` for an optional config argument means "the default", as
leaving it out does): ``shouldNotAllowNullNamedOn*``, ``shouldNotAllowNullNameOn*``,
``shouldNotAllowNullPrintedOnPrint``, ``shouldNotAllowNullRepartitionedOnRepartition``,
``shouldNotAllowNullProducedOnTo*``, ``shouldNotAllowNullGroupedOnGroupBy*``,
``shouldNotAllowNullMaterializedOnToTable*``, ``shouldNotAllowNullStreamJoinedOn*``,
``shouldNotAllowNullJoinedOn*``, and ``shouldNotAllowNullStoreNamesOnProcess*`` (a ``null``
varargs array cannot be passed to ``*store_names``).
Skipped (deprecated Transformer APIs, not in kslab): every ``*Transform*`` test, and the
``transform``/``transformValues`` lines of ``shouldPreserveSerdesForOperators``.
"""

from __future__ import annotations

import re

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

S = serdes.String()
STRING_CONSUMED = ks.Consumed.with_(S, S)
PROPS = {"application.id": "kstream-impl-test", "default.key.serde": "string",
         "default.value.serde": "string"}
WINDOWS = ks.JoinWindows.of_time_difference_with_no_grace(10)


def TOSTRING_JOINER(value1, value2):  # Java's MockValueJoiner.TOSTRING_JOINER
    return f"{value1}+{value2}"


def SELECT_VALUE(key, value):  # Java's MockMapper.selectValueMapper()
    return value


class NoOpFixedKeyProcessor(ks.FixedKeyProcessor):
    def process(self, record):
        pass


@pytest.fixture
def builder():
    return ks.StreamsBuilder()


@pytest.fixture
def test_stream(builder):
    return builder.stream("source")


@pytest.fixture
def test_table(builder, test_stream):
    return builder.table("topic")


@pytest.fixture
def test_global_table(builder, test_table):
    return builder.global_table("global")


@pytest.fixture
def processor_supplier():
    return MockApiProcessorSupplier()


@pytest.fixture
def fixed_key_processor_supplier():
    return NoOpFixedKeyProcessor

DESCRIBE_shouldBindStateWithOldProcessor = """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> p
    Processor: p (stores: [])
      --> KSTREAM-SINK-0000000001
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000001 (topic: output)
      <-- p

"""

DESCRIBE_shouldBindStateWithOldProcessorSupplier = """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> p
    Processor: p (stores: [sum])
      --> none
      <-- KSTREAM-SOURCE-0000000000

"""

DESCRIBE_shouldMaterializeKTableFromKStream = """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> KSTREAM-TOTABLE-0000000001
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [store])
      --> none
      <-- KSTREAM-SOURCE-0000000000

"""

DESCRIBE_shouldNotMaterializedKTableFromKStream = """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> KSTREAM-TOTABLE-0000000001
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [])
      --> KTABLE-TOSTREAM-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-TOSTREAM-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000004
      <-- KSTREAM-TOTABLE-0000000001
    Sink: KSTREAM-SINK-0000000004 (topic: output)
      <-- KTABLE-TOSTREAM-0000000003

"""

DESCRIBE_shouldProcessValues = """\
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

DESCRIBE_shouldProcessWithOldProcessorAndState = """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [input])
      --> p
    Processor: p (stores: [sum])
      --> none
      <-- KSTREAM-SOURCE-0000000000

"""

DESCRIBE_shouldSupportForeignKeyTableTableJoinWithKTableFromKStream = """\
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

DESCRIBE_shouldSupportGroupByCountWithKStreamToKTable = """\
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

DESCRIBE_shouldSupportKeyChangeKTableFromKStream = """\
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

DESCRIBE_shouldSupportStreamTableJoinWithKStreamToKTable = """\
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

DESCRIBE_shouldSupportTableTableJoinWithKStreamToKTable = """\
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

DESCRIBE_shouldSupportTriggerMaterializedWithKTableFromKStream = """\
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


def test_should_not_allow_null_predicate_on_filter(test_stream):
    # shouldNotAllowNullPredicateOnFilter
    with pytest.raises(MissingArgumentError) as info:
        test_stream.filter(None)
    assert str(info.value) == "predicate can't be null"


def test_should_not_allow_null_predicate_on_filter_with_named(test_stream):
    # shouldNotAllowNullPredicateOnFilterWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.filter(None, ks.Named.as_("filter"))
    assert str(info.value) == "predicate can't be null"


def test_should_not_allow_null_predicate_on_filter_not(test_stream):
    # shouldNotAllowNullPredicateOnFilterNot
    with pytest.raises(MissingArgumentError) as info:
        test_stream.filter_not(None)
    assert str(info.value) == "predicate can't be null"


def test_should_not_allow_null_predicate_on_filter_not_with_name(test_stream):
    # shouldNotAllowNullPredicateOnFilterNotWithName
    with pytest.raises(MissingArgumentError) as info:
        test_stream.filter_not(None, ks.Named.as_("filter"))
    assert str(info.value) == "predicate can't be null"


def test_should_not_allow_null_mapper_on_select_key(test_stream):
    # shouldNotAllowNullMapperOnSelectKey
    with pytest.raises(MissingArgumentError) as info:
        test_stream.select_key(None)
    assert str(info.value) == "mapper can't be null"


def test_should_not_allow_null_mapper_on_select_key_with_named(test_stream):
    # shouldNotAllowNullMapperOnSelectKeyWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.select_key(None, ks.Named.as_("keySelector"))
    assert str(info.value) == "mapper can't be null"


def test_should_not_allow_null_mapper_on_map(test_stream):
    # shouldNotAllowNullMapperOnMap
    with pytest.raises(MissingArgumentError) as info:
        test_stream.map(None)
    assert str(info.value) == "mapper can't be null"


def test_should_not_allow_null_mapper_on_map_with_named(test_stream):
    # shouldNotAllowNullMapperOnMapWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.map(None, ks.Named.as_("map"))
    assert str(info.value) == "mapper can't be null"


def test_should_not_allow_null_mapper_on_map_values(test_stream):
    # shouldNotAllowNullMapperOnMapValues
    with pytest.raises(MissingArgumentError) as info:
        test_stream.map_values(None)
    assert str(info.value) == "valueMapper can't be null"


def test_should_not_allow_null_mapper_on_map_values_with_key(test_stream):
    # shouldNotAllowNullMapperOnMapValuesWithKey
    with pytest.raises(MissingArgumentError) as info:
        test_stream.map_values(None, with_key=True)
    assert str(info.value) == "valueMapperWithKey can't be null"


def test_should_not_allow_null_mapper_on_map_values_with_named(test_stream):
    # shouldNotAllowNullMapperOnMapValuesWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.map_values(None, ks.Named.as_("valueMapper"))
    assert str(info.value) == "valueMapper can't be null"


def test_should_not_allow_null_mapper_on_map_values_with_key_with_named(test_stream):
    # shouldNotAllowNullMapperOnMapValuesWithKeyWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.map_values(None, ks.Named.as_("valueMapperWithKey"), with_key=True)
    assert str(info.value) == "valueMapperWithKey can't be null"


def test_should_not_allow_null_mapper_on_flat_map(test_stream):
    # shouldNotAllowNullMapperOnFlatMap
    with pytest.raises(MissingArgumentError) as info:
        test_stream.flat_map(None)
    assert str(info.value) == "mapper can't be null"


def test_should_not_allow_null_mapper_on_flat_map_with_named(test_stream):
    # shouldNotAllowNullMapperOnFlatMapWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.flat_map(None, ks.Named.as_("flatMapper"))
    assert str(info.value) == "mapper can't be null"


def test_should_not_allow_null_mapper_on_flat_map_values(test_stream):
    # shouldNotAllowNullMapperOnFlatMapValues
    with pytest.raises(MissingArgumentError) as info:
        test_stream.flat_map_values(None)
    assert str(info.value) == "valueMapper can't be null"


def test_should_not_allow_null_mapper_on_flat_map_values_with_key(test_stream):
    # shouldNotAllowNullMapperOnFlatMapValuesWithKey
    with pytest.raises(MissingArgumentError) as info:
        test_stream.flat_map_values(None, with_key=True)
    assert str(info.value) == "valueMapper can't be null"


def test_should_not_allow_null_mapper_on_flat_map_values_with_named(test_stream):
    # shouldNotAllowNullMapperOnFlatMapValuesWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.flat_map_values(None, ks.Named.as_("flatValueMapper"))
    assert str(info.value) == "valueMapper can't be null"


def test_should_not_allow_null_mapper_on_flat_map_values_with_key_with_named(test_stream):
    # shouldNotAllowNullMapperOnFlatMapValuesWithKeyWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.flat_map_values(None, ks.Named.as_("flatValueMapperWithKey"), with_key=True)
    assert str(info.value) == "valueMapper can't be null"


def test_should_not_allow_null_action_on_for_each(test_stream):
    # shouldNotAllowNullActionOnForEach
    with pytest.raises(MissingArgumentError) as info:
        test_stream.foreach(None)
    assert str(info.value) == "action can't be null"


def test_should_not_allow_null_action_on_for_each_with_name(test_stream):
    # shouldNotAllowNullActionOnForEachWithName
    with pytest.raises(MissingArgumentError) as info:
        test_stream.foreach(None, ks.Named.as_("foreach"))
    assert str(info.value) == "action can't be null"


def test_should_not_allow_null_action_on_peek(test_stream):
    # shouldNotAllowNullActionOnPeek
    with pytest.raises(MissingArgumentError) as info:
        test_stream.peek(None)
    assert str(info.value) == "action can't be null"


def test_should_not_allow_null_action_on_peek_with_name(test_stream):
    # shouldNotAllowNullActionOnPeekWithName
    with pytest.raises(MissingArgumentError) as info:
        test_stream.peek(None, ks.Named.as_("peek"))
    assert str(info.value) == "action can't be null"


def test_should_not_allow_null_kstream_on_merge(test_stream):
    # shouldNotAllowNullKStreamOnMerge
    with pytest.raises(MissingArgumentError) as info:
        test_stream.merge(None)
    assert str(info.value) == "stream can't be null"


def test_should_not_allow_null_kstream_on_merge_with_named(test_stream):
    # shouldNotAllowNullKStreamOnMergeWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.merge(None, ks.Named.as_("merge"))
    assert str(info.value) == "stream can't be null"


def test_should_not_allow_null_topic_on_to(test_stream):
    # shouldNotAllowNullTopicOnTo
    with pytest.raises(MissingArgumentError) as info:
        test_stream.to(None)
    assert str(info.value) == "topic can't be null"


def test_should_not_allow_null_topic_on_to_with_produced(test_stream):
    # shouldNotAllowNullTopicOnToWithProduced
    with pytest.raises(MissingArgumentError) as info:
        test_stream.to(None, ks.Produced.as_("to"))
    assert str(info.value) == "topic can't be null"


def test_should_not_allow_null_selector_on_group_by(test_stream):
    # shouldNotAllowNullSelectorOnGroupBy
    with pytest.raises(MissingArgumentError) as info:
        test_stream.group_by(None)
    assert str(info.value) == "keySelector can't be null"


def test_should_not_allow_null_selector_on_group_by_with_grouped(test_stream):
    # shouldNotAllowNullSelectorOnGroupByWithGrouped
    with pytest.raises(MissingArgumentError) as info:
        test_stream.group_by(None, ks.Grouped.as_("name"))
    assert str(info.value) == "keySelector can't be null"


def test_should_not_allow_null_other_stream_on_join(test_stream):
    # shouldNotAllowNullOtherStreamOnJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(None, TOSTRING_JOINER, WINDOWS)
    assert str(info.value) == "otherStream can't be null"


def test_should_not_allow_null_other_stream_on_join_with_stream_joined(test_stream):
    # shouldNotAllowNullOtherStreamOnJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(None, TOSTRING_JOINER, WINDOWS, ks.StreamJoined.as_("name"))
    assert str(info.value) == "otherStream can't be null"


def test_should_not_allow_null_value_joiner_on_join(test_stream):
    # shouldNotAllowNullValueJoinerOnJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_stream, None, WINDOWS)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_join(test_stream):
    # shouldNotAllowNullValueJoinerWithKeyOnJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_stream, None, WINDOWS, with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_on_join_with_stream_joined(test_stream):
    # shouldNotAllowNullValueJoinerOnJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_stream, None, WINDOWS, ks.StreamJoined.as_("name"))
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_join_with_stream_joined(test_stream):
    # shouldNotAllowNullValueJoinerWithKeyOnJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_stream, None, WINDOWS, ks.StreamJoined.as_("name"), with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_join_windows_on_join(test_stream):
    # shouldNotAllowNullJoinWindowsOnJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_stream, TOSTRING_JOINER, None)
    assert str(info.value) == "windows can't be null"


def test_should_not_allow_null_join_windows_on_join_with_stream_joined(test_stream):
    # shouldNotAllowNullJoinWindowsOnJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_stream, TOSTRING_JOINER, None, ks.StreamJoined.as_("name"))
    assert str(info.value) == "windows can't be null"


def test_should_not_allow_null_other_stream_on_left_join(test_stream):
    # shouldNotAllowNullOtherStreamOnLeftJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(None, TOSTRING_JOINER, WINDOWS)
    assert str(info.value) == "otherStream can't be null"


def test_should_not_allow_null_other_stream_on_left_join_with_stream_joined(test_stream):
    # shouldNotAllowNullOtherStreamOnLeftJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(None, TOSTRING_JOINER, WINDOWS, ks.StreamJoined.as_("name"))
    assert str(info.value) == "otherStream can't be null"


def test_should_not_allow_null_value_joiner_on_left_join(test_stream):
    # shouldNotAllowNullValueJoinerOnLeftJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_stream, None, WINDOWS)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_left_join(test_stream):
    # shouldNotAllowNullValueJoinerWithKeyOnLeftJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_stream, None, WINDOWS, with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_on_left_join_with_stream_joined(test_stream):
    # shouldNotAllowNullValueJoinerOnLeftJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_stream, None, WINDOWS, ks.StreamJoined.as_("name"))
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_left_join_with_stream_joined(test_stream):
    # shouldNotAllowNullValueJoinerWithKeyOnLeftJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_stream, None, WINDOWS, ks.StreamJoined.as_("name"), with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_join_windows_on_left_join(test_stream):
    # shouldNotAllowNullJoinWindowsOnLeftJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_stream, TOSTRING_JOINER, None)
    assert str(info.value) == "windows can't be null"


def test_should_not_allow_null_join_windows_on_left_join_with_stream_joined(test_stream):
    # shouldNotAllowNullJoinWindowsOnLeftJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_stream, TOSTRING_JOINER, None, ks.StreamJoined.as_("name"))
    assert str(info.value) == "windows can't be null"


def test_should_not_allow_null_other_stream_on_outer_join(test_stream):
    # shouldNotAllowNullOtherStreamOnOuterJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(None, TOSTRING_JOINER, WINDOWS)
    assert str(info.value) == "otherStream can't be null"


def test_should_not_allow_null_other_stream_on_outer_join_with_stream_joined(test_stream):
    # shouldNotAllowNullOtherStreamOnOuterJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(None, TOSTRING_JOINER, WINDOWS, ks.StreamJoined.as_("name"))
    assert str(info.value) == "otherStream can't be null"


def test_should_not_allow_null_value_joiner_on_outer_join(test_stream):
    # shouldNotAllowNullValueJoinerOnOuterJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(test_stream, None, WINDOWS)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_outer_join(test_stream):
    # shouldNotAllowNullValueJoinerWithKeyOnOuterJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(test_stream, None, WINDOWS, with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_on_outer_join_with_stream_joined(test_stream):
    # shouldNotAllowNullValueJoinerOnOuterJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(test_stream, None, WINDOWS, ks.StreamJoined.as_("name"))
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_outer_join_with_stream_joined(test_stream):
    # shouldNotAllowNullValueJoinerWithKeyOnOuterJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(test_stream, None, WINDOWS, ks.StreamJoined.as_("name"), with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_join_windows_on_outer_join(test_stream):
    # shouldNotAllowNullJoinWindowsOnOuterJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(test_stream, TOSTRING_JOINER, None)
    assert str(info.value) == "windows can't be null"


def test_should_not_allow_null_join_windows_on_outer_join_with_stream_joined(test_stream):
    # shouldNotAllowNullJoinWindowsOnOuterJoinWithStreamJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.outer_join(test_stream, TOSTRING_JOINER, None, ks.StreamJoined.as_("name"))
    assert str(info.value) == "windows can't be null"


def test_should_not_allow_null_table_on_table_join(test_stream):
    # shouldNotAllowNullTableOnTableJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(None, TOSTRING_JOINER)
    assert str(info.value) == "table can't be null"


def test_should_not_allow_null_table_on_table_join_with_joiner(test_stream):
    # shouldNotAllowNullTableOnTableJoinWithJoiner
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(None, TOSTRING_JOINER, ks.Joined.as_("name"))
    assert str(info.value) == "table can't be null"


def test_should_not_allow_null_value_joiner_on_table_join(test_stream, test_table):
    # shouldNotAllowNullValueJoinerOnTableJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_table, None)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_table_join(test_stream, test_table):
    # shouldNotAllowNullValueJoinerWithKeyOnTableJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_table, None, with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_on_table_join_with_joiner(test_stream, test_table):
    # shouldNotAllowNullValueJoinerOnTableJoinWithJoiner
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_table, None, ks.Joined.as_("name"))
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_table_join_with_joiner(test_stream, test_table):
    # shouldNotAllowNullValueJoinerWithKeyOnTableJoinWithJoiner
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_table, None, ks.Joined.as_("name"), with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_table_on_table_left_join(test_stream):
    # shouldNotAllowNullTableOnTableLeftJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(None, TOSTRING_JOINER)
    assert str(info.value) == "table can't be null"


def test_should_not_allow_null_table_on_table_left_join_with_joined(test_stream):
    # shouldNotAllowNullTableOnTableLeftJoinWithJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(None, TOSTRING_JOINER, ks.Joined.as_("name"))
    assert str(info.value) == "table can't be null"


def test_should_not_allow_null_value_joiner_on_table_left_join(test_stream, test_table):
    # shouldNotAllowNullValueJoinerOnTableLeftJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_table, None)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_table_left_join(test_stream, test_table):
    # shouldNotAllowNullValueJoinerWithKeyOnTableLeftJoin
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_table, None, with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_on_table_left_join_with_joined(test_stream, test_table):
    # shouldNotAllowNullValueJoinerOnTableLeftJoinWithJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_table, None, ks.Joined.as_("name"))
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_table_left_join_with_joined(test_stream, test_table):
    # shouldNotAllowNullValueJoinerWithKeyOnTableLeftJoinWithJoined
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_table, None, ks.Joined.as_("name"), with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_table_on_join_with_global_table(test_stream):
    # shouldNotAllowNullTableOnJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(None, SELECT_VALUE, TOSTRING_JOINER)
    assert str(info.value) == "globalTable can't be null"


def test_should_not_allow_null_table_on_join_with_global_table_with_named(test_stream):
    # shouldNotAllowNullTableOnJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(None, SELECT_VALUE, TOSTRING_JOINER, ks.Named.as_("name"))
    assert str(info.value) == "globalTable can't be null"


def test_should_not_allow_null_mapper_on_join_with_global_table(test_stream, test_global_table):
    # shouldNotAllowNullMapperOnJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_global_table, None, TOSTRING_JOINER)
    assert str(info.value) == "keySelector can't be null"


def test_should_not_allow_null_mapper_on_join_with_global_table_with_named(test_stream, test_global_table):
    # shouldNotAllowNullMapperOnJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_global_table, None, TOSTRING_JOINER, ks.Named.as_("name"))
    assert str(info.value) == "keySelector can't be null"


def test_should_not_allow_null_value_joiner_on_join_with_global_table(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerOnJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_global_table, SELECT_VALUE, None)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_join_with_global_table(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerWithKeyOnJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_global_table, SELECT_VALUE, None, with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_on_join_with_global_table_with_named(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerOnJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_global_table, SELECT_VALUE, None, ks.Named.as_("name"))
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_join_with_global_table_with_named(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerWithKeyOnJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.join(test_global_table, SELECT_VALUE, None, ks.Named.as_("name"), with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_table_on_left_join_with_global_table(test_stream):
    # shouldNotAllowNullTableOnLeftJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(None, SELECT_VALUE, TOSTRING_JOINER)
    assert str(info.value) == "globalTable can't be null"


def test_should_not_allow_null_table_on_left_join_with_global_table_with_named(test_stream):
    # shouldNotAllowNullTableOnLeftJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(None, SELECT_VALUE, TOSTRING_JOINER, ks.Named.as_("name"))
    assert str(info.value) == "globalTable can't be null"


def test_should_not_allow_null_mapper_on_left_join_with_global_table(test_stream, test_global_table):
    # shouldNotAllowNullMapperOnLeftJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_global_table, None, TOSTRING_JOINER)
    assert str(info.value) == "keySelector can't be null"


def test_should_not_allow_null_mapper_on_left_join_with_global_table_with_named(test_stream, test_global_table):
    # shouldNotAllowNullMapperOnLeftJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_global_table, None, TOSTRING_JOINER, ks.Named.as_("name"))
    assert str(info.value) == "keySelector can't be null"


def test_should_not_allow_null_value_joiner_on_left_join_with_global_table(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerOnLeftJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_global_table, SELECT_VALUE, None)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_left_join_with_global_table(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerWithKeyOnLeftJoinWithGlobalTable
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_global_table, SELECT_VALUE, None, with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_on_left_join_with_global_table_with_named(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerOnLeftJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_global_table, SELECT_VALUE, None, ks.Named.as_("name"))
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_value_joiner_with_key_on_left_join_with_global_table_with_named(test_stream, test_global_table):
    # shouldNotAllowNullValueJoinerWithKeyOnLeftJoinWithGlobalTableWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.left_join(test_global_table, SELECT_VALUE, None, ks.Named.as_("name"), with_key=True)
    assert str(info.value) == "joiner can't be null"


def test_should_not_allow_null_process_supplier_on_process(test_stream):
    # shouldNotAllowNullProcessSupplierOnProcess
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(None)
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_process_supplier_on_process_with_stores(test_stream):
    # shouldNotAllowNullProcessSupplierOnProcessWithStores
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(None, "storeName")
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_store_name_on_process(test_stream):
    # shouldNotAllowNullStoreNameOnProcess
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(processor_supplier, None)
    assert str(info.value) == "stateStoreNames can't be null"


def test_should_not_allow_null_store_name_on_process_with_named(test_stream):
    # shouldNotAllowNullStoreNameOnProcessWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(processor_supplier, ks.Named.as_("processor"), None)
    assert str(info.value) == "stateStoreNames can't be null"


def test_should_not_allow_null_process_values_supplier_on_process(test_stream):
    # shouldNotAllowNullProcessValuesSupplierOnProcess
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process_values(None)
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_process_supplier_on_process_values_with_stores(test_stream):
    # shouldNotAllowNullProcessSupplierOnProcessValuesWithStores
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process_values(None, "storeName")
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_store_name_on_process_values(test_stream):
    # shouldNotAllowNullStoreNameOnProcessValues
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process_values(fixed_key_processor_supplier, None)
    assert str(info.value) == "stateStoreNames can't be null"


def test_should_not_allow_null_store_name_on_process_values_with_named(test_stream):
    # shouldNotAllowNullStoreNameOnProcessValuesWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process_values(fixed_key_processor_supplier, ks.Named.as_("processor"), None)
    assert str(info.value) == "stateStoreNames can't be null"


def test_should_not_allow_null_process_supplier_on_process_with_named(test_stream):
    # shouldNotAllowNullProcessSupplierOnProcessWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(None, ks.Named.as_("processor"))
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_process_supplier_on_process_with_named_and_stores(test_stream):
    # shouldNotAllowNullProcessSupplierOnProcessWithNamedAndStores
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(None, ks.Named.as_("processor"), "stateStore")
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_process_supplier_on_process_values_with_named(test_stream):
    # shouldNotAllowNullProcessSupplierOnProcessValuesWithNamed
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(None, ks.Named.as_("processor"))
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_process_supplier_on_process_values_with_named_and_stores(test_stream):
    # shouldNotAllowNullProcessSupplierOnProcessValuesWithNamedAndStores
    with pytest.raises(MissingArgumentError) as info:
        test_stream.process(None, ks.Named.as_("processor"), "stateStore")
    assert str(info.value) == "processorSupplier can't be null"


def test_should_not_allow_null_topic_chooser_on_to(test_stream):
    # shouldNotAllowNullTopicChooserOnTo (Java: "topicExtractor can't be null"; one Python to())
    with pytest.raises(MissingArgumentError) as info:
        test_stream.to(None)
    assert str(info.value).endswith("can't be null")


def test_should_not_allow_null_topic_chooser_on_to_with_produced(test_stream):
    # shouldNotAllowNullTopicChooserOnToWithProduced
    with pytest.raises(MissingArgumentError) as info:
        test_stream.to(None, ks.Produced.as_("to"))
    assert str(info.value).endswith("can't be null")


def test_should_preserve_serdes_for_operators():
    # shouldPreserveSerdesForOperators
    builder = ks.StreamsBuilder()
    consumed_key, consumed_value = serdes.String(), serdes.String()
    consumed = ks.Consumed.with_(consumed_key, consumed_value)
    stream1 = builder.stream(["topic-1"], consumed)
    table1 = builder.table("topic-2", consumed)
    table2 = builder.global_table("topic-2", consumed)
    my_serde = serdes.String()

    def selector(key, value):
        return key

    def flat_selector(key, value):
        return [(key, value)]

    def mapper(value):
        return value

    def flat_mapper(value):
        return [value]

    def joiner(value1, value2):
        return value1

    def serdes_of(stream):
        return stream.key_serde, stream.value_serde

    assert serdes_of(stream1.filter(lambda k, v: False)) == (consumed_key, consumed_value)
    assert serdes_of(stream1.filter_not(lambda k, v: False)) == (consumed_key, consumed_value)
    assert stream1.select_key(selector).key_serde is None
    assert stream1.select_key(selector).value_serde is consumed_value
    assert serdes_of(stream1.map(lambda k, v: (k, v))) == (None, None)
    assert stream1.map_values(mapper).key_serde is consumed_key
    assert stream1.map_values(mapper).value_serde is None
    assert serdes_of(stream1.flat_map(flat_selector)) == (None, None)
    assert stream1.flat_map_values(flat_mapper).key_serde is consumed_key
    assert stream1.flat_map_values(flat_mapper).value_serde is None
    assert serdes_of(stream1.merge(stream1)) == (None, None)

    assert stream1.repartition().key_serde is consumed_key
    assert stream1.repartition().value_serde is consumed_value
    repartitioned = ks.Repartitioned.with_(my_serde, my_serde)
    assert stream1.repartition(repartitioned).key_serde is my_serde
    assert stream1.repartition(repartitioned).value_serde is my_serde

    assert stream1.group_by_key().key_serde is consumed_key
    assert stream1.group_by_key().value_serde is consumed_value
    assert stream1.group_by_key(ks.Grouped.with_(my_serde, my_serde)).key_serde is my_serde
    assert stream1.group_by_key(ks.Grouped.with_(my_serde, my_serde)).value_serde is my_serde
    assert stream1.group_by(selector).key_serde is None
    assert stream1.group_by(selector).value_serde is consumed_value
    assert stream1.group_by(selector, ks.Grouped.with_(my_serde, my_serde)).key_serde is my_serde
    assert stream1.group_by(selector, ks.Grouped.with_(my_serde, my_serde)).value_serde is my_serde

    windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    stream_joined = ks.StreamJoined.with_(my_serde, my_serde, my_serde)
    for op in (stream1.join, stream1.left_join, stream1.outer_join):
        assert serdes_of(op(stream1, joiner, windows)) == (None, None)
        assert op(stream1, joiner, windows, stream_joined).key_serde is my_serde
        assert op(stream1, joiner, windows, stream_joined).value_serde is None

    joined = ks.Joined.with_(my_serde, my_serde, my_serde)
    for op in (stream1.join, stream1.left_join):
        assert op(table1, joiner).key_serde is consumed_key
        assert op(table1, joiner).value_serde is None
        assert op(table1, joiner, joined).key_serde is my_serde
        assert op(table1, joiner, joined).value_serde is None
        assert op(table2, selector, joiner).key_serde is consumed_key
        assert op(table2, selector, joiner).value_serde is None




def plus_one_extractor(record, partition_time):
    """A ``default.timestamp.extractor`` that moves every timestamp it reads by 1 ms."""
    return record.timestamp + 1


def test_should_use_record_metadata_timestamp_extractor_with_repartition():
    # shouldUseRecordMetadataTimestampExtractorWithRepartition
    builder = ks.StreamsBuilder()
    stream1 = builder.stream(["topic-1", "topic-2"], STRING_CONSUMED)
    stream2 = builder.stream(["topic-3", "topic-4"], STRING_CONSUMED)
    stream1.to("topic-5")
    supplier = MockApiProcessorSupplier()
    stream2.repartition(ks.Repartitioned.as_("topic-6")).process(supplier)
    config = {"application.id": "X", "default.timestamp.extractor": plus_one_extractor}
    with ks.TopologyTestDriver(builder.build(), config) as driver:
        driver.create_input_topic("topic-1", S, S).pipe_input("a", "b", 10)
        driver.create_input_topic("topic-4", S, S).pipe_input("a", "b", 10)
        # user sources use the default extractor (Java: no extractor of their own)
        assert driver.create_output_topic("topic-5", S, S).read_record().timestamp == 11
    # the repartition source reads the record's own timestamp (Java: FailOnInvalidTimestamp)
    assert [ts for _, _, ts in supplier.the_captured_processor().processed] == [11]


def join_through_repartition(builder, grace_ms):
    window_size = 24 * 60 * 60 * 1000
    k_stream = builder.stream("topic-1", STRING_CONSUMED)
    stream = k_stream.map(lambda key, value: (value, value))
    stream.join(k_stream, lambda value1, value2: f"{value1}:{value2}",
                ks.JoinWindows.of_time_difference_and_grace(window_size, grace_ms),
                ks.StreamJoined.with_(S, S, S)).to("output-topic", ks.Produced.with_(S, S))


def check_join_timestamps(builder):
    config = {"application.id": "X", "default.timestamp.extractor": plus_one_extractor}
    with ks.TopologyTestDriver(builder.build(), config) as driver:
        driver.create_input_topic("topic-1", S, S).pipe_input("a", "a", 10)
        out = driver.create_output_topic("output-topic", S, S)
        # "topic-1" is read with the default extractor (11); the repartitioned side keeps 11
        assert out.read_records_to_list() == [ks.TestRecord("a", "a:a", 11)]


def test_should_use_record_metadata_timestamp_extractor_when_internal_repartitioning_topic_created_with_retention():
    # shouldUseRecordMetadataTimestampExtractorWhenInternalRepartitioningTopicCreatedWithRetention
    builder = ks.StreamsBuilder()
    join_through_repartition(builder, 3 * 24 * 60 * 60 * 1000)
    check_join_timestamps(builder)


def test_should_use_record_metadata_timestamp_extractor_when_internal_repartitioning_topic_created():
    # shouldUseRecordMetadataTimestampExtractorWhenInternalRepartitioningTopicCreated
    builder = ks.StreamsBuilder()
    join_through_repartition(builder, 3 * 24 * 60 * 60 * 1000)
    check_join_timestamps(builder)


def test_should_send_data_through_repartition_topic_using_repartitioned(processor_supplier):
    # shouldSendDataThroughRepartitionTopicUsingRepartitioned
    builder = ks.StreamsBuilder()
    stream = builder.stream("topic", STRING_CONSUMED)
    stream.repartition(ks.Repartitioned.with_(S, S)).process(processor_supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        driver.create_input_topic("topic", S, S, 0, 0).pipe_input("a", "b")
    assert processor_supplier.the_captured_processor().processed == [("a", "b", 0)]


def test_should_send_data_to_topic_using_produced(processor_supplier):
    # shouldSendDataToTopicUsingProduced
    builder = ks.StreamsBuilder()
    stream = builder.stream("topic", STRING_CONSUMED)
    stream.to("to-topic", ks.Produced.with_(S, S))
    builder.stream("to-topic", STRING_CONSUMED).process(processor_supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        driver.create_input_topic("topic", S, S, 0, 0).pipe_input("e", "f")
    assert processor_supplier.the_captured_processor().processed == [("e", "f", 0)]


def test_should_send_data_to_dynamic_topics(processor_supplier):
    # shouldSendDataToDynamicTopics
    builder = ks.StreamsBuilder()
    topic = "topic"
    stream = builder.stream(topic, STRING_CONSUMED)
    stream.to(lambda key, value, context: f"{context.topic}-{key}-{value[0]}",
              ks.Produced.with_(S, S))
    builder.stream(topic + "-a-v", STRING_CONSUMED).process(processor_supplier)
    builder.stream(topic + "-b-v", STRING_CONSUMED).process(processor_supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(topic, S, S, 0, 0)
        inp.pipe_input("a", "v1")
        inp.pipe_input("a", "v2")
        inp.pipe_input("b", "v1")
    mock_processors = processor_supplier.captured_processors(2)
    assert mock_processors[0].processed == [("a", "v1", 0), ("a", "v2", 0)]
    assert mock_processors[1].processed == [("b", "v1", 0)]


def test_should_propagate_repartition_flag_after_global_k_table_join():
    # shouldPropagateRepartitionFlagAfterGlobalKTableJoin
    builder = ks.StreamsBuilder()
    global_k_table = builder.global_table("globalTopic")
    (builder.stream("topic").select_key(lambda k, v: v)
     .join(global_k_table, lambda k, v: k + v, lambda v1, v2: v1 + v2)
     .group_by_key()
     .count())
    topology = str(builder.build().describe())
    match = re.search(r"Sink: .*-repartition", topology)
    assert match is not None
    assert match.group().endswith("repartition")


def test_should_merge_two_streams(builder, processor_supplier):
    # shouldMergeTwoStreams
    source1 = builder.stream("topic-1")
    source2 = builder.stream("topic-2")
    source1.merge(source2).process(processor_supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        input_topic1 = driver.create_input_topic("topic-1", S, S, 0, 0)
        input_topic2 = driver.create_input_topic("topic-2", S, S, 0, 0)
        input_topic1.pipe_input("A", "aa")
        input_topic2.pipe_input("B", "bb")
        input_topic2.pipe_input("C", "cc")
        input_topic1.pipe_input("D", "dd")
    assert processor_supplier.the_captured_processor().processed == [
        ("A", "aa", 0), ("B", "bb", 0), ("C", "cc", 0), ("D", "dd", 0)]


def test_should_merge_multiple_streams(builder, processor_supplier):
    # shouldMergeMultipleStreams
    sources = [builder.stream(f"topic-{i}") for i in range(1, 5)]
    merged = sources[0].merge(sources[1]).merge(sources[2]).merge(sources[3])
    merged.process(processor_supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inputs = {i: driver.create_input_topic(f"topic-{i}", S, S, 0, 0) for i in range(1, 5)}
        inputs[1].pipe_input("A", "aa", 1)
        inputs[2].pipe_input("B", "bb", 9)
        inputs[3].pipe_input("C", "cc", 2)
        inputs[4].pipe_input("D", "dd", 8)
        inputs[4].pipe_input("E", "ee", 3)
        inputs[3].pipe_input("F", "ff", 7)
        inputs[2].pipe_input("G", "gg", 4)
        inputs[1].pipe_input("H", "hh", 6)
    assert processor_supplier.the_captured_processor().processed == [
        ("A", "aa", 1), ("B", "bb", 9), ("C", "cc", 2), ("D", "dd", 8), ("E", "ee", 3),
        ("F", "ff", 7), ("G", "gg", 4), ("H", "hh", 6)]


def test_should_process_from_source_that_match_pattern(builder, processor_supplier):
    # shouldProcessFromSourceThatMatchPattern
    builder.stream(re.compile(r"topic-\d")).process(processor_supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        for topic, key, value, ts in [("topic-3", "A", "aa", 1), ("topic-4", "B", "bb", 5),
                                      ("topic-5", "C", "cc", 10), ("topic-6", "D", "dd", 8),
                                      ("topic-7", "E", "ee", 3)]:
            driver.create_input_topic(topic, S, S, 0, 0).pipe_input(key, value, ts)
    assert processor_supplier.the_captured_processor().processed == [
        ("A", "aa", 1), ("B", "bb", 5), ("C", "cc", 10), ("D", "dd", 8), ("E", "ee", 3)]


def test_should_process_from_sources_that_match_multiple_pattern(builder, processor_supplier):
    # shouldProcessFromSourcesThatMatchMultiplePattern
    topic3 = "topic-without-pattern"
    pattern2_source1 = builder.stream(re.compile(r"topic-\d"))
    pattern2_source2 = builder.stream(re.compile(r"topic-[A-Z]"))
    source3 = builder.stream(topic3)
    pattern2_source1.merge(pattern2_source2).merge(source3).process(processor_supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topics = {t: driver.create_input_topic(t, S, S, 0, 0)
                  for t in ("topic-3", "topic-4", "topic-A", "topic-Z", topic3)}
        topics["topic-3"].pipe_input("A", "aa", 1)
        topics["topic-4"].pipe_input("B", "bb", 5)
        topics["topic-A"].pipe_input("C", "cc", 10)
        topics["topic-Z"].pipe_input("D", "dd", 8)
        topics[topic3].pipe_input("E", "ee", 3)
    assert processor_supplier.the_captured_processor().processed == [
        ("A", "aa", 1), ("B", "bb", 5), ("C", "cc", 10), ("D", "dd", 8), ("E", "ee", 3)]


def test_should_not_materialized_k_table_from_k_stream():
    # shouldNotMaterializedKTableFromKStream
    builder = ks.StreamsBuilder()
    builder.stream("input", STRING_CONSUMED).to_table().to_stream().to("output")
    assert str(builder.build().describe()) == DESCRIBE_shouldNotMaterializedKTableFromKStream
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        input_topic = driver.create_input_topic("input", S, S)
        output_topic = driver.create_output_topic("output", S, S)
        for key, value, ts in INPUTS_01_TO_06:
            input_topic.pipe_input(key, value, ts)
        assert output_topic.read_records_to_list() == [
            ks.TestRecord(key, value, ts) for key, value, ts in INPUTS_01_TO_06]


INPUTS_01_TO_06 = [("A", "01", 5), ("B", "02", 100), ("C", "03", 0), ("D", "04", 0),
                   ("A", "05", 10), ("A", "06", 8)]
LENGTH_INPUTS = [("A", "0", 5), ("B", "00", 100), ("C", "000", 0), ("D", "0000", 0),
                 ("A", "00000", 10), ("A", "000000", 8)]


class SumProcessor(ks.Processor):
    """Java's old-API processor: adds value lengths per key in the "sum" store."""

    def init(self, context):
        self.sum_store = context.get_state_store("sum")

    def process(self, record):
        counter = self.sum_store.get(record.key)
        if counter is None:
            self.sum_store.put_if_absent(record.key, len(record.value))
        elif record.value is None:
            self.sum_store.delete(record.key)
        else:
            self.sum_store.put(record.key, counter + len(record.value))


def sum_store_builder():
    return ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("sum"), S,
                                             serdes.Integer())


def check_sums(builder):
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        input_topic = driver.create_input_topic("input", S, S)
        for key, value, ts in LENGTH_INPUTS:
            input_topic.pipe_input(key, value, ts)
        sum_store = driver.get_key_value_store("sum")
        assert sum_store.get("A") == 12
        assert sum_store.get("B") == 2
        assert sum_store.get("C") == 3
        assert sum_store.get("D") == 4


def test_should_process_with_old_processor_and_state():
    # shouldProcessWithOldProcessorAndState
    builder = ks.StreamsBuilder()
    builder.add_state_store(sum_store_builder())
    builder.stream("input", STRING_CONSUMED).process(SumProcessor, ks.Named.as_("p"), "sum")
    assert str(builder.build().describe()) == DESCRIBE_shouldProcessWithOldProcessorAndState
    check_sums(builder)


class SumSupplier:
    """A processor supplier that declares its store (Java's ``ConnectedStoreProvider``)."""

    def __call__(self):
        return SumProcessor()

    def stores(self):
        return {sum_store_builder()}


def test_should_bind_state_with_old_processor_supplier():
    # shouldBindStateWithOldProcessorSupplier
    builder = ks.StreamsBuilder()
    builder.stream("input", STRING_CONSUMED).process(SumSupplier(), ks.Named.as_("p"))
    assert str(builder.build().describe()) == DESCRIBE_shouldBindStateWithOldProcessorSupplier
    check_sums(builder)


def check_lengths(builder):
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        input_topic = driver.create_input_topic("input", S, S)
        output_topic = driver.create_output_topic("output", S, serdes.Integer())
        for key, value, ts in LENGTH_INPUTS:
            input_topic.pipe_input(key, value, ts)
        assert output_topic.read_records_to_list() == [
            ks.TestRecord(key, len(value), ts) for key, value, ts in LENGTH_INPUTS]


class LengthProcessor(ks.Processor):
    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_value(len(record.value)))


class LengthFixedKeyProcessor(ks.FixedKeyProcessor):
    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_value(len(record.value)))


def test_should_bind_state_with_old_processor():
    # shouldBindStateWithOldProcessor
    builder = ks.StreamsBuilder()
    (builder.stream("input", STRING_CONSUMED)
     .process(LengthProcessor, ks.Named.as_("p"))
     .to("output", ks.Produced.value_serde(serdes.Integer())))
    assert str(builder.build().describe()) == DESCRIBE_shouldBindStateWithOldProcessor
    check_lengths(builder)


def test_should_process_values():
    # shouldProcessValues
    builder = ks.StreamsBuilder()
    (builder.stream("input", STRING_CONSUMED)
     .process_values(LengthFixedKeyProcessor, ks.Named.as_("fkp"))
     .to("output", ks.Produced.value_serde(serdes.Integer())))
    assert str(builder.build().describe()) == DESCRIBE_shouldProcessValues
    check_lengths(builder)


def as_map(store):
    with store.all() as it:
        return {kv.key: kv.value for kv in it}


def test_should_materialize_k_table_from_k_stream():
    # shouldMaterializeKTableFromKStream
    builder = ks.StreamsBuilder()
    builder.stream("input", STRING_CONSUMED).to_table(
        ks.Materialized.as_(ks.Stores.in_memory_key_value_store("store")))
    topology = builder.build()
    assert str(topology.describe()) == DESCRIBE_shouldMaterializeKTableFromKStream
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        input_topic = driver.create_input_topic("input", S, S)
        store = driver.get_key_value_store("store")
        input_topic.pipe_input("A", "01")
        input_topic.pipe_input("B", "02")
        input_topic.pipe_input("A", "03")
        assert as_map(store) == {"A": "03", "B": "02"}


def test_should_support_key_change_k_table_from_k_stream():
    # shouldSupportKeyChangeKTableFromKStream
    builder = ks.StreamsBuilder()
    (builder.stream("input", STRING_CONSUMED)
     .map(lambda key, value: (ord(key[0]) - ord("A"), value))
     .to_table(ks.Materialized.with_(serdes.Integer(), None))
     .to_stream().to("output"))
    topology = builder.build()
    assert str(topology.describe()) == DESCRIBE_shouldSupportKeyChangeKTableFromKStream
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        input_topic = driver.create_input_topic("input", S, S)
        output_topic = driver.create_output_topic("output", serdes.Integer(), S)
        for key, value, ts in INPUTS_01_TO_06:
            input_topic.pipe_input(key, value, ts)
        assert output_topic.read_records_to_list() == [
            ks.TestRecord(0, "01", 5), ks.TestRecord(1, "02", 100), ks.TestRecord(2, "03", 0),
            ks.TestRecord(3, "04", 0), ks.TestRecord(0, "05", 10), ks.TestRecord(0, "06", 8)]


def test_should_support_foreign_key_table_table_join_with_k_table_from_k_stream():
    # shouldSupportForeignKeyTableTableJoinWithKTableFromKStream
    builder = ks.StreamsBuilder()
    left_table = builder.stream("input1", STRING_CONSUMED).to_table()
    right_table = builder.stream("input2", STRING_CONSUMED).to_table()
    left_table.join(right_table, lambda value: value.split("|")[1],
                    lambda value1, value2: f"({value1},{value2})").to_stream().to("output")
    topology = builder.build(PROPS)
    assert str(topology.describe()) == \
        DESCRIBE_shouldSupportForeignKeyTableTableJoinWithKTableFromKStream
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        left = driver.create_input_topic("input1", S, S)
        right = driver.create_input_topic("input2", S, S)
        output_topic = driver.create_output_topic("output", S, S)
        right.pipe_input("rhs1", "rhsValue1")
        right.pipe_input("rhs2", "rhsValue2")
        right.pipe_input("rhs3", "rhsValue3")
        assert output_topic.read_key_values_to_map() == {}
        left.pipe_input("lhs1", "lhsValue1|rhs1")
        left.pipe_input("lhs2", "lhsValue2|rhs2")
        assert output_topic.read_key_values_to_map() == {
            "lhs1": "(lhsValue1|rhs1,rhsValue1)", "lhs2": "(lhsValue2|rhs2,rhsValue2)"}
        left.pipe_input("lhs3", "lhsValue3|rhs1")
        assert output_topic.read_key_values_to_map() == {"lhs3": "(lhsValue3|rhs1,rhsValue1)"}
        left.pipe_input("lhs1", None)
        assert output_topic.read_key_values_to_map() == {"lhs1": None}


def check_join_with_k_stream_to_k_table(topology, left_topic, right_topic):
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        left = driver.create_input_topic(left_topic, S, S)
        right = driver.create_input_topic(right_topic, S, S)
        output = driver.create_output_topic("output", S, S)
        right.pipe_input("lhs1", "rhsValue1")
        right.pipe_input("rhs2", "rhsValue2")
        right.pipe_input("lhs3", "rhsValue3")
        assert output.read_key_values_to_map() == {}
        left.pipe_input("lhs1", "lhsValue1")
        left.pipe_input("lhs2", "lhsValue2")
        assert output.read_key_values_to_map() == {"lhs1": "lhsValue1+rhsValue1"}
        left.pipe_input("lhs3", "lhsValue3")
        assert output.read_key_values_to_map() == {"lhs3": "lhsValue3+rhsValue3"}
        left.pipe_input("lhs1", "lhsValue4")
        assert output.read_key_values_to_map() == {"lhs1": "lhsValue4+rhsValue1"}


def test_should_support_table_table_join_with_k_stream_to_k_table():
    # shouldSupportTableTableJoinWithKStreamToKTable
    builder = ks.StreamsBuilder()
    table1 = builder.stream("left", STRING_CONSUMED).to_table()
    table2 = builder.stream("right", STRING_CONSUMED).to_table()
    table1.join(table2, TOSTRING_JOINER).to_stream().to("output")
    topology = builder.build(PROPS)
    assert str(topology.describe()) == DESCRIBE_shouldSupportTableTableJoinWithKStreamToKTable
    check_join_with_k_stream_to_k_table(topology, "left", "right")


def test_should_support_stream_table_join_with_k_stream_to_k_table():
    # shouldSupportStreamTableJoinWithKStreamToKTable
    builder = ks.StreamsBuilder()
    stream = builder.stream("streamTopic", STRING_CONSUMED)
    table = builder.stream("tableTopic", STRING_CONSUMED).to_table()
    stream.join(table, TOSTRING_JOINER).to("output")
    topology = builder.build(PROPS)
    assert str(topology.describe()) == DESCRIBE_shouldSupportStreamTableJoinWithKStreamToKTable
    check_join_with_k_stream_to_k_table(topology, "streamTopic", "tableTopic")


def test_should_support_group_by_count_with_k_stream_to_k_table():
    # shouldSupportGroupByCountWithKStreamToKTable
    builder = ks.StreamsBuilder()
    (builder.stream("input", STRING_CONSUMED)
     .to_table()
     .group_by(lambda key, value: (value, value), ks.Grouped.with_(S, S))
     .count()
     .to_stream()
     .to("output"))
    topology = builder.build(PROPS)
    assert str(topology.describe()) == DESCRIBE_shouldSupportGroupByCountWithKStreamToKTable
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        input_topic = driver.create_input_topic("input", S, S, 0, 0)
        output_topic = driver.create_output_topic("output", S, serdes.Long())
        input_topic.pipe_input("A", "green", 10)
        input_topic.pipe_input("B", "green", 9)
        input_topic.pipe_input("A", "blue", 12)
        input_topic.pipe_input("C", "yellow", 15)
        input_topic.pipe_input("D", "green", 11)
        assert output_topic.read_records_to_list() == [
            ks.TestRecord("green", 1, 10), ks.TestRecord("green", 2, 10),
            ks.TestRecord("green", 1, 12), ks.TestRecord("blue", 1, 12),
            ks.TestRecord("yellow", 1, 15), ks.TestRecord("green", 2, 12)]


def test_should_support_trigger_materialized_with_k_table_from_k_stream():
    # shouldSupportTriggerMaterializedWithKTableFromKStream
    builder = ks.StreamsBuilder()
    (builder.stream("input", STRING_CONSUMED)
     .to_table()
     .map_values(lambda value: ord(value[0]) - ord("a"),
                 ks.Materialized.as_("store").with_key_serde(S)
                 .with_value_serde(serdes.Integer()))
     .to_stream()
     .to("output"))
    topology = builder.build(PROPS)
    assert str(topology.describe()) == \
        DESCRIBE_shouldSupportTriggerMaterializedWithKTableFromKStream
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        input_topic = driver.create_input_topic("input", S, S, 0, 0)
        output_topic = driver.create_output_topic("output", S, serdes.Integer())
        store = driver.get_key_value_store("store")
        input_topic.pipe_input("A", "green", 10)
        input_topic.pipe_input("B", "green", 9)
        input_topic.pipe_input("A", "blue", 12)
        input_topic.pipe_input("C", "yellow", 15)
        input_topic.pipe_input("D", "green", 11)
        assert as_map(store) == {"A": 1, "B": 6, "C": 24, "D": 6}
        assert output_topic.read_records_to_list() == [
            ks.TestRecord("A", 6, 10), ks.TestRecord("B", 6, 9), ks.TestRecord("A", 1, 12),
            ks.TestRecord("C", 24, 15), ks.TestRecord("D", 6, 11)]
