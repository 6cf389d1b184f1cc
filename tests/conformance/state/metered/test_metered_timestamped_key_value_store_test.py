"""Kafka's ``MeteredTimestampedKeyValueStoreTest``: the outer layer of a timestamped key-value
store decodes ``timestamp + value`` bytes into ``ValueAndTimestamp``, serializes with the
changelog topic's name, takes its serdes from the builder or else from the context, and passes
the flush listener to a caching store only.

Mapping: kslab folds the metered layer into ``TimestampedKeyValueStore``, so ``metered`` is a
``timestamped_key_value_store_builder`` store with String keys and values over an in-memory
backend the test keeps (Java's mocked ``inner``), filled with Java's
``"\\0\\0\\0\\0\\0\\0\\0avalue"`` where the mock returns it, and opened on a ``RecordingContext``
whose changelog topic is ``changelog-topic-name``. Java's ``ValueAndTimestampSerde(String)`` is the
builder's plain ``String`` value serde (kslab adds the timestamp itself); Java's mocked serdes that
answer only for the expected topic are serdes that record the topics they see. The
``...AndRecord<Op>Metric`` tests keep their store assertions (the bytes the inner store gets,
what ``get``, ``delete``, ``range`` and ``all`` decode) and drop the metric ones. Skipped:
``testMetrics``, ``shouldFlushInnerWhenFlushTimeRecords``, ``shouldTrackOpenIteratorsMetric``,
``shouldTimeIteratorDuration`` and ``shouldTrackOldestOpenIteratorTimestamp`` (kslab stores have
no sensors or JMX); ``shouldDelegateInit`` (Mockito verification of a wrapper chain kslab does not
have); ``shouldGetWithBinary``, ``shouldNotPutIfSameValuesAndGreaterTimestamp`` and
``shouldPutIfOutOfOrder`` (``getWithBinary``/``putIfDifferentValues`` are internal methods that
nothing in Kafka Streams calls, not part of kslab's store API).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.state import KeyValueBytesStoreSupplier
from kslab.state.backends import InMemoryKeyValueBackend
from tests.conformance.state.metered._metered_support import (
    APPLICATION_ID,
    ChangelogContext,
    S,
    TopicRecordingSerde,
    built,
)

STORE_NAME = "store-name"
CHANGELOG_TOPIC = "changelog-topic-name"
KEY = "key"
KEY_BYTES = b"key"
VALUE_AND_TIMESTAMP = ks.ValueAndTimestamp("value", 97)
VALUE_AND_TIMESTAMP_BYTES = b"\0\0\0\0\0\0\0avalue"  # timestamp 97 is ASCII 'a'


class _Supplier(KeyValueBytesStoreSupplier):
    metrics_scope = "scope"

    def __init__(self, inner: Any) -> None:
        super().__init__(STORE_NAME)
        self.inner = inner

    def get(self) -> Any:
        return self.inner


class _Context(ChangelogContext):
    """``ChangelogContext`` whose changelog writes keep their timestamp."""

    def log_change(self, store_name: str, key: bytes, value: bytes | None,
                   timestamp: int | None = None, headers: Any = None) -> None:
        self.changelog.append((store_name, key, value, timestamp))


@pytest.fixture
def inner() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend(STORE_NAME)


def build(inner: Any, key_serde: Any = S, value_serde: Any = S, *, logging: bool = True,
          caching: bool = False) -> Any:
    return built(ks.Stores.timestamped_key_value_store_builder(_Supplier(inner), key_serde,
                                                               value_serde),
                 logging=logging, caching=caching)


def init(store: Any, context: Any = None) -> Any:
    store.init(context or _Context(CHANGELOG_TOPIC), store)
    return store


def with_inner_value(inner: Any) -> Any:
    """``when(inner.get(KEY_BYTES)).thenReturn(VALUE_AND_TIMESTAMP_BYTES)`` (and its scans)."""
    store = build(inner)
    init(store)
    inner.put(KEY_BYTES, VALUE_AND_TIMESTAMP_BYTES)
    return store


def do_should_pass_changelog_topic_name_to_state_store_serde(inner: Any, topic: str,
                                                             logging: bool) -> None:
    key_serde, value_serde = TopicRecordingSerde(), TopicRecordingSerde()
    metered = init(build(inner, key_serde, value_serde, logging=logging),
                   _Context(CHANGELOG_TOPIC if logging else None))
    inner.put(KEY_BYTES, VALUE_AND_TIMESTAMP_BYTES)
    assert metered.get(KEY) == VALUE_AND_TIMESTAMP
    metered.put(KEY, VALUE_AND_TIMESTAMP)
    assert inner.get(KEY_BYTES) == VALUE_AND_TIMESTAMP_BYTES
    assert key_serde.topics and set(key_serde.topics) == {topic}
    assert value_serde.topics and set(value_serde.topics) == {topic}


def test_should_pass_changelog_topic_name_to_state_store_serde(inner: Any) -> None:
    do_should_pass_changelog_topic_name_to_state_store_serde(inner, CHANGELOG_TOPIC, True)


def test_should_pass_default_changelog_topic_name_to_state_store_serde_if_logging_disabled(
        inner: Any) -> None:
    default_changelog_topic_name = f"{APPLICATION_ID}-{STORE_NAME}-changelog"
    do_should_pass_changelog_topic_name_to_state_store_serde(
        inner, default_changelog_topic_name, False)


def test_should_write_bytes_to_inner_store_and_record_put_metric(inner: Any) -> None:
    metered = init(build(inner))
    metered.put(KEY, VALUE_AND_TIMESTAMP)
    assert inner.get(KEY_BYTES) == VALUE_AND_TIMESTAMP_BYTES


def test_should_get_bytes_from_inner_store_and_return_get_metric(inner: Any) -> None:
    metered = with_inner_value(inner)
    assert metered.get(KEY) == VALUE_AND_TIMESTAMP


def test_should_put_if_absent_and_record_put_if_absent_metric(inner: Any) -> None:
    metered = init(build(inner))
    assert metered.put_if_absent(KEY, VALUE_AND_TIMESTAMP) is None
    assert inner.get(KEY_BYTES) == VALUE_AND_TIMESTAMP_BYTES


def test_should_put_all_to_inner_store_and_record_put_all_metric(inner: Any) -> None:
    metered = init(build(inner))
    metered.put_all([ks.KeyValue(KEY, VALUE_AND_TIMESTAMP)])
    assert inner.get(KEY_BYTES) == VALUE_AND_TIMESTAMP_BYTES


def test_should_delete_from_inner_store_and_record_delete_metric(inner: Any) -> None:
    metered = with_inner_value(inner)
    assert metered.delete(KEY) == VALUE_AND_TIMESTAMP
    assert inner.get(KEY_BYTES) is None


def test_should_get_range_from_inner_store_and_record_range_metric(inner: Any) -> None:
    metered = with_inner_value(inner)
    iterator = metered.range(KEY, KEY)
    assert iterator.next().value == VALUE_AND_TIMESTAMP
    assert not iterator.has_next()
    iterator.close()


def test_should_get_all_from_inner_store_and_record_all_metric(inner: Any) -> None:
    metered = with_inner_value(inner)
    iterator = metered.all()
    assert iterator.next().value == VALUE_AND_TIMESTAMP
    assert not iterator.has_next()
    iterator.close()


def test_should_set_flush_listener_on_wrapped_caching_store(inner: Any) -> None:
    metered = init(build(inner, caching=True))
    assert metered.set_flush_listener(lambda *args: None, False) is True


def test_should_not_set_flush_listener_on_wrapped_none_caching_store(inner: Any) -> None:
    assert build(inner).set_flush_listener(None, False) is False


def test_should_not_throw_exception_if_serdes_correctly_set_from_processor_context(
        inner: Any) -> None:
    store = build(inner, None, None)
    store.init(_Context(CHANGELOG_TOPIC, S, ks.serdes.Long()), inner)
    store.put("key", ks.ValueAndTimestamp(42, 60000))
    assert store.get("key") == ks.ValueAndTimestamp(42, 60000)


def test_should_not_throw_exception_if_serdes_correctly_set_from_constructor_parameters(
        inner: Any) -> None:
    store = build(inner, S, ks.serdes.Long())
    store.init(_Context(CHANGELOG_TOPIC), inner)
    store.put("key", ks.ValueAndTimestamp(42, 60000))
    assert store.get("key") == ks.ValueAndTimestamp(42, 60000)
