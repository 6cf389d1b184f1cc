"""Batch replay of the DSL word count on Spark (local[1], local[2]) beside the test driver.

One run over the same records: ``--records`` lines (2 words each from a 10,000-word vocabulary)
in 2 Kafka partitions, read from Parquet (one file per partition). Spark runs
``kslab.spark.run_batch`` and writes every output record to Spark's ``noop`` sink; the driver
pipes the same lines and keeps the output.
Run ``python bench/spark.py --records 1000000``; the printed table goes into bench/README.md.
``--streaming`` instead streams word count Kafka (LocalBroker) -> Spark -> Kafka in micro-batches
of ``--per-batch`` records: reading only the store keys each micro-batch touches, then every
store whole per micro-batch (both with tasks rebuilt every micro-batch), then the default
(whole when the store is no bigger than the micro-batch) as before (tasks rebuilt, RocksDB
snapshots), with tasks kept open in their Python workers (``kslab.spark.keep.tasks``, the
default now), and with RocksDB changelog checkpointing too (a Spark setting, off by default),
in turn; it prints the time of the counting sub-topology's micro-batches (``--default-only``:
the default's three runs).
``--floor`` then runs two plain ``transformWithStateInPandas`` counts over the same words (the
first default run's repartition topic) in the same session: what Spark itself costs, and a
count with one ``MapState`` entry per word.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from dsl_wordcount import dsl_topology as word_count  # seed 004's word count

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
PARTITIONS = 2


def make_lines(n: int, seed: int = 1,
               words: int = 10_000) -> list[tuple[int, int, bytes, bytes, int]]:
    """``n`` (partition, offset, key, value, timestamp) records of 2-word lines."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(words)]
    rows = []
    for i in range(n):
        line = f"{rng.choice(vocab)} {rng.choice(vocab)}"
        rows.append((i % PARTITIONS, i // PARTITIONS, f"k{i % 100}".encode(), line.encode(), i))
    return rows


def write_parquet(rows: list[tuple[int, int, bytes, bytes, int]], path: Path) -> None:
    """The records as Parquet with Kafka's columns, one file per Kafka partition (an export)."""
    path.mkdir(parents=True, exist_ok=True)
    for partition in range(PARTITIONS):
        part = [r for r in rows if r[0] == partition]
        table = pa.table({
            "partition": pa.array([r[0] for r in part], pa.int32()),
            "offset": pa.array([r[1] for r in part], pa.int64()),
            "key": pa.array([r[2] for r in part], pa.binary()),
            "value": pa.array([r[3] for r in part], pa.binary()),
            "timestamp": pa.array([r[4] for r in part], pa.int64()),
        })
        pq.write_table(table, path / f"partition-{partition}.parquet")


def run_spark(master: str, path: Path, warmup: Path, scratch: Path,
              bulk: bool = True) -> tuple[float, int, float, float]:
    """Seconds for run_batch + a full pass over its output on ``master``, output rows (one per
    word), and the CPU seconds the JVM and the Python workers spent meanwhile.

    A run over ``warmup`` (20,000 other lines) comes first in the same session, so that the
    timed run finds the JVM's code compiled and the Python workers started (they are reused).
    ``bulk=False``: the operators' batch forms off (``kslab.spark.bulk``), record by record.
    """
    from kslab.spark import run_batch, session

    spark = session(master, scratch_dir=scratch, config={"spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for source in (warmup, path):
            jvm, python = spark_cpu()
            started = time.perf_counter()
            out = run_batch(word_count(), {"lines": spark.read.parquet(str(source))},
                            partitions={"lines": PARTITIONS},
                            config={"kslab.spark.bulk": bulk})["counts"]
            out.write.format("noop").mode("overwrite").save()
            seconds = time.perf_counter() - started
        jvm_after, python_after = spark_cpu()
        produced = 2 * spark.read.parquet(str(path)).count()
        return seconds, produced, jvm_after - jvm, python_after - python
    finally:
        spark.stop()


def spark_cpu() -> tuple[float, float]:
    """CPU seconds so far of this process's descendants: the JVM, and the Python workers.

    Read from /proc (Linux); workers that exited count through their parent's children times.
    """
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    stats: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        parents[int(entry.name)] = int(fields[1])
        stats[int(entry.name)] = (name, sum(int(f) for f in fields[11:15]) / tick)
    me, jvm, python = os.getpid(), 0.0, 0.0
    for pid, (name, seconds) in stats.items():
        ancestor = parents.get(pid)
        while ancestor not in (None, 0, 1, me):
            ancestor = parents.get(ancestor)
        if ancestor == me:
            if name == "java":
                jvm += seconds
            else:
                python += seconds
    return jvm, python


def run_driver(rows: list[tuple[int, int, bytes, bytes, int]]) -> tuple[float, int, float]:
    """Seconds for the test driver (one task, in process) over the same lines; output rows;
    CPU seconds."""
    lines = [ks.TestRecord(r[2].decode(), r[3].decode(), r[4]) for r in rows]
    started, cpu = time.perf_counter(), time.process_time()
    with ks.TopologyTestDriver(word_count()) as driver:
        driver.create_input_topic("lines", S, S).pipe_record_list(lines)
        produced = driver.create_output_topic("counts", S, L).get_queue_size()
    return time.perf_counter() - started, produced, time.process_time() - cpu


def produce_lines(servers: str, topic: str, rows: list[tuple[int, int, bytes, bytes, int]]) -> None:
    """Create ``topic`` (2 partitions) and produce the records to their partitions."""
    from confluent_kafka import Producer

    create_topic(servers, topic)
    producer = Producer({"bootstrap.servers": servers, "linger.ms": 20})
    for i, (partition, _, key, value, ts) in enumerate(rows):
        producer.produce(topic, value, key, partition=partition, timestamp=ts + 1)
        if i % 10000 == 0:
            producer.poll(0)
    producer.flush(60)


def create_topic(servers: str, topic: str) -> None:
    """A topic with ``PARTITIONS`` partitions."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": servers})
    for future in admin.create_topics([NewTopic(topic, PARTITIONS, 1)]).values():
        future.result(30)


PROGRESS: dict[str, list[dict]] = {}  # each streaming run's counting micro-batches
CHANGELOG = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"
# (state loading, tasks kept open, changelog checkpointing): --default-only, then all
BEFORE_AFTER = ((None, False, False), (None, True, False), (None, True, True))
ALL_MODES = ((False, False, False), (True, False, False), *BEFORE_AFTER)


def floor_processor(stateful: bool) -> object:
    """The floor: a plain ``transformWithStateInPandas`` count of the words of one Kafka
    partition per group, one row out per word (its running count), as the DSL count writes.
    ``stateful``: the counts live in a ``MapState`` (one entry per word) behind a dict that
    reads a word's entry on its first use in the micro-batch and writes every changed one back
    once at its end (the notes' design); otherwise in nothing (Spark's own cost: read, shuffle,
    pandas in and out, Kafka write)."""
    import pandas as pd
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class Count(StatefulProcessor):
        def init(self, handle: object) -> None:
            self.counts = handle.getMapState("counts", "word binary", "n long") \
                if stateful else None

        def handleInputRows(self, key, rows, timerValues):  # noqa: N802, N803
            frame = pd.concat(list(rows), ignore_index=True)
            words = frame["key"].tolist()
            cache: dict[bytes, int] = {}
            out = []
            state = self.counts
            for word in words:
                n = cache.get(word)
                if n is None:
                    row = state.getValue((word,)) if state is not None else None
                    n = 0 if row is None else row[0]
                cache[word] = n = n + 1
                out.append(n.to_bytes(8, "big"))
            if state is not None:
                for word, n in cache.items():
                    state.updateValue((word,), (n,))
            yield pd.DataFrame({"key": words, "value": out})

        def close(self) -> None:
            pass

    return Count()


def run_floor(spark: object, servers: str, source: str, tag: str, per_batch: int,
              stateful: bool, scratch: Path) -> list[dict]:
    """The floor processor over ``source`` (the DSL run's repartition topic: the counting
    sub-topology's own input), ``per_batch`` words a micro-batch; its micro-batches' progress."""
    spark.conf.set(CHANGELOG, "false")  # type: ignore[attr-defined]  # (Spark's default)
    create_topic(servers, f"floor-{tag}")
    frame = (spark.readStream.format("kslab-kafka")  # type: ignore[attr-defined]
             .option("kafka.bootstrap.servers", servers).option("subscribe", source)
             .option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", str(per_batch)).load()
             .select("key", "partition"))
    out = frame.groupBy("partition").transformWithStateInPandas(
        floor_processor(stateful), "key binary, value binary", "Append", "None")
    query = (out.writeStream.format("kslab-kafka").option("kafka.bootstrap.servers", servers)
             .option("topic", f"floor-{tag}")
             .option("checkpointLocation", str(scratch / f"floor-{tag}"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return [p for p in query.recentProgress if p["numInputRows"]]


def run_streaming(spark: object, servers: str, lines: str, tag: str, per_batch: int,
                  preload: bool | None, scratch: Path,
                  keep: bool = True, changelog: bool = False) -> tuple[float, float, int]:
    """Word count streamed from ``lines``: seconds in all, seconds of the counting
    sub-topology's micro-batches, and how many micro-batches it ran. ``keep``: tasks stay
    open in their Python workers between micro-batches (``kslab.spark.keep.tasks``);
    ``changelog``: RocksDB changelog checkpointing (off in Spark's and kslab's default)."""
    spark.conf.set(CHANGELOG, str(changelog).lower())  # type: ignore[attr-defined]
    from kslab.spark import start

    create_topic(servers, f"counts-{tag}")
    b = ks.StreamsBuilder()
    (b.stream(lines, ks.Consumed.with_(S, S)).flat_map_values(str.split)
     .group_by(lambda key, word: word, ks.Grouped.with_(S, S))
     .count(materialized=ks.Materialized.as_("counts").with_store_type("in_memory"))
     .to_stream().to(f"counts-{tag}", ks.Produced.with_(S, L)))
    started = time.perf_counter()
    streams = start(b.build(), {"application.id": f"bench-{tag}", "bootstrap.servers": servers,
                                "kslab.spark.keep.tasks": keep},
                    checkpoint_location=str(scratch / tag), trigger={"availableNow": True},
                    spark=spark, max_offsets_per_trigger=per_batch, preload_state=preload)
    streams.await_termination()
    total = time.perf_counter() - started
    progress = [p for p in streams.queries[-1].recentProgress if p["numInputRows"]]
    counting = sum(p["durationMs"]["addBatch"] for p in progress) / 1000
    PROGRESS[tag] = progress
    return total, counting, len(progress)


def main_streaming(records: int, per_batch: int, rounds: int, words: int,
                   modes: tuple[tuple[bool | None, bool, bool], ...] = ALL_MODES,
                   floor: bool = False) -> int:
    """Touched-keys loading against whole-store loading (tasks rebuilt every micro-batch),
    and the default loading as before (tasks rebuilt, RocksDB snapshots), now (tasks kept
    open) and with changelog checkpointing too, in turn, one table; then the default runs'
    counting micro-batches one by one; with ``floor``, then the floor processors' over the
    same words (the first default run's repartition topic) in the same session."""
    from kslab.runtime import LocalBroker
    from kslab.spark import session

    rows = make_lines(records, words=words)
    results: list[tuple[str, float, float, int, float]] = []
    with tempfile.TemporaryDirectory(prefix="kslab-bench-spark-") as tmp, LocalBroker() as broker:
        servers = broker.bootstrap_servers
        produce_lines(servers, "lines", rows)
        spark = session("local[2]", scratch_dir=Path(tmp) / "scratch")
        spark.sparkContext.setLogLevel("ERROR")
        try:
            for i in range(rounds):
                for preload, keep, changelog in modes:
                    name = {False: "touched keys only", True: "whole store per micro-batch",
                            None: "default (whole when no bigger than the batch)"}[preload]
                    name += ", tasks kept open" if keep else ", tasks rebuilt"
                    name += ", RocksDB changelog" if changelog else ", RocksDB snapshots"
                    tag = f"{preload}{'k' if keep else ''}{'c' if changelog else ''}{i}".lower()
                    load = os.getloadavg()[0]
                    total, counting, batches = run_streaming(
                        spark, servers, "lines", tag, per_batch, preload, Path(tmp), keep,
                        changelog)
                    results.append((name, total, counting, batches, load))
                    print(f"{name}: {total:.1f} s, counting {counting:.1f} s in {batches} "
                          f"micro-batches (load {load:.1f})", file=sys.stderr)
            if floor:
                source = repartition_topic(servers, "bench-none0-")
                for stateful in (False, True):
                    tag = "floor-state" if stateful else "floor-nostate"
                    load = os.getloadavg()[0]
                    PROGRESS[tag] = run_floor(spark, servers, source, tag, per_batch, stateful,
                                              Path(tmp))
                    print(f"{tag}: load {load:.1f}", file=sys.stderr)
        finally:
            spark.stop()
    print("| state loading | seconds | counting micro-batches | ms per micro-batch | "
          "load avg |\n|---|---:|---:|---:|---:|")
    for name, total, counting, batches, load in results:
        print(f"| {name} | {total:.1f} | {batches} in {counting:.1f} s | "
              f"{1000 * counting / max(batches, 1):,.0f} | {load:.1f} |")
    for tag in ("none0", "nonek0", "nonekc0", "floor-nostate", "floor-state"):
        if tag in PROGRESS:
            print(f"\n{tag}:")
            print_batches(PROGRESS[tag])
    return 0


def repartition_topic(servers: str, prefix: str) -> str:
    """The repartition topic of the application whose topics start with ``prefix``."""
    from confluent_kafka.admin import AdminClient

    names = AdminClient({"bootstrap.servers": servers}).list_topics(timeout=10).topics
    return next(t for t in names if t.startswith(prefix) and t.endswith("-repartition"))


def print_batches(progress: list[dict]) -> None:
    """The default run's counting micro-batches: words, latency (Spark's trigger execution:
    planning, reading the repartition topic, the tasks, the state commit and the Kafka writes)
    and words/s, then the steady rate after the first two."""
    print("\n| micro-batch | words | latency ms | of which: offsets, planning, run + write | "
          "words/s |\n|---:|---:|---:|---|---:|")
    for i, p in enumerate(progress):
        d = p["durationMs"]
        ms = d["triggerExecution"]
        parts = ", ".join(f"{d.get(k, 0):,}" for k in ("latestOffset", "queryPlanning",
                                                         "addBatch"))
        print(f"| {i} | {p['numInputRows']:,} | {ms:,} | {parts} | "
              f"{p['numInputRows'] * 1000 / ms:,.0f} |")
    steady = progress[2:]
    if steady:
        words = sum(p["numInputRows"] for p in steady)
        ms = sum(p["durationMs"]["triggerExecution"] for p in steady)
        print(f"| steady (2..{len(progress) - 1}) | {words:,} | {ms / len(steady):,.0f} mean | "
              f"| {words * 1000 / ms:,.0f} |")


def main(argv: list[str] | None = None) -> int:
    """Run the three contestants once and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--streaming", action="store_true")
    parser.add_argument("--per-batch", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--words", type=int, default=10_000, help="vocabulary size")
    parser.add_argument("--default-only", action="store_true",
                        help="streaming: only the default state loading, before (tasks "
                        "rebuilt, RocksDB snapshots) and after (tasks kept, then changelog)")
    parser.add_argument("--no-bulk", action="store_true",
                        help="batch: run_batch with kslab.spark.bulk False (record by record)")
    parser.add_argument("--floor", action="store_true",
                        help="streaming: then the plain transformWithStateInPandas counts")
    args = parser.parse_args(argv)
    if args.streaming:
        return main_streaming(args.records, args.per_batch, args.rounds, args.words,
                              BEFORE_AFTER if args.default_only else ALL_MODES,
                              args.floor)
    rows = make_lines(args.records)
    results = []
    with tempfile.TemporaryDirectory(prefix="kslab-bench-spark-") as tmp:
        path, warmup = Path(tmp) / "lines", Path(tmp) / "warmup"
        write_parquet(rows, path)
        write_parquet(make_lines(20_000, seed=2), warmup)
        for _ in range(args.rounds):  # interleaved, so that both see the same neighbours
            for master in ("local[1]", "local[2]"):
                load = os.getloadavg()[0]
                seconds, produced, jvm, python = run_spark(master, path, warmup,
                                                           Path(tmp) / "scratch",
                                                           not args.no_bulk)
                results.append((f"Spark run_batch {master}", seconds, produced, load, jvm,
                                python))
                print(f"{master}: {seconds:.1f} s, {produced} outputs, JVM {jvm:.1f} s CPU, "
                      f"Python {python:.1f} s CPU, load {load:.1f}", file=sys.stderr)
    load = os.getloadavg()[0]
    seconds, produced, cpu = run_driver(rows)
    results.append(("TopologyTestDriver (in process, one task)", seconds, produced, load, 0.0,
                    cpu))
    print("| engine | seconds | input rec/s | outputs | vs local[1] of its round | JVM CPU s "
          "| Python CPU s | load avg |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    base = results[0][1]
    for name, seconds, produced, load, jvm, python in results:
        if name.endswith("local[1]"):
            base = seconds
        ratio = f"{base / seconds:.2f}x" if name.startswith("Spark") else ""
        print(f"| {name} | {seconds:.1f} | {args.records / seconds:,.0f} | {produced:,} | "
              f"{ratio} | {jvm:.1f} | {python:.1f} | {load:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
