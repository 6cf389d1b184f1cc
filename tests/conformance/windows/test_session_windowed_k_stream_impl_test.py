"""Kafka's ``SessionWindowedKStreamImplTest``, translated to kslab's ``SessionWindowedKStream``.

Each test runs for both ``EmitStrategy`` types (Java's ``@EnumSource``). ``SessionWindow(s, e)``
is ``ks.Window(s, e)``; ``statestore.cache.max.bytes`` = 0 disables caching as in Java.
Java's ``NullPointerException`` for a ``null`` initializer, aggregator, merger or reducer is
``kslab.errors.MissingArgumentError``. Skipped: the tests passing a ``null`` ``Materialized`` or
``Named`` (``None`` means the default in kslab's Python API).
``shouldNotEnableCachingWithEmitFinal``
checks Java's store layers (metered, change-logging, RocksDB time-ordered); here: the store the
driver hands out is not behind the record cache.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SessionWindows
from kslab.errors import MissingArgumentError
from kslab.state.caching_window import CachingSessionStore
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
TOPIC = "input"
UPDATE, CLOSE = "ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE"
KV = ks.KeyValue


def W(key: str, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def string_init() -> str:
    return "0"


def to_string_adder(key: object, value: object, agg: str) -> str:
    return f"{agg}+{value}"


def string_adder(one: str, two: str) -> str:
    return f"{one}+{two}"


def session_merger(key: object, one: str, two: str) -> str:
    return f"{one}+{two}"


class Setup:
    def __init__(self, kind: str) -> None:
        self.emit_final = kind == CLOSE
        self.props = dict(PROPS)
        self.builder = ks.StreamsBuilder()
        strategy = ks.EmitStrategy.on_window_close() if self.emit_final else \
            ks.EmitStrategy.on_window_update()
        self.stream = (self.builder.stream(TOPIC, ks.Consumed.with_(S, S))
                       .group_by_key(ks.Grouped.with_(S, S))
                       .windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(500))
                       .emit_strategy(strategy))

    def driver(self) -> ks.TopologyTestDriver:
        return ks.TopologyTestDriver(self.builder.build(), self.props)


@pytest.fixture(params=[UPDATE, CLOSE])
def t(request: pytest.FixtureRequest) -> Setup:
    return Setup(request.param)


def process_data(driver: ks.TopologyTestDriver) -> None:
    topic = driver.create_input_topic(TOPIC, S, S)
    for key, value, ts in [("1", "1", 10), ("1", "2", 15), ("1", "3", 600), ("2", "1", 600),
                           ("2", "2", 599)]:
        topic.pipe_input(key, value, ts)


def _processed(t: Setup, table) -> list:
    supplier = MockApiProcessorSupplier()
    table.to_stream().process(supplier)
    with t.driver() as driver:
        process_data(driver)
    return supplier.the_captured_processor().processed


def _updates(values: list) -> list:
    windows = [W("1", 10, 10), W("1", 10, 10), W("1", 10, 15), W("1", 600, 600),
               W("2", 600, 600), W("2", 600, 600), W("2", 599, 600)]
    times = [10, 10, 15, 600, 600, 600, 600]
    return list(zip(windows, values, times, strict=True))


def _should_count_session_windowed(t: Setup) -> None:
    processed = _processed(t, t.stream.count())
    if t.emit_final:
        assert processed == [(W("1", 10, 15), 2, 15)]
    else:
        assert processed == _updates([1, None, 2, 1, 1, None, 2])


def test_should_count_session_windowed_with_caching_disabled(t: Setup) -> None:
    t.props["statestore.cache.max.bytes"] = 0
    _should_count_session_windowed(t)


def test_should_count_session_windowed_with_caching_enabled(t: Setup) -> None:
    _should_count_session_windowed(t)


def test_should_reduce_windowed(t: Setup) -> None:
    processed = _processed(t, t.stream.reduce(string_adder))
    if t.emit_final:
        assert processed == [(W("1", 10, 15), "1+2", 15)]
    else:
        assert processed == _updates(["1", None, "1+2", "3", "1", None, "1+2"])


def test_should_aggregate_session_windowed(t: Setup) -> None:
    processed = _processed(t, t.stream.aggregate(string_init, to_string_adder, session_merger,
                                                 ks.Materialized.with_(S, S)))
    if t.emit_final:
        assert processed == [(W("1", 10, 15), "0+0+1+2", 15)]
    else:
        assert processed == _updates(["0+1", None, "0+0+1+2", "0+3", "0+1", None, "0+0+1+2"])


def _check_store(t: Setup, store: str, values: list) -> None:
    with t.driver() as driver:
        process_data(driver)
        with driver.get_session_store(store).fetch("1", "2") as it:
            data = list(it)
    expected = [KV(W("1", 10, 15), values[0]), KV(W("1", 600, 600), values[1]),
                KV(W("2", 599, 600), values[2])]
    assert data == (expected[1:] if t.emit_final else expected)


def test_should_materialize_count(t: Setup) -> None:
    t.stream.count(ks.Materialized.as_("count-store"))
    _check_store(t, "count-store", [2, 1, 2])


def test_should_materialize_reduced(t: Setup) -> None:
    t.stream.reduce(string_adder, ks.Materialized.as_("reduced"))
    _check_store(t, "reduced", ["1+2", "3", "1+2"])


def test_should_materialize_aggregated(t: Setup) -> None:
    t.stream.aggregate(string_init, to_string_adder, session_merger,
                       ks.Materialized.as_("aggregated").with_value_serde(S))
    _check_store(t, "aggregated", ["0+0+1+2", "0+3", "0+0+1+2"])


def test_should_throw_null_pointer_on_aggregate_if_initializer_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.aggregate(None, to_string_adder, session_merger)


def test_should_throw_null_pointer_on_aggregate_if_aggregator_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.aggregate(string_init, None, session_merger)


def test_should_throw_null_pointer_on_aggregate_if_merger_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.aggregate(string_init, to_string_adder, None)


def test_should_throw_null_pointer_on_reduce_if_reducer_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.reduce(None)


def test_should_throw_null_pointer_on_materialized_aggregate_if_initializer_is_null(
        t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.aggregate(None, to_string_adder, session_merger, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_materialized_aggregate_if_aggregator_is_null(
        t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.aggregate(string_init, None, session_merger, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_materialized_aggregate_if_merger_is_null(
        t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.aggregate(string_init, to_string_adder, None, ks.Materialized.as_("store"))


def test_should_throw_null_pointer_on_materialized_reduce_if_reducer_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.stream.reduce(None, ks.Materialized.as_("store"))


def test_should_not_enable_caching_with_emit_final(t: Setup) -> None:
    if not t.emit_final:
        return
    t.stream.aggregate(string_init, to_string_adder, session_merger,
                       ks.Materialized.as_("aggregated").with_value_serde(S))
    with t.driver() as driver:
        store = driver.get_session_store("aggregated")
        assert store is not None
        assert not isinstance(store, CachingSessionStore)
