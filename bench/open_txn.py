"""Does the broker abort a dead producer's open transaction after ``transaction.timeout.ms``?

Kafka's transaction coordinator aborts a transaction left open longer than its producer's
``transaction.timeout.ms``, so a producer killed mid-transaction and never restarted under the
same ``transactional.id`` holds ``read_committed`` readers of its partitions back for that long
at most. This script checks the broker does: a child process begins a transaction
(``transaction.timeout.ms`` 10000, as kslab's stream threads set it), writes one record and is
killed with SIGKILL; another producer then commits a record to the same partition. After
``--wait`` s it reports whether the dead transaction has an abort marker (from the raw log, as
``tests/runtime/committed_log.py`` reads it) and whether a ``read_committed`` consumer got the
committed record.

With ``--same-id`` the committing producer uses the dead one's ``transactional.id``, as a
restarted stream thread does: Kafka then aborts the dead transaction (an ABORT marker) before
the new one begins. The report adds the records a reader applying the markers as they stand
(``committed_log``) counts as committed: 1 is right, 2 means the dead transaction's record
reads as committed by the next transaction's COMMIT marker (no ABORT marker between them).

Usage: python bench/open_txn.py [--wait 30] [--same-id]   (one JSON line; exit code 1 if the
dead transaction is still open)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

CHILD = """
import os, signal, sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1], "transactional.id": "dead-" + sys.argv[2],
              "transaction.timeout.ms": 10000})
p.init_transactions(10)
p.begin_transaction()
p.produce(sys.argv[2], b"never committed", partition=0)
p.flush(10)
os.kill(os.getpid(), signal.SIGKILL)
"""


def main() -> None:
    from committed_log import aborted_record_count, open_record_count, read_committed_log
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    from kslab.runtime import LocalBroker

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wait", type=float, default=30)
    parser.add_argument("--same-id", action="store_true")
    args = parser.parse_args()
    with LocalBroker() as broker:
        bootstrap, topic = broker.bootstrap_servers, "open-txn"
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
            future.result(10)
        subprocess.run([sys.executable, "-c", CHILD, bootstrap, topic], check=False, timeout=60)
        live = Producer({"bootstrap.servers": bootstrap,
                         "transactional.id": f"dead-{topic}" if args.same_id else "live"})
        live.init_transactions(10)
        live.begin_transaction()
        live.produce(topic, b"committed", partition=0)
        live.commit_transaction(10)
        time.sleep(args.wait)
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader",
                             "isolation.level": "read_committed", "enable.partition.eof": True})
        consumer.assign([TopicPartition(topic, 0, 0)])
        seen: list[bytes] = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and b"committed" not in seen:
            seen += [m.value() for m in consumer.consume(10, 0.2) if m.error() is None]
        consumer.close()
        result = {"waited_s": args.wait,
                  "dead_txn_records_still_open": open_record_count(bootstrap, topic),
                  "dead_txn_records_aborted": aborted_record_count(bootstrap, topic),
                  "read_committed_consumer_saw": [v.decode() for v in seen],
                  "committed_by_the_markers": [v.decode() for _, v, _ in
                                               read_committed_log(bootstrap, topic)]}
        print(json.dumps(result))
        sys.exit(1 if result["dead_txn_records_still_open"] else 0)


if __name__ == "__main__":
    main()
