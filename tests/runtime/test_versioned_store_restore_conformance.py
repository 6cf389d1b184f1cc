"""Kafka's ``VersionedKeyValueStoreIntegrationTest.shouldRestore`` on the live runtime (a
LocalBroker): a processor puts each record into a versioned store (``"delete"`` is a delete,
``None`` a tombstone) and forwards how many of its ``get(key, ts)`` / ``get(key)`` checks against
its own copy failed; after the application is closed and its local state wiped (``cleanup()``),
a restarted application (restored from the changelog) is handed the data written so far and
must find every version of it, before and after writing one more record per key. Every count
forwarded must be 0. The manual-upgrade tests restart with a versioned store in place of a
plain one, restored from the plain store's changelog, which holds every put of the plain store
(Java's change-logging layer logs each one), so every version is restored.
The processor and data tracker are the driver port's
(``tests/conformance/state/test_versioned_key_value_store_integration_test.py``).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from tests.conformance.state.test_versioned_key_value_store_integration_test import (
    DELETE_VALUE_KEYWORD,
    HISTORY_RETENTION,
    STORE_NAME,
    DataTracker,
    VersionedStoreContentCheckerProcessor,
)

INT, STR = serdes.Integer(), serdes.String()
BASE = 1_000_000


def _app(source: str, sink: str, supplier) -> ks.Topology:
    builder = ks.StreamsBuilder()
    builder.add_state_store(ks.Stores.versioned_key_value_store_builder(
        ks.Stores.persistent_versioned_key_value_store(STORE_NAME, HISTORY_RETENTION), INT, STR))
    builder.stream(source, ks.Consumed.with_(INT, STR)).process(supplier, STORE_NAME) \
        .to(sink, ks.Produced.with_(INT, INT))
    return builder.build()


def test_should_restore(kafka):
    source, sink = kafka.create(kafka.name("input")), kafka.create(kafka.name("output"))
    data = DataTracker()
    produced = 0

    def produce(timestamp: int, pairs: list, track: bool = True) -> None:
        nonlocal produced
        for key, value in pairs:
            value_bytes = None if value is None else STR.serialize(source, value)
            kafka.produce(source, [(INT.serialize(source, key), value_bytes)],
                          timestamp=BASE + timestamp)
            if track:
                data.add(key, BASE + timestamp, value)
            produced += 1

    config = kafka.config("versioned-restore", commit__interval__ms=1000)
    first = kafka.track(ks.KafkaStreams(
        _app(source, sink, lambda: VersionedStoreContentCheckerProcessor(True)), config))
    first.start()
    assert first.wait_until_running(30)
    produce(0, [(1, "a0"), (2, "b0"), (3, None)])
    produce(5, [(1, "a5"), (2, None), (3, "c5")])
    produce(2, [(1, "a2"), (2, "b2"), (3, None)])  # out-of-order data
    produce(5, [(1, "a5_new"), (2, "b5"), (3, None)])  # replace existing records
    produce(7, [(k, DELETE_VALUE_KEYWORD) for k in (1, 2, 3)])  # delete
    produce(10, [(1, "a10"), (2, "b10"), (3, "c10")])  # new data so latest is not tombstone
    assert len(kafka.read(sink, produced, settle=0.5)) == produced
    assert first.close(timeout=10_000)
    first.cleanup()  # wipe the store: the restart restores it from the changelog

    second = kafka.track(ks.KafkaStreams(
        _app(source, sink, lambda: VersionedStoreContentCheckerProcessor(True, data)), config))
    second.start()
    assert second.wait_until_running(30)
    produce(12, [(1, "a12"), (2, "b12"), (3, "c12")], track=False)
    out = kafka.read(sink, produced, settle=1.0)
    assert len(out) == produced
    assert [INT.deserialize(sink, value) for _key, value, _partition in out] == [0] * produced


class _PlainChecker(ks.Processor):
    """Java's ``TimestampedStoreContentCheckerProcessor`` / ``KeyValueStoreContentChecker
    Processor``: puts each record, forwards how many of its own copy's keys read back wrong."""

    def __init__(self, timestamped: bool) -> None:
        self.timestamped = timestamped
        self.data: dict = {}

    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store(STORE_NAME)

    def process(self, record: ks.Record) -> None:
        value = record.value
        if self.timestamped and value is not None:
            value = ks.ValueAndTimestamp(value, record.timestamp)
        self.store.put(record.key, value)
        self.data[record.key] = value
        failed = sum(self.store.get(k) != v for k, v in self.data.items())
        self.context.forward(record.with_value(failed))


def _plain_app(source: str, sink: str, timestamped: bool) -> ks.Topology:
    builder = ks.StreamsBuilder()
    if timestamped:
        store = ks.Stores.timestamped_key_value_store_builder(
            ks.Stores.persistent_timestamped_key_value_store(STORE_NAME), INT, STR)
    else:
        store = ks.Stores.key_value_store_builder(
            ks.Stores.persistent_key_value_store(STORE_NAME), INT, STR)
    builder.add_state_store(store)
    builder.stream(source, ks.Consumed.with_(INT, STR)) \
        .process(lambda: _PlainChecker(timestamped), STORE_NAME) \
        .to(sink, ks.Produced.with_(INT, INT))
    return builder.build()


@pytest.mark.parametrize("timestamped", [True, False], ids=["timestamped", "non_timestamped"])
def test_should_manual_upgrade_from_non_versioned_to_versioned(kafka, timestamped):
    """``shouldManualUpgradeFromNonVersioned{Timestamped,NonTimestamped}ToVersioned``: the first
    run keeps a plain store; after ``cleanup()`` the application restarts with a versioned store
    of the same name, restored from the plain store's changelog (each record a version at its
    timestamp), and finds the latest version of every key. Java keeps older versions from
    compaction with ``min.compaction.lag.ms``; kslab takes topic configs as ``topic.*``."""
    source, sink = kafka.create(kafka.name("input")), kafka.create(kafka.name("output"))
    data = DataTracker()
    produced = 0

    def produce(timestamp: int, pairs: list, track: bool = True) -> None:
        nonlocal produced
        for key, value in pairs:
            value_bytes = None if value is None else STR.serialize(source, value)
            kafka.produce(source, [(INT.serialize(source, key), value_bytes)],
                          timestamp=BASE + timestamp)
            if track:
                data.add(key, BASE + timestamp, value)
            produced += 1

    config = kafka.config("versioned-upgrade", commit__interval__ms=1000)
    config["topic.min.compaction.lag.ms"] = 60_000
    first = kafka.track(ks.KafkaStreams(_plain_app(source, sink, timestamped), config))
    first.start()
    assert first.wait_until_running(30)
    produce(0, [(1, "a0"), (2, "b0"), (3, None)])
    produce(5, [(1, "a5"), (2, None), (3, "c5")])
    produce(2, [(1, "a2"), (2, "b2"), (3, None)])  # out-of-order data
    out = kafka.read(sink, produced, settle=0.5)
    assert [INT.deserialize(sink, value) for _key, value, _partition in out] == [0] * produced
    assert first.close(timeout=10_000)
    first.cleanup()

    second = kafka.track(ks.KafkaStreams(
        _app(source, sink, lambda: VersionedStoreContentCheckerProcessor(True, data)), config))
    second.start()
    assert second.wait_until_running(30)
    produce(12, [(1, "a12"), (2, "b12"), (3, "c12")], track=False)
    out = kafka.read(sink, produced, settle=1.0)
    assert len(out) == produced
    assert [INT.deserialize(sink, value) for _key, value, _partition in out] == [0] * produced
