"""Kafka's ``OptimizedKTableIntegrationTest.shouldApplyUpdatesToStandbyStore`` on the live
runtime (a LocalBroker): two instances of a source table (``topology.optimization=all``, so the
input topic is its changelog; one standby replica; no cache) over a 2-partition topic. After 100
updates of key 1 the instance active for the key is closed; the store view the other instance
handed out before the failover must then show the last update (99), restored from its standby,
and, after 100 more updates, 199.

kslab's equivalents: Java's ``queryMetadataForKey(store, key, partitioner)`` with a partitioner
answering partition 0 is ``query_metadata_for_key(store, key, key_serde)``, and key 1 is
produced to the partition the default partitioner picks for it (0, as in Java); the instance
is told apart by its ``application.server`` port instead of Java's port parity.
"""

from __future__ import annotations

import threading

from runtime_fixtures import wait_for
from test_iq import _free_port

import kslab as ks
from kslab import serdes
from kslab.processor.partitioner import default_partition

INT = serdes.Integer()
TABLE = "optimized-ktable-store"
KEY = 1


def _reads(store, expected: int) -> bool:
    """Java's ``retryOnExceptionWithTimeout``: a read during a rebalance raises; retry it."""
    try:
        return store.get(KEY) == expected
    except ks.StoreError:
        return False


class TableApp:
    """The app both Java classes share: a source table of Integer pairs (no cache) whose
    updates release ``processed``; ``start`` runs one more instance of it with Java's configs
    (``topology.optimization=all``, one standby, commit every 100 ms)."""

    def __init__(self, kafka, table: str = TABLE) -> None:
        self.kafka = kafka
        self.source = kafka.create(kafka.name("input-topic"), partitions=2)
        self.processed = threading.Semaphore(0)
        self.builder = ks.StreamsBuilder()
        self.builder.table(self.source, ks.Consumed.with_(INT, INT),
                           ks.Materialized.as_(table).with_caching_disabled()) \
            .to_stream().peek(lambda k, v: self.processed.release())
        self.app_id = kafka.name("app")
        self.instances = 0

    def start(self, threads: int = 1) -> tuple[ks.KafkaStreams, int]:
        port = _free_port()
        self.instances += 1
        config = {
            "topology.optimization": "all", "application.id": self.app_id,
            "application.server": f"localhost:{port}", "bootstrap.servers": self.kafka.bootstrap,
            "state.dir": str(self.kafka.tmp_path / f"state-{self.instances}"),
            "default.key.serde": INT, "default.value.serde": INT, "num.standby.replicas": 1,
            "commit.interval.ms": 100, "statestore.cache.max.bytes": 0,
            "consumer.max.poll.records": 100, "num.stream.threads": threads,
            "consumer.heartbeat.interval.ms": 500, "consumer.session.timeout.ms": 6000,
        }
        streams = self.kafka.track(ks.KafkaStreams(self.builder.build(config), config))
        streams.start()
        return streams, port

    def produce(self, key: int, start_value: int, end_exclusive: int) -> None:
        """Java's ``produceValueRange``, to the partition the default partitioner picks."""
        partition = default_partition(INT.serialize(self.source, key), 2)
        self.kafka.produce(self.source, [
            (INT.serialize(self.source, key), INT.serialize(self.source, v))
            for v in range(start_value, end_exclusive)], partition=partition)

    def acquire(self, count: int) -> bool:
        return all(self.processed.acquire(timeout=60) for _ in range(count))


def test_should_apply_updates_to_standby_store(kafka):
    app = TableApp(kafka)
    assert default_partition(INT.serialize(app.source, KEY), 2) == 0
    (streams1, port1), (streams2, _port2) = app.start(), app.start()
    assert streams1.wait_until_running(60) and streams2.wait_until_running(60)
    app.produce(KEY, 0, 100)
    assert app.acquire(100)

    new_active: list = []

    def fail_over() -> bool:
        try:
            store1 = streams1.store(TABLE, kind="key_value")
            store2 = streams2.store(TABLE, kind="key_value")
            meta = streams1.query_metadata_for_key(TABLE, KEY, INT)
        except ks.StoreError:
            return False  # an unexpected rebalance: retry, as Java does
        if meta.active_host.port == port1:
            assert store1.get(KEY) == 99
            streams1.close()
            new_active.append(store2)
        else:
            assert store2.get(KEY) == 99
            streams2.close()
            new_active.append(store1)
        return True
    assert wait_for(fail_over, 60)
    store = new_active[0]
    assert wait_for(lambda: _reads(store, 99), 60)

    app.produce(KEY, 100, 200)
    assert app.acquire(100)
    assert wait_for(lambda: _reads(store, 199), 60)
