"""Kafka's ``ChangeLoggingTimestampedKeyValueBytesStoreTest``: a timestamped store writes
``timestamp + value`` bytes to the inner store and logs the plain value with the value's
timestamp (a delete's tombstone carries the context's time).

Mapping: kslab folds the change-logging layer into the typed store, so the store under test is a
``timestamped_key_value_store_builder`` store with ``serdes.Bytes()`` keys and values over an
in-memory backend the test keeps (Java's ``root``); Java's raw ``"\\0\\0\\0\\0\\0\\0\\0athere"`` is
``ValueAndTimestamp(b"there", 97)`` through the store and the same 13 bytes in ``inner``. The
``MockRecordCollector`` is ``RecordingContext.changelog``. Skipped: ``shouldDelegateInit`` (Mockito
verification of a wrapper chain kslab does not have).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.state import KeyValueBytesStoreSupplier
from kslab.state.backends import InMemoryKeyValueBackend
from tests.conformance.state._kv_store_support import RecordingContext

B = ks.serdes.Bytes()
HI, HELLO = b"hi", b"hello"
THERE = ks.ValueAndTimestamp(b"there", 97)
RAW_THERE = b"\0\0\0\0\0\0\0athere"
WORLD = ks.ValueAndTimestamp(b"world", 98)
RAW_WORLD = b"\0\0\0\0\0\0\0bworld"


class _Supplier(KeyValueBytesStoreSupplier):
    metrics_scope = "in-memory"

    def __init__(self, inner: Any) -> None:
        super().__init__("kv")
        self.inner = inner

    def get(self) -> Any:
        return self.inner


@pytest.fixture
def root() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend("kv")


@pytest.fixture
def context(tmp_path: Any) -> RecordingContext:
    recording = RecordingContext(tmp_path, B, B)
    recording.timestamp = 0
    return recording


@pytest.fixture
def store(root: Any, context: RecordingContext) -> Any:
    opened = ks.Stores.timestamped_key_value_store_builder(_Supplier(root), B, B).build()
    opened.init(context, opened)
    yield opened
    opened.close()


def collected(context: RecordingContext) -> list[tuple[bytes, bytes | None, int]]:
    return [(key, value, ts) for _, key, value, ts in context.changelog]


def test_should_write_key_value_bytes_to_inner_store_on_put(store, root, context) -> None:
    store.put(HI, THERE)
    assert root.get(HI) == RAW_THERE
    assert collected(context) == [(HI, b"there", 97)]


def test_should_write_all_key_value_to_inner_store_on_put_all(store, root) -> None:
    store.put_all([ks.KeyValue(HI, THERE), ks.KeyValue(HELLO, WORLD)])
    assert root.get(HI) == RAW_THERE
    assert root.get(HELLO) == RAW_WORLD


def test_should_log_changes_on_put_all(store, context) -> None:
    store.put_all([ks.KeyValue(HI, THERE), ks.KeyValue(HELLO, WORLD)])
    assert collected(context) == [(HI, b"there", 97), (HELLO, b"world", 98)]


def test_should_propagate_delete(store, root) -> None:
    store.put(HI, THERE)
    store.delete(HI)
    assert root.approximate_num_entries() == 0
    assert root.get(HI) is None


def test_should_return_old_value_on_delete(store) -> None:
    store.put(HI, THERE)
    assert store.delete(HI) == THERE


def test_should_log_key_null_on_delete(store, context) -> None:
    store.put(HI, THERE)
    store.delete(HI)
    assert collected(context) == [(HI, b"there", 97), (HI, None, 0)]


def test_should_write_to_inner_on_put_if_absent_no_previous_value(store, root) -> None:
    store.put_if_absent(HI, THERE)
    assert root.get(HI) == RAW_THERE


def test_should_not_write_to_inner_on_put_if_absent_when_value_for_key_exists(
        store, root) -> None:
    store.put(HI, THERE)
    store.put_if_absent(HI, WORLD)
    assert root.get(HI) == RAW_THERE


def test_should_write_to_changelog_on_put_if_absent_when_no_previous_value(store, context) -> None:
    store.put_if_absent(HI, THERE)
    assert collected(context) == [(HI, b"there", 97)]


def test_should_not_write_to_change_log_on_put_if_absent_when_value_for_key_exists(
        store, context) -> None:
    store.put(HI, THERE)
    store.put_if_absent(HI, WORLD)
    assert collected(context) == [(HI, b"there", 97)]


def test_should_return_current_value_on_put_if_absent(store) -> None:
    store.put(HI, THERE)
    assert store.put_if_absent(HI, WORLD) == THERE


def test_should_return_null_on_put_if_absent_when_no_previous_value(store) -> None:
    assert store.put_if_absent(HI, THERE) is None


def test_should_return_value_on_get_when_exists(store) -> None:
    store.put(HELLO, WORLD)
    assert store.get(HELLO) == WORLD


def test_should_return_null_on_get_when_doesnt_exist(store) -> None:
    assert store.get(HELLO) is None
