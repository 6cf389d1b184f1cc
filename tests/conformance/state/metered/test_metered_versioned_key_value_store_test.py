"""Kafka's ``MeteredVersionedKeyValueStoreTest``: the outer layer of a versioned store serializes
with the changelog topic's name, refuses ``None`` keys, delegates put/get/delete to the inner
bytes store and decodes what it answers.

Mapping: kslab folds the metered layer into the typed ``VersionedKeyValueStore``, so ``store`` is
a ``versioned_key_value_store_builder`` store with String keys and values over an in-memory
versioned backend the test keeps (Java's mocked ``inner``), opened on a ``RecordingContext``.
Where Java stubs what the inner store answers (``RAW_VALUE_AND_TIMESTAMP``), the store is given
that version first, so the assertion is on what the typed store decodes; ``verify(inner)...`` is
what the store shows afterwards. ``NullPointerException`` is ``MissingArgumentError`` with
Java's message. Skipped: the metrics tests (``shouldRecordMetricsOnInit``, the metric half of
``shouldDelegateAndRecordMetricsOn...``, ``shouldRemoveMetricsOnCloseEvenIfInnerThrows``,
``shouldTrackOpenIteratorsMetric``, ``shouldTimeIteratorDuration``,
``shouldTrackOldestOpenIteratorTimestamp``: kslab stores have no sensors or JMX), the IQv2 tests
(``shouldThrowOnIQv2RangeQuery``, ``shouldThrowOnIQv2KeyQuery``,
``shouldThrowOnMultiVersionedKeyQueryInvalidTimeRange``,
``shouldDelegateAndAddExecutionInfoOnCustomQuery``, ``shouldDelegateGetPosition``: IQv2 queries
and positions are not in kslab's API) and the Mockito halves of ``shouldDelegatePersistent`` and
``shouldDelegateIsOpen`` (kept with a real in-memory and persistent store, open and closed).
The named-topology part of the default changelog name does not apply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state.backends import InMemoryKeyValueBackend
from kslab.state.versioned import PUT_RETURN_CODE_VALID_TO_UNDEFINED, VersionedBytesStoreSupplier
from tests.conformance.state.metered._metered_support import (
    APPLICATION_ID,
    S,
    TopicRecordingSerde,
    built,
)
from tests.conformance.state.metered._metered_support import ChangelogContext as _Context

STORE_NAME = "versioned_store"
CHANGELOG_TOPIC = "changelog-topic"
KEY, VALUE = "k", "v"
TIMESTAMP = 10
HISTORY_RETENTION = 60_000


class _Supplier(VersionedBytesStoreSupplier):
    """An in-memory versioned supplier whose ``get()`` is the test's inner store."""

    def __init__(self, inner: Any) -> None:
        super().__init__(STORE_NAME, HISTORY_RETENTION, persistent=False)
        self.inner = inner

    def get(self) -> Any:
        return self.inner


def new_metered_store(inner: Any, key_serde: Any = S, value_serde: Any = S, *,
                      logging: bool = True) -> Any:
    return built(ks.Stores.versioned_key_value_store_builder(_Supplier(inner), key_serde,
                                                             value_serde), logging=logging)


@pytest.fixture
def inner() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend(STORE_NAME)


@pytest.fixture
def store(inner: Any) -> Any:
    """``setUp``: built and initialised."""
    opened = new_metered_store(inner)
    opened.init(_Context(CHANGELOG_TOPIC), opened)
    return opened


def test_should_delegate_init(store: Any, inner: Any) -> None:
    assert store.is_open
    store.put(KEY, VALUE, TIMESTAMP)
    assert inner.get(b"k") is not None  # the inner store is open and holds the version


def do_should_pass_changelog_topic_name_to_state_store_serde(inner: Any, topic: str,
                                                             logging: bool) -> None:
    key_serde, value_serde = TopicRecordingSerde(), TopicRecordingSerde()
    store = new_metered_store(inner, key_serde, value_serde, logging=logging)
    store.init(_Context(CHANGELOG_TOPIC if logging else None), store)
    store.put(KEY, VALUE, TIMESTAMP)
    assert key_serde.topics == [topic]
    assert value_serde.topics == [topic]


