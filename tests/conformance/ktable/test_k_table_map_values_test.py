"""Kafka's ``KTableMapValuesTest``: ``map_values`` on tables, materialized or not, its value
getters, and old values.

Mapping: ``MockApiProcessorSupplier`` is ``Capture``; ``KTableImpl.name``,
``valueGetterSupplier()``, ``enableSendingOldValues`` and ``sendingOldValueEnabled`` are
``name``, ``value_getter_supplier()``, ``enable_sending_old_values`` and
``sending_old_value_enabled``. Java's
``TopologyTestDriverWrapper.setCurrentNodeForProcessorContext``
becomes a processor hung under the table node and connected to the getters' stores, which
initializes the getters with its own context. Java calls ``builder.build()`` several times and
relies on getting the same ``Topology`` back; here the topology is built once. Nothing skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import Change

S, INT = serdes.String(), serdes.Integer()
CONSUMED = ks.Consumed.with_(S, S)
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}


class Capture(ks.Processor):
    """Java's MockApiProcessor: records (key, value, timestamp) per instance."""

    instances: list[Capture] = []

    def __init__(self) -> None:
        self.processed: list = []
        Capture.instances.append(self)

    def process(self, record):
        self.processed.append((record.key, record.value, record.timestamp))

    def check_and_clear(self, *expected) -> None:
        assert self.processed == list(expected)
        self.processed = []


@pytest.fixture(autouse=True)
def _clear():
    Capture.instances = []


def do_test_k_table(builder, topic1):
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(topic1, S, S)
        inp.pipe_input("A", "1", 5)
        inp.pipe_input("B", "2", 25)
        inp.pipe_input("C", "3", 20)
        inp.pipe_input("D", "4", 10)
        (proc,) = Capture.instances
        assert proc.processed == [("A", 1, 5), ("B", 2, 25), ("C", 3, 20), ("D", 4, 10)]


def test_k_table():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.map_values(lambda value: ord(value[0]) - 48)
    table2.to_stream().process(Capture)
    do_test_k_table(builder, "topic1")


def test_queryable_k_table():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.map_values(lambda value: ord(value[0]) - 48,
                               ks.Materialized.as_("anyName").with_value_serde(INT))
    table2.to_stream().process(Capture)
    do_test_k_table(builder, "topic1")


class Getters(ks.Processor):
    """Initializes value getters with a processor context, as the driver wrapper does."""

    getters: list = []

    def init(self, context):
        for getter in Getters.getters:
            getter.init(context)

    def process(self, record):
        pass


def do_test_value_getter(builder, topic1, table2, table3):
    topology = builder.build()
    supplier2, supplier3 = table2.value_getter_supplier(), table3.value_getter_supplier()
    getter2, getter3 = supplier2.get(), supplier3.get()
    Getters.getters = [getter2, getter3]
    topology.add_processor("getters", Getters, table2.name)
    topology.connect_processor_and_state_stores(
        "getters", *supplier2.store_names(), *supplier3.store_names())
    vat = ks.ValueAndTimestamp
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic(topic1, S, S)
        inp.pipe_input("A", "01", 50)
        inp.pipe_input("B", "01", 10)
        inp.pipe_input("C", "01", 30)
        assert getter2.get("A") == vat(1, 50)
        assert getter2.get("B") == vat(1, 10)
        assert getter2.get("C") == vat(1, 30)
        assert getter3.get("A") == vat(-1, 50)
        assert getter3.get("B") == vat(-1, 10)
        assert getter3.get("C") == vat(-1, 30)

        inp.pipe_input("A", "02", 25)
        inp.pipe_input("B", "02", 20)
        assert getter2.get("A") == vat(2, 25)
        assert getter2.get("B") == vat(2, 20)
        assert getter2.get("C") == vat(1, 30)
        assert getter3.get("A") == vat(-2, 25)
        assert getter3.get("B") == vat(-2, 20)
        assert getter3.get("C") == vat(-1, 30)

        inp.pipe_input("A", "03", 35)
        assert getter2.get("A") == vat(3, 35)
        assert getter2.get("B") == vat(2, 20)
        assert getter2.get("C") == vat(1, 30)
        assert getter3.get("A") == vat(-3, 35)
        assert getter3.get("B") == vat(-2, 20)
        assert getter3.get("C") == vat(-1, 30)

        inp.pipe_input("A", None, 1)
        assert getter2.get("A") is None
        assert getter2.get("B") == vat(2, 20)
        assert getter2.get("C") == vat(1, 30)
        assert getter3.get("A") is None
        assert getter3.get("B") == vat(-2, 20)
        assert getter3.get("C") == vat(-1, 30)


