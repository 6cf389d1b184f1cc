"""A streaming query whose driver is SIGKILLed three times mid-batch and restarted from its
checkpoint ends with the same output as an uninterrupted run.

A child process (``recovery_child.py``: its own local[2] SparkSession, JVM and Python workers)
streams the DSL word count from Kafka to Kafka, two sub-topologies joined by a repartition
topic. The test kills the child's whole process group while a micro-batch is in flight (the
checkpoint holds the batch's offsets but not its commit), restarts it, and after the third kill
lets it finish with ``availableNow``; a run that dies on its own (Spark's 10 s for a new Python
worker to connect back, under heavy load) is restarted the same way and counted as one more
crash. What it asserts, and why that is the exact property:

* every key's final count (its last record in the output topic) equals the test driver's;
* no record is lost and none invented: the distinct (word, count) records are the driver's;
* duplicates are only replays of a batch: Kafka is written at least once, so a micro-batch
  killed after some of its records reached the broker is run again from the checkpoint and
  writes them again; per word the counts go up one at a time and only go back (a replay
  starting) at most once per kill or crash, never past a count already written;
* the repartition topic's replayed records are not counted twice (each carries its writing
  task's sequence number and the reading task drops one it has seen);
* each query's last checkpointed offsets are the ends of its input topics (nothing skipped,
  nothing read past).
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import spark_apps as apps
from confluent_kafka import Consumer, TopicPartition

import kslab as ks
from conftest import HERE, consume_all, produce
from kslab import serdes
from kslab.spark.kafka import log_ends

S, L = serdes.String(), serdes.Long()
KILLS = 3


def batches(checkpoint: Path, stage: int, kind: str) -> set[int]:
    """The micro-batch ids in a query's ``offsets`` (planned) or ``commits`` (done) log."""
    folder = checkpoint / f"subtopology-{stage}" / kind
    return {int(f.name) for f in folder.glob("[0-9]*")} if folder.exists() else set()


def in_flight(checkpoint: Path) -> list[int]:
    """The sub-topologies with a planned micro-batch that has not committed."""
    return [s for s in (0, 1) if batches(checkpoint, s, "offsets") - batches(checkpoint, s,
                                                                              "commits")]


def last_offsets(checkpoint: Path, stage: int) -> dict:
    """The source offsets of a query's last planned micro-batch (Spark's offset log)."""
    folder = checkpoint / f"subtopology-{stage}" / "offsets"
    last = max(batches(checkpoint, stage, "offsets"))
    return json.loads((folder / str(last)).read_text().splitlines()[2])


def ends(broker, topic: str, partitions: int) -> dict:
    """Each partition's end offset, as Spark's offset log writes them."""
    found = log_ends({"kafka.bootstrap.servers": broker.bootstrap_servers},
                     [(topic, p) for p in range(partitions)])
    return {topic: {str(p): end for (_, p), (_, end) in sorted(found.items())}}


def driver_counts(rows, lines_topic: str, counts_topic: str) -> list[tuple[str, int]]:
    """The uninterrupted reference: the test driver's (word, count) records."""
    with ks.TopologyTestDriver(apps.word_count_on(lines_topic, counts_topic),
                               partitions={lines_topic: 2}) as driver:
        for p, key, line, ts in rows:
            driver.pipe_raw(lines_topic, S.serialize("", key), S.serialize("", line), None, ts,
                            p)
        out = driver.create_output_topic(counts_topic, S, L).read_records_to_list()
    return [(r.key, r.value) for r in out]


class Crashed(Exception):
    """The child died on its own (under heavy load Spark gives a new Python worker 10 s to
    connect back, then fails the query)."""


class Child:
    """One run of ``recovery_child.py`` in its own process group (its JVM and workers too)."""

    def __init__(self, broker, lines: str, counts: str, checkpoint: Path, scratch: Path,
                 mode: str, log: Path) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH", "")])}
        self.servers = broker.bootstrap_servers
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "recovery_child.py"), broker.bootstrap_servers, lines,
             counts, str(checkpoint), str(scratch), mode],
            env=env, stdout=subprocess.PIPE, stderr=log.open("wb"), start_new_session=True)
        self.log = log

    def topic_named(self, prefix: str, suffix: str) -> str:
        """The topic ``start`` created (it prints ``started`` after) named ``prefix...suffix``."""
        if self.process.stdout.readline() != b"started\n":
            self.process.wait(30)
            raise Crashed(self.log.read_text(errors="replace")[-3000:])
        from confluent_kafka.admin import AdminClient

        names = AdminClient({"bootstrap.servers": self.servers}).list_topics(timeout=10).topics
        return next(t for t in names if t.startswith(prefix) and t.endswith(suffix))

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def finish(self, timeout: float) -> tuple[int, str]:
        """Wait for the child to end on its own; its exit code and the end of its log."""
        try:
            code = self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.kill()
        return code, self.log.read_text(errors="replace")[-3000:]


class Arrivals(threading.Thread):
    """Counts the records arriving on topics (read from their start), to time the kills."""

    def __init__(self, broker, topics: list[str]) -> None:
        super().__init__(daemon=True)
        self.consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers,
                                  "group.id": "arrivals", "enable.auto.commit": False})
        self.consumer.assign([TopicPartition(t, p, 0) for t in topics for p in (0, 1)])
        self.counts: Counter[str] = Counter()
        self.stopped = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.is_set():
                for message in self.consumer.consume(500, 0.01):
                    if message.error() is None:
                        self.counts[message.topic()] += 1
        finally:
            self.consumer.close()


