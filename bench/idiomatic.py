"""Issue 19's measuring stick: three workloads written as a user would, side by side.

W1 filters JSON orders (``amount > 50``) and adds ``amount_x2``; W2 counts the words of JSON
lines and emits every update; W3 counts records per key in 60 s tumbling windows (grace 1 s) and
emits every update as JSON ``{"start", "end", "value"}``. Each workload runs, on the same data
in the same process, a plain loop, polars, Bytewax 0.21.1 (skipped when not installed:
``.venv/bin/pip install bytewax==0.21.1``) and kslab's ``TopologyTestDriver`` with the DSL as
the docs write it (String keys, JSON values, default stores, record cache and store type),
contestants alternating every round (``_harness.interleaved``). The outputs of contestants with
the same semantics are counted and must agree.

Run ``.venv/bin/python bench/idiomatic.py --runs 3`` (``make bench-idiomatic``); the printed
table goes into bench/README.md. ``--profile w2`` prints cProfile's top functions of the kslab
driver's 1-partition row instead.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import os
import pstats
import random
import string
import struct
from collections.abc import Callable
from typing import Any

import orjson
from _harness import interleaved  # bench/ is the script's directory

import kslab as ks
from kslab.serdes import Json, Long, String

SIZE, GRACE = 60_000, 1_000  # W3's window and grace, ms
T0 = 1_700_000_000_000  # W3's first timestamp
LONG = struct.Struct(">q").pack

Row = tuple[bytes, bytes]  # a serialized (key, value), as a consumer gets it
Contestant = tuple[str, str, Callable[[], int]]  # (kind, label, run) -> number of outputs


# -- data: the user's objects and the same records serialized --------------------------------------


def make_w1(n: int, seed: int = 1) -> list[tuple[str, dict[str, Any]]]:
    """``n`` orders keyed by user: ``{"id", "amount", "user", "country", "ts"}``."""
    rng = random.Random(seed)
    countries = ["NL", "DE", "FR", "BE", "ES", "IT", "PL", "SE"]
    out = []
    for i in range(n):
        user = f"u{rng.randrange(10_000)}"
        out.append((user, {"id": i, "amount": round(rng.uniform(0, 100), 2), "user": user,
                           "country": rng.choice(countries), "ts": T0 + i}))
    return out


def make_w2(n: int, seed: int = 2, vocabulary: int = 5_000) -> list[tuple[str, dict[str, str]]]:
    """``n`` lines of 6-10 words from a ``vocabulary``-word vocabulary (5,000), Zipf-like:
    ``{"line": ...}``."""
    rng = random.Random(seed)
    vocab = sorted({"".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9)))
                    for _ in range(vocabulary * 26 // 25)})[:vocabulary]
    rng.shuffle(vocab)
    cum, total = [], 0.0
    for rank in range(len(vocab)):
        total += 1 / (rank + 1)
        cum.append(total)
    return [(f"doc{i}", {"line": " ".join(rng.choices(vocab, cum_weights=cum,
                                                      k=rng.randint(6, 10)))})
            for i in range(n)]


def make_w3(n: int, seed: int = 3) -> list[tuple[str, dict[str, Any], int]]:
    """``n`` page views over 1,000 keys, timestamps rising 1 ms per record with 0-4 ms jitter."""
    rng = random.Random(seed)
    keys = [f"sensor-{i}" for i in range(1000)]
    return [(rng.choice(keys), {"page": f"/p/{rng.randrange(100)}", "ms": rng.randrange(1000)},
             T0 + i + rng.randint(0, 4)) for i in range(n)]


def serialized(pairs: list[tuple[str, Any]]) -> list[Row]:
    """What a consumer reads: the key's UTF-8 and the value's JSON (orjson, as kslab's Json)."""
    dumps = orjson.dumps
    return [(k.encode(), dumps(v)) for k, v in pairs]


# -- plain loops: bytes in, bytes out, orjson ------------------------------------------------------


def loop_w1(rows: list[Row]) -> int:
    loads, dumps = orjson.loads, orjson.dumps
    out = []
    for key, value in rows:
        order = loads(value)
        if order["amount"] > 50:
            order["amount_x2"] = order["amount"] * 2
            out.append((key, dumps(order)))
    return len(out)


def loop_w2(rows: list[Row]) -> int:
    loads = orjson.loads
    counts: dict[str, int] = {}
    out = []
    for _key, value in rows:
        for word in loads(value)["line"].split():
            n = counts.get(word, 0) + 1
            counts[word] = n
            out.append((word.encode(), LONG(n)))
    return len(out)


def loop_w3(rows: list[tuple[bytes, bytes, int]]) -> int:
    loads, dumps = orjson.loads, orjson.dumps
    counts: dict[tuple[bytes, int], int] = {}
    out = []
    stream_time = -1
    for key, value, ts in rows:
        loads(value)  # a JSON consumer decodes it (the count does not read it)
        if ts > stream_time:
            stream_time = ts
        start = ts - ts % SIZE
        if start + SIZE <= stream_time - GRACE:  # later than the grace: dropped, as Kafka does
            continue
        n = counts.get((key, start), 0) + 1
        counts[(key, start)] = n
        out.append((key, dumps({"start": start, "end": start + SIZE, "value": n})))
    return len(out)


# -- polars: the batch at once ---------------------------------------------------------------------


def polars_w1(rows: list[Row]) -> int:
    import polars as pl

    df = pl.read_ndjson(io.BytesIO(b"\n".join(v for _, v in rows)))
    df = df.with_columns(pl.Series("_key", [k for k, _ in rows], dtype=pl.Binary))
    kept = df.filter(pl.col("amount") > 50).with_columns(amount_x2=pl.col("amount") * 2)
    keys, values = kept["_key"].to_list(), kept.drop("_key").write_ndjson()
    assert values.count("\n") == len(keys)
    return len(keys)


def polars_w2(rows: list[Row]) -> int:
    import polars as pl

    lines = pl.read_ndjson(io.BytesIO(b"\n".join(v for _, v in rows)))
    words = lines.select(word=pl.col("line").str.split(" ")).explode("word")
    counts = words.with_columns(n=pl.col("word").cum_count().over("word"))
    return counts.write_ndjson().count("\n")


def polars_w3(rows: list[tuple[bytes, bytes, int]]) -> int:
    import polars as pl

    pl.read_ndjson(io.BytesIO(b"\n".join(v for _, v, _ in rows)))  # decoded, as by the others
    df = pl.DataFrame({"key": [k for k, _, _ in rows], "ts": [t for _, _, t in rows]},
                      schema={"key": pl.Binary, "ts": pl.Int64})
    df = df.with_columns(start=pl.col("ts") // SIZE * SIZE, stream_time=pl.col("ts").cum_max())
    df = df.filter(pl.col("start") + SIZE > pl.col("stream_time") - GRACE)
    out = df.select("key", start="start", end=pl.col("start") + SIZE,
                    value=pl.col("ts").cum_count().over("key", "start"))
    keys, values = out["key"].to_list(), out.drop("key").write_ndjson()
    assert values.count("\n") == len(keys)
    return len(keys)


# -- Bytewax 0.21.1: run_main over TestingSource(batch_size=1000) ----------------------------------


def bytewax_w1(rows: list[Row]) -> int:
    import bytewax.operators as op
    from bytewax.dataflow import Dataflow
    from bytewax.testing import TestingSink, TestingSource, run_main

    out: list[Row] = []
    flow = Dataflow("w1")
    stream = op.input("in", flow, TestingSource(rows, batch_size=1000))
    orders = op.map("parse", stream, lambda kv: (kv[0], orjson.loads(kv[1])))
    kept = op.filter("keep", orders, lambda kv: kv[1]["amount"] > 50)
    doubled = op.map("x2", kept,
                     lambda kv: (kv[0], {**kv[1], "amount_x2": kv[1]["amount"] * 2}))
    op.output("out", op.map("ser", doubled, lambda kv: (kv[0], orjson.dumps(kv[1]))),
              TestingSink(out))
    run_main(flow)
    return len(out)


def bytewax_w2(rows: list[Row]) -> int:
    import bytewax.operators as op
    from bytewax.dataflow import Dataflow
    from bytewax.testing import TestingSink, TestingSource, run_main

    def count(state: int | None, _word: str) -> tuple[int, int]:
        n = (state or 0) + 1
        return n, n

    out: list[Row] = []
    flow = Dataflow("w2")
    stream = op.input("in", flow, TestingSource(rows, batch_size=1000))
    words = op.flat_map("split", stream, lambda kv: orjson.loads(kv[1])["line"].split())
    counts = op.stateful_map("count", op.key_on("word", words, lambda w: w), count)
    op.output("out", op.map("ser", counts, lambda kv: (kv[0].encode(), LONG(kv[1]))),
              TestingSink(out))
    run_main(flow)
    return len(out)


def bytewax_w3(rows: list[tuple[bytes, bytes, int]]) -> int:
    """Every update: ``stateful_map`` keyed by key, holding a count per window start (Bytewax's
    window operators emit when a window closes). No late check: per key, not per partition."""
    import bytewax.operators as op
    from bytewax.dataflow import Dataflow
    from bytewax.testing import TestingSink, TestingSource, run_main

    def count(state: dict[int, int] | None, row: tuple[bytes, Any, int]) -> tuple[Any, bytes]:
        state = state or {}
        start = row[2] - row[2] % SIZE
        n = state[start] = state.get(start, 0) + 1
        return state, orjson.dumps({"start": start, "end": start + SIZE, "value": n})

    out: list[tuple[str, bytes]] = []
    flow = Dataflow("w3")
    stream = op.input("in", flow, TestingSource(rows, batch_size=1000))
    parsed = op.map("parse", stream, lambda r: (r[0], orjson.loads(r[1]), r[2]))
    keyed = op.key_on("key", parsed, lambda r: r[0].decode())
    op.output("out", op.stateful_map("count", keyed, count), TestingSink(out))
    run_main(flow)
    return len(out)


def bytewax_w3_windowed(rows: list[tuple[bytes, bytes, int]]) -> int:
    """Bytewax's own windowing: ``count_window`` (TumblingWindower 60 s, EventClock waiting
    1 s); it emits each window's count once, when the window closes."""
    import bytewax.operators as op
    from bytewax.dataflow import Dataflow
    from bytewax.operators.windowing import EventClock, TumblingWindower, count_window
    from bytewax.testing import TestingSink, TestingSource, run_main

    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    clock = EventClock(lambda r: epoch + dt.timedelta(milliseconds=r[2]),
                       wait_for_system_duration=dt.timedelta(milliseconds=GRACE))
    windower = TumblingWindower(length=dt.timedelta(milliseconds=SIZE), align_to=epoch)
    out: list[Any] = []
    flow = Dataflow("w3w")
    stream = op.input("in", flow, TestingSource(rows, batch_size=1000))
    parsed = op.map("parse", stream, lambda r: (r[0], orjson.loads(r[1]), r[2]))
    windows = count_window("count", parsed, clock, windower, key=lambda r: r[0].decode())
    op.output("out", windows.down, TestingSink(out))
    run_main(flow)
    return len(out)


# -- kslab: the DSL in the TopologyTestDriver, as the docs write it --------------------------------


def topology_w1(src: str = "in", dst: str = "out") -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream(src, ks.Consumed.with_(String(), Json()))
     .filter(lambda k, v: v["amount"] > 50)
     .map_values(lambda v: {**v, "amount_x2": v["amount"] * 2})
     .to(dst, ks.Produced.with_(String(), Json())))
    return b.build()


def topology_w2(src: str = "in", dst: str = "out") -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream(src, ks.Consumed.with_(String(), Json()))
     .flat_map_values(lambda v: v["line"].split())
     .group_by(lambda k, word: word, ks.Grouped.with_(String(), String()))
     .count()
     .to_stream()
     .to(dst, ks.Produced.with_(String(), Long())))
    return b.build()


