"""Fixtures for the Spark tests: one local[2] SparkSession for the whole run."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
# Spark's Python workers import the processors these tests define from spark_apps
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)


# The tests' driver JVMs live for a few minutes at most: the C2 compiler's work (and the parallel
# collector's threads) costs CPU that so short a run never earns back. C1 alone and the serial
# collector cut the JVM's CPU by about 45% (tests/spark/test_streaming.py: 45 -> 25 CPU-s) and
# change nothing Spark computes. Tests only: a long-running application wants C2.
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def start_session(scratch: Path) -> Any:
    """A local[2] ``kslab.spark.session`` with the tests' ``JAVA_OPTIONS`` (also used by the
    child processes of test_streaming_recovery), its log quiet but for errors."""
    from kslab.spark import session

    spark = session("local[2]", scratch_dir=scratch, config={
        "spark.driver.extraJavaOptions": f"-Djava.io.tmpdir={scratch} {JAVA_OPTIONS}"})
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The session's SparkSession (local[2], loopback, scratch under pytest's tmp dir)."""
    spark = start_session(tmp_path_factory.mktemp("spark-scratch"))
    yield spark
    spark.stop()


@pytest.fixture(scope="session")
def broker() -> Iterator[Any]:
    """A LocalBroker (Tansu) for the Kafka tests, stopped at the end."""
    from kslab.runtime import LocalBroker

    with LocalBroker() as running:
        yield running


@pytest.fixture
def topics(broker: Any, request: pytest.FixtureRequest) -> Any:
    """Creates topics with names unique to the test: ``topics("lines", 2)`` returns the name."""
    import re

    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    prefix = re.sub(r"[^a-zA-Z0-9]", "-", request.node.name)[:40]

    def create(base: str, partitions: int = 1) -> str:
        name = f"{prefix}-{base}"
        for future in admin.create_topics([NewTopic(name, partitions, 1)]).values():
            future.result(10)
        return name

    return create


def produce(broker: Any, topic: str, rows: list[tuple[int, bytes | None, bytes, int]]) -> None:
    """Produce ``(partition, key, value, timestamp)`` rows and wait for them."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": broker.bootstrap_servers, "linger.ms": 5})
    for partition, key, value, ts in rows:
        producer.produce(topic, value, key, partition=partition, timestamp=ts)
    assert producer.flush(30) == 0


def consume_all(broker: Any, topic: str, partitions: int,
                headers: bool = False) -> list[tuple[Any, ...]]:
    """Every record of ``topic`` to the end of each partition: ``(partition, key, value, ts)``,
    with ``headers`` also its headers (a list of ``(key, value)``, or ``None``)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": "reader",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: list[tuple[Any, ...]] = []
    eof: set[int] = set()
    try:
        while len(eof) < partitions:
            for m in consumer.consume(1000, 1.0):
                if m.error() is None:
                    out.append((m.partition(), m.key(), m.value(), m.timestamp()[1],
                                *([m.headers()] if headers else [])))
                    eof.discard(m.partition())
                else:
                    eof.add(m.partition())
    finally:
        consumer.close()
    return out


def uncommit_last_batch(checkpoint: Path, stage: int) -> int:
    """Remove the last micro-batch of a query from its commit log, as a crash after its writes
    and before its commit leaves it: Spark runs it again from its planned offsets and the state
    before it, and writes its rows again. Its id."""
    commits = checkpoint / f"subtopology-{stage}" / "commits"
    last = max(int(f.name) for f in commits.glob("[0-9]*"))
    (commits / str(last)).unlink()
    (commits / f".{last}.crc").unlink(missing_ok=True)
    return last
