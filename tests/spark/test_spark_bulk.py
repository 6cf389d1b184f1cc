"""Batch replay with the batch path (``kslab.spark.bulk``, each fed run of rows one chunk) gives
byte-identical output frames to the record path, on local[2], with Arrow batches of 700 rows
(so that a task's state, caches and ``seq`` carry across chunks).

Each program runs through ``run_batch`` twice, with the switch on and off; every output frame
is collected sorted by (partition, task, seq) and compared row by row on all its columns.
``bulk_stats`` tells that the batch path ran the records (on) and did not (off).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from kslab.spark import bulk_stats, run_batch

S, L, J = serdes.String(), serdes.Long(), serdes.Json()
WORDS = ["kafka", "streams", "spark", "python", "lab", "state", "time", "join", "arrow"]


def stateless_json() -> ks.Topology:
    """filter, map_values, map and select_key lambdas over JSON values."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .filter(lambda k, v: v["n"] % 5 != 0)
     .map_values(lambda v: {"n": v["n"], "upper": v["text"].upper(), "words": len(v["text"])})
     .map(lambda k, v: ks.KeyValue(f"{k}-{v['n'] % 4}", {**v, "k": k}))
     .select_key(lambda k, v: k.upper())
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def count_cached() -> ks.Topology:
    """group_by (a repartition) and count on the default store behind the default cache."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by(lambda k, v: v["text"].split()[0], ks.Grouped.with_(S, J))
     .count()
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def aggregate_lambda() -> ks.Topology:
    """aggregate with a user lambda (no repartition: group_by_key)."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .map_values(lambda v: v["text"])
     .group_by_key(ks.Grouped.with_(S, S))
     .aggregate(lambda: "", lambda k, v, agg: (agg + "|" + v)[-24:],
                ks.Materialized.with_(S, S))
     .to_stream()
     .to("out", ks.Produced.with_(S, S)))
    return b.build()


