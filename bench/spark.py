"""Batch replay of the DSL word count on Spark (local[1], local[2]) beside the test driver.

One run over the same records: ``--records`` lines (2 words each from a 10,000-word vocabulary)
in 2 Kafka partitions, read from Parquet (one file per partition). Spark runs
``kslab.spark.run_batch`` and writes every output record to Spark's ``noop`` sink; the driver
pipes the same lines and keeps the output.
Run ``python bench/spark.py --records 1000000``; the printed table goes into bench/README.md.
``--streaming`` instead streams the same DSL word count Kafka (LocalBroker, 2 partitions) ->
Spark (local[2]) -> Kafka with ``availableNow``, for each micro-batch size of ``--sizes`` in turn
(``maxOffsetsPerTrigger``: lines for the splitting query, words for the counting one), and
reports the counting query's micro-batches: steady words/s (after the first two) and latency
(Spark's ``triggerExecution``: the offsets, planning, reading Kafka, the tasks, the Kafka writes
and the commits), with a least-squares split of latency into a fixed cost per micro-batch and a
cost per word across the sizes. ``--floor`` runs, after each size, a plain
``transformWithStateInPandas`` with no state over that run's repartition topic (the counting
query's own input, grouped the same way): what Spark itself costs. ``--live`` runs the same
word count on ``ks.KafkaStreams`` (a child process, one stream thread, every update sent) over
the same lines before and after the Spark runs: its words/s from its first count to its last.
Every run's count output is checked (one count per word). "CPU us a word" is the CPU time of the
run's processes per input word (Spark: the JVM and its Python workers over the whole run, both
queries for kslab; live: the child process): on a shared machine it says what a run costs
whatever the neighbours do, where the rates say what it got.
``make bench-spark-streaming`` runs ``--streaming --records 120000 --words 150000 --floor
--live``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


CHANGELOG = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"


def floor_processor() -> object:
    """The floor: a plain ``transformWithStateInPandas`` over the words of one Kafka partition
    per group, one row out per word (its key and an 8-byte value), as the DSL count writes, and
    no state at all: what Spark itself costs (the Python source reading Kafka, the shuffle,
    Arrow to pandas and back, the Kafka write, the micro-batch's planning and commits)."""
    import pandas as pd
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class Count(StatefulProcessor):
        def init(self, handle: object) -> None:
            pass

        def handleInputRows(self, key, rows, timerValues):  # noqa: N802, N803
            frame = pd.concat(list(rows), ignore_index=True)
            words = frame["key"].tolist()
            yield pd.DataFrame({"key": words, "value": [b"\0" * 8] * len(words)})

        def close(self) -> None:
            pass

    return Count()


def run_floor(spark: object, servers: str, source: str, tag: str, per_batch: int,
              scratch: Path) -> tuple[float, list[dict]]:
    """The floor processor over ``source`` (a kslab run's repartition topic: the counting
    sub-topology's own input), ``per_batch`` words a micro-batch, grouped as kslab groups
    (one state partition per Kafka partition); seconds in all and its micro-batches."""
    from pyspark.sql import functions as sf

    from kslab.spark._groups import spread_keys

    create_topic(servers, f"floor-{tag}")
    keys = spread_keys(PARTITIONS, PARTITIONS)
    frame = (spark.readStream.format("kslab-kafka")  # type: ignore[attr-defined]
             .option("kafka.bootstrap.servers", servers).option("subscribe", source)
             .option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", str(per_batch)).load()
             .select("key", "partition")
             .withColumn("_task", sf.element_at(sf.array(*map(sf.lit, keys)),
                                                sf.col("partition") + 1)))
    out = frame.groupBy("_task").transformWithStateInPandas(
        floor_processor(), "key binary, value binary", "Append", "None")
    started = time.perf_counter()
    spark.conf.set("spark.sql.shuffle.partitions", str(PARTITIONS))  # type: ignore[attr-defined]
    query = (out.writeStream.format("kslab-kafka").option("kafka.bootstrap.servers", servers)
             .option("topic", f"floor-{tag}")
             .option("checkpointLocation", str(scratch / f"floor-{tag}"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return time.perf_counter() - started, [p for p in query.recentProgress if p["numInputRows"]]


def word_count_app(lines: str, counts: str) -> object:
    """The DSL word count of ``lines`` into ``counts`` (an in-memory store, every update)."""
    b = ks.StreamsBuilder()
    (b.stream(lines, ks.Consumed.with_(S, S)).flat_map_values(str.split)
     .group_by(lambda key, word: word, ks.Grouped.with_(S, S))
     .count(materialized=ks.Materialized.as_("counts").with_store_type("in_memory"))
     .to_stream().to(counts, ks.Produced.with_(S, L)))
    return b.build()


def check_counts(servers: str, topic: str, words: int) -> None:
    """Stop the run unless ``topic`` holds one count per word (nothing lost or doubled)."""
    from kslab.spark.kafka import log_ends

    ends = log_ends({"kafka.bootstrap.servers": servers},
                    [(topic, p) for p in range(PARTITIONS)])
    written = sum(end - start for start, end in ends.values())
    if written != words:
        raise SystemExit(f"{topic} holds {written:,} counts, expected one per word: {words:,}")


def run_streaming(spark: object, servers: str, lines: str, tag: str, per_batch: int,
                  scratch: Path, words: int) -> tuple[float, list[dict], str]:
    """Word count streamed from ``lines`` on Spark, ``per_batch`` records a micro-batch (lines
    for the splitting query, words for the counting one): seconds in all (both queries, from
    their start), the counting query's micro-batches and its input (the repartition topic);
    stops unless it wrote ``words`` counts."""
    from kslab.spark import start

    create_topic(servers, f"counts-{tag}")
    started = time.perf_counter()
    streams = start(word_count_app(lines, f"counts-{tag}"),
                    {"application.id": f"bench-{tag}", "bootstrap.servers": servers},
                    checkpoint_location=str(scratch / tag), trigger={"availableNow": True},
                    spark=spark, max_offsets_per_trigger=per_batch)
    streams.await_termination()
    total = time.perf_counter() - started
    check_counts(servers, f"counts-{tag}", words)
    return (total, [p for p in streams.queries[-1].recentProgress if p["numInputRows"]],
            repartition_topic(servers, f"bench-{tag}-"))


def live_child(servers: str, lines: str, counts: str, app: str, state: str) -> None:
    """The same word count on ``ks.KafkaStreams`` (one stream thread, every update sent, as
    Spark's tasks send them), until ``state``/stop appears."""
    streams = ks.KafkaStreams(word_count_app(lines, counts), {
        "application.id": app, "bootstrap.servers": servers, "state.dir": state,
        "statestore.cache.max.bytes": 0, "commit.interval.ms": 1000,
        "consumer.auto.offset.reset": "earliest"})
    streams.start()
    stop = Path(state) / "stop"
    while not stop.exists():
        time.sleep(0.1)
    streams.close()


def run_live(servers: str, lines: str, words: int, tag: str) -> tuple[float, float, float]:
    """``KafkaStreams`` in a child process over ``lines``: seconds from its start to its last
    count, from its first count to its last (``words`` counts in all), and its CPU seconds."""
    import subprocess

    from confluent_kafka import Consumer, TopicPartition

    create_topic(servers, f"counts-{tag}")
    state = Path(tempfile.mkdtemp(prefix=f"bench-spark-{tag}-"))
    consumer = Consumer({"bootstrap.servers": servers, "group.id": f"reader-{tag}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 10})
    consumer.assign([TopicPartition(f"counts-{tag}", p, 0) for p in range(PARTITIONS)])
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, __file__, "--live-child", servers, lines,
                              f"counts-{tag}", f"bench-{tag}", str(state)])
    cpu = 0.0
    seen, first, last = 0, 0.0, 0.0
    deadline = time.monotonic() + 1800
    try:
        while seen < words and time.monotonic() < deadline and child.poll() is None:
            batch = [m for m in consumer.consume(10000, 0.05) if m.error() is None]
            if batch:
                last = time.perf_counter()
                first = first or last
                seen += len(batch)
    finally:
        (state / "stop").touch()
        usage = os.wait4(child.pid, 0)[2]
        cpu = usage.ru_utime + usage.ru_stime
        consumer.close()
    if seen != words:
        raise SystemExit(f"KafkaStreams wrote {seen:,} counts, expected {words:,}")
    return last - started, last - first, cpu


def steady(progress: list[dict], size: int) -> tuple[float, float, float, float]:
    """Words/s and mean, min, max latency (ms, Spark's ``triggerExecution``: planning, the
    offsets, reading, the tasks, the Kafka writes, the state and offset commits) of the full
    micro-batches (``size`` words) after the first two, or after the first when there are no
    more (the first plans the query; the last is partial)."""
    full = [p for p in progress if p["numInputRows"] == size]
    rest = [p for p in progress[2:] if p["numInputRows"] == size] or full[1:] or progress
    words = sum(p["numInputRows"] for p in rest)
    ms = [p["durationMs"]["triggerExecution"] for p in rest]
    return words * 1000 / sum(ms), sum(ms) / len(ms), min(ms), max(ms)


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares ``latency = fixed + per_word * words``: (fixed ms, per-word us)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - slope * mx, slope * 1000


def retried(run: Any, tag: str) -> Any:
    """``run(tag)``, once more (under another tag) if Spark gave up on a Python worker starting
    (its fixed 10 s to connect back, which a loaded machine can exceed)."""
    try:
        return run(tag)
    except Exception as exc:
        if "failed to connect back" not in str(exc):
            raise
        print(f"{tag}: a Python worker did not connect back in time; once more", file=sys.stderr)
        return run(f"{tag}r")


def main_streaming(records: int, sizes: list[int], words: int, floor: bool, live: bool) -> int:
    """For each micro-batch size in turn: the word count on Spark, then (``floor``) the
    stateless floor over its repartition topic; ``live``: ``KafkaStreams`` over the same
    lines first and last. One table, then the fits and one run's micro-batches."""
    from kslab.runtime import LocalBroker
    from kslab.spark import session

    rows = make_lines(records, words=words)
    total_words = 2 * records
    distinct = len({w for r in rows for w in r[3].split()})
    print(f"{records:,} lines, {total_words:,} words, {distinct:,} distinct (the store at the "
          "end), 2 partitions, local[2]", file=sys.stderr)
    results: list[tuple[str, int, str, float, float, float, float, float, float, float]] = []
    progress: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="kslab-bench-spark-") as tmp, LocalBroker() as broker:
        servers = broker.bootstrap_servers
        produce_lines(servers, "lines", rows)

        def live_row(tag: str) -> None:
            load = os.getloadavg()[0]
            total, span, cpu = run_live(servers, "lines", total_words, tag)
            results.append(("KafkaStreams (live, 1 stream thread)", 0, "", total_words / span,
                            0.0, 0.0, 0.0, total_words / total, cpu, load))
            print(f"live: {total:.1f} s, {total_words / span:,.0f} words/s (load {load:.1f})",
                  file=sys.stderr)

        if live:
            live_row("live0")
        spark = session("local[2]", scratch_dir=Path(tmp) / "scratch")
        spark.sparkContext.setLogLevel("ERROR")
        spark.conf.set(CHANGELOG, "false")  # (Spark's default)
        try:
            for size in sizes:
                tag = f"k{size}"
                load = os.getloadavg()[0]
                cpu = sum(spark_cpu())
                total, batches, source = retried(lambda t, n=size: run_streaming(
                    spark, servers, "lines", t, n, Path(tmp), total_words), tag)
                cpu = sum(spark_cpu()) - cpu
                progress[tag] = batches
                rate, mean, low, high = steady(batches, size)
                results.append(("kslab word count (DSL, tasks kept open)", size,
                                f"{len(batches)}", rate, mean, low, high,
                                total_words / total, cpu, load))
                print(f"kslab {size}: {total:.1f} s, steady {rate:,.0f} words/s, "
                      f"{mean:,.0f} ms (load {load:.1f})", file=sys.stderr)
                if floor:
                    load = os.getloadavg()[0]
                    cpu = sum(spark_cpu())
                    total, batches = retried(lambda t, n=size, src=source: run_floor(
                        spark, servers, src, t, n, Path(tmp)), tag)
                    cpu = sum(spark_cpu()) - cpu
                    progress[f"floor-{tag}"] = batches
                    rate, mean, low, high = steady(batches, size)
                    results.append(("floor: plain transformWithStateInPandas, no state", size,
                                    f"{len(batches)}", rate, mean, low, high,
                                    total_words / total, cpu, load))
                    print(f"floor {size}: {total:.1f} s, steady {rate:,.0f} words/s "
                          f"(load {load:.1f})", file=sys.stderr)
        finally:
            spark.stop()
        if live:
            live_row("live1")
    print("| contestant | words a micro-batch | micro-batches | steady words/s | latency ms "
          "mean (min-max) | whole run words/s | CPU us a word | load |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, size, batches, rate, mean, low, high, whole, cpu, load in results:
        per_word = f"{cpu * 1e6 / total_words:,.0f}"
        if not size:
            print(f"| {name} | | | {rate:,.0f} | | {whole:,.0f} | {per_word} | {load:.1f} |")
            continue
        print(f"| {name} | {size:,} | {batches} | {rate:,.0f} | {mean:,.0f} ({low:,.0f}-"
              f"{high:,.0f}) | {whole:,.0f} | {per_word} | {load:.1f} |")
    for prefix, label in (("k", "kslab"), ("floor-k", "floor")):
        points = [(int(t.removeprefix(prefix)), steady(p, int(t.removeprefix(prefix)))[1])
                  for t, p in progress.items()
                  if t.startswith(prefix) and t.removeprefix(prefix).isdigit()]
        if len(points) > 1:
            fixed, per_word = fit(points)
            print(f"\n{label}: latency = {fixed:,.0f} ms + {per_word:.1f} us a word "
                  f"(least squares over {len(points)} sizes)")
    print_runs(progress)
    return 0


def repartition_topic(servers: str, prefix: str) -> str:
    """The repartition topic of the application whose topics start with ``prefix``."""
    from confluent_kafka.admin import AdminClient

    names = AdminClient({"bootstrap.servers": servers}).list_topics(timeout=10).topics
    return next(t for t in names if t.startswith(prefix) and t.endswith("-repartition"))


def print_runs(progress: dict[str, list[dict]]) -> None:
    """Each run's micro-batches (``print_batches``) under its name."""
    for name, batches in progress.items():
        print(f"\n{name}:")
        print_batches(batches)


def print_batches(progress: list[dict]) -> None:
    """A run's micro-batches: words, latency (Spark's ``triggerExecution``) split into the
    offsets, planning and the run with its Kafka writes, and words/s."""
    print("\n| micro-batch | words | latency ms | of which: offsets, planning, run + write | "
          "words/s |\n|---:|---:|---:|---|---:|")
    for i, p in enumerate(progress):
        d = p["durationMs"]
        ms = d["triggerExecution"]
        parts = ", ".join(f"{d.get(k, 0):,}" for k in ("latestOffset", "queryPlanning",
                                                         "addBatch"))
        print(f"| {i} | {p['numInputRows']:,} | {ms:,} | {parts} | "
              f"{p['numInputRows'] * 1000 / ms:,.0f} |")


def main(argv: list[str] | None = None) -> int:
    """Run the three contestants once and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--streaming", action="store_true")
    parser.add_argument("--sizes", default="10000,50000,100000",
                        help="streaming: records a micro-batch, comma separated")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--words", type=int, default=10_000, help="vocabulary size")
    parser.add_argument("--no-bulk", action="store_true",
                        help="batch: run_batch with kslab.spark.bulk False (record by record)")
    parser.add_argument("--floor", action="store_true",
                        help="streaming: the stateless floor after each size")
    parser.add_argument("--live", action="store_true",
                        help="streaming: KafkaStreams over the same lines, first and last")
    parser.add_argument("--live-child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.live_child:
        live_child(*args.live_child)
        return 0
    if args.streaming:
        return main_streaming(args.records, [int(x) for x in args.sizes.split(",")],
                              args.words, args.floor, args.live)
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
