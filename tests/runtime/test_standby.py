"""Standby replicas (``num.standby.replicas``) against the LocalBroker.

Instances are ``KafkaStreams`` clients with their own state directories: two in this process
(threads) and, where one must die by SIGKILL, a third in a child process (``standby_app.py``).
Records are produced to the partition Kafka's default partitioner (murmur2) picks, so each key's
count lives in the task ``query_metadata_for_key`` names.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from runtime_fixtures import wait_for
from standby_cases import count_app, standby_config
from test_crash import _wait_running
from test_iq import _free_port

import kslab as ks
from kslab.processor.partitioner import default_partition
from kslab.records import TaskId
from kslab.runtime import StoreQueryParameters, SuspendReason
from kslab.runtime._placement import live_members, range_owner, standby_processes

APP = Path(__file__).parent / "standby_app.py"
STALE = StoreQueryParameters.from_name_and_type("counts").enable_stale_stores()


def _produce(kafka, topic: str, keys: list[str], partitions: int) -> None:
    by_partition: dict[int, list[tuple[bytes, bytes]]] = {}
    for key in keys:
        raw = key.encode()
        by_partition.setdefault(default_partition(raw, partitions), []).append((raw, b"x"))
    for partition, records in sorted(by_partition.items()):
        kafka.produce(topic, records, partition=partition)


def _counts_of(expected: Counter, partition: int, partitions: int) -> dict[str, int]:
    return {k: n for k, n in expected.items()
            if default_partition(k.encode(), partitions) == partition}


def _store_counts(streams, partition: int) -> dict[str, int]:
    view = streams.store(STALE.with_partition(partition))
    with view.all() as entries:
        return {kv.key: kv.value for kv in entries}


def _restored(streams, task: str) -> int | None:
    for thread in streams.metrics()["threads"].values():
        if task in thread["tasks"]:
            return thread["tasks"][task]["restore-total"]
    return None


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """An interactive query over HTTP: (status, the value, or the host a 421 names)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=10) as response:
            return response.status, json.loads(response.read())["value"]
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()).get("host")


def _standby_tasks(streams) -> list[str]:
    return streams.metrics().get("standby", {}).get("standby-tasks", [])


def _start(kafka, app_id: str, source: str, sink: str, name: str, *, persistent: bool = True,
           replicas: int = 1, guarantee: str = "at_least_once"):
    port = _free_port()
    config = standby_config(kafka.bootstrap, app_id, str(kafka.tmp_path / name),
                            f"localhost:{port}", replicas)
    config["processing.guarantee"] = guarantee
    streams = kafka.track(ks.KafkaStreams(count_app(source, sink, persistent=persistent),
                                          config))
    return streams, port


def test_placement_follows_the_range_assignor_and_kafkas_rules():
    # the range assignor: 7 partitions over 3 members -> 3, 2, 2
    assert [range_owner(["a", "b", "c"], p, 7) for p in range(7)] == [0, 0, 0, 1, 1, 2, 2]
    assert [range_owner(["a", "b"], p, 1) for p in range(1)] == [0]
    entries = {
        "t-a": {"process": "A", "sort": "m-a", "host": "h:1", "partitions": [["in", 0]],
                "time": 1.0},
        "t-b": {"process": "B", "sort": "m-b", "host": "h:2", "partitions": [["in", 1]],
                "time": 1.0},
        "t-c": {"process": "C", "sort": "m-c", "host": "h:3", "partitions": [["in", 2]],
                "time": 1.0},
        "t-gone": {"process": "D", "sort": "m-d", "closed": True, "partitions": [],
                   "time": 0.5},
    }
    members = live_members(entries)
    assert [m.process for m in members] == ["A", "B", "C"]
    # B's partition 1 goes to A when B leaves (range over a, c: 0 and 1 -> a, 2 -> c)
    assert standby_processes(1, 3, "B", members, 1) == ["A"]
    assert standby_processes(1, 3, "B", members, 2) == ["A", "C"]
    assert standby_processes(0, 3, "A", members, 1) == ["B"]
    assert standby_processes(2, 3, "C", members, 2) == ["B", "A"]
    assert standby_processes(2, 3, "C", members, 5) == ["B", "A"]  # one copy per instance
    assert standby_processes(0, 3, "A", members, 0) == []
    # C died and its partition was given out again: its entry no longer names a member
    entries["t-a"] = {**entries["t-a"], "partitions": [["in", 0], ["in", 2]], "time": 2.0}
    assert [m.process for m in live_members(entries)] == ["B", "A"]


