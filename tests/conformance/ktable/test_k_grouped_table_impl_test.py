"""Kafka's ``KGroupedTableImplTest``: argument checks of a grouped table's ``aggregate`` and
``reduce``, and reduce/count/aggregate results in their stores and downstream.

Mapping: Java's ``NullPointerException`` for a null function is ``MissingArgumentError``
with Java's message, and ``TopologyException`` is ``ks.TopologyError``;
``MockApiProcessor.lastValueAndTimestampPerKey`` is computed from the captured records;
``Number.intValue()`` is ``int()``. Skipped: the ``(Materialized) null`` tests (in Python
``materialized=None`` is the default, "not materialized", not an error).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError

S, D, INT, L = serdes.String(), serdes.Double(), serdes.Integer(), serdes.Long()
INVALID_STORE_NAME = "~foo bar~"
PROPS = {"default.key.serde": "string", "default.value.serde": "integer"}
TOPIC = "input"


@pytest.fixture
def builder():
    return ks.StreamsBuilder()


def select_value(key, value):
    return ks.KeyValue(value, value)


@pytest.fixture
def grouped_table(builder):
    return builder.table("blah", ks.Consumed.with_(S, S)).group_by(select_value)


def string_init():
    return "0"


def tostring_adder(key, value, agg):
    return f"{agg}+{value}"


def tostring_remover(key, value, agg):
    return f"{agg}-{value}"


def string_adder(agg, value):
    return f"{agg}+{value}"


def string_remover(agg, value):
    return f"{agg}-{value}"


def test_should_not_allow_invalid_store_name_on_aggregate(grouped_table):
    with pytest.raises(ks.TopologyError):
        grouped_table.aggregate(string_init, tostring_adder, tostring_remover,
                                ks.Materialized.as_(INVALID_STORE_NAME))


def test_should_not_allow_null_initializer_on_aggregate(grouped_table):
    with pytest.raises(MissingArgumentError, match="initializer can't be null"):
        grouped_table.aggregate(None, tostring_adder, tostring_remover,
                                ks.Materialized.as_("store"))


def test_should_not_allow_null_adder_on_aggregate(grouped_table):
    with pytest.raises(MissingArgumentError, match="adder can't be null"):
        grouped_table.aggregate(string_init, None, tostring_remover, ks.Materialized.as_("store"))


def test_should_not_allow_null_subtractor_on_aggregate(grouped_table):
    with pytest.raises(MissingArgumentError, match="subtractor can't be null"):
        grouped_table.aggregate(string_init, tostring_adder, None, ks.Materialized.as_("store"))


def test_should_not_allow_null_adder_on_reduce(grouped_table):
    with pytest.raises(MissingArgumentError, match="adder can't be null"):
        grouped_table.reduce(None, string_remover, ks.Materialized.as_("store"))


def test_should_not_allow_null_subtractor_on_reduce(grouped_table):
    with pytest.raises(MissingArgumentError, match="subtractor can't be null"):
        grouped_table.reduce(string_adder, None, ks.Materialized.as_("store"))


def test_should_not_allow_invalid_store_name_on_reduce(grouped_table):
    with pytest.raises(ks.TopologyError):
        grouped_table.reduce(string_adder, string_remover,
                             ks.Materialized.as_(INVALID_STORE_NAME))


class Capture(ks.Processor):
    """Java's MockApiProcessor, keeping the last value and timestamp per key."""

    last: dict = {}

    def process(self, record):
        Capture.last[record.key] = ks.ValueAndTimestamp(record.value, record.timestamp)


@pytest.fixture(autouse=True)
def _clear():
    Capture.last = {}


def get_reduced_results(input_k_table):
    input_k_table.to_stream().process(Capture)
    return Capture.last


def assert_reduced(reduced_results, topic, driver):
    inp = driver.create_input_topic(topic, S, D)
    inp.pipe_input("A", 1.1, 10)
    inp.pipe_input("B", 2.2, 11)
    assert Capture.last.get("A") == ks.ValueAndTimestamp(1, 10)
    assert Capture.last.get("B") == ks.ValueAndTimestamp(2, 11)
    inp.pipe_input("A", 2.6, 30)
    inp.pipe_input("B", 1.3, 30)
    inp.pipe_input("A", 5.7, 50)
    inp.pipe_input("B", 6.2, 20)
    assert Capture.last.get("A") == ks.ValueAndTimestamp(5, 50)
    assert Capture.last.get("B") == ks.ValueAndTimestamp(6, 30)


def int_projection(key, value):
    return ks.KeyValue(key, int(value))


