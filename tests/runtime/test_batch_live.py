"""Batch execution in the live runtime: each polled run of a partition as one chunk.

Each program runs twice on the LocalBroker over the same input, once with the batch path
(the default) and once record by record (``kslab.runtime.bulk: False``), and what is
deterministic across runs must be equal: every output record per partition (key, value,
timestamp, headers) of a stateless chain; every key's sequence of updates with the record
cache off; the final counts and the stores' contents with it on. ``process-batched-total``
says the chunks really ran in batch.
"""

from __future__ import annotations

import json
import random

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.processor.partitioner import default_partition


def _produce(kafka, topic, records):
    """Produce ``(key, value, timestamp, headers, partition)`` tuples, in order, flushed."""
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5})
    for key, value, timestamp, headers, partition in records:
        producer.produce(topic, value, key, partition=partition, timestamp=timestamp,
                         headers=headers)
    assert producer.flush(30) == 0


def _read(kafka, topic, count, partitions, timeout=60.0):
    """Every record of ``topic`` as ``{partition: [(key, value, timestamp, headers)]}``
    once ``count`` have arrived."""
    import time

    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": kafka.name("r"),
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: dict[int, list[tuple]] = {p: [] for p in range(partitions)}
    seen = 0
    deadline = time.monotonic() + timeout
    try:
        while seen < count and time.monotonic() < deadline:
            for message in consumer.consume(1000, 0.2):
                if message.error() is None:
                    out[message.partition()].append((message.key(), message.value(),
                                                     message.timestamp()[1],
                                                     message.headers()))
                    seen += 1
    finally:
        consumer.close()
    return out


def _orders(n, seed=3):
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        key = f"c{rnd.randrange(40)}".encode()
        value = json.dumps({"id": i, "amount": rnd.randrange(100),
                            "note": "x" * rnd.randrange(5)}).encode()
        headers = [("h", str(i).encode())] if i % 7 == 0 else None
        rows.append((key, value, 1_000 + i * 3 - (i % 5), headers, i % 2))
    return rows


def _start(kafka, builder, app, **config):
    streams = kafka.track(ks.KafkaStreams(builder, kafka.config(app, **config)))
    streams.start()
    return streams


def _processed(streams):
    """Records the stream threads took."""
    return sum(thread["process-total"] for thread in streams.metrics()["threads"].values())


def _batched(streams):
    """Records the stream threads ran in chunks."""
    threads = streams.metrics()["threads"].values()
    return sum(thread["process-batched-total"] for thread in threads)


def _enrich(source, sink):
    builder = ks.StreamsBuilder()
    (builder.stream(source, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .filter(lambda _key, order: order["amount"] > 50)
     .map_values(lambda order: {**order, "amount_x2": order["amount"] * 2})
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    return builder


@pytest.mark.parametrize("guarantee", ["at_least_once", "exactly_once_v2"])
def test_a_stateless_chain_gives_the_record_paths_records(kafka, guarantee):
    source = kafka.create(kafka.name("in"), 2)
    rows = _orders(3_000)
    _produce(kafka, source, rows)
    expected_count = sum(json.loads(value)["amount"] > 50 for _, value, _, _, _ in rows)
    results = []
    for bulk in (True, False):
        sink = kafka.create(kafka.name(f"out-{bulk}"), 2)
        streams = _start(kafka, _enrich(source, sink), f"enrich-{bulk}",
                         processing__guarantee=guarantee, kslab__runtime__bulk=bulk)
        got = _read(kafka, sink, expected_count, 2)
        assert sum(map(len, got.values())) == expected_count
        if bulk:
            assert wait_for(lambda s=streams: _batched(s) > 0)
        else:
            assert _batched(streams) == 0
        streams.close(timeout=10_000)
        results.append(got)
    batched, by_record = results
    assert _per_task(batched) == _per_task(by_record)
    expected: dict[tuple[int, int], list[tuple]] = {}
    for key, value, timestamp, headers, partition in rows:
        order = json.loads(value)
        if order["amount"] > 50:
            out = json.dumps({**order, "amount_x2": order["amount"] * 2},
                             separators=(",", ":")).encode()
            expected.setdefault((default_partition(key, 2), partition), []).append(
                (key, out, timestamp, headers))
    assert _per_task(batched) == expected


def _per_task(got):
    """The records of each output partition written by each input partition's task (the
    order between two tasks writing one partition is the broker's)."""
    out: dict[tuple[int, int], list[tuple]] = {}
    for partition, records in got.items():
        for record in records:
            out.setdefault((partition, json.loads(record[1])["id"] % 2), []).append(record)
    return out


def _word_count(source, sink, *, cached):
    builder = ks.StreamsBuilder()
    materialized = ks.Materialized.as_("word-counts")
    if not cached:
        materialized = materialized.with_caching_disabled()
    (builder.stream(source, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .flat_map_values(lambda doc: doc["line"].split())
     .group_by(lambda _key, word: word, ks.Grouped.with_(serdes.String(), serdes.String()))
     .count(materialized)
     .to_stream()
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Long())))
    return builder


def _lines(n, seed=5):
    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(120)]
    return [(f"k{i}".encode(), json.dumps({"line": " ".join(
        rnd.choice(vocab) for _ in range(rnd.randint(1, 8)))}).encode(), 5_000 + i, None,
        i % 2) for i in range(n)]


