"""Batch replay of the DSL word count on Spark (local[1], local[2]) beside the test driver.

One run over the same records: ``--records`` lines (2 words each from a 10,000-word vocabulary)
in 2 Kafka partitions, read from Parquet (one file per partition). Spark runs
``kslab.spark.run_batch`` and writes every output record to Spark's ``noop`` sink; the driver
pipes the same lines and keeps the output.
Run ``python bench/spark.py --records 1000000``; the printed table goes into bench/README.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
PARTITIONS = 2


def word_count() -> ks.Topology:
    """flat_map_values -> group_by(word) -> count -> to_stream -> to (two sub-topologies)."""
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(str.split)
     .group_by(lambda key, word: word, ks.Grouped.with_(S, S))
     .count(materialized=ks.Materialized.as_("counts").with_store_type("in_memory"))
     .to_stream()
     .to("counts", ks.Produced.with_(S, L)))
    return b.build()


def make_lines(n: int, seed: int = 1) -> list[tuple[int, int, bytes, bytes, int]]:
    """``n`` (partition, offset, key, value, timestamp) records of 2-word lines."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(10000)]
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


def run_spark(master: str, path: Path, scratch: Path) -> tuple[float, int]:
    """Seconds for run_batch + a full pass over its output on ``master``; output rows (one
    per word)."""
    from kslab.spark import run_batch, session

    spark = session(master, scratch_dir=scratch)
    spark.sparkContext.setLogLevel("ERROR")
    try:
        spark.read.parquet(str(path)).count()  # warm the session and the file cache
        started = time.perf_counter()
        out = run_batch(word_count(), {"lines": spark.read.parquet(str(path))},
                        partitions={"lines": PARTITIONS})["counts"]
        out.write.format("noop").mode("overwrite").save()
        return time.perf_counter() - started, 2 * spark.read.parquet(str(path)).count()
    finally:
        spark.stop()


def run_driver(rows: list[tuple[int, int, bytes, bytes, int]]) -> tuple[float, int]:
    """Seconds for the test driver (one task, in process) over the same lines; output rows."""
    lines = [ks.TestRecord(r[2].decode(), r[3].decode(), r[4]) for r in rows]
    started = time.perf_counter()
    with ks.TopologyTestDriver(word_count()) as driver:
        driver.create_input_topic("lines", S, S).pipe_record_list(lines)
        produced = driver.create_output_topic("counts", S, L).get_queue_size()
    return time.perf_counter() - started, produced


def main(argv: list[str] | None = None) -> int:
    """Run the three contestants once and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    rows = make_lines(args.records)
    results = []
    with tempfile.TemporaryDirectory(prefix="kslab-bench-spark-") as tmp:
        path = Path(tmp) / "lines"
        write_parquet(rows, path)
        for master in ("local[1]", "local[2]"):
            seconds, produced = run_spark(master, path, Path(tmp) / "scratch")
            results.append((f"Spark run_batch {master}", seconds, produced))
            print(f"{master}: {seconds:.1f} s, {produced} outputs", file=sys.stderr)
    seconds, produced = run_driver(rows)
    results.append(("TopologyTestDriver (in process, one task)", seconds, produced))
    base = results[0][1]
    print("| engine | seconds | input rec/s | outputs | vs local[1] |\n|---|---:|---:|---:|---:|")
    for name, seconds, produced in results:
        print(f"| {name} | {seconds:.1f} | {args.records / seconds:,.0f} | {produced:,} | "
              f"{base / seconds:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
