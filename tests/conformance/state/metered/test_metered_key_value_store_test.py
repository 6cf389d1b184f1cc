"""Kafka's ``MeteredKeyValueStoreTest``: the outer layer of a key-value store serializes with the
changelog topic's name, refuses ``None`` keys and prefixes, decodes what the inner store holds and
passes the flush listener to a caching store only.

Mapping: kslab folds the metered layer into the typed ``KeyValueStore``, so ``metered`` is a
``key_value_store_builder`` store with String keys and values over an in-memory backend the test
keeps (Java's mocked ``inner``), opened on a ``RecordingContext`` whose changelog topic is
``changelog-topic`` (Java's ``context.changelogFor``); ``CachedKeyValueStore`` is the same store
``with_caching_enabled()``. Java's mocked serdes that answer only for the expected topic are serdes
that record the topic they see; ``NullPointerException`` is ``MissingArgumentError``. The
``...AndRecord<Op>Metric`` tests keep their store assertions (the bytes the inner store gets, what
``get``, ``range`` and ``all`` decode) and drop the metric ones. Skipped: the metrics tests
(``testMetrics``, ``shouldRecordRestoreLatencyOnInit``, ``shouldFlushInnerWhenFlushTimeRecords``,
``shouldRemoveMetrics...``, ``shouldTrackOpenIteratorsMetric``, ``shouldTimeIteratorDuration``,
``shouldTrackOldestOpenIteratorTimestamp``: kslab stores have no sensors or JMX),
``shouldDelegateInit`` (Mockito verification of a wrapper chain kslab does not have) and the four
``shouldThrowNullPointerOn(Reverse)RangeIf(From|To)IsNull`` tests (they throw only because the
store is not initialised and the mocked inner store returns no iterator; an open store takes
``None`` as an open bound, as ``CompositeReadOnlyKeyValueStoreTest`` asserts). The named-topology
part of the default changelog name does not apply (kslab has no named topologies).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state import KeyValueBytesStoreSupplier
from kslab.state.backends import InMemoryKeyValueBackend
from tests.conformance.state.metered._metered_support import (
    APPLICATION_ID,
    S,
    TopicRecordingSerde,
    built,
)
from tests.conformance.state.metered._metered_support import ChangelogContext as _Context

STORE_NAME = "store-name"
CHANGELOG_TOPIC = "changelog-topic"
KEY, VALUE = "key", "value"
KEY_BYTES, VALUE_BYTES = b"key", b"value"


class _Supplier(KeyValueBytesStoreSupplier):
    metrics_scope = "scope"

    def __init__(self, inner: Any) -> None:
        super().__init__(STORE_NAME)
        self.inner = inner

    def get(self) -> Any:
        return self.inner


@pytest.fixture
def inner() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend(STORE_NAME)


def build(inner: Any, key_serde: Any = S, value_serde: Any = S, *, logging: bool = True,
          caching: bool = False) -> Any:
    return built(ks.Stores.key_value_store_builder(_Supplier(inner), key_serde, value_serde),
                 logging=logging, caching=caching)


@pytest.fixture
def metered(inner: Any) -> Any:
    """``setUpWithoutContext``: built, not initialised."""
    return build(inner)


def init(store: Any, changelog: str | None = CHANGELOG_TOPIC) -> Any:
    store.init(_Context(changelog), store)
    return store


def do_should_pass_changelog_topic_name_to_state_store_serde(inner: Any, topic: str,
                                                             logging: bool) -> None:
    key_serde, value_serde = TopicRecordingSerde(), TopicRecordingSerde()
    inner.open(None)
    inner.put(KEY_BYTES, VALUE_BYTES)
    metered = init(build(inner, key_serde, value_serde, logging=logging),
                   CHANGELOG_TOPIC if logging else None)
    assert metered.get(KEY) == VALUE
    metered.put(KEY, VALUE)
    assert key_serde.topics and set(key_serde.topics) == {topic}
    assert value_serde.topics and set(value_serde.topics) == {topic}


def test_should_pass_changelog_topic_name_to_state_store_serde(inner: Any) -> None:
    do_should_pass_changelog_topic_name_to_state_store_serde(inner, CHANGELOG_TOPIC, True)


def test_should_pass_default_changelog_topic_name_to_state_store_serde_if_logging_disabled(
        inner: Any) -> None:
    default_changelog_topic_name = f"{APPLICATION_ID}-{STORE_NAME}-changelog"
    do_should_pass_changelog_topic_name_to_state_store_serde(
        inner, default_changelog_topic_name, False)


def with_inner_value(inner: Any) -> Any:
    """``when(inner.get(KEY_BYTES)).thenReturn(VALUE_BYTES)`` (and its scans)."""
    metered = init(build(inner))
    inner.put(KEY_BYTES, VALUE_BYTES)
    return metered


def test_should_write_bytes_to_inner_store_and_record_put_metric(inner: Any) -> None:
    init(build(inner)).put(KEY, VALUE)
    assert inner.get(KEY_BYTES) == VALUE_BYTES


def test_should_get_bytes_from_inner_store_and_return_get_metric(inner: Any) -> None:
    assert with_inner_value(inner).get(KEY) == VALUE


def test_should_put_if_absent_and_record_put_if_absent_metric(inner: Any) -> None:
    assert init(build(inner)).put_if_absent(KEY, VALUE) is None
    assert inner.get(KEY_BYTES) == VALUE_BYTES


def test_should_put_all_to_inner_store_and_record_put_all_metric(inner: Any) -> None:
    init(build(inner)).put_all([ks.KeyValue(KEY, VALUE)])
    assert inner.get(KEY_BYTES) == VALUE_BYTES


def test_should_delete_from_inner_store_and_record_delete_metric(inner: Any) -> None:
    assert with_inner_value(inner).delete(KEY) == VALUE
    assert inner.get(KEY_BYTES) is None


def test_should_get_range_from_inner_store_and_record_range_metric(inner: Any) -> None:
    iterator = with_inner_value(inner).range(KEY, KEY)
    assert iterator.next().value == VALUE
    assert not iterator.has_next()
    iterator.close()


def test_should_get_all_from_inner_store_and_record_all_metric(inner: Any) -> None:
    iterator = with_inner_value(inner).all()
    assert iterator.next().value == VALUE
    assert not iterator.has_next()
    iterator.close()


def test_should_set_flush_listener_on_wrapped_caching_store(inner: Any) -> None:
    metered = init(build(inner, caching=True))
    assert metered.set_flush_listener(lambda *args: None, False) is True


def test_should_not_throw_null_pointer_exception_if_get_returns_null(metered: Any) -> None:
    init(metered)
    assert metered.get("a") is None


def test_should_not_set_flush_listener_on_wrapped_none_caching_store(metered: Any) -> None:
    assert metered.set_flush_listener(None, False) is False


def test_should_throw_null_pointer_on_get_if_key_is_null(metered: Any) -> None:
    init(metered)
    with pytest.raises(MissingArgumentError):
        metered.get(None)


def test_should_throw_null_pointer_on_put_if_key_is_null(metered: Any) -> None:
    init(metered)
    with pytest.raises(MissingArgumentError):
        metered.put(None, VALUE)


def test_should_throw_null_pointer_on_put_if_absent_if_key_is_null(metered: Any) -> None:
    init(metered)
    with pytest.raises(MissingArgumentError):
        metered.put_if_absent(None, VALUE)


def test_should_throw_null_pointer_on_delete_if_key_is_null(metered: Any) -> None:
    init(metered)
    with pytest.raises(MissingArgumentError):
        metered.delete(None)


def test_should_throw_null_pointer_on_put_all_if_any_key_is_null(metered: Any) -> None:
    init(metered)
    with pytest.raises(MissingArgumentError):
        metered.put_all([ks.KeyValue(None, VALUE)])


def test_should_throw_null_pointer_on_prefix_scan_if_prefix_is_null(metered: Any) -> None:
    init(metered)
    with pytest.raises(MissingArgumentError):
        metered.prefix_scan(None, ks.serdes.String())


def test_should_get_records_with_prefix_key(metered: Any) -> None:
    init(metered)
    metered.put(KEY, VALUE)
    iterator = metered.prefix_scan(KEY, ks.serdes.String())
    assert iterator.next().value == VALUE
    iterator.close()
