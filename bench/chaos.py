"""Chaos test with figures: several instances of a stateful app under faults, output checked.

(Over 600 lines: the reference, the check and the run that feeds them stay in one file, so the
rules the figures follow read in one place.)

It starts ``--instances`` child processes of ``bench/chaos_app.py`` (a count per key, a windowed
count per key and a stream-table join; ``--threads`` stream threads between them, spread as
evenly as they go) on a LocalBroker with ``--partitions`` partitions per topic, and for
``--minutes``:

- a driver produces keyed input at ``--rate`` records/s from a generator seeded by ``--seed``
  (key ``k<n>`` of ``--keys``, value ``e<seq>``, timestamp ``T0 + seq * 1000 / rate``), so the
  reference is computable from the input alone;
- a chaos loop applies, at random moments (uniform gaps averaging ``minutes / faults``), faults
  of five kinds in a seeded order: ``kill`` (SIGKILL, restart after 0.5-3 s), ``term`` (SIGTERM,
  the instance closes, restart: a graceful bounce), ``wipe`` (SIGKILL, the instance's
  ``state.dir`` deleted, restart), ``wipe-burst`` (two ``wipe`` faults on two instances 1-4 s
  apart: kills with wiped state in quick succession) and ``thread`` (``add_stream_thread()``,
  5-15 s later ``remove_stream_thread()``).

Then input stops, every instance is restarted if down, the output is read once it has caught up
(every count at its reference and every input offset committed) or after ``--settle`` s, the
instances are stopped with SIGTERM, and the output is compared
with the reference. Under ``exactly_once_v2`` the output is read from the raw log with the
transaction markers applied (``tests/runtime/committed_log.py``: Tansu 0.6 shows aborted records
to ``read_committed`` consumers); a transaction still open at the end (every live instance has
closed and committed by then, so it can only be a killed producer's, which Kafka would abort
after ``transaction.timeout.ms``) counts as aborted. Under ``at_least_once`` every record
written is read.

What the figures mean, per output:

- ``counts`` (n = the key's records in the input): the key's update sequence is the values
  written for it, in offset order, and its final count the last of them. **lost** = n minus the
  final count where the final count is below n, summed over keys (input records that changed no
  count). **skipped** = the values of 1..n missing from the sequence beyond those (the final
  count reached n, but some update was never written: a state change whose output record died
  with its instance while the changelog record got out; a restart then replays the input from
  the committed offset on top of that state, so the count goes past n by as much). Under
  at-least-once the contract is nothing lost; under exactly-once, nothing lost or skipped.
  **duplicated** = the final count's excess over n, summed over keys (an input record counted
  twice), plus, under exactly-once only, the values written more than once (every value is
  written once when each record is processed exactly once; under at-least-once a replay after a
  crash writes values again, which is allowed).
- ``windowed``: the same per ``(key, window start)``, with n the key's records in that window.
- ``joined``: one output per input record (``e<seq>|p-<key>``: the table holds every key before
  input starts). **lost** = input records with no output; **duplicated** = outputs beyond the
  first of a record (errors under exactly-once, allowed under at-least-once).

**longest pause** is measured by a consumer that tails the three output topics (read
uncommitted, so it sees records as they are written): until input stops, the longest wall-clock
gap between two output records arriving on one ``counts`` partition, or between a partition's
last record and the end of input for one that stopped (every partition that any key maps to
gets records several times a second, so a gap is a task not running: detection of a dead
member, a rebalance, a restore; with 64 keys, Kafka's partitioner maps none to partition 7 of
8) and, beside it, the longest gap with no output at all on any partition.

Usage: python bench/chaos.py [--instances 3] [--threads 4] [--partitions 8] [--minutes 10]
       [--guarantee at_least_once|exactly_once_v2] [--seed 1] [--rate 100] [--keys 64]
       [--faults N] [--settle 180] [--kinds kill,term,wipe,wipe-burst,thread] [--evidence]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "runtime"))  # committed_log: markers applied
APP = Path(__file__).with_name("chaos_app.py")
KINDS = ("kill", "term", "wipe", "wipe-burst", "thread")
OUTPUTS = ("counts", "windowed", "joined")


# -- the reference ---------------------------------------------------------------------------


def events(seed: int, keys: int, rate: float, count: int, t0: int) -> list[tuple[str, str, int]]:
    """The first ``count`` input records ``(key, value, timestamp)`` of the seeded generator."""
    rnd = random.Random(seed)
    return [(f"k{rnd.randrange(keys)}", f"e{seq}", t0 + int(seq * 1000 / rate))
            for seq in range(count)]


def reference(records: list[tuple[str, str, int]], window_ms: int) -> dict[str, Counter]:
    """Expected final value per output key: counts, windowed counts, and joined records."""
    counts: Counter = Counter(key for key, _, _ in records)
    windowed: Counter = Counter(f"{key}@{ts - ts % window_ms}" for key, _, ts in records)
    joined: Counter = Counter(f"{value}|p-{key}" for key, value, _ in records)
    return {"counts": counts, "windowed": windowed, "joined": joined}


def compare(expected: dict[str, Counter], written: dict[str, list[tuple[str, Any]]],
            exactly_once: bool) -> dict[str, dict[str, Any]]:
    """Lost, skipped and duplicated per output, as the module docstring defines them, with a
    few keys that have any (their expected n and the values written)."""
    out: dict[str, dict[str, Any]] = {}
    for name in ("counts", "windowed"):
        seqs: dict[str, list[int]] = {}
        for key, value in written[name]:
            seqs.setdefault(key, []).append(value)
        lost = skipped = dup = 0
        examples: dict[str, Any] = {}
        for key, n in expected[name].items():
            seq = seqs.get(key, [])
            final = seq[-1] if seq else 0
            missing = len(set(range(1, n + 1)) - set(seq))
            below = max(0, n - final)
            excess = max(0, final - n) + (len(seq) - len(set(seq)) if exactly_once else 0)
            lost += below
            skipped += missing - below if missing > below else 0
            dup += excess
            if (missing or excess) and len(examples) < 5:
                examples[key] = {"n": n, "written": seq[-12:]}
        out[name] = {"out": len(written[name]), "lost": lost, "skipped": skipped,
                     "duplicated": dup, "examples": examples}
    joined = Counter(value for _, value in written["joined"])
    out["joined"] = {
        "out": len(written["joined"]),
        "lost": sum(1 for v in expected["joined"] if v not in joined),
        "skipped": 0,
        "duplicated": sum(n - 1 for n in joined.values() if n > 1),
    }
    return out


# -- the instances ---------------------------------------------------------------------------


@dataclass
class Instance:
    """One child process of ``chaos_app.py`` and the lines it printed."""

    index: int
    threads: int
    args: dict[str, Any]
    log_dir: Path
    proc: subprocess.Popen[str] | None = None
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    starts: int = 0

    @property
    def state_dir(self) -> str:
        return self.args["state_dir"]

    def start(self) -> None:
        self.starts += 1
        log = open(self.log_dir / f"instance-{self.index}-{self.starts}.log", "w")  # noqa: SIM115
        args = dict(self.args, threads=self.threads)
        self.proc = subprocess.Popen(
            [sys.executable, str(APP), json.dumps(args)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=log, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"))
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()

    @staticmethod
    def _read(proc: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.strip())

    def expect(self, prefix: str, timeout: float) -> str | None:
        """The next line starting with ``prefix`` within ``timeout`` s, else None."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line.startswith(prefix):
                return line
        return None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, command: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)

    def term(self, timeout: float = 45) -> int | None:
        """SIGTERM and wait; the exit code (None: it had to be killed)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None


# -- the run ---------------------------------------------------------------------------------


@dataclass
class Options:
    """A chaos run's parameters (the command line's)."""

    instances: int = 3
    threads: int = 4
    partitions: int = 8
    minutes: float = 10.0
    guarantee: str = "at_least_once"
    seed: int = 1
    rate: float = 100.0
    keys: int = 64
    faults: int | None = None  # None: one per 30 s
    plan: list[str] | None = None  # fixed fault kinds, in order (the short test's)
    kinds: tuple[str, ...] = KINDS  # the kinds a random plan draws from, in turn
    settle: float = 180.0
    workdir: str | None = None
    bootstrap: str | None = None  # None: a LocalBroker of its own
    evidence: bool = False  # write evidence.json (every output and changelog record's fate)


class Chaos:
    """One run: topics, instances, driver, tail, chaos loop, check."""

    def __init__(self, options: Options, bootstrap: str, workdir: Path) -> None:
        from confluent_kafka.admin import AdminClient

        self.o = options
        self.bootstrap = bootstrap
        self.workdir = workdir
        self.rnd = random.Random(options.seed * 7919 + 1)
        self.prefix = f"chaos-{options.guarantee}-{options.seed}-{int(time.time())}"
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.produced = 0
        self.ends: dict[int, int] = {}  # input partition -> its end offset, from deliveries
        self.faults: Counter = Counter()
        self.notes: list[str] = []
        self.stop_input = threading.Event()
        self.stop_tail = threading.Event()
        self.t0 = int(time.time() * 1000)
        self.tail_counts: dict[str, int] = {}
        self.max_gap_partition = 0.0
        self.max_gap_any = 0.0
        self.lock = threading.Lock()
        spread = [options.threads // options.instances + (i < options.threads % options.instances)
                  for i in range(options.instances)]
        self.instances = [
            Instance(i, max(1, spread[i]), {
                "bootstrap": bootstrap, "app_id": f"{self.prefix}-app", "prefix": self.prefix,
                "state_dir": str(workdir / f"state-{i}"), "guarantee": options.guarantee},
                workdir)
            for i in range(options.instances)]

    def log(self, message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)

    # -- setup ---------------------------------------------------------------------------------

    def setup(self) -> None:
        from confluent_kafka import Producer
        from confluent_kafka.admin import NewTopic

        names = ["events", "profiles", *OUTPUTS]
        futures = self.admin.create_topics(
            [NewTopic(f"{self.prefix}-{n}", self.o.partitions, 1) for n in names])
        for future in futures.values():
            future.result(30)
        producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5})
        for k in range(self.o.keys):
            producer.produce(f"{self.prefix}-profiles", f"p-k{k}".encode(), f"k{k}".encode(),
                             timestamp=self.t0 - 1000)
        assert producer.flush(30) == 0

    # -- driver and tail -----------------------------------------------------------------------

    def drive(self) -> None:
        """Produce the seeded input at the fixed rate until told to stop."""
        from confluent_kafka import Producer

        failed: list[Any] = []

        def delivered(err: Any, msg: Any) -> None:
            if err is not None:
                failed.append(err)
            else:
                self.ends[msg.partition()] = max(self.ends.get(msg.partition(), 0),
                                                 msg.offset() + 1)

        producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5,
                             "enable.idempotence": True})
        rnd = random.Random(self.o.seed)
        start = time.monotonic()
        seq = 0
        while not self.stop_input.is_set():
            due = int((time.monotonic() - start) * self.o.rate)
            while seq < due:
                key = f"k{rnd.randrange(self.o.keys)}"
                producer.produce(
                    f"{self.prefix}-events", f"e{seq}".encode(), key.encode(),
                    timestamp=self.t0 + int(seq * 1000 / self.o.rate),
                    on_delivery=delivered)
                seq += 1
            producer.poll(0)
            time.sleep(0.01)
        assert producer.flush(60) == 0, "input not delivered"
        assert not failed, f"input not delivered: {failed[:3]}"
        self.produced = seq

    def tail(self) -> None:
        """Note when output records arrive, per partition, and the longest gaps."""
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"{self.prefix}-t",
                             "enable.auto.commit": False, "fetch.wait.max.ms": 100})
        consumer.assign([TopicPartition(f"{self.prefix}-{n}", p, 0)
                         for n in OUTPUTS for p in range(self.o.partitions)])
        last_part: dict[int, float] = {}
        last_any: float | None = None
        started = time.monotonic()
        stopped: float | None = None
        latest: dict[str, dict[str, int]] = {n: {} for n in OUTPUTS}
        try:
            while not self.stop_tail.is_set():
                messages = consumer.consume(1000, 0.2)
                now = time.monotonic()
                measuring = not self.stop_input.is_set()
                for m in messages:
                    if m.error() is not None:
                        continue
                    name = m.topic()[len(self.prefix) + 1:]
                    key = m.key().decode()
                    value = (int.from_bytes(m.value(), "big", signed=True) if name != "joined"
                             else 1)
                    latest[name][key] = value
                    if name == "counts" and measuring:
                        if m.partition() in last_part:
                            self.max_gap_partition = max(self.max_gap_partition,
                                                         now - last_part[m.partition()])
                        last_part[m.partition()] = now
                if messages and measuring:
                    if last_any is not None:
                        self.max_gap_any = max(self.max_gap_any, now - last_any)
                    last_any = now
                with self.lock:
                    self.tail_counts = dict(latest["counts"])
                if not measuring and stopped is None:
                    stopped = now  # a partition silent since its last record: that gap too
                    for last in last_part.values():  # (a partition no key maps to: none)
                        self.max_gap_partition = max(self.max_gap_partition, now - last)
                    self.max_gap_any = max(self.max_gap_any, now - (last_any or started))
        finally:
            consumer.close()

    # -- faults --------------------------------------------------------------------------------

    def restart(self, inst: Instance, delay: float) -> None:
        time.sleep(delay)
        inst.start()
        if inst.expect("RUNNING", 120) is None:
            self.notes.append(f"instance {inst.index} (start {inst.starts}) not RUNNING in 120 s")
            self.log(f"instance {inst.index} did not reach RUNNING in 120 s")
            self.dump()

    def dump(self) -> None:
        """Have every live instance log its state, metrics and thread stacks (``dump``)."""
        for inst in self.instances:
            if inst.alive:
                try:
                    inst.send("dump")
                except OSError as exc:
                    self.log(f"instance {inst.index}: no dump ({exc})")

    def apply(self, kind: str) -> None:
        live = [i for i in self.instances if i.alive]
        if not live:
            return
        inst = self.rnd.choice(live)
        self.log(f"fault {kind} on instance {inst.index}")
        if kind == "kill":
            inst.kill()
            self.restart(inst, self.rnd.uniform(0.5, 3))
        elif kind == "wipe":
            self.wipe(inst)
        elif kind == "wipe-burst":
            self.wipe(inst, wait=False)
            time.sleep(self.rnd.uniform(1, 4))
            others = [i for i in self.instances if i is not inst and i.alive] or [inst]
            second = self.rnd.choice(others)
            self.log(f"  second wipe on instance {second.index}")
            self.wipe(second)
            if inst.expect("RUNNING", 120) is None:
                self.notes.append(f"instance {inst.index} not RUNNING in 120 s after a wipe")
                self.dump()
        elif kind == "term":
            code = inst.term()
            if code != 0:
                self.notes.append(f"instance {inst.index} closed with exit code {code} on SIGTERM")
            self.restart(inst, self.rnd.uniform(0.5, 3))
        elif kind == "thread":
            inst.send("add")
            added = inst.expect("ADDED", 30)
            time.sleep(self.rnd.uniform(5, 15))
            inst.send("remove")
            removed = inst.expect("REMOVED", 60)
            self.log(f"  {added} / {removed}")
            if added is None or removed is None or "None" in (added + removed):
                self.notes.append(f"thread fault on instance {inst.index}: {added} / {removed}")
        self.faults[kind] += 1

    def wipe(self, inst: Instance, wait: bool = True) -> None:
        inst.kill()
        shutil.rmtree(inst.state_dir, ignore_errors=True)
        if wait:
            self.restart(inst, self.rnd.uniform(0.5, 2))
        else:
            time.sleep(self.rnd.uniform(0.5, 2))
            inst.start()

    def plan(self) -> list[str]:
        if self.o.plan is not None:
            return list(self.o.plan)
        n = self.o.faults if self.o.faults is not None else max(1, int(self.o.minutes * 2))
        kinds = [self.o.kinds[i % len(self.o.kinds)] for i in range(n)]
        self.rnd.shuffle(kinds)
        return kinds

    # -- the run -------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        self.setup()
        for inst in self.instances:
            inst.start()
        for inst in self.instances:
            if inst.expect("RUNNING", 120) is None:
                raise RuntimeError(f"instance {inst.index} did not start; see {self.workdir}")
        self.log(f"{len(self.instances)} instances running; input at {self.o.rate}/s for "
                 f"{self.o.minutes} min")
        driver = threading.Thread(target=self.drive, daemon=True)
        tail = threading.Thread(target=self.tail, daemon=True)
        started = time.monotonic()
        driver.start()
        tail.start()
        end = started + self.o.minutes * 60
        kinds = self.plan()
        for index, kind in enumerate(kinds):
            # the faults spread over the run, each at a random moment of its slot
            slot = (end - 10 - started) / len(kinds)
            moment = started + slot * index + self.rnd.uniform(0.2, 0.8) * slot
            while time.monotonic() < moment:
                time.sleep(0.2)
            self.apply(kind)
        while time.monotonic() < end:
            time.sleep(0.2)
        self.stop_input.set()
        driver.join(120)
        self.log(f"input stopped: {self.produced} records")
        for inst in self.instances:
            if not inst.alive:
                self.notes.append(f"instance {inst.index} was down at the end; restarted")
                self.restart(inst, 0)
        records = events(self.o.seed, self.o.keys, self.o.rate, self.produced, self.t0)
        expected = reference(records, 5_000)
        settle_start = time.monotonic()
        unprocessed: dict[int, int] = {}
        while time.monotonic() - settle_start < self.o.settle:
            with self.lock:
                seen = dict(self.tail_counts)
            # caught up: every count at its reference (the tail reads uncommitted) and every
            # input offset committed (under exactly-once that is what makes the output count)
            if all(seen.get(k, 0) >= n for k, n in expected["counts"].items()):
                unprocessed = self.unprocessed()
                if not unprocessed:
                    break
            time.sleep(1)
        caught_up = time.monotonic() - settle_start
        unprocessed = self.unprocessed()
        codes = [inst.term() for inst in self.instances]
        if any(code != 0 for code in codes):
            self.notes.append(f"exit codes on the final SIGTERM: {codes}")
        self.stop_tail.set()
        tail.join(30)
        written = self.read_outputs()
        if self.o.evidence:
            self.write_evidence()
        result = compare(expected, written, self.o.guarantee == "exactly_once_v2")
        return {
            "guarantee": self.o.guarantee, "faults": dict(self.faults), "in": self.produced,
            "outputs": result, "pause_partition_s": round(self.max_gap_partition, 1),
            "pause_any_s": round(self.max_gap_any, 1), "caught_up_s": round(caught_up, 1),
            "unprocessed": unprocessed,
            "notes": self.notes, "diagnostics": self.diagnostics(),
        }

    def unprocessed(self) -> dict[int, int]:
        """Input records past the group's committed offset, per partition that has any (a
        partition whose task is stalled, not lost: its records were never processed)."""
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": self.bootstrap,
                             "group.id": f"{self.prefix}-app", "enable.auto.commit": False})
        try:
            committed = consumer.committed(
                [TopicPartition(f"{self.prefix}-events", p) for p in range(self.o.partitions)],
                timeout=30)
        finally:
            consumer.close()
        out = {tp.partition: self.ends.get(tp.partition, 0) - max(tp.offset, 0)
               for tp in committed}
        return {p: n for p, n in out.items() if n > 0}

    def read_outputs(self) -> dict[str, list[tuple[str, Any]]]:
        out: dict[str, list[tuple[str, Any]]] = {}
        for name in OUTPUTS:
            topic = f"{self.prefix}-{name}"
            if self.o.guarantee == "exactly_once_v2":
                from committed_log import read_committed_log

                raw = read_committed_log(self.bootstrap, topic, self.o.partitions, 30,
                                         open_as_aborted=True)
            else:
                raw = read_all(self.bootstrap, topic, self.o.partitions)
            out[name] = [(k.decode(), int.from_bytes(v, "big", signed=True)
                          if name != "joined" else v.decode()) for k, v, _ in raw]
        return out

    def write_evidence(self) -> None:
        """``evidence.json`` in the work directory: every record of the outputs and changelogs
        with its producer id, epoch and fate (``committed_log.record_fates``), and the group's
        committed input offsets: what tells a record committed twice from a reading error."""
        from committed_log import record_fates

        app = f"{self.prefix}-app"
        topics = [f"{self.prefix}-{n}" for n in OUTPUTS] + [
            f"{app}-counts-changelog", f"{app}-windowed-changelog"]
        out: dict[str, Any] = {"ends": self.ends, "prefix": self.prefix}
        for topic in topics:
            out[topic] = [dict(r, key=(r["key"] or b"").decode(errors="replace"),
                               value=(r["value"] or b"").hex())
                          for r in record_fates(self.bootstrap, topic, self.o.partitions, 30)]
        (self.workdir / "evidence.json").write_text(json.dumps(out))
        self.log(f"evidence written to {self.workdir / 'evidence.json'}")

    def diagnostics(self) -> dict[str, int]:
        """Under exactly-once: aborted and open records in the topics the app itself reads
        ``read_committed`` (changelogs: restores on Tansu see them) and in its outputs."""
        if self.o.guarantee != "exactly_once_v2":
            return {}
        from committed_log import aborted_record_count, open_record_count

        app = f"{self.prefix}-app"
        topics = [f"{app}-counts-changelog", f"{app}-windowed-changelog",
                  *(f"{self.prefix}-{n}" for n in OUTPUTS)]
        out: dict[str, int] = {}
        for topic in topics:
            short = topic.removeprefix(f"{app}-").removeprefix(f"{self.prefix}-")
            try:
                out[f"{short} aborted"] = aborted_record_count(self.bootstrap, topic,
                                                               self.o.partitions, 30)
                out[f"{short} open"] = open_record_count(self.bootstrap, topic,
                                                         self.o.partitions, 30)
            except Exception as exc:  # a topic this app version does not have
                self.notes.append(f"no diagnostics for {topic}: {exc}")
        return out

    def shutdown(self) -> None:
        for inst in self.instances:
            if inst.alive:
                inst.kill()


def read_all(bootstrap: str, topic: str, partitions: int) -> list[tuple[bytes, bytes, int]]:
    """Every record of ``topic``, read uncommitted to the end of each partition."""
    from confluent_kafka import Consumer, KafkaError, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{topic}-check",
                         "enable.auto.commit": False, "enable.partition.eof": True,
                         "fetch.wait.max.ms": 100})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: list[tuple[bytes, bytes, int]] = []
    ended: set[int] = set()
    deadline = time.monotonic() + 120
    try:
        while len(ended) < partitions and time.monotonic() < deadline:
            for m in consumer.consume(1000, 0.5):
                if m.error() is None:
                    out.append((m.key(), m.value(), m.partition()))
                    ended.discard(m.partition())
                elif m.error().code() == KafkaError._PARTITION_EOF:
                    ended.add(m.partition())
    finally:
        consumer.close()
    return out


def run(options: Options) -> dict[str, Any]:
    """One chaos run on ``options.bootstrap`` (or a LocalBroker of its own); its figures."""
    from kslab.runtime import LocalBroker

    workdir = Path(options.workdir or tempfile.mkdtemp(prefix="kslab-chaos-"))
    workdir.mkdir(parents=True, exist_ok=True)
    broker = None
    bootstrap = options.bootstrap
    if bootstrap is None:
        broker = LocalBroker().start()
        bootstrap = broker.bootstrap_servers
    chaos = Chaos(options, bootstrap, workdir)
    try:
        return chaos.run()
    finally:
        chaos.shutdown()
        if broker is not None:
            broker.stop()


def table(result: dict[str, Any]) -> str:
    """The run's figures as one Markdown table."""
    faults = ", ".join(f"{k} {n}" for k, n in sorted(result["faults"].items())) or "none"
    lines = [f"| {result['guarantee']} | faults: {faults} | in: {result['in']} | "
             f"longest pause: {result['pause_partition_s']} s one partition, "
             f"{result['pause_any_s']} s all |",
             "", "| output | records in | records out | lost | skipped | duplicated |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, row in result["outputs"].items():
        lines.append(f"| {name} | {result['in']} | {row['out']} | {row['lost']} | "
                     f"{row['skipped']} | {row['duplicated']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--guarantee", default="at_least_once",
                        choices=["at_least_once", "exactly_once_v2"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--keys", type=int, default=64)
    parser.add_argument("--faults", type=int, default=None)
    parser.add_argument("--settle", type=float, default=180.0)
    parser.add_argument("--kinds", default=",".join(KINDS),
                        type=lambda text: tuple(k for k in text.split(",") if k),
                        help="the fault kinds to apply, comma-separated (default: all five)")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--evidence", action="store_true",
                        help="write evidence.json in the work directory: each output and "
                             "changelog record's producer id, epoch and transaction fate")
    parser.add_argument("--json", default=None, help="write the result here too")
    args = parser.parse_args()
    unknown = sorted(set(args.kinds) - set(KINDS))
    if unknown or not args.kinds:
        parser.error(f"--kinds: {unknown or 'none given'}; choose from {', '.join(KINDS)}")
    options = Options(**{k: v for k, v in vars(args).items() if k != "json"})
    result = run(options)
    print(table(result))
    print(f"caught up {result['caught_up_s']} s after input stopped; input not processed at the "
          f"end, by partition: {result['unprocessed']}; notes: {result['notes']}")
    for name, row in result["outputs"].items():
        if row.get("examples"):
            print(f"{name}, keys with a difference: {row['examples']}")
    if result["diagnostics"]:
        print(f"diagnostics: {result['diagnostics']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
