"""Issue 19's idiomatic workloads live: kslab KafkaStreams, a raw confluent-kafka loop and Quix
Streams on a LocalBroker.

The data and kslab's DSL programs are bench/idiomatic.py's (W1 JSON filter + ``amount_x2``; W2
word count of JSON lines, every update; W3 60 s tumbling count per key, grace 1 s, every update as
JSON ``{"start", "end", "value"}``). Each contestant runs in its own process on one input
partition holding the workload's records (written once, read by every contestant under its own
group) and a fresh output topic; bench/runtime.py's harness starts the broker, creates the topics
and times from the first output record to the last (``read_committed`` under exactly-once).
Contestants take turns run by run and each cell is the median of the runs; every run must give
the outputs the plain loop of bench/idiomatic.py counts (asserted). The CPU column is the
contestant process's CPU time (all threads, ``/proc/<pid>/stat``) between the first and the last
output, per input record.

Quix Streams 3.28.1 runs from its own virtualenv (``QUIX_PYTHON``, as in bench/runtime.py):
``python3 -m venv /tmp/quixvenv && /tmp/quixvenv/bin/pip install quixstreams==3.28.1``.

Usage: ``QUIX_PYTHON=/tmp/quixvenv/bin/python .venv/bin/python bench/idiomatic_live.py
--records 100000 --lines 20000 --runs 3`` (``make bench-live``); ``--only w2``;
``--profile w2`` prints cProfile's top functions of kslab's stream thread instead.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import idiomatic as idi  # bench/ is the script's directory
import orjson
import runtime as rt
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

GUARANTEES = ("at_least_once", "exactly_once_v2")
CONTESTANTS = ("raw", "kslab", "quix")
Row = tuple[bytes, bytes, int]  # key, value, timestamp (0: the producer's clock)
# W2 and W3 emit every update. Live, the record cache (on by default) holds a count until the
# commit and sends only each key's latest (5,727 of 39,887 updates for 5,000 lines at least
# once), so kslab's W2 and W3 turn it off, as a Kafka Streams user wanting every update does.
EVERY_UPDATE = {"statestore.cache.max.bytes": 0}


# -- contestants (each runs in a child process) ---------------------------------------------------


def kslab_app(bootstrap: str, workload: str, guarantee: str, src: str, dst: str, app: str,
              state: str, extra: dict[str, Any] | None = None) -> Any:
    """KafkaStreams running bench/idiomatic.py's DSL program, bench/runtime.py's config."""
    import kslab as ks

    topology = {"w1": idi.topology_w1, "w2": idi.topology_w2, "w3": idi.topology_w3}[workload]
    every_update = {} if workload == "w1" else EVERY_UPDATE
    return ks.KafkaStreams(topology(src, dst), {
        "application.id": app, "bootstrap.servers": bootstrap, "state.dir": state,
        "processing.guarantee": guarantee,
        "commit.interval.ms": 1000 if guarantee == "at_least_once" else 100,
        "consumer.session.timeout.ms": 6000, "consumer.heartbeat.interval.ms": 500,
        **every_update, **(extra or {}),
    })


def run_kslab(bootstrap: str, workload: str, guarantee: str, src: str, dst: str, app: str,
              state: str) -> None:
    streams = kslab_app(bootstrap, workload, guarantee, src, dst, app, state)
    streams.start()
    rt._wait_for_stop(state)
    streams.close()


def raw_w1(batch: list[Any], producer: Any, dst: str, counts: dict[Any, int]) -> None:
    """Decode, keep ``amount > 50``, add ``amount_x2``, encode, produce."""
    loads, dumps, produce = orjson.loads, orjson.dumps, producer.produce
    for msg in batch:
        if msg.error():
            continue
        key = msg.key().decode()  # the String serde's work, as the apps do
        order = loads(msg.value())
        if order["amount"] > 50:
            order["amount_x2"] = order["amount"] * 2
            try:
                produce(dst, dumps(order), key.encode())
            except BufferError:
                producer.poll(0.05)
                produce(dst, dumps(order), key.encode())


def raw_w2(batch: list[Any], producer: Any, dst: str, counts: dict[Any, int]) -> None:
    """Split each line, count the words in a ``dict``, produce every count (8-byte long)."""
    loads, produce = orjson.loads, producer.produce
    for msg in batch:
        if msg.error():
            continue
        for word in loads(msg.value())["line"].split():
            n = counts.get(word, 0) + 1
            counts[word] = n
            try:
                produce(dst, n.to_bytes(8, "big"), word.encode())
            except BufferError:
                producer.poll(0.05)
                produce(dst, n.to_bytes(8, "big"), word.encode())


def raw_w3(batch: list[Any], producer: Any, dst: str, counts: dict[Any, int]) -> None:
    """Count per (key, 60 s window), drop records later than the grace by the partition's
    stream time, produce every update as JSON with the record's timestamp."""
    loads, dumps, produce = orjson.loads, orjson.dumps, producer.produce
    size, grace = idi.SIZE, idi.GRACE
    stream_time = counts.get(None, -1)
    for msg in batch:
        if msg.error():
            continue
        key = msg.key().decode()
        loads(msg.value())  # a JSON consumer decodes it (the count does not read it)
        ts = msg.timestamp()[1]
        if ts > stream_time:
            stream_time = ts
        start = ts - ts % size
        if start + size <= stream_time - grace:
            continue
        n = counts.get((key, start), 0) + 1
        counts[(key, start)] = n
        value = dumps({"start": start, "end": start + size, "value": n})
        try:
            produce(dst, value, key.encode(), timestamp=ts)
        except BufferError:
            producer.poll(0.05)
            produce(dst, value, key.encode(), timestamp=ts)
    counts[None] = stream_time


