"""EmitStrategy.on_window_close() (KIP-825), ported from Kafka's KStreamWindowAggregateTest,
KStreamSlidingWindowAggregateTest and KStreamSessionWindowAggregateProcessorTest (emit-final
cases), with the outputs those tests expect."""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SessionWindows, SlidingWindows, TimeWindows
from kslab.errors import TopologyError

CLOSE = ks.EmitStrategy.on_window_close()
GAP = 5 * 60 * 1000
INTERVAL = "__emit.interval.ms.kstreams.windowed.aggregation__"


def _to_string_adder(key: str, value: str, agg: str) -> str:
    return f"{agg}+{value}"


def _stream(b: ks.StreamsBuilder, topic: str = "topic1") -> ks.KStream:
    return b.stream(topic, key_serde=serdes.String(), value_serde=serdes.String())


def _collect(table: ks.KTable) -> list[tuple[str, int, int, str, int]]:
    out: list[tuple[str, int, int, str, int]] = []

    class Capture(ks.Processor):
        def process(self, record: ks.Record) -> None:
            k = record.key
            out.append((k.key, k.window.start, k.window.end, record.value, record.timestamp))

    table.to_stream().process(Capture)
    return out


def _time_aggregate(windows: TimeWindows, store: str, strategy: ks.EmitStrategy = CLOSE,
                    retention: int | None = None) -> tuple[ks.StreamsBuilder, list]:
    b = ks.StreamsBuilder()
    mat = ks.Materialized.as_(store).with_value_serde(serdes.String())
    if retention is not None:
        mat = mat.with_retention(retention)
    table = (_stream(b).group_by_key().windowed_by(windows).emit_strategy(strategy)
             .aggregate(lambda: "0", _to_string_adder, mat))
    return b, _collect(table)


def test_emit_strategy_repr_and_type_check() -> None:
    assert repr(ks.EmitStrategy.on_window_update()) == "EmitStrategy.on_window_update()"
    assert ks.EmitStrategy.on_window_close() == CLOSE
    assert ks.EmitStrategy.on_window_update() != CLOSE
    b = ks.StreamsBuilder()
    with pytest.raises(TopologyError, match=r"emit_strategy\(\) got 'close'"):
        _stream(b).group_by_key().windowed_by(TimeWindows.of_size_with_no_grace(10)) \
            .emit_strategy("close")


