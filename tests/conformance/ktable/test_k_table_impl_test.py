"""Kafka's ``KTableImplTest``: chained table operators, the serdes each operator keeps, lazy
store creation, old values on a source, repartition nodes of table aggregations, null arguments.

Mapping: ``MockApiProcessorSupplier`` is ``Capture``; ``AbstractStream.keySerde()/valueSerde()``
are the ``key_serde``/``value_serde`` attributes; Java's ``NullPointerException`` for a null
function or table is ``MissingArgumentError`` with Java's message ("predicate can't be null").
Skipped: the ``transformValues`` assertions and tests (``KTable.transformValues`` is not in
kslab's API); ``to_stream(None)`` means "no key mapper" (API default), so the null-mapper test
passes a non-callable instead; the ``(Materialized) null`` tests (in Python
``materialized=None`` is the default, "not materialized", not an error); the reflection on the
repartition sink/source's ``ChangedSerializer.inner()`` in
``shouldCreateSourceAndSinkNodesForRepartitioningTopic``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError

S = serdes.String()
CONSUMED = ks.Consumed.with_(S, S)
PRODUCED = ks.Produced.with_(S, S)
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
MY_SERDE = serdes.String()


class Capture(ks.Processor):
    """Java's MockApiProcessor: records (key, value, timestamp) per instance."""

    instances: list[Capture] = []

    def __init__(self) -> None:
        self.processed: list = []
        Capture.instances.append(self)

    def process(self, record):
        self.processed.append((record.key, record.value, record.timestamp))


@pytest.fixture(autouse=True)
def _clear():
    Capture.instances = []


@pytest.fixture
def table():
    return ks.StreamsBuilder().table("test")


INPUT = [("A", "01", 5), ("B", "02", 100), ("C", "03", 0), ("D", "04", 0), ("A", "05", 10),
         ("A", "06", 8)]


def run_chain(materialized):
    builder = ks.StreamsBuilder()
    table1 = (builder.table("topic1", CONSUMED, ks.Materialized.as_(materialized))
              if materialized else builder.table("topic1", CONSUMED))
    table1.to_stream().process(Capture)
    table2 = table1.map_values(int)
    table2.to_stream().process(Capture)
    table3 = table2.filter(lambda key, value: value % 2 == 0)
    table3.to_stream().process(Capture)
    table1.to_stream().to("topic2", PRODUCED)
    table4 = builder.table("topic2", CONSUMED)
    table4.to_stream().process(Capture)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("topic1", S, S)
        for key, value, ts in INPUT:
            inp.pipe_input(key, value, ts)
    assert len(Capture.instances) == 4
    return [c.processed for c in Capture.instances]


def test_k_table():
    p0, p1, p2, p3 = run_chain(None)
    assert p0 == INPUT
    assert p1 == [("A", 1, 5), ("B", 2, 100), ("C", 3, 0), ("D", 4, 0), ("A", 5, 10),
                  ("A", 6, 8)]
    assert p2 == [("A", None, 5), ("B", 2, 100), ("C", None, 0), ("D", 4, 0), ("A", None, 10),
                  ("A", 6, 8)]
    assert p3 == INPUT


def test_materialized_k_table():
    p0, p1, p2, p3 = run_chain("fred")
    assert p0 == INPUT
    assert p1 == [("A", 1, 5), ("B", 2, 100), ("C", 3, 0), ("D", 4, 0), ("A", 5, 10),
                  ("A", 6, 8)]
    assert p2 == [("B", 2, 100), ("D", 4, 0), ("A", 6, 8)]
    assert p3 == INPUT


def test_should_preserve_serdes_for_operators():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic-2", CONSUMED)
    key_serde, value_serde = table1.key_serde, table1.value_serde
    assert key_serde is not None and value_serde is not None

    def selector(key, value):
        return key

    def mapper(value):
        return value

    def joiner(value1, value2):
        return value1

    def with_my_serdes():
        return ks.Materialized.with_(MY_SERDE, MY_SERDE)

    assert table1.filter(lambda k, v: False).key_serde is key_serde
    assert table1.filter(lambda k, v: False).value_serde is value_serde
    assert table1.filter(lambda k, v: False, with_my_serdes()).key_serde is MY_SERDE
    assert table1.filter(lambda k, v: False, with_my_serdes()).value_serde is MY_SERDE

    assert table1.filter_not(lambda k, v: False).key_serde is key_serde
    assert table1.filter_not(lambda k, v: False).value_serde is value_serde
    assert table1.filter_not(lambda k, v: False, with_my_serdes()).key_serde is MY_SERDE
    assert table1.filter_not(lambda k, v: False, with_my_serdes()).value_serde is MY_SERDE

    assert table1.map_values(mapper).key_serde is key_serde
    assert table1.map_values(mapper).value_serde is None
    assert table1.map_values(mapper, with_my_serdes()).key_serde is MY_SERDE
    assert table1.map_values(mapper, with_my_serdes()).value_serde is MY_SERDE

    assert table1.to_stream().key_serde is key_serde
    assert table1.to_stream().value_serde is value_serde
    assert table1.to_stream(selector).key_serde is None
    assert table1.to_stream(selector).value_serde is value_serde

    assert table1.group_by(ks.KeyValue).key_serde is None
    assert table1.group_by(ks.KeyValue).value_serde is None
    assert table1.group_by(ks.KeyValue, ks.Grouped.with_(MY_SERDE, MY_SERDE)).key_serde \
        is MY_SERDE
    assert table1.group_by(ks.KeyValue, ks.Grouped.with_(MY_SERDE, MY_SERDE)).value_serde \
        is MY_SERDE

    for join in (table1.join, table1.left_join, table1.outer_join):
        assert join(table1, joiner).key_serde is key_serde
        assert join(table1, joiner).value_serde is None
        assert join(table1, joiner, with_my_serdes()).key_serde is MY_SERDE
        assert join(table1, joiner, with_my_serdes()).value_serde is MY_SERDE


