"""Kafka's ``TimeWindowedKStreamIntegrationTest`` (streams/src/test/.../integration), translated
to kslab on the TopologyTestDriver instead of an embedded cluster: the same input records (one
partition, as Java creates them), String serdes, ``statestore.cache.max.bytes=0``, the emit
interval 0 (Java sets ``EMIT_INTERVAL_MS_KSTREAMS_WINDOWED_AGGREGATION=0``; the driver defaults to
it), the window-store changelog kept forever, and ``Materialized.with(null, String)`` with caching
enabled or disabled. ``EmitStrategy.on_window_close()`` emits each window's final value once,
when stream time passes its end plus grace; ``on_window_update()`` emits every update.
``shouldRestoreAfterJoinRestart`` stops the application, wipes its local state and restarts it
from the changelog; the driver has no restart, so that case runs on the LocalBroker in
``tests/runtime/test_windowed_restart_conformance.py`` (emit on window close).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl.windows import UnlimitedWindows

INPUT_ONE, INPUT_TWO, OUTPUT = "stream-one", "stream-two", "output"
STR = serdes.String()
WINDOWED = serdes.TimeWindowed(STR, window_size=10)
CONFIG = {"application.id": "app-time-windowed", "statestore.cache.max.bytes": 0,
          "commit.interval.ms": 100, "default.key.serde": "string",
          "default.value.serde": "string",
          "__emit.interval.ms.kstreams.windowed.aggregation__": 0,
          "windowstore.changelog.additional.retention.ms": 2**63 - 1}
STRATEGIES = [("ON_WINDOW_UPDATE", True), ("ON_WINDOW_UPDATE", False),
              ("ON_WINDOW_CLOSE", True), ("ON_WINDOW_CLOSE", False)]
INPUT = [("A", "1", 0), ("A", "2", 5), ("A", "3", 10), ("B", "4", 6), ("B", "5", 11),
         ("B", "6", 15), ("C", "7", 25)]


def strategy(kind: str) -> ks.EmitStrategy:
    """Java's ``StrategyType.forType``."""
    return ks.EmitStrategy.on_window_close() if kind == "ON_WINDOW_CLOSE" \
        else ks.EmitStrategy.on_window_update()


def materialized(with_cache: bool) -> ks.Materialized:
    m = ks.Materialized.with_(None, STR)
    return m.with_caching_enabled() if with_cache else m.with_caching_disabled()


def string_adder(_key: str, value: str, aggregate: str) -> str:
    """Java's ``MockAggregator.TOSTRING_ADDER``."""
    return f"{aggregate}+{value}"


def w(key: str, start: int, value: str, timestamp: int) -> tuple:
    return ks.Windowed(key, ks.Window(start, start + 10)), value, timestamp


def run_aggregation(windows: ks.TimeWindows, kind: str, with_cache: bool) -> list:
    builder = ks.StreamsBuilder()
    builder.stream(INPUT_ONE, ks.Consumed.with_(STR, STR)).group_by_key() \
        .windowed_by(windows).emit_strategy(strategy(kind)) \
        .aggregate(lambda: "0", string_adder, materialized(with_cache)) \
        .to_stream().to(OUTPUT, ks.Produced.with_(WINDOWED, STR))
    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        inp = driver.create_input_topic(INPUT_ONE, STR, STR)
        for key, value, timestamp in INPUT:
            inp.pipe_input(key, value, timestamp)
        out = driver.create_output_topic(OUTPUT, WINDOWED, STR)
        return [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]


@pytest.mark.parametrize(("kind", "with_cache"), STRATEGIES)
def test_should_aggregate_windowed_with_no_grace(kind, with_cache):
    output = run_aggregation(ks.TimeWindows.of_size_with_no_grace(10).advance_by(5), kind,
                             with_cache)
    if kind == "ON_WINDOW_CLOSE":
        assert output == [w("A", 0, "0+1+2", 5), w("A", 5, "0+2+3", 10), w("B", 5, "0+4+5", 11),
                          w("B", 15, "0+6", 15)]
    else:
        assert output == [
            w("A", 0, "0+1", 0), w("A", 0, "0+1+2", 5), w("A", 5, "0+2", 5),
            w("A", 5, "0+2+3", 10), w("A", 10, "0+3", 10), w("B", 5, "0+4", 6),
            w("B", 5, "0+4+5", 11), w("B", 10, "0+5", 11), w("B", 10, "0+5+6", 15),
            w("B", 15, "0+6", 15), w("C", 20, "0+7", 25), w("C", 25, "0+7", 25)]


