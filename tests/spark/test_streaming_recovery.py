"""A streaming query whose driver is SIGKILLed three times mid-batch and restarted from its
checkpoint ends with the same output as an uninterrupted run.

A child process (``recovery_child.py``: its own local[2] SparkSession, JVM and Python workers)
streams the DSL word count from Kafka to Kafka, two sub-topologies joined by a repartition
topic, with ``availableNow``. Each of the three killed runs is told a topic to pause on: the
first Spark task writing to it holds its micro-batch open once Kafka acknowledged its rows and
writes a marker; the test then kills the child's whole process group. So every kill lands
inside a micro-batch (its rows on the broker, its commit not in the checkpoint) by construction,
not at a moment a timer guessed: the word counter's, then the counter's, then the word
counter's again, with more input produced while the child is down. A fourth run finishes. A run
that dies on its own (Spark's 10 s for a new Python worker to connect back, under heavy load) is
restarted the same way and counted as one more crash. What it asserts, and why that is the
exact property:

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
import time
from collections import defaultdict
from pathlib import Path

import spark_apps as apps

import kslab as ks
from conftest import HERE, consume_all, produce
from kslab import serdes
from kslab.spark.kafka import log_ends

S, L = serdes.String(), serdes.Long()
KILLS = 3
# runs that may die on their own before the test gives up: each is one more restart from a
# checkpoint with a micro-batch in flight, counted like a kill (at load 30-50 on 2 cores about
# one child start in two failed so; at load under 10, rarely)
CRASHES = 6


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
    """One run of ``recovery_child.py`` in its own process group (its JVM and workers too),
    pausing inside the first micro-batch that writes to ``pause`` (none: runs to the end)."""

    def __init__(self, broker, lines: str, counts: str, checkpoint: Path, scratch: Path,
                 log: Path, pause: str = "") -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH", "")])}
        self.marker = log.with_suffix(".paused")
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "recovery_child.py"), broker.bootstrap_servers, lines,
             counts, str(checkpoint), str(scratch), pause, str(self.marker)],
            env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"), start_new_session=True)
        self.log = log

    def kill_when_paused(self, timeout: float = 600) -> None:
        """SIGKILL the process group once a task holds its micro-batch open (the marker)."""
        deadline = time.monotonic() + timeout
        while not self.marker.exists():
            if self.process.poll() is not None:
                raise Crashed(self.log.read_text(errors="replace")[-3000:])
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"no micro-batch paused in {timeout} s; see {self.log}")
            time.sleep(0.05)
        self.kill()

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


def test_killed_three_times_mid_batch_the_word_count_ends_as_an_uninterrupted_run(
        broker, topics, tmp_path):
    lines_topic, counts_topic = topics("lines", 2), topics("counts", 2)
    checkpoint, scratch = tmp_path / "ckpt", tmp_path / "scratch"
    app = lines_topic.replace("-lines", "-app")
    topology = apps.word_count_on(lines_topic, counts_topic)
    [repartition] = [topology.resolve_topic(t, app) for t in topology.internal_topics
                     if t.endswith("-repartition")]
    rows = apps.lines(120)
    send = [(p, S.serialize("", k), S.serialize("", v), ts) for p, k, v, ts in rows]
    produce(broker, lines_topic, send[:40])
    cut_short: list[bool] = []
    crashes: list[str] = []  # logs of runs that died on their own (restarted like a kill)
    while len(cut_short) < KILLS:
        assert len(crashes) <= CRASHES, crashes[-1]
        stage = len(cut_short) % 2  # the word counter's batch, the counter's, the word counter's
        child = Child(broker, lines_topic, counts_topic, checkpoint, scratch,
                      tmp_path / f"run-{len(cut_short) + len(crashes)}.log",
                      pause=[repartition, counts_topic][stage])
        try:
            child.kill_when_paused()
        except Crashed as crash:
            crashes.append(str(crash))
            continue
        cut_short.append(stage in in_flight(checkpoint))
        if len(cut_short) < KILLS:  # more input arrives while it is down
            n = 40 * len(cut_short)
            produce(broker, lines_topic, send[n:n + 40])
    for attempt in range(CRASHES - len(crashes) + 1):
        finish = Child(broker, lines_topic, counts_topic, checkpoint, scratch,
                       tmp_path / f"finish-{attempt}.log")
        code, log = finish.finish(600)
        if code == 0:
            break
        assert "failed to connect back" in log, log
        crashes.append(log)
    assert code == 0, log
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