def topology_w3(src: str = "in", dst: str = "out") -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream(src, ks.Consumed.with_(String(), Json()))
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(dt.timedelta(seconds=60),
                                                   dt.timedelta(seconds=1)))
     .count()
     .to_stream()
     .map(lambda wk, v: (wk.key, {"start": wk.window.start, "end": wk.window.end, "value": v}))
     .to(dst, ks.Produced.with_(String(), Json())))
    return b.build()


OUT_SERDES = {"w1": Json(), "w2": Long(), "w3": Json()}


CACHE_BYTES: dict[str, int] = {}  # statestore.cache.max.bytes when --cache-bytes is given


def run_kslab(workload: str, topology: Callable[[], ks.Topology], pipe: Callable[[Any], Any],
              partitions: int = 1, bulk: bool = True) -> int:
    """Build the topology, pipe the user's objects with ``pipe(input_topic)``, read back."""
    config: dict[str, Any] = {} if bulk else {"kslab.driver.bulk": False}
    if CACHE_BYTES:
        config["statestore.cache.max.bytes"] = CACHE_BYTES["size"]
    parts = {"in": partitions} if partitions > 1 else None
    with ks.TopologyTestDriver(topology(), config, partitions=parts) as driver:
        pipe(driver.create_input_topic("in", String(), Json()))
        out = driver.create_output_topic("out", String(), OUT_SERDES[workload])
        return len(out.read_key_values_to_list())