def test_queryable_value_getter():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.map_values(int, ks.Materialized.as_("store2").with_value_serde(INT))
    table3 = table1.map_values(lambda value: int(value) * -1,
                               ks.Materialized.as_("store3").with_value_serde(INT))
    table4 = table1.map_values(int)
    assert table2.query_table_name() == "store2"
    assert table3.query_table_name() == "store3"
    assert table4.query_table_name() is None
    do_test_value_getter(builder, "topic1", table2, table3)


def test_not_sending_old_value():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.map_values(int)
    topology = builder.build().add_processor("proc", Capture, table2.name)
    change = Change
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic("topic1", S, S)
        (proc,) = Capture.instances
        assert not table1.sending_old_value_enabled()
        assert not table2.sending_old_value_enabled()
        inp.pipe_input("A", "01", 5)
        inp.pipe_input("B", "01", 10)
        inp.pipe_input("C", "01", 15)
        proc.check_and_clear(("A", change(1, None), 5), ("B", change(1, None), 10),
                             ("C", change(1, None), 15))
        inp.pipe_input("A", "02", 10)
        inp.pipe_input("B", "02", 8)
        proc.check_and_clear(("A", change(2, None), 10), ("B", change(2, None), 8))
        inp.pipe_input("A", "03", 20)
        proc.check_and_clear(("A", change(3, None), 20))
        inp.pipe_input("A", None, 30)
        proc.check_and_clear(("A", change(None, None), 30))


def test_should_enable_sending_old_values_on_parent_if_map_values_not_materialized():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.map_values(int)
    table2.enable_sending_old_values(True)
    assert table1.sending_old_value_enabled() is True
    assert table2.sending_old_value_enabled() is True
    sending_old_values(builder, "topic1", table2)




def test_should_enable_sending_old_values_on_parent_if_map_values_not_materialized_literal():
    # the same test with Java's literal builder.build().addProcessor(...) then
    # new TopologyTestDriver(builder.build())
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.map_values(int)
    table2.enable_sending_old_values(True)
    builder.build().add_processor("proc", Capture, table2.name)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        driver.create_input_topic("topic1", S, S).pipe_input("A", "01", 5)
        (proc,) = Capture.instances
        proc.check_and_clear(("A", Change(1, None), 5))


def test_should_not_enable_sending_old_values_on_parent_if_map_values_materialized():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.map_values(int, ks.Materialized.as_("bob").with_value_serde(INT))
    table2.enable_sending_old_values(True)
    assert table1.sending_old_value_enabled() is False
    assert table2.sending_old_value_enabled() is True
    sending_old_values(builder, "topic1", table2)


def sending_old_values(builder, topic1, table2):
    topology = builder.build().add_processor("proc", Capture, table2.name)
    change = Change
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic(topic1, S, S)
        (proc,) = Capture.instances
        inp.pipe_input("A", "01", 5)
        inp.pipe_input("B", "01", 10)
        inp.pipe_input("C", "01", 15)
        proc.check_and_clear(("A", change(1, None), 5), ("B", change(1, None), 10),
                             ("C", change(1, None), 15))
        inp.pipe_input("A", "02", 10)
        inp.pipe_input("B", "02", 8)
        proc.check_and_clear(("A", change(2, 1), 10), ("B", change(2, 1), 8))
        inp.pipe_input("A", "03", 20)
        proc.check_and_clear(("A", change(3, 2), 20))
        inp.pipe_input("A", None, 30)
        proc.check_and_clear(("A", change(None, 3), 30))
