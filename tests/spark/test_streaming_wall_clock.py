"""Wall-clock punctuation in a streaming query: it fires when no record comes.

A processor scheduling ``WALL_CLOCK_TIME`` punctuation makes the query run with processing-time
timers (``_streaming._uses_wall_clock``): each micro-batch registers the task's next due time,
and when it expires with no input Spark calls ``handleExpiredTimer``, which punctuates the task
as Kafka Streams' thread does between polls. The input here arrives once, before the query
starts, so every punctuation after the first micro-batch comes from a timer.
"""

from __future__ import annotations

import time

import spark_apps as apps

from conftest import consume_all, produce
from kslab import serdes
from kslab.spark import start

S, L = serdes.String(), serdes.Long()


def test_wall_clock_punctuation_fires_on_timers_without_input(spark, broker, topics, tmp_path):
    source, sink = topics("clicks"), topics("ticks")
    produce(broker, source, [(0, S.serialize("", k), S.serialize("", v), ts)
                             for k, v, ts in [("a", "x", 1_000), ("b", "y", 2_000),
                                              ("a", "z", 3_000)]])
    config = {"application.id": source.replace("-clicks", "-app"),
              "bootstrap.servers": broker.bootstrap_servers}
    started = int(time.time() * 1000)
    streams = start(apps.ticking_count(source, sink), config, spark=spark,
                    checkpoint_location=str(tmp_path / "ckpt"),
                    trigger={"processingTime": "1 second"})
    try:
        deadline = time.monotonic() + 240
        while True:
            got = [(S.deserialize(sink, k), L.deserialize(sink, v), ts)
                   for _, k, v, ts in consume_all(broker, sink, 1)]
            ticks = [(value, ts) for key, value, ts in got if key == "tick"]
            if len(ticks) >= 3 or time.monotonic() > deadline:
                break
            # a second's wait that raises a failed query's error (restarting one that failed
            # only on a slow Python worker start, as an application's await would)
            assert streams.await_termination(1) is False
    finally:
        streams.stop()
    # the records, counted in order, each with its own timestamp
    assert [row for row in got if row[0] != "tick"] == [("a", 1, 1_000), ("b", 1, 2_000),
                                                        ("a", 2, 3_000)]
    # three or more ticks after the only input: timers fired with no record; each saw all three
    # records, carries a wall-clock time from this run, and the times rise
    assert len(ticks) >= 3, f"only {len(ticks)} wall-clock punctuations in 240 s: {got}"
    assert {value for value, _ in ticks} == {3}
    times = [ts for _, ts in ticks]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert times[0] >= started
