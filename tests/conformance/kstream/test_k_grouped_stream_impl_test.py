"""Kafka's ``KGroupedStreamImplTest``, its non-windowed tests: argument checks of ``cogroup``,
``reduce`` and ``aggregate``, and count/reduce/aggregate results in their stores.

Mapping: Java's ``NullPointerException`` for a null function is ``MissingArgumentError``
with Java's message, and ``TopologyException`` is ``ks.TopologyError``; Log4j's
``LogCaptureAppender`` is pytest's ``caplog``; ``MockApiProcessor.lastValueAndTimestampPerKey``
is computed from the captured records. Skipped: the windowed tests (translated in the windowed
conformance files) and the ``(Materialized) null`` tests (in Python ``materialized=None`` is the
default, "not materialized", not an error).
"""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import Change
from kslab.errors import MissingArgumentError

S = serdes.String()
TOPIC = "topic"
INVALID_STORE_NAME = "~foo bar~"
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}


@pytest.fixture
def builder():
    return ks.StreamsBuilder()


@pytest.fixture
def grouped_stream(builder):
    stream = builder.stream(TOPIC, ks.Consumed.with_(S, S))
    return stream.group_by_key(ks.Grouped.with_(S, S))


def string_adder(agg, value):
    return f"{agg}+{value}"


def string_init():
    return "0"


def tostring_adder(key, value, agg):
    return f"{agg}+{value}"


def test_should_not_have_null_aggregator_on_cogroup(grouped_stream):
    with pytest.raises(MissingArgumentError, match="aggregator can't be null"):
        grouped_stream.cogroup(None)


def test_should_not_have_null_reducer_on_reduce(grouped_stream):
    with pytest.raises(MissingArgumentError, match="reducer can't be null"):
        grouped_stream.reduce(None)


def test_should_not_have_invalid_store_name_on_reduce(grouped_stream):
    with pytest.raises(ks.TopologyError):
        grouped_stream.reduce(string_adder, ks.Materialized.as_(INVALID_STORE_NAME))


def test_should_not_have_null_initializer_on_aggregate(grouped_stream):
    with pytest.raises(MissingArgumentError, match="initializer can't be null"):
        grouped_stream.aggregate(None, tostring_adder, ks.Materialized.as_("store"))


def test_should_not_have_null_adder_on_aggregate(grouped_stream):
    with pytest.raises(MissingArgumentError, match="aggregator can't be null"):
        grouped_stream.aggregate(string_init, None, ks.Materialized.as_("store"))


def test_should_not_have_invalid_store_name_on_aggregate(grouped_stream):
    with pytest.raises(ks.TopologyError):
        grouped_stream.aggregate(string_init, tostring_adder,
                                 ks.Materialized.as_(INVALID_STORE_NAME))


def process_data(driver):
    inp = driver.create_input_topic(TOPIC, S, S)
    inp.pipe_input("1", "A", 5)
    inp.pipe_input("2", "B", 1)
    inp.pipe_input("1", "C", 3)
    inp.pipe_input("1", "D", 10)
    inp.pipe_input("3", "E", 8)
    inp.pipe_input("3", "F", 9)
    inp.pipe_input("3", None)


def test_should_count_and_materialize_results(builder, grouped_stream):
    grouped_stream.count(ks.Materialized.as_("count").with_key_serde(S))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
        count = driver.get_key_value_store("count")
        assert count.get("1") == 3
        assert count.get("2") == 1
        assert count.get("3") == 2
        count = driver.get_timestamped_key_value_store("count")
        assert count.get("1") == ks.ValueAndTimestamp(3, 10)
        assert count.get("2") == ks.ValueAndTimestamp(1, 1)
        assert count.get("3") == ks.ValueAndTimestamp(2, 9)


def messages(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records]


def test_should_log_and_measure_skips_in_aggregate(builder, grouped_stream, caplog):
    grouped_stream.count(ks.Materialized.as_("count").with_key_serde(S))
    with caplog.at_level(logging.WARNING, logger="kslab"), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
        assert ("Skipping record due to null key or value. topic=[topic] partition=[0] "
                "offset=[6]") in messages(caplog)


def reduce_materialized():
    return ks.Materialized.as_("reduce").with_key_serde(S).with_value_serde(S)


