"""Kafka's ``ChangeLoggingKeyValueBytesStoreTest``: every write reaches the inner store and the
changelog, deletes log a tombstone, ``put_if_absent`` logs only when it writes.

Mapping: kslab folds the change-logging layer into the typed store, so the store under test is a
``key_value_store_builder`` store with ``serdes.Bytes()`` keys and values (Java's ``Bytes`` /
``byte[]``) over an in-memory backend the test keeps (``inner``); the ``MockRecordCollector`` is
``RecordingContext.changelog`` (store, key, value, timestamp). Skipped: ``shouldDelegateInit``
(Mockito verification of the wrapper chain, which kslab does not have) and
``shouldLogPositionOnPut`` (IQv2 position headers on changelog records are not in kslab's API).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.state import KeyValueBytesStoreSupplier
from kslab.state.backends import InMemoryKeyValueBackend
from tests.conformance._kv_store_support import RecordingContext

B = ks.serdes.Bytes()
HI, HELLO, THERE, WORLD = b"hi", b"hello", b"there", b"world"


class _Supplier(KeyValueBytesStoreSupplier):
    metrics_scope = "in-memory"

    def __init__(self, inner: Any) -> None:
        super().__init__("kv")
        self.inner = inner

    def get(self) -> Any:
        return self.inner


@pytest.fixture
def inner() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend("kv")


@pytest.fixture
def context(tmp_path: Any) -> RecordingContext:
    recording = RecordingContext(tmp_path, B, B)
    recording.timestamp = 0
    return recording


@pytest.fixture
def store(inner: Any, context: RecordingContext) -> Any:
    opened = ks.Stores.key_value_store_builder(_Supplier(inner), B, B).build()
    opened.init(context, opened)
    yield opened
    opened.close()


def collected(context: RecordingContext) -> list[tuple[bytes, bytes | None]]:
    return [(key, value) for _, key, value, _ in context.changelog]


def test_should_write_key_value_bytes_to_inner_store_on_put(store, inner, context) -> None:
    store.put(HI, THERE)
    assert inner.get(HI) == THERE
    assert collected(context) == [(HI, THERE)]


def test_should_write_all_key_value_to_inner_store_on_put_all(store, inner, context) -> None:
    store.put_all([ks.KeyValue(HI, THERE), ks.KeyValue(HELLO, WORLD)])
    assert inner.get(HI) == THERE
    assert inner.get(HELLO) == WORLD
    assert collected(context) == [(HI, THERE), (HELLO, WORLD)]


def test_should_propagate_delete(store, inner) -> None:
    store.put(HI, THERE)
    store.delete(HI)
    assert inner.approximate_num_entries() == 0
    assert inner.get(HI) is None


def test_should_return_old_value_on_delete(store) -> None:
    store.put(HI, THERE)
    assert store.delete(HI) == THERE


def test_should_log_key_null_on_delete(store, context) -> None:
    store.put(HI, THERE)
    assert store.delete(HI) == THERE
    assert collected(context) == [(HI, THERE), (HI, None)]


def test_should_write_to_inner_on_put_if_absent_no_previous_value(store, inner) -> None:
    store.put_if_absent(HI, THERE)
    assert inner.get(HI) == THERE


def test_should_not_write_to_inner_on_put_if_absent_when_value_for_key_exists(
        store, inner) -> None:
    store.put(HI, THERE)
    store.put_if_absent(HI, WORLD)
    assert inner.get(HI) == THERE


def test_should_write_to_changelog_on_put_if_absent_when_no_previous_value(store, context) -> None:
    store.put_if_absent(HI, THERE)
    assert collected(context) == [(HI, THERE)]


def test_should_not_write_to_change_log_on_put_if_absent_when_value_for_key_exists(
        store, context) -> None:
    store.put(HI, THERE)
    store.put_if_absent(HI, WORLD)
    assert collected(context) == [(HI, THERE)]


def test_should_return_current_value_on_put_if_absent(store) -> None:
    store.put(HI, THERE)
    assert store.put_if_absent(HI, WORLD) == THERE


def test_should_return_null_on_put_if_absent_when_no_previous_value(store) -> None:
    assert store.put_if_absent(HI, THERE) is None


def test_should_return_value_on_get_when_exists(store) -> None:
    store.put(HELLO, WORLD)
    assert store.get(HELLO) == WORLD


def test_should_get_records_with_prefix_key(store) -> None:
    store.put(HI, THERE)
    store.put(b"hj", WORLD)  # Bytes.increment(hi)
    with store.prefix_scan("hi", ks.serdes.String()) as iterator:
        entries = []
        while iterator.has_next():
            entries.append(iterator.next())
    assert [kv.key for kv in entries] == [HI]
    assert [kv.value for kv in entries] == [THERE]


def test_should_return_null_on_get_when_doesnt_exist(store) -> None:
    assert store.get(HELLO) is None
