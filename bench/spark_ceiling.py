"""What Spark streaming can give a word count on this machine: kslab beside two plain queries.

One run, one LocalBroker (2 partitions), one SparkSession (local[2]), the same ``--records``
2-word lines (a ``--words`` vocabulary, so the store passes 100,000 keys early), three
contestants in turn, each micro-batch ``--per-batch`` words (lines for the line-reading queries,
half as many):

(a) **floor**: one query reading the lines, splitting them into words (Spark's ``explode``) and
    writing each word to Kafka with an 8-byte value: what reading, splitting and writing cost,
    with no state and no Python stateful operator.
(b) **plain count**: one query reading the lines, splitting them, grouping the words by their
    Kafka partition (one group key per partition, spread over the shuffle partitions as kslab
    spreads its tasks) into a hand-written ``transformWithStateInPandas`` count: words in offset
    order, a dict cache over ``MapState`` (one ``getValue`` per distinct word a micro-batch, the
    changed counts written back once, at its end, one ``updateValue`` each), every update
    written to Kafka. The notes' design (``../shared/notes/spark.md``), at this store size.
(c) **kslab**: the DSL word count (``kslab.spark.start``): a splitting query writing the
    repartition topic, then the counting query reading it (``bench/spark.py --streaming``).

For each: steady words/s (full micro-batches after the first two) and latency (Spark's
``triggerExecution``) of the query holding the count (the only query for (a), (b); the
counting query for (c)); the whole run's words/s (every query, from the first start to the last
end); CPU us a word (the JVM and Python workers over the run); the load average at the start.
Every contestant's output is checked: one record per word. The micro-batch tables count input
rows: lines for (a) and (b), words for (c). Run
``.venv/bin/python bench/spark_ceiling.py`` (about 10 minutes on two quiet cores).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from spark import (
    CHANGELOG,
    PARTITIONS,
    check_counts,
    create_topic,
    make_lines,
    print_runs,
    produce_lines,
    run_streaming,
    spark_cpu,
    steady,
)


def plain_count() -> object:
    """(b): a hand-written count per Kafka partition, a dict cache over ``MapState``."""
    import pandas as pd
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class Count(StatefulProcessor):
        def init(self, handle: Any) -> None:
            self.state = handle.getMapState("counts", "word binary", "count long")

        def handleInputRows(self, key, rows, timerValues):  # noqa: N802, N803
            frame = pd.concat(list(rows), ignore_index=True).sort_values(
                ["offset", "pos"], kind="stable")
            state, cache = self.state, {}
            words = frame["key"].tolist()
            counts = []
            for word in words:
                count = cache.get(word)
                if count is None:
                    got = state.getValue((word,))
                    count = 0 if got is None else got[0]
                count += 1
                cache[word] = count
                counts.append(count)
            for word, count in cache.items():
                state.updateValue((word,), (count,))
            yield pd.DataFrame({"key": words,
                                "value": [c.to_bytes(8, "big") for c in counts]})

        def close(self) -> None:
            pass

    return Count()


def lines_frame(spark: Any, servers: str, lines: str, per_batch: int) -> Any:
    """The lines topic as a stream of words: key (the word), offset and its place in the line."""
    from pyspark.sql import functions as sf

    return (spark.readStream.format("kslab-kafka")
            .option("kafka.bootstrap.servers", servers).option("subscribe", lines)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", str(per_batch // 2)).load()
            .select("offset", sf.posexplode(sf.split(sf.col("value").cast("string"), " ")))
            .select("offset", "pos", sf.col("col").cast("binary").alias("key")))


def run_query(spark: Any, servers: str, lines: str, tag: str, per_batch: int, scratch: Path,
              stateful: bool) -> tuple[float, list[dict]]:
    """(a) or (b) over ``lines`` into the topic ``counts-<tag>``: seconds and micro-batches."""
    from pyspark.sql import functions as sf

    from kslab.spark._groups import spread_keys

    create_topic(servers, f"counts-{tag}")
    words = lines_frame(spark, servers, lines, per_batch)
    if stateful:
        keys = spread_keys(PARTITIONS, PARTITIONS)
        # the word's Kafka partition decides its group: Spark's hash stands in for murmur2
        # here (which partition counts which word does not change the cost)
        task = sf.pmod(sf.hash("key"), sf.lit(PARTITIONS))
        out = (words.withColumn("_task", sf.element_at(sf.array(*map(sf.lit, keys)), task + 1))
               .groupBy("_task").transformWithStateInPandas(
                   plain_count(), "key binary, value binary", "Append", "None"))
    else:
        out = words.select("key", sf.lit(b"\0" * 8).alias("value"))
    spark.conf.set("spark.sql.shuffle.partitions", str(PARTITIONS))
    started = time.perf_counter()
    query = (out.writeStream.format("kslab-kafka").option("kafka.bootstrap.servers", servers)
             .option("topic", f"counts-{tag}")
             .option("checkpointLocation", str(scratch / tag))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return time.perf_counter() - started, [p for p in query.recentProgress if p["numInputRows"]]


def attempts(run: Any, tag: str, tries: int = 8) -> tuple[str, Any]:
    """``run(tag)``, again under a new tag (a new checkpoint and output topic) while Spark gives
    up on a Python worker starting (its fixed 10 s to connect back, which a loaded machine
    exceeds); the tag that ran and what it gave."""
    for attempt in range(tries):
        name = tag if attempt == 0 else f"{tag}r{attempt}"
        try:
            return name, run(name)
        except Exception as exc:
            if "failed to connect back" not in str(exc) or attempt == tries - 1:
                raise
            print(f"{name}: a Python worker did not connect back in time; again",
                  file=sys.stderr)
    raise AssertionError  # (unreachable)


def main(argv: list[str] | None = None) -> int:
    """Run (a), (b), (c) once each over the same lines and print one table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=550_000, help="lines (2 words each)")
    parser.add_argument("--words", type=int, default=100_000, help="vocabulary size")
    parser.add_argument("--per-batch", type=int, default=100_000, help="words a micro-batch")
    parser.add_argument("--only", default="abc", help="which contestants, e.g. 'bc'")
    args = parser.parse_args(argv)
    from kslab.runtime import LocalBroker
    from kslab.spark import session
    from kslab.spark.kafka import register

    rows = make_lines(args.records, words=args.words)
    total = 2 * args.records
    distinct = len({w for r in rows for w in r[3].split()})
    print(f"{args.records:,} lines, {total:,} words, {distinct:,} distinct, {PARTITIONS} "
          f"partitions, local[2], {args.per_batch:,} words a micro-batch", file=sys.stderr)
    results, progress = [], {}
    with tempfile.TemporaryDirectory(prefix="kslab-bench-ceiling-") as tmp, \
            LocalBroker() as broker:
        servers = broker.bootstrap_servers
        produce_lines(servers, "lines", rows)
        spark = session("local[2]", scratch_dir=Path(tmp) / "scratch")
        spark.sparkContext.setLogLevel("ERROR")
        spark.conf.set(CHANGELOG, "false")
        register(spark)
        n = args.per_batch
        contestants = {
            "a": ("(a) floor: read, split, write", n // 2, lambda t: (*run_query(
                spark, servers, "lines", t, n, Path(tmp), False), None)),
            "b": ("(b) plain transformWithStateInPandas count", n // 2, lambda t: (*run_query(
                spark, servers, "lines", t, n, Path(tmp), True), None)),
            "c": ("(c) kslab DSL word count", n, lambda t: run_streaming(
                spark, servers, "lines", t, n, Path(tmp), total)),
        }
        try:
            for letter in args.only:
                name, rows_a_batch, run = contestants[letter]
                load = os.getloadavg()[0]
                cpu = sum(spark_cpu())
                tag, (seconds, batches, _) = attempts(run, f"{letter}{n}")
                cpu = sum(spark_cpu()) - cpu
                check_counts(servers, f"counts-{tag}", total)
                progress[name] = batches
                rate, mean, low, high = steady(batches, rows_a_batch)
                rate *= n / rows_a_batch  # words, not lines
                results.append((name, len(batches), rate, mean, low, high, total / seconds,
                                cpu * 1e6 / total, load, os.getloadavg()[0]))
                print(f"{name}: {seconds:.1f} s, steady {rate:,.0f} words/s, {mean:,.0f} ms "
                      f"(load {load:.1f})", file=sys.stderr)
        finally:
            spark.stop()
    print("| contestant | micro-batches | steady words/s | latency ms mean (min-max) | "
          "whole run words/s | CPU us a word | load start / end |\n"
          "|---|---:|---:|---:|---:|---:|---:|")
    for name, count, rate, mean, low, high, whole, cpu, load, end in results:
        print(f"| {name} | {count} | {rate:,.0f} | {mean:,.0f} ({low:,.0f}-{high:,.0f}) | "
              f"{whole:,.0f} | {cpu:,.0f} | {load:.1f} / {end:.1f} |")
    print_runs(progress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
