"""Kafka's ``KTableFilterTest``: ``filter``/``filter_not`` on tables, with and without a store,
the value getters they offer, old values, and the null-skipping before a repartition.

Mapping: Java's ``MockApiProcessorSupplier`` is ``Capture`` (one list per processor instance, in
creation order); ``KTableImpl.name``, ``valueGetterSupplier()``, ``enableSendingOldValues`` and
``sendingOldValueEnabled`` are ``name``, ``value_getter_supplier()``,
``enable_sending_old_values`` and ``sending_old_value_enabled``; ``queryableStoreName()`` is
``query_table_name()``. Java's ``TopologyTestDriverWrapper.setCurrentNodeForProcessorContext``
becomes a processor hung under the table node and connected to the getters' stores, which
initializes the getters with its own context. ``testTypeVariance`` (Java generics) is skipped.
"""

from __future__ import annotations

import datetime

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import Change

S, INT = serdes.String(), serdes.Integer()
CONSUMED = ks.Consumed.with_(S, INT)
PROPS = {"statestore.cache.max.bytes": 0, "default.key.serde": "string",
         "default.value.serde": "integer"}


def predicate(key, value):
    return value % 2 == 0


class Capture(ks.Processor):
    """Java's MockApiProcessor: records (key, value, timestamp) per instance."""

    instances: list[Capture] = []

    def __init__(self) -> None:
        self.seen: list = []
        Capture.instances.append(self)

    def process(self, record):
        self.seen.append((record.key, record.value, record.timestamp))

    def check_and_clear(self, *expected) -> None:
        assert self.seen == list(expected)
        self.seen = []


@pytest.fixture(autouse=True)
def _clear():
    Capture.instances = []


def do_test_k_table(builder, table2, table3, topic):
    table2.to_stream().process(Capture)
    table3.to_stream().process(Capture)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(topic, S, INT)
        inp.pipe_input("A", 1, 10)
        inp.pipe_input("B", 2, 5)
        inp.pipe_input("C", 3, 8)
        inp.pipe_input("D", 4, 14)
        inp.pipe_input("A", None, 18)
        inp.pipe_input("B", None, 15)
    p0, p1 = Capture.instances
    p0.check_and_clear(("A", None, 10), ("B", 2, 5), ("C", None, 8), ("D", 4, 14),
                       ("A", None, 18), ("B", None, 15))
    p1.check_and_clear(("A", 1, 10), ("B", None, 5), ("C", 3, 8), ("D", None, 14),
                       ("A", None, 18), ("B", None, 15))


def test_should_pass_through_without_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate)
    table3 = table1.filter_not(predicate)
    assert table1.query_table_name() is None
    assert table2.query_table_name() is None
    assert table3.query_table_name() is None
    do_test_k_table(builder, table2, table3, "topic1")


def test_should_pass_through_on_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate, ks.Materialized.as_("store2"))
    table3 = table1.filter_not(predicate)
    assert table1.query_table_name() is None
    assert table2.query_table_name() == "store2"
    assert table3.query_table_name() is None
    do_test_k_table(builder, table2, table3, "topic1")


class Getters(ks.Processor):
    """Initializes value getters with a processor context, as the driver wrapper does."""

    getters: list = []

    def init(self, context):
        for getter in Getters.getters:
            getter.init(context)

    def process(self, record):
        pass


