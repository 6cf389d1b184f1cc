"""Kafka's ``KStreamAggregationDedupIntegrationTest`` (streams/src/test/.../integration),
translated to kslab on the TopologyTestDriver instead of an embedded cluster. Java runs with a
10 MB record cache and checks the *final* record per key (``waitUntilFinalKeyValueTimestamp
RecordsReceived``): the cache may have folded the intermediate updates away. The driver commits
(flushes the cache) after every record, so intermediate updates do come out; the final value and
timestamp of each key are what Java checks, and what we check. The batches (keys 1..5, values
A..E), the ``groupBy(value)`` and the 500 ms windows are Java's; ``NOW`` stands for the wall
clock Java reads.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

INPUT, OUTPUT = "stream-one", "output"
NOW = 1_700_000_000_123
CONFIG = {"application.id": "app-dedup", "commit.interval.ms": 100,
          "statestore.cache.max.bytes": 10 * 1024 * 1024}
BATCH = [(1, "A"), (2, "B"), (3, "C"), (4, "D"), (5, "E")]
INT, STR, LONG = serdes.Integer(), serdes.String(), serdes.Long()


def reducer(value1: str, value2: str) -> str:
    return f"{value1}:{value2}"


def final_records(builder: ks.StreamsBuilder, batches: list[int], value_serde) -> dict:
    """The last ``(value, timestamp)`` per output key after piping one batch per timestamp."""
    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        inp = driver.create_input_topic(INPUT, INT, STR)
        for timestamp in batches:
            for key, value in BATCH:
                inp.pipe_input(key, value, timestamp)
        out = driver.create_output_topic(OUTPUT, STR, value_serde)
        return {r.key: (r.value, r.timestamp) for r in out.read_records_to_list()}


def grouped(builder: ks.StreamsBuilder) -> ks.KGroupedStream:
    return builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .group_by(lambda k, v: v, ks.Grouped.with_(STR, STR))


def test_should_reduce():
    builder = ks.StreamsBuilder()
    grouped(builder).reduce(reducer, ks.Materialized.as_("reduce-by-key")).to_stream() \
        .to(OUTPUT, ks.Produced.with_(STR, STR))
    assert final_records(builder, [NOW - 5, NOW], STR) == {
        x: (f"{x}:{x}", NOW) for x in "ABCDE"}


def test_should_reduce_windowed():
    first, second = NOW - 1000, NOW
    builder = ks.StreamsBuilder()
    grouped(builder).windowed_by(ks.TimeWindows.of_size_and_grace(500, 60_000)) \
        .reduce(reducer, ks.Materialized.as_("reduce-time-windows")) \
        .to_stream(lambda wk, v: f"{wk.key}@{wk.window.start}") \
        .to(OUTPUT, ks.Produced.with_(STR, STR))
    w1, w2 = first // 500 * 500, second // 500 * 500
    expected = {}
    for x in "ABCDE":
        expected[f"{x}@{w1}"] = (x, first)
        expected[f"{x}@{w2}"] = (f"{x}:{x}", second)
    assert final_records(builder, [first, second, second], STR) == expected


def test_should_group_by_key():
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).group_by_key(ks.Grouped.with_(INT, STR)) \
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(500)) \
        .count(ks.Materialized.as_("count-windows")) \
        .to_stream(lambda wk, v: f"{wk.key}@{wk.window.start}") \
        .to(OUTPUT, ks.Produced.with_(STR, LONG))
    window = NOW // 500 * 500
    assert final_records(builder, [NOW, NOW], LONG) == {
        f"{k}@{window}": (2, NOW) for k in range(1, 6)}
