"""Kafka's ``KStreamWindowAggregateTest``, translated to kslab's DSL and driver.

Every test runs for the four ``(EmitStrategy type, caching)`` pairs, as Java's parameterized
tests do. ``MockApiProcessorSupplier`` is ``_mock_api_processor``; ``MockInitializer.STRING_INIT``
is ``"0"`` and ``MockAggregator.TOSTRING_ADDER`` appends ``"+value"``. ``TimeWindow(s, e)`` is
``ks.Window(s, e)``. Java's ``LogCaptureAppender`` is pytest's ``caplog`` on ``kslab.dsl``.

The tests that drive ``KStreamWindowAggregate`` by hand through a
``MockInternalNewProcessorContext`` (``shouldNotEmitFinalIfNotProgressEnough``,
``shouldEmitWithInterval0``, ``shouldEmitWithLargeInterval``, ``shouldEmitFromLastEmitTime``) run
the same aggregation through the DSL and the driver instead (an uncached, unlogged store with
Java's one-day retention, as ``makeContext`` builds it): ``setSystemTimeMs`` is the driver's
wall clock (``advance_wall_clock_time``), the internal emit interval config is passed to the
driver, and what the processor forwards is what the node after ``to_stream()`` receives (old
values are ``None`` throughout, so nothing is lost). The second half of
``shouldEmitFromLastEmitTime`` (a second processor instance on the same context, restoring the
last emit time from the task's processor metadata) has no driver equivalent and is left out;
the restore itself is exercised in tests/dsl/test_emit_strategy.py.
``showThrowIfEmitFinalUsedWithUnlimitedWindow``: kslab has no ``UnlimitedWindows``; skipped.

Java's ``driver.metrics()`` lookups by ``MetricName`` are ``driver.metrics()["0_0"][name]`` for
task metrics and ``driver.metrics()["0_0"][node][name]`` for node metrics. The metric half of
``shouldLogAndMeterWhenSkippingExpiredWindow`` is its own test; ``assertEmittedMetrics`` is also
checked on its own (``test_emitted_metrics``) with the latency sensors, which the driver's
standing clock makes 0.
"""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import TimeWindows
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
WINDOW_STORE_NAME = "dummy-store-name"
INTERVAL = "__emit.interval.ms.kstreams.windowed.aggregation__"
UPDATE, CLOSE = "ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE"
PARAMS = [(UPDATE, True), (UPDATE, False), (CLOSE, True), (CLOSE, False)]