def test_state_store_lazy_eval():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    builder.table("topic2", CONSUMED)
    table1_mapped = table1.map_values(int)
    table1_mapped.filter(lambda key, value: value % 2 == 0)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        assert len(driver.get_all_state_stores()) == 0


def test_state_store():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = builder.table("topic2", CONSUMED)
    table1_mapped = table1.map_values(int)
    table1_mapped_filtered = table1_mapped.filter(lambda key, value: value % 2 == 0)
    table2.join(table1_mapped_filtered, lambda v1, v2: v1 + v2)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        assert len(driver.get_all_state_stores()) == 2


def test_should_not_enable_sending_old_values_if_not_materialized_already_and_not_forced_to_materialize():  # noqa: E501
    builder = ks.StreamsBuilder()
    table = builder.table("topic1", CONSUMED)
    table.enable_sending_old_values(False)
    assert table.sending_old_value_enabled() is False


def test_should_enable_sending_old_values_if_not_materialized_already_but_forced_to_materialize():
    builder = ks.StreamsBuilder()
    table = builder.table("topic1", CONSUMED)
    table.enable_sending_old_values(True)
    assert table.sending_old_value_enabled() is True


def assert_topology_contains_processor(topology, processor_name):
    for subtopology in topology.describe().subtopologies:
        for node in subtopology.nodes:
            if node.name == processor_name:
                return
    raise AssertionError(f"No processor named '{processor_name}' found in the provided "
                         f"Topology:\n{topology.describe()}")


def test_should_create_source_and_sink_nodes_for_repartitioning_topic():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED, ks.Materialized.as_("storeName1")
                           .with_key_serde(S).with_value_serde(S))
    table1.group_by(ks.KeyValue).aggregate(
        lambda: "0", lambda k, v, agg: f"{agg}+{v}", lambda k, v, agg: f"{agg}-{v}",
        ks.Materialized.as_("mock-result1"))
    table1.group_by(ks.KeyValue).reduce(
        lambda agg, v: f"{agg}+{v}", lambda agg, v: f"{agg}-{v}",
        ks.Materialized.as_("mock-result2"))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        assert len(driver.get_all_state_stores()) == 3
        assert_topology_contains_processor(topology, "KSTREAM-SINK-0000000003")
        assert_topology_contains_processor(topology, "KSTREAM-SOURCE-0000000004")
        assert_topology_contains_processor(topology, "KSTREAM-SINK-0000000007")
        assert_topology_contains_processor(topology, "KSTREAM-SOURCE-0000000008")


def joiner(value1, value2):
    return f"{value1}+{value2}"


def test_should_not_allow_null_selector_on_to_stream(table):
    # a None key mapper is Python's "no mapper"; a non-callable one is refused
    with pytest.raises(ks.KslabError):
        table.to_stream(42)


def test_should_not_allow_null_predicate_on_filter(table):
    with pytest.raises(MissingArgumentError, match="predicate can't be null"):
        table.filter(None)


def test_should_not_allow_null_predicate_on_filter_not(table):
    with pytest.raises(MissingArgumentError, match="predicate can't be null"):
        table.filter_not(None)


def test_should_not_allow_null_mapper_on_map_values(table):
    with pytest.raises(MissingArgumentError, match="mapper can't be null"):
        table.map_values(None)


def test_should_not_allow_null_mapper_on_map_value_with_key(table):
    with pytest.raises(MissingArgumentError, match="mapper can't be null"):
        table.map_values(None, with_key=True)


def test_should_not_allow_null_selector_on_group_by(table):
    with pytest.raises(MissingArgumentError, match="selector can't be null"):
        table.group_by(None)


def test_should_not_allow_null_other_table_on_join(table):
    with pytest.raises(MissingArgumentError, match="other can't be null"):
        table.join(None, joiner)


def test_should_allow_null_store_in_join(table):
    table.join(table, joiner)


def test_should_not_allow_null_joiner_join(table):
    with pytest.raises(MissingArgumentError, match="joiner can't be null"):
        table.join(table, None)


def test_should_not_allow_null_other_table_on_outer_join(table):
    with pytest.raises(MissingArgumentError, match="other can't be null"):
        table.outer_join(None, joiner)


def test_should_not_allow_null_joiner_on_outer_join(table):
    with pytest.raises(MissingArgumentError, match="joiner can't be null"):
        table.outer_join(table, None)


def test_should_not_allow_null_joiner_on_left_join(table):
    with pytest.raises(MissingArgumentError, match="joiner can't be null"):
        table.left_join(table, None)


def test_should_not_allow_null_other_table_on_left_join(table):
    with pytest.raises(MissingArgumentError, match="other can't be null"):
        table.left_join(None, joiner)
