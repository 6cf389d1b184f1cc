"""Under exactly-once a commit's input offsets are the group's once the commit returns.

On Kafka the transaction does it. Tansu 0.6 applies a transaction's offsets only once every
other open transaction on one of its output partitions has ended, and drops them when its
producer's next transaction is aborted (``bench/deferred_offsets.py``), so kslab commits them
through the consumer as well. The other open transaction here is an outside producer's, open
on the app's output partition the whole time the app processes.
"""

from __future__ import annotations

from confluent_kafka import Consumer, Producer, TopicPartition
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes


def _committed(bootstrap: str, group: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        (tp,) = consumer.committed([TopicPartition(topic, 0)], timeout=10)
        return tp.offset
    finally:
        consumer.close()


def _processed(app: ks.KafkaStreams) -> int:
    return sum(t["process-total"] for t in app.metrics()["threads"].values())


def test_offsets_are_committed_while_another_transaction_is_open_on_the_output(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    kafka.produce(source, [(b"k", f"v{i}".encode()) for i in range(20)])
    other = Producer({"bootstrap.servers": kafka.bootstrap,
                      "transactional.id": kafka.name("other"), "transaction.timeout.ms": 60000})
    other.init_transactions(10)
    other.begin_transaction()
    other.produce(sink, b"other", b"k", partition=0)
    assert other.flush(10) == 0
    try:
        b = ks.StreamsBuilder()
        b.stream(source, ks.Consumed.with_(serdes.Bytes(), serdes.Bytes())).to(
            sink, ks.Produced.with_(serdes.Bytes(), serdes.Bytes()))
        config = kafka.config("app", processing__guarantee="exactly_once_v2")
        app = kafka.track(ks.KafkaStreams(b.build(), config))
        app.start()
        assert wait_for(lambda: _processed(app) == 20, 60), app.metrics()
        assert wait_for(lambda: _committed(kafka.bootstrap, config["application.id"],
                                           source) == 20, 20)
    finally:
        other.abort_transaction(10)