def _updates(got):
    """Each word's sequence of counts, over every partition."""
    out: dict[str, list[int]] = {}
    for records in got.values():
        for key, value, _, _ in records:
            out.setdefault(key.decode(), []).append(int.from_bytes(value, "big", signed=True))
    return out


@pytest.mark.parametrize("cached", [False, True])
def test_a_word_count_counts_every_word_once_in_batches(kafka, cached):
    source = kafka.create(kafka.name("in"), 2)
    rows = _lines(2_000)
    _produce(kafka, source, rows)
    totals: dict[str, int] = {}
    for _, value, _, _, _ in rows:
        for word in json.loads(value)["line"].split():
            totals[word] = totals.get(word, 0) + 1
    sink = kafka.create(kafka.name("out"), 2)
    streams = _start(kafka, _word_count(source, sink, cached=cached), "wc")
    words = sum(totals.values())
    if cached:  # updates of a key are folded by the cache: read until every total shows
        assert wait_for(lambda: _processed(streams) >= len(rows) + words, timeout=60)
        got = _read(kafka, sink, 1, 2, timeout=3)
        got = _read(kafka, sink, sum(map(len, got.values())) + 1, 2, timeout=3)
        updates = _updates(got)
        assert {word: counts[-1] for word, counts in updates.items()} == totals
        for counts in updates.values():
            assert counts == sorted(set(counts))  # rising, each update once
    else:  # every update goes out: each word's counts are 1, 2, ..., its total
        got = _read(kafka, sink, words, 2)
        assert _updates(got) == {word: list(range(1, total + 1))
                                 for word, total in totals.items()}
    assert _batched(streams) > 0
    store = streams.store("word-counts")
    assert {word: store.get(word) for word in totals} == totals


