"""Kafka's ``ChangeLoggingKeyValueBytesStoreTest``: a logged key-value store writes each change to
the inner store and the same key and value bytes to the changelog (a delete logs a tombstone);
``put_if_absent`` writes and logs only when the key has no value.

Mapping: kslab folds the change-logging layer into the typed store, so the store under test is a
``key_value_store_builder`` store with ``serdes.Bytes()`` keys and values over an in-memory
backend the test keeps (Java's ``inner``); ``Bytes.wrap(b)`` is ``b``; the ``MockRecordCollector``
is ``RecordingContext.changelog`` (its default serdes are ``Bytes`` rather than Java's
String/Long, which the store never uses, because it decodes what it records);
``StringSerializer`` is ``serdes.String()``. Skipped:
``shouldDelegateInit`` (Mockito verification of a wrapper chain kslab does not have) and
``shouldLogPositionOnPut`` (the IQv2 ``Position`` changelog header is not in kslab's API).
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
THERE, WORLD = b"there", b"world"


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
    recording = RecordingContext(tmp_path, B, B)  # it decodes what it records: bytes here
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


def test_should_not_write_to_inner_on_put_if_absent_when_value_for_key_exists(store, inner):
    store.put(HI, THERE)
    store.put_if_absent(HI, WORLD)
    assert inner.get(HI) == THERE


def test_should_write_to_changelog_on_put_if_absent_when_no_previous_value(store, context):
    store.put_if_absent(HI, THERE)
    assert collected(context) == [(HI, THERE)]


def test_should_not_write_to_change_log_on_put_if_absent_when_value_for_key_exists(store, context):
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
    keys, values = [], []
    with store.prefix_scan("hi", ks.serdes.String()) as keys_with_prefix:
        while keys_with_prefix.has_next():
            entry = keys_with_prefix.next()
            keys.append(entry.key)
            values.append(entry.value)
    assert keys == [HI]
    assert values == [THERE]


def test_should_return_null_on_get_when_doesnt_exist(store) -> None:
    assert store.get(HELLO) is None
