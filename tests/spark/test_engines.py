"""Spark's batch replay against the test driver across the DSL (issue 21, item 5): joins of two
streams and of two tables, session and sliding windows, windows emitted on close, suppression
after a repartition, cogroup, a versioned table and a table aggregation, each run on random
inputs on both engines with every output record compared in order.

A task reading two topics takes their records as Kafka Streams does when all are buffered:
the topic whose next record is earliest first. The driver processes records in the order they
are piped, so it is given the two topics merged that way (``kafka_order``); then the two
engines must agree exactly.

Foreign-key joins (sub-topologies feeding each other) run in one Spark task as the driver runs
them, with each input record through the whole cycle before the next: with several partitions,
alone and between a repartition and an aggregation, every output partition equals the driver's
(``partitions=``) piped the records in that order (streaming: test_streaming_fk.py).
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest
import spark_apps as apps
from test_batch import frame, spark_output

import kslab as ks
from kslab import serdes
from kslab.processor.partitioner import default_partition
from kslab.spark import explain, run_batch

S, L = serdes.String(), serdes.Long()
Row = tuple[int, str, str, int]  # (partition, key, value, timestamp)
FkRow = tuple[int, str, str | None, int]  # (partition, key, value or None: a delete, timestamp)


def random_rows(rng: random.Random, count: int) -> list[Row]:
    """``count`` records of 4 keys, values ``a|b:x|y|z``, timestamps rising 25 ms a record
    with up to 80 ms of jitter (some out of order, some late)."""
    return [(0, f"k{rng.randrange(4)}", f"{rng.choice('ab')}:{'xyz'[i % 3]}",
             25 * i + rng.randrange(80)) for i in range(count)]


def kafka_order(topics: dict[str, list[Any]]) -> list[tuple[str, Any]]:
    """The topics' records in the order a task reading all of them, each fully buffered,
    processes them: the partition with the earliest next record first (ties: by topic name,
    then partition), each partition's records in their order (rows are ``(partition, ..., ts)``)."""
    queues: dict[tuple[str, int], list[Any]] = defaultdict(list)
    for topic, rows in topics.items():
        for row in rows:
            queues[(topic, row[0])].append(row)
    merged = []
    while any(queues.values()):
        tp = min((q for q, rows in queues.items() if rows), key=lambda q: (queues[q][0][3], q))
        merged.append((tp[0], queues[tp].pop(0)))
    return merged