def kslab_rows(workload: str, topology: Callable[[], ks.Topology], pipe: Callable[[Any], Any],
               frame: Any, frame_value: list[str]) -> list[Contestant]:
    """The four kslab rows of a workload: 1 and 4 partitions, a pandas frame, the record path."""
    def run(pipe: Callable[[Any], Any], **kw: Any) -> Callable[[], int]:
        return lambda: run_kslab(workload, topology, pipe, **kw)

    piped = "pipe_record_list" if workload == "w3" else "pipe_key_value_list"
    return [
        ("kslab", f"kslab driver, 1 partition, {piped}", run(pipe)),
        ("kslab", f"kslab driver, 4 partitions, {piped}", run(pipe, partitions=4)),
        ("kslab", "kslab driver, 1 partition, pipe_dataframe (pandas)",
         run(lambda topic: topic.pipe_dataframe(frame, value=frame_value))),
        ("kslab-ref", f"kslab driver, 1 partition, {piped}, record path (bulk off)",
         run(pipe, bulk=False)),
    ]


# -- the table -------------------------------------------------------------------------------------


def workloads(args: argparse.Namespace) -> dict[str, tuple[str, int, list[Contestant]]]:
    """Each workload's title, input size and contestants, the data built once."""
    import pandas as pd

    built: dict[str, tuple[str, int, list[Contestant]]] = {}
    if "w1" in args.only:
        w1 = make_w1(args.records)
        rows1 = serialized(w1)
        frame1 = pd.DataFrame([{"key": k, **v} for k, v in w1])
        built["w1"] = ("W1 filter + map_values", len(w1), [
            ("loop", "plain loop (orjson)", lambda: loop_w1(rows1)),
            ("polars", "polars (read_ndjson, filter, with_columns)", lambda: polars_w1(rows1)),
            ("bytewax", "Bytewax map/filter/map", lambda: bytewax_w1(rows1)),
            *kslab_rows("w1", topology_w1, lambda topic: topic.pipe_key_value_list(w1), frame1,
                        ["id", "amount", "user", "country", "ts"]),
        ])
    if "w2" in args.only:
        w2 = make_w2(args.lines, vocabulary=args.vocabulary)
        rows2 = serialized(w2)
        frame2 = pd.DataFrame({"key": [k for k, _ in w2], "line": [v["line"] for _, v in w2]})
        built["w2"] = ("W2 word count, every update", len(w2), [
            ("loop", "plain loop (orjson)", lambda: loop_w2(rows2)),
            ("polars", "polars (split, explode, cum_count over word)", lambda: polars_w2(rows2)),
            ("bytewax", "Bytewax flat_map + stateful_map", lambda: bytewax_w2(rows2)),
            *kslab_rows("w2", topology_w2, lambda topic: topic.pipe_key_value_list(w2), frame2,
                        ["line"]),
        ])
    if "w3" in args.only:
        w3 = make_w3(args.records)
        rows3 = [(k.encode(), orjson.dumps(v), ts) for k, v, ts in w3]
        records3 = [ks.TestRecord(k, v, ts) for k, v, ts in w3]
        frame3 = pd.DataFrame([{"key": k, **v, "timestamp": ts} for k, v, ts in w3])
        built["w3"] = ("W3 60 s tumbling count, every update", len(w3), [
            ("loop", "plain loop (orjson)", lambda: loop_w3(rows3)),
            ("polars", "polars (cum_max, filter, cum_count over key+window)",
             lambda: polars_w3(rows3)),
            ("bytewax", "Bytewax stateful_map per key (count per window)",
             lambda: bytewax_w3(rows3)),
            ("bytewax-ref", "Bytewax count_window (Tumbling 60 s, EventClock 1 s): emits at close",
             lambda: bytewax_w3_windowed(rows3)),
            *kslab_rows("w3", topology_w3, lambda topic: topic.pipe_record_list(records3),
                        frame3, ["page", "ms"]),
        ])
    return built


