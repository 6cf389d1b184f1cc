"""Kafka's ``RestoreIntegrationTest`` on the live runtime (a LocalBroker), the cases kslab's API
reaches: a table whose changelog holds a tombstone is restored (after ``cleanup()``) without
error and goes on processing; applications whose stores have logging disabled start and
process. Java runs the last two with and without its state updater, an internal switch kslab has
no counterpart of: each runs once. Java's configs: Integer serdes, no record cache, commit every
1000 ms, earliest reset, a 2-partition input topic.

Left out: the cases that write Java's ``.checkpoint`` files into its state directory layout
(``shouldRestoreStateFromSourceTopicForReadOnlyStore`` / ``...ForGlobalTable`` /
``shouldRestoreStateFromChangelogTopic``: kslab's checkpoints are its own format),
``shouldRecycleStateFromStandbyTaskPromotedToActiveTaskAndNotRestore`` (counts the closes of a
custom ``InMemoryKeyValueStore`` subclass, an internal class) and
``shouldInvokeUserDefinedGlobalStateRestoreListener`` (``onRestoreSuspended`` and the
``restore.consumer.`` config prefix, which kslab does not have).
"""

from __future__ import annotations

import threading

import kslab as ks
from kslab import serdes

INT, BYTES = serdes.Integer(), serdes.Bytes()


def _props(kafka, **extra):
    props = {"statestore__cache__max__bytes": 0, "default__key__serde": INT,
             "default__value__serde": INT, "commit__interval__ms": 1000,
             "consumer__auto__offset__reset": "earliest", **extra}
    return kafka.config("restore", **props)


def _running_after_rebalance(streams: ks.KafkaStreams) -> threading.Event:
    """Java's startup latch: set on the REBALANCING -> RUNNING transition."""
    running = threading.Event()

    def listener(new_state, old_state) -> None:
        if new_state == ks.KafkaStreams.State.RUNNING \
                and old_state == ks.KafkaStreams.State.REBALANCING:
            running.set()
    streams.set_state_listener(listener)
    return running


def test_should_restore_null_record(kafka):
    source, sink = kafka.create(kafka.name("input")), kafka.create(kafka.name("output"))
    builder = ks.StreamsBuilder()
    builder.table(source, materialized=ks.Materialized.as_(
        ks.Stores.persistent_timestamped_key_value_store("stateStore"))
        .with_key_serde(INT).with_value_serde(BYTES).with_caching_disabled()) \
        .to_stream().to(sink)
    config = kafka.config("restoration-test-app", default__key__serde=INT,
                          default__value__serde=BYTES)
    initial = [(3, b"\x03"), (3, None), (1, b"\x01")]
    kafka.produce(source, [(INT.serialize(source, k), v) for k, v in initial])

    streams = kafka.track(ks.KafkaStreams(builder.build(config), config))
    streams.start()
    got = kafka.read(sink, 3)
    assert [(INT.deserialize(sink, k), v) for k, v, _p in got] == initial
    streams.close(timeout=10_000)
    streams.cleanup()  # wipe the store: the restart restores it, tombstone included

    kafka.produce(source, [(INT.serialize(source, 2), b"\x00\x00\x00")])
    streams = kafka.track(ks.KafkaStreams(builder.build(config), config))
    streams.start()
    got = kafka.read(sink, 4)
    assert [(INT.deserialize(sink, k), v) for k, v, _p in got] == \
        [*initial, (2, b"\x00\x00\x00")]
    assert streams.state == ks.KafkaStreams.State.RUNNING
    assert streams.close(timeout=10_000)


def test_should_successfully_start_when_logging_disabled(kafka):
    source = kafka.create(kafka.name("input-stream"), partitions=2)
    builder = ks.StreamsBuilder()
    builder.stream(source).group_by_key().reduce(
        lambda a, b: a + b, ks.Materialized.as_("reduce-store").with_logging_disabled())
    streams = kafka.track(ks.KafkaStreams(builder.build(), _props(kafka)))
    running = _running_after_rebalance(streams)
    streams.start()
    assert running.wait(30)


def test_should_process_data_from_stores_with_logging_disabled(kafka):
    source = kafka.create(kafka.name("input-stream"), partitions=2)
    kafka.produce(source, [(INT.serialize(source, k), INT.serialize(source, v))
                           for k, v in [(1, 1), (2, 2), (3, 3)]])
    builder = ks.StreamsBuilder()
    builder.add_state_store(ks.Stores.key_value_store_builder(
        ks.Stores.lru_map(source, 10), INT, INT).with_logging_disabled())
    processed = threading.Semaphore(0)

    class KeyValueStoreProcessor(ks.Processor):
        def init(self, context) -> None:
            self.store = context.get_state_store(source)

        def process(self, record) -> None:
            if record.key is not None:
                self.store.put(record.key, record.value)
                processed.release()

    builder.stream(source).process(KeyValueStoreProcessor, source)
    streams = kafka.track(ks.KafkaStreams(builder.build(), _props(kafka)))
    running = _running_after_rebalance(streams)
    streams.start()
    running.wait(30)
    assert all(processed.acquire(timeout=30) for _ in range(3))