def W(key: str, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def string_init() -> str:
    return "0"


def to_string_adder(key: object, value: object, agg: str) -> str:
    return f"{agg}+{value}"


def strategy(kind: str) -> ks.EmitStrategy:
    return ks.EmitStrategy.on_window_close() if kind == CLOSE else \
        ks.EmitStrategy.on_window_update()


def materialized(name: str, with_cache: bool) -> ks.Materialized:
    mat = ks.Materialized.as_(name).with_value_serde(S)
    return mat.with_caching_enabled() if with_cache else mat.with_caching_disabled()


def check_and_clear(processor, *expected) -> None:
    assert processor.processed == list(expected)
    processor.processed.clear()


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_agg_basic(kind: str, with_cache: bool) -> None:
    builder = ks.StreamsBuilder()
    table2 = (builder.stream("topic1", ks.Consumed.with_(S, S))
              .group_by_key(ks.Grouped.with_(S, S))
              .windowed_by(TimeWindows.of_size_and_grace(10, 100).advance_by(5))
              .emit_strategy(strategy(kind))
              .aggregate(string_init, to_string_adder,
                         materialized("topic1-Canonized", with_cache)))
    supplier = MockApiProcessorSupplier()
    table2.to_stream().process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic("topic1", S, S)
        for key, value, ts in [("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3),
                               ("A", "1", 4), ("A", "1", 5), ("B", "2", 6), ("D", "4", 7),
                               ("B", "2", 8), ("C", "3", 9), ("A", "1", 10), ("B", "2", 11),
                               ("D", "4", 12), ("B", "2", 13), ("C", "3", 14), ("B", "1", 3),
                               ("B", "2", 2), ("B", "3", 9)]:
            topic.pipe_input(key, value, ts)
    if kind == CLOSE:
        assert supplier.the_captured_processor().processed == []
    else:
        assert supplier.the_captured_processor().processed == [
            (W("A", 0, 10), "0+1", 0), (W("B", 0, 10), "0+2", 1), (W("C", 0, 10), "0+3", 2),
            (W("D", 0, 10), "0+4", 3), (W("A", 0, 10), "0+1+1", 4),
            (W("A", 0, 10), "0+1+1+1", 5), (W("A", 5, 15), "0+1", 5),
            (W("B", 0, 10), "0+2+2", 6), (W("B", 5, 15), "0+2", 6),
            (W("D", 0, 10), "0+4+4", 7), (W("D", 5, 15), "0+4", 7),
            (W("B", 0, 10), "0+2+2+2", 8), (W("B", 5, 15), "0+2+2", 8),
            (W("C", 0, 10), "0+3+3", 9), (W("C", 5, 15), "0+3", 9),
            (W("A", 5, 15), "0+1+1", 10), (W("A", 10, 20), "0+1", 10),
            (W("B", 5, 15), "0+2+2+2", 11), (W("B", 10, 20), "0+2", 11),
            (W("D", 5, 15), "0+4+4", 12), (W("D", 10, 20), "0+4", 12),
            (W("B", 5, 15), "0+2+2+2+2", 13), (W("B", 10, 20), "0+2+2", 13),
            (W("C", 5, 15), "0+3+3", 14), (W("C", 10, 20), "0+3", 14),
            (W("B", 0, 10), "0+2+2+2+1", 8), (W("B", 0, 10), "0+2+2+2+1+2", 8),
            (W("B", 0, 10), "0+2+2+2+1+2+3", 9), (W("B", 5, 15), "0+2+2+2+2+3", 13),
        ]


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_join(kind: str, with_cache: bool) -> None:
    emit_final = kind == CLOSE
    grace = 5 if emit_final else 100
    builder = ks.StreamsBuilder()

    def windowed_table(topic: str, store: str) -> ks.KTable:
        return (builder.stream(topic, ks.Consumed.with_(S, S))
                .group_by_key(ks.Grouped.with_(S, S))
                .windowed_by(TimeWindows.of_size_and_grace(10, grace).advance_by(5))
                .emit_strategy(strategy(kind))
                .aggregate(string_init, to_string_adder, materialized(store, with_cache)))

    supplier = MockApiProcessorSupplier()
    table1 = windowed_table("topic1", "topic1-Canonized")
    table1.to_stream().process(supplier)
    table2 = windowed_table("topic2", "topic2-Canonized")
    table2.to_stream().process(supplier)
    table1.join(table2, lambda p1, p2: f"{p1}%{p2}").to_stream().process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic1 = driver.create_input_topic("topic1", S, S)
        topic2 = driver.create_input_topic("topic2", S, S)
        if emit_final:
            _process_emit_final_join(topic1, topic2, supplier, with_cache)
        else:
            _process_emit_update_join(topic1, topic2, supplier)


def _pipe(topic, *records) -> None:
    for key, value, ts in records:
        topic.pipe_input(key, value, ts)


def _process_emit_final_join(topic1, topic2, supplier, with_cache: bool) -> None:
    _pipe(topic1, ("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3), ("A", "1", 9),
          ("A", "1", 15))
    p0, p1, p2 = supplier.captured_processors(3)
    check_and_clear(p0, (W("A", 0, 10), "0+1+1", 9), (W("B", 0, 10), "0+2", 1),
                    (W("C", 0, 10), "0+3", 2), (W("D", 0, 10), "0+4", 3))
    check_and_clear(p1)
    check_and_clear(p2)

    _pipe(topic1, ("A", "1", 10), ("B", "2", 11), ("D", "4", 12), ("B", "2", 13), ("C", "3", 14),
          ("A", "1", 20))
    check_and_clear(p0, (W("A", 5, 15), "0+1+1", 10), (W("B", 5, 15), "0+2+2", 13),
                    (W("C", 5, 15), "0+3", 14), (W("D", 5, 15), "0+4", 12))
    check_and_clear(p1)
    check_and_clear(p2)

    _pipe(topic2, ("A", "a", 0), ("B", "b", 1), ("C", "c", 2), ("D", "d", 10), ("A", "a", 15))
    check_and_clear(p0)
    if with_cache:
        check_and_clear(p1, (W("A", 0, 10), "0+a", 0), (W("B", 0, 10), "0+b", 1),
                        (W("C", 0, 10), "0+c", 2))
        check_and_clear(p2, (W("A", 0, 10), "0+1+1%0+a", 9), (W("B", 0, 10), "0+2%0+b", 1),
                        (W("C", 0, 10), "0+3%0+c", 2))
    else:
        check_and_clear(p0)
        check_and_clear(p2)

    _pipe(topic2, ("A", "a", 5), ("B", "b", 6), ("D", "d", 7), ("D", "d", 18), ("A", "a", 21))
    check_and_clear(p0)
    if with_cache:
        check_and_clear(p1, (W("A", 5, 15), "0+a", 5), (W("B", 5, 15), "0+b", 6),
                        (W("D", 5, 15), "0+d+d", 10))
    else:
        check_and_clear(p1, (W("A", 0, 10), "0+a", 0), (W("B", 0, 10), "0+b", 1),
                        (W("C", 0, 10), "0+c", 2), (W("A", 5, 15), "0+a", 5),
                        (W("B", 5, 15), "0+b", 6), (W("D", 5, 15), "0+d+d", 10))
    check_and_clear(p2, (W("A", 5, 15), "0+1+1%0+a", 10), (W("B", 5, 15), "0+2+2%0+b", 13),
                    (W("D", 5, 15), "0+4%0+d+d", 12))


def _process_emit_update_join(topic1, topic2, supplier) -> None:
    _pipe(topic1, ("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3), ("A", "1", 9))
    p0, p1, p2 = supplier.captured_processors(3)
    check_and_clear(p0, (W("A", 0, 10), "0+1", 0), (W("B", 0, 10), "0+2", 1),
                    (W("C", 0, 10), "0+3", 2), (W("D", 0, 10), "0+4", 3),
                    (W("A", 0, 10), "0+1+1", 9), (W("A", 5, 15), "0+1", 9))
    check_and_clear(p1)
    check_and_clear(p2)

    _pipe(topic1, ("A", "1", 5), ("B", "2", 6), ("D", "4", 7), ("B", "2", 8), ("C", "3", 9))
    check_and_clear(p0, (W("A", 0, 10), "0+1+1+1", 9), (W("A", 5, 15), "0+1+1", 9),
                    (W("B", 0, 10), "0+2+2", 6), (W("B", 5, 15), "0+2", 6),
                    (W("D", 0, 10), "0+4+4", 7), (W("D", 5, 15), "0+4", 7),
                    (W("B", 0, 10), "0+2+2+2", 8), (W("B", 5, 15), "0+2+2", 8),
                    (W("C", 0, 10), "0+3+3", 9), (W("C", 5, 15), "0+3", 9))
    check_and_clear(p1)
    check_and_clear(p2)

    _pipe(topic2, ("A", "a", 0), ("B", "b", 1), ("C", "c", 2), ("D", "d", 20), ("A", "a", 20))
    check_and_clear(p0)
    check_and_clear(p1, (W("A", 0, 10), "0+a", 0), (W("B", 0, 10), "0+b", 1),
                    (W("C", 0, 10), "0+c", 2), (W("D", 15, 25), "0+d", 20),
                    (W("D", 20, 30), "0+d", 20), (W("A", 15, 25), "0+a", 20),
                    (W("A", 20, 30), "0+a", 20))
    check_and_clear(p2, (W("A", 0, 10), "0+1+1+1%0+a", 9), (W("B", 0, 10), "0+2+2+2%0+b", 8),
                    (W("C", 0, 10), "0+3+3%0+c", 9))

    _pipe(topic2, ("A", "a", 5), ("B", "b", 6), ("D", "d", 7), ("D", "d", 18), ("A", "a", 21))
    check_and_clear(p0)
    check_and_clear(p1, (W("A", 0, 10), "0+a+a", 5), (W("A", 5, 15), "0+a", 5),
                    (W("B", 0, 10), "0+b+b", 6), (W("B", 5, 15), "0+b", 6),
                    (W("D", 0, 10), "0+d", 7), (W("D", 5, 15), "0+d", 7),
                    (W("D", 10, 20), "0+d", 18), (W("D", 15, 25), "0+d+d", 20),
                    (W("A", 15, 25), "0+a+a", 21), (W("A", 20, 30), "0+a+a", 21))
    check_and_clear(p2, (W("A", 0, 10), "0+1+1+1%0+a+a", 9), (W("A", 5, 15), "0+1+1%0+a", 9),
                    (W("B", 0, 10), "0+2+2+2%0+b+b", 8), (W("B", 5, 15), "0+2+2%0+b", 8),
                    (W("D", 0, 10), "0+4+4%0+d", 7), (W("D", 5, 15), "0+4%0+d", 7))


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_log_and_meter_when_skipping_null_key(kind: str, with_cache: bool,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    builder = ks.StreamsBuilder()
    (builder.stream("topic", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .windowed_by(TimeWindows.of_size_with_no_grace(10).advance_by(5))
     .emit_strategy(strategy(kind))
     .aggregate(string_init, to_string_adder, materialized("topic1-Canonicalized", with_cache)))
    with caplog.at_level(logging.WARNING), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        driver.create_input_topic("topic", S, S).pipe_input(None, "1")
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
    assert "Skipping record due to null key. topic=[topic] partition=[0] offset=[0]" \
        in caplog.messages


def _expired_window_topology(kind: str, with_cache: bool, advance: int,
                             retention: int | None) -> ks.StreamsBuilder:
    builder = ks.StreamsBuilder()
    mat = materialized("topic1-Canonicalized", with_cache).with_logging_disabled()
    if retention is not None:
        mat = mat.with_retention(retention)
    (builder.stream("topic", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .windowed_by(TimeWindows.of_size_and_grace(10, 90).advance_by(advance))
     .emit_strategy(strategy(kind))
     .aggregate(lambda: "", to_string_adder, mat)
     .to_stream()
     .map(lambda key, value: (str(key), value))
     .to("output"))
    return builder


NODE = "KSTREAM-AGGREGATE-0000000001"


def assert_lateness_metrics(driver: ks.TopologyTestDriver, drop_total: int, max_lateness: float,
                            avg_lateness: float) -> None:
    """Java's assertLatenessMetrics (the drop rate is a Java meter, not kept by kslab)."""
    metrics = driver.metrics()["0_0"]
    assert metrics["dropped-records-total"] == drop_total
    assert metrics["record-lateness-max"] == max_lateness
    assert metrics["record-lateness-avg"] == avg_lateness


def assert_emitted_metrics(driver: ks.TopologyTestDriver, emitted_total: float) -> None:
    """Java's assertEmittedMetrics."""
    node = driver.metrics()["0_0"][NODE]
    assert node["window-aggregate-final-emit-total"] == emitted_total
    assert node["window-aggregate-final-emit-rate"] != 0.0


EXPIRED = ("Skipping record for expired window. topic=[topic] partition=[0] offset=[{}] "
           "timestamp=[{}] window=[{},{}) expiration=[{}] streamTime=[{}]")


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_log_and_meter_when_skipping_expired_window(
        kind: str, with_cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    builder = _expired_window_topology(kind, with_cache, 5, 100)
    with caplog.at_level(logging.WARNING), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic("topic", S, S)
        for value, ts in [("100", 100), ("0", 0), ("1", 1), ("2", 2), ("3", 3), ("4", 4),
                          ("5", 5), ("6", 6), ("105", 105), ("106", 106)]:
            topic.pipe_input("k", value, ts)
        # k:0 is 100 ms late (stream time 100); (0 + 100 + 99 + ... + 94 + 0) / 10
        assert_lateness_metrics(driver, 7, 100.0, 67.9)
        for offset in range(1, 8):
            assert EXPIRED.format(offset, offset - 1, 0, 10, 10, 100) in caplog.messages
        output = driver.create_output_topic("output", S, S)
        if kind == CLOSE:
            # window close time is 15 when the timestamp is 105
            assert output.read_record() == ks.TestRecord("[k@5/15]", "+5+6", None, 6)
            assert_emitted_metrics(driver, 1.0)
        else:
            assert [(r.key, r.value, r.timestamp) for r in output.read_records_to_list()] == [
                ("[k@95/105]", "+100", 100), ("[k@100/110]", "+100", 100),
                ("[k@5/15]", "+5", 5), ("[k@5/15]", "+5+6", 6),
                ("[k@100/110]", "+100+105", 105), ("[k@105/115]", "+105", 105),
                ("[k@100/110]", "+100+105+106", 106), ("[k@105/115]", "+105+106", 106)]
        assert output.is_empty()


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_log_and_meter_when_skipping_expired_window_by_grace(
        kind: str, with_cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    builder = _expired_window_topology(kind, with_cache, 10, None)
    with caplog.at_level(logging.WARNING), \
            ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        topic = driver.create_input_topic("topic", S, S)
        for value, ts in [("100", 200), ("0", 100), ("1", 101), ("2", 102), ("3", 103),
                          ("4", 104), ("5", 105), ("6", 6)]:
            topic.pipe_input("k", value, ts)
        assert_lateness_metrics(driver, 7, 194.0, 97.375)
        for offset in range(1, 7):
            assert EXPIRED.format(offset, 99 + offset, 100, 110, 110, 200) in caplog.messages
        assert EXPIRED.format(7, 6, 0, 10, 110, 200) in caplog.messages
        if kind != CLOSE:
            output = driver.create_output_topic("output", S, S)
            assert output.read_record() == ks.TestRecord("[k@200/210]", "+100", None, 200)
            assert output.is_empty()


ONE_DAY = 24 * 60 * 60 * 1000  # the retention of Java's hand-built store in makeContext


def _emit_driver(kind: str, interval: int) -> tuple[ks.TopologyTestDriver, object]:
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    (builder.stream("topic", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .windowed_by(TimeWindows.of_size_and_grace(10, 5).advance_by(5))
     .emit_strategy(strategy(kind))
     .aggregate(string_init, to_string_adder,
                ks.Materialized.as_(WINDOW_STORE_NAME).with_value_serde(S)
                .with_retention(ONE_DAY).with_logging_disabled().with_caching_disabled())
     .to_stream().process(supplier))
    driver = ks.TopologyTestDriver(builder.build(), {**PROPS, INTERVAL: interval})
    return driver, supplier


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_not_emit_final_if_not_progress_enough(kind: str, with_cache: bool) -> None:
    driver, supplier = _emit_driver(kind, 0)
    with driver:
        topic = driver.create_input_topic("topic", S, S)
        _pipe(topic, ("A", "1", 0), ("B", "2", 5), ("C", "3", 15))
        processor = supplier.the_captured_processor()
        if kind == CLOSE:
            check_and_clear(processor, (W("A", 0, 10), "0+1", 0), (W("B", 0, 10), "0+2", 5))
        else:
            check_and_clear(processor, (W("A", 0, 10), "0+1", 0), (W("B", 0, 10), "0+2", 5),
                            (W("B", 5, 15), "0+2", 5), (W("C", 10, 20), "0+3", 15),
                            (W("C", 15, 25), "0+3", 15))
        topic.pipe_input("D", "4", 15)
        if kind == CLOSE:  # none emitted: observed stream time did not progress
            check_and_clear(processor)
        else:
            check_and_clear(processor, (W("D", 10, 20), "0+4", 15), (W("D", 15, 25), "0+4", 15))
        topic.pipe_input("E", "5", 19)
        if kind == CLOSE:  # none emitted: stream time did not progress enough
            check_and_clear(processor)
        else:
            check_and_clear(processor, (W("E", 10, 20), "0+5", 19), (W("E", 15, 25), "0+5", 19))


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_emit_with_interval0(kind: str, with_cache: bool) -> None:
    driver, supplier = _emit_driver(kind, 0)
    with driver:
        topic = driver.create_input_topic("topic", S, S)
        _pipe(topic, ("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15),
              ("D", "4", 20))
        processor = supplier.the_captured_processor()
        if kind == CLOSE:
            check_and_clear(processor, (W("A", 0, 10), "0+1+1", 5), (W("A", 5, 15), "0+1", 5),
                            (W("B", 5, 15), "0+2", 10))
        else:
            check_and_clear(processor, (W("A", 0, 10), "0+1", 0), (W("A", 0, 10), "0+1+1", 5),
                            (W("A", 5, 15), "0+1", 5), (W("B", 5, 15), "0+2", 10),
                            (W("B", 10, 20), "0+2", 10), (W("C", 10, 20), "0+3", 15),
                            (W("C", 15, 25), "0+3", 15), (W("D", 15, 25), "0+4", 20),
                            (W("D", 20, 30), "0+4", 20))


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_emit_with_large_interval(kind: str, with_cache: bool) -> None:
    driver, supplier = _emit_driver(kind, 1000)
    with driver:
        topic = driver.create_input_topic("topic", S, S)
        _pipe(topic, ("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15))
        processor = supplier.the_captured_processor()
        if kind == CLOSE:
            check_and_clear(processor)
        else:
            check_and_clear(processor, (W("A", 0, 10), "0+1", 0), (W("A", 0, 10), "0+1+1", 5),
                            (W("A", 5, 15), "0+1", 5), (W("B", 5, 15), "0+2", 10),
                            (W("B", 10, 20), "0+2", 10), (W("C", 10, 20), "0+3", 15),
                            (W("C", 15, 25), "0+3", 15))
        driver.advance_wall_clock_time(10000)
        topic.pipe_input("D", "4", 20)
        if kind == CLOSE:
            check_and_clear(processor, (W("A", 0, 10), "0+1+1", 5), (W("A", 5, 15), "0+1", 5),
                            (W("B", 5, 15), "0+2", 10))
        else:
            check_and_clear(processor, (W("D", 15, 25), "0+4", 20), (W("D", 20, 30), "0+4", 20))
        driver.advance_wall_clock_time(100)
        topic.pipe_input("E", "5", 40)
        if kind == CLOSE:
            check_and_clear(processor)
        else:
            check_and_clear(processor, (W("E", 35, 45), "0+5", 40), (W("E", 40, 50), "0+5", 40))


@pytest.mark.parametrize(("kind", "with_cache"), PARAMS)
def test_should_emit_from_last_emit_time(kind: str, with_cache: bool) -> None:
    """The first processor's half (see the module docstring)."""
    driver, supplier = _emit_driver(kind, 0)
    with driver:
        topic = driver.create_input_topic("topic", S, S)
        _pipe(topic, ("A", "1", 0), ("B", "2", 5), ("C", "3", 15))
        processor = supplier.the_captured_processor()
        if kind == CLOSE:
            check_and_clear(processor, (W("A", 0, 10), "0+1", 0), (W("B", 0, 10), "0+2", 5))
        else:
            check_and_clear(processor, (W("A", 0, 10), "0+1", 0), (W("B", 0, 10), "0+2", 5),
                            (W("B", 5, 15), "0+2", 5), (W("C", 10, 20), "0+3", 15),
                            (W("C", 15, 25), "0+3", 15))
        topic.pipe_input("D", "4", 25)
        if kind == CLOSE:
            check_and_clear(processor, (W("B", 5, 15), "0+2", 5), (W("C", 10, 20), "0+3", 15))
        else:
            check_and_clear(processor, (W("D", 20, 30), "0+4", 25), (W("D", 25, 35), "0+4", 25))


def _emit_five(kind: str = CLOSE) -> ks.TopologyTestDriver:
    driver, _ = _emit_driver(kind, 0)
    topic = driver.create_input_topic("topic", S, S)
    _pipe(topic, ("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15), ("D", "4", 20))
    return driver


def _assert_emitted_metrics(node: dict) -> None:
    """Java's assertEmittedMetrics, plus the latency sensors (the driver's clock stands still)."""
    assert node["window-aggregate-final-emit-total"] == 3.0
    assert node["window-aggregate-final-emit-rate"] != 0.0
    assert node["window-aggregate-final-emit-latency-avg"] == 0.0
    assert node["window-aggregate-final-emit-latency-max"] == 0.0


def test_emitted_metrics() -> None:
    """assertEmittedMetrics through driver.metrics()."""
    with _emit_five() as driver:
        _assert_emitted_metrics(driver.metrics()["0_0"][NODE])
