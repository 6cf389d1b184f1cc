"""Kafka's ``KStreamSlidingWindowAggregateTest``, translated to kslab's DSL and driver.

Java parameterizes over ``(EmitStrategy type, in-order iterator, caching)``; here over ``(type,
caching)``. The in-order variant plugs in a subclass of Java's internal ``InMemoryWindowStore``
whose backward fetches throw, to drive the processor's forward-iterator branch; kslab's store
suppliers hand out byte backends under kslab's own window store, which always iterates both ways, so
there is no such store to plug in (skipped). As in Java, caching is set only for emit-final
(``setupMaterialized``); update mode uses an in-memory window store supplier (retention 50000, size
10) or the named store. ``MockApiProcessorSupplier`` is ``_mock_api_processor``; ``gatherOutput``
groups ``(value, timestamp)`` sets by window start; the large-input tests compare Java's stable
sort by key and window start. Java's metrics are read from ``driver.metrics()["0_0"]`` (the
drop rate, a Java meter, is not kept by kslab).
``testAggregateRandomInput`` shuffles with a fresh seed each run, as Java does (the seed is in the
failure message).
"""

from __future__ import annotations

import logging
import random

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SlidingWindows
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
UPDATE, CLOSE = "ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE"
PARAMS = [(UPDATE, True), (UPDATE, False), (CLOSE, True), (CLOSE, False)]
VT = ks.ValueAndTimestamp


def string_init() -> str:
    return "0"


def to_string_adder(key: object, value: object, agg: str) -> str:
    return f"{agg}+{value}"


def strategy(kind: str) -> ks.EmitStrategy:
    return ks.EmitStrategy.on_window_close() if kind == CLOSE else \
        ks.EmitStrategy.on_window_update()


def setup_materialized(kind: str, with_cache: bool, name: str = "store-name",
                       index: int = 1) -> ks.Materialized:
    """Java's setupMaterialized over ``Materialized.as(emitFinal ? name : store supplier)``."""
    if kind == CLOSE:
        mat = ks.Materialized.as_(name)
        return mat.with_caching_enabled() if with_cache else mat.with_caching_disabled()
    store = ks.Stores.in_memory_window_store(f"Reverse{index}", 50000, 10, False)
    return ks.Materialized.as_(store)


def gather_output(supplier: MockApiProcessorSupplier) -> dict[int, set]:
    actual: dict[int, set] = {}
    for key, value, timestamp in supplier.the_captured_processor().processed:
        actual.setdefault(key.window.start, set()).add(VT(value, timestamp))
    return actual


def run(kind: str, windows: SlidingWindows, mat: ks.Materialized, records, reduce=False):
    builder = ks.StreamsBuilder()
    grouped = (builder.stream("topic", ks.Consumed.with_(S, S))
               .group_by_key(ks.Grouped.with_(S, S)).windowed_by(windows)
               .emit_strategy(strategy(kind)))
    table = grouped.reduce(lambda a, b: f"{a}+{b}", mat) if reduce else \
        grouped.aggregate(string_init, to_string_adder, mat)
    supplier = MockApiProcessorSupplier()
    table.to_stream().process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic("topic", S, S)
        for value, ts in records:
            topic.pipe_input("A", value, ts)
    return gather_output(supplier)


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_aggregate_small_input(kind: str, with_cache: bool) -> None:
    actual = run(kind, SlidingWindows.of_time_difference_and_grace(10, 5),
                 setup_materialized(kind, with_cache),
                 [("1", 10), ("2", 10), ("3", 14), ("4", 15), ("5", 20), ("6", 22), ("7", 30)])
    if kind == CLOSE:
        expected = {0: {VT("0+1+2", 10)}, 4: {VT("0+1+2+3", 14)}, 5: {VT("0+1+2+3+4", 15)},
                    10: {VT("0+1+2+3+4+5", 20)}, 11: {VT("0+3+4+5", 20)},
                    12: {VT("0+3+4+5+6", 22)}}
    else:
        expected = {0: {VT("0+1", 10), VT("0+1+2", 10)}, 4: {VT("0+1+2+3", 14)},
                    5: {VT("0+1+2+3+4", 15)}, 10: {VT("0+1+2+3+4+5", 20)},
                    11: {VT("0+3", 14), VT("0+3+4", 15), VT("0+3+4+5", 20)},
                    12: {VT("0+3+4+5+6", 22)},
                    15: {VT("0+4", 15), VT("0+4+5", 20), VT("0+4+5+6", 22)},
                    16: {VT("0+5", 20), VT("0+5+6", 22)}, 20: {VT("0+5+6+7", 30)},
                    21: {VT("0+6", 22), VT("0+6+7", 30)}, 23: {VT("0+7", 30)}}
    assert actual == expected


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_reduce_small_input(kind: str, with_cache: bool) -> None:
    actual = run(kind, SlidingWindows.of_time_difference_and_grace(10, 5),
                 setup_materialized(kind, with_cache),
                 [("1", 10), ("2", 14), ("3", 15), ("4", 22), ("5", 26), ("6", 30)], reduce=True)
    if kind == CLOSE:
        expected = {0: {VT("1", 10)}, 4: {VT("1+2", 14)}, 5: {VT("1+2+3", 15)},
                    11: {VT("2+3", 15)}, 12: {VT("2+3+4", 22)}}
    else:
        expected = {0: {VT("1", 10)}, 4: {VT("1+2", 14)}, 5: {VT("1+2+3", 15)},
                    11: {VT("2", 14), VT("2+3", 15)}, 12: {VT("2+3+4", 22)},
                    15: {VT("3", 15), VT("3+4", 22)}, 16: {VT("4", 22), VT("4+5", 26)},
                    20: {VT("4+5+6", 30)}, 23: {VT("5", 26), VT("5+6", 30)}, 27: {VT("6", 30)}}
    assert actual == expected