def integer_adder(agg, value):
    return agg + value


def integer_subtractor(agg, value):
    return agg - value


def test_should_reduce(builder):
    reduced = (builder.table(TOPIC, ks.Consumed.with_(S, D),
                             ks.Materialized.as_("store").with_key_serde(S).with_value_serde(D))
               .group_by(int_projection)
               .reduce(integer_adder, integer_subtractor, ks.Materialized.as_("reduced")))
    results = get_reduced_results(reduced)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        assert_reduced(results, TOPIC, driver)
        assert reduced.query_table_name() == "reduced"


def test_should_reduce_with_internal_store_name(builder):
    reduced = (builder.table(TOPIC, ks.Consumed.with_(S, D),
                             ks.Materialized.as_("store").with_key_serde(S).with_value_serde(D))
               .group_by(int_projection)
               .reduce(integer_adder, integer_subtractor))
    results = get_reduced_results(reduced)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        assert_reduced(results, TOPIC, driver)
        assert reduced.query_table_name() is None


def test_should_reduce_and_materialize_results(builder):
    reduced = (builder.table(TOPIC, ks.Consumed.with_(S, D))
               .group_by(int_projection)
               .reduce(integer_adder, integer_subtractor,
                       ks.Materialized.as_("reduce").with_key_serde(S).with_value_serde(INT)))
    results = get_reduced_results(reduced)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        assert_reduced(results, TOPIC, driver)
        reduce = driver.get_key_value_store("reduce")
        assert reduce.get("A") == 5
        assert reduce.get("B") == 6
        reduce = driver.get_timestamped_key_value_store("reduce")
        assert reduce.get("A") == ks.ValueAndTimestamp(5, 50)
        assert reduce.get("B") == ks.ValueAndTimestamp(6, 30)


def process_data(topic, driver):
    inp = driver.create_input_topic(topic, S, S)
    inp.pipe_input("A", "1", 10)
    inp.pipe_input("B", "1", 50)
    inp.pipe_input("C", "1", 30)
    inp.pipe_input("D", "2", 40)
    inp.pipe_input("E", "2", 60)


def test_should_count_and_materialize_results(builder):
    (builder.table(TOPIC, ks.Consumed.with_(S, S))
     .group_by(select_value, ks.Grouped.with_(S, S))
     .count(ks.Materialized.as_("count").with_key_serde(S).with_value_serde(L)))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(TOPIC, driver)
        counts = driver.get_key_value_store("count")
        assert counts.get("1") == 3
        assert counts.get("2") == 2
        counts = driver.get_timestamped_key_value_store("count")
        assert counts.get("1") == ks.ValueAndTimestamp(3, 50)
        assert counts.get("2") == ks.ValueAndTimestamp(2, 60)


def test_should_aggregate_and_materialize_results(builder):
    (builder.table(TOPIC, ks.Consumed.with_(S, S))
     .group_by(select_value, ks.Grouped.with_(S, S))
     .aggregate(string_init, tostring_adder, tostring_remover,
                ks.Materialized.as_("aggregate").with_value_serde(S).with_key_serde(S)))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(TOPIC, driver)
        aggregate = driver.get_key_value_store("aggregate")
        assert aggregate.get("1") == "0+1+1+1"
        assert aggregate.get("2") == "0+2+2"
        aggregate = driver.get_timestamped_key_value_store("aggregate")
        assert aggregate.get("1") == ks.ValueAndTimestamp("0+1+1+1", 50)
        assert aggregate.get("2") == ks.ValueAndTimestamp("0+2+2", 60)


def test_should_throw_null_pointer_on_reduce_when_adder_is_null(grouped_table):
    with pytest.raises(MissingArgumentError, match="adder can't be null"):
        grouped_table.reduce(None, string_remover, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_reduce_when_subtractor_is_null(grouped_table):
    with pytest.raises(MissingArgumentError, match="subtractor can't be null"):
        grouped_table.reduce(string_adder, None, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_aggregate_when_initializer_is_null(grouped_table):
    with pytest.raises(MissingArgumentError, match="initializer can't be null"):
        grouped_table.aggregate(None, tostring_adder, tostring_remover,
                                ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_aggregate_when_adder_is_null(grouped_table):
    with pytest.raises(MissingArgumentError, match="adder can't be null"):
        grouped_table.aggregate(string_init, None, tostring_remover, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_aggregate_when_subtractor_is_null(grouped_table):
    with pytest.raises(MissingArgumentError, match="subtractor can't be null"):
        grouped_table.aggregate(string_init, tostring_adder, None, ks.Materialized.as_("store"))
