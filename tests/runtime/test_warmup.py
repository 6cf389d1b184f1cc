"""KIP-441 warm-ups against the LocalBroker: a starting instance copies the stateful tasks the
range assignor will give it before its threads join the group (``kslab.runtime._warmup``).

A counts a large input (4 partitions) in a child process (``standby_app.py``); B starts here
beside it with a small ``acceptable.recovery.lag`` and ``max.warmup.replicas=1``: while B warms
up the two tasks the range assignor will give it, one at a time, B has no stream thread and A
still owns every partition (checked on each loaded batch, as the hosts topic shows the group);
B joins once both are caught up and its active tasks restore only the tail. A third instance,
closed while it warms up, closes in time without ever joining. Every count in the output is
exact.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from runtime_fixtures import wait_for
from standby_cases import count_app, standby_config
from test_crash import _wait_running

import kslab as ks
from kslab.processor.partitioner import default_partition
from kslab.runtime import SuspendReason
from kslab.runtime._placement import live_members, partitions_on_join

APP = Path(__file__).parent / "standby_app.py"
PARTITIONS = 4
LAG = 50  # acceptable.recovery.lag
WARMUP = {"acceptable.recovery.lag": LAG, "max.warmup.replicas": 1}


def test_partitions_on_join_follow_the_range_assignor():
    entries = {"t-a": {"process": "A", "sort": "app-a-StreamThread-1-consumer-x1",
                       "partitions": [["in", 0], ["in", 1], ["in", 2]], "time": 1.0}}
    members = live_members(entries)
    # a member id's prefix sorts where the id the broker gives will
    assert partitions_on_join(members, ["app-b-StreamThread-1-consumer-"], 3) == [2]
    assert partitions_on_join(members, ["app-0-StreamThread-1-consumer-"], 3) == [0, 1]
    assert partitions_on_join(members, ["app-0-1-", "app-0-2-"], 3) == [0, 1]
    assert partitions_on_join(members, ["app-0-1-", "app-z-2-"], 4) == [0, 1, 3]  # 2, 1, 1
    assert partitions_on_join([], ["app-b-"], 2) == [0, 1]


def _produce(kafka, topic: str, keys: list[str]) -> None:
    by_partition: dict[int, list[tuple[bytes, bytes]]] = {}
    for key in keys:
        by_partition.setdefault(default_partition(key.encode(), PARTITIONS), []).append(
            (key.encode(), b"x"))
    for partition, records in sorted(by_partition.items()):
        kafka.produce(topic, records, partition=partition)


def _final_counts(records) -> dict[str, int]:
    return {k.decode(): int.from_bytes(v, "big", signed=True) for k, v, _ in records}


def _restored(streams, task: str) -> int | None:
    for thread in streams.metrics()["threads"].values():
        if task in thread["tasks"]:
            return thread["tasks"][task]["restore-total"]
    return None


class Recorder:
    """A standby update listener that notes each call and, on each batch loaded before the
    threads joined, the client's stream threads, its warm-ups catching up and the partitions
    the group's members own; ``pause`` s of sleep per batch slow the warm-up down."""

    def __init__(self, pause: float = 0.0) -> None:
        self.streams: ks.KafkaStreams | None = None
        self.calls: list[tuple] = []
        self.seen: list[tuple] = []
        self.pause = pause

    def on_update_start(self, tp, store, offset):
        self.calls.append(("start", tp, offset))

    def on_batch_loaded(self, tp, store, task_id, end, size, current_end):
        self.calls.append(("batch", tp, task_id, size))
        metrics = self.streams.metrics()
        if not metrics["warmup"]["joined"]:
            members = self.streams.standbys.members()
            self.seen.append((metrics["client"]["alive-stream-threads"],
                              len(metrics["warmup"]["warming"]),
                              sorted(tp for m in members for tp in m.partitions)))
        time.sleep(self.pause)

    def on_update_suspended(self, tp, store, offset, current_end, reason):
        self.calls.append(("suspended", tp, reason))


