"""Kafka's ``KStreamAggregationIntegrationTest`` (streams/src/test/.../integration), translated to
kslab on the TopologyTestDriver instead of an embedded cluster: the test's ``produceMessages``
batches (keys 1..5, values A..E) and session inputs are piped in the order Java produces them,
with ``statestore.cache.max.bytes=0``, String keys / Integer values by default, and the stream
read with ``Consumed.with(Integer, String)`` and grouped by its value
(``MockMapper.selectValueMapper``). ``NOW`` stands for ``mockTime.milliseconds()``; it is not a
multiple of 500 so window alignment is exercised. Java sorts what it reads by key, then value
(then timestamp) and so do we; the session and unlimited-window tests keep the latest result per
windowed key (Java's result map, after its latch of 13 / 5 records). The console-consumer
cross-check reads the same topic again and is not repeated. Nothing else is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl.windows import UnlimitedWindows

INPUT, SESSIONS, OUTPUT = "stream-one-input", "user-sessions", "output"
NOW = 1_700_000_000_123
CONFIG = {"application.id": "app-kstream-aggregation", "statestore.cache.max.bytes": 0,
          "commit.interval.ms": 100, "default.key.serde": "string",
          "default.value.serde": "integer"}
BATCH = [(1, "A"), (2, "B"), (3, "C"), (4, "D"), (5, "E")]
STR, INT, LONG = serdes.String(), serdes.Integer(), serdes.Long()


def reducer(value1: str, value2: str) -> str:
    return f"{value1}:{value2}"


def aggregator(_key: str, value: str, aggregate: int) -> int:
    return aggregate + len(value)


def grouped_stream(builder: ks.StreamsBuilder) -> ks.KGroupedStream:
    stream = builder.stream(INPUT, ks.Consumed.with_(INT, STR))
    return stream.group_by(lambda k, v: v, ks.Grouped.with_(STR, STR))


def run(builder: ks.StreamsBuilder, batches: list[int], key_serde, value_serde) -> list:
    """Pipe one ``BATCH`` per timestamp in ``batches``; return the output sorted as Java does."""
    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        inp = driver.create_input_topic(INPUT, INT, STR)
        for timestamp in batches:
            for key, value in BATCH:
                inp.pipe_input(key, value, timestamp)
        out = driver.create_output_topic(OUTPUT, key_serde, value_serde)
        records = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
    return sorted(records, key=_sort_key)


def _sort_key(record: tuple) -> tuple:
    key, value, _timestamp = record
    return (key.key if isinstance(key, ks.Windowed) else key, value)


def windowed(key: str, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def test_should_reduce():
    builder = ks.StreamsBuilder()
    grouped_stream(builder).reduce(reducer, ks.Materialized.as_("reduce-by-key")) \
        .to_stream().to(OUTPUT, ks.Produced.with_(STR, STR))
    assert run(builder, [NOW, NOW], STR, STR) == [
        (k, v, NOW) for letter in "ABCDE" for k, v in ((letter, letter),
                                                      (letter, f"{letter}:{letter}"))]


def test_should_aggregate():
    builder = ks.StreamsBuilder()
    grouped_stream(builder).aggregate(lambda: 0, aggregator,
                                      ks.Materialized.as_("aggregate-by-selected-key")) \
        .to_stream().to(OUTPUT, ks.Produced.with_(STR, INT))
    assert run(builder, [NOW, NOW], STR, INT) == [
        (letter, n, NOW) for letter in "ABCDE" for n in (1, 2)]


@pytest.mark.parametrize("internal_store", [False, True])
def test_should_count(internal_store):
    """``shouldCount`` (``Materialized.as("count-by-key")``) and
    ``shouldCountWithInternalStore``."""
    builder = ks.StreamsBuilder()
    grouped = grouped_stream(builder)
    counts = grouped.count() if internal_store \
        else grouped.count(ks.Materialized.as_("count-by-key"))
    counts.to_stream().to(OUTPUT, ks.Produced.with_(STR, LONG))
    assert run(builder, [NOW, NOW], STR, LONG) == [
        (letter, n, NOW) for letter in "ABCDE" for n in (1, 2)]


def _two_batch_windows(op: str) -> list:
    """``shouldReduceWindowed`` / ``shouldAggregateWindowed``: one batch at ``first``, two at
    ``first + 1000``, 500 ms tumbling windows with one minute of grace."""
    first, second = NOW, NOW + 1000
    builder = ks.StreamsBuilder()
    windowed_stream = grouped_stream(builder).windowed_by(
        ks.TimeWindows.of_size_and_grace(500, 60_000))
    if op == "reduce":
        table, value_serde = windowed_stream.reduce(reducer), STR
    else:
        table, value_serde = windowed_stream.aggregate(
            lambda: 0, aggregator, ks.Materialized.with_(None, INT)), INT
    key_serde = serdes.TimeWindowed(STR, window_size=500)
    table.to_stream().to(OUTPUT, ks.Produced.with_(key_serde, value_serde))
    return run(builder, [first, second, second], key_serde, value_serde)


def test_should_reduce_windowed():
    first, second = NOW, NOW + 1000
    w1, w2 = first // 500 * 500, second // 500 * 500
    assert _two_batch_windows("reduce") == [
        row for x in "ABCDE" for row in (
            (windowed(x, w1, w1 + 500), x, first), (windowed(x, w2, w2 + 500), x, second),
            (windowed(x, w2, w2 + 500), f"{x}:{x}", second))]


def test_should_aggregate_windowed():
    first, second = NOW, NOW + 1000
    w1, w2 = first // 500 * 500, second // 500 * 500
    assert _two_batch_windows("aggregate") == [
        row for x in "ABCDE" for row in (
            (windowed(x, w1, w1 + 500), 1, first), (windowed(x, w2, w2 + 500), 1, second),
            (windowed(x, w2, w2 + 500), 2, second))]


def test_should_group_by_key():
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .group_by_key(ks.Grouped.with_(INT, STR)) \
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(500)).count() \
        .to_stream(lambda wk, v: f"{wk.key}@{wk.window.start}") \
        .to(OUTPUT, ks.Produced.with_(STR, LONG))
    window = NOW // 500 * 500
    assert run(builder, [NOW, NOW], STR, LONG) == [
        (f"{k}@{window}", n, NOW) for k in range(1, 6) for n in (1, 2)]


@pytest.mark.parametrize("op", ["reduce", "aggregate"])
def test_should_reduce_or_aggregate_sliding_windows(op):
    """``shouldReduceSlidingWindows`` (grace 2 s) / ``shouldAggregateSlidingWindows`` (grace
    5 min): batches at ``first``, ``first + 250`` and ``first + 400``, time difference 500 ms."""
    diff, first = 500, NOW
    second, third = first + diff // 2, first + diff - 100
    builder = ks.StreamsBuilder()
    grace = 2000 if op == "reduce" else 300_000
    windowed_stream = grouped_stream(builder).windowed_by(
        ks.SlidingWindows.of_time_difference_and_grace(diff, grace))
    if op == "reduce":
        table, value_serde = windowed_stream.reduce(reducer), STR
        values = ["{x}", "{x}", "{x}", "{x}:{x}", "{x}:{x}", "{x}:{x}:{x}"]
    else:
        table, value_serde = windowed_stream.aggregate(
            lambda: 0, aggregator, ks.Materialized.with_(None, INT)), INT
        values = [1, 1, 1, 2, 2, 3]
    key_serde = serdes.TimeWindowed(STR, window_size=diff)
    table.to_stream().to(OUTPUT, ks.Produced.with_(key_serde, value_serde))
    windows = [(first - diff, first, first), (first + 1, first + 1 + diff, second),
               (second + 1, second + 1 + diff, third), (second - diff, second, second),
               (first + 1, first + 1 + diff, third), (third - diff, third, third)]
    expected = [(windowed(x, start, end), v.format(x=x) if isinstance(v, str) else v, ts)
                for x in "ABCDE" for (start, end, ts), v in zip(windows, values, strict=True)]
    assert run(builder, [first, second, third], key_serde, value_serde) == expected


def _session_inputs(t1: int, gap: int) -> tuple[list, dict]:
    t2, t3 = t1 + gap // 2, t1 + gap + 1
    t4 = t3 + gap // 2
    t5 = t4 - 1
    inputs = [("bob", "start", t1), ("penny", "start", t1), ("jo", "pause", t1),
              ("emily", "pause", t1), ("emily", "resume", t2), ("bob", "pause", t3),
              ("penny", "stop", t3), ("bob", "resume", t4), ("jo", "resume", t4),
              ("jo", "late", t5)]
    return inputs, {"t1": t1, "t2": t2, "t3": t3, "t4": t4, "t5": t5}


def _drive(builder: ks.StreamsBuilder, inputs: list, store: str | None = None) -> list:
    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        inp = driver.create_input_topic(SESSIONS, STR, STR)
        for key, value, timestamp in inputs:
            inp.pipe_input(key, value, timestamp)
        if store is None:
            return []
        with driver.get_session_store(store).fetch("bob") as bob:
            return list(bob)


def _session_builder(windows, reduce_store: str | None):
    seen: list[tuple] = []

    class Collect(ks.Processor):
        def process(self, record: ks.Record) -> None:
            seen.append((record.key, record.value, record.timestamp))

    builder = ks.StreamsBuilder()
    windowed_stream = builder.stream(SESSIONS, ks.Consumed.with_(STR, STR)) \
        .group_by_key(ks.Grouped.with_(STR, STR)).windowed_by(windows)
    if reduce_store is None:
        table = windowed_stream.count()
    else:
        table = windowed_stream.reduce(reducer, ks.Materialized.as_(reduce_store))
    table.to_stream().process(Collect)
    return builder, seen


def test_should_count_session_windows():
    gap = 5 * 60 * 1000
    inputs, t = _session_inputs(NOW - 3_600_000, gap)
    builder, seen = _session_builder(ks.SessionWindows.of_inactivity_gap_with_no_grace(gap), None)
    _drive(builder, inputs)
    assert len(seen) == 13
    results = {key: (value, ts) for key, value, ts in seen}
    t1, t2, t3, t4, t5 = (t[n] for n in ("t1", "t2", "t3", "t4", "t5"))
    assert results[windowed("bob", t1, t1)] == (1, t1)
    assert results[windowed("penny", t1, t1)] == (1, t1)
    assert results[windowed("jo", t1, t1)] == (1, t1)
    assert results[windowed("jo", t5, t4)] == (2, t4)
    assert results[windowed("emily", t1, t2)] == (2, t2)
    assert results[windowed("bob", t3, t4)] == (2, t4)
    assert results[windowed("penny", t3, t3)] == (1, t3)


def test_should_reduce_session_windows():
    gap = 1000
    inputs, t = _session_inputs(NOW, gap)
    store = "UserSessionsStore"
    builder, seen = _session_builder(ks.SessionWindows.of_inactivity_gap_and_grace(gap, 60_000),
                                     store)
    bob = _drive(builder, inputs, store)
    assert len(seen) == 13
    results = {key: (value, ts) for key, value, ts in seen}
    t1, t2, t3, t4, t5 = (t[n] for n in ("t1", "t2", "t3", "t4", "t5"))
    assert results[windowed("bob", t1, t1)] == ("start", t1)
    assert results[windowed("penny", t1, t1)] == ("start", t1)
    assert results[windowed("jo", t1, t1)] == ("pause", t1)
    assert results[windowed("jo", t5, t4)] == ("resume:late", t4)
    assert results[windowed("emily", t1, t2)] == ("pause:resume", t2)
    assert results[windowed("bob", t3, t4)] == ("pause:resume", t4)
    assert results[windowed("penny", t3, t3)] == ("stop", t3)
    assert bob == [(windowed("bob", t1, t1), "start"), (windowed("bob", t3, t4), "pause:resume")]


def test_should_count_unlimited_windows():
    start_time = NOW - 3_600_000 + 1
    day = 86_400_000
    t1 = NOW - 3_600_000
    t2, t3 = t1 + day, t1 + 2 * day
    t4 = t3 + day
    inputs = [("bob", "start", t1), ("penny", "start", t1), ("jo", "pause", t1),
              ("emily", "pause", t1), ("emily", "resume", t2), ("bob", "pause", t3),
              ("penny", "stop", t3), ("bob", "resume", t4), ("jo", "resume", t4)]
    builder, seen = _session_builder(UnlimitedWindows.of().start_on(start_time), None)
    _drive(builder, inputs)
    assert len(seen) == 5
    results = {key: (value, ts) for key, value, ts in seen}
    unlimited = ks.Window(start_time, 2**63 - 1)
    assert results == {ks.Windowed("bob", unlimited): (2, t4),
                       ks.Windowed("penny", unlimited): (1, t3),
                       ks.Windowed("jo", unlimited): (1, t4),
                       ks.Windowed("emily", unlimited): (1, t2)}
