"""Kafka's ``SlidingWindowedKStreamImplTest``, translated to kslab's ``TimeWindowedKStream`` over
``SlidingWindows``.

``MockApiProcessorSupplier.theCapturedProcessor().lastValueAndTimestampPerKey()`` is the last
``(value, timestamp)`` per windowed key of the captured records; ``StreamsTestUtils.toList(
store.fetch(...))`` is ``list(...)``. Java's ``NullPointerException`` is
``kslab.errors.MissingArgumentError`` and ``IllegalArgumentException``
``kslab.errors.InvalidArgumentError``. Skipped: the tests passing a ``null`` ``Materialized`` or
``Named`` (in kslab's Python API ``None`` means the default, as an omitted argument).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SlidingWindows
from kslab.errors import InvalidArgumentError, MissingArgumentError
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
TOPIC = "input"
VT, KV = ks.ValueAndTimestamp, ks.KeyValue


def W(key: str, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def string_init() -> str:
    return "0"


def to_string_adder(key: object, value: object, agg: str) -> str:
    return f"{agg}+{value}"


def string_adder(one: str, two: str) -> str:
    return f"{one}+{two}"


@pytest.fixture
def builder() -> ks.StreamsBuilder:
    return ks.StreamsBuilder()


@pytest.fixture
def windowed_stream(builder: ks.StreamsBuilder):
    return (builder.stream(TOPIC, ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
            .windowed_by(SlidingWindows.of_time_difference_and_grace(100, 1000)))


def process_data(driver: ks.TopologyTestDriver) -> None:
    topic = driver.create_input_topic(TOPIC, S, S)
    for key, value, ts in [("1", "1", 100), ("1", "2", 150), ("1", "3", 500), ("2", "10", 200),
                           ("2", "20", 150)]:
        topic.pipe_input(key, value, ts)


def last_value_and_timestamp_per_key(supplier: MockApiProcessorSupplier) -> dict:
    return {key: VT(value, ts) for key, value, ts in supplier.the_captured_processor().processed}


def _run_capture(builder, table) -> dict:
    supplier = MockApiProcessorSupplier()
    table.to_stream().process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
    return last_value_and_timestamp_per_key(supplier)


WINDOWS = [W("1", 0, 100), W("1", 101, 201), W("1", 50, 150), W("1", 400, 500),
           W("2", 100, 200), W("2", 50, 150), W("2", 151, 251)]
TIMES = [100, 150, 150, 500, 200, 150, 200]


def _expect(last: dict, values: list) -> None:
    for window, value, ts in zip(WINDOWS, values, TIMES, strict=True):
        assert last[window] == VT(value, ts)


def test_should_count_sliding_windows(builder, windowed_stream) -> None:
    _expect(_run_capture(builder, windowed_stream.count()), [1, 1, 2, 1, 2, 1, 1])


def test_should_reduce_sliding_windows(builder, windowed_stream) -> None:
    _expect(_run_capture(builder, windowed_stream.reduce(string_adder)),
            ["1", "2", "1+2", "3", "10+20", "20", "10"])


def test_should_aggregate_sliding_windows(builder, windowed_stream) -> None:
    table = windowed_stream.aggregate(string_init, to_string_adder, ks.Materialized.with_(S, S))
    _expect(_run_capture(builder, table), ["0+1", "0+2", "0+1+2", "0+3", "0+10+20", "0+20",
                                           "0+10"])


STORE_ORDER = [W("1", 0, 100), W("1", 50, 150), W("1", 101, 201), W("1", 400, 500),
               W("2", 50, 150), W("2", 100, 200), W("2", 151, 251)]
STORE_TIMES = [100, 150, 150, 500, 150, 200, 200]


def _check_store(builder, store: str, values: list) -> None:
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        process_data(driver)
        with driver.get_window_store(store).fetch("1", "2", 0, 1000) as it:
            assert list(it) == [KV(w, v) for w, v in zip(STORE_ORDER, values, strict=True)]
        with driver.get_timestamped_window_store(store).fetch("1", "2", 0, 1000) as it:
            assert list(it) == [KV(w, VT(v, ts)) for w, v, ts in
                                zip(STORE_ORDER, values, STORE_TIMES, strict=True)]


def test_should_materialize_count(builder, windowed_stream) -> None:
    windowed_stream.count(ks.Materialized.as_("count-store").with_key_serde(S)
                          .with_value_serde(serdes.Long()))
    _check_store(builder, "count-store", [1, 2, 1, 1, 1, 2, 1])


def test_should_materialize_reduced(builder, windowed_stream) -> None:
    windowed_stream.reduce(string_adder, ks.Materialized.as_("reduced").with_key_serde(S)
                           .with_value_serde(S))
    _check_store(builder, "reduced", ["1", "1+2", "2", "3", "20", "10+20", "10"])


def test_should_materialize_aggregated(builder, windowed_stream) -> None:
    windowed_stream.aggregate(string_init, to_string_adder, ks.Materialized.as_("aggregated")
                              .with_key_serde(S).with_value_serde(S))
    _check_store(builder, "aggregated", ["0+1", "0+1+2", "0+2", "0+3", "0+20", "0+10+20",
                                         "0+10"])


def test_should_throw_null_pointer_on_aggregate_if_initializer_is_null(windowed_stream) -> None:
    with pytest.raises(MissingArgumentError):
        windowed_stream.aggregate(None, to_string_adder)


def test_should_throw_null_pointer_on_aggregate_if_aggregator_is_null(windowed_stream) -> None:
    with pytest.raises(MissingArgumentError):
        windowed_stream.aggregate(string_init, None)


def test_should_throw_null_pointer_on_reduce_if_reducer_is_null(windowed_stream) -> None:
    with pytest.raises(MissingArgumentError):
        windowed_stream.reduce(None)


def test_should_throw_null_pointer_on_materialized_aggregate_if_initializer_is_null(
        windowed_stream) -> None:
    with pytest.raises(MissingArgumentError):
        windowed_stream.aggregate(None, to_string_adder, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_materialized_aggregate_if_aggregator_is_null(
        windowed_stream) -> None:
    with pytest.raises(MissingArgumentError):
        windowed_stream.aggregate(string_init, None, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_materialized_reduce_if_reducer_is_null(
        windowed_stream) -> None:
    with pytest.raises(MissingArgumentError):
        windowed_stream.reduce(None, ks.Materialized.as_("store"))


def test_should_throw_illegal_argument_when_retention_is_too_small(windowed_stream) -> None:
    with pytest.raises(InvalidArgumentError):
        windowed_stream.aggregate(string_init, to_string_adder,
                                  ks.Materialized.as_("aggregated").with_key_serde(S)
                                  .with_value_serde(S).with_retention(1))


def test_should_drop_windows_outside_of_retention(builder, windowed_stream) -> None:
    store_supplier = ks.Stores.in_memory_window_store("aggregated", 1200, 100, False)
    windowed_stream.aggregate(string_init, to_string_adder,
                              ks.Materialized.as_(store_supplier).with_key_serde(S)
                              .with_value_serde(S).with_caching_disabled())
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic(TOPIC, S, S)
        for value, ts in [("2", 100), ("3", 500), ("4", 799), ("4", 1000), ("5", 2000)]:
            topic.pipe_input("1", value, ts)
        with driver.get_window_store("aggregated").fetch("1", "1", 0, 10000) as it:
            assert list(it) == [KV(W("1", 900, 1000), "0+4"), KV(W("1", 1900, 2000), "0+5")]
        with driver.get_timestamped_window_store("aggregated").fetch("1", "1", 0, 2000) as it:
            assert list(it) == [KV(W("1", 900, 1000), VT("0+4", 1000)),
                                KV(W("1", 1900, 2000), VT("0+5", 2000))]
