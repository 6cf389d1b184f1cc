"""The record cache on a real broker: with a long commit interval a table forwards each key once
per commit, in write order; ``statestore.cache.max.bytes`` bounds it (Java's sizes and LRU
eviction) and 0 turns it off, so every update goes out.
"""

from __future__ import annotations

import pytest
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

S = serdes.String()
UPDATES = [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"), ("a", "5")]


def _table(source: str, sink: str) -> ks.Topology:
    b = ks.StreamsBuilder()
    b.table(source, ks.Consumed.with_(S, S), ks.Materialized.as_("t")) \
        .to_stream().to(sink, ks.Produced.with_(S, S))
    return b.build()


def _processed(streams: ks.KafkaStreams) -> int:
    threads = streams.metrics()["threads"].values()
    return sum(thread.get("process-total", 0) for thread in threads)


def _node_size(topic: str) -> int:
    """One cached table row: key (1) + node (24) + flag (1) + timestamp + value (8 + 1) +
    timestamp, offset, partition (20) + topic name."""
    return 1 + 24 + 1 + 9 + 20 + len(topic)


@pytest.mark.parametrize("cache", ["default", "zero", "two-rows"])
def test_table_updates_are_deduplicated_until_the_commit(kafka, cache):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    sizes = {"default": None, "zero": 0, "two-rows": 2 * _node_size(source)}
    expected = {
        # one write per key at the commit on close, in write order (a was written last)
        "default": [("b", "2"), ("c", "4"), ("a", "5")],
        "zero": UPDATES,
        # writing c evicts b (least recently used), flushing b, a and c; a's last write waits
        "two-rows": [("b", "2"), ("a", "3"), ("c", "4"), ("a", "5")],
    }[cache]
    kafka.produce(source, [(k.encode(), v.encode()) for k, v in UPDATES])
    extra = {"commit__interval__ms": 600_000}
    if sizes[cache] is not None:
        extra["statestore__cache__max__bytes"] = sizes[cache]
    streams = kafka.track(ks.KafkaStreams(_table(source, sink),
                                          kafka.config(f"cache-{cache}", **extra)))
    streams.start()
    assert wait_for(lambda: _processed(streams) == len(UPDATES))
    assert streams.close(timeout=10_000)  # closing commits: the cache flushes
    got = kafka.read(sink, len(expected), settle=0.5)
    assert [(k.decode(), v.decode()) for k, v, _ in got] == expected


def test_windowed_counts_are_deduplicated_until_the_commit(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    b = ks.StreamsBuilder()
    (b.stream(source, ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.TimeWindows.of_size_with_no_grace(1000)).count()
     .to_stream().map(lambda w, n: (f"{w.key}@{w.window.start}", str(n)))
     .to(sink, ks.Produced.with_(S, S)))
    kafka.produce(source, [(b"a", b"x"), (b"b", b"x"), (b"a", b"x"), (b"a", b"x")],
                  timestamp=100)
    streams = kafka.track(ks.KafkaStreams(b.build(), kafka.config(
        "wcache", commit__interval__ms=600_000)))
    streams.start()
    assert wait_for(lambda: _processed(streams) == 4)
    assert streams.close(timeout=10_000)
    got = kafka.read(sink, 2, settle=0.5)
    assert [(k.decode(), v.decode()) for k, v, _ in got] == [("b@0", "1"), ("a@0", "3")]
