"""The windowed tests of Kafka's ``KGroupedStreamImplTest``, translated to kslab.

Only the tests on ``windowedBy`` (time, sliding and session windows) are here; the rest of the
class is not windowed. Java's ``NullPointerException`` is ``kslab.errors.MissingArgumentError``,
``TopologyException`` ``ks.TopologyError``. ``lastValueAndTimestampPerKey()`` is the last
``(value, timestamp)`` per windowed key of the captured records. Skipped:
``shouldNotAcceptNullStateStoreSupplierWhenReducingSessionWindows`` passes ``Materialized.as(
(String) null)`` (in kslab ``Materialized.as_(None)`` is a missing name, raised before ``reduce``
sees the null reducer the test is about; the null reducer is covered by
``shouldNotAcceptNullReducerWhenReducingSessionWindows``).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SessionWindows, SlidingWindows, TimeWindows
from kslab.errors import MissingArgumentError
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
TOPIC = "topic"
INVALID_STORE_NAME = "~foo bar~"
VT = ks.ValueAndTimestamp


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
def grouped_stream(builder: ks.StreamsBuilder):
    return builder.stream(TOPIC, ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))


TEN = TimeWindows.of_size_with_no_grace(10)
SLIDING = SlidingWindows.of_time_difference_and_grace(10, 100)
SESSION30 = SessionWindows.of_inactivity_gap_with_no_grace(30)


def test_should_not_have_null_reducer_with_windowed_reduce(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(TEN).reduce(None, ks.Materialized.as_("store"))


def test_should_not_have_null_windows_with_windowed_reduce(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(None)


def test_should_not_have_invalid_store_name_with_windowed_reduce(grouped_stream) -> None:
    with pytest.raises(ks.TopologyError):
        grouped_stream.windowed_by(TEN).reduce(string_adder,
                                               ks.Materialized.as_(INVALID_STORE_NAME))


def test_should_not_have_null_initializer_on_windowed_aggregate(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(TEN).aggregate(None, to_string_adder,
                                                  ks.Materialized.as_("store"))


def test_should_not_have_null_adder_on_windowed_aggregate(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(TEN).aggregate(string_init, None, ks.Materialized.as_("store"))


def test_should_not_have_null_windows_on_windowed_aggregate(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(None)


def test_should_not_have_invalid_store_name_on_windowed_aggregate(grouped_stream) -> None:
    with pytest.raises(ks.TopologyError):
        grouped_stream.windowed_by(TEN).aggregate(string_init, to_string_adder,
                                                  ks.Materialized.as_(INVALID_STORE_NAME))


def test_should_not_have_null_reducer_with_sliding_windowed_reduce(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(SLIDING).reduce(None, ks.Materialized.as_("store"))


def test_should_not_have_null_windows_with_sliding_windowed_reduce(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(None)


def test_should_not_have_invalid_store_name_with_sliding_windowed_reduce(grouped_stream) -> None:
    with pytest.raises(ks.TopologyError):
        grouped_stream.windowed_by(SLIDING).reduce(string_adder,
                                                   ks.Materialized.as_(INVALID_STORE_NAME))


def test_should_not_have_null_initializer_on_sliding_windowed_aggregate(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(SLIDING).aggregate(None, to_string_adder,
                                                      ks.Materialized.as_("store"))


def test_should_not_have_null_adder_on_sliding_windowed_aggregate(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(SLIDING).aggregate(string_init, None,
                                                      ks.Materialized.as_("store"))


def test_should_not_have_invalid_store_name_on_sliding_windowed_aggregate(grouped_stream) -> None:
    with pytest.raises(ks.TopologyError):
        grouped_stream.windowed_by(SLIDING).aggregate(string_init, to_string_adder,
                                                      ks.Materialized.as_(INVALID_STORE_NAME))


def _pipe(builder, records) -> None:
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic(TOPIC, S, S)
        for key, value, ts in records:
            topic.pipe_input(key, value, ts)


def _do_count_sliding_windows(builder, supplier) -> None:
    _pipe(builder, [("1", "A", 500), ("1", "A", 999), ("1", "A", 600), ("2", "B", 500),
                    ("2", "B", 600), ("2", "B", 700), ("3", "C", 501), ("1", "A", 1000),
                    ("1", "A", 1000), ("2", "B", 1000), ("2", "B", 1000), ("3", "C", 600)])
    actual = sorted(supplier.the_captured_processor().processed,
                    key=lambda r: (r[0].key, r[0].window.start))
    assert actual == [
        (W("1", 0, 500), 1, 500), (W("1", 100, 600), 2, 600), (W("1", 499, 999), 2, 999),
        (W("1", 499, 999), 3, 999), (W("1", 500, 1000), 4, 1000), (W("1", 500, 1000), 5, 1000),
        (W("1", 501, 1001), 1, 999), (W("1", 501, 1001), 2, 999), (W("1", 501, 1001), 3, 1000),
        (W("1", 501, 1001), 4, 1000), (W("1", 601, 1101), 1, 999),
        (W("1", 601, 1101), 2, 1000), (W("1", 601, 1101), 3, 1000),
        (W("1", 1000, 1500), 1, 1000), (W("1", 1000, 1500), 2, 1000),
        (W("2", 0, 500), 1, 500), (W("2", 100, 600), 2, 600), (W("2", 200, 700), 3, 700),
        (W("2", 500, 1000), 4, 1000), (W("2", 500, 1000), 5, 1000),
        (W("2", 501, 1001), 1, 600), (W("2", 501, 1001), 2, 700),
        (W("2", 501, 1001), 3, 1000), (W("2", 501, 1001), 4, 1000),
        (W("2", 601, 1101), 1, 700), (W("2", 601, 1101), 2, 1000),
        (W("2", 601, 1101), 3, 1000), (W("2", 701, 1201), 1, 1000),
        (W("2", 701, 1201), 2, 1000),
        (W("3", 1, 501), 1, 501), (W("3", 100, 600), 2, 600), (W("3", 502, 1002), 1, 600)]


def test_should_count_sliding_windows(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    (grouped_stream.windowed_by(SlidingWindows.of_time_difference_and_grace(500, 2000))
     .count(ks.Materialized.as_("aggregate-by-key-windowed")).to_stream().process(supplier))
    _do_count_sliding_windows(builder, supplier)


def test_should_count_sliding_windows_with_internal_store_name(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    (grouped_stream.windowed_by(SlidingWindows.of_time_difference_and_grace(500, 2000))
     .count().to_stream().process(supplier))
    _do_count_sliding_windows(builder, supplier)


SESSION_INPUT = [("1", "1", 10), ("2", "2", 15), ("1", "1", 30), ("1", "1", 70),
                 ("1", "1", 100), ("1", "1", 90)]


def _last(supplier) -> dict:
    return {k: VT(v, ts) for k, v, ts in supplier.the_captured_processor().processed}


def _do_session_windows(builder, supplier, values: list, records=SESSION_INPUT) -> None:
    _pipe(builder, records)
    result = _last(supplier)
    assert result[W("1", 10, 30)] == VT(values[0], 30)
    assert result[W("2", 15, 15)] == VT(values[1], 15)
    assert result[W("1", 70, 100)] == VT(values[2], 100)


def _session_aggregate(grouped_stream, materialized):
    return grouped_stream.windowed_by(SESSION30).aggregate(
        lambda: 0, lambda key, value, agg: agg + 1, lambda key, one, two: one + two,
        materialized)


def test_should_aggregate_session_windows(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    table = _session_aggregate(grouped_stream, ks.Materialized.as_("session-store")
                               .with_value_serde(serdes.Integer()))
    table.to_stream().process(supplier)
    _do_session_windows(builder, supplier, [2, 1, 3])
    assert table.query_table_name() == "session-store"


def test_should_aggregate_session_windows_with_internal_store_name(builder,
                                                                   grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    table = _session_aggregate(grouped_stream, ks.Materialized.with_(None, serdes.Integer()))
    table.to_stream().process(supplier)
    _do_session_windows(builder, supplier, [2, 1, 3])


def test_should_count_session_windows(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    table = grouped_stream.windowed_by(SESSION30).count(ks.Materialized.as_("session-store"))
    table.to_stream().process(supplier)
    _do_session_windows(builder, supplier, [2, 1, 3])
    assert table.query_table_name() == "session-store"


def test_should_count_session_windows_with_internal_store_name(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    table = grouped_stream.windowed_by(SESSION30).count()
    table.to_stream().process(supplier)
    _do_session_windows(builder, supplier, [2, 1, 3])
    assert table.query_table_name() is None


REDUCE_INPUT = [("1", "A", 10), ("2", "Z", 15), ("1", "B", 30), ("1", "A", 70),
                ("1", "B", 100), ("1", "C", 90)]


def test_should_reduce_session_windows(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    table = grouped_stream.windowed_by(SESSION30).reduce(lambda a, b: f"{a}:{b}",
                                                         ks.Materialized.as_("session-store"))
    table.to_stream().process(supplier)
    _do_session_windows(builder, supplier, ["A:B", "Z", "A:B:C"], REDUCE_INPUT)
    assert table.query_table_name() == "session-store"


def test_should_reduce_session_windows_with_internal_store_name(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    table = grouped_stream.windowed_by(SESSION30).reduce(lambda a, b: f"{a}:{b}")
    table.to_stream().process(supplier)
    _do_session_windows(builder, supplier, ["A:B", "Z", "A:B:C"], REDUCE_INPUT)
    assert table.query_table_name() is None


def test_should_not_accept_null_reducer_when_reducing_session_windows(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(SESSION30).reduce(None, ks.Materialized.as_("store"))


def test_should_not_accept_null_session_windows_reducing_session_windows(grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(None)


def test_should_not_accept_invalid_store_name_when_reducing_session_windows(
        grouped_stream) -> None:
    with pytest.raises(ks.TopologyError):
        grouped_stream.windowed_by(SESSION30).reduce(string_adder,
                                                     ks.Materialized.as_(INVALID_STORE_NAME))


def test_should_not_accept_null_initializer_when_aggregating_session_windows(
        grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(SESSION30).aggregate(
            None, to_string_adder, lambda k, a, b: None, ks.Materialized.as_("storeName"))


def test_should_not_accept_null_aggregator_when_aggregating_session_windows(
        grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(SESSION30).aggregate(
            string_init, None, lambda k, a, b: None, ks.Materialized.as_("storeName"))


def test_should_not_accept_null_session_merger_when_aggregating_session_windows(
        grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(SESSION30).aggregate(
            string_init, to_string_adder, None, ks.Materialized.as_("storeName"))


def test_should_not_accept_null_session_windows_when_aggregating_session_windows(
        grouped_stream) -> None:
    with pytest.raises(MissingArgumentError):
        grouped_stream.windowed_by(None)


def test_should_accept_null_store_name_when_aggregating_session_windows(grouped_stream) -> None:
    grouped_stream.windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(10)).aggregate(
        string_init, to_string_adder, lambda k, a, b: None, ks.Materialized.with_(S, S))


def test_should_not_accept_invalid_store_name_when_aggregating_session_windows(
        grouped_stream) -> None:
    with pytest.raises(ks.TopologyError):
        grouped_stream.windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(10)).aggregate(
            string_init, to_string_adder, lambda k, a, b: None,
            ks.Materialized.as_(INVALID_STORE_NAME))


def _do_count_windowed(builder, supplier) -> None:
    _pipe(builder, [("1", "A", 0), ("1", "A", 499), ("1", "A", 100), ("2", "B", 0),
                    ("2", "B", 100), ("2", "B", 200), ("3", "C", 1), ("1", "A", 500),
                    ("1", "A", 500), ("2", "B", 500), ("2", "B", 500), ("3", "B", 100)])
    assert supplier.the_captured_processor().processed == [
        (W("1", 0, 500), 1, 0), (W("1", 0, 500), 2, 499), (W("1", 0, 500), 3, 499),
        (W("2", 0, 500), 1, 0), (W("2", 0, 500), 2, 100), (W("2", 0, 500), 3, 200),
        (W("3", 0, 500), 1, 1), (W("1", 500, 1000), 1, 500), (W("1", 500, 1000), 2, 500),
        (W("2", 500, 1000), 1, 500), (W("2", 500, 1000), 2, 500), (W("3", 0, 500), 2, 100)]


def test_should_count_windowed(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    (grouped_stream.windowed_by(TimeWindows.of_size_and_grace(500, 100))
     .count(ks.Materialized.as_("aggregate-by-key-windowed")).to_stream().process(supplier))
    _do_count_windowed(builder, supplier)


def test_should_count_windowed_with_internal_store_name(builder, grouped_stream) -> None:
    supplier = MockApiProcessorSupplier()
    (grouped_stream.windowed_by(TimeWindows.of_size_and_grace(500, 100))
     .count().to_stream().process(supplier))
    _do_count_windowed(builder, supplier)