RAW = {"w1": raw_w1, "w2": raw_w2, "w3": raw_w3}


def run_raw(bootstrap: str, workload: str, guarantee: str, src: str, dst: str, app: str,
            state: str) -> None:
    """bench/runtime.py's raw loop (clients, commit interval, transactions) with a workload's
    body: consume 1,000, process, commit every 1 s (100 ms in a transaction)."""
    eos = guarantee == "exactly_once_v2"
    consumer, producer = rt.raw_clients(bootstrap, app, eos, src)
    body, counts = RAW[workload], {}
    interval = 0.1 if eos else 1.0
    last = time.monotonic()
    offsets: dict[int, int] = {}
    stop = Path(state) / "stop"

    def commit() -> None:
        rt.raw_commit(consumer, producer, src, offsets, eos)

    while not stop.exists():
        batch = consumer.consume(1000, 0.1)
        if batch:
            body(batch, producer, dst, counts)
            offsets[batch[-1].partition()] = batch[-1].offset() + 1
        if time.monotonic() - last >= interval and offsets:
            last = time.monotonic()
            commit()
    if offsets:
        commit()
    producer.flush()
    consumer.close()


QUIX = rt.QUIX_APP + '''
inp = app.topic(src, key_deserializer="string", value_deserializer="json")
sdf = app.dataframe(inp)
if workload == "w1":
    out = app.topic(dst, key_serializer="string", value_serializer="json")
    sdf = sdf[sdf["amount"] > 50]
    sdf["amount_x2"] = sdf["amount"] * 2
elif workload == "w2":
    out = app.topic(dst, key_serializer="string", value_serializer="int")

    def count(word, state):
        n = state.get("count", 0) + 1
        state.set("count", n)
        return n

    sdf = sdf.apply(lambda value: value["line"].split(), expand=True)
    sdf = sdf.group_by(lambda word: word, name="word")
    sdf = sdf.apply(count, stateful=True)
else:
    out = app.topic(dst, key_serializer="string", value_serializer="json")
    sdf = sdf.tumbling_window(60000, grace_ms=1000).count().current()
sdf.to_topic(out)
''' + rt.QUIX_RUN


# -- the harness ----------------------------------------------------------------------------------