def windowed_count() -> ks.Topology:
    """A tumbling-window count, its windowed keys mapped to plain ones."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key(ks.Grouped.with_(S, J))
     .windowed_by(ks.TimeWindows.of_size_and_grace(200, 100))
     .count()
     .to_stream()
     .map(lambda wk, n: ks.KeyValue(f"{wk.key}@{wk.window.start}", n))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def suppressed_count() -> ks.Topology:
    """A tumbling-window count suppressed until its windows close: each final count leaves
    under the headers and timestamp of the record that last changed it."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key(ks.Grouped.with_(S, J))
     .windowed_by(ks.TimeWindows.of_size_and_grace(200, 100))
     .count()
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()))
     .to_stream()
     .map(lambda wk, n: ks.KeyValue(f"{wk.key}@{wk.window.start}", n))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def session_count() -> ks.Topology:
    """A session count behind the record cache (gap 50, grace 20): each commit's flush of
    the merged sessions' removes and the grown one's put, its keys mapped to plain ones."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key(ks.Grouped.with_(S, J))
     .windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(50, 20))
     .count()
     .to_stream()
     .map(lambda wk, n: ks.KeyValue(f"{wk.key}@{wk.window.start}-{wk.window.end}", n))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def sliding_count() -> ks.Topology:
    """A sliding-window count behind the record cache (difference 100, grace 50), its keys
    mapped to plain ones."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key(ks.Grouped.with_(S, J))
     .windowed_by(ks.SlidingWindows.of_time_difference_and_grace(100, 50))
     .count()
     .to_stream()
     .map(lambda wk, n: ks.KeyValue(f"{wk.key}@{wk.window.start}-{wk.window.end}", n))
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def flat_map() -> ks.Topology:
    """flat_map_values: some records give none, some several."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .flat_map_values(lambda v: v["text"].split()[: v["n"] % 4])
     .to("out", ks.Produced.with_(S, S)))
    return b.build()


def word_count() -> ks.Topology:
    """Word count over several partitions: split, repartition by word, count in memory."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .flat_map_values(lambda v: v["text"].split())
     .group_by(lambda k, word: word, ks.Grouped.with_(S, S))
     .count(materialized=ks.Materialized.as_("wc").with_store_type("in_memory"))
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def null_keys() -> ks.Topology:
    """Some keys become None on a topic of several partitions (round robin): those runs
    are declined and go record by record."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .select_key(lambda k, v: None if v["n"] % 97 == 0 else k)
     .map_values(lambda v: v["n"])
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def fan_out() -> ks.Topology:
    """A peek, split into branches and a flat map beside them, all to one topic: each
    task's records in the record path's depth-first order (Spark's plans take no topic
    extractor: their topics are known up front)."""
    b = ks.StreamsBuilder()
    stream = b.stream("in", ks.Consumed.with_(S, J)).peek(lambda k, v: None)
    branches = (stream.split(ks.Named.as_("f-"))
                .branch(lambda k, v: v["n"] % 3 == 0, ks.Branched.as_("three"))
                .default_branch(ks.Branched.as_("rest")))
    (branches["f-three"].map_values(lambda v: v["text"].upper())
     .to("out", ks.Produced.with_(S, S)))
    (branches["f-rest"].map_values(lambda v: v["text"])
     .to("out", ks.Produced.with_(S, S)))
    stream.flat_map_values(lambda v: v["text"].split()[:2]).to("out", ks.Produced.with_(S, S))
    return b.build()


# (topology, input partitions, output partitions, headers, every record in a chunk)
CASES: dict[str, tuple[Callable[[], ks.Topology], int, int, bool, bool]] = {
    "stateless_json": (stateless_json, 3, 2, True, True),
    "count_cached": (count_cached, 2, 2, False, True),
    "aggregate_lambda": (aggregate_lambda, 2, 1, False, True),
    "windowed_count": (windowed_count, 2, 1, False, True),
    "suppressed_count": (suppressed_count, 2, 1, True, True),
    "session_count": (session_count, 2, 1, False, True),
    "sliding_count": (sliding_count, 2, 1, True, True),
    "flat_map_values": (flat_map, 1, 3, True, True),
    "word_count_4_partitions": (word_count, 4, 3, False, True),
    "null_keys": (null_keys, 2, 2, False, False),
    "fan_out": (fan_out, 2, 2, True, True),
}


def rows(n: int, partitions: int, headers: bool, seed: int = 7) -> list[tuple[Any, ...]]:
    """``(partition, offset, key, value, timestamp, headers)`` rows: JSON values, some out of
    order and late (beyond the windowed count's grace), headers on every other row."""
    rng = random.Random(seed)
    out: list[tuple[Any, ...]] = []
    offsets = [0] * partitions
    for i in range(n):
        p = i % partitions
        text = " ".join(rng.choice(WORDS) for _ in range(1 + i % 4))
        value = J.serialize("in", {"n": i, "text": text})
        key = S.serialize("in", f"k{rng.randrange(12)}")
        ts = 1000 + 5 * i - (rng.choice([0, 0, 0, 30, 400]) if i % 3 == 0 else 0)
        hs = [{"key": "h", "value": f"v{i % 3}".encode()}] if headers and i % 2 else None
        out.append((p, offsets[p], key, value, ts, hs))
        offsets[p] += 1
    return out


def run(spark: Any, topology: Callable[[], ks.Topology], data: list[tuple[Any, ...]],
        partitions: int, out_partitions: int, bulk: bool) -> tuple[list[Any], dict[str, int]]:
    """The output frame's rows (all columns, sorted) and the records the tasks ran, and in
    chunks, meanwhile."""
    frame = spark.createDataFrame(
        data, "partition int, offset long, key binary, value binary, timestamp long, "
              "headers array<struct<key:string,value:binary>>")
    before = bulk_stats(spark)
    frames = run_batch(topology(), {"in": frame}, config={"kslab.spark.bulk": bulk},
                       partitions={"in": partitions, "out": out_partitions})
    collected = frames["out"].orderBy("partition", "task", "seq").collect()
    after = bulk_stats(spark)
    return collected, {name: after[name] - before[name] for name in after}


@pytest.fixture
def small_batches(spark):
    """Arrow batches of 700 rows: a task's input comes in several chunks, cut anywhere."""
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key)
    spark.conf.set(key, "700")
    yield
    spark.conf.set(key, before)