CASES = {  # topology -> the output's value serde
    "engines_stream_stream_join": S,
    "engines_table_table_join": S,
    "engines_session_count": L,
    "engines_sliding_count": L,
    "engines_suppress_final": L,
    "engines_cogroup": L,
    "engines_emit_on_close": L,
    "engines_versioned_join": S,
    "engines_table_aggregate": S,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_batch_gives_the_drivers_output(spark, name):
    topology = getattr(apps, name)
    rng = random.Random(name)
    sources = topology().source_topics()
    topics = {t: random_rows(rng, 40 if t == "left" else 30) for t in ("left", "right")
              if t in sources}
    with ks.TopologyTestDriver(topology()) as driver:
        inputs = {t: driver.create_input_topic(t, S, S) for t in topics}
        for topic, (_, key, value, timestamp) in kafka_order(topics):
            inputs[topic].pipe_input(key, value, timestamp)
        expected = [(r.key, r.value, r.timestamp) for r in
                    driver.create_output_topic("out", S, CASES[name]).read_records_to_list()]
    out = run_batch(topology(), {t: frame(spark, rows, t) for t, rows in topics.items()})
    assert len(expected) >= 10
    assert spark_output(out["out"], "out", CASES[name]) == expected


# -- foreign-key joins: sub-topologies that feed each other, run in one Spark task --------------

FK_PARTITIONS = {"left": 2, "right": 3, "out-left": 3}  # "out": 1 partition, two writing tasks


def fk_rows(rng: random.Random, counts: dict[str, int], partitions: dict[str, int],
            timestamps: Any = None) -> dict[str, list[FkRow]]:
    """Left rows of keys k0-k4 with values "<a|b|c>:<n>" (a key's foreign key changes), right
    rows of keys a-d; about one in six a delete, on both sides; each in the partition Kafka's
    default partitioner gives its key. Timestamps rise 20 ms a record with up to 60 ms of
    jitter (some late), or are taken from ``timestamps``."""
    out: dict[str, list[FkRow]] = {}
    for topic, count in counts.items():
        rows = []
        for i in range(count):
            key = f"k{rng.randrange(5)}" if topic == "left" else rng.choice("abcd")
            value = None if rng.random() < 1 / 6 else (
                f"{rng.choice('abc')}:{i}" if topic == "left" else f"r{i}")
            ts = next(timestamps) if timestamps is not None else 20 * i + rng.randrange(60)
            rows.append((default_partition(S.serialize(topic, key), partitions[topic]), key,
                         value, ts))
        out[topic] = rows
    return out


def driver_partitions(topology: Any, piped: list[tuple[str, FkRow]], partitions: dict[str, int],
                      outputs: dict[str, Any]) -> dict[tuple[str, int], list[tuple[Any, ...]]]:
    """The driver's output records, ``(key, value, timestamp)`` per (topic, partition) in the
    order written, with one task per sub-topology and partition (``partitions=``)."""
    found: dict[tuple[str, int], list[tuple[Any, ...]]] = defaultdict(list)
    with ks.TopologyTestDriver(topology(), partitions=partitions) as driver:
        for topic, (p, key, value, ts) in piped:
            driver.pipe_raw(topic, S.serialize(topic, key), S.serialize(topic, value), None, ts,
                            p)
        for topic, serde in outputs.items():
            log = driver.output_log(topic)
            for i in range(log.total):
                key, value, _, ts, p = log.record(i)
                found[(topic, p)].append((S.deserialize(topic, key),
                                          serde.deserialize(topic, value), ts))
    return dict(found)


def spark_partitions(out: dict[str, Any], outputs: dict[str, Any]
                     ) -> dict[tuple[str, int], list[tuple[Any, ...]]]:
    """``run_batch``'s output frames in the shape of ``driver_partitions``, collected in one
    job, each partition's rows by ``seq`` (a cycle's writes are one sequence)."""
    frames = [out[t] for t in outputs]
    union = frames[0]
    for extra in frames[1:]:
        union = union.unionByName(extra)
    found: dict[tuple[str, int], list[tuple[Any, ...]]] = defaultdict(list)
    for r in union.orderBy("topic", "partition", "seq").collect():
        topic = r["topic"]
        found[(topic, r["partition"])].append(
            (S.deserialize(topic, r["key"]), outputs[topic].deserialize(topic, r["value"]),
             r["timestamp"]))
    return dict(found)


def test_foreign_key_joins_give_the_drivers_output_per_partition(spark):
    topics = fk_rows(random.Random("fk"), {"left": 40, "right": 30}, FK_PARTITIONS)
    outputs = {"out": S, "out-left": S}
    expected = driver_partitions(apps.engines_fk_join, kafka_order(topics), FK_PARTITIONS,
                                 outputs)
    out = run_batch(apps.engines_fk_join(), {t: frame(spark, rows, t) for t, rows in
                                             topics.items()}, partitions=FK_PARTITIONS)
    assert spark_partitions(out, outputs) == expected
    # what the comparison covers: deletes on both sides, a key whose foreign key changes,
    # results and deletes of both joins, the left join's unmatched rows, several partitions
    assert all(any(v is None for _, _, v, _ in rows) for rows in topics.values())
    fks = defaultdict(set)
    for _, key, value, _ in topics["left"]:
        if value is not None:
            fks[key].add(value.split(":")[0])
    assert max(len(f) for f in fks.values()) > 1
    inner, left = expected[("out", 0)], [r for (t, _), rs in expected.items() if t == "out-left"
                                        for r in rs]
    assert len(inner) >= 20 and any(v is None for _, v, _ in inner)
    assert any(v is not None and v.endswith("+None") for _, v, _ in left)
    assert len({p for t, p in expected if t == "out-left"}) == 3


def test_a_foreign_key_join_between_a_repartition_and_an_aggregation(spark):
    """The cycle's inputs come from a stage before it and its output feeds one after it.
    Timestamps rise across both topics (no ties): the cycle takes its inputs by timestamp,
    so the re-keyed records reach it in the order the driver was piped them."""
    partitions = {"left": 2, "right": 3, "out": 3}
    rng = random.Random("pipeline")
    times = iter(rng.sample(range(0, 10_000, 7), 70))
    topics = fk_rows(rng, {"left": 40, "right": 30}, partitions, timestamps=times)
    for rows in topics.values():
        rows.sort(key=lambda r: r[3])
    expected = driver_partitions(apps.engines_fk_pipeline, kafka_order(topics), partitions,
                                 {"out": L})
    out = run_batch(apps.engines_fk_pipeline(), {t: frame(spark, rows, t) for t, rows in
                                                 topics.items()}, partitions=partitions)
    assert spark_partitions(out, {"out": L}) == expected
    assert sum(len(rows) for rows in expected.values()) >= 20
    assert len(expected) >= 2


def test_a_sub_topology_reading_its_own_output_gives_the_drivers_output(spark):
    """A cycle of one: what it writes to "loop" comes back to it, and "loop" is an output too."""
    rows = [(0, f"k{i}", str(i % 4), 10 * i) for i in range(12)]
    outputs = {"out": S, "loop": S}
    expected = driver_partitions(apps.engines_countdown, [("in", r) for r in rows], {"in": 1},
                                 outputs)
    out = run_batch(apps.engines_countdown(), {"in": frame(spark, rows, "in")})
    assert spark_partitions(out, outputs) == expected
    assert len(expected[("out", 0)]) == 12 + 18 and len(expected[("loop", 0)]) == 18


def test_explain_says_a_cycle_runs_in_one_task():
    topology = apps.engines_fk_join()
    report = explain(topology)
    assert report.supported
    source = report[next(n for n in topology.nodes if n.startswith("KSTREAM-SOURCE"))]
    assert source.batch.startswith("with sub-topologies 0, 1, which feed each other in a cycle "
                                   "(as a foreign-key join's do), in one Spark task on one core")
    assert source.streaming.startswith("with sub-topologies 0, 1, which feed each other in a "
                                       "cycle, in one query whose one transformWithStateInPandas "
                                       "group holds all the cycle's tasks")
    assert "test driver's order" in source.differences
    sink = report[next(n for n in topology.nodes if n.startswith("KSTREAM-SINK"))]
    assert sink.batch.startswith("rows of the topic's result frame")  # a sink out of the cycle
    assert sink.batch.endswith("what one sends to another handed over in process")
