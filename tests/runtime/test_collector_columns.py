"""``KafkaCollector.send_columns`` against the broker: each record of a column reaches its
partition once and in order, with its own timestamp and headers, also when the producer's local
queue fills mid-column (the loop retries that record and goes on after it), and a record the
producer refuses at once raises ``ProductionError`` naming it."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from kslab.runtime._collector import KafkaCollector
from kslab.runtime._errors import ProductionError


def _collector(bootstrap: str, **conf: object) -> tuple[KafkaCollector, Producer]:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, **conf})
    return KafkaCollector(producer, lambda topic: 2), producer


def test_a_column_goes_out_in_order_through_a_full_local_queue(kafka) -> None:
    topic = kafka.create(kafka.name("columns"), partitions=2)
    # a queue of 7 records: the 500-record column meets BufferError dozens of times
    collector, producer = _collector(kafka.bootstrap, **{"queue.buffering.max.messages": 7})
    keys = [f"k{i}".encode() for i in range(500)]
    values = [f"v{i}".encode() for i in range(500)]
    partitions = [i % 2 for i in range(500)]
    headers: list[object] = [None] * 500
    headers[3] = [("h", b"x")]
    try:
        collector.send_columns(topic, keys, values, headers, list(range(1, 501)), partitions)
        collector.flush(30)
    finally:
        producer.flush(10)
    got = kafka.read(topic, 500, partitions=2)
    assert len(got) == 500
    for partition in (0, 1):
        assert [v for _, v, p in got if p == partition] == \
            [f"v{i}".encode() for i in range(partition, 500, 2)]
    assert sorted(k for k, _, _ in got) == sorted(keys)


def test_a_refused_record_raises_naming_it_after_the_records_before_it(kafka) -> None:
    topic = kafka.create(kafka.name("refused"), partitions=2)
    collector, producer = _collector(kafka.bootstrap, **{"message.max.bytes": 2000})
    values = [b"a", b"b", b"x" * 5000, b"d"]
    try:
        with pytest.raises(ProductionError, match="refused the record") as raised:
            collector.send_columns(topic, [b"k0", b"k1", b"k2", b"k3"], values, None,
                                   [1, 2, 3, 4], [0, 0, 0, 0])
        assert raised.value.key == b"k2"
        collector.flush(30)
    finally:
        producer.flush(10)
    assert [v for _, v, _ in kafka.read(topic, 2, partitions=2, settle=0.5)] == [b"a", b"b"]


def test_each_record_keeps_its_timestamp_and_headers_through_a_full_local_queue(kafka) -> None:
    topic = kafka.create(kafka.name("columns-headers"), partitions=1)
    collector, producer = _collector(kafka.bootstrap, **{"queue.buffering.max.messages": 3})
    headers: list[object] = [None] * 40
    for i in (0, 2, 3, 17, 39):  # around the retries: each on its own record
        headers[i] = [("h", f"x{i}".encode())]
    try:
        collector.send_columns(topic, [f"k{i}".encode() for i in range(40)],
                               [f"v{i}".encode() for i in range(40)], headers,
                               [1000 + i for i in range(40)], None)
        collector.flush(30)
    finally:
        producer.flush(10)
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": kafka.name("r"),
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    got: list[tuple[bytes, int, object]] = []
    deadline = time.monotonic() + 30
    try:
        while len(got) < 40 and time.monotonic() < deadline:
            got += [(m.value(), m.timestamp()[1], m.headers()) for m in consumer.consume(100, 0.1)
                    if m.error() is None]
    finally:
        consumer.close()
    assert got == [(f"v{i}".encode(), 1000 + i,
                    [("h", f"x{i}".encode())] if i in (0, 2, 3, 17, 39) else None)
                   for i in range(40)]
