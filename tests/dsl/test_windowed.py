"""Windowed aggregations: tumbling, hopping, sliding and session windows, grace and late drops."""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SessionWindows, SlidingWindows, TimeWindows
from kslab.records import Window, Windowed


def _run(windows, inputs, *, op="count", store="c"):
    b = ks.StreamsBuilder()
    grouped = b.stream("in", key_serde=serdes.String(), value_serde=serdes.Long()).group_by_key()
    windowed = grouped.windowed_by(windows)
    if op == "count":
        table = windowed.count(ks.Materialized.as_(store))
    elif op == "reduce":
        table = windowed.reduce(lambda a, v: a + v, ks.Materialized.as_(store))
    else:
        table = windowed.aggregate(lambda: 0, lambda k, v, a: a + v, ks.Materialized.as_(store)
                                   .with_value_serde(serdes.Long()))
    out = []
    table.to_stream().foreach(lambda k, v: out.append((k.key, k.window.start, k.window.end, v)))
    driver = ks.TopologyTestDriver(b.build())
    topic = driver.create_input_topic("in")
    for key, value, ts in inputs:
        topic.pipe_input(key, value, ts)
    return out, driver


def test_tumbling_count_with_late_drop(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kslab.dsl"):
        out, driver = _run(TimeWindows.of_size_with_no_grace(10),
                           [("a", 1, 0), ("a", 1, 9), ("b", 1, 5), ("a", 1, 10), ("a", 1, 3)])
    assert out == [("a", 0, 10, 1), ("a", 0, 10, 2), ("b", 0, 10, 1), ("a", 10, 20, 1)]
    assert "Skipping record for expired window." in caplog.text
    assert "window=[0,10) expiration=[10] streamTime=[10]" in caplog.text
    store = driver.get_timestamped_window_store("c")
    # retention = size + grace: the store expired the window at stream time 10, but the record
    # cache still holds it (clean) and Java's CachingWindowStore.fetch reads the cache first
    assert store.fetch("a", 0) == ks.ValueAndTimestamp(2, 9)
    assert store.wrapped.fetch("a", 0) is None
    assert store.fetch("a", 10) == ks.ValueAndTimestamp(1, 10)
    assert driver.get_window_store("c").fetch("a", 10) == 1
    driver.close()


def test_hopping_windows_with_grace() -> None:
    out, driver = _run(TimeWindows.of_size_and_grace(10, 5).advance_by(5),
                       [("a", 1, 0), ("a", 1, 3), ("a", 1, 12), ("a", 1, 2), ("a", 1, 30),
                        ("a", 1, 14)])
    assert out == [("a", 0, 10, 1), ("a", 0, 10, 2), ("a", 5, 15, 1), ("a", 10, 20, 1),
                   ("a", 0, 10, 3), ("a", 25, 35, 1), ("a", 30, 40, 1)]
    driver.close()


def test_reduce_and_aggregate() -> None:
    inputs = [("a", 2, 0), ("a", 3, 4), ("a", 5, 11)]
    expected = [("a", 0, 10, 2), ("a", 0, 10, 5), ("a", 10, 20, 5)]
    for op in ("reduce", "aggregate"):
        out, driver = _run(TimeWindows.of_size_with_no_grace(10), inputs, op=op)
        assert out == expected
        driver.close()


def test_sliding_windows() -> None:
    out, driver = _run(SlidingWindows.of_time_difference_with_no_grace(10),
                       [("a", 1, 5), ("a", 1, 12), ("a", 1, 30), ("a", 1, 20)])
    assert out == [("a", 0, 10, 1), ("a", 6, 16, 1), ("a", 2, 12, 2), ("a", 20, 30, 1),
                   ("a", 20, 30, 2), ("a", 21, 31, 1)]
    driver.close()


def test_session_merges_emit_tombstones() -> None:
    out, driver = _run(SessionWindows.of_inactivity_gap_and_grace(10, 5),
                       [("a", 1, 0), ("a", 1, 5), ("a", 1, 30), ("a", 1, 18), ("a", 1, 25),
                        ("a", 1, 1)])
    assert out == [
        ("a", 0, 0, 1),
        ("a", 0, 0, None), ("a", 0, 5, 2),
        ("a", 30, 30, 1),
        ("a", 18, 18, 1),
        ("a", 18, 18, None), ("a", 30, 30, None), ("a", 18, 30, 3),
    ]
    # [0,5] has expired in the store, but the record cache still holds it (clean) and Java's
    # CachingSessionStore merges every cached session into a scan
    with driver.get_session_store("c").fetch("a") as it:
        assert list(it) == [ks.KeyValue(Windowed("a", Window(0, 5)), 2),
                            ks.KeyValue(Windowed("a", Window(18, 30)), 3)]
    with driver.get_session_store("c").wrapped.fetch("a") as it:
        assert list(it) == [ks.KeyValue(Windowed("a", Window(18, 30)), 3)]
    driver.close()


def test_windowed_output_serde_and_describe() -> None:
    b = ks.StreamsBuilder()
    (b.stream("in", key_serde=serdes.String(), value_serde=serdes.String()).group_by_key()
     .windowed_by(TimeWindows.of_size_with_no_grace(10)).count().to_stream().to("out"))
    topology = b.build()
    assert "KSTREAM-AGGREGATE-STATE-STORE-0000000001" in str(topology.describe())
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("in").pipe_input("a", "x", 3)
        out = driver.create_output_topic("out", serdes.TimeWindowed(serdes.String(), 10),
                                         serdes.Long())
        assert out.read_key_value() == ks.KeyValue(Windowed("a", Window(0, 10)), 1)


def test_windowed_cogroup() -> None:
    b = ks.StreamsBuilder()
    one = b.stream("one", key_serde=serdes.String(), value_serde=serdes.Long()).group_by_key()
    two = b.stream("two", key_serde=serdes.String(), value_serde=serdes.Long()).group_by_key()
    out = []
    (one.cogroup(lambda k, v, a: a + v).cogroup(two, lambda k, v, a: a - v)
     .windowed_by(TimeWindows.of_size_with_no_grace(10))
     .aggregate(lambda: 0, materialized=ks.Materialized.with_value_serde(serdes.Long()))
     .to_stream().foreach(lambda k, v: out.append((k.key, k.window.start, v))))
    with ks.TopologyTestDriver(b.build()) as driver:
        driver.create_input_topic("one").pipe_input("a", 5, 1)
        driver.create_input_topic("two").pipe_input("a", 2, 2)
        driver.create_input_topic("two").pipe_input("a", 2, 12)
    assert out == [("a", 0, 5), ("a", 0, 3), ("a", 10, -2)]


def test_retention_smaller_than_window_fails() -> None:
    b = ks.StreamsBuilder()
    with pytest.raises(ks.TopologyError, match="must be no smaller than its window size"):
        (b.stream("in").group_by_key().windowed_by(TimeWindows.of_size_with_no_grace(10))
         .count(ks.Materialized.as_("c").with_retention(5)))


def test_sliding_aggregate_small_input_from_kafka() -> None:
    """KStreamSlidingWindowAggregateTest.testAggregateSmallInput (emit on update)."""
    b = ks.StreamsBuilder()
    seen: dict[int, set] = {}
    (b.stream("topic", key_serde=serdes.String(), value_serde=serdes.String())
     .group_by_key(ks.Grouped.with_(serdes.String(), serdes.String()))
     .windowed_by(SlidingWindows.of_time_difference_and_grace(10, 5))
     .aggregate(lambda: "0", lambda k, v, agg: f"{agg}+{v}",
                ks.Materialized.as_("store-name").with_value_serde(serdes.String()))
     .to_stream()
     .process(lambda: _Gather(seen)))
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic")
        for value, ts in [("1", 10), ("2", 10), ("3", 14), ("4", 15), ("5", 20), ("6", 22),
                          ("7", 30)]:
            topic.pipe_input("A", value, ts)
    vt = ks.ValueAndTimestamp
    assert seen == {
        0: {vt("0+1", 10), vt("0+1+2", 10)},
        4: {vt("0+1+2+3", 14)},
        5: {vt("0+1+2+3+4", 15)},
        10: {vt("0+1+2+3+4+5", 20)},
        11: {vt("0+3", 14), vt("0+3+4", 15), vt("0+3+4+5", 20)},
        12: {vt("0+3+4+5+6", 22)},
        15: {vt("0+4", 15), vt("0+4+5", 20), vt("0+4+5+6", 22)},
        16: {vt("0+5", 20), vt("0+5+6", 22)},
        20: {vt("0+5+6+7", 30)},
        21: {vt("0+6", 22), vt("0+6+7", 30)},
        23: {vt("0+7", 30)},
    }


class _Gather(ks.Processor):
    def __init__(self, seen: dict) -> None:
        self.seen = seen

    def process(self, record) -> None:
        self.seen.setdefault(record.key.window.start, set()).add(
            ks.ValueAndTimestamp(record.value, record.timestamp))


def test_session_count_from_kafka() -> None:
    """SessionWindowedKStreamImplTest.shouldCountSessionWindowed (emit on update)."""
    b = ks.StreamsBuilder()
    seen = []
    (b.stream("input", key_serde=serdes.String(), value_serde=serdes.String())
     .group_by_key(ks.Grouped.with_(serdes.String(), serdes.String()))
     .windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(500))
     .count()
     .to_stream()
     .foreach(lambda k, v: seen.append((k.key, k.window.start, k.window.end, v))))
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("input")
        for key, value, ts in [("1", "1", 10), ("1", "2", 15), ("1", "3", 600), ("2", "1", 600),
                               ("2", "2", 599)]:
            topic.pipe_input(key, value, ts)
    assert seen == [("1", 10, 10, 1), ("1", 10, 10, None), ("1", 10, 15, 2),
                    ("1", 600, 600, 1), ("2", 600, 600, 1), ("2", 600, 600, None),
                    ("2", 599, 600, 2)]