def test_agg_basic_emits_nothing_before_close() -> None:
    """testAggBasic: grace 100 ms, no window closes, nothing is forwarded."""
    b, out = _time_aggregate(TimeWindows.of_size_and_grace(10, 100).advance_by(5),
                             "topic1-Canonized")
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in [("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3),
                               ("A", "1", 4), ("A", "1", 5), ("B", "2", 6), ("D", "4", 7),
                               ("B", "2", 8), ("C", "3", 9), ("A", "1", 10), ("B", "2", 11),
                               ("D", "4", 12), ("B", "2", 13), ("C", "3", 14), ("B", "1", 3),
                               ("B", "2", 2), ("B", "3", 9)]:
            topic.pipe_input(key, value, ts)
        assert out == []
        # the windows are in the store all the same
        store = driver.get_timestamped_window_store("topic1-Canonized")
        assert store.fetch("B", 0) == ks.ValueAndTimestamp("0+2+2+2+1+2+3", 9)


def test_emit_final_join_inputs() -> None:
    """testJoin (emit final): each batch of hopping windows is emitted once, in key order."""
    b, out = _time_aggregate(TimeWindows.of_size_and_grace(10, 5).advance_by(5),
                             "topic1-Canonized")
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in [("A", "1", 0), ("B", "2", 1), ("C", "3", 2), ("D", "4", 3),
                               ("A", "1", 9), ("A", "1", 15)]:
            topic.pipe_input(key, value, ts)
        assert out == [("A", 0, 10, "0+1+1", 9), ("B", 0, 10, "0+2", 1),
                       ("C", 0, 10, "0+3", 2), ("D", 0, 10, "0+4", 3)]
        out.clear()
        for key, value, ts in [("A", "1", 10), ("B", "2", 11), ("D", "4", 12), ("B", "2", 13),
                               ("C", "3", 14), ("A", "1", 20)]:
            topic.pipe_input(key, value, ts)
        assert out == [("A", 5, 15, "0+1+1", 10), ("B", 5, 15, "0+2+2", 13),
                       ("C", 5, 15, "0+3", 14), ("D", 5, 15, "0+4", 12)]


def _expired_topology(advance: int, retention: int | None) -> ks.StreamsBuilder:
    b = ks.StreamsBuilder()
    mat = ks.Materialized.as_("topic1-Canonicalized").with_value_serde(serdes.String()) \
        .with_logging_disabled()
    if retention is not None:
        mat = mat.with_retention(retention)
    (_stream(b, "topic").group_by_key()
     .windowed_by(TimeWindows.of_size_and_grace(10, 90).advance_by(advance))
     .emit_strategy(CLOSE)
     .aggregate(lambda: "", lambda k, v, a: f"{a}+{v}", mat)
     .to_stream().map(lambda k, v: (str(k), v))
     .to("output", ks.Produced.with_(serdes.String(), serdes.String())))
    return b


def test_skipping_expired_window_emits_final(caplog: pytest.LogCaptureFixture) -> None:
    """shouldLogAndMeterWhenSkippingExpiredWindow (emit final): one window, [5, 15), closes."""
    b = _expired_topology(5, 100)
    with caplog.at_level(logging.WARNING, logger="kslab.dsl"), \
            ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic", serdes.String(), serdes.String())
        for value, ts in [("100", 100), ("0", 0), ("1", 1), ("2", 2), ("3", 3), ("4", 4),
                          ("5", 5), ("6", 6), ("105", 105), ("106", 106)]:
            topic.pipe_input("k", value, ts)
        assert driver.metrics()["0_0"]["dropped-records-total"] == 7
        output = driver.create_output_topic("output", serdes.String(), serdes.String())
        assert [(r.key, r.value, r.timestamp) for r in output.read_records_to_list()] == [
            ("[k@5/15]", "+5+6", 6)]
    assert ("Skipping record for expired window. topic=[topic] partition=[0] offset=[1] "
            "timestamp=[0] window=[0,10) expiration=[10] streamTime=[100]") in caplog.text


def test_skipping_expired_window_by_grace_emits_nothing() -> None:
    """shouldLogAndMeterWhenSkippingExpiredWindowByGrace (emit final): no output at all."""
    b = _expired_topology(10, None)
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic", serdes.String(), serdes.String())
        for value, ts in [("100", 200), ("0", 100), ("1", 101), ("2", 102), ("3", 103),
                          ("4", 104), ("5", 105), ("6", 6)]:
            topic.pipe_input("k", value, ts)
        assert driver.metrics()["0_0"]["dropped-records-total"] == 7
        assert driver.create_output_topic("output", serdes.String(), serdes.String()).is_empty()


def test_not_emit_final_if_not_progress_enough() -> None:
    """shouldNotEmitFinalIfNotProgressEnough: no emission until a new window closes."""
    b, out = _time_aggregate(TimeWindows.of_size_and_grace(10, 5).advance_by(5), "s")
    with ks.TopologyTestDriver(b.build(), {INTERVAL: 0}) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in [("A", "1", 0), ("B", "2", 5), ("C", "3", 15)]:
            topic.pipe_input(key, value, ts)
        assert out == [("A", 0, 10, "0+1", 0), ("B", 0, 10, "0+2", 5)]
        out.clear()
        topic.pipe_input("D", "4", 15)
        topic.pipe_input("E", "5", 19)
        assert out == []


def test_emit_with_interval_0() -> None:
    """shouldEmitWithInterval0."""
    b, out = _time_aggregate(TimeWindows.of_size_and_grace(10, 5).advance_by(5), "s")
    with ks.TopologyTestDriver(b.build(), {INTERVAL: 0}) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in [("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15),
                               ("D", "4", 20)]:
            topic.pipe_input(key, value, ts)
    assert out == [("A", 0, 10, "0+1+1", 5), ("A", 5, 15, "0+1", 5), ("B", 5, 15, "0+2", 10)]


def test_emit_with_large_interval() -> None:
    """shouldEmitWithLargeInterval: at most one emission per second of wall-clock time (a day
    of retention, as Kafka's test store: by default window [0, 10) expires at window start 20)."""
    b, out = _time_aggregate(TimeWindows.of_size_and_grace(10, 5).advance_by(5), "s",
                             retention=86_400_000)
    with ks.TopologyTestDriver(b.build(), {INTERVAL: 1000}) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in [("A", "1", 0), ("A", "1", 5), ("B", "2", 10), ("C", "3", 15)]:
            topic.pipe_input(key, value, ts)
        assert out == []
        driver.advance_wall_clock_time(10_000)
        topic.pipe_input("D", "4", 20)
        assert out == [("A", 0, 10, "0+1+1", 5), ("A", 5, 15, "0+1", 5),
                       ("B", 5, 15, "0+2", 10)]
        out.clear()
        driver.advance_wall_clock_time(100)
        topic.pipe_input("E", "5", 40)
        assert out == []


def test_emit_on_update_is_the_default() -> None:
    b, out = _time_aggregate(TimeWindows.of_size_with_no_grace(10), "s",
                             ks.EmitStrategy.on_window_update())
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        topic.pipe_input("A", "1", 0)
        topic.pipe_input("A", "2", 12)
    assert out == [("A", 0, 10, "0+1", 0), ("A", 10, 20, "0+2", 12)]


def test_describe_is_unchanged_by_the_strategy() -> None:
    described = []
    for strategy in (CLOSE, ks.EmitStrategy.on_window_update()):
        b, _ = _time_aggregate(TimeWindows.of_size_with_no_grace(10), "s", strategy)
        described.append(str(b.build().describe()))
    assert described[0] == described[1]
    assert "Processor: KSTREAM-AGGREGATE-0000000001 (stores: [s])" in described[0]


def _sliding(grace: int, inputs: list[tuple[str, str, int]]) -> list:
    b = ks.StreamsBuilder()
    table = (_stream(b).group_by_key()
             .windowed_by(SlidingWindows.of_time_difference_and_grace(10, grace))
             .emit_strategy(CLOSE)
             .aggregate(lambda: "0", _to_string_adder,
                        ks.Materialized.as_("store-name").with_value_serde(serdes.String())))
    out = _collect(table)
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in inputs:
            topic.pipe_input(key, value, ts)
    return out


def test_sliding_aggregate_small_input() -> None:
    """KStreamSlidingWindowAggregateTest.testAggregateSmallInput (emit final)."""
    out = _sliding(5, [("A", "1", 10), ("A", "2", 10), ("A", "3", 14), ("A", "4", 15),
                       ("A", "5", 20), ("A", "6", 22), ("A", "7", 30)])
    assert out == [("A", 0, 10, "0+1+2", 10), ("A", 4, 14, "0+1+2+3", 14),
                   ("A", 5, 15, "0+1+2+3+4", 15), ("A", 10, 20, "0+1+2+3+4+5", 20),
                   ("A", 11, 21, "0+3+4+5", 20), ("A", 12, 22, "0+3+4+5+6", 22)]


def test_sliding_aggregate_large_input() -> None:
    """KStreamSlidingWindowAggregateTest.testAggregateLargeInput (emit final), sorted as there."""
    out = _sliding(10, [("A", "1", 10), ("A", "2", 20), ("A", "3", 22), ("A", "4", 15),
                        ("B", "1", 12), ("B", "2", 13), ("B", "3", 18), ("B", "4", 19),
                        ("B", "5", 25), ("B", "6", 14), ("C", "1", 11), ("C", "2", 15),
                        ("C", "3", 16), ("C", "4", 21), ("C", "5", 23), ("D", "4", 11),
                        ("D", "2", 12), ("D", "3", 29), ("D", "5", 16)])
    assert sorted(out) == [("A", 0, 10, "0+1", 10), ("A", 5, 15, "0+1+4", 15),
                           ("B", 2, 12, "0+1", 12), ("B", 3, 13, "0+1+2", 13),
                           ("B", 8, 18, "0+1+2+3+6", 18), ("C", 5, 15, "0+2", 15),
                           ("C", 6, 16, "0+2+3", 16)]


def test_session_multiple_sessions_and_merging() -> None:
    """KStreamSessionWindowAggregateProcessorTest.shouldHandleMultipleSessionsAndMerging
    (emit final): the four sessions ending by GAP/2 are emitted, with no merge tombstones."""
    b = ks.StreamsBuilder()
    table = (_stream(b).group_by_key()
             .windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(GAP))
             .emit_strategy(CLOSE)
             .count(ks.Materialized.as_("session-store").with_retention(GAP * 3)))
    out = _collect(table)
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in [("a", "1", 0), ("b", "1", 0), ("c", "1", 0), ("d", "1", 0),
                               ("d", "2", GAP // 2), ("a", "2", GAP + 1), ("b", "2", GAP + 1),
                               ("a", "3", GAP + 1 + GAP // 2), ("c", "3", GAP + 1 + GAP // 2)]:
            topic.pipe_input(key, value, ts)
        assert out == [("a", 0, 0, 1, 0), ("b", 0, 0, 1, 0), ("c", 0, 0, 1, 0),
                       ("d", 0, GAP // 2, 2, GAP // 2)]
        store = driver.get_session_store("session-store")
        with store.find_sessions("a", 0, GAP * 2) as sessions:
            assert [(kv.key.window.start, kv.key.window.end, kv.value) for kv in sessions] == [
                (0, 0, 1), (GAP + 1, GAP + 1 + GAP // 2, 2)]


def test_idle_stream_time_advance_closes_windows() -> None:
    """Opt-in kslab.idle.stream.time.advance.ms: on a quiet input the emit-on-close window is
    emitted once stream time advances past its end + grace; without it, never."""
    emitted = []
    for config in (None, {"kslab.idle.stream.time.advance.ms": 5_000}):
        b, out = _time_aggregate(TimeWindows.of_size_and_grace(60_000, 10_000), "s")
        with ks.TopologyTestDriver(b.build(), config) as driver:
            driver.create_input_topic("topic1").pipe_input("a", "1", 1_000)
            driver.advance_wall_clock_time(4_000)
            early = list(out)
            driver.advance_wall_clock_time(70_000)
        emitted.append((early, out))
    assert emitted[0] == ([], [])
    assert emitted[1] == ([], [("a", 0, 60_000, "0+1", 1_000)])


def _sliding_starts(difference: int, grace: int, inputs: list[tuple[str, str, int]]) -> dict:
    """Kafka's gatherOutput: window start -> set of (value, timestamp) emitted."""
    b = ks.StreamsBuilder()
    table = (_stream(b).group_by_key()
             .windowed_by(SlidingWindows.of_time_difference_and_grace(difference, grace))
             .emit_strategy(CLOSE)
             .aggregate(lambda: "0", _to_string_adder,
                        ks.Materialized.as_("topic-Canonized").with_value_serde(serdes.String())))
    out = _collect(table)
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in inputs:
            topic.pipe_input(key, value, ts)
    gathered: dict[int, set] = {}
    for _key, start, _end, value, ts in out:
        gathered.setdefault(start, set()).add((value, ts))
    return gathered


def test_sliding_early_records_small_input() -> None:
    """testEarlyRecordsSmallInput (emit final): early records emit nothing themselves."""
    assert _sliding_starts(50, 0, [("A", "1", 0), ("A", "2", 5), ("A", "3", 6), ("A", "4", 3),
                                   ("A", "5", 13), ("A", "6", 10), ("A", "7", 70)]) == {
        0: {("0+1+2+3+4+5+6", 13)}, 1: {("0+2+3+4+5+6", 13)}, 4: {("0+2+3+5+6", 13)},
        6: {("0+3+5+6", 13)}, 7: {("0+5+6", 13)}, 11: {("0+5", 13)}}


def test_sliding_no_grace_period_small_input() -> None:
    """testNoGracePeriodSmallInput (emit final)."""
    assert _sliding_starts(50, 0, [("A", "1", 100), ("A", "2", 105), ("A", "3", 106),
                                   ("A", "4", 103), ("A", "5", 113), ("A", "6", 110)]) == {
        50: {("0+1", 100)}, 55: {("0+1+2", 105)}, 56: {("0+1+2+3+4", 106)}}


SESSION_INPUT = [("1", "1", 10), ("1", "2", 15), ("1", "3", 600), ("2", "1", 600),
                 ("2", "2", 599)]


@pytest.mark.parametrize(("op", "expected_value"), [("count", 2), ("reduce", "1+2"),
                                                     ("aggregate", "0+0+1+2")])
def test_session_windowed_emit_final(op: str, expected_value: object) -> None:
    """SessionWindowedKStreamImplTest (emit final): only [10, 15] closes; the time-ordered store
    still finds it by end time (live segment), while keyed reads apply the retention."""
    b = ks.StreamsBuilder()
    windowed = (b.stream("topic1", key_serde=serdes.String(), value_serde=serdes.String())
                .group_by_key().windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(500))
                .emit_strategy(CLOSE))
    mat = ks.Materialized.as_("store").with_value_serde(
        serdes.Long() if op == "count" else serdes.String())
    if op == "count":
        table = windowed.count(mat)
    elif op == "reduce":
        table = windowed.reduce(lambda a, v: f"{a}+{v}", mat)
    else:
        table = windowed.aggregate(lambda: "0", _to_string_adder,
                                   lambda k, a1, a2: f"{a1}+{a2}", mat)
    out = _collect(table)
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in SESSION_INPUT:
            topic.pipe_input(key, value, ts)
        with driver.get_session_store("store").fetch("1", "2") as found:
            stored = [(kv.key.key, kv.key.window.start, kv.key.window.end) for kv in found]
    assert out == [("1", 10, 15, expected_value, 15)]
    assert stored == [("1", 600, 600), ("2", 599, 600)]


def test_time_windowed_count_and_materialized_store_without_cache() -> None:
    """TimeWindowedKStreamImplTest.shouldCountWindowed and shouldMaterializeCount (emit final,
    no cache): the time-ordered store keeps windows starting at stream time - retention."""
    b = ks.StreamsBuilder()
    table = (b.stream("topic1", key_serde=serdes.String(), value_serde=serdes.String())
             .group_by_key().windowed_by(TimeWindows.of_size_with_no_grace(500))
             .emit_strategy(CLOSE)
             .count(ks.Materialized.as_("count-store").with_caching_disabled()))
    out = _collect(table)
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("topic1")
        for key, value, ts in [("1", "1", 10), ("1", "2", 15), ("1", "3", 500), ("2", "10", 550),
                               ("2", "20", 500), ("2", "30", 1000)]:
            topic.pipe_input(key, value, ts)
        with driver.get_window_store("count-store").fetch("1", "2", 0, 1000) as found:
            plain = [(kv.key.key, kv.key.window.start, kv.value) for kv in found]
        with driver.get_timestamped_window_store("count-store").fetch("1", "2", 0, 1000) as found:
            stamped = [(kv.key.key, kv.key.window.start, kv.value) for kv in found]
    assert out == [("1", 0, 500, 2, 15), ("1", 500, 1000, 1, 500), ("2", 500, 1000, 2, 550)]
    assert plain == [("1", 500, 1), ("2", 500, 2), ("2", 1000, 1)]
    assert stamped == [("1", 500, ks.ValueAndTimestamp(1, 500)),
                       ("2", 500, ks.ValueAndTimestamp(2, 550)),
                       ("2", 1000, ks.ValueAndTimestamp(1, 1000))]