NOTES = """\
- Rates are input records per second (W2: lines). Every contestant but kslab takes the records
  as a consumer gets them (key and value bytes; W3 with the record timestamp) and makes output
  bytes; the loop, Bytewax and polars decode and encode JSON with orjson, as kslab's Json serde
  does. kslab's rows pipe the user's objects (serialized by the input topic) and read the
  outputs back decoded (`read_key_values_to_list`): the test driver's round trip is in its time.
  The piped objects, TestRecords and pandas frames are built before timing.
- polars computes each workload on the whole batch at once: W1 `filter` + `with_columns`; W2
  `str.split` + `explode` + `cum_count().over(word)`; W3 window start `ts // 60000 * 60000`,
  stream time `cum_max(ts)`, records whose window ended more than 1 s before it dropped, then
  `cum_count().over(key, start)`. It skips what makes a stream processor: no per-record state,
  store, changelog, cache or commit, and its outputs go into one NDJSON buffer.
- Bytewax 0.21.1 `run_main` over `TestingSource(batch_size=1000)`. W3's main row is the closest
  idiomatic equivalent of emitting every update: `stateful_map` keyed by key, holding a count
  per window start (no late-record check: none of this data is late). Its windowing operator
  (`count_window`, `TumblingWindower`, `EventClock` waiting 1 s) emits each window once, at
  close; that row is for reference, its output count differs.
- kslab rows use default stores (Kafka's default: a persistent store, with the record cache).
  4 partitions: `partitions={"in": 4}` (the repartition topic of W2 gets 4 too). Record path:
  `{"kslab.driver.bulk": False}`. W3 pipes `TestRecord`s (`pipe_record_list`): timestamps with
  jitter do not fit `pipe_key_value_list`'s fixed step."""