def _canonized(kind: str, with_cache: bool) -> ks.Materialized:
    mat = ks.Materialized.as_("topic-Canonized").with_value_serde(S)
    if kind == CLOSE:
        return mat.with_caching_enabled() if with_cache else mat.with_caching_disabled()
    return mat


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_early_records_small_input(kind: str, with_cache: bool) -> None:
    actual = run(kind, SlidingWindows.of_time_difference_and_grace(50, 0),
                 _canonized(kind, with_cache),
                 [("1", 0), ("2", 5), ("3", 6), ("4", 3), ("5", 13), ("6", 10), ("7", 70)])
    if kind == CLOSE:
        expected = {0: {VT("0+1+2+3+4+5+6", 13)}, 1: {VT("0+2+3+4+5+6", 13)},
                    4: {VT("0+2+3+5+6", 13)}, 6: {VT("0+3+5+6", 13)}, 7: {VT("0+5+6", 13)},
                    11: {VT("0+5", 13)}}
    else:
        expected = {
            0: {VT("0+1", 0), VT("0+1+2", 5), VT("0+1+2+3", 6), VT("0+1+2+3+4", 6),
                VT("0+1+2+3+4+5", 13), VT("0+1+2+3+4+5+6", 13)},
            1: {VT("0+2", 5), VT("0+2+3", 6), VT("0+2+3+4", 6), VT("0+2+3+4+5", 13),
                VT("0+2+3+4+5+6", 13)},
            4: {VT("0+2+3", 6), VT("0+2+3+5", 13), VT("0+2+3+5+6", 13)},
            6: {VT("0+3", 6), VT("0+3+5", 13), VT("0+3+5+6", 13)},
            7: {VT("0+5", 13), VT("0+5+6", 13)}, 11: {VT("0+5", 13)}, 20: {VT("0+7", 70)}}
    assert actual == expected


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_early_records_repeated_input(kind: str, with_cache: bool) -> None:
    actual = run(kind, SlidingWindows.of_time_difference_and_grace(5, 0),
                 _canonized(kind, with_cache),
                 [("1", 0), ("2", 2), ("3", 4), ("4", 0), ("5", 2), ("6", 2), ("7", 0), ("8", 7)])
    if kind == CLOSE:
        expected = {0: {VT("0+1+2+3+4+5+6+7", 4)}, 1: {VT("0+2+3+5+6", 4)}}
    else:
        expected = {
            0: {VT("0+1", 0), VT("0+1+2", 2), VT("0+1+2+3+4+5", 4), VT("0+1+2+3+4+5+6", 4),
                VT("0+1+2+3", 4), VT("0+1+2+3+4", 4), VT("0+1+2+3+4+5+6+7", 4)},
            1: {VT("0+2+3+5+6", 4), VT("0+2", 2), VT("0+2+3", 4), VT("0+2+3+5", 4)},
            2: {VT("0+2+3+5+6+8", 7)}, 3: {VT("0+3", 4), VT("0+3+8", 7)}, 5: {VT("0+8", 7)}}
    assert actual == expected


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_log_and_meter_when_skipping_null_key(kind: str, with_cache: bool,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    builder = ks.StreamsBuilder()
    mat = ks.Materialized.as_("topic1-Canonized").with_value_serde(S)
    if kind == CLOSE:
        mat = mat.with_caching_enabled() if with_cache else mat.with_caching_disabled()
    (builder.stream("topic", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .windowed_by(SlidingWindows.of_time_difference_and_grace(10, 100))
     .emit_strategy(strategy(kind)).aggregate(string_init, to_string_adder, mat))
    with caplog.at_level(logging.WARNING), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        driver.create_input_topic("topic", S, S).pipe_input(None, "1")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "Skipping record due to null key or value. topic=[topic] partition=[0] offset=[0]" \
        in warnings


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_log_and_meter_when_skipping_expired_window_by_grace(
        kind: str, with_cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    builder = ks.StreamsBuilder()
    (builder.stream("topic", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .windowed_by(SlidingWindows.of_time_difference_and_grace(10, 90))
     .emit_strategy(strategy(kind))
     .aggregate(string_init, to_string_adder, setup_materialized(kind, with_cache))
     .to_stream().to("output"))
    with caplog.at_level(logging.WARNING), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic("topic", S, S)
        for value, ts in [("100", 200), ("0", 100), ("1", 101), ("2", 102), ("3", 103),
                          ("4", 104), ("5", 105), ("6", 15), ("101", 300), ("102", 400)]:
            topic.pipe_input("k", value, ts)
        metrics = driver.metrics()["0_0"]  # Java's assertLatenessMetrics(7.0, 185.0, 77.0)
        assert metrics["dropped-records-total"] == 7
        assert metrics["record-lateness-max"] == 185.0
        assert metrics["record-lateness-avg"] == 77.0
        line = ("Skipping record for expired window. topic=[topic] partition=[0] offset=[{}] "
                "timestamp=[{}] window=[{},{}] expiration=[110] streamTime=[200]")
        for offset in range(1, 7):  # the left windows of k@100 .. k@105
            ts = 99 + offset
            assert line.format(offset, ts, ts - 10, ts) in caplog.messages
        assert line.format(7, 15, 15, 25) in caplog.messages  # the left window for k@15
        output = driver.create_output_topic("output", serdes.TimeWindowed(S, 10), S)
        expected = [ks.TestRecord(ks.Windowed("k", ks.Window(190, 200)), "0+100", None, 200),
                    ks.TestRecord(ks.Windowed("k", ks.Window(290, 300)), "0+101", None, 300)]
        if kind != CLOSE:
            expected.append(
                ks.TestRecord(ks.Windowed("k", ks.Window(390, 400)), "0+102", None, 400))
        assert [output.read_record() for _ in expected] == expected
        assert output.is_empty()


def run_records(kind: str, windows: SlidingWindows, mat: ks.Materialized, records) -> list:
    """Pipe ``(key, value, timestamp)`` records; what the node after ``to_stream()`` saw."""
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    (builder.stream("topic", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .windowed_by(windows).emit_strategy(strategy(kind))
     .aggregate(string_init, to_string_adder, mat).to_stream().process(supplier))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic("topic", S, S)
        for key, value, ts in records:
            topic.pipe_input(key, value, ts)
    return supplier.the_captured_processor().processed


def run_sorted(kind: str, windows: SlidingWindows, mat: ks.Materialized, records) -> list:
    """Java's ``actual.sort(by key, then window start)`` (stable) as flat tuples."""
    processed = run_records(kind, windows, mat, records)
    flat = [(k.key, k.window.start, k.window.end, v, ts) for k, v, ts in processed]
    return sorted(flat, key=lambda row: (row[0], row[1]))


def run_by_key(kind: str, windows: SlidingWindows, mat: ks.Materialized, records) -> dict:
    """Java's ``gatherOutput``."""
    actual: dict[int, set] = {}
    for key, value, ts in run_records(kind, windows, mat, records):
        actual.setdefault(key.window.start, set()).add(VT(value, ts))
    return actual


AGGREGATE_LARGE_INPUT_PIPES = [
    ('A', '1', 10),
    ('A', '2', 20),
    ('A', '3', 22),
    ('A', '4', 15),
    ('B', '1', 12),
    ('B', '2', 13),
    ('B', '3', 18),
    ('B', '4', 19),
    ('B', '5', 25),
    ('B', '6', 14),
    ('C', '1', 11),
    ('C', '2', 15),
    ('C', '3', 16),
    ('C', '4', 21),
    ('C', '5', 23),
    ('D', '4', 11),
    ('D', '2', 12),
    ('D', '3', 29),
    ('D', '5', 16),
]

AGGREGATE_LARGE_INPUT_FINAL = [
    ('A', 0, 10, '0+1', 10),
    ('A', 5, 15, '0+1+4', 15),
    ('B', 2, 12, '0+1', 12),
    ('B', 3, 13, '0+1+2', 13),
    ('B', 8, 18, '0+1+2+3+6', 18),
    ('C', 5, 15, '0+2', 15),
    ('C', 6, 16, '0+2+3', 16),
]

AGGREGATE_LARGE_INPUT_UPDATE = [
    ('A', 0, 10, '0+1', 10),
    ('A', 5, 15, '0+1+4', 15),
    ('A', 10, 20, '0+1+2', 20),
    ('A', 10, 20, '0+1+2+4', 20),
    ('A', 11, 21, '0+2', 20),
    ('A', 11, 21, '0+2+4', 20),
    ('A', 12, 22, '0+2+3', 22),
    ('A', 12, 22, '0+2+3+4', 22),
    ('A', 16, 26, '0+2+3', 22),
    ('A', 21, 31, '0+3', 22),
    ('B', 2, 12, '0+1', 12),
    ('B', 3, 13, '0+1+2', 13),
    ('B', 4, 14, '0+1+2+6', 14),
    ('B', 8, 18, '0+1+2+3', 18),
    ('B', 8, 18, '0+1+2+3+6', 18),
    ('B', 9, 19, '0+1+2+3+4', 19),
    ('B', 9, 19, '0+1+2+3+4+6', 19),
    ('B', 13, 23, '0+2', 13),
    ('B', 13, 23, '0+2+3', 18),
    ('B', 13, 23, '0+2+3+4', 19),
    ('B', 13, 23, '0+2+3+4+6', 19),
    ('B', 14, 24, '0+3', 18),
    ('B', 14, 24, '0+3+4', 19),
    ('B', 14, 24, '0+3+4+6', 19),
    ('B', 15, 25, '0+3+4+5', 25),
    ('B', 19, 29, '0+4', 19),
    ('B', 19, 29, '0+4+5', 25),
    ('B', 20, 30, '0+5', 25),
    ('C', 1, 11, '0+1', 11),
    ('C', 5, 15, '0+1+2', 15),
    ('C', 6, 16, '0+1+2+3', 16),
    ('C', 11, 21, '0+1+2+3+4', 21),
    ('C', 12, 22, '0+2', 15),
    ('C', 12, 22, '0+2+3', 16),
    ('C', 12, 22, '0+2+3+4', 21),
    ('C', 13, 23, '0+2+3+4+5', 23),
    ('C', 16, 26, '0+3', 16),
    ('C', 16, 26, '0+3+4', 21),
    ('C', 16, 26, '0+3+4+5', 23),
    ('C', 17, 27, '0+4', 21),
    ('C', 17, 27, '0+4+5', 23),
    ('C', 22, 32, '0+5', 23),
    ('D', 1, 11, '0+4', 11),
    ('D', 2, 12, '0+4+2', 12),
    ('D', 6, 16, '0+4+2+5', 16),
    ('D', 12, 22, '0+2', 12),
    ('D', 12, 22, '0+2+5', 16),
    ('D', 13, 23, '0+5', 16),
    ('D', 19, 29, '0+3', 29),
]


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_aggregate_large_input(kind: str, with_cache: bool) -> None:
    windows = SlidingWindows.of_time_difference_and_grace(10, 10 if kind == CLOSE else 50)
    materialized = setup_materialized(kind, with_cache)
    actual = run_sorted(kind, windows, materialized, AGGREGATE_LARGE_INPUT_PIPES)
    assert actual == (AGGREGATE_LARGE_INPUT_FINAL if kind == CLOSE else
                      AGGREGATE_LARGE_INPUT_UPDATE)


EARLY_RECORDS_LARGE_INPUT_PIPES = [
    ('E', '1', 0),
    ('E', '3', 5),
    ('E', '4', 6),
    ('E', '2', 3),
    ('E', '6', 13),
    ('E', '5', 10),
    ('E', '7', 4),
    ('E', '8', 2),
    ('E', '9', 15),
]

EARLY_RECORDS_LARGE_INPUT_FINAL = [
    ('E', 0, 10, '0+1+3+4+2', 6),
    ('E', 1, 11, '0+3+4+2', 6),
    ('E', 3, 13, '0+3+4+2+6+5+7', 13),
]

EARLY_RECORDS_LARGE_INPUT_UPDATE = [
    ('E', 0, 10, '0+1', 0),
    ('E', 0, 10, '0+1+3', 5),
    ('E', 0, 10, '0+1+3+4', 6),
    ('E', 0, 10, '0+1+3+4+2', 6),
    ('E', 0, 10, '0+1+3+4+2+5', 10),
    ('E', 0, 10, '0+1+3+4+2+5+7', 10),
    ('E', 0, 10, '0+1+3+4+2+5+7+8', 10),
    ('E', 1, 11, '0+3', 5),
    ('E', 1, 11, '0+3+4', 6),
    ('E', 1, 11, '0+3+4+2', 6),
    ('E', 1, 11, '0+3+4+2+5', 10),
    ('E', 1, 11, '0+3+4+2+5+7', 10),
    ('E', 1, 11, '0+3+4+2+5+7+8', 10),
    ('E', 3, 13, '0+3+4+2+6', 13),
    ('E', 3, 13, '0+3+4+2+6+5', 13),
    ('E', 3, 13, '0+3+4+2+6+5+7', 13),
    ('E', 4, 14, '0+3+4', 6),
    ('E', 4, 14, '0+3+4+6', 13),
    ('E', 4, 14, '0+3+4+6+5', 13),
    ('E', 4, 14, '0+3+4+6+5+7', 13),
    ('E', 5, 15, '0+3+4+6+5', 13),
    ('E', 5, 15, '0+3+4+6+5+9', 15),
    ('E', 6, 16, '0+4', 6),
    ('E', 6, 16, '0+4+6', 13),
    ('E', 6, 16, '0+4+6+5', 13),
    ('E', 6, 16, '0+4+6+5+9', 15),
    ('E', 7, 17, '0+6', 13),
    ('E', 7, 17, '0+6+5', 13),
    ('E', 7, 17, '0+6+5+9', 15),
    ('E', 11, 21, '0+6', 13),
    ('E', 11, 21, '0+6+9', 15),
    ('E', 14, 24, '0+9', 15),
]


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_early_records_large_input(kind: str, with_cache: bool) -> None:
    windows = SlidingWindows.of_time_difference_and_grace(10, 1 if kind == CLOSE else 50)
    materialized = setup_materialized(kind, with_cache)
    actual = run_sorted(kind, windows, materialized, EARLY_RECORDS_LARGE_INPUT_PIPES)
    assert actual == (EARLY_RECORDS_LARGE_INPUT_FINAL if kind == CLOSE else
                      EARLY_RECORDS_LARGE_INPUT_UPDATE)


EARLY_NO_GRACE_PERIOD_SMALL_INPUT_PIPES = [
    ('A', '1', 0),
    ('A', '2', 5),
    ('A', '3', 6),
    ('A', '4', 3),
    ('A', '5', 13),
    ('A', '6', 10),
    ('A', '6', 70),
]

EARLY_NO_GRACE_PERIOD_SMALL_INPUT_FINAL = {
    0: {
        ('0+1+2+3+4+5+6', 13),
    },
    1: {
        ('0+2+3+4+5+6', 13),
    },
    4: {
        ('0+2+3+5+6', 13),
    },
    6: {
        ('0+3+5+6', 13),
    },
    7: {
        ('0+5+6', 13),
    },
    11: {
        ('0+5', 13),
    },
}
EARLY_NO_GRACE_PERIOD_SMALL_INPUT_UPDATE = {
    0: {
        ('0+1', 0),
        ('0+1+2', 5),
        ('0+1+2+3', 6),
        ('0+1+2+3+4', 6),
        ('0+1+2+3+4+5', 13),
        ('0+1+2+3+4+5+6', 13),
    },
    1: {
        ('0+2', 5),
        ('0+2+3', 6),
        ('0+2+3+4', 6),
        ('0+2+3+4+5', 13),
        ('0+2+3+4+5+6', 13),
    },
    4: {
        ('0+2+3', 6),
        ('0+2+3+5', 13),
        ('0+2+3+5+6', 13),
    },
    6: {
        ('0+3', 6),
        ('0+3+5', 13),
        ('0+3+5+6', 13),
    },
    7: {
        ('0+5', 13),
        ('0+5+6', 13),
    },
    11: {
        ('0+5', 13),
    },
    20: {
        ('0+6', 70),
    },
}


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_early_no_grace_period_small_input(kind: str, with_cache: bool) -> None:
    windows = SlidingWindows.of_time_difference_with_no_grace(50)
    materialized = _canonized(kind, with_cache)
    actual = run_by_key(kind, windows, materialized, EARLY_NO_GRACE_PERIOD_SMALL_INPUT_PIPES)
    expected = EARLY_NO_GRACE_PERIOD_SMALL_INPUT_FINAL if kind == CLOSE else \
        EARLY_NO_GRACE_PERIOD_SMALL_INPUT_UPDATE
    assert actual == {start: {VT(v, ts) for v, ts in values}
                      for start, values in expected.items()}


NO_GRACE_PERIOD_SMALL_INPUT_PIPES = [
    ('A', '1', 100),
    ('A', '2', 105),
    ('A', '3', 106),
    ('A', '4', 103),
    ('A', '5', 113),
    ('A', '6', 110),
]

NO_GRACE_PERIOD_SMALL_INPUT_FINAL = {
    50: {
        ('0+1', 100),
    },
    55: {
        ('0+1+2', 105),
    },
    56: {
        ('0+1+2+3+4', 106),
    },
}
NO_GRACE_PERIOD_SMALL_INPUT_UPDATE = {
    50: {
        ('0+1', 100),
    },
    55: {
        ('0+1+2', 105),
    },
    56: {
        ('0+1+2+3', 106),
        ('0+1+2+3+4', 106),
    },
    63: {
        ('0+1+2+3+4+5', 113),
        ('0+1+2+3+4+5+6', 113),
    },
    101: {
        ('0+2', 105),
        ('0+2+3', 106),
        ('0+2+3+4', 106),
        ('0+2+3+4+5', 113),
        ('0+2+3+4+5+6', 113),
    },
    104: {
        ('0+2+3', 106),
        ('0+2+3+5', 113),
        ('0+2+3+5+6', 113),
    },
    106: {
        ('0+3', 106),
        ('0+3+5', 113),
        ('0+3+5+6', 113),
    },
    107: {
        ('0+5', 113),
        ('0+5+6', 113),
    },
    111: {
        ('0+5', 113),
    },
}


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_no_grace_period_small_input(kind: str, with_cache: bool) -> None:
    windows = SlidingWindows.of_time_difference_with_no_grace(50)
    materialized = _canonized(kind, with_cache)
    actual = run_by_key(kind, windows, materialized, NO_GRACE_PERIOD_SMALL_INPUT_PIPES)
    expected = NO_GRACE_PERIOD_SMALL_INPUT_FINAL if kind == CLOSE else \
        NO_GRACE_PERIOD_SMALL_INPUT_UPDATE
    assert actual == {start: {VT(v, ts) for v, ts in values}
                      for start, values in expected.items()}


EARLY_NO_GRACE_PERIOD_LARGE_INPUT_PIPES = [
    ('E', '1', 0),
    ('E', '3', 5),
    ('E', '4', 6),
    ('E', '2', 3),
    ('E', '6', 13),
    ('E', '5', 10),
    ('E', '7', 4),
    ('E', '8', 2),
    ('E', '9', 15),
]

EARLY_NO_GRACE_PERIOD_LARGE_INPUT_FINAL = [
    ('E', 0, 10, '0+1+3+4+2', 6),
    ('E', 1, 11, '0+3+4+2', 6),
    ('E', 3, 13, '0+3+4+2+6+5+7', 13),
    ('E', 4, 14, '0+3+4+6+5+7', 13),
]

EARLY_NO_GRACE_PERIOD_LARGE_INPUT_UPDATE = [
    ('E', 0, 10, '0+1', 0),
    ('E', 0, 10, '0+1+3', 5),
    ('E', 0, 10, '0+1+3+4', 6),
    ('E', 0, 10, '0+1+3+4+2', 6),
    ('E', 1, 11, '0+3', 5),
    ('E', 1, 11, '0+3+4', 6),
    ('E', 1, 11, '0+3+4+2', 6),
    ('E', 3, 13, '0+3+4+2+6', 13),
    ('E', 3, 13, '0+3+4+2+6+5', 13),
    ('E', 3, 13, '0+3+4+2+6+5+7', 13),
    ('E', 4, 14, '0+3+4', 6),
    ('E', 4, 14, '0+3+4+6', 13),
    ('E', 4, 14, '0+3+4+6+5', 13),
    ('E', 4, 14, '0+3+4+6+5+7', 13),
    ('E', 5, 15, '0+3+4+6+5', 13),
    ('E', 5, 15, '0+3+4+6+5+9', 15),
    ('E', 6, 16, '0+4', 6),
    ('E', 6, 16, '0+4+6', 13),
    ('E', 6, 16, '0+4+6+5', 13),
    ('E', 6, 16, '0+4+6+5+9', 15),
    ('E', 7, 17, '0+6', 13),
    ('E', 7, 17, '0+6+5', 13),
    ('E', 7, 17, '0+6+5+9', 15),
    ('E', 11, 21, '0+6', 13),
    ('E', 11, 21, '0+6+9', 15),
    ('E', 14, 24, '0+9', 15),
]


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_early_no_grace_period_large_input(kind: str, with_cache: bool) -> None:
    windows = SlidingWindows.of_time_difference_with_no_grace(10)
    materialized = setup_materialized(kind, with_cache)
    actual = run_sorted(kind, windows, materialized, EARLY_NO_GRACE_PERIOD_LARGE_INPUT_PIPES)
    assert actual == (EARLY_NO_GRACE_PERIOD_LARGE_INPUT_FINAL if kind == CLOSE else
                      EARLY_NO_GRACE_PERIOD_LARGE_INPUT_UPDATE)


NO_GRACE_PERIOD_LARGE_INPUT_PIPES = [
    ('E', '1', 100),
    ('E', '3', 105),
    ('E', '4', 106),
    ('E', '2', 103),
    ('E', '6', 113),
    ('E', '5', 110),
    ('E', '7', 104),
    ('E', '8', 102),
    ('E', '9', 115),
]

NO_GRACE_PERIOD_LARGE_INPUT_FINAL = [
    ('E', 90, 100, '0+1', 100),
    ('E', 95, 105, '0+1+3', 105),
    ('E', 96, 106, '0+1+3+4+2', 106),
    ('E', 101, 111, '0+3+4+2', 106),
    ('E', 103, 113, '0+3+4+2+6+5+7', 113),
    ('E', 104, 114, '0+3+4+6+5+7', 113),
]

NO_GRACE_PERIOD_LARGE_INPUT_UPDATE = [
    ('E', 90, 100, '0+1', 100),
    ('E', 95, 105, '0+1+3', 105),
    ('E', 96, 106, '0+1+3+4', 106),
    ('E', 96, 106, '0+1+3+4+2', 106),
    ('E', 101, 111, '0+3', 105),
    ('E', 101, 111, '0+3+4', 106),
    ('E', 101, 111, '0+3+4+2', 106),
    ('E', 103, 113, '0+3+4+2+6', 113),
    ('E', 103, 113, '0+3+4+2+6+5', 113),
    ('E', 103, 113, '0+3+4+2+6+5+7', 113),
    ('E', 104, 114, '0+3+4', 106),
    ('E', 104, 114, '0+3+4+6', 113),
    ('E', 104, 114, '0+3+4+6+5', 113),
    ('E', 104, 114, '0+3+4+6+5+7', 113),
    ('E', 105, 115, '0+3+4+6+5', 113),
    ('E', 105, 115, '0+3+4+6+5+9', 115),
    ('E', 106, 116, '0+4', 106),
    ('E', 106, 116, '0+4+6', 113),
    ('E', 106, 116, '0+4+6+5', 113),
    ('E', 106, 116, '0+4+6+5+9', 115),
    ('E', 107, 117, '0+6', 113),
    ('E', 107, 117, '0+6+5', 113),
    ('E', 107, 117, '0+6+5+9', 115),
    ('E', 111, 121, '0+6', 113),
    ('E', 111, 121, '0+6+9', 115),
    ('E', 114, 124, '0+9', 115),
]


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_no_grace_period_large_input(kind: str, with_cache: bool) -> None:
    windows = SlidingWindows.of_time_difference_with_no_grace(10)
    materialized = setup_materialized(kind, with_cache)
    actual = run_sorted(kind, windows, materialized, NO_GRACE_PERIOD_LARGE_INPUT_PIPES)
    assert actual == (NO_GRACE_PERIOD_LARGE_INPUT_FINAL if kind == CLOSE else
                      NO_GRACE_PERIOD_LARGE_INPUT_UPDATE)


def W(key: str, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def _check_and_clear(processor, *expected) -> None:
    assert processor.processed == [(W(k, s, e), v, ts) for k, s, e, v, ts in expected]
    processor.processed.clear()


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_join(kind: str, with_cache: bool) -> None:
    emit_final = kind == CLOSE
    grace = 0 if emit_final else 100
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    tables = []
    for index, topic in ((1, "topic1"), (2, "topic2")):
        table = (builder.stream(topic, ks.Consumed.with_(S, S))
                 .group_by_key(ks.Grouped.with_(S, S))
                 .windowed_by(SlidingWindows.of_time_difference_and_grace(10, grace))
                 .emit_strategy(strategy(kind))
                 .aggregate(string_init, to_string_adder,
                            setup_materialized(kind, with_cache, f"store-name{index}", index)))
        table.to_stream().process(supplier)
        tables.append(table)
    tables[0].join(tables[1], lambda p1, p2: f"{p1}%{p2}").to_stream().process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic1 = driver.create_input_topic("topic1", S, S)
        topic2 = driver.create_input_topic("topic2", S, S)
        for key, value, ts in [("A", "1", 10), ("B", "2", 11), ("C", "3", 12)]:
            topic1.pipe_input(key, value, ts)
        p0, p1, p2 = supplier.captured_processors(3)
        # left windows created by the first set of records to table 1
        first = [("A", 0, 10, "0+1", 10), ("B", 1, 11, "0+2", 11), ("C", 2, 12, "0+3", 12)]
        _check_and_clear(p0, *(first[:2] if emit_final else first))
        _check_and_clear(p1)
        _check_and_clear(p2)

        for key, value, ts in [("A", "1", 15), ("B", "2", 16), ("C", "3", 19)]:
            topic1.pipe_input(key, value, ts)
        # right windows of the previous records, left windows of the new ones, in table 1
        if emit_final:
            _check_and_clear(p0, ("C", 2, 12, "0+3", 12), ("A", 5, 15, "0+1+1", 15),
                             ("B", 6, 16, "0+2+2", 16))
        else:
            _check_and_clear(p0, ("A", 11, 21, "0+1", 15), ("A", 5, 15, "0+1+1", 15),
                             ("B", 12, 22, "0+2", 16), ("B", 6, 16, "0+2+2", 16),
                             ("C", 13, 23, "0+3", 19), ("C", 9, 19, "0+3+3", 19))
        _check_and_clear(p1)
        _check_and_clear(p2)

        topic2.pipe_input("A", "a", 10)
        topic2.pipe_input("C", "c", 12)
        _check_and_clear(p0)
        if emit_final:
            _check_and_clear(p1, ("A", 0, 10, "0+a", 10))
            _check_and_clear(p2, ("A", 0, 10, "0+1%0+a", 10))
        else:
            _check_and_clear(p1, ("A", 0, 10, "0+a", 10), ("C", 2, 12, "0+c", 12))
            _check_and_clear(p2, ("A", 0, 10, "0+1%0+a", 10), ("C", 2, 12, "0+3%0+c", 12))

        for key, value, ts in [("A", "a", 15), ("B", "b", 16), ("C", "c", 17)]:
            topic2.pipe_input(key, value, ts)
        _check_and_clear(p0)
        if emit_final:
            _check_and_clear(p1, ("C", 2, 12, "0+c", 12), ("A", 5, 15, "0+a+a", 15),
                             ("B", 6, 16, "0+b", 16))
            _check_and_clear(p2, ("C", 2, 12, "0+3%0+c", 12), ("A", 5, 15, "0+1+1%0+a+a", 15),
                             ("B", 6, 16, "0+2+2%0+b", 16))
        else:
            _check_and_clear(p1, ("A", 11, 21, "0+a", 15), ("A", 5, 15, "0+a+a", 15),
                             ("B", 6, 16, "0+b", 16), ("C", 13, 23, "0+c", 17),
                             ("C", 7, 17, "0+c+c", 17))
            _check_and_clear(p2, ("A", 11, 21, "0+1%0+a", 15), ("A", 5, 15, "0+1+1%0+a+a", 15),
                             ("B", 6, 16, "0+2+2%0+b", 16), ("C", 13, 23, "0+3%0+c", 19))


RANDOM_INPUT = [("A", 10), ("B", 15), ("C", 16), ("D", 18), ("E", 30), ("F", 40), ("G", 55),
                ("H", 56), ("I", 58), ("J", 58), ("K", 62), ("L", 63), ("M", 63), ("N", 63),
                ("O", 76), ("P", 77), ("Q", 80), ("R", 2), ("S", 3), ("T", 5), ("U", 8)]
RANDOM_FINAL = {52: ("GHIJK", 62), 53: ("GHIJKLMN", 63), 56: ("HIJKLMN", 63),
                57: ("IJKLMN", 63), 59: ("KLMN", 63), 63: ("LMN", 63), 66: ("O", 76),
                67: ("OP", 77), 70: ("OPQ", 80)}
RANDOM_UPDATE = {0: ("ARSTU", 10), 3: ("ASTU", 10), 4: ("ATU", 10), 5: ("ABTU", 15),
                 6: ("ABCU", 16), 8: ("ABCDU", 18), 9: ("ABCD", 18), 11: ("BCD", 18),
                 16: ("CD", 18), 17: ("D", 18), 20: ("E", 30), 30: ("EF", 40), 31: ("F", 40),
                 45: ("G", 55), 46: ("GH", 56), 48: ("GHIJ", 58), **RANDOM_FINAL,
                 77: ("PQ", 80), 78: ("Q", 80), 171: ("V", 181)}


def _sorted_adder(key: object, value: str, agg: str) -> str:
    """Sorts the letters, so a final window's value does not depend on the input order."""
    return "".join(sorted(agg + value))


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_aggregate_random_input(kind: str, with_cache: bool) -> None:
    builder = ks.StreamsBuilder()
    mat = setup_materialized(kind, with_cache)
    if kind != CLOSE:
        mat = ks.Materialized.as_(ks.Stores.in_memory_window_store("Reverse", 50000, 10, False))
    supplier = MockApiProcessorSupplier()
    (builder.stream("topic1", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .windowed_by(SlidingWindows.of_time_difference_and_grace(10, 100))
     .emit_strategy(strategy(kind)).aggregate(lambda: "", _sorted_adder, mat)
     .to_stream().process(supplier))
    seed = random.getrandbits(63)
    records = list(RANDOM_INPUT)
    random.Random(seed).shuffle(records)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic("topic1", S, S)
        for value, ts in records:
            topic.pipe_input("A", value, ts)
        topic.pipe_input("A", "V", 181)
    results = {key.window.start: VT(value, ts)
               for key, value, ts in supplier.the_captured_processor().processed}
    expected = RANDOM_FINAL if kind == CLOSE else RANDOM_UPDATE
    assert results == {start: VT(*value) for start, value in expected.items()}, \
        f"Exception in randomized scenario. Reproduce with seed: {seed}."
