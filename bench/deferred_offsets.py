"""Does the broker apply a committed transaction's offsets when the commit returns, and keep them?

On Kafka, ``commit_transaction()`` returns once the transaction's offsets (sent with
``send_offsets_to_transaction``) are the group's committed offsets, together with its output.
Tansu 0.6 (its ``txn_end``) applies them only once every other open transaction that wrote to
one of the same partitions has ended too; until then they wait in the producer's transaction
state, and the producer's next transaction (same producer id and epoch) writes into that same
state. When that next transaction is aborted (its producer killed and fenced by a restart with
the same ``transactional.id``, which aborts it), the waiting offsets are dropped with it: the
first transaction's output stays committed, its input offsets are never committed, and
whoever reads the group's offsets next processes that input again.

This script checks both on one partition of an output topic ``o`` and one of an input topic
``in``, with two transactional producers, A and B, and a consumer in group ``g`` for the
group metadata:

1. B begins a transaction and writes a record to ``o`` (and stays open).
2. A begins, writes a record to ``o``, sends input offset 10 for group ``g``, commits:
   **offset after A's commit** is the group's committed offset once ``commit_transaction``
   returned (Kafka: 10).
3. A begins its next transaction and writes another record to ``o``; then a new producer with
   A's ``transactional.id`` calls ``init_transactions`` (A was killed and restarted: the open
   transaction is aborted), and B commits.
4. **offset at the end** is the group's committed offset then (Kafka: 10), and **A's first
   record committed** says whether a reader applying the markers sees A's first record.

With ``--no-abort`` A commits its second transaction instead of being restarted: once both
have ended the waiting offset is applied (**offset at the end** 10), late but not lost.

Usage: python bench/deferred_offsets.py [--no-abort]   (one JSON line; exit code 1 when the
offset of a committed transaction was not applied at once or was lost)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

GROUP = {"group.id": "g", "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
         "enable.auto.commit": False}


def _committed(consumer: object) -> int:
    from confluent_kafka import TopicPartition

    (tp,) = consumer.committed([TopicPartition("in", 0)], timeout=10)  # type: ignore[attr-defined]
    return tp.offset


def main() -> None:
    from committed_log import read_committed_log
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    from kslab.runtime import LocalBroker

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-abort", action="store_true",
                        help="A commits its second transaction instead of being restarted")
    args = parser.parse_args()
    with LocalBroker() as broker:
        bootstrap = broker.bootstrap_servers
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for future in admin.create_topics([NewTopic("in", 1, 1), NewTopic("o", 1, 1)]).values():
            future.result(10)
        consumer = Consumer({"bootstrap.servers": bootstrap, **GROUP})
        consumer.subscribe(["in"])
        deadline = time.monotonic() + 30
        while not consumer.assignment() and time.monotonic() < deadline:
            consumer.poll(0.1)
        group = consumer.consumer_group_metadata()

        def producer(tid: str) -> Producer:
            p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid,
                          "transaction.timeout.ms": 10000})
            p.init_transactions(10)
            return p

        a, b = producer("A"), producer("B")
        b.begin_transaction()
        b.produce("o", b"B", partition=0)
        b.flush(10)
        a.begin_transaction()
        a.produce("o", b"A first", partition=0)
        a.send_offsets_to_transaction([TopicPartition("in", 0, 10)], group, 10)
        a.commit_transaction(10)
        after_commit = _committed(consumer)
        a.begin_transaction()
        a.produce("o", b"A second", partition=0)
        a.flush(10)
        if args.no_abort:
            a.commit_transaction(10)
        else:
            producer("A")  # A restarted: its open transaction is aborted
        b.commit_transaction(10)
        time.sleep(1)
        at_end = _committed(consumer)
        consumer.close()
        committed = [v.decode() for _, v, _ in read_committed_log(bootstrap, "o")]
        result = {"offset_after_A_commit": after_commit, "offset_at_the_end": at_end,
                  "committed_records": committed,
                  "A_first_record_committed": "A first" in committed}
        print(json.dumps(result))
        sys.exit(0 if after_commit == 10 and at_end == 10 else 1)


if __name__ == "__main__":
    main()