def _instance(kafka, app_id, source, sink, name, recorder):
    config = {**standby_config(kafka.bootstrap, app_id, str(kafka.tmp_path / name), "", 0),
              **WARMUP}
    streams = kafka.track(ks.KafkaStreams(count_app(source, sink), config))
    recorder.streams = streams
    streams.set_standby_update_listener(recorder)
    streams.start()
    return streams


@pytest.mark.slow
def test_a_joining_instance_takes_its_tasks_only_once_its_warm_ups_caught_up(kafka):
    source = kafka.create(kafka.name("in"), PARTITIONS)
    sink = kafka.create(kafka.name("out"), PARTITIONS)
    app_id = kafka.name("warm")
    changelog = f"{app_id}-counts-changelog"
    first = [f"k{i % 8000}" for i in range(24_000)]
    _produce(kafka, source, first)
    expected = Counter(first)
    child = subprocess.Popen(
        [sys.executable, str(APP), kafka.bootstrap, app_id, source, sink,
         str(kafka.tmp_path / "a"), "", "0", json.dumps(WARMUP)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        _wait_running(child)
        got = kafka.read(sink, len(first), partitions=PARTITIONS, timeout=120)  # one per record
        assert _final_counts(got) == expected
        on_b = Recorder()
        b = _instance(kafka, app_id, source, sink, "b", on_b)
        assert wait_for(lambda: on_b.calls, timeout=60)
        second = [f"k{i % 8000}" for i in range(2_000)]  # A counts these while B warms up
        feeding = threading.Thread(target=_produce, args=(kafka, source, second))
        feeding.start()
        assert wait_for(lambda: b.state is ks.KafkaStreams.State.RUNNING
                        and len(b.local_tasks()) == 2, timeout=120), b.metrics()
        feeding.join(30)
        expected.update(second)
        warmup = b.metrics()["warmup"]
        tasks = sorted(b.local_tasks())
        assert warmup["joined"] and list(warmup["lag"]) == [str(t) for t in tasks]  # predicted
        assert all(lag <= LAG for lag in warmup["lag"].values()), warmup
        starts = [c for c in on_b.calls if c[0] == "start"]
        assert starts == [("start", (changelog, t.partition), 0) for t in tasks]
        batches = [c for c in on_b.calls if c[0] == "batch"]
        for t in tasks:
            loaded = sum(c[3] for c in batches if c[1:3] == ((changelog, t.partition), t))
            assert loaded > LAG, (t, loaded)  # each had more than LAG records to load
        # while it warmed up, B had no stream thread, at most one warm-up catching up, and A
        # owned every partition
        everything = [(source, p) for p in range(PARTITIONS)]
        assert on_b.seen and all(s[0] == 0 and s[1] <= 1 and s[2] == everything
                                 for s in on_b.seen), on_b.seen
        assert {s[1] for s in on_b.seen} == {1}
        for t in tasks:
            assert ("suspended", (changelog, t.partition), SuspendReason.PROMOTED) in on_b.calls
            assert _restored(b, str(t)) <= LAG + len(second)  # the tail, not the changelog

        on_c = Recorder(pause=0.3)
        c = _instance(kafka, app_id, source, sink, "c", on_c)
        assert wait_for(lambda: on_c.seen, timeout=60)
        assert c.metrics()["client"]["alive-stream-threads"] == 0
        closing = time.monotonic()
        assert c.close(timeout=10_000)
        assert time.monotonic() - closing < 10
        assert c.state is ks.KafkaStreams.State.NOT_RUNNING
        assert c.metrics()["client"]["alive-stream-threads"] == 0
        assert not c.metrics()["warmup"]["joined"]  # it never joined the group
        assert on_c.calls[-1][0::2] == ("suspended", SuspendReason.MIGRATED)

        third = [f"k{i % 8000}" for i in range(1_000)]
        _produce(kafka, source, third)
        expected.update(third)
        total = len(first) + len(second) + len(third)
        got = kafka.read(sink, total, partitions=PARTITIONS, timeout=120, settle=1.0)
        assert _final_counts(got) == expected  # no record lost
        assert sorted(b.local_tasks()) == tasks  # C never took a task from B
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)