def provenance() -> str:
    """Which kslab ran: its directory, and the git commit when it is a checkout."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(ks.__file__)))
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "kslab"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"kslab from {root} (not a git checkout)"
    return f"kslab at {head}{' with uncommitted changes in kslab/' if dirty else ''} ({root})"


def have_bytewax() -> bool:
    try:
        import bytewax  # noqa: F401
    except ImportError:
        return False
    return True


def profile(contestants: list[Contestant], top: int) -> None:
    """cProfile of the kslab driver's 1-partition row: the top functions by tottime."""
    run = next(fn for kind, _, fn in contestants if kind == "kslab")
    run()  # warm up (imports, first allocations)
    prof = cProfile.Profile()
    prof.runcall(run)
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=40_000, help="W1 and W3 records")
    parser.add_argument("--lines", type=int, default=8_000, help="W2 lines")
    parser.add_argument("--vocabulary", type=int, default=5_000,
                        help="W2's distinct words (200000: more counts than the default "
                        "10 MiB record cache holds, so its puts evict)")
    parser.add_argument("--cache-bytes", type=int,
                        help="statestore.cache.max.bytes of kslab's rows (Kafka's 10 MiB)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="w1,w2,w3", help="workloads, comma-separated")
    parser.add_argument("--profile", choices=["w1", "w2", "w3"],
                        help="profile this workload's kslab driver row instead of timing")
    args = parser.parse_args()
    args.only = {w.strip().lower() for w in args.only.split(",")}
    if args.cache_bytes is not None:
        CACHE_BYTES["size"] = args.cache_bytes
    if args.profile:
        args.only = {args.profile}
    built = workloads(args)
    if args.profile:
        profile(built[args.profile][2], 15)
        return
    bytewax = have_bytewax()
    if not bytewax:
        print("bytewax is not installed (.venv/bin/pip install bytewax==0.21.1); "
              "its rows are skipped\n")
    load_before = os.getloadavg()
    started = dt.datetime.now(dt.UTC)
    lines = ["| workload | contestant | input rec/s | outputs | kslab / Bytewax | kslab / loop |",
             "|---|---|---:|---:|---:|---:|"]
    for title, n, contestants in built.values():
        contestants = [c for c in contestants if bytewax or not c[0].startswith("bytewax")]
        results = interleaved(args.runs, *(fn for _, _, fn in contestants))
        by_kind = {kind: result for (kind, _, _), result in zip(contestants, results,
                                                                    strict=True)}
        loop_seconds, expected = by_kind["loop"]
        for (kind, label, _), (seconds, count) in zip(contestants, results, strict=True):
            if kind != "bytewax-ref" and count != expected:  # the same semantics, the same count
                raise SystemExit(f"{title}: {label} gave {count:,} outputs, the loop {expected:,}")
            ratios = ["", ""]
            if kind.startswith("kslab"):
                ratios = [f"{by_kind['bytewax'][0] / seconds:.2f}x" if bytewax else "n/a",
                          f"{loop_seconds / seconds:.2f}x"]
            lines.append(f"| {title} | {label} | {n / seconds:,.0f} | {count:,} | "
                         f"{ratios[0]} | {ratios[1]} |")
    load_after = os.getloadavg()
    cache = "" if args.cache_bytes is None else f" --cache-bytes {args.cache_bytes:,}"
    print("\n".join(lines))
    print(f"\n{started:%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, median of {args.runs} "
          f"interleaved rounds, --records {args.records:,} --lines {args.lines:,} "
          f"--vocabulary {args.vocabulary:,}{cache}; load average "
          f"(1/5/15 min) {'/'.join(f'{x:.2f}' for x in load_before)} before, "
          f"{'/'.join(f'{x:.2f}' for x in load_after)} after; {provenance()}.\n")
    print(NOTES)


if __name__ == "__main__":
    main()
