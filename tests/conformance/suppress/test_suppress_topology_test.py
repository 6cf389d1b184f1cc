"""Kafka's ``SuppressTopologyTest``, translated to kslab's DSL: ``describe()`` text of named and
anonymous suppression nodes, and suppression of versioned tables being rejected.

Java's ``TopologyException`` maps to ``ks.TopologyError``. Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

STRING_SERDE = serdes.String()
AGGREGATE_STORE = "KSTREAM-AGGREGATE-STATE-STORE-0000000001"


def _final_topology(suppressed):
    builder = ks.StreamsBuilder()
    (builder.stream("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
     .group_by(lambda k, v: k, ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
     .windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(5, 5))
     .count(ks.Materialized.as_("counts").with_caching_disabled())
     .suppress(suppressed)
     .to_stream()
     .map(lambda k, v: (str(k), v))
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, serdes.Long())))
    return str(builder.build().describe())


def _intermediate_topology(suppressed):
    builder = ks.StreamsBuilder()
    (builder.stream("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
     .group_by_key()
     .count()
     .suppress(suppressed)
     .to_stream()
     .to("output", ks.Produced.with_(STRING_SERDE, serdes.Long())))
    return str(builder.build().describe())


def test_should_use_numbering_for_anonymous_final_suppression_node():
    suppressed = ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())
    # without the name, the suppression node increments the topology index
    assert _final_topology(suppressed) == ANONYMOUS_FINAL_TOPOLOGY


def test_should_apply_name_to_final_suppression_node():
    suppressed = ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()).with_name("myname")
    # without the name, the suppression node does not increment the topology index
    assert _final_topology(suppressed) == NAMED_FINAL_TOPOLOGY


def test_should_use_numbering_for_anonymous_suppression_node():
    suppressed = ks.Suppressed.until_time_limit(1000, ks.BufferConfig.unbounded())
    assert _intermediate_topology(suppressed) == ANONYMOUS_INTERMEDIATE_TOPOLOGY


def test_should_apply_name_to_suppression_node():
    suppressed = ks.Suppressed.until_time_limit(1000, ks.BufferConfig.unbounded()).with_name(
        "asdf")
    assert _intermediate_topology(suppressed) == NAMED_INTERMEDIATE_TOPOLOGY


def test_should_throw_on_suppress_for_materialized_versioned_table():
    builder = ks.StreamsBuilder()
    versioned_table = builder.table(
        "input", materialized=ks.Materialized.as_(
            ks.Stores.persistent_versioned_key_value_store("store", 0)))
    with pytest.raises(ks.TopologyError):
        versioned_table.suppress(ks.Suppressed.until_time_limit(0, ks.BufferConfig.unbounded()))


def test_should_throw_on_suppress_for_non_materialized_versioned_table():
    builder = ks.StreamsBuilder()
    (builder.table("input", materialized=ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("store", 0)))
     .filter(lambda k, v: True)
     .suppress(ks.Suppressed.until_time_limit(0, ks.BufferConfig.unbounded())))
    with pytest.raises(ks.TopologyError):
        builder.build()


NAMED_FINAL_TOPOLOGY = (
    'Topologies:\n'
    '   Sub-topology: 0\n'
    '    Source: KSTREAM-SOURCE-0000000000 (topics: [input])\n'
    '      --> KSTREAM-KEY-SELECT-0000000001\n'
    '    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])\n'
    '      --> counts-repartition-filter\n'
    '      <-- KSTREAM-SOURCE-0000000000\n'
    '    Processor: counts-repartition-filter (stores: [])\n'
    '      --> counts-repartition-sink\n'
    '      <-- KSTREAM-KEY-SELECT-0000000001\n'
    '    Sink: counts-repartition-sink (topic: counts-repartition)\n'
    '      <-- counts-repartition-filter\n'
    '\n'
    '  Sub-topology: 1\n'
    '    Source: counts-repartition-source (topics: [counts-repartition])\n'
    '      --> KSTREAM-AGGREGATE-0000000002\n'
    '    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [counts])\n'
    '      --> myname\n'
    '      <-- counts-repartition-source\n'
    '    Processor: myname (stores: [myname-store])\n'
    '      --> KTABLE-TOSTREAM-0000000006\n'
    '      <-- KSTREAM-AGGREGATE-0000000002\n'
    '    Processor: KTABLE-TOSTREAM-0000000006 (stores: [])\n'
    '      --> KSTREAM-MAP-0000000007\n'
    '      <-- myname\n'
    '    Processor: KSTREAM-MAP-0000000007 (stores: [])\n'
    '      --> KSTREAM-SINK-0000000008\n'
    '      <-- KTABLE-TOSTREAM-0000000006\n'
    '    Sink: KSTREAM-SINK-0000000008 (topic: output-suppressed)\n'
    '      <-- KSTREAM-MAP-0000000007\n'
    '\n'
)

ANONYMOUS_FINAL_TOPOLOGY = (
    'Topologies:\n'
    '   Sub-topology: 0\n'
    '    Source: KSTREAM-SOURCE-0000000000 (topics: [input])\n'
    '      --> KSTREAM-KEY-SELECT-0000000001\n'
    '    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])\n'
    '      --> counts-repartition-filter\n'
    '      <-- KSTREAM-SOURCE-0000000000\n'
    '    Processor: counts-repartition-filter (stores: [])\n'
    '      --> counts-repartition-sink\n'
    '      <-- KSTREAM-KEY-SELECT-0000000001\n'
    '    Sink: counts-repartition-sink (topic: counts-repartition)\n'
    '      <-- counts-repartition-filter\n'
    '\n'
    '  Sub-topology: 1\n'
    '    Source: counts-repartition-source (topics: [counts-repartition])\n'
    '      --> KSTREAM-AGGREGATE-0000000002\n'
    '    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [counts])\n'
    '      --> KTABLE-SUPPRESS-0000000006\n'
    '      <-- counts-repartition-source\n'
    '    Processor: KTABLE-SUPPRESS-0000000006 (stores: [KTABLE-SUPPRESS-STATE-STORE-0000000007])\n'
    '      --> KTABLE-TOSTREAM-0000000008\n'
    '      <-- KSTREAM-AGGREGATE-0000000002\n'
    '    Processor: KTABLE-TOSTREAM-0000000008 (stores: [])\n'
    '      --> KSTREAM-MAP-0000000009\n'
    '      <-- KTABLE-SUPPRESS-0000000006\n'
    '    Processor: KSTREAM-MAP-0000000009 (stores: [])\n'
    '      --> KSTREAM-SINK-0000000010\n'
    '      <-- KTABLE-TOSTREAM-0000000008\n'
    '    Sink: KSTREAM-SINK-0000000010 (topic: output-suppressed)\n'
    '      <-- KSTREAM-MAP-0000000009\n'
    '\n'
)

NAMED_INTERMEDIATE_TOPOLOGY = (
    'Topologies:\n'
    '   Sub-topology: 0\n'
    '    Source: KSTREAM-SOURCE-0000000000 (topics: [input])\n'
    '      --> KSTREAM-AGGREGATE-0000000002\n'
    f'    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [{AGGREGATE_STORE}])\n'
    '      --> asdf\n'
    '      <-- KSTREAM-SOURCE-0000000000\n'
    '    Processor: asdf (stores: [asdf-store])\n'
    '      --> KTABLE-TOSTREAM-0000000003\n'
    '      <-- KSTREAM-AGGREGATE-0000000002\n'
    '    Processor: KTABLE-TOSTREAM-0000000003 (stores: [])\n'
    '      --> KSTREAM-SINK-0000000004\n'
    '      <-- asdf\n'
    '    Sink: KSTREAM-SINK-0000000004 (topic: output)\n'
    '      <-- KTABLE-TOSTREAM-0000000003\n'
    '\n'
)

ANONYMOUS_INTERMEDIATE_TOPOLOGY = (
    'Topologies:\n'
    '   Sub-topology: 0\n'
    '    Source: KSTREAM-SOURCE-0000000000 (topics: [input])\n'
    '      --> KSTREAM-AGGREGATE-0000000002\n'
    f'    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [{AGGREGATE_STORE}])\n'
    '      --> KTABLE-SUPPRESS-0000000003\n'
    '      <-- KSTREAM-SOURCE-0000000000\n'
    '    Processor: KTABLE-SUPPRESS-0000000003 (stores: [KTABLE-SUPPRESS-STATE-STORE-0000000004])\n'
    '      --> KTABLE-TOSTREAM-0000000005\n'
    '      <-- KSTREAM-AGGREGATE-0000000002\n'
    '    Processor: KTABLE-TOSTREAM-0000000005 (stores: [])\n'
    '      --> KSTREAM-SINK-0000000006\n'
    '      <-- KTABLE-SUPPRESS-0000000003\n'
    '    Sink: KSTREAM-SINK-0000000006 (topic: output)\n'
    '      <-- KTABLE-TOSTREAM-0000000005\n'
    '\n'
)