@pytest.mark.parametrize("name", list(CASES))
def test_batch_path_output_equals_the_record_path(spark, small_batches, name):
    topology, partitions, out_partitions, headers, all_chunks = CASES[name]
    data = rows(3000, partitions, headers)
    on, on_stats = run(spark, topology, data, partitions, out_partitions, True)
    off, off_stats = run(spark, topology, data, partitions, out_partitions, False)
    assert on, "the program wrote nothing"
    assert len(on) == len(off)
    for got, expected in zip(on, off, strict=True):
        assert got.asDict(recursive=True) == expected.asDict(recursive=True)
    assert off_stats["bulk_records"] == 0
    assert off_stats["records"] == on_stats["records"] > 0
    if all_chunks:  # every task's runs went in chunks (a run of one row goes record by record)
        assert on_stats["bulk_records"] > 0.9 * on_stats["records"], on_stats
    else:
        assert on_stats["bulk_records"] < on_stats["records"], on_stats


def enrich_orders() -> ks.Topology:
    """Orders joined with a customers table: one task reads a partition of each topic."""
    b = ks.StreamsBuilder()
    customers = b.table("customers", ks.Consumed.with_(S, J))
    (b.stream("in", ks.Consumed.with_(S, J))
     .join(customers, lambda order, customer: {**order, "name": customer["name"]})
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def test_a_join_task_reading_two_partitions_runs_its_runs_in_chunks(spark, small_batches):
    """A task of several input partitions takes its records in timestamp order; each run it
    takes one after another from one partition goes to the batch path as one chunk
    (``PartitionGroup.run_after``), with the record path's output."""
    from kslab.processor.partitioner import default_partition

    rng = random.Random(3)
    customers: list[tuple[Any, ...]] = []
    offsets = [0, 0]
    for n, timestamp in [(i, 10) for i in range(12)] + [(i, 2_000 + 100 * i) for i in range(12)]:
        key = S.serialize("customers", f"k{n}")
        partition = default_partition(key, 2)
        customers.append((partition, offsets[partition], key,
                          J.serialize("customers", {"name": f"name{n}-{timestamp}"}),
                          timestamp, None))
        offsets[partition] += 1
    orders: list[tuple[Any, ...]] = []
    offsets = [0, 0]
    for i in range(3_000):
        key = S.serialize("in", f"k{rng.randrange(14)}")  # (k12, k13: no customer)
        partition = default_partition(key, 2)
        orders.append((partition, offsets[partition], key, J.serialize("in", {"n": i}),
                       1_000 + i, None))
        offsets[partition] += 1
    schema = ("partition int, offset long, key binary, value binary, timestamp long, "
              "headers array<struct<key:string,value:binary>>")
    results = []
    for bulk in (True, False):
        before = bulk_stats(spark)
        frames = run_batch(enrich_orders(), {"in": spark.createDataFrame(orders, schema),
                                            "customers": spark.createDataFrame(customers,
                                                                               schema)},
                           config={"kslab.spark.bulk": bulk},
                           partitions={"in": 2, "customers": 2, "out": 2})
        collected = frames["out"].orderBy("partition", "task", "seq").collect()
        after = bulk_stats(spark)
        results.append(([row.asDict(recursive=True) for row in collected],
                        after["bulk_records"] - before["bulk_records"]))
    (on, in_chunks), (off, none) = results
    assert on == off
    assert none == 0
    assert in_chunks > 2_500  # (the orders between customer updates, a head each time)
    # each order of a known customer once, with the name as of its timestamp
    names = {}
    for _, _, key, value, timestamp, _ in customers:
        names.setdefault(key, []).append((timestamp, J.deserialize("customers", value)["name"]))
    expected = sorted(
        (key, max(entry for entry in names[key] if entry[0] <= timestamp)[1], timestamp)
        for _, _, key, _, timestamp, _ in orders if key in names)
    assert sorted((row["key"], J.deserialize("out", row["value"])["name"], row["timestamp"])
                  for row in on) == expected
