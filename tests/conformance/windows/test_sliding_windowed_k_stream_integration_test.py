"""Kafka's ``SlidingWindowedKStreamIntegrationTest`` (streams/src/test/.../integration),
translated to kslab on the TopologyTestDriver instead of an embedded cluster, as
``test_time_windowed_k_stream_integration_test.py`` does for tumbling/hopping windows: the same
inputs (one partition), String serdes, ``statestore.cache.max.bytes=0`` (so "with cache" still
caches nothing), emit interval 0, and ``Materialized.with(null, String)`` with caching enabled or
disabled. Sliding windows of 10 ms are read back with a 10 ms ``TimeWindowed`` serde. With
``shouldAggregateWindowedWithNoGrace`` and ``ON_WINDOW_CLOSE`` Java waits for at least 5 records
and lists the 6 it gets; we assert the 6. The restart half of ``shouldRestoreAfterJoinRestart``
needs a restart from the changelog, which the driver cannot do; its first run is checked here,
the restart (emit on window close) in ``tests/runtime/test_windowed_restart_conformance.py``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

INPUT_ONE, INPUT_TWO, OUTPUT = "stream-one", "stream-two", "output"
STR = serdes.String()
WINDOWED = serdes.TimeWindowed(STR, window_size=10)
CONFIG = {"application.id": "app-sliding-windowed", "statestore.cache.max.bytes": 0,
          "commit.interval.ms": 100, "default.key.serde": "string",
          "default.value.serde": "string",
          "__emit.interval.ms.kstreams.windowed.aggregation__": 0,
          "windowstore.changelog.additional.retention.ms": 2**63 - 1}
STRATEGIES = [("ON_WINDOW_UPDATE", True), ("ON_WINDOW_UPDATE", False),
              ("ON_WINDOW_CLOSE", True), ("ON_WINDOW_CLOSE", False)]


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


def aggregate_to_output(stream: ks.KStream, windows: ks.SlidingWindows, kind: str,
                        with_cache: bool) -> None:
    stream.group_by_key().windowed_by(windows).emit_strategy(strategy(kind)) \
        .aggregate(lambda: "0", string_adder, materialized(with_cache)) \
        .to_stream().to(OUTPUT, ks.Produced.with_(WINDOWED, STR))


def run(builder: ks.StreamsBuilder, inputs: dict[str, list]) -> list:
    """Pipe each topic's records, interleaved record by record (Java produces both topics before
    it starts, and the application then takes them in timestamp order); return the output."""
    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        topics = {name: driver.create_input_topic(name, STR, STR) for name in inputs}
        for rows in zip(*inputs.values(), strict=True):
            for name, (key, value, timestamp) in zip(inputs, rows, strict=True):
                topics[name].pipe_input(key, value, timestamp)
        out = driver.create_output_topic(OUTPUT, WINDOWED, STR)
        return [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]


def single_input(windows: ks.SlidingWindows, kind: str, with_cache: bool, inputs: list) -> list:
    builder = ks.StreamsBuilder()
    aggregate_to_output(builder.stream(INPUT_ONE, ks.Consumed.with_(STR, STR)), windows, kind,
                        with_cache)
    return run(builder, {INPUT_ONE: inputs})


@pytest.mark.parametrize(("kind", "with_cache"), STRATEGIES)
def test_should_aggregate_windowed_with_no_grace(kind, with_cache):
    inputs = [("A", "1", 0), ("A", "2", 5), ("A", "3", 10), ("A", "4", 17), ("B", "5", 6),
              ("B", "6", 11), ("B", "7", 18), ("C", "8", 25)]
    output = single_input(ks.SlidingWindows.of_time_difference_with_no_grace(10), kind,
                          with_cache, inputs)
    if kind == "ON_WINDOW_CLOSE":
        assert output == [w("A", 0, "0+1+2+3", 10), w("A", 1, "0+2+3", 10), w("A", 6, "0+3", 10),
                          w("A", 7, "0+3+4", 17), w("B", 8, "0+7", 18), w("A", 11, "0+4", 17)]
    else:
        assert output == [
            w("A", 0, "0+1", 0), w("A", 1, "0+2", 5), w("A", 0, "0+1+2", 5),
            w("A", 1, "0+2+3", 10), w("A", 0, "0+1+2+3", 10), w("A", 6, "0+3", 10),
            w("A", 11, "0+4", 17), w("A", 7, "0+3+4", 17), w("B", 8, "0+7", 18),
            w("C", 15, "0+8", 25)]


@pytest.mark.parametrize(("kind", "with_cache"), STRATEGIES)
def test_should_aggregate_windowed_with_grace(kind, with_cache):
    inputs = [("A", "1", 0), ("A", "2", 5), ("A", "3", 10), ("A", "4", 6), ("A", "5", 11),
              ("A", "6", 16), ("A", "7", 27), ("A", "8", 11)]
    output = single_input(ks.SlidingWindows.of_time_difference_and_grace(10, 5), kind,
                          with_cache, inputs)
    if kind == "ON_WINDOW_CLOSE":
        assert output == [w("A", 0, "0+1+2+3+4", 10), w("A", 1, "0+2+3+4+5", 11),
                          w("A", 6, "0+3+4+5+6", 16), w("A", 7, "0+3+5+6", 16),
                          w("A", 11, "0+5+6", 16)]
    else:
        assert output == [
            w("A", 0, "0+1", 0), w("A", 1, "0+2", 5), w("A", 0, "0+1+2", 5),
            w("A", 1, "0+2+3", 10), w("A", 0, "0+1+2+3", 10), w("A", 6, "0+3", 10),
            w("A", 1, "0+2+3+4", 10), w("A", 6, "0+3+4", 10), w("A", 7, "0+3", 10),
            w("A", 0, "0+1+2+3+4", 10), w("A", 7, "0+3+5", 11), w("A", 6, "0+3+4+5", 11),
            w("A", 1, "0+2+3+4+5", 11), w("A", 11, "0+5", 11), w("A", 11, "0+5+6", 16),
            w("A", 7, "0+3+5+6", 16), w("A", 6, "0+3+4+5+6", 16), w("A", 12, "0+6", 16),
            w("A", 17, "0+7", 27), w("A", 17, "0+7", 27)]


@pytest.mark.parametrize(("kind", "with_cache"), STRATEGIES)
def test_should_restore_after_join_restart_first_run(kind, with_cache):
    """The first run of ``shouldRestoreAfterJoinRestart``: a stream-stream join (2 ms, no
    grace) feeding the sliding-window aggregation."""
    builder = ks.StreamsBuilder()
    one = builder.stream(INPUT_ONE, ks.Consumed.with_(STR, STR))
    two = builder.stream(INPUT_TWO, ks.Consumed.with_(STR, STR))
    joined = one.join(two, lambda v1, v2: f"{v1},{v2}",
                      ks.JoinWindows.of_time_difference_with_no_grace(2))
    aggregate_to_output(joined, ks.SlidingWindows.of_time_difference_with_no_grace(10), kind,
                        with_cache)
    output = run(builder, {
        INPUT_ONE: [("A", "L1", 0), ("A", "L2", 5), ("B", "L3", 11), ("B", "L4", 15),
                    ("C", "L5", 25)],
        INPUT_TWO: [("A", "R1", 0), ("A", "R2", 5), ("B", "R3", 11), ("B", "R4", 15),
                    ("C", "R5", 25)]})
    if kind == "ON_WINDOW_CLOSE":
        assert output == [w("A", 0, "0+L1,R1+L2,R2", 5), w("A", 1, "0+L2,R2", 5),
                          w("B", 1, "0+L3,R3", 11), w("B", 5, "0+L3,R3+L4,R4", 15),
                          w("B", 12, "0+L4,R4", 15)]
    else:
        assert output == [
            w("A", 0, "0+L1,R1", 0), w("A", 1, "0+L2,R2", 5), w("A", 0, "0+L1,R1+L2,R2", 5),
            w("B", 1, "0+L3,R3", 11), w("B", 12, "0+L4,R4", 15), w("B", 5, "0+L3,R3+L4,R4", 15),
            w("C", 15, "0+L5,R5", 25)]
