"""Kafka's ``DeveloperGuideTesting`` (streams/examples, the developer guide's testing page).

Translated to kslab's ``Topology`` and test driver as written: ``Instant.now()`` is
``datetime.now(UTC)``, ``Duration.ofSeconds(60)`` is ``timedelta(seconds=60)``. Nothing
skipped.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import kslab as ks
from kslab import serdes

STRING_SERDE = serdes.String()
LONG_SERDE = serdes.Long()


class CustomMaxAggregator(ks.Processor):
    """Keeps the max per key; forwards the whole store every 60 s wall-clock / 10 s stream time."""

    def init(self, context):
        self.context = context
        context.schedule(timedelta(seconds=60), ks.PunctuationType.WALL_CLOCK_TIME,
                         self.flush_store)
        context.schedule(timedelta(seconds=10), ks.PunctuationType.STREAM_TIME, self.flush_store)
        self.store = context.get_state_store("aggStore")

    def process(self, record):
        old_value = self.store.get(record.key)
        if old_value is None or record.value > old_value:
            self.store.put(record.key, record.value)

    def flush_store(self, timestamp):
        with self.store.all() as it:
            for entry in it:
                self.context.forward(ks.Record(entry.key, entry.value, timestamp))


class CustomMaxAggregatorSupplier:
    def __call__(self):
        return CustomMaxAggregator()


class Fixture:
    def __init__(self):
        topology = ks.Topology()
        topology.add_source("sourceProcessor", "input-topic")
        topology.add_processor("aggregator", CustomMaxAggregatorSupplier(), "sourceProcessor")
        topology.add_state_store(
            ks.Stores.key_value_store_builder(
                ks.Stores.in_memory_key_value_store("aggStore"),
                serdes.String(),
                serdes.Long()).with_logging_disabled(),  # to allow store pre-populating
            "aggregator")
        topology.add_sink("sinkProcessor", "result-topic", "aggregator")

        props = {"default.key.serde": "string", "default.value.serde": "long"}
        self.test_driver = ks.TopologyTestDriver(topology, props)

        self.input_topic = self.test_driver.create_input_topic(
            "input-topic", STRING_SERDE, LONG_SERDE)
        self.output_topic = self.test_driver.create_output_topic(
            "result-topic", STRING_SERDE, LONG_SERDE)

        # pre-populate store
        self.store = self.test_driver.get_key_value_store("aggStore")
        self.store.put("a", 21)


@pytest.fixture
def t():
    fixture = Fixture()
    yield fixture
    fixture.test_driver.close()


def test_should_flush_store_for_first_input(t):
    t.input_topic.pipe_input("a", 1)
    assert t.output_topic.read_key_value() == ks.KeyValue("a", 21)
    assert t.output_topic.is_empty() is True


def test_should_not_update_store_for_smaller_value(t):
    t.input_topic.pipe_input("a", 1)
    assert t.store.get("a") == 21
    assert t.output_topic.read_key_value() == ks.KeyValue("a", 21)
    assert t.output_topic.is_empty() is True


def test_should_not_update_store_for_larger_value(t):
    t.input_topic.pipe_input("a", 42)
    assert t.store.get("a") == 42
    assert t.output_topic.read_key_value() == ks.KeyValue("a", 42)
    assert t.output_topic.is_empty() is True


def test_should_update_store_for_new_key(t):
    t.input_topic.pipe_input("b", 21)
    assert t.store.get("b") == 21
    assert t.output_topic.read_key_value() == ks.KeyValue("a", 21)
    assert t.output_topic.read_key_value() == ks.KeyValue("b", 21)
    assert t.output_topic.is_empty() is True


def test_should_punctuate_if_even_time_advances(t):
    record_time = datetime.now(UTC)
    t.input_topic.pipe_input("a", 1, record_time)
    assert t.output_topic.read_key_value() == ks.KeyValue("a", 21)

    t.input_topic.pipe_input("a", 1, record_time)
    assert t.output_topic.is_empty() is True

    t.input_topic.pipe_input("a", 1, record_time + timedelta(seconds=10))
    assert t.output_topic.read_key_value() == ks.KeyValue("a", 21)
    assert t.output_topic.is_empty() is True


def test_should_punctuate_if_wall_clock_time_advances(t):
    t.test_driver.advance_wall_clock_time(timedelta(seconds=60))
    assert t.output_topic.read_key_value() == ks.KeyValue("a", 21)
    assert t.output_topic.is_empty() is True
