"""Kafka's ``TimeWindowedKStreamImplTest``, translated to kslab's ``TimeWindowedKStream``.

Every test runs for the four ``(EmitStrategy type, caching)`` pairs, as in Java.
``MockApiProcessorSupplier`` is ``_mock_api_processor``; ``StreamsTestUtils.toList(store.fetch(
"1", "2", from, to))`` is ``list(store.fetch("1", "2", from, to))``. Java's
``NullPointerException`` for a ``null`` initializer, aggregator or reducer is
``kslab.errors.MissingArgumentError``. Skipped: the tests that pass a ``null`` ``Materialized``
or ``Named`` (``shouldThrowNullPointerOnMaterializedAggregateIfMaterializedIsNull``,
``...ReduceIfMaterializedIsNull``, ``...ReduceIfNamedIsNull``, ``...CountIfMaterializedIsNull``):
in kslab's Python API ``None`` there means "the default", as an omitted argument.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import TimeWindows
from kslab.errors import MissingArgumentError
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
TOPIC = "input"
UPDATE, CLOSE = "ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE"
PARAMS = [(UPDATE, True), (UPDATE, False), (CLOSE, True), (CLOSE, False)]
KEY_1_WINDOW_0 = ks.Windowed("1", ks.Window(0, 500))
KEY_1_WINDOW_1 = ks.Windowed("1", ks.Window(500, 1000))
KEY_2_WINDOW_1 = ks.Windowed("2", ks.Window(500, 1000))
KEY_2_WINDOW_2 = ks.Windowed("2", ks.Window(1000, 1500))
VT, KV = ks.ValueAndTimestamp, ks.KeyValue


def string_init() -> str:
    return "0"


def to_string_adder(key: object, value: object, agg: str) -> str:
    return f"{agg}+{value}"


def string_adder(one: str, two: str) -> str:
    return f"{one}+{two}"


class Setup:
    """Java's ``setup``: the builder, the windowed stream and the parameters."""

    def __init__(self, kind: str, with_cache: bool) -> None:
        self.emit_final = kind == CLOSE
        self.with_cache = with_cache
        self.emit_strategy = ks.EmitStrategy.on_window_close() if self.emit_final else \
            ks.EmitStrategy.on_window_update()
        self.builder = ks.StreamsBuilder()
        self.windowed_stream = (self.builder.stream(TOPIC, ks.Consumed.with_(S, S))
                                .group_by_key(ks.Grouped.with_(S, S))
                                .windowed_by(TimeWindows.of_size_with_no_grace(500)))

    def cache(self, materialized: ks.Materialized) -> ks.Materialized:
        """Java's setMaterializedCache."""
        return materialized.with_caching_enabled() if self.with_cache else \
            materialized.with_caching_disabled()

    def driver(self) -> ks.TopologyTestDriver:
        return ks.TopologyTestDriver(self.builder.build(), PROPS)


@pytest.fixture(params=PARAMS, ids=lambda p: f"{p[0]}-{p[1]}")
def t(request: pytest.FixtureRequest) -> Setup:
    return Setup(*request.param)


def process_data(driver: ks.TopologyTestDriver) -> None:
    topic = driver.create_input_topic(TOPIC, S, S)
    for key, value, ts in [("1", "1", 10), ("1", "2", 15), ("1", "3", 500), ("2", "10", 550),
                           ("2", "20", 500), ("2", "30", 1000)]:
        topic.pipe_input(key, value, ts)


def test_should_count_windowed(t: Setup) -> None:
    supplier = MockApiProcessorSupplier()
    t.windowed_stream.emit_strategy(t.emit_strategy).count().to_stream().process(supplier)
    with t.driver() as driver:
        process_data(driver)
    processed = supplier.the_captured_processor().processed
    if t.emit_final:
        assert processed == [(KEY_1_WINDOW_0, 2, 15), (KEY_1_WINDOW_1, 1, 500),
                             (KEY_2_WINDOW_1, 2, 550)]
    else:
        assert processed == [(KEY_1_WINDOW_0, 1, 10), (KEY_1_WINDOW_0, 2, 15),
                             (KEY_1_WINDOW_1, 1, 500), (KEY_2_WINDOW_1, 1, 550),
                             (KEY_2_WINDOW_1, 2, 550), (KEY_2_WINDOW_2, 1, 1000)]


def test_should_reduce_windowed(t: Setup) -> None:
    supplier = MockApiProcessorSupplier()
    t.windowed_stream.emit_strategy(t.emit_strategy).reduce(string_adder).to_stream() \
        .process(supplier)
    with t.driver() as driver:
        process_data(driver)
    processed = supplier.the_captured_processor().processed
    if t.emit_final:
        assert processed == [(KEY_1_WINDOW_0, "1+2", 15), (KEY_1_WINDOW_1, "3", 500),
                             (KEY_2_WINDOW_1, "10+20", 550)]
    else:
        assert processed == [(KEY_1_WINDOW_0, "1", 10), (KEY_1_WINDOW_0, "1+2", 15),
                             (KEY_1_WINDOW_1, "3", 500), (KEY_2_WINDOW_1, "10", 550),
                             (KEY_2_WINDOW_1, "10+20", 550), (KEY_2_WINDOW_2, "30", 1000)]


