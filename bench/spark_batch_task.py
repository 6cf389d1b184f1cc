"""Batch replay's word count tasks alone: the Python workers' own CPU per line, no JVM.

``bench/spark.py`` runs ``run_batch`` on Spark and reads the workers' CPU from /proc, a figure
that moves with the neighbours and the JIT. This runs the same two stages' task functions
(``kslab.spark._batch.stage_function``: what ``mapInArrow`` calls in a Python worker) in
process over the Arrow batches Spark would hand them: stage 0 (split, group by word: the
repartition) one task per Kafka partition over 10,000-row batches of the lines; stage 1 (the
count) one task per partition over stage 0's rows of that partition, sorted as Spark sorts
them (mark, writing task, sequence). ``--ipc`` adds what PySpark's worker does around the
function: each batch read from and written to an Arrow IPC stream. The test driver runs the
same lines in the same run (one task, in process). CPU is ``time.process_time``: the work
itself, whatever the load. Run ``.venv/bin/python bench/spark_batch_task.py --records
200000``; ``--profile`` prints cProfile's top entries of the two stages.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from dsl_wordcount import dsl_topology as word_count  # seed 004's word count
from spark import PARTITIONS, make_lines, run_driver

from kslab.spark._batch import FED_COLUMNS, stage_function
from kslab.spark._plan import SparkPlan

SPARK_BATCH = 10_000  # spark.sql.execution.arrow.maxRecordsPerBatch's default


def fed_schema() -> pa.Schema:
    """The columns a stage task is fed (``_batch.FED_COLUMNS``), as Spark types them."""
    types = {"_q": pa.int32(), "partition": pa.int32(), "offset": pa.int64(),
             "timestamp": pa.int64(), "key": pa.binary(), "value": pa.binary(),
             "headers": pa.string()}
    return pa.schema([(name, types[name]) for name in FED_COLUMNS])


def batches_of(table: pa.Table) -> list[pa.RecordBatch]:
    """``table`` as Spark hands it to ``mapInArrow``: record batches of ``SPARK_BATCH`` rows."""
    return table.combine_chunks().to_batches(max_chunksize=SPARK_BATCH)


def line_tables(rows: list[tuple[int, int, bytes, bytes, int]]) -> list[pa.Table]:
    """Stage 0's input per Kafka partition, in offset order."""
    tables = []
    for p in range(PARTITIONS):
        part = [r for r in rows if r[0] == p]
        n = len(part)
        tables.append(pa.table({
            "_q": pa.array([0] * n, pa.int32()), "partition": pa.array([p] * n, pa.int32()),
            "offset": pa.array([r[1] for r in part], pa.int64()),
            "timestamp": pa.array([r[4] for r in part], pa.int64()),
            "key": pa.array([r[2] for r in part], pa.binary()),
            "value": pa.array([r[3] for r in part], pa.binary()),
            "headers": pa.nulls(n, pa.string())}, schema=fed_schema()))
    return tables


def shuffled(outputs: list[pa.RecordBatch]) -> list[pa.Table]:
    """Stage 0's output rows as stage 1's input per partition, sorted as the shuffle sorts
    them (``_batch._internal_frame``: mark, writing task, sequence)."""
    rows = pa.Table.from_batches(outputs)
    tables = []
    for p in range(PARTITIONS):
        part = rows.filter(pc.equal(rows["partition"], p)).sort_by(
            [("mark", "ascending"), ("task", "ascending"), ("seq", "ascending")])
        n = part.num_rows
        tables.append(pa.table({
            "_q": pa.array([0] * n, pa.int32()), "partition": part["partition"],
            "offset": pa.array([-1] * n, pa.int64()), "timestamp": part["timestamp"],
            "key": part["key"], "value": part["value"], "headers": part["headers"]},
            schema=fed_schema()))
    return tables


def through_ipc(batches: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Each batch written to and read back from an Arrow IPC stream, as a worker reads them."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batches[0].schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    yield from pa.ipc.open_stream(sink.getvalue())


def run_task(run: Callable[[Iterator[Any]], Iterator[Any]], table: pa.Table,
             ipc: bool) -> tuple[float, list[pa.RecordBatch]]:
    """CPU seconds of one task over ``table`` and its output batches."""
    batches = batches_of(table)
    cpu = time.process_time()
    fed = through_ipc(batches) if ipc else iter(batches)
    out = list(run(fed))
    if ipc and out:
        out = list(through_ipc(out))
    return time.process_time() - cpu, out


def run_stages(rows: list[tuple[int, int, bytes, bytes, int]], ipc: bool,
               profile: cProfile.Profile | None = None) -> tuple[float, float, int]:
    """CPU seconds of stage 0's and stage 1's tasks (all partitions) and the outputs."""
    plan = SparkPlan.build(word_count(), "kslab-spark", {"lines": PARTITIONS})
    first, second = plan.stages
    if profile is not None:
        profile.enable()
    cpu0, out0 = 0.0, []
    for table in line_tables(rows):
        cpu, out = run_task(stage_function(plan, first, {}), table, ipc)
        cpu0 += cpu
        out0 += out
    cpu1, produced = 0.0, 0
    for table in shuffled(out0):
        cpu, out = run_task(stage_function(plan, second, {}), table, ipc)
        cpu1 += cpu
        produced += sum(b.num_rows for b in out)
    if profile is not None:
        profile.disable()
    return cpu0, cpu1, produced


def main(argv: list[str] | None = None) -> int:
    """Time both stages and the driver in alternating rounds; print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ipc", action="store_true",
                        help="add the Arrow IPC reads and writes of PySpark's worker")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    rows = make_lines(args.records)
    if args.profile:
        profile = cProfile.Profile()
        run_stages(rows, args.ipc, profile)
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        return 0
    run_stages(make_lines(20_000, seed=2), args.ipc)  # warm: imports, first plans
    loads, s0, s1, drv = [os.getloadavg()[0]], [], [], []
    produced = 0
    for _ in range(args.rounds):
        cpu0, cpu1, produced = run_stages(rows, args.ipc)
        s0.append(cpu0)
        s1.append(cpu1)
        drv.append(run_driver(rows)[2])
    loads.append(os.getloadavg()[0])
    n = args.records
    stage0, stage1, driver = (statistics.median(x) / n * 1e6 for x in (s0, s1, drv))
    print(f"{n:,} lines, {produced:,} outputs, median of {args.rounds}, load "
          f"{loads[0]:.1f} -> {loads[1]:.1f}{', with IPC' if args.ipc else ''}")
    print("| part | CPU us a line |\n|---|---:|")
    print(f"| Spark stage 0 tasks (split, repartition) | {stage0:.2f} |")
    print(f"| Spark stage 1 tasks (count) | {stage1:.2f} |")
    print(f"| Spark workers' tasks, both stages | {stage0 + stage1:.2f} |")
    print(f"| TopologyTestDriver (one task) | {driver:.2f} |")
    print(f"| workers / driver | {(stage0 + stage1) / driver:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
