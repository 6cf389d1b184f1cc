"""Issue 22 item 3: typed interactive queries (Kafka's IQv2) on a live app: key, timestamped
key, range, window-key and versioned-key queries, partitions, and position bounds that answer
only once the store has seen a record the caller wrote."""

from __future__ import annotations

from confluent_kafka import Producer
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.runtime import (
    FailureReason,
    KeyQuery,
    MultiVersionedKeyQuery,
    Position,
    PositionBound,
    RangeQuery,
    StateQueryRequest,
    TimestampedKeyQuery,
    VersionedKeyQuery,
    WindowKeyQuery,
)


class Keep(ks.Processor):
    """Puts each record in a key-value, a window and a versioned store."""

    def init(self, context):
        self.kv = context.get_state_store("kv")
        self.win = context.get_state_store("win")
        self.ver = context.get_state_store("ver")

    def process(self, record):
        self.kv.put(record.key, ks.ValueAndTimestamp(record.value, record.timestamp))
        self.win.put(record.key, record.value, record.timestamp)
        self.ver.put(record.key, record.value, record.timestamp)


def topology(source: str) -> ks.Topology:
    topo = ks.Topology()
    topo.add_source("in", source, key_serde=serdes.String(), value_serde=serdes.Long())
    topo.add_processor("keep", Keep, "in")
    topo.add_state_store(ks.Stores.timestamped_key_value_store_builder(
        ks.Stores.in_memory_key_value_store("kv"), serdes.String(), serdes.Long()), "keep")
    topo.add_state_store(ks.Stores.window_store_builder(
        ks.Stores.in_memory_window_store("win", 600_000, 10_000, False), serdes.String(),
        serdes.Long()), "keep")
    topo.add_state_store(ks.Stores.versioned_key_value_store_builder(
        ks.Stores.persistent_versioned_key_value_store("ver", 600_000), serdes.String(),
        serdes.Long()), "keep")
    return topo


def produce(servers: str, topic: str, rows) -> list[int]:
    """Produce ``(key, value, timestamp)`` rows to partition 0; their offsets."""
    producer = Producer({"bootstrap.servers": servers})
    offsets = []
    for key, value, ts in rows:
        producer.produce(topic, serdes.Long().serialize(topic, value), key.encode(),
                         partition=0, timestamp=ts,
                         on_delivery=lambda err, msg: offsets.append(msg.offset()))
    assert producer.flush(10) == 0
    return offsets


def test_typed_queries_and_position_bounds(kafka):
    source = kafka.create(kafka.name("in"))
    app = kafka.track(ks.KafkaStreams(topology(source), kafka.config("iq2")))
    app.start()
    assert app.wait_until_running(60)
    offsets = produce(kafka.bootstrap, source, [("a", 1, 1_000), ("b", 2, 2_000),
                                                 ("a", 3, 12_000)])
    bound = PositionBound.at(Position.from_map({source: {0: offsets[-1]}}))
    request = StateQueryRequest.in_store("kv").with_query(KeyQuery.with_key("a"))

    def answered():
        return app.query(request.with_position_bound(bound)).get_partition_results()[0]

    assert wait_for(lambda: answered().is_success(), timeout=30)
    result = answered()
    assert result.get_result() == 3
    assert result.get_position() == Position.from_map({source: {0: offsets[-1]}})
    assert app.query(StateQueryRequest.in_store("kv").with_query(
        TimestampedKeyQuery.with_key("a"))).get_only_partition_result().get_result() == \
        ks.ValueAndTimestamp(3, 12_000)
    assert app.query(StateQueryRequest.in_store("kv").with_query(
        RangeQuery.with_no_bounds())).get_only_partition_result().get_result() == [
        ("a", 3), ("b", 2)]
    windows = app.query(StateQueryRequest.in_store("win").with_query(
        WindowKeyQuery.with_key_and_window_start_range("a", 0, 20_000)))
    assert windows.get_only_partition_result().get_result() == [(1_000, 1), (12_000, 3)]
    versioned = StateQueryRequest.in_store("ver").with_query(
        VersionedKeyQuery.with_key("a").as_of(5_000))
    assert app.query(versioned).get_only_partition_result().get_result() == \
        ks.VersionedRecord(1, 1_000, 12_000)
    history = StateQueryRequest.in_store("ver").with_query(
        MultiVersionedKeyQuery.with_key("a").with_ascending_timestamps())
    assert app.query(history).get_only_partition_result().get_result() == [
        ks.VersionedRecord(1, 1_000, 12_000), ks.VersionedRecord(3, 12_000)]
    # a bound the store has not reached, a query the store cannot run, a partition not here
    ahead = PositionBound.at(Position.from_map({source: {0: offsets[-1] + 5}}))
    late = app.query(request.with_position_bound(ahead)).get_partition_results()[0]
    assert late.get_failure_reason() is FailureReason.NOT_UP_TO_BOUND
    wrong = app.query(StateQueryRequest.in_store("win").with_query(KeyQuery.with_key("a")))
    assert wrong.get_partition_results()[0].get_failure_reason() is \
        FailureReason.UNKNOWN_QUERY_TYPE
    absent = app.query(request.with_partitions([3])).get_partition_results()
    assert absent[3].get_failure_reason() is FailureReason.NOT_PRESENT