def _windowed_count(source, sink, kind="time", cached=False):
    builder = ks.StreamsBuilder()
    materialized = ks.Materialized.as_("per-second")
    if not cached:
        materialized = materialized.with_caching_disabled()
    windows = {"session": ks.SessionWindows.of_inactivity_gap_with_no_grace(50),
               "sliding": ks.SlidingWindows.of_time_difference_with_no_grace(100),
               "time": ks.TimeWindows.of_size_with_no_grace(1_000)}[kind]
    (builder.stream(source, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .group_by_key()
     .windowed_by(windows)
     .count(materialized)
     .to_stream()
     .map(lambda key, count: (key.key, {"start": key.window.start, "end": key.window.end,
                                        "value": count}))
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    return builder


@pytest.mark.parametrize("kind", ["time", "sliding", "session"])
def test_a_windowed_count_emits_the_record_paths_updates(kafka, kind):
    source = kafka.create(kafka.name("in"), 2)
    # each key in the partition its output goes to: one task writes each output partition
    # (without a record cache a session count forwards no headers: records with headers
    # keep the record path)
    rows = [(key, value, timestamp, None if kind == "session" else headers,
             default_partition(key, 2))
            for key, value, timestamp, headers, _ in _orders(2_000, seed=11)]
    _produce(kafka, source, rows)
    results = []
    for bulk in (True, False):
        sink = kafka.create(kafka.name(f"out-{bulk}"), 2)
        streams = _start(kafka, _windowed_count(source, sink, kind), f"win-{bulk}",
                         kslab__runtime__bulk=bulk)
        assert wait_for(lambda s=streams: _processed(s) == len(rows), timeout=60)
        got = _read(kafka, sink, 1, 2, timeout=3)  # (late records are dropped alike)
        got = _read(kafka, sink, sum(map(len, got.values())) + 1, 2, timeout=3)
        assert (_batched(streams) > 0) is bulk
        streams.close(timeout=10_000)
        results.append(got)
    assert results[0] == results[1]
    assert sum(map(len, results[0].values())) > 1_000


@pytest.mark.parametrize("kind", ["time", "sliding"])
def test_a_windowed_count_over_a_full_record_cache_ends_as_the_record_path(kafka, kind):
    """A record cache of 4 KiB under 40 keys' windows: each chunk's puts evict clean
    windows, and one whose put would evict a dirty window is split there (that record on
    the record path, which flushes). The cache folds updates until each commit, so the runs
    are compared by each window's last update."""
    source = kafka.create(kafka.name("in"), 2)
    rows = [(key, value, timestamp, headers, default_partition(key, 2))
            for key, value, timestamp, headers, _ in _orders(2_000, seed=11)]
    _produce(kafka, source, rows)
    results = []
    for bulk in (True, False):
        sink = kafka.create(kafka.name(f"out-{bulk}"), 2)
        streams = _start(kafka, _windowed_count(source, sink, kind, cached=True),
                         f"win-{bulk}", kslab__runtime__bulk=bulk,
                         statestore__cache__max__bytes=4_096)
        assert wait_for(lambda s=streams: _processed(s) == len(rows), timeout=60)
        got = _read(kafka, sink, 10**9, 2, timeout=5)  # (all: the last commits' flushes in)
        assert (_batched(streams) > 0) is bulk
        streams.close(timeout=10_000)
        last = {}
        for records in got.values():
            for key, value, _, _ in records:
                window = json.loads(value)
                last[(key, window["start"], window["end"])] = window["value"]
        results.append(last)
    assert results[0] == results[1]
    assert len(results[0]) > 100


def _failing(source, sink):
    builder = ks.StreamsBuilder()
    (builder.stream(source, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .map_values(lambda order: 100 // (order["id"] - 1_234))
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    return builder


def test_a_user_function_failing_mid_chunk_fails_as_on_the_record_path(kafka):
    source = kafka.create(kafka.name("in"))
    rows = [(key, value, timestamp, headers, 0)
            for key, value, timestamp, headers, _ in _orders(3_000, seed=2)]
    _produce(kafka, source, rows)
    errors = []
    for bulk in (True, False):
        sink = kafka.create(kafka.name(f"out-{bulk}"))
        streams = _start(kafka, _failing(source, sink), f"fail-{bulk}",
                         kslab__runtime__bulk=bulk)
        assert wait_for(lambda s=streams: s.state is ks.KafkaStreams.State.ERROR, timeout=60)
        error = streams.errors[0]
        got = _read(kafka, sink, 1_234, 1)
        assert len(got[0]) == 1_234  # every record before the failing one, once
        errors.append((type(error), str(error), error.offset))
    assert errors[0] == errors[1]
    assert errors[0][2] == 1_234
    assert "ZeroDivisionError" in errors[0][1]


def _fanout(source, big, small, seen):
    """A peek, split into two branches (one to ``small`` through a topic extractor), and a
    second sink to ``big`` on a filter of the stream."""
    S, J = serdes.String(), serdes.Json()
    builder = ks.StreamsBuilder()
    orders = (builder.stream(source, ks.Consumed.with_(S, J))
              .peek(lambda _key, order: seen.append(order["id"])))
    branches = (orders.split(ks.Named.as_("f-"))
                .branch(lambda _key, order: order["amount"] > 50, ks.Branched.as_("big"))
                .default_branch(ks.Branched.as_("small")))
    (branches["f-big"].map_values(lambda order: {**order, "amount_x2": order["amount"] * 2})
     .to(big, ks.Produced.with_(S, J)))
    branches["f-small"].to(lambda _key, _order, _context: small, ks.Produced.with_(S, J))
    orders.filter(lambda _key, order: order["amount"] % 10 == 0).to(big, ks.Produced.with_(S, J))
    return builder


def test_a_fan_out_gives_the_record_paths_records(kafka):
    """Branches, a topic extractor and two sinks to one topic run in chunks, each task's
    records to a topic in the record path's depth-first order, every action called once."""
    source = kafka.create(kafka.name("in"), 2)
    rows = _orders(2_000)
    _produce(kafka, source, rows)
    orders = [(key, json.loads(value), timestamp, headers, partition)
              for key, value, timestamp, headers, partition in rows]
    expected: dict[str, dict[tuple[int, int], list[tuple]]] = {"big": {}, "small": {}}
    for key, order, timestamp, headers, partition in orders:
        outs = [("big", {**order, "amount_x2": order["amount"] * 2})] if order["amount"] > 50 \
            else [("small", order)]
        if order["amount"] % 10 == 0:
            outs.append(("big", order))
        for name, out in outs:
            expected[name].setdefault((default_partition(key, 2), partition), []).append(
                (key, json.dumps(out, separators=(",", ":")).encode(), timestamp, headers))
    for bulk in (True, False):
        big = kafka.create(kafka.name(f"big-{bulk}"), 2)
        small = kafka.create(kafka.name(f"small-{bulk}"), 2)
        seen: list[int] = []
        streams = _start(kafka, _fanout(source, big, small, seen), f"fanout-{bulk}",
                         kslab__runtime__bulk=bulk)
        got = {"big": _read(kafka, big, sum(map(len, expected["big"].values())), 2),
               "small": _read(kafka, small, sum(map(len, expected["small"].values())), 2)}
        if bulk:
            assert wait_for(lambda s=streams: _batched(s) > 0)
        else:
            assert _batched(streams) == 0
        streams.close(timeout=10_000)
        assert {name: _per_task(records) for name, records in got.items()} == expected
        assert sorted(seen) == list(range(len(rows)))


def _add_in_place(key, order, total):
    total["n"] += 1  # (as Python users write aggregators: kslab.state.fresh)
    total["sum"] += order["amount"]
    return total


@pytest.mark.parametrize("cached", [False, True])
def test_an_aggregator_changing_its_aggregate_in_place_gives_every_update(kafka, cached):
    source = kafka.create(kafka.name("in"), 1)
    rows = [(b"a", json.dumps({"amount": i}).encode(), 1_000 + i, None, 0)
            for i in range(1, 401)]
    _produce(kafka, source, rows)
    sink = kafka.create(kafka.name("out"), 1)
    materialized = ks.Materialized.as_("totals")
    builder = ks.StreamsBuilder()
    (builder.stream(source, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .group_by_key()
     .aggregate(lambda: {"n": 0, "sum": 0}, _add_in_place,
                materialized if cached else materialized.with_caching_disabled())
     .to_stream()
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    streams = _start(kafka, builder, "in-place")
    if cached:  # updates folded by the cache: each one sent is a running total
        assert wait_for(lambda: _processed(streams) == len(rows), timeout=60)
        got = _read(kafka, sink, 1, 1, timeout=3)
        got = _read(kafka, sink, len(got[0]) + 1, 1, timeout=3)
    else:  # every update
        got = _read(kafka, sink, len(rows), 1)
    totals = [json.loads(value) for _, value, _, _ in got[0]]
    assert totals[-1] == {"n": 400, "sum": 400 * 401 // 2}
    assert all(total == {"n": total["n"], "sum": total["n"] * (total["n"] + 1) // 2}
               for total in totals)
    if not cached:
        assert [total["n"] for total in totals] == list(range(1, 401))
    assert _batched(streams) > 0
    assert streams.store("totals").get("a") == {"n": 400, "sum": 80_200}
