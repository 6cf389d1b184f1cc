"""Kill a consumer group's leader mid-rebalance: does the group get its partitions back?

Issue 22 item 6: after the group's leader died mid-rebalance, every kslab instance sat in
REBALANCING for over 5 minutes (``SyncGroup`` answered "rebalance in progress" forever) while a
new group on the same broker was assigned in 3 s. This reduces it to plain confluent-kafka
consumers (no kslab), each in a child process: ``--members`` of them join a group on a topic of
``--partitions`` partitions (range assignor, session timeout 6 s, heartbeat 500 ms, the runtime
tests' settings); once all are assigned, one more member joins (a rebalance starts) and, after a
delay, the first member (the one that joined first: the leader Kafka's coordinator elects) gets
SIGKILL. Each trial measures how long until the survivors hold every partition again; a trial
still short after ``--stuck`` s is *stuck*: then a fresh group on the same topic is timed, and
the survivors are told to close their consumers and make new ones (a new member id each, what a
client could do on its own), and that recovery is timed too.

The delays are drawn (seeded) between ``--min-delay`` and ``--max-delay`` s: the survivors
rejoin at their next heartbeat, so the JoinGroup/SyncGroup exchange the kill must fall into
lies within about a second of the new member's start.

Usage: python bench/leader_kill.py [--trials 6] [--members 3] [--partitions 8] [--stuck 60]
       [--min-delay 0.1] [--max-delay 2.0] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GROUP = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
         "partition.assignment.strategy": "range", "enable.auto.commit": False}


def child(bootstrap: str, group: str, topic: str) -> None:
    """A member: prints ``ASSIGNED <n>`` on each assignment; ``rejoin`` on stdin makes a new
    consumer (a new member id)."""
    from confluent_kafka import Consumer

    commands: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [commands.put(line.strip()) for line in sys.stdin],
                     daemon=True).start()

    def consumer() -> Any:
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, **GROUP})
        c.subscribe([topic], on_assign=lambda _c, parts: print(f"ASSIGNED {len(parts)}",
                                                              flush=True),
                    on_revoke=lambda _c, _parts: print("REVOKED", flush=True))
        return c

    c = consumer()
    while True:
        c.poll(0.1)
        try:
            command = commands.get_nowait()
        except queue.Empty:
            continue
        if command == "rejoin":
            c.close()
            c = consumer()


class Member:
    """A child member and its latest assignment size (None while revoked)."""

    def __init__(self, bootstrap: str, group: str, topic: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", json.dumps([bootstrap, group, topic])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.assigned: int | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("ASSIGNED"):
                self.assigned = int(line.split()[1])
            elif line.startswith("REVOKED"):
                self.assigned = None

    def rejoin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("rejoin\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def until(predicate: Any, timeout: float) -> float | None:
    """Seconds until ``predicate()`` holds, or None after ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.05)
    return None


def trial(bootstrap: str, admin: Any, n: int, members: int, partitions: int, delay: float,
          stuck: float) -> dict[str, Any]:
    """One trial: its recovery time, or stuck with the fresh group's and the rejoin's times."""
    from confluent_kafka.admin import NewTopic

    topic, group = f"lk-{n}-{time.time_ns()}", f"lk-group-{n}"
    for future in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        future.result(10)
    group_members = []
    for _ in range(members):  # one at a time: the first to join leads
        group_members.append(Member(bootstrap, group, topic))
        until(lambda: sum(m.assigned or 0 for m in group_members) == partitions, 60)
    try:
        joiner = Member(bootstrap, group, topic)
        time.sleep(delay)
        leader = group_members[0]
        leader.kill()
        survivors = [*group_members[1:], joiner]

        def whole() -> bool:
            return sum(m.assigned or 0 for m in survivors) == partitions

        recovered = until(whole, stuck)
        out: dict[str, Any] = {"delay_s": delay, "recovered_s": recovered}
        if recovered is None:
            fresh = Member(bootstrap, f"{group}-fresh", topic)
            out["fresh_group_s"] = until(lambda: fresh.assigned == partitions, 60)
            fresh.kill()
            for m in survivors:
                m.rejoin()
            out["after_rejoin_s"] = until(whole, 120)
        return out
    finally:
        for m in [*group_members, joiner]:
            if m.proc.poll() is None:
                m.kill()


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(*json.loads(sys.argv[2]))
        return
    from confluent_kafka.admin import AdminClient

    from kslab.runtime import LocalBroker

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--members", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--stuck", type=float, default=60)
    parser.add_argument("--min-delay", type=float, default=0.1)
    parser.add_argument("--max-delay", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    with LocalBroker() as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
        for n in range(args.trials):
            delay = round(rnd.uniform(args.min_delay, args.max_delay), 3)
            print(json.dumps(trial(broker.bootstrap_servers, admin, n, args.members,
                                   args.partitions, delay, args.stuck)), flush=True)


if __name__ == "__main__":
    main()
