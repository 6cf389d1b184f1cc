"""A task reading several partitions waits for the ones it has no records of, as Kafka's
``PartitionGroup.readyToProcess`` (KIP-695): while a partition's lag is unknown or positive
(records on the broker not fetched yet), and, once the consumer reports it caught up, for
``max.task.idle.ms``. Without that wait a join whose inputs arrive in separate fetches takes
one side first and drops the other's records as late. While a task waits, the offsets it
commits stop at its queued records, as Kafka's commit the queue's head, and a partition whose
queue holds more than ``buffered.records.per.partition`` is not fetched until it drains.
"""

from __future__ import annotations

import time

from confluent_kafka import Consumer, TopicPartition
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

S = serdes.String()
BASE = 1_000_000  # a producer's timestamp 0 means "now"


def _join(one: str, two: str, sink: str) -> ks.Topology:
    builder = ks.StreamsBuilder()
    left = builder.stream(one, ks.Consumed.with_(S, S))
    right = builder.stream(two, ks.Consumed.with_(S, S))
    left.join(right, lambda lv, rv: f"{lv}+{rv}",
              ks.JoinWindows.of_time_difference_with_no_grace(1)) \
        .to(sink, ks.Produced.with_(S, S))
    return builder.build()


def _committed(kafka, group: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": group})
    try:
        (tp,) = consumer.committed([TopicPartition(topic, 0)], 10)
        return tp.offset
    finally:
        consumer.close()


def _task_metrics(streams: ks.KafkaStreams) -> dict:
    (thread,) = streams.metrics()["threads"].values()
    return thread["tasks"]["0_0"]


def test_a_join_waits_for_its_empty_partition_until_max_task_idle_ms(kafka):
    one, two, sink = (kafka.create(kafka.name(n)) for n in ("one", "two", "out"))
    kafka.produce(one, [(b"k", f"L{i}".encode()) for i in range(5)], timestamp=BASE)
    kafka.produce(one, [(b"k", b"L5")], timestamp=BASE + 100)  # keeps the left side buffered
    config = kafka.config("idle", max__task__idle__ms=20_000)
    group = config["application.id"]
    streams = kafka.track(ks.KafkaStreams(_join(one, two, sink), config))
    streams.start()
    assert streams.wait_until_running(30)
    time.sleep(1.0)  # five commit intervals: the left records wait, uncommitted
    assert _committed(kafka, group, one) == 0
    assert _task_metrics(streams)["process-total"] == 0
    kafka.produce(two, [(b"k", f"R{i}".encode()) for i in range(5)], timestamp=BASE)
    out = kafka.read(sink, 13, settle=1.0)
    # taken in timestamp order, each Li joins R(i-1), Ri and R(i+1); taking the left side
    # first would have dropped R0, R1 and R2 as late (stream time BASE+4, no grace)
    assert sorted(v.decode() for _, v, _ in out) == sorted(
        f"L{i}+R{j}" for i in range(5) for j in range(5) if abs(i - j) <= 1)
    # L5 waits for the right side (20 s): the commit stops at it
    assert wait_for(lambda: _committed(kafka, group, two) == 5)
    assert _committed(kafka, group, one) == 5
    metrics = _task_metrics(streams)
    assert (metrics["process-total"], metrics["enforced-processing-total"]) == (10, 0)


def test_past_max_task_idle_ms_the_task_goes_on_without_the_empty_partition(kafka):
    one, two, sink = (kafka.create(kafka.name(n)) for n in ("one", "two", "out"))
    kafka.produce(one, [(b"k", f"L{i}".encode()) for i in range(5)], timestamp=BASE)
    config = kafka.config("enforced", max__task__idle__ms=300)
    streams = kafka.track(ks.KafkaStreams(_join(one, two, sink), config))
    streams.start()
    assert streams.wait_until_running(30)
    assert wait_for(lambda: _task_metrics(streams)["process-total"] == 5)
    # each of the five records was taken with the right partition still empty
    assert _task_metrics(streams)["enforced-processing-total"] == 5
    assert wait_for(lambda: _committed(kafka, config["application.id"], one) == 5)


def test_a_waiting_task_stops_fetching_a_partition_past_buffered_records_per_partition(kafka):
    one, two, sink = (kafka.create(kafka.name(n)) for n in ("one", "two", "out"))
    kafka.produce(one, [(b"k", f"L{i}".encode()) for i in range(50)], timestamp=BASE)
    kafka.produce(one, [(b"k", b"L50")], timestamp=BASE + 1_000)  # keeps the left side buffered
    config = kafka.config("full", max__task__idle__ms=20_000,
                          buffered__records__per__partition=10,
                          consumer__max__poll__records=1)
    group = config["application.id"]
    streams = kafka.track(ks.KafkaStreams(_join(one, two, sink), config))
    streams.start()
    assert streams.wait_until_running(30)

    def thread() -> dict:
        (metrics,) = streams.metrics()["threads"].values()
        return metrics

    # one record a poll: the eleventh is over 10, and the partition is paused there
    assert wait_for(lambda: thread()["paused-partitions"] == [f"{one}-0"])
    time.sleep(0.5)
    assert thread()["tasks"]["0_0"]["buffered-records"] == 11
    kafka.produce(two, [(b"k", f"R{i}".encode()) for i in range(50)], timestamp=BASE)
    out = kafka.read(sink, 148, settle=1.0)
    assert sorted(v.decode() for _, v, _ in out) == sorted(
        f"L{i}+R{j}" for i in range(50) for j in range(50) if abs(i - j) <= 1)
    assert wait_for(lambda: _committed(kafka, group, two) == 50)
    assert _committed(kafka, group, one) == 50  # L50 waits for the right side
    assert thread()["paused-partitions"] == []
    assert thread()["tasks"]["0_0"]["buffered-records"] == 1
