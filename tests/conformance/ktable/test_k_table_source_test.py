"""Kafka's ``KTableSourceTest``: a table source's changes, its log lines for skipped and
out-of-order records, its value getter, and old values.

Mapping: ``MockApiProcessorSupplier`` is ``Capture``; Log4j's ``LogCaptureAppender`` is pytest's
``caplog`` (kslab logs under ``kslab``); ``KTableImpl.name``, ``valueGetterSupplier()``,
``enableSendingOldValues`` and ``sendingOldValueEnabled`` are ``name``,
``value_getter_supplier()``, ``enable_sending_old_values`` and ``sending_old_value_enabled``;
Java's ``TopologyTestDriverWrapper.setCurrentNodeForProcessorContext`` becomes a processor hung
under the table node and connected to the getter's store, which initializes the getter.
Skipped: ``testKTableSourceEmitOnChange`` (``@Disabled`` in Kafka: KIP-557 is turned off).
"""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import Change

S, INT = serdes.String(), serdes.Integer()
STRING_CONSUMED = ks.Consumed.with_(S, S)
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


def test_k_table():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", ks.Consumed.with_(S, INT))
    table1.to_stream().process(Capture)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("topic1", S, INT)
        inp.pipe_input("A", 1, 10)
        inp.pipe_input("B", 2, 11)
        inp.pipe_input("C", 3, 12)
        inp.pipe_input("D", 4, 13)
        inp.pipe_input("A", None, 14)
        inp.pipe_input("B", None, 15)
    (proc,) = Capture.instances
    assert proc.processed == [("A", 1, 10), ("B", 2, 11), ("C", 3, 12), ("D", 4, 13),
                              ("A", None, 14), ("B", None, 15)]


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_k_table_should_log_and_meter_on_skipped_records(caplog):
    builder = ks.StreamsBuilder()
    builder.table("topic", STRING_CONSUMED)
    with caplog.at_level(logging.WARNING, logger="kslab"), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        driver.create_input_topic("topic", S, S).pipe_input(None, "value")
        assert "Skipping record due to null key. topic=[topic] partition=[0] offset=[0]" \
            in warnings(caplog)


def test_k_table_should_log_on_out_of_order(caplog):
    builder = ks.StreamsBuilder()
    builder.table("topic", STRING_CONSUMED, ks.Materialized.as_("store"))
    with caplog.at_level(logging.WARNING, logger="kslab"), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic("topic", S, S)
        inp.pipe_input("key", "value", 10)
        inp.pipe_input("key", "value", 5)
        assert ("Detected out-of-order KTable update for store, old timestamp=[10] new "
                "timestamp=[5]. topic=[topic] partition=[0] offset=[1].") in warnings(caplog)


class Getters(ks.Processor):
    """Initializes value getters with a processor context, as the driver wrapper does."""

    getters: list = []

    def init(self, context):
        for getter in Getters.getters:
            getter.init(context)

    def process(self, record):
        pass


def test_value_getter():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", STRING_CONSUMED, ks.Materialized.as_("store"))
    topology = builder.build()
    getter_supplier1 = table1.value_getter_supplier()
    getter1 = getter_supplier1.get()
    Getters.getters = [getter1]
    topology.add_processor("getters", Getters, table1.name)
    topology.connect_processor_and_state_stores("getters", *getter_supplier1.store_names())
    vat = ks.ValueAndTimestamp
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic("topic1", S, S)
        inp.pipe_input("A", "01", 10)
        inp.pipe_input("B", "01", 20)
        inp.pipe_input("C", "01", 15)
        assert getter1.get("A") == vat("01", 10)
        assert getter1.get("B") == vat("01", 20)
        assert getter1.get("C") == vat("01", 15)

        inp.pipe_input("A", "02", 30)
        inp.pipe_input("B", "02", 5)
        assert getter1.get("A") == vat("02", 30)
        assert getter1.get("B") == vat("02", 5)
        assert getter1.get("C") == vat("01", 15)

        inp.pipe_input("A", "03", 29)
        assert getter1.get("A") == vat("03", 29)
        assert getter1.get("B") == vat("02", 5)
        assert getter1.get("C") == vat("01", 15)

        inp.pipe_input("A", None, 50)
        inp.pipe_input("B", None, 3)
        assert getter1.get("A") is None
        assert getter1.get("B") is None
        assert getter1.get("C") == vat("01", 15)


def test_not_sending_old_value():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", STRING_CONSUMED)
    topology = builder.build().add_processor("proc1", Capture, table1.name)
    change = Change
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic("topic1", S, S)
        (proc1,) = Capture.instances
        inp.pipe_input("A", "01", 10)
        inp.pipe_input("B", "01", 20)
        inp.pipe_input("C", "01", 15)
        proc1.check_and_clear(("A", change("01", None), 10), ("B", change("01", None), 20),
                              ("C", change("01", None), 15))
        inp.pipe_input("A", "02", 8)
        inp.pipe_input("B", "02", 22)
        proc1.check_and_clear(("A", change("02", None), 8), ("B", change("02", None), 22))
        inp.pipe_input("A", "03", 12)
        proc1.check_and_clear(("A", change("03", None), 12))
        inp.pipe_input("A", None, 15)
        inp.pipe_input("B", None, 20)
        proc1.check_and_clear(("A", change(None, None), 15), ("B", change(None, None), 20))


def test_sending_old_value():
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic1", STRING_CONSUMED)
    table1.enable_sending_old_values(True)
    assert table1.sending_old_value_enabled()
    topology = builder.build().add_processor("proc1", Capture, table1.name)
    change = Change
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        inp = driver.create_input_topic("topic1", S, S)
        (proc1,) = Capture.instances
        inp.pipe_input("A", "01", 10)
        inp.pipe_input("B", "01", 20)
        inp.pipe_input("C", "01", 15)
        proc1.check_and_clear(("A", change("01", None), 10), ("B", change("01", None), 20),
                              ("C", change("01", None), 15))
        inp.pipe_input("A", "02", 8)
        inp.pipe_input("B", "02", 22)
        proc1.check_and_clear(("A", change("02", "01"), 8), ("B", change("02", "01"), 22))
        inp.pipe_input("A", "03", 12)
        proc1.check_and_clear(("A", change("03", "02"), 12))
        inp.pipe_input("A", None, 15)
        inp.pipe_input("B", None, 20)
        proc1.check_and_clear(("A", change(None, "03"), 15), ("B", change(None, "02"), 20))
