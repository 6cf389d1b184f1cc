"""Does the broker fence a transactional offset commit from a consumer that left the group?

Exactly-once v2 (KIP-447) fences zombies by the group: a stream thread sends its input offsets
to its transaction with ``send_offsets_to_transaction(offsets, consumer_group_metadata())``, and
Kafka refuses them (and so the transaction) when that member id and generation are no longer
the group's, so a thread whose partitions moved (it was dropped after ``session.timeout.ms`` or
``max.poll.interval.ms``) cannot commit output or offsets for them. This script checks the
broker does: consumer A joins a group and leaves it, consumer B joins and is given every
partition, and a transactional producer then sends offset 42 with A's (stale) group metadata,
with one output record, and commits. It prints whether that commit went through and the
group's committed offset afterwards.

Usage: python bench/zombie_offsets.py   (one line; exit code 1 when the stale commit went through)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GROUP = {"group.id": "g", "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
         "enable.auto.commit": False}


def _joined(bootstrap: str) -> object:
    from confluent_kafka import Consumer

    consumer = Consumer({"bootstrap.servers": bootstrap, **GROUP})
    consumer.subscribe(["t"])
    deadline = time.monotonic() + 30
    while not consumer.assignment() and time.monotonic() < deadline:
        consumer.poll(0.1)
    return consumer


def main() -> None:
    from confluent_kafka import KafkaException, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    from kslab.runtime import LocalBroker

    with LocalBroker() as broker:
        bootstrap = broker.bootstrap_servers
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for future in admin.create_topics([NewTopic("t", 2, 1), NewTopic("o", 1, 1)]).values():
            future.result(10)
        a = _joined(bootstrap)
        stale = a.consumer_group_metadata()
        a.close()  # A leaves: its member id and generation are no longer the group's
        b = _joined(bootstrap)
        producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": "zombie"})
        producer.init_transactions(10)
        producer.begin_transaction()
        producer.produce("o", b"zombie output", partition=0)
        try:
            producer.send_offsets_to_transaction([TopicPartition("t", 0, 42)], stale, 10)
            producer.commit_transaction(10)
            went_through = True
        except KafkaException as exc:
            went_through = False
            print(f"refused: {exc}")
        (committed,) = b.committed([TopicPartition("t", 0)], timeout=10)
        b.close()
        print(f"stale-member commit went through: {went_through}; group's offset for t-0 now: "
              f"{committed.offset}")
        sys.exit(1 if went_through else 0)


if __name__ == "__main__":
    main()