def test_should_reduce_and_materialize_results(builder, grouped_stream):
    grouped_stream.reduce(string_adder, reduce_materialized())
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
        reduced = driver.get_key_value_store("reduce")
        assert reduced.get("1") == "A+C+D"
        assert reduced.get("2") == "B"
        assert reduced.get("3") == "E+F"
        reduced = driver.get_timestamped_key_value_store("reduce")
        assert reduced.get("1") == ks.ValueAndTimestamp("A+C+D", 10)
        assert reduced.get("2") == ks.ValueAndTimestamp("B", 1)
        assert reduced.get("3") == ks.ValueAndTimestamp("E+F", 9)


def test_should_log_and_measure_skips_in_reduce(builder, grouped_stream, caplog):
    grouped_stream.reduce(string_adder, reduce_materialized())
    with caplog.at_level(logging.WARNING, logger="kslab"), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
        assert ("Skipping record due to null key or value. topic=[topic] partition=[0] "
                "offset=[6]") in messages(caplog)


def test_should_aggregate_and_materialize_results(builder, grouped_stream):
    grouped_stream.aggregate(string_init, tostring_adder,
                             ks.Materialized.as_("aggregate").with_key_serde(S)
                             .with_value_serde(S))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
        aggregate = driver.get_key_value_store("aggregate")
        assert aggregate.get("1") == "0+A+C+D"
        assert aggregate.get("2") == "0+B"
        assert aggregate.get("3") == "0+E+F"
        aggregate = driver.get_timestamped_key_value_store("aggregate")
        assert aggregate.get("1") == ks.ValueAndTimestamp("0+A+C+D", 10)
        assert aggregate.get("2") == ks.ValueAndTimestamp("0+B", 1)
        assert aggregate.get("3") == ks.ValueAndTimestamp("0+E+F", 9)


class Capture(ks.Processor):
    """Java's MockApiProcessor, keeping the last value and timestamp per key."""

    last: dict = {}

    def process(self, record):
        Capture.last[record.key] = ks.ValueAndTimestamp(record.value, record.timestamp)


def test_should_aggregate_with_default_serdes(builder, grouped_stream):
    Capture.last = {}
    grouped_stream.aggregate(string_init, tostring_adder).to_stream().process(Capture)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
        assert Capture.last["1"] == ks.ValueAndTimestamp("0+A+C+D", 10)
        assert Capture.last["2"] == ks.ValueAndTimestamp("0+B", 1)
        assert Capture.last["3"] == ks.ValueAndTimestamp("0+E+F", 9)


class ChangeCapture(ks.Processor):
    """Records the ``Change`` records a table node forwards."""

    seen: list = []

    def process(self, record):
        ChangeCapture.seen.append((record.key, record.value, record.timestamp))


@pytest.mark.parametrize("cached", [False, True])
def test_aggregate_sends_the_initial_value_as_old_value(cached):
    # Beyond the Java test: KStreamAggregate forwards Change(newAgg, sendOldValues ? oldAgg :
    # null) where oldAgg is the initializer's value for a new key (KStreamReduce: null); a
    # cached store forwards on flush with the old value it read from the store (null).
    builder = ks.StreamsBuilder()
    grouped = builder.stream(TOPIC, ks.Consumed.with_(S, S)).group_by_key()
    aggregated = grouped.aggregate(string_init, tostring_adder, ks.Materialized.with_(S, S))
    reduced = grouped.reduce(string_adder, ks.Materialized.with_(S, S))
    aggregated.enable_sending_old_values(True)
    reduced.enable_sending_old_values(True)
    topology = builder.build()
    topology.add_processor("agg", ChangeCapture, aggregated.name)
    topology.add_processor("red", ChangeCapture, reduced.name)
    ChangeCapture.seen = []
    config = dict(PROPS, **({} if cached else {"statestore.cache.max.bytes": 0}))
    with ks.TopologyTestDriver(topology, config) as driver:
        inp = driver.create_input_topic(TOPIC, S, S)
        inp.pipe_input("1", "A", 5)
        inp.pipe_input("1", "B", 3)
    first_old = None if cached else "0"
    assert ChangeCapture.seen == [
        ("1", Change("0+A", first_old), 5), ("1", Change("A", None), 5),
        ("1", Change("0+A+B", "0+A"), 5), ("1", Change("A+B", "A"), 5)]