def inputs(workload: str, n: int) -> tuple[list[Row], int]:
    """bench/idiomatic.py's records serialized, and the outputs its plain loop makes of them."""
    if workload == "w1":
        rows = idi.serialized(idi.make_w1(n))
        return [(k, v, 0) for k, v in rows], idi.loop_w1(rows)
    if workload == "w2":
        rows = idi.serialized(idi.make_w2(n))
        return [(k, v, 0) for k, v in rows], idi.loop_w2(rows)
    rows3 = [(k.encode(), orjson.dumps(v), ts) for k, v, ts in idi.make_w3(n)]
    return rows3, idi.loop_w3(rows3)


def write_input(bootstrap: str, workload: str, rows: list[Row]) -> str:
    """The workload's one-partition input topic (bench/runtime.py's ``_prepare``), filled with
    ``rows`` at their timestamps; every contestant and run reads it under its own group."""
    src, _ = rt._prepare(bootstrap, f"{workload}-input", [])
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for key, value, ts in rows:
        try:
            producer.produce(src, value, key, timestamp=ts)
        except BufferError:
            producer.poll(0.1)
            producer.produce(src, value, key, timestamp=ts)
    producer.flush(60)
    return src


class CpuSampler(threading.Thread):
    """The CPU seconds (user + system, all threads) of a process, sampled every 20 ms."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.path, self.tick = f"/proc/{pid}/stat", os.sysconf("SC_CLK_TCK")
        self.samples: list[tuple[float, float]] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            try:
                with open(self.path) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                return
            self.samples.append((time.perf_counter(), (int(fields[11]) + int(fields[12]))
                                 / self.tick))

    def at(self, when: float) -> float:
        """The CPU seconds at ``when`` (perf_counter), interpolated between samples."""
        before = [s for s in self.samples if s[0] <= when] or self.samples[:1]
        after = [s for s in self.samples if s[0] >= when] or self.samples[-1:]
        (t0, c0), (t1, c1) = before[-1], after[0]
        return c0 if t1 <= t0 else c0 + (c1 - c0) * (when - t0) / (t1 - t0)


def count_outputs(bootstrap: str, topic: str, guarantee: str, timeout: float = 30) -> int:
    """Every record in ``topic`` (committed ones under exactly-once), read to its end."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"counter-{topic}",
        "enable.auto.commit": False, "enable.partition.eof": True,
        "isolation.level": "read_committed" if guarantee == "exactly_once_v2"
        else "read_uncommitted"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    seen, deadline = 0, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            for msg in consumer.consume(10000, 0.2):
                if msg.error() is None:
                    seen += 1
                elif msg.error().code() == KafkaError._PARTITION_EOF:
                    return seen
    finally:
        consumer.close()
    return seen


def measure(bootstrap: str, contestant: str, workload: str, guarantee: str, src: str,
            n: int, expected: int, run: int, quix: str | None,
            timeout: float) -> tuple[float, float, int] | None:
    """(input records/s, CPU us per input record, outputs) of one run, None without Quix."""
    if contestant == "quix" and quix is None:
        return None
    tag = f"{contestant}-{workload}-{guarantee}-{run}".replace("_", "-")
    _, dst = rt._prepare(bootstrap, tag, [])  # a fresh output topic (and an unused input)
    state = Path(tempfile.mkdtemp(prefix=f"bench-live-{tag}-"))
    args = [bootstrap, workload, guarantee, src, dst, f"app-{tag}", str(state)]
    if contestant == "quix":
        script = state / "quix_app.py"
        script.write_text(textwrap.dedent(QUIX))
        cmd = [quix, str(script), *args]
    else:
        cmd = [sys.executable, __file__, "--child", contestant, *args]
    log = state.with_suffix(".log")
    with open(log, "wb") as err:
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    sampler = CpuSampler(child.pid)
    sampler.start()
    try:
        first, last, _ = rt._read(bootstrap, dst, expected, guarantee, timeout=timeout)
    finally:
        sampler.done.set()
        (state / "stop").touch()
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        shutil.rmtree(state, ignore_errors=True)
    outputs = count_outputs(bootstrap, dst, guarantee)
    if outputs != expected:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"{workload} {guarantee}: {contestant} (run {run}) gave {outputs:,} "
                         f"outputs, the plain loop of bench/idiomatic.py {expected:,}; its "
                         f"stderr ends:\n{tail}")
    log.unlink()
    if last <= first:
        raise SystemExit(f"{workload} {guarantee}: {contestant}'s outputs arrived in one read: "
                         f"too few records to time (--records, --lines)")
    cpu = sampler.at(last) - sampler.at(first)
    return n / (last - first), cpu / n * 1e6, outputs