def do_test_value_getter(builder, table2, table3, topic1):
    topology = builder.build()
    supplier2, supplier3 = table2.value_getter_supplier(), table3.value_getter_supplier()
    getter2, getter3 = supplier2.get(), supplier3.get()
    Getters.getters = [getter2, getter3]
    topology.add_processor("getters", Getters, table2.name)
    topology.connect_processor_and_state_stores(
        "getters", *supplier2.store_names(), *supplier3.store_names())
    vat = ks.ValueAndTimestamp
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic(topic1, S, INT)
        inp.pipe_input("A", 1, 5)
        inp.pipe_input("B", 1, 10)
        inp.pipe_input("C", 1, 15)
        assert getter2.get("A") is None
        assert getter2.get("B") is None
        assert getter2.get("C") is None
        assert getter3.get("A") == vat(1, 5)
        assert getter3.get("B") == vat(1, 10)
        assert getter3.get("C") == vat(1, 15)

        inp.pipe_input("A", 2, 10)
        inp.pipe_input("B", 2, 5)
        assert getter2.get("A") == vat(2, 10)
        assert getter2.get("B") == vat(2, 5)
        assert getter2.get("C") is None
        assert getter3.get("A") is None
        assert getter3.get("B") is None
        assert getter3.get("C") == vat(1, 15)

        inp.pipe_input("A", 3, 15)
        assert getter2.get("A") is None
        assert getter2.get("B") == vat(2, 5)
        assert getter2.get("C") is None
        assert getter3.get("A") == vat(3, 15)
        assert getter3.get("B") is None
        assert getter3.get("C") == vat(1, 15)

        inp.pipe_input("A", None, 10)
        inp.pipe_input("B", None, 20)
        assert getter2.get("A") is None
        assert getter2.get("B") is None
        assert getter2.get("C") is None
        assert getter3.get("A") is None
        assert getter3.get("B") is None
        assert getter3.get("C") == vat(1, 15)


def test_should_get_values_on_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate, ks.Materialized.as_("store2"))
    table3 = table1.filter_not(predicate, ks.Materialized.as_("store3"))
    table4 = table1.filter_not(predicate)
    assert table1.query_table_name() is None
    assert table2.query_table_name() == "store2"
    assert table3.query_table_name() == "store3"
    assert table4.query_table_name() is None
    do_test_value_getter(builder, table2, table3, "topic1")


def do_test_not_sending_old_value(builder, table1, table2, topic1):
    topology = builder.build()
    topology.add_processor("proc1", Capture, table1.name)
    topology.add_processor("proc2", Capture, table2.name)
    change = Change
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic(topic1, S, INT)
        inp.pipe_input("A", 1, 5)
        inp.pipe_input("B", 1, 10)
        inp.pipe_input("C", 1, 15)
        p0, p1 = Capture.instances
        p0.check_and_clear(("A", change(1, None), 5), ("B", change(1, None), 10),
                           ("C", change(1, None), 15))
        p1.check_and_clear(("A", change(None, None), 5), ("B", change(None, None), 10),
                           ("C", change(None, None), 15))

        inp.pipe_input("A", 2, 15)
        inp.pipe_input("B", 2, 8)
        p0.check_and_clear(("A", change(2, None), 15), ("B", change(2, None), 8))
        p1.check_and_clear(("A", change(2, None), 15), ("B", change(2, None), 8))

        inp.pipe_input("A", 3, 20)
        p0.check_and_clear(("A", change(3, None), 20))
        p1.check_and_clear(("A", change(None, None), 20))
        inp.pipe_input("A", None, 10)
        inp.pipe_input("B", None, 20)
        p0.check_and_clear(("A", change(None, None), 10), ("B", change(None, None), 20))
        p1.check_and_clear(("A", change(None, None), 10), ("B", change(None, None), 20))


def test_should_not_send_old_values_without_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate)
    do_test_not_sending_old_value(builder, table1, table2, "topic1")


def test_should_not_send_old_values_on_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate, ks.Materialized.as_("store2"))
    do_test_not_sending_old_value(builder, table1, table2, "topic1")


def test_should_not_enable_sending_old_values_if_not_already_materialized_and_not_forced_to_materialize():  # noqa: E501
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate)
    table2.enable_sending_old_values(False)
    do_test_not_sending_old_value(builder, table1, table2, "topic1")


def do_test_sending_old_value(builder, table1, table2, topic1):
    topology = builder.build()
    topology.add_processor("proc1", Capture, table1.name)
    topology.add_processor("proc2", Capture, table2.name)
    old = table1.sending_old_value_enabled()
    change = Change
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic(topic1, S, INT)
        inp.pipe_input("A", 1, 5)
        inp.pipe_input("B", 1, 10)
        inp.pipe_input("C", 1, 15)
        table1_output, table2_output = Capture.instances
        table1_output.check_and_clear(("A", change(1, None), 5), ("B", change(1, None), 10),
                                      ("C", change(1, None), 15))
        table2_output.check_and_clear()

        inp.pipe_input("A", 2, 15)
        inp.pipe_input("B", 2, 8)
        table1_output.check_and_clear(("A", change(2, 1 if old else None), 15),
                                      ("B", change(2, 1 if old else None), 8))
        table2_output.check_and_clear(("A", change(2, None), 15), ("B", change(2, None), 8))

        inp.pipe_input("A", 3, 20)
        table1_output.check_and_clear(("A", change(3, 2 if old else None), 20))
        table2_output.check_and_clear(("A", change(None, 2), 20))

        inp.pipe_input("A", None, 10)
        inp.pipe_input("B", None, 20)
        table1_output.check_and_clear(("A", change(None, 3 if old else None), 10),
                                      ("B", change(None, 2 if old else None), 20))
        table2_output.check_and_clear(("B", change(None, 2), 20))