def kill_mid_batch(child: Child, checkpoint: Path, stage: int, sink: str,
                   arrivals: Arrivals) -> bool:
    """Once a micro-batch of ``stage`` has committed in this run, SIGKILL the child as soon as
    records of an uncommitted one reach ``sink`` (the moment inside the batch is the timing's:
    whichever of its records came first); whether a batch of it was still in flight after the
    kill (read from the checkpoint, once nothing writes to it)."""
    target = len(batches(checkpoint, stage, "commits")) + 1
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if child.process.poll() is not None:
            raise Crashed(child.log.read_text(errors="replace")[-3000:])
        planned = batches(checkpoint, stage, "offsets")
        pending = planned - batches(checkpoint, stage, "commits")
        if len(planned) - len(pending) >= target and pending:
            written = arrivals.counts[sink]
            while arrivals.counts[sink] == written and pending - batches(checkpoint, stage,
                                                                         "commits"):
                time.sleep(0.002)
            if arrivals.counts[sink] > written:
                child.kill()
                return bool(batches(checkpoint, stage, "offsets") -
                            batches(checkpoint, stage, "commits"))
        time.sleep(0.01)
    child.kill()
    raise AssertionError(f"the child made no progress in 300 s; see {child.log}")


@pytest.mark.skipif(not os.environ.get("KSLAB_CHAOS"), reason=(
    "opt in with KSLAB_CHAOS=1: four child Spark runs, 4-6 minutes, and each kill must land "
    "inside a micro-batch, which a loaded 2-core machine can miss (a clean-clone make test on "
    "2026-11-28: the first kill came between micro-batches)"))
def test_killed_three_times_mid_batch_the_word_count_ends_as_an_uninterrupted_run(
        broker, topics, tmp_path):
    lines_topic, counts_topic = topics("lines", 2), topics("counts", 2)
    checkpoint, scratch = tmp_path / "ckpt", tmp_path / "scratch"
    rows = apps.lines(120)
    send = [(p, S.serialize("", k), S.serialize("", v), ts) for p, k, v, ts in rows]
    produce(broker, lines_topic, send[:40])
    cut_short: list[bool] = []
    crashes: list[str] = []  # logs of runs that died on their own (restarted like a kill)
    app = lines_topic.replace("-lines", "-app")
    arrivals = None
    try:
        while len(cut_short) < KILLS:
            assert len(crashes) <= 3, crashes[-1]
            child = Child(broker, lines_topic, counts_topic, checkpoint, scratch, "run",
                          tmp_path / f"run-{len(cut_short) + len(crashes)}.log")
            try:
                if arrivals is None:
                    repartition = child.topic_named(f"{app}-", "-repartition")
                    arrivals = Arrivals(broker, [repartition, counts_topic])
                    arrivals.start()
                # the word counter's output, then the counter's, then the word counter's
                stage = len(cut_short) % 2
                cut_short.append(kill_mid_batch(child, checkpoint, stage,
                                                [repartition, counts_topic][stage], arrivals))
            except Crashed as crash:
                crashes.append(str(crash))
                continue
            if len(cut_short) < KILLS:  # more input arrives while it is down: 40 lines, two
                n = 40 * len(cut_short)  # micro-batches of the word counter
                produce(broker, lines_topic, send[n:n + 40])
        for attempt in range(3):
            finish = Child(broker, lines_topic, counts_topic, checkpoint, scratch, "finish",
                           tmp_path / f"finish-{attempt}.log")
            code, log = finish.finish(300)
            if code == 0:
                break
            assert "failed to connect back" in log, log
            crashes.append(log)
        assert code == 0, log
    finally:
        if arrivals is not None:
            arrivals.stopped.set()
    assert all(cut_short), cut_short  # every kill cut a micro-batch short

    expected = driver_counts(rows, lines_topic, counts_topic)
    got = [(S.deserialize("", k), L.deserialize("", v)) for _, k, v, _ in
           consume_all(broker, counts_topic, 2)]
    final: dict[str, int] = {}
    for word, count in expected:
        final[word] = count
    last: dict[str, int] = {}
    runs: dict[str, list[int]] = defaultdict(list)
    for word, count in got:
        last[word] = count
        runs[word].append(count)
    assert last == final  # every key's final value exact
    assert set(got) == set(expected)  # no record lost, none invented (nor counted twice)
    for word, counts in runs.items():
        rewinds = 0
        for before, after in itertools.pairwise(counts):
            if after != before + 1:
                assert after <= before, (word, counts)  # a replay goes back, never skips
                rewinds += 1
        assert rewinds <= KILLS + len(crashes), (word, counts)
    assert len(got) > len(expected)  # some records were written twice (replays) ...
    words = sum(len(line.split()) for _, _, line, _ in rows)
    assert len(consume_all(broker, repartition, 2)) > words  # ... on the repartition topic too
    # offsets: the word count read its topic to the end, the counter the repartition topic
    assert last_offsets(checkpoint, 0) == ends(broker, lines_topic, 2)
    assert last_offsets(checkpoint, 1) == ends(broker, repartition, 2)