def profile(bootstrap: str, workload: str, guarantee: str, src: str, expected: int,
            top: int = 25) -> None:
    """cProfile of kslab's stream thread (in this process), top functions by tottime, from
    its first polled records to its close: the group join before them (about half of
    ``session.timeout.ms`` on Tansu) is printed apart, not profiled, as its wait in
    ``consume`` would otherwise dwarf the processing."""
    import cProfile
    import pstats

    from kslab.runtime._thread import StreamThread

    tag = f"profile-{workload}-{guarantee}".replace("_", "-")
    _, dst = rt._prepare(bootstrap, tag, [])
    state = tempfile.mkdtemp(prefix=f"bench-live-{tag}-")
    prof = cProfile.Profile()
    loop, process = StreamThread._loop, StreamThread._process
    marks: dict[str, float] = {}

    def profiled_loop(self: Any) -> None:
        marks["loop"] = time.perf_counter()
        try:
            loop(self)
        finally:
            prof.disable()
            marks["end"] = time.perf_counter()

    def first_process(self: Any, messages: list[Any]) -> None:
        if "first" not in marks:  # in the stream thread: profiles it from here on
            marks["first"] = time.perf_counter()
            prof.enable()
        process(self, messages)

    StreamThread._loop = profiled_loop  # type: ignore[method-assign]
    StreamThread._process = first_process  # type: ignore[method-assign]
    streams = kslab_app(bootstrap, workload, guarantee, src, dst, f"app-{tag}", state)
    streams.start()
    try:
        _, _, seen = rt._read(bootstrap, dst, expected, guarantee, timeout=300)
    finally:
        streams.close()
        StreamThread._loop, StreamThread._process = loop, process  # type: ignore[method-assign]
        shutil.rmtree(state, ignore_errors=True)
    print(f"{workload} {guarantee}: {seen:,}/{expected:,} outputs; the loop polled "
          f"{marks['first'] - marks['loop']:.2f} s before its first records (the group join), "
          f"then ran {marks['end'] - marks['first']:.2f} s until closed (profiled)")
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


