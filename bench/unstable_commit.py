"""Does a committed transaction hold ``read_committed`` readers back after it committed?

On Kafka a transaction's records are readable ``read_committed`` once ``commit_transaction()``
returns. Tansu 0.6 keeps a committed transaction "prepared" until every other open
transaction that wrote to one of its partitions has ended, and counts a prepared one as open
when it computes the last stable offset; the transaction ending last settles only those that
overlap it. This script builds the smallest chain, with three transactional producers A, B,
C, topic ``o`` (2 partitions) and topic ``c`` (1 partition, a changelog A alone writes):

1. B begins and writes to ``o``-0 and ``o``-1;
2. A begins, writes to ``o``-0 and ``c``-0, commits (B is open on ``o``-0: A stays prepared);
3. C begins and writes to ``o``-1; B commits (C is open on ``o``-1: B stays prepared);
4. C commits: it settles B, which overlaps it, not A, which does not.

Every transaction has committed; **records of c readable** counts what a ``read_committed``
consumer of ``c``-0 gets in 5 s (Kafka: 1). Then A commits one more transaction, to another
topic, and **after A's next commit** counts again: A's own next commit settles its earlier one.
A kslab stream thread whose restore waits under exactly-once does that (a record to its
application's control topic), as a restore of a changelog it wrote itself before a
rebalance otherwise waits for ever.

Usage: python bench/unstable_commit.py   (one JSON line; exit code 1 when the committed record
was not readable)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _readable(bootstrap: str, group: str) -> int:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "isolation.level": "read_committed", "enable.auto.commit": False})
    consumer.assign([TopicPartition("c", 0, 0)])
    seen = 0
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not seen:
        seen += sum(1 for m in consumer.consume(10, 0.2) if m.error() is None)
    consumer.close()
    return seen


def main() -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from kslab.runtime import LocalBroker

    with LocalBroker() as broker:
        bootstrap = broker.bootstrap_servers
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for future in admin.create_topics(
                [NewTopic("o", 2, 1), NewTopic("c", 1, 1), NewTopic("x", 1, 1)]).values():
            future.result(10)

        def producer(tid: str) -> Producer:
            p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid})
            p.init_transactions(10)
            p.begin_transaction()
            return p

        a, b, c = producer("A"), producer("B"), producer("C")
        for partition in (0, 1):
            b.produce("o", b"B", partition=partition)
        b.flush(10)
        a.produce("o", b"A", partition=0)
        a.produce("c", b"A's changelog record", partition=0)
        a.commit_transaction(10)
        c.produce("o", b"C", partition=1)
        c.flush(10)
        b.commit_transaction(10)
        c.commit_transaction(10)
        before = _readable(bootstrap, "r1")
        a.begin_transaction()
        a.produce("x", b"settle", partition=0)
        a.commit_transaction(10)
        after = _readable(bootstrap, "r2")
        print(json.dumps({"records_of_c_readable": before,
                          "after_A_next_commit": after}))
        sys.exit(0 if before == 1 else 1)


if __name__ == "__main__":
    main()
