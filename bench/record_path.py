"""Programs the driver still runs record by record, written as users write them, timed.

Six idiomatic programs, three without a batch form (String keys, JSON values via
``kslab.serdes.Json``, default stores and record caches, user lambdas): **join** a
stream-stream windowed inner join of
two JSON topics (10 s, grace 1 s); **session** a session-window count (gap 5 s); **sliding** a
sliding-window count (10 s); **suppress** a 5 s tumbling count with
``suppress(until_window_closes)``; **tables** a table-table join; **papi** a Processor API word
count (``process`` over a key-value store). Each runs in a ``TopologyTestDriver`` with 1 and 4
input partitions (``partitions={...}``), the inputs piped in chunks of 100 per topic, alternating
topics where there are two; the bulk path declines every chunk (``declined`` is checked), or is
off for the programs that have a batch form now (``BATCHED``: the join, suppress, tables).

Run ``.venv/bin/python bench/record_path.py [--records 20000] [--runs 3] [--only join,papi]``;
``--profile join`` prints cProfile's top functions by tottime instead; ``--batch`` times the
programs that have a batch form now (``BATCHED``: join, suppress, tables) on the record path
against the batch path, in alternating rounds, by CPU time; ``--calls`` counts Python function
calls (deterministic, load-independent) instead of timing. ``--compare TREE TREE`` runs this
script under each tree's ``kslab`` (``PYTHONPATH``) alternately, ``--runs`` rounds each timed
by CPU time (``--cpu``), and prints both trees' medians and their ratio: the before/after
table of bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from _harness import interleaved  # bench/ is the script's directory

import kslab as ks
from kslab.serdes import Json, Long, String

S, J = String(), Json()
T0 = 1_700_000_000_000
SEC = dt.timedelta(seconds=1)
CHUNK = 100  # records per pipe call and topic, so two-topic programs interleave their inputs

Input = dict[str, list[ks.TestRecord]]  # topic -> its records, in time order


# -- data ------------------------------------------------------------------------------------------


def events(n: int, keys: int, step: int, seed: int) -> list[ks.TestRecord]:
    """``n`` JSON events over ``keys`` user keys, ``step`` ms apart on average (0-3 ms jitter)."""
    rng = random.Random(seed)
    return [ks.TestRecord(f"user-{rng.randrange(keys)}",
                          {"id": i, "amount": round(rng.uniform(0, 100), 2),
                           "page": f"/p/{rng.randrange(50)}"},
                          T0 + i * step + rng.randint(0, 3)) for i in range(n)]


def lines(n: int, seed: int = 7) -> list[ks.TestRecord]:
    """``n`` JSON lines of 4-8 words from 2,000 words."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(2_000)]
    return [ks.TestRecord(f"doc-{i}", {"line": " ".join(rng.choices(vocab, k=rng.randint(4, 8)))},
                          T0 + i) for i in range(n)]


# -- the programs ----------------------------------------------------------------------------------


def stream_join() -> ks.Topology:
    b = ks.StreamsBuilder()
    clicks = b.stream("clicks", ks.Consumed.with_(S, J))
    views = b.stream("views", ks.Consumed.with_(S, J))
    (clicks.join(views, lambda c, v: {"click": c["id"], "view": v["id"], "page": v["page"]},
                 ks.JoinWindows.of_time_difference_and_grace(10 * SEC, SEC),
                 ks.StreamJoined.with_(S, J, J))
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def session_count() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key()
     .windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(5 * SEC, SEC))
     .count()
     .to_stream()
     .map(lambda wk, n: (wk.key, {"start": wk.window.start, "end": wk.window.end, "n": n}))
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def sliding_count() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key()
     .windowed_by(ks.SlidingWindows.of_time_difference_and_grace(10 * SEC, SEC))
     .count()
     .to_stream()
     .map(lambda wk, n: (wk.key, {"start": wk.window.start, "end": wk.window.end, "n": n}))
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def suppressed_count() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, J))
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(5 * SEC, SEC))
     .count()
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()))
     .to_stream()
     .map(lambda wk, n: (wk.key, {"start": wk.window.start, "n": n}))
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


def table_join() -> ks.Topology:
    b = ks.StreamsBuilder()
    users = b.table("users", ks.Consumed.with_(S, J))
    totals = b.table("totals", ks.Consumed.with_(S, J))
    (users.join(totals, lambda u, t: {"user": u["id"], "amount": t["amount"]})
     .to_stream()
     .to("out", ks.Produced.with_(S, J)))
    return b.build()


class WordCount(ks.Processor):
    """Counts the words of JSON lines in a key-value store and forwards every new count."""

    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store("word-counts")

    def process(self, record: ks.Record) -> None:
        for word in record.value["line"].split():
            n = (self.store.get(word) or 0) + 1
            self.store.put(word, n)
            self.context.forward(record.with_key(word).with_value(n))