NOTES = """\
- Rates are input records per second (W2: lines), from the first output record to the last;
  CPU is the contestant process's CPU (all threads: its Python thread(s) and librdkafka's) over
  the same span, per input record. One input partition; commits every 1 s at least once and
  every 100 ms exactly once (transactions) for all three.
- kslab: `KafkaStreams` running bench/idiomatic.py's DSL programs unchanged (String keys, Json
  values, default stores). W2 and W3 set `statestore.cache.max.bytes` 0: live, the default
  record cache sends each key's latest count per commit, not every update (W1 has no store).
  W2's `group_by` writes and reads a repartition topic, as Kafka Streams does.
- raw: a confluent-kafka loop (bench/runtime.py's clients and commits) doing the work in plain
  Python with orjson: W1 decode, filter, add, encode; W2 split and a `dict` of counts (no
  repartition); W3 a `dict` per (key, window start), records later than the grace dropped by
  stream time, every update produced as JSON.
- Quix Streams 3.28.1, written as its docs do: W1 `sdf[sdf["amount"] > 50]` and
  `sdf["amount_x2"] = sdf["amount"] * 2`; W2 `apply(split, expand=True)`, `group_by(word)`
  (a repartition topic) and a stateful `apply` counting in `State`, the count written with its
  `int` serializer; W3 `tumbling_window(60000, grace_ms=1000).count().current()`, which emits
  every window update as `{"start", "end", "value"}` (`.final()` would emit once at close)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000, help="W1 and W3 records")
    parser.add_argument("--lines", type=int, default=20_000, help="W2 lines")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="w1,w2,w3", help="workloads, comma-separated")
    parser.add_argument("--guarantees", default=",".join(GUARANTEES))
    parser.add_argument("--contestants", default=",".join(CONTESTANTS))
    parser.add_argument("--timeout", type=float, default=180, help="seconds a run may take")
    parser.add_argument("--profile", choices=["w1", "w2", "w3"],
                        help="cProfile kslab's stream thread on this workload instead")
    args = parser.parse_args()
    only = [w for w in ("w1", "w2", "w3") if w in args.only.lower().split(",")]
    guarantees = [g for g in GUARANTEES if g in args.guarantees.split(",")]
    contestants = [c for c in CONTESTANTS if c in args.contestants.split(",")]
    from kslab.runtime import LocalBroker

    quix = rt._quix_python()
    if quix is None and "quix" in contestants and not args.profile:
        print("Quix Streams is not importable and QUIX_PYTHON is unset: its column is n/a",
              file=sys.stderr)
    load_before = os.getloadavg()
    started = dt.datetime.now(dt.UTC)
    rows = []
    with LocalBroker() as broker:
        bootstrap = broker.bootstrap_servers
        for workload in ([args.profile] if args.profile else only):
            n = args.lines if workload == "w2" else args.records
            data, expected = inputs(workload, n)
            src = write_input(bootstrap, workload, data)
            if args.profile:
                for guarantee in guarantees:
                    profile(bootstrap, workload, guarantee, src, expected)
                return
            for guarantee in guarantees:
                got: dict[str, list[tuple[float, float]]] = {c: [] for c in contestants}
                for run in range(args.runs):  # interleaved, the order turned every run
                    for contestant in contestants[::-1] if run % 2 else contestants:
                        result = measure(bootstrap, contestant, workload, guarantee, src, n,
                                         expected, run, quix, args.timeout)
                        if result is not None:
                            got[contestant].append(result[:2])
                            print(f"  {workload} {guarantee} {contestant} run {run}: "
                                  f"{result[0]:,.0f}/s, {result[1]:.1f} us CPU/rec",
                                  file=sys.stderr, flush=True)
                rows.append((workload, guarantee, expected, {
                    c: (statistics.median(r for r, _ in got[c]),
                        statistics.median(u for _, u in got[c])) if got[c] else None
                    for c in CONTESTANTS if c in got}))
    load_after = os.getloadavg()

    def rate(cell: tuple[float, float] | None) -> str:
        return f"{cell[0]:,.0f}" if cell else "n/a"

    def cpu(cell: tuple[float, float] | None) -> str:
        return f"{cell[1]:.0f}" if cell else "n/a"

    def ratio(a: tuple[float, float] | None, b: tuple[float, float] | None) -> str:
        return f"{a[0] / b[0]:.2f}x" if a and b else "n/a"

    titles = {"w1": "W1 filter + map_values", "w2": "W2 word count", "w3": "W3 tumbling count"}
    print("| workload | guarantee | outputs | raw loop | kslab | Quix 3.28.1 | kslab / raw | "
          "kslab / Quix | CPU us/rec raw / kslab / Quix |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for workload, guarantee, expected, r in rows:
        print(f"| {titles[workload]} | {guarantee} | {expected:,} | {rate(r.get('raw'))} | "
              f"{rate(r.get('kslab'))} | {rate(r.get('quix'))} | "
              f"{ratio(r.get('kslab'), r.get('raw'))} | {ratio(r.get('kslab'), r.get('quix'))} "
              f"| {cpu(r.get('raw'))} / {cpu(r.get('kslab'))} / {cpu(r.get('quix'))} |")
    print(f"\n{started:%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, median of {args.runs} "
          f"interleaved runs, --records {args.records:,} --lines {args.lines:,} (rec/s; W2 "
          f"lines/s); load average (1/5/15 min) "
          f"{'/'.join(f'{x:.2f}' for x in load_before)} before, "
          f"{'/'.join(f'{x:.2f}' for x in load_after)} after; {idi.provenance()}.\n")
    print(NOTES)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        {"kslab": run_kslab, "raw": run_raw}[sys.argv[2]](*sys.argv[3:10])
    else:
        main()