@pytest.mark.parametrize(("kind", "with_cache"), STRATEGIES)
def test_should_aggregate_windowed_with_grace(kind, with_cache):
    output = run_aggregation(ks.TimeWindows.of_size_and_grace(10, 5).advance_by(5), kind,
                             with_cache)
    if kind == "ON_WINDOW_CLOSE":
        assert output == [w("A", 0, "0+1+2", 5), w("B", 0, "0+4", 6), w("A", 10, "0+3", 10),
                          w("B", 10, "0+5+6", 15)]
    else:
        assert output == [
            w("A", 0, "0+1", 0), w("A", 0, "0+1+2", 5), w("A", 5, "0+2", 5),
            w("A", 5, "0+2+3", 10), w("A", 10, "0+3", 10), w("B", 0, "0+4", 6),
            w("B", 5, "0+4", 6), w("B", 5, "0+4+5", 11), w("B", 10, "0+5", 11),
            w("B", 10, "0+5+6", 15), w("B", 15, "0+6", 15), w("C", 20, "0+7", 25),
            w("C", 25, "0+7", 25)]


@pytest.mark.parametrize(("kind", "with_cache"), STRATEGIES)
def test_should_restore_after_join_restart_first_run(kind, with_cache):
    """The first run of ``shouldRestoreAfterJoinRestart`` (both inputs, then the output): a
    stream-stream join (2 ms, no grace) feeding the windowed aggregation."""
    builder = ks.StreamsBuilder()
    one = builder.stream(INPUT_ONE, ks.Consumed.with_(STR, STR))
    two = builder.stream(INPUT_TWO, ks.Consumed.with_(STR, STR))
    one.join(two, lambda v1, v2: f"{v1},{v2}", ks.JoinWindows.of_time_difference_with_no_grace(2)) \
        .group_by_key().windowed_by(ks.TimeWindows.of_size_with_no_grace(10).advance_by(5)) \
        .emit_strategy(strategy(kind)) \
        .aggregate(lambda: "0", string_adder, materialized(with_cache)) \
        .to_stream().to(OUTPUT, ks.Produced.with_(WINDOWED, STR))
    left = [("A", "L1", 0), ("A", "L1", 5), ("B", "L2", 11), ("B", "L2", 15), ("C", "L3", 25)]
    right = [("A", "R1", 0), ("A", "R1", 5), ("B", "R2", 11), ("B", "R2", 15), ("C", "R3", 25)]
    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        # both topics are written before Java starts the application, which then takes the
        # records in timestamp order across the two partitions
        inputs = (driver.create_input_topic(INPUT_ONE, STR, STR),
                  driver.create_input_topic(INPUT_TWO, STR, STR))
        for pair in zip(left, right, strict=True):
            for inp, (key, value, timestamp) in zip(inputs, pair, strict=True):
                inp.pipe_input(key, value, timestamp)
        out = driver.create_output_topic(OUTPUT, WINDOWED, STR)
        output = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
    if kind == "ON_WINDOW_CLOSE":
        assert output == [w("A", 0, "0+L1,R1+L1,R1", 5), w("A", 5, "0+L1,R1", 5),
                          w("B", 5, "0+L2,R2", 11), w("B", 15, "0+L2,R2", 15)]
    else:
        assert output == [
            w("A", 0, "0+L1,R1", 0), w("A", 0, "0+L1,R1+L1,R1", 5), w("A", 5, "0+L1,R1", 5),
            w("B", 5, "0+L2,R2", 11), w("B", 10, "0+L2,R2", 11), w("B", 10, "0+L2,R2+L2,R2", 15),
            w("B", 15, "0+L2,R2", 15), w("C", 20, "0+L3,R3", 25), w("C", 25, "0+L3,R3", 25)]


@pytest.mark.parametrize("kind", ["ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE"])
def test_should_throw_unlimited_windows(kind):
    windowed_stream = ks.StreamsBuilder().stream(INPUT_ONE, ks.Consumed.with_(STR, STR)) \
        .group_by_key().windowed_by(UnlimitedWindows.of().start_on(0))
    if kind == "ON_WINDOW_CLOSE":
        with pytest.raises(ks.InvalidArgumentError):
            windowed_stream.emit_strategy(strategy(kind))
    else:
        windowed_stream.emit_strategy(strategy(kind))