def papi_word_count() -> ks.Topology:
    store = ks.Stores.key_value_store_builder(
        ks.Stores.persistent_key_value_store("word-counts"), S, Long())
    return (ks.Topology()
            .add_source("lines", "in", key_serde=S, value_serde=J)
            .add_processor("count", WordCount, "lines")
            .add_state_store(store, "count")
            .add_sink("sink", "out", "count", key_serde=S, value_serde=Long()))


# name -> (title, topology, inputs(n), output value serde)
PROGRAMS: dict[str, tuple[str, Callable[[], ks.Topology], Callable[[int], Input], Any]] = {
    "join": ("stream-stream join, 10 s window", stream_join,
             lambda n: {"clicks": events(n // 2, 500, 2, 11), "views": events(n // 2, 500, 2, 12)},
             J),
    "session": ("session-window count, 5 s gap", session_count,
                lambda n: {"in": events(n, 1_000, 1, 13)}, J),
    "sliding": ("sliding-window count, 10 s", sliding_count,
                lambda n: {"in": events(n, 1_000, 1, 14)}, J),
    "suppress": ("5 s window count, suppress until close", suppressed_count,
                 lambda n: {"in": events(n, 1_000, 1, 15)}, J),
    "tables": ("table-table join", table_join,
               lambda n: {"users": events(n // 2, 2_000, 2, 16),
                          "totals": events(n // 2, 2_000, 2, 17)}, J),
    "papi": ("Processor API word count", papi_word_count, lambda n: {"in": lines(n)}, Long()),
}


# programs that have a batch form now: timed here on the record path (the bulk path off), and
# against the batch path with --batch
BATCHED = {"join", "suppress", "tables"}


def run(name: str, data: Input, partitions: int, bulk: bool | None = None) -> int:
    """Pipe ``data`` through program ``name`` (chunks of ``CHUNK``, topics alternating), read
    every output back decoded; the number of outputs. ``bulk``: the driver's bulk path on or
    off (``None``: off for ``BATCHED`` programs, else the default, and fails if a chunk ran on
    the bulk path)."""
    _title, topology, _inputs, out_serde = PROGRAMS[name]
    parts = {topic: partitions for topic in data} if partitions > 1 else None
    config: dict[str, Any] = {"application.id": name}
    if bulk is None and name in BATCHED:
        bulk = False
    if bulk is not None:
        config["kslab.driver.bulk"] = bulk
    with ks.TopologyTestDriver(topology(), config, partitions=parts) as driver:
        topics = {topic: driver.create_input_topic(topic, S, J) for topic in data}
        longest = max(len(records) for records in data.values())
        for start in range(0, longest, CHUNK):
            for topic, records in data.items():
                if start < len(records):
                    topics[topic].pipe_record_list(records[start:start + CHUNK])
        if bulk is None and driver.bulk_stats()["chunks"]:  # which path ran
            raise SystemExit(f"{name}: the bulk path took a chunk; this bench is for the other")
        return len(driver.create_output_topic("out", S, out_serde).read_key_values_to_list())


def measure(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    """Input rec/s of each chosen program at 1 and 4 partitions (median of ``--runs``
    alternating rounds, ``_harness.interleaved``; with ``--cpu`` the process's CPU time, which
    other sessions' load on these shared machines disturbs less), and the output counts:
    ``{name: {"1": [rate, outputs], "4": [...]}}``."""
    results: dict[str, dict[str, list[float]]] = {}
    for name in args.only:
        data = PROGRAMS[name][2](args.records)
        n = sum(len(records) for records in data.values())
        if args.calls:
            results[name] = {str(p): calls(name, data, p) for p in (1, 4)}
            continue
        one, four = interleaved(args.runs, lambda d=data, m=name: run(m, d, 1),
                                lambda d=data, m=name: run(m, d, 4),
                                clock=time.process_time if args.cpu else time.perf_counter)
        results[name] = {"1": [n / one[0], one[1]], "4": [n / four[0], four[1]]}
    return results


def batch(args: argparse.Namespace) -> None:
    """The record path against the batch path of each chosen ``BATCHED`` program, at 1 and 4
    partitions, in alternating rounds in this process, timed by CPU time; their medians and
    ratio (the output counts must agree)."""
    load_before = os.getloadavg()
    print("| program | partitions | record path rec/s | batch rec/s | batch / record |")
    print("|---|---:|---:|---:|---:|")
    for name in args.only:
        if name not in BATCHED:
            continue
        data = PROGRAMS[name][2](args.records)
        n = sum(len(records) for records in data.values())
        for parts in (1, 4):
            record, batched = interleaved(
                args.runs, lambda d=data, m=name, p=parts: run(m, d, p, bulk=False),
                lambda d=data, m=name, p=parts: run(m, d, p, bulk=True), clock=time.process_time)
            if record[1] != batched[1]:
                raise SystemExit(f"{name}: the output counts differ: {record[1]}, {batched[1]}")
            print(f"| {PROGRAMS[name][0]} | {parts} | {n / record[0]:,.0f} | "
                  f"{n / batched[0]:,.0f} | {record[0] / batched[0]:.2f}x |")
    print(f"\nCPU time, median of {args.runs} alternating rounds, --records {args.records:,}; "
          f"load average {'/'.join(f'{x:.2f}' for x in load_before)} before, "
          f"{'/'.join(f'{x:.2f}' for x in os.getloadavg())} after")


def calls(name: str, data: Input, partitions: int) -> list[float]:
    """``[Python function calls, outputs]`` of one run (cProfile's count: deterministic, so
    two trees compare without the machine's load; C-level work is not counted)."""
    prof = cProfile.Profile()
    outputs = prof.runcall(run, name, data, partitions)
    return [pstats.Stats(prof, stream=io.StringIO()).total_calls, outputs]


def compare(args: argparse.Namespace) -> None:
    """Each tree's ``kslab`` in its own subprocess, trees alternating, ``--runs`` rounds."""
    rates: dict[str, list[dict[str, dict[str, list[float]]]]] = {t: [] for t in args.compare}
    load_before = os.getloadavg()
    for round_ in range(args.runs):
        trees = args.compare if round_ % 2 == 0 else list(reversed(args.compare))
        for tree in trees:
            env = {**os.environ, "PYTHONPATH": tree}
            flags = ["--calls"] if args.calls else ["--cpu"]
            out = subprocess.run([sys.executable, __file__, "--json", "--runs", "1", *flags,
                                  "--records", str(args.records), "--only", ",".join(args.only)],
                                 env=env, capture_output=True, text=True, check=True).stdout
            rates[tree].append(json.loads(out))
    load_after = os.getloadavg()
    before, after = args.compare
    what = "Python calls" if args.calls else "rec/s"
    print(f"| program | partitions | before {what} | after {what} | ratio (faster: > 1) |")
    print("|---|---:|---:|---:|---:|")
    for name in args.only:
        for parts in ("1", "4"):
            b = statistics.median(r[name][parts][0] for r in rates[before])
            a = statistics.median(r[name][parts][0] for r in rates[after])
            counts = {r[name][parts][1] for t in args.compare for r in rates[t]}
            if len(counts) != 1:
                raise SystemExit(f"{name}: the trees' output counts differ: {counts}")
            ratio = b / a if args.calls else a / b
            print(f"| {PROGRAMS[name][0]} | {parts} | {b:,.0f} | {a:,.0f} | {ratio:.2f}x |")
    measured = "Python calls" if args.calls else "CPU time"
    print(f"\n{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, {measured}, "
          f"median of {args.runs} alternating rounds, --records {args.records:,}; load average "
          f"{'/'.join(f'{x:.2f}' for x in load_before)} before, "
          f"{'/'.join(f'{x:.2f}' for x in load_after)} after; before = {before}, "
          f"after = {after}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000, help="input records per program")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(PROGRAMS), help="programs, comma-separated")
    parser.add_argument("--profile", choices=list(PROGRAMS), help="cProfile this program")
    parser.add_argument("--partitions", type=int, default=1, help="for --profile")
    parser.add_argument("--compare", nargs=2, metavar="TREE", help="before and after trees")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--cpu", action="store_true", help="time by CPU time (process_time)")
    parser.add_argument("--batch", action="store_true",
                        help="time the record path against the batch path (BATCHED programs)")
    parser.add_argument("--calls", action="store_true",
                        help="count Python function calls (cProfile) instead of timing")
    args = parser.parse_args()
    args.only = [name.strip() for name in args.only.split(",")]
    if args.compare:
        compare(args)
        return
    if args.batch:
        batch(args)
        return
    if args.profile:
        data = PROGRAMS[args.profile][2](args.records)
        run(args.profile, data, args.partitions)  # warm up
        prof = cProfile.Profile()
        prof.runcall(run, args.profile, data, args.partitions)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    results = measure(args)
    if args.json:
        print(json.dumps(results))
        return
    what = "Python calls" if args.calls else "rec/s"
    print(f"| program | 1 partition {what} | 4 partitions {what} | outputs |")
    print("|---|---:|---:|---:|")
    for name, result in results.items():
        print(f"| {PROGRAMS[name][0]} | {result['1'][0]:,.0f} | {result['4'][0]:,.0f} | "
              f"{result['1'][1]:,.0f} |")
    print(f"\nload average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}; kslab from "
          f"{os.path.dirname(os.path.dirname(os.path.abspath(ks.__file__)))}")


if __name__ == "__main__":
    main()