def test_should_aggregate_windowed(t: Setup) -> None:
    supplier = MockApiProcessorSupplier()
    (t.windowed_stream.emit_strategy(t.emit_strategy)
     .aggregate(string_init, to_string_adder, t.cache(ks.Materialized.with_(S, S)))
     .to_stream().process(supplier))
    with t.driver() as driver:
        process_data(driver)
    processed = supplier.the_captured_processor().processed
    if t.emit_final:
        assert processed == [(KEY_1_WINDOW_0, "0+1+2", 15), (KEY_1_WINDOW_1, "0+3", 500),
                             (KEY_2_WINDOW_1, "0+10+20", 550)]
    else:
        assert processed == [(KEY_1_WINDOW_0, "0+1", 10), (KEY_1_WINDOW_0, "0+1+2", 15),
                             (KEY_1_WINDOW_1, "0+3", 500), (KEY_2_WINDOW_1, "0+10", 550),
                             (KEY_2_WINDOW_1, "0+10+20", 550), (KEY_2_WINDOW_2, "0+30", 1000)]


def _fetch(driver: ks.TopologyTestDriver, store: str, timestamped: bool) -> list:
    window_store = driver.get_timestamped_window_store(store) if timestamped else \
        driver.get_window_store(store)
    with window_store.fetch("1", "2", 0, 1000) as it:
        return list(it)


def _windows(values: list, timestamps: list[int], timestamped: bool) -> list:
    keys = [KEY_1_WINDOW_0, KEY_1_WINDOW_1, KEY_2_WINDOW_1, KEY_2_WINDOW_2]
    return [KV(k, VT(v, ts) if timestamped else v)
            for k, v, ts in zip(keys, values, timestamps, strict=True)]


TIMES = [15, 500, 550, 1000]


def test_should_materialize_count(t: Setup) -> None:
    t.windowed_stream.emit_strategy(t.emit_strategy).count(
        t.cache(ks.Materialized.as_("count-store").with_key_serde(S)
                .with_value_serde(serdes.Long())))
    with t.driver() as driver:
        process_data(driver)
        for timestamped in (False, True):
            every = _windows([2, 1, 2, 1], TIMES, timestamped)
            if t.with_cache:
                # the cache returns all records (expired underneath as well) as it merges
                expected = every
            elif not t.emit_final:
                expected = every[3:]  # only the non-expired record of the store beneath
            else:
                expected = every[1:]
            assert _fetch(driver, "count-store", timestamped) == expected


def test_should_materialize_reduced(t: Setup) -> None:
    t.windowed_stream.reduce(string_adder, t.cache(ks.Materialized.as_("reduced")
                                                   .with_key_serde(S).with_value_serde(S)))
    with t.driver() as driver:
        process_data(driver)
        for timestamped in (False, True):
            every = _windows(["1+2", "3", "10+20", "30"], TIMES, timestamped)
            # without cache: actualFrom = observedStreamTime(1500) - retentionPeriod(1000) + 1
            assert _fetch(driver, "reduced", timestamped) == \
                (every if t.with_cache else every[3:])


def test_should_materialize_aggregated(t: Setup) -> None:
    t.windowed_stream.aggregate(string_init, to_string_adder,
                                t.cache(ks.Materialized.as_("aggregated").with_key_serde(S)
                                        .with_value_serde(S)))
    with t.driver() as driver:
        process_data(driver)
        for timestamped in (False, True):
            every = _windows(["0+1+2", "0+3", "0+10+20", "0+30"], TIMES, timestamped)
            assert _fetch(driver, "aggregated", timestamped) == \
                (every if t.with_cache else every[3:])


def test_should_throw_null_pointer_on_aggregate_if_initializer_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_stream.aggregate(None, to_string_adder)


def test_should_throw_null_pointer_on_aggregate_if_aggregator_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_stream.aggregate(string_init, None)


def test_should_throw_null_pointer_on_reduce_if_reducer_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_stream.reduce(None)


def test_should_throw_null_pointer_on_materialized_aggregate_if_initializer_is_null(
        t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_stream.aggregate(None, to_string_adder, t.cache(ks.Materialized.as_("store")))


def test_should_throw_null_pointer_on_materialized_aggregate_if_aggregator_is_null(
        t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_stream.aggregate(string_init, None, t.cache(ks.Materialized.as_("store")))


def test_should_throw_null_pointer_on_materialized_reduce_if_reducer_is_null(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_stream.reduce(None, t.cache(ks.Materialized.as_("store")))