def test_should_enable_send_old_values_when_not_materialized_already_but_forced_to_materialize():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate)
    table2.enable_sending_old_values(True)
    assert table1.sending_old_value_enabled() is True
    assert table2.sending_old_value_enabled() is True
    do_test_sending_old_value(builder, table1, table2, "topic1")


def test_should_enable_send_old_values_when_materialized_already_and_forced_to_materialize():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED)
    table2 = table1.filter(predicate, ks.Materialized.as_("store2"))
    table2.enable_sending_old_values(True)
    assert table1.sending_old_value_enabled() is False
    assert table2.sending_old_value_enabled() is True
    do_test_sending_old_value(builder, table1, table2, "topic1")


def test_should_send_old_values_when_enabled_on_up_stream_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", CONSUMED, ks.Materialized.as_("store2"))
    table2 = table1.filter(predicate)
    table2.enable_sending_old_values(False)
    assert table1.sending_old_value_enabled() is True
    assert table2.sending_old_value_enabled() is True
    do_test_sending_old_value(builder, table1, table2, "topic1")


def do_test_skip_null_on_materialization(builder, table1, table2, topic1, should_skip):
    topology = builder.build()
    topology.add_processor("proc1", Capture, table1.name)
    topology.add_processor("proc2", Capture, table2.name)
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic(topic1, S, S)
        inp.pipe_input("A", "reject", 5)
        inp.pipe_input("B", "reject", 10)
        inp.pipe_input("C", "reject", 20)
    p0, p1 = Capture.instances
    change = Change
    p0.check_and_clear(("A", change("reject", None), 5), ("B", change("reject", None), 10),
                       ("C", change("reject", None), 20))
    if should_skip:
        p1.check_and_clear()
    else:
        p1.check_and_clear(("A", change(None, None), 5), ("B", change(None, None), 10),
                           ("C", change(None, None), 20))


def accept(key, value):
    return value.lower() == "accept"


def string_adder(agg, value):
    return f"{agg}+{value}"


def string_remover(agg, value):
    return f"{agg}-{value}"


def no_op(key, value):
    return ks.KeyValue(key, value)


def test_should_skip_null_to_repartition_without_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", ks.Consumed.with_(S, S))
    table2 = table1.filter(accept)
    table2.group_by(no_op).reduce(string_adder, string_remover)
    do_test_skip_null_on_materialization(builder, table1, table2, "topic1", True)


def test_should_skip_null_to_repartition_on_materialization():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", ks.Consumed.with_(S, S))
    table2 = table1.filter(accept, ks.Materialized.as_("store2"))
    table2.group_by(no_op).reduce(string_adder, string_remover,
                                  ks.Materialized.as_("mock-result"))
    do_test_skip_null_on_materialization(builder, table1, table2, "topic1", True)


def test_should_not_skip_null_if_versioned_upstream():
    builder = ks.StreamsBuilder()
    versioned = ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("versioned", datetime.timedelta(minutes=5)))
    table1 = builder.table("topic1", ks.Consumed.with_(S, S), versioned)
    table2 = table1.filter(accept)
    table2.group_by(no_op).reduce(string_adder, string_remover)
    do_test_skip_null_on_materialization(builder, table1, table2, "topic1", False)


def test_should_skip_null_if_versioned_downstream():
    builder = ks.StreamsBuilder()
    versioned = ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("versioned", datetime.timedelta(minutes=5)))
    table1 = builder.table("topic1", ks.Consumed.with_(S, S), ks.Materialized.as_("store"))
    table2 = table1.filter(accept, versioned)
    table2.group_by(no_op).reduce(string_adder, string_remover)
    do_test_skip_null_on_materialization(builder, table1, table2, "topic1", True)
