"""Kafka's ``JoinGracePeriodDurabilityIntegrationTest.shouldRecoverBufferAfterShutdown`` on the
live runtime (a LocalBroker): a stream-table join with a 5 ms grace period over a versioned
table (history 1000 ms) buffers stream records until stream time passes them by the grace; the
record still buffered when the application restarts ("k3") must be restored with the buffer and
emitted once, after the records that arrived behind the grace ("k4", "k5"), and no record is
emitted twice (5 in all). Topics have 2 partitions (a trap for a buffer that forgets the
partition); records go to partition 0; timestamps are ``NOW + 200 * t`` so commits (every
100 ms, ``poll.ms`` 100) happen between them.
"""

from __future__ import annotations

import threading
import time

import kslab as ks
from kslab import serdes

S = serdes.String()
COMMIT_INTERVAL = 100
NOW = int(time.time() * 1000)


def _scaled(t: int) -> int:
    return NOW + COMMIT_INTERVAL * 2 * t


def test_should_recover_buffer_after_shutdown(kafka):
    stream_input = kafka.create(kafka.name("Streaminput"), partitions=2)
    table_input = kafka.create(kafka.name("Tableinput"), partitions=2)
    output = kafka.create(kafka.name("output"), partitions=2)
    builder = ks.StreamsBuilder()
    stream = builder.stream(stream_input, ks.Consumed.with_(S, S))
    table = builder.table(table_input, ks.Consumed.with_(S, S), ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("grace", 1000)))
    joined = stream.join(table, lambda v1, v2: f"{v1}+{v2}",
                         ks.Joined.with_(S, S, S, name="Grace", grace_period=5))
    events = 0
    lock = threading.Lock()

    def count(_key, _value) -> None:
        nonlocal events
        with lock:
            events += 1
    joined.foreach(count)
    joined.to(output)
    config = kafka.config("grace-durability", poll__ms=COMMIT_INTERVAL,
                          default__key__serde=S, default__value__serde=S,
                          commit__interval__ms=COMMIT_INTERVAL)

    def produce(topic: str, records: list[tuple[str, str, int]]) -> None:
        for key, value, t in records:
            kafka.produce(topic, [(key.encode(), value.encode())], partition=0,
                          timestamp=_scaled(t))

    def assert_output(expected: list[tuple[str, str]]) -> None:
        """Exactly ``expected``, in its order within each output partition (the sink spreads
        the keys over both; a reader sees the partitions interleaved in no fixed order)."""
        got = kafka.read(output, len(expected), partitions=2, settle=1.0)
        records = [(k.decode(), v.decode()) for k, v, _p in got]
        assert sorted(records) == sorted(expected)
        for partition in (0, 1):
            mine = [(k.decode(), v.decode()) for k, v, p in got if p == partition]
            assert mine == [r for r in expected if r in mine], (partition, records)

    streams = kafka.track(ks.KafkaStreams(builder.build(), config))
    streams.start()
    produce(table_input, [(f"k{i}", f"v{i}", 0) for i in range(1, 7)])
    produce(stream_input, [("k1", "v1", 1), ("k2", "v2", 2), ("k3", "v3", 7)])
    assert_output([("k1", "v1+v1"), ("k2", "v2+v2")])
    assert events == 2

    produce(stream_input, [("k4", "v4", 4), ("k5", "v5", 5)])
    assert streams.close(timeout=10_000)
    assert streams.state == ks.KafkaStreams.State.NOT_RUNNING
    streams = kafka.track(ks.KafkaStreams(builder.build(), config))
    streams.start()
    produce(stream_input, [("k6", "v6", 20)])
    assert_output([("k1", "v1+v1"), ("k2", "v2+v2"), ("k4", "v4+v4"), ("k5", "v5+v5"),
                   ("k3", "v3+v3")])
    assert events == 5, "there should only be 5 output events"
    assert streams.close(timeout=10_000)
