"""KIP-441 warm-ups against the LocalBroker: a starting instance copies the stateful tasks the
range assignor will give it before its threads join the group (``kslab.runtime._warmup``).

A counts a large input in a child process (``standby_app.py``); B starts here beside it with a
small ``acceptable.recovery.lag``: while B's warm-up loads its task's changelog, B has no stream
thread and A still owns every partition (checked on each loaded batch, as the hosts topic shows
the group); B joins once caught up, its active task restores only the tail, and every count in
the output is exact.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from runtime_fixtures import wait_for
from standby_cases import count_app, standby_config
from test_crash import _wait_running

import kslab as ks
from kslab.processor.partitioner import default_partition
from kslab.records import TaskId
from kslab.runtime import SuspendReason
from kslab.runtime._placement import live_members, partitions_on_join

APP = Path(__file__).parent / "standby_app.py"
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
        by_partition.setdefault(default_partition(key.encode(), 2), []).append(
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


@pytest.mark.slow
def test_a_joining_instance_takes_its_task_only_once_its_warm_up_caught_up(kafka):
    source, sink = kafka.create(kafka.name("in"), 2), kafka.create(kafka.name("out"), 2)
    app_id = kafka.name("warm")
    first = [f"k{i % 6000}" for i in range(24_000)]
    _produce(kafka, source, first)
    expected = Counter(first)
    child = subprocess.Popen(
        [sys.executable, str(APP), kafka.bootstrap, app_id, source, sink,
         str(kafka.tmp_path / "a"), "", "0", json.dumps(WARMUP)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        _wait_running(child)
        got = kafka.read(sink, len(first), partitions=2, timeout=120)  # a count per record
        assert _final_counts(got) == expected
        config = {**standby_config(kafka.bootstrap, app_id, str(kafka.tmp_path / "b"), "", 0),
                  **WARMUP}
        b = kafka.track(ks.KafkaStreams(count_app(source, sink), config))
        seen: list[tuple] = []  # per warm-up batch: B's threads, the partitions A owns
        calls: list[tuple] = []

        class Listener:
            def on_update_start(self, tp, store, offset):
                calls.append(("start", tp, offset))

            def on_batch_loaded(self, tp, store, task_id, end, size, current_end):
                calls.append(("batch", tp, task_id, size))
                if not b.metrics()["warmup"]["joined"]:
                    members = b.standbys.members()
                    seen.append((b.metrics()["client"]["alive-stream-threads"],
                                 sorted(tp for m in members for tp in m.partitions)))

            def on_update_suspended(self, tp, store, offset, current_end, reason):
                calls.append(("suspended", tp, reason))

        b.set_standby_update_listener(Listener())
        b.start()
        assert wait_for(lambda: calls, timeout=60)
        second = [f"k{i % 6000}" for i in range(2_000)]  # A counts these while B warms up
        feeding = threading.Thread(target=_produce, args=(kafka, source, second))
        feeding.start()
        assert wait_for(lambda: b.state is ks.KafkaStreams.State.RUNNING
                        and len(b.local_tasks()) == 1, timeout=120), b.metrics()
        feeding.join(30)
        expected.update(second)
        warmup = b.metrics()["warmup"]
        task = next(iter(b.local_tasks()))
        assert warmup["joined"] and list(warmup["lag"]) == [str(task)]  # the predicted task
        assert warmup["lag"][str(task)] <= LAG
        changelog = (f"{app_id}-counts-changelog", task.partition)
        assert calls[0] == ("start", changelog, 0)
        batches = [c for c in calls if c[0] == "batch"]
        assert batches and all(c[1:3] == (changelog, TaskId(0, task.partition))
                               for c in batches)
        assert sum(c[3] for c in batches) > LAG  # it had more than LAG records to load
        # while it warmed up, B had no stream thread and A owned both partitions
        assert seen and all(s == (0, [(source, 0), (source, 1)]) for s in seen), seen
        assert ("suspended", changelog, SuspendReason.PROMOTED) in calls
        assert _restored(b, str(task)) <= LAG + len(second)  # the tail, not the changelog
        third = [f"k{i % 6000}" for i in range(1_000)]
        _produce(kafka, source, third)
        expected.update(third)
        total = len(first) + len(second) + len(third)
        got = kafka.read(sink, total, partitions=2, timeout=120, settle=1.0)
        assert _final_counts(got) == expected  # no record lost
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)
