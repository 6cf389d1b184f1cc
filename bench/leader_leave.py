"""A consumer group's leader leaves cleanly mid-rebalance: does the group get its partitions back?

``leader_kill.py``'s leader dies (SIGKILL) and the group recovers; here it closes its consumer
(a LeaveGroup), as a removed stream thread or a closed instance does. Plain confluent-kafka
consumers on the LocalBroker (no kslab): ``a-leader`` and ``b`` join a group on a 1-partition
topic (range assignor, session timeout 6 s, heartbeat 500 ms, max.poll.interval.ms 10 s), then
``c`` joins (a rebalance starts) and, ``DELAY`` s later, ``a-leader`` closes. Every 4 s it
prints each member's last callback; on Tansu 0.6 ``b`` and ``c`` are never assigned again
(40 s and counting, both delays 0.2 and 1.0), where Kafka restarts the rebalance without the
member that left. Found by the port of ``AdjustStreamThreadCountTest``
(``shouldAddAndRemoveThreadsMultipleTimes``: kslab removes the oldest thread, the leader).

Usage: python bench/leader_leave.py [DELAY]   (default 0.2)
"""

from __future__ import annotations

import sys
import threading
import time

from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic

from kslab.runtime import LocalBroker


def main(delay: float) -> None:
    with LocalBroker() as broker:
        servers = broker.bootstrap_servers
        admin = AdminClient({"bootstrap.servers": servers})
        for future in admin.create_topics([NewTopic("t", 1, 1)]).values():
            future.result()
        conf = {"bootstrap.servers": servers, "group.id": "g", "session.timeout.ms": 6000,
                "heartbeat.interval.ms": 500, "enable.auto.commit": False,
                "partition.assignment.strategy": "range", "max.poll.interval.ms": 10000}
        start = time.monotonic()
        state: dict[str, tuple[str, float]] = {}
        stops: dict[str, threading.Event] = {}

        def member(name: str) -> None:
            consumer = Consumer({**conf, "client.id": name})
            stop = stops[name]

            def seen(what: str) -> object:
                return lambda _c, _p: state.__setitem__(
                    name, (what, round(time.monotonic() - start, 1)))

            consumer.subscribe(["t"], on_assign=seen("assigned"), on_revoke=seen("revoked"))
            while not stop.is_set():
                consumer.consume(100, 0.1)
            consumer.close()

        threads = {}
        for name in ("a-leader", "b", "c"):
            stops[name] = threading.Event()
            threads[name] = threading.Thread(target=member, args=(name,))
            threads[name].start()
            if name == "b":
                time.sleep(10)  # a-leader and b settle
                print("settled:", state, flush=True)
            elif name == "a-leader":
                time.sleep(2)
        time.sleep(delay)
        stops["a-leader"].set()
        threads["a-leader"].join()
        print(f"a-leader closed at {time.monotonic() - start:.1f} s", flush=True)
        for _ in range(10):
            time.sleep(4)
            print(f"{time.monotonic() - start:.0f} s:", state, flush=True)
        for stop in stops.values():
            stop.set()
        for thread in threads.values():
            thread.join()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.2)
