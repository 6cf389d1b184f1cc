"""Kafka's ``VersionedKeyValueStoreIntegrationTest`` (streams/src/test/.../integration),
translated to kslab on the TopologyTestDriver instead of an embedded cluster.

``shouldPutGetAndDelete``: Java's ``VersionedStoreContentCheckerProcessor`` puts each record into a
``Stores.versionedKeyValueStoreBuilder(persistentVersionedKeyValueStore("versioned-store", 1 h),
Integer, String)`` store (the value ``"delete"`` is a ``delete(key, ts)``, ``None`` a tombstone
``put``), keeps its own copy (``DataTracker``), and forwards how many ``get(key, ts)`` /
``get(key)`` checks against that copy failed; every forwarded count must be 0. The same processor
runs against a non-versioned store in the upgrade tests' first run (``TimestampedStoreContent
CheckerProcessor`` / ``KeyValueStoreContentCheckerProcessor``).

``shouldSetChangelogTopicProperties`` reads the changelog topic's config from the broker; here
it is read from the ``TopicPlan`` every engine creates its internal topics from.

``shouldRestore`` restarts the application from its changelog, which the driver cannot do: it
runs on the live runtime in ``tests/runtime/test_versioned_store_restore_conformance.py``.
The manual-upgrade tests' second run (a restart that swaps the store for a versioned one,
restored from the old store's changelog) is there too. Not here:
``shouldAllowCustomIQv2ForCustomStoreImplementations`` needs a custom IQv2 query type, which kslab
does not offer.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.topic_plan import TopicPlan

STORE_NAME = "versioned-store"
HISTORY_RETENTION = 3_600_000
INPUT, OUTPUT = "input-stream", "output-stream"
DELETE_VALUE_KEYWORD = "delete"
BASE = 1_700_000_000_000
INT, STR = serdes.Integer(), serdes.String()
_ABSENT = object()


class DataTracker:
    """key -> timestamp -> value (``None`` for a tombstone or a delete)."""

    def __init__(self) -> None:
        self.data: dict[int, dict[int, str | None]] = {}

    def add(self, key: int, timestamp: int, value: str | None) -> None:
        self.data.setdefault(key, {})[timestamp] = \
            None if value == DELETE_VALUE_KEYWORD else value


def _contents_match(record: ks.VersionedRecord | None, value: str | None, timestamp: int) -> bool:
    if value is None:
        return record is None
    return record is not None and record.value == value and record.timestamp == timestamp


class VersionedStoreContentCheckerProcessor(ks.Processor):
    def __init__(self, write_to_store: bool, data: DataTracker | None = None) -> None:
        self.write_to_store = write_to_store
        self.data = data or DataTracker()

    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store(STORE_NAME)

    def process(self, record: ks.Record) -> None:
        if self.write_to_store:
            if record.value == DELETE_VALUE_KEYWORD:
                self.store.delete(record.key, record.timestamp)
            else:
                self.store.put(record.key, record.value, record.timestamp)
            self.data.add(record.key, record.timestamp, record.value)
        self.context.forward(record.with_value(self.check_store_contents()))

    def check_store_contents(self) -> int:
        failed = 0
        for key, versions in self.data.data.items():
            max_timestamp, value_at_max = -1, None
            for timestamp, value in versions.items():
                if timestamp > max_timestamp:
                    max_timestamp, value_at_max = timestamp, value
                if not _contents_match(self.store.get(key, timestamp), value, timestamp):
                    failed += 1
            if not _contents_match(self.store.get(key), value_at_max, max_timestamp):
                failed += 1
        return failed


class TimestampedStoreContentCheckerProcessor(ks.Processor):
    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store(STORE_NAME)
        self.data: dict[int, ks.ValueAndTimestamp | None] = {}

    def process(self, record: ks.Record) -> None:
        if record.value == DELETE_VALUE_KEYWORD:
            msg = "Using 'delete' keyword for TimestampedStoreContentCheckerProcessor"
            raise ValueError(msg)
        value_and_timestamp = None if record.value is None else \
            ks.ValueAndTimestamp(record.value, record.timestamp)
        self.store.put(record.key, value_and_timestamp)
        self.data[record.key] = value_and_timestamp
        failed = sum(self.store.get(key) != expected for key, expected in self.data.items())
        self.context.forward(record.with_value(failed))


class KeyValueStoreContentCheckerProcessor(ks.Processor):
    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store(STORE_NAME)
        self.data: dict[int, str | None] = {}

    def process(self, record: ks.Record) -> None:
        if record.value == DELETE_VALUE_KEYWORD:
            msg = "Using 'delete' keyword for KeyValueStoreContentCheckerProcessor"
            raise ValueError(msg)
        self.store.put(record.key, record.value)
        self.data[record.key] = record.value
        failed = sum(self.store.get(key) != expected for key, expected in self.data.items())
        self.context.forward(record.with_value(failed))


def _run(store_builder, supplier, batches: list[tuple[int, list]]) -> list[int]:
    builder = ks.StreamsBuilder()
    builder.add_state_store(store_builder)
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).process(supplier, STORE_NAME) \
        .to(OUTPUT, ks.Produced.with_(INT, INT))
    config = {"application.id": "app-versioned-store", "commit.interval.ms": 1000}
    with ks.TopologyTestDriver(builder.build(), config) as driver:
        inp = driver.create_input_topic(INPUT, INT, STR)
        for timestamp, pairs in batches:
            for key, value in pairs:
                inp.pipe_input(key, value, timestamp)
        return driver.create_output_topic(OUTPUT, INT, INT).read_values_to_list()


def _versioned_builder() -> ks.StoreBuilder:
    return ks.Stores.versioned_key_value_store_builder(
        ks.Stores.persistent_versioned_key_value_store(STORE_NAME, HISTORY_RETENTION), INT, STR)


BATCHES = [
    (BASE, [(1, "a0"), (2, "b0"), (3, None)]),
    (BASE + 5, [(1, "a5"), (2, None), (3, "c5")]),
    (BASE + 2, [(1, "a2"), (2, "b2"), (3, None)]),  # out-of-order data
    (BASE + 5, [(1, "a5_new"), (2, "b5"), (3, None)]),  # replace existing records
    (BASE + 7, [(1, DELETE_VALUE_KEYWORD), (2, DELETE_VALUE_KEYWORD),
                (3, DELETE_VALUE_KEYWORD)]),  # delete
]


def test_should_put_get_and_delete():
    failed = _run(_versioned_builder(), lambda: VersionedStoreContentCheckerProcessor(True),
                  BATCHES)
    assert failed == [0] * 15


def test_the_checker_counts_failed_checks():
    """The checker itself: a store that was never written fails each check of a non-null value
    (so the all-zero counts above say something)."""
    def checker() -> VersionedStoreContentCheckerProcessor:
        data = DataTracker()
        data.add(1, BASE, "a0")
        data.add(2, BASE, None)
        return VersionedStoreContentCheckerProcessor(False, data)
    assert _run(_versioned_builder(), checker, [(BASE, [(9, "x")])]) == [2]


@pytest.mark.parametrize("timestamped", [True, False])
def test_manual_upgrade_first_run(timestamped):
    """``shouldManualUpgradeFromNonVersioned{Timestamped,NonTimestamped}ToVersioned``: the
    non-versioned store's run before the restart."""
    if timestamped:
        store_builder = ks.Stores.timestamped_key_value_store_builder(
            ks.Stores.persistent_timestamped_key_value_store(STORE_NAME), INT, STR)
        supplier = TimestampedStoreContentCheckerProcessor
    else:
        store_builder = ks.Stores.key_value_store_builder(
            ks.Stores.persistent_key_value_store(STORE_NAME), INT, STR)
        supplier = KeyValueStoreContentCheckerProcessor
    assert _run(store_builder, supplier, BATCHES[:3]) == [0] * 9


def test_should_set_changelog_topic_properties():
    builder = ks.StreamsBuilder()
    builder.add_state_store(_versioned_builder())
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .process(lambda: VersionedStoreContentCheckerProcessor(False), STORE_NAME) \
        .to(OUTPUT, ks.Produced.with_(INT, INT))
    plan = TopicPlan.build(builder.build(), "app-versioned", {INPUT: 1})
    changelog = plan.internal["app-versioned-versioned-store-changelog"]
    assert changelog["cleanup.policy"] == "compact"
    assert changelog["min.compaction.lag.ms"] == str(HISTORY_RETENTION + 24 * 60 * 60 * 1000)
