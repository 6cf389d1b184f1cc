"""Kafka's ``ProcessorContextImplTest``, translated to processors running in kslab's driver.

Java builds a ``ProcessorContextImpl`` over a mocked state manager and checks the store
decorators ``getStateStore`` hands out; here a processor named as Java's mocked current node
gets each store from its context while processing a record in ``TopologyTestDriver``, and runs
the same checks there. Global stores are filled by their global processor first (Java's mocks
answer fixed values; here the reads return what was put). ``UnsupportedOperationException`` is
``ks.StoreError`` with Java's message ("Global store is read only" for writes to a global
store, "This method may only be called by Kafka Streams" for ``init``/``close``). Java's
``persistent()`` is the mock's answer; here the stores are in-memory, so it is not checked.

Skipped, as outside kslab's API: the standby-context tests
(``shouldThrowUnsupportedOperationExceptionOn...``: the driver runs no standby tasks), the
changelog-header tests (``shouldNotSendRecordHeadersToChangelogTopic``,
``shouldSendRecordHeadersToChangelogTopicWhenConsistencyEnabled``: ``logChange`` with a
mocked record collector; the first is checked through the driver instead), and
``shouldSetAndGetProcessorMetaData`` (``setProcessorMetadata`` is the task's, not a
processor's).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

import kslab as ks
from kslab import serdes

KEY = "key"
VALUE = 42
STRING = serdes.String()
LONG = serdes.Long()


def check_throws_unsupported_operation(check, name, message):
    with pytest.raises(ks.StoreError, match=message):
        check()


def verify_store_cannot_be_initialized_or_closed(store, name):
    assert store.name == name
    assert store.is_open
    message = "This method may only be called by Kafka Streams"
    check_throws_unsupported_operation(lambda: store.init(None, None), "init()", message)
    check_throws_unsupported_operation(store.close, "close()", message)


class Checker(ks.Processor):
    """Runs ``check(store)`` on the store it gets from its context, once per record."""

    def __init__(self, store_name, check, done):
        self.store_name = store_name
        self.check = check
        self.done = done

    def init(self, context):
        self.store = context.get_state_store(self.store_name)

    def process(self, record):
        self.check(self.store)
        self.done.append(self.store_name)


class GlobalWriter(ks.Processor):
    """Fills a global store: ``write(store, record)``."""

    def __init__(self, store_name, write):
        self.store_name = store_name
        self.write = write

    def init(self, context):
        self.store = context.get_state_store(self.store_name)

    def process(self, record):
        self.write(self.store, record)


def do_global_test(store_builder, write, check):
    name = store_builder.name
    done = []
    topology = ks.Topology()
    topology.add_global_store(store_builder.with_logging_disabled(), "global-source",
                              "global-topic", "global-processor",
                              lambda: GlobalWriter(name, write), key_serde=STRING,
                              value_serde=LONG)
    topology.add_source("source", "input", key_serde=STRING, value_serde=LONG)
    topology.add_processor("fake", lambda: Checker(name, check, done), "source")
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("global-topic", STRING, LONG).pipe_input(KEY, VALUE, 1)
        driver.create_input_topic("input", STRING, LONG).pipe_input(KEY, VALUE, 1)
    assert done == [name]


def do_local_test(store_builder, check):
    name = store_builder.name
    done = []
    topology = ks.Topology()
    topology.add_source("source", "input", key_serde=STRING, value_serde=LONG)
    topology.add_processor("fake", lambda: Checker(name, check, done), "source")
    topology.add_state_store(store_builder, "fake")
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("input", STRING, LONG).pipe_input(KEY, VALUE, 1)
    assert done == [name]


def kv_builder(name):
    return ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store(name),
                                             STRING, LONG)


def timestamped_kv_builder(name):
    return ks.Stores.timestamped_key_value_store_builder(
        ks.Stores.in_memory_key_value_store(name), STRING, LONG)


def window_builder(name):
    return ks.Stores.window_store_builder(
        ks.Stores.in_memory_window_store(name, timedelta(days=1), 10, False), STRING, LONG)


def timestamped_window_builder(name):
    return ks.Stores.timestamped_window_store_builder(
        ks.Stores.in_memory_window_store(name, timedelta(days=1), 10, False), STRING, LONG)


def session_builder(name):
    return ks.Stores.session_store_builder(
        ks.Stores.in_memory_session_store(name, timedelta(days=1)), STRING, LONG)


READ_ONLY = "Global store is read only"


def test_global_key_value_store_should_be_read_only():
    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "GlobalKeyValueStore")
        check_throws_unsupported_operation(store.flush, "flush()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.put("1", 1), "put()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.put_if_absent("1", 1),
                                           "putIfAbsent()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.put_all([]), "putAll()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.delete("1"), "delete()", READ_ONLY)

        assert store.get(KEY) == VALUE
        with store.range("a", "z") as it:
            assert list(it) == [ks.KeyValue(KEY, VALUE)]
        with store.all() as it:
            assert list(it) == [ks.KeyValue(KEY, VALUE)]
        assert store.approximate_num_entries() == 1

    do_global_test(kv_builder("GlobalKeyValueStore"),
                   lambda store, record: store.put(record.key, record.value), check)


def test_global_timestamped_key_value_store_should_be_read_only():
    value_and_timestamp = ks.ValueAndTimestamp(VALUE, 1)

    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "GlobalTimestampedKeyValueStore")
        check_throws_unsupported_operation(store.flush, "flush()", READ_ONLY)
        check_throws_unsupported_operation(
            lambda: store.put("1", ks.ValueAndTimestamp(1, 2)), "put() [with timestamp]",
            READ_ONLY)
        check_throws_unsupported_operation(
            lambda: store.put_if_absent("1", ks.ValueAndTimestamp(1, 2)),
            "putIfAbsent() [with timestamp]", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.put_all([]), "putAll()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.delete("1"), "delete()", READ_ONLY)

        assert store.get(KEY) == value_and_timestamp
        with store.range("a", "z") as it:
            assert list(it) == [ks.KeyValue(KEY, value_and_timestamp)]
        with store.all() as it:
            assert list(it) == [ks.KeyValue(KEY, value_and_timestamp)]
        assert store.approximate_num_entries() == 1

    do_global_test(
        timestamped_kv_builder("GlobalTimestampedKeyValueStore"),
        lambda store, record: store.put(record.key,
                                        ks.ValueAndTimestamp(record.value, record.timestamp)),
        check)


def test_global_window_store_should_be_read_only():
    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "GlobalWindowStore")
        check_throws_unsupported_operation(store.flush, "flush()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.put("1", 1, 1), "put()", READ_ONLY)

        with store.fetch_all(0, 0) as it:
            assert [(kv.key.key, kv.value) for kv in it] == [(KEY, VALUE)]
        with store.fetch(KEY, 0, 1) as it:
            assert list(it) == [ks.KeyValue(0, VALUE)]
        with store.fetch(KEY, KEY, 0, 1) as it:
            assert [(kv.key.key, kv.value) for kv in it] == [(KEY, VALUE)]
        assert store.fetch(KEY, 0) == VALUE
        with store.all() as it:
            assert [(kv.key.key, kv.value) for kv in it] == [(KEY, VALUE)]

    do_global_test(window_builder("GlobalWindowStore"),
                   lambda store, record: store.put(record.key, record.value, 0), check)


def test_global_timestamped_window_store_should_be_read_only():
    value_and_timestamp = ks.ValueAndTimestamp(VALUE, 1)

    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "GlobalTimestampedWindowStore")
        check_throws_unsupported_operation(store.flush, "flush()", READ_ONLY)
        check_throws_unsupported_operation(
            lambda: store.put("1", ks.ValueAndTimestamp(1, 1), 1), "put() [with timestamp]",
            READ_ONLY)

        with store.fetch_all(0, 0) as it:
            assert [(kv.key.key, kv.value) for kv in it] == [(KEY, value_and_timestamp)]
        with store.fetch(KEY, 0, 1) as it:
            assert list(it) == [ks.KeyValue(0, value_and_timestamp)]
        with store.fetch(KEY, KEY, 0, 1) as it:
            assert [(kv.key.key, kv.value) for kv in it] == [(KEY, value_and_timestamp)]
        assert store.fetch(KEY, 0) == value_and_timestamp
        with store.all() as it:
            assert [(kv.key.key, kv.value) for kv in it] == [(KEY, value_and_timestamp)]

    do_global_test(
        timestamped_window_builder("GlobalTimestampedWindowStore"),
        lambda store, record: store.put(
            record.key, ks.ValueAndTimestamp(record.value, record.timestamp), 0),
        check)


def test_global_session_store_should_be_read_only():
    session = ks.Windowed(KEY, ks.Window(1, 2))

    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "GlobalSessionStore")
        check_throws_unsupported_operation(store.flush, "flush()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.remove(None), "remove()", READ_ONLY)
        check_throws_unsupported_operation(lambda: store.put(None, None), "put()", READ_ONLY)

        with store.find_sessions(KEY, 1, 2) as it:
            assert list(it) == [ks.KeyValue(session, VALUE)]
        with store.find_sessions(KEY, KEY, 1, 2) as it:
            assert list(it) == [ks.KeyValue(session, VALUE)]
        with store.fetch(KEY) as it:
            assert list(it) == [ks.KeyValue(session, VALUE)]
        with store.fetch(KEY, KEY) as it:
            assert list(it) == [ks.KeyValue(session, VALUE)]

    do_global_test(session_builder("GlobalSessionStore"),
                   lambda store, record: store.put(session, record.value), check)


def test_local_key_value_store_should_not_allow_init_or_close():
    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "LocalKeyValueStore")
        store.flush()
        store.put("1", 1)
        assert store.put_if_absent("1", 2) == 1
        store.put_all([])
        assert store.delete("1") == 1
        store.put(KEY, VALUE)
        assert store.get(KEY) == VALUE
        with store.range("a", "z") as it:
            assert list(it) == [ks.KeyValue(KEY, VALUE)]
        with store.all() as it:
            assert list(it) == [ks.KeyValue(KEY, VALUE)]
        assert store.approximate_num_entries() == 1

    do_local_test(kv_builder("LocalKeyValueStore"), check)


def test_local_timestamped_key_value_store_should_not_allow_init_or_close():
    value_and_timestamp = ks.ValueAndTimestamp(VALUE, 21)

    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "LocalTimestampedKeyValueStore")
        store.flush()
        store.put("1", ks.ValueAndTimestamp(1, 2))
        assert store.put_if_absent("1", ks.ValueAndTimestamp(1, 2)) == ks.ValueAndTimestamp(1, 2)
        store.put_all([])
        assert store.delete("1") == ks.ValueAndTimestamp(1, 2)
        store.put(KEY, value_and_timestamp)
        assert store.get(KEY) == value_and_timestamp
        with store.all() as it:
            assert list(it) == [ks.KeyValue(KEY, value_and_timestamp)]
        assert store.approximate_num_entries() == 1

    do_local_test(timestamped_kv_builder("LocalTimestampedKeyValueStore"), check)


def test_local_window_store_should_not_allow_init_or_close():
    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "LocalWindowStore")
        store.flush()
        store.put("1", 1, 1)
        assert store.fetch("1", 1) == 1
        with store.fetch_all(0, 1) as it:
            assert [(kv.key.key, kv.value) for kv in it] == [("1", 1)]

    do_local_test(window_builder("LocalWindowStore"), check)


def test_local_timestamped_window_store_should_not_allow_init_or_close():
    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "LocalTimestampedWindowStore")
        store.flush()
        store.put("1", ks.ValueAndTimestamp(1, 1), 1)
        assert store.fetch("1", 1) == ks.ValueAndTimestamp(1, 1)

    do_local_test(timestamped_window_builder("LocalTimestampedWindowStore"), check)


def test_local_session_store_should_not_allow_init_or_close():
    session = ks.Windowed(KEY, ks.Window(1, 2))

    def check(store):
        verify_store_cannot_be_initialized_or_closed(store, "LocalSessionStore")
        store.flush()
        store.put(session, VALUE)
        with store.fetch(KEY) as it:
            assert list(it) == [ks.KeyValue(session, VALUE)]
        store.remove(session)
        with store.fetch(KEY) as it:
            assert list(it) == []

    do_local_test(session_builder("LocalSessionStore"), check)


class StreamTimeChecker(ks.Processor):
    def __init__(self, seen):
        self.seen = seen

    def init(self, context):
        self.context = context

    def process(self, record):
        self.seen.append(self.context.current_stream_time_ms())


def test_should_match_stream_time():
    seen = []
    topology = (ks.Topology()
                .add_source("source", "input", key_serde=STRING, value_serde=LONG)
                .add_processor("fake", lambda: StreamTimeChecker(seen), "source"))
    with ks.TopologyTestDriver(topology) as driver:
        inp = driver.create_input_topic("input", STRING, LONG)
        inp.pipe_input(KEY, VALUE, 42)
        inp.pipe_input(KEY, VALUE, 7)
    assert seen == [42, 42]


class MetadataChecker(ks.Processor):
    def __init__(self, seen):
        self.seen = seen

    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.add_processor_metadata_key_value("key1", 100)
        self.seen.append(self.context.processor_metadata_for_key("key1"))
        self.seen.append(self.context.processor_metadata_for_key("nokey"))


def test_should_add_and_get_processor_key_value():
    seen = []
    topology = (ks.Topology()
                .add_source("source", "input", key_serde=STRING, value_serde=LONG)
                .add_processor("fake", lambda: MetadataChecker(seen), "source"))
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("input", STRING, LONG).pipe_input(KEY, VALUE, 1)
    assert seen == [100, None]


class HeaderStoreWriter(ks.Processor):
    def init(self, context):
        self.store = context.get_state_store("LocalKeyValueStore")

    def process(self, record):
        self.store.put(record.key, record.value)


def test_should_not_send_record_headers_to_changelog_topic():
    topology = (ks.Topology()
                .add_source("source", "input", key_serde=STRING, value_serde=LONG)
                .add_processor("fake", HeaderStoreWriter, "source")
                .add_state_store(kv_builder("LocalKeyValueStore"), "fake"))
    with ks.TopologyTestDriver(topology, {"application.id": "app"}) as driver:
        driver.create_input_topic("input", STRING, LONG).pipe_input(
            KEY, VALUE, 1, ks.Headers([("h", b"v")]))
        changelog = driver.create_output_topic("app-LocalKeyValueStore-changelog", STRING, LONG)
        record = changelog.read_record()
    assert (record.key, record.value, record.timestamp) == (KEY, VALUE, 1)
    assert list(record.headers) == []
