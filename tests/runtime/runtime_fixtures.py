"""Test helpers for the runtime: unique names, topics, producing, reading back, app configs.

Reads count records instead of trusting the broker's high watermark (Tansu under-reports it).
"""

from __future__ import annotations

import gc
import itertools
import re
import time
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

_counter = itertools.count()

# Tansu answers a group join after about half the session timeout (measured: 3.1 s at 6000,
# 2.1 s at 3000; /work/shared/notes/broker.md), and test_scale_out and crash_app already ran
# under load at 3000. Heartbeats (every 500 ms) come from librdkafka's own thread, not the
# stream thread, so a busy machine does not drop a member; a crashed one's partitions move 3 s
# sooner.
FAST = {
    "consumer.session.timeout.ms": 3000,
    "consumer.heartbeat.interval.ms": 500,
    "commit.interval.ms": 200,
}
# Static members (group.instance.id) on Tansu need 5000 ms or more: bench/static_join.py.
STATIC_SESSION_TIMEOUT_MS = 6000


class KafkaHelper:
    """Topics, produce and read for one test, with names nobody else uses."""

    def __init__(self, bootstrap: str, tmp_path: Path, test_name: str) -> None:
        self.bootstrap = bootstrap
        self.tmp_path = tmp_path
        self.prefix = re.sub(r"[^a-zA-Z0-9]", "-", test_name)[:40] + f"-{next(_counter)}"
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self._producer: Producer | None = None
        self._apps: list[Any] = []

    def name(self, base: str) -> str:
        """``base`` made unique to this test."""
        return f"{self.prefix}-{base}"

    def create(self, topic: str, partitions: int = 1, **config: str) -> str:
        """Create ``topic`` and return its name."""
        futures = self.admin.create_topics([NewTopic(topic, partitions, 1, config=config)])
        for future in futures.values():
            future.result(10)
        return topic

    def produce(self, topic: str, records: list[tuple[Any, Any]], *, partition: int | None = None,
                timestamp: int | None = None) -> None:
        """Produce ``(key_bytes, value_bytes)`` pairs and wait for them."""
        if self._producer is None:
            self._producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5})
        for i, (key, value) in enumerate(records):
            kwargs: dict[str, Any] = {}
            if partition is not None:
                kwargs["partition"] = partition
            if timestamp is not None:
                kwargs["timestamp"] = timestamp + i
            self._producer.produce(topic, value, key, **kwargs)
            if i % 10000 == 9999:
                self._producer.poll(0)
        assert self._producer.flush(30) == 0

    def read(self, topic: str, count: int, *, timeout: float = 30.0, committed: bool = False,
             partitions: int = 1, settle: float = 0.0) -> list[tuple[Any, Any, int]]:
        """Read at least ``count`` records from the start of ``topic``.

        With ``settle`` it goes on reading that many seconds after reaching ``count``, so a test
        can see duplicates beyond it.
        """
        consumer = Consumer({
            "bootstrap.servers": self.bootstrap, "group.id": self.name("reader"),
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "isolation.level": "read_committed" if committed else "read_uncommitted",
        })
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out: list[tuple[Any, Any, int]] = []
        deadline = time.monotonic() + timeout
        settle_until = None
        try:
            while time.monotonic() < deadline:
                for message in consumer.consume(1000, 0.1):
                    if message.error() is None:
                        out.append((message.key(), message.value(), message.partition()))
                if len(out) >= count:
                    if settle_until is None:
                        settle_until = time.monotonic() + settle
                    if time.monotonic() >= settle_until:
                        break
        finally:
            consumer.close()
        return out

    def read_until(self, topic: str, done: Any, *, timeout: float = 30.0, partitions: int = 1,
                   committed: bool = False) -> list[tuple[Any, Any, int]]:
        """Read ``topic`` from the start until ``done(records)`` holds (or ``timeout``)."""
        consumer = Consumer({
            "bootstrap.servers": self.bootstrap, "group.id": self.name("reader"),
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "isolation.level": "read_committed" if committed else "read_uncommitted",
        })
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out: list[tuple[Any, Any, int]] = []
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline and not done(out):
                for message in consumer.consume(1000, 0.1):
                    if message.error() is None:
                        out.append((message.key(), message.value(), message.partition()))
        finally:
            consumer.close()
        return out

    def config(self, app: str, **extra: Any) -> dict[str, Any]:
        """A KafkaStreams config for app ``app`` with fast group settings."""
        props = {
            "application.id": self.name(app),
            "bootstrap.servers": self.bootstrap,
            "state.dir": str(self.tmp_path / "state"),
            **FAST,
        }
        props.update({k.replace("__", "."): v for k, v in extra.items()})
        if any(key.endswith("group.instance.id") for key in props):
            # Tansu's static joins and syncs take ~3 s each: at 3000 ms the group never settles
            props["consumer.session.timeout.ms"] = max(props["consumer.session.timeout.ms"],
                                                       STATIC_SESSION_TIMEOUT_MS)
        return props

    def track(self, app: Any) -> Any:
        """Close ``app`` at the end of the test."""
        self._apps.append(app)
        return app

    def close(self) -> None:
        """Close every tracked app, then this helper's own clients (none outlives the test to
        reconnect to a stopped broker)."""
        for app in self._apps:
            try:
                app.close(timeout=10_000)
            except Exception:
                pass
        self._apps.clear()
        if self._producer is not None:
            producer, self._producer = self._producer, None
            producer.flush(10)
            producer.close()
        self.admin = None  # an AdminClient has no close(): dropping the last reference ends it


def wait_for(predicate: Any, timeout: float = 30.0, interval: float = 0.05) -> bool:
    """Poll ``predicate`` until it is true (True) or ``timeout`` s pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def open_clients() -> list[Any]:
    """The confluent-kafka clients alive in this process and not closed (an AdminClient has no
    close: alive is open). Compare before and after to find a client something leaked."""

    def is_open(client: Any) -> bool:
        try:
            client.assignment() if isinstance(client, Consumer) else client.poll(0)
        except RuntimeError:  # "Producer has been closed", "Consumer closed"
            return False
        return True

    return [o for o in gc.get_objects()
            if isinstance(o, Consumer | Producer | AdminClient) and is_open(o)]
