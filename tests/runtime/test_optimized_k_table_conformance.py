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


def test_should_apply_updates_to_standby_store(kafka):
    source = kafka.create(kafka.name("input-topic"), partitions=2)
    partition = default_partition(INT.serialize(source, KEY), 2)
    assert partition == 0
    processed = threading.Semaphore(0)
    builder = ks.StreamsBuilder()
    builder.table(source, ks.Consumed.with_(INT, INT),
                  ks.Materialized.as_(TABLE).with_caching_disabled()) \
        .to_stream().peek(lambda k, v: processed.release())
    app_id = kafka.name("optimized-ktable")

    def start(name: str) -> tuple[ks.KafkaStreams, int]:
        port = _free_port()
        config = {
            "topology.optimization": "all", "application.id": app_id,
            "application.server": f"localhost:{port}", "bootstrap.servers": kafka.bootstrap,
            "state.dir": str(kafka.tmp_path / name), "default.key.serde": INT,
            "default.value.serde": INT, "num.standby.replicas": 1, "commit.interval.ms": 100,
            "statestore.cache.max.bytes": 0, "consumer.max.poll.records": 100,
            "consumer.heartbeat.interval.ms": 500, "consumer.session.timeout.ms": 6000,
        }
        streams = kafka.track(ks.KafkaStreams(builder.build(config), config))
        streams.start()
        return streams, port

    (streams1, port1), (streams2, _port2) = start("one"), start("two")
    assert streams1.wait_until_running(60) and streams2.wait_until_running(60)

    def produce(start_value: int, end_exclusive: int) -> None:
        kafka.produce(source, [(INT.serialize(source, KEY), INT.serialize(source, v))
                               for v in range(start_value, end_exclusive)], partition=partition)

    def acquire(count: int) -> bool:
        return all(processed.acquire(timeout=60) for _ in range(count))

    produce(0, 100)
    assert acquire(100)

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

    produce(100, 200)
    assert acquire(100)
    assert wait_for(lambda: _reads(store, 199), 60)