def test_should_pass_changelog_topic_name_to_state_store_serde(inner: Any) -> None:
    do_should_pass_changelog_topic_name_to_state_store_serde(inner, CHANGELOG_TOPIC, True)


def test_should_pass_default_changelog_topic_name_to_state_store_serde_if_logging_disabled(
        inner: Any) -> None:
    default_changelog_topic_name = f"{APPLICATION_ID}-{STORE_NAME}-changelog"
    do_should_pass_changelog_topic_name_to_state_store_serde(
        inner, default_changelog_topic_name, False)


def test_should_delegate_and_record_metrics_on_put(store: Any, inner: Any) -> None:
    validto = store.put(KEY, VALUE, TIMESTAMP)
    assert validto == PUT_RETURN_CODE_VALID_TO_UNDEFINED
    assert inner.get(b"k") is not None


def test_should_delegate_and_record_metrics_on_delete(store: Any) -> None:
    store.put(KEY, VALUE, TIMESTAMP)
    result = store.delete(KEY, TIMESTAMP)
    assert result == ks.VersionedRecord(VALUE, TIMESTAMP)
    assert store.get(KEY) is None


def test_should_delegate_and_record_metrics_on_get(store: Any) -> None:
    store.put(KEY, VALUE, TIMESTAMP)
    assert store.get(KEY) == ks.VersionedRecord(VALUE, TIMESTAMP)


def test_should_delegate_and_record_metrics_on_get_with_timestamp(store: Any) -> None:
    store.put(KEY, VALUE, TIMESTAMP)
    assert store.get(KEY, TIMESTAMP) == ks.VersionedRecord(VALUE, TIMESTAMP)


def test_should_delegate_and_record_metrics_on_flush(store: Any) -> None:
    store.put(KEY, VALUE, TIMESTAMP)
    store.flush()
    assert store.get(KEY) == ks.VersionedRecord(VALUE, TIMESTAMP)


def test_should_delegate_and_remove_metrics_on_close(store: Any, inner: Any) -> None:
    store.close()
    assert not store.is_open


def test_should_not_set_flush_listener_if_inner_is_not_caching(store: Any) -> None:
    assert store.set_flush_listener(None, False) is False


def test_should_throw_null_pointer_on_put_if_key_is_null(store: Any) -> None:
    with pytest.raises(MissingArgumentError, match=r"^key cannot be null$"):
        store.put(None, VALUE, TIMESTAMP)


def test_should_throw_null_pointer_on_delete_if_key_is_null(store: Any) -> None:
    with pytest.raises(MissingArgumentError, match=r"^key cannot be null$"):
        store.delete(None, TIMESTAMP)


def test_should_throw_null_pointer_on_get_if_key_is_null(store: Any) -> None:
    with pytest.raises(MissingArgumentError, match=r"^key cannot be null$"):
        store.get(None)


def test_should_throw_null_pointer_on_get_with_timestamp_if_key_is_null(store: Any) -> None:
    with pytest.raises(MissingArgumentError, match=r"^key cannot be null$"):
        store.get(None, TIMESTAMP)


def test_should_delegate_name(store: Any) -> None:
    assert store.name == STORE_NAME


def test_should_delegate_persistent(store: Any, tmp_path: Path) -> None:
    supplier = ks.Stores.persistent_versioned_key_value_store(STORE_NAME, HISTORY_RETENTION)
    persistent = ks.Stores.versioned_key_value_store_builder(supplier, S, S).build()
    persistent.init(_Context(None, state_dir=tmp_path), persistent)
    assert persistent.persistent is True
    persistent.close()
    assert store.persistent is False


def test_should_delegate_is_open(store: Any) -> None:
    assert store.is_open is True
    store.close()
    assert store.is_open is False