@pytest.mark.slow
def test_a_killed_instance_s_task_resumes_from_the_standby(kafka):
    """A and B here, C in a child process; each standby holds its active's exact counts, and
    when C dies by SIGKILL the instance with C's standby takes the task and restores nothing."""
    source, sink = kafka.create(kafka.name("in"), 3), kafka.create(kafka.name("out"), 3)
    app_id = kafka.name("standby")
    a, port_a = _start(kafka, app_id, source, sink, "a")
    b, port_b = _start(kafka, app_id, source, sink, "b")
    port_c = _free_port()
    child = subprocess.Popen(
        [sys.executable, str(APP), kafka.bootstrap, app_id, source, sink,
         str(kafka.tmp_path / "c"), f"localhost:{port_c}", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        a.start()
        b.start()
        _wait_running(child)
        keys = [f"k{i % 30}" for i in range(900)]
        _produce(kafka, source, keys, 3)
        expected = Counter(keys)
        assert wait_for(lambda: len(a.local_tasks()) == len(b.local_tasks()) == 1
                        and len(_standby_tasks(a) + _standby_tasks(b)) >= 1, timeout=60), \
            (a.local_tasks(), b.local_tasks(), _standby_tasks(a), _standby_tasks(b))
        mine = {str(t) for s in (a, b) for t in s.local_tasks()}
        c_task = ({"0_0", "0_1", "0_2"} - mine).pop()
        partition = int(c_task.split("_")[1])
        # one standby per task, never beside its active, where the placement says
        hosts = {a: f"localhost:{port_a}", b: f"localhost:{port_b}"}
        def placements():
            return [{str(t): h for t, h in s.standbys.placement().items()} for s in (a, b)]

        assert wait_for(lambda: placements()[0] == placements()[1]
                        and sorted(placements()[0]) == ["0_0", "0_1", "0_2"], timeout=30)
        placement = placements()[0]
        assert all(len(h) == 1 for h in placement.values())
        for streams in (a, b):
            assert not {str(t) for t in streams.local_tasks()} & set(_standby_tasks(streams))
            assert wait_for(lambda s=streams: sorted(_standby_tasks(s)) == sorted(
                t for t, h in placement.items() if h == [hosts[s]]), timeout=30)
        heir = a if c_task in _standby_tasks(a) else b
        assert c_task in _standby_tasks(heir)
        # each standby holds exactly its active's counts (stale reads of the standby)
        for streams in (a, b):
            for standby in (int(t.split("_")[1]) for t in _standby_tasks(streams)):
                assert wait_for(lambda s=streams, p=standby:
                                _store_counts(s, p) == _counts_of(expected, p, 3), timeout=30)
        key = next(k for k in expected if default_partition(k.encode(), 3) == partition)
        meta = a.query_metadata_for_key("counts", key)
        assert (meta.active_host, meta.partition) == (ks.runtime.HostInfo("localhost", port_c),
                                                      partition)
        heir_port = port_a if heir is a else port_b
        assert meta.standby_hosts == (ks.runtime.HostInfo("localhost", heir_port),)
        assert heir.store("counts").get(key) is None  # not without stale reads
        assert heir.store(STALE).get(key) == expected[key]
        url = f"http://127.0.0.1:{heir_port}/stores/counts/{key}"
        assert _get(url) == (200, expected[key])  # asked of the active instance, C
        assert _get(url, {"X-Kslab-Forwarded": "1"}) == (421, f"localhost:{port_c}")  # no loop
        assert _get(url + "?stale=true") == (200, expected[key])  # or this standby
        time.sleep(1.0)  # C commits its last offsets
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    assert wait_for(lambda: TaskId(0, partition) in heir.local_tasks(), timeout=60)
    assert _restored(heir, c_task) == 0  # the standby was caught up: no record restored
    assert c_task not in _standby_tasks(heir)
    assert _store_counts(heir, partition) == _counts_of(expected, partition, 3)
    more = [f"k{i % 30}" for i in range(300)]
    _produce(kafka, source, more, 3)
    expected.update(more)
    assert wait_for(lambda: _store_counts(heir, partition)
                    == _counts_of(expected, partition, 3), timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize(("persistent", "guarantee"), [(False, "at_least_once"),
                                                       (True, "exactly_once_v2")])
def test_a_standby_hands_its_stores_over(kafka, persistent, guarantee):
    """Two instances: when one closes, the other's standby of its task becomes the active task
    without restoring a record (an in-memory store through a snapshot, a RocksDB one through
    its checkpoint); the listener sees it all."""
    source, sink = kafka.create(kafka.name("in"), 2), kafka.create(kafka.name("out"), 2)
    app_id = kafka.name("handover")
    a, _ = _start(kafka, app_id, source, sink, "a", persistent=persistent, guarantee=guarantee)
    b, _ = _start(kafka, app_id, source, sink, "b", persistent=persistent, guarantee=guarantee)
    calls: list[tuple] = []  # b's
    a_calls: list[tuple] = []
    ends: list[tuple[int, int]] = []  # (batch end offset or store offset, current end offset)

    class Listener:
        def __init__(self, log: list[tuple]) -> None:
            self.log = log

        def on_update_start(self, tp, store, offset):
            self.log.append(("start", tp, store, offset))

        def on_batch_loaded(self, tp, store, task_id, end, size, current_end):
            self.log.append(("batch", tp, store, task_id, end, size))
            ends.append((end, current_end))

        def on_update_suspended(self, tp, store, offset, current_end, reason):
            self.log.append(("suspended", tp, store, offset, reason))
            ends.append((offset, current_end))

    a.set_standby_update_listener(Listener(a_calls))
    b.set_standby_update_listener(Listener(calls))
    a.start()
    b.start()
    keys = [f"k{i % 20}" for i in range(400)]
    _produce(kafka, source, keys, 2)
    expected = Counter(keys)
    assert wait_for(lambda: len(a.local_tasks()) == len(b.local_tasks()) == 1
                    and len(_standby_tasks(b)) == 1, timeout=60)
    task = _standby_tasks(b)[0]
    partition = int(task.split("_")[1])
    assert wait_for(lambda: _store_counts(b, partition) == _counts_of(expected, partition, 2),
                    timeout=30)
    changelog = f"{app_id}-counts-changelog"
    tp = (changelog, partition)
    batches = [c for c in calls if c[0] == "batch"]
    assert calls[0] == ("start", tp, "counts", 0)
    assert all(c[1:4] == (tp, "counts", TaskId(0, partition)) for c in batches)
    position = batches[-1][4] + 1
    applied = sum(c[5] for c in batches)
    on_disk = kafka.read(changelog, 0, partitions=2, settle=2.0)
    own = [r for r in on_disk if r[2] != partition]
    assert applied == len(on_disk) - len(own) > 0  # every changelog record, once
    if guarantee == "at_least_once":
        assert applied == position  # no transaction markers between the records
    # the broker's end is known (not -1); its exact value is not (Tansu reports the start of
    # the last record batch + 1, and a transaction marker may follow the last record)
    assert ends and all(current > 0 for _, current in ends), ends
    assert wait_for(lambda: len(_standby_tasks(a)) == 1 and a_calls, timeout=30)
    a_task = _standby_tasks(a)[0]
    a_tp = (changelog, 1 - partition)
    assert a_task == f"0_{1 - partition}"
    assert a_calls[0] == ("start", a_tp, "counts", 0)
    assert a.close(timeout=20_000)
    # a's standby stops with its client: MIGRATED, at the last record it applied
    a_batches = [c for c in a_calls if c[0] == "batch"]
    a_last = a_batches[-1][4] if a_batches else -1
    assert a_calls[-1] == ("suspended", a_tp, "counts", a_last, SuspendReason.MIGRATED)
    assert [c[0] for c in a_calls].count("suspended") == 1
    assert wait_for(lambda: TaskId(0, partition) in b.local_tasks(), timeout=60)
    assert wait_for(lambda: b.state is ks.KafkaStreams.State.RUNNING, timeout=30)
    assert _restored(b, task) == 0, calls
    # b's own task, closed and reopened by the rebalance, had no standby: an in-memory store
    # replays its whole changelog, a RocksDB one the tail after its checkpoint (none)
    assert _restored(b, f"0_{1 - partition}") == (0 if persistent else len(own))
    assert [c for c in calls if c[0] == "suspended"] == [
        ("suspended", tp, "counts", position - 1, SuspendReason.PROMOTED)]  # the last record
    assert _store_counts(b, partition) == _counts_of(expected, partition, 2)
    key = next(k for k in expected if default_partition(k.encode(), 2) == partition)
    assert b.store("counts").get(key) == expected[key]  # now an active task's store
