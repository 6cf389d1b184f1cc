"""Fail-over with and without standby replicas: three instances, one killed with SIGKILL under load.

Each round starts three ``KafkaStreams`` child processes (a count per key in a persistent store,
every update logged, 3 partitions: one task each) with ``num.standby.replicas`` 0 or 1, preloads
``--keys`` distinct keys (so each changelog partition holds about a third of them), waits until
every instance has processed them and every standby has caught up, then produces ``--rate``
records/s of new keys and, after ``--load-s`` s of that, kills one instance with SIGKILL.
It measures, from the kill: the time until an interactive query (HTTP, at the survivors'
``application.server``) for a probe key of the killed instance's partition answers with its
value again, and the records the survivors restored from changelogs (the killed instance's
task's, and every task's after the rebalance, from the ``task ... restored`` log lines). The
instance killed is the one with the last partition: the range assignor then also moves one of
the survivors' tasks to the other survivor, so two tasks change hands. The load goes on until the
probe answers. Group settings are the tests' (session timeout 6 s): detecting the death takes
most of the time in both rounds; the restore is the difference.

Usage: python bench/standby.py [--keys 300000] [--rate 2000] [--load-s 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PARTITIONS = 3
PROBE_COUNT = 2  # the probe key is written twice: its last write ends the preload


# -- the instance (a child process) ------------------------------------------------------------


def child(bootstrap: str, app_id: str, source: str, sink: str, state: str, port: int,
          replicas: int, status: str) -> None:
    """Run one instance and write its status (tasks, restores, standbys) to ``status`` often."""
    import kslab as ks
    from kslab import serdes

    restores: list[tuple[str, int, float]] = []

    class Restores(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.msg == "task %s restored %d records in %.0f ms":
                task, count, ms = record.args  # type: ignore[misc]
                restores.append((str(task), int(count), float(ms)))

    logger = logging.getLogger("kslab.runtime")
    logger.setLevel(logging.INFO)
    logger.addHandler(Restores())

    class Count(ks.Processor):
        def init(self, context: Any) -> None:
            self.context = context
            self.store = context.get_state_store("counts")

        def process(self, record: Any) -> None:
            count = (self.store.get(record.key) or 0) + 1
            self.store.put(record.key, count)
            self.context.forward(record.with_value(count))

    topo = ks.Topology()
    topo.add_source("in", source, key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("count", Count, "in")
    topo.add_state_store(ks.Stores.key_value_store_builder(
        ks.Stores.persistent_key_value_store("counts"), serdes.String(), serdes.Long()), "count")
    topo.add_sink("out", sink, "count", key_serde=serdes.String(), value_serde=serdes.Long())
    streams = ks.KafkaStreams(topo, {
        "application.id": app_id, "bootstrap.servers": bootstrap, "state.dir": state,
        "application.server": f"localhost:{port}", "num.standby.replicas": replicas,
        "commit.interval.ms": 100, "statestore.cache.max.bytes": 0,
        "consumer.session.timeout.ms": 6000, "consumer.heartbeat.interval.ms": 500})
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    streams.start()
    while not done.wait(0.1):
        metrics = streams.metrics()
        threads = metrics["threads"].values()
        out = {
            "state": streams.state.name,
            "active": sorted(str(t) for t in streams.local_tasks()),
            "processed": sum(t["process-total"] for t in threads),
            "standby": metrics.get("standby", {}).get("standby-tasks", []),
            "standby_updates": metrics.get("standby", {}).get("update-total", 0),
            "restores": restores,
        }
        tmp = status + ".tmp"
        Path(tmp).write_text(json.dumps(out))
        os.replace(tmp, status)
    streams.close(timeout=10_000)


# -- the harness ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _status(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _wait(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def _answers(port: int, key: str, value: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/stores/counts/{key}",
                                    timeout=2) as response:
            return json.loads(response.read()).get("value") == value
    except (urllib.error.URLError, OSError, ValueError):
        return False


def one_round(bootstrap: str, replicas: int, keys: int, rate: int, load_s: float,
              tag: str) -> dict[str, Any]:
    """Start three instances, preload, kill one under load; the round's figures."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from kslab.processor.partitioner import default_partition

    app_id, source, sink = f"sb-{tag}", f"sb-{tag}-in", f"sb-{tag}-out"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(source, PARTITIONS, 1),
                                       NewTopic(sink, PARTITIONS, 1)]).values():
        future.result(10)
    root = Path(tempfile.mkdtemp(prefix=f"kslab-standby-{tag}-"))
    ports = [_free_port() for _ in range(3)]
    statuses = [root / f"status-{i}.json" for i in range(3)]
    children = [subprocess.Popen(
        [sys.executable, __file__, "--child", bootstrap, app_id, source, sink,
         str(root / f"state-{i}"), str(ports[i]), str(replicas), str(statuses[i])],
        stderr=subprocess.DEVNULL) for i in range(3)]
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5,
                         "partitioner": "murmur2_random"})
    try:
        _wait(lambda: all(_status(s).get("state") == "RUNNING" and len(_status(s)["active"])
                          == 1 for s in statuses), 120, "three running instances")
        # the owner of the last partition: the range assignor then also moves a survivor's
        # task (the first survivor takes partitions 0 and 1), the harder case
        task = f"0_{PARTITIONS - 1}"
        victim = next(i for i in range(3) if _status(statuses[i])["active"] == [task])
        partition = PARTITIONS - 1
        probe = next(f"key-{i}" for i in range(keys)
                     if default_partition(f"key-{i}".encode(), PARTITIONS) == partition)
        for i in range(keys):
            producer.produce(source, b"x", f"key-{i}".encode())
            if i % 10000 == 9999:
                producer.flush(60)
        producer.produce(source, b"x", probe.encode())
        producer.flush(60)
        total = keys + 1
        _wait(lambda: sum(_status(s).get("processed", 0) for s in statuses) >= total, 600,
              "the preload processed")
        if replicas:  # every standby caught up: its update count stops moving
            _wait(lambda: len({t for s in statuses for t in _status(s).get("standby", [])})
                  == PARTITIONS, 60, "a standby of every task")
            last = [-1]

            def settled() -> bool:
                now = sum(_status(s).get("standby_updates", 0) for s in statuses)
                steady, last[0] = now == last[0], now
                time.sleep(1.0)
                return steady

            _wait(settled, 300, "standbys caught up")
        holder = [i for i in range(3) if task in _status(statuses[i]).get("standby", [])]
        stop = threading.Event()

        def load() -> None:
            n = 0
            start = time.monotonic()
            while not stop.is_set():
                due = int((time.monotonic() - start) * rate)
                while n < due:
                    producer.produce(source, b"x", f"load-{n}".encode())
                    n += 1
                producer.poll(0)
                time.sleep(0.01)
            producer.flush(30)

        loader = threading.Thread(target=load, daemon=True)
        loader.start()
        time.sleep(load_s)
        before = {i: len(_status(statuses[i]).get("restores", [])) for i in range(3)}
        killed_at = time.monotonic()
        children[victim].send_signal(signal.SIGKILL)
        children[victim].wait(10)
        survivors = [i for i in range(3) if i != victim]
        _wait(lambda: any(_answers(ports[i], probe, PROBE_COUNT) for i in survivors), 300,
              "the probe to answer")
        answered = time.monotonic() - killed_at
        stop.set()
        loader.join(30)
        _wait(lambda: all(_status(statuses[i]).get("state") == "RUNNING" for i in survivors)
              and any(task in _status(statuses[i])["active"] for i in survivors), 60,
              "the survivors running")
        new_owner = next(i for i in survivors if task in _status(statuses[i])["active"])
        after = [r for i in survivors
                 for r in _status(statuses[i])["restores"][before[i]:]]
        moved = [r for r in _status(statuses[new_owner])["restores"][before[new_owner]:]
                 if r[0] == task]
        return {
            "replicas": replicas, "answered_s": answered,
            "moved_restored": sum(r[1] for r in moved),
            "moved_restore_ms": sum(r[2] for r in moved),
            "all_restored": sum(r[1] for r in after),
            "standby_on_new_owner": new_owner in holder,
        }
    finally:
        for child_process in children:
            if child_process.poll() is None:
                child_process.send_signal(signal.SIGTERM)
        for child_process in children:
            try:
                child_process.wait(30)
            except subprocess.TimeoutExpired:
                child_process.kill()
        producer.flush(10)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        args = sys.argv[2:]
        child(args[0], args[1], args[2], args[3], args[4], int(args[5]), int(args[6]), args[7])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=300_000)
    parser.add_argument("--rate", type=int, default=2000)
    parser.add_argument("--load-s", type=float, default=3.0)
    args = parser.parse_args()
    from kslab.runtime import LocalBroker

    rows = []
    with LocalBroker() as broker:
        for replicas in (0, 1):
            tag = f"{replicas}-{int(time.time())}"
            rows.append(one_round(broker.bootstrap_servers, replicas, args.keys, args.rate,
                                  args.load_s, tag))
            print(json.dumps(rows[-1]), flush=True)
    load = os.getloadavg()[0]
    print(f"\nload average {load:.2f}; {args.keys:,} keys, {args.rate:,} rec/s of load\n")
    print("| num.standby.replicas | until the store answers (s) | restored, moved task "
          "| its restore (ms) | restored, all tasks | new owner held a standby |")
    print("|---:|---:|---:|---:|---:|---|")
    for row in rows:
        print(f"| {row['replicas']} | {row['answered_s']:.1f} | {row['moved_restored']:,} | "
              f"{row['moved_restore_ms']:,.0f} | {row['all_restored']:,} | "
              f"{'yes' if row['standby_on_new_owner'] else 'no'} |")
    if rows[0]["moved_restored"]:
        share = rows[1]["moved_restored"] / rows[0]["moved_restored"]
        print(f"\nrestored with standbys / without: {share:.1%} (goal: under 10%)")


if __name__ == "__main__":
    main()
