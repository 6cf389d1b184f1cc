"""The raw-log ``read_committed`` reader the exactly-once crash test relies on."""

from __future__ import annotations

from committed_log import read_committed_log
from confluent_kafka import Producer


def test_reader_hides_aborted_and_open_transactions_and_keeps_offset_order(kafka):
    topic = kafka.create(kafka.name("txn"))
    plain = Producer({"bootstrap.servers": kafka.bootstrap})
    txn = Producer({"bootstrap.servers": kafka.bootstrap,
                    "transactional.id": kafka.name("reader-probe")})
    txn.init_transactions(10)
    plain.produce(topic, b"p1", b"k")
    plain.flush(10)
    txn.begin_transaction()
    txn.produce(topic, b"aborted", b"k")
    txn.flush(10)
    txn.abort_transaction(10)
    txn.begin_transaction()
    txn.produce(topic, b"c1", b"k")
    txn.flush(10)
    plain.produce(topic, b"p2", b"k")  # lands inside the transaction, visible after its commit
    plain.flush(10)
    txn.produce(topic, b"c2", b"k")
    txn.commit_transaction(10)
    txn.begin_transaction()
    txn.produce(topic, b"open", b"k")  # never committed: the last stable offset stops here
    txn.flush(10)
    plain.produce(topic, b"p3", b"k")
    plain.flush(10)

    assert read_committed_log(kafka.bootstrap, topic) == [
        (b"k", b"p1", 0), (b"k", b"c1", 0), (b"k", b"p2", 0), (b"k", b"c2", 0)]
    txn.abort_transaction(10)
