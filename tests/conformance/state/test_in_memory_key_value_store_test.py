"""Kafka's ``InMemoryKeyValueStoreTest`` with the ``AbstractKeyValueStoreTest`` tests it inherits
(``_abstract_key_value_store_tests``): ``Stores.in_memory_key_value_store`` behind a
``key_value_store_builder``, and the iterator contract of the in-memory store.

Mapping: the raw ``InMemoryKeyValueStore`` over ``Bytes``/``byte[]`` is a store built with
``serdes.Bytes()`` keys and values (kslab stores are typed views over byte backends); Java's
``NoSuchElementException`` is ``ks.NoSuchElementError``, the ``IllegalStateException`` of a closed
iterator is ``ks.StoreError``, ``NullPointerException`` is ``MissingArgumentError``. Skipped:
``shouldMatchPositionAfterPut`` (IQv2 ``Position`` tracking is not part of kslab's API).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from tests.conformance.state._abstract_key_value_store_tests import *  # noqa: F403
from tests.conformance.state._kv_store_support import RecordingContext, size_of

B = ks.serdes.Bytes()


@pytest.fixture
def create_store() -> Any:
    def create(context: RecordingContext) -> Any:
        store = ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("my-store"),
            context.default_key_serde, context.default_value_serde,
        ).build()
        store.init(context, store)
        return store
    return create


@pytest.fixture
def byte_store(tmp_path: Any) -> Any:
    opened = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("in-memory-byte-store"), B, B
    ).build()
    opened.init(RecordingContext(tmp_path, B, B))
    yield opened
    opened.close()


@pytest.fixture
def in_memory_store(tmp_path: Any) -> Any:
    """``new InMemoryKeyValueStore("in-memory-store-test")``: bytes in, bytes out, no changelog."""
    opened = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("in-memory-store-test"), B, B
    ).with_logging_disabled().build()
    opened.init(RecordingContext(tmp_path, B, B))
    yield opened
    opened.close()


def test_should_remove_keys_with_null_values(
        store: Any, create_store: Any, context: RecordingContext) -> None:
    store.close()
    for key, value in [(0, "zero"), (1, "one"), (2, "two"), (3, "three"), (0, None)]:
        context.add_entry_to_restore_log(key, value)
    store = create_store(context)
    try:
        context.restore(store)
        assert size_of(store) == 3
        assert store.get(0) is None
    finally:
        store.close()


def _prefix_values(byte_store: Any, prefix: str) -> list[str]:
    with byte_store.prefix_scan(prefix, ks.serdes.String()) as iterator:
        values = []
        while iterator.has_next():
            values.append(iterator.next().value.decode())
    return values


def test_should_return_keys_with_given_prefix(byte_store: Any) -> None:
    byte_store.put_all([
        ks.KeyValue(b"k1", b"a"), ks.KeyValue(b"prefix_3", b"b"), ks.KeyValue(b"k2", b"c"),
        ks.KeyValue(b"prefix_2", b"d"), ks.KeyValue(b"k3", b"e"), ks.KeyValue(b"prefix_1", b"f"),
    ])
    byte_store.flush()
    assert _prefix_values(byte_store, "prefix") == ["f", "d", "b"]


def test_should_return_keys_with_given_prefix_excluding_next_key_largest_key(
        byte_store: Any) -> None:
    byte_store.put_all([
        ks.KeyValue(b"abc", b"f"), ks.KeyValue(b"abcd", b"f"), ks.KeyValue(b"abce", b"f")
    ])
    byte_store.flush()
    assert len(_prefix_values(byte_store, "abcd")) == 1


def test_should_return_uui_ds_with_string_prefix(byte_store: Any) -> None:
    uuid_serde = ks.serdes.UUID()
    uuid1, uuid2 = uuid.uuid4(), uuid.uuid4()
    prefix = str(uuid1)[:4]
    byte_store.put_all([
        ks.KeyValue(uuid_serde.serialize("", uuid1), b"a"),
        ks.KeyValue(uuid_serde.serialize("", uuid2), b"b"),
    ])
    byte_store.flush()
    values = _prefix_values(byte_store, prefix)
    expected = ["a"] if not str(uuid2).startswith(prefix) else ["a", "b"]
    assert sorted(values) == expected


def test_should_return_no_keys(byte_store: Any) -> None:
    byte_store.put_all([ks.KeyValue(b"a", b"a"), ks.KeyValue(b"b", b"c"), ks.KeyValue(b"c", b"e")])
    byte_store.flush()
    assert _prefix_values(byte_store, "bb") == []


def test_should_throw_null_pointer_if_prefix_key_serializer_is_null(byte_store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        byte_store.prefix_scan("bb", None)


def test_iterator_has_next_on_empty_store_should_return_false(in_memory_store: Any) -> None:
    assert not in_memory_store.all().has_next()


def test_iterator_has_next_on_deleted_entry_should_return_false(in_memory_store: Any) -> None:
    in_memory_store.put(b"key", b"value")
    iterator = in_memory_store.all()
    assert iterator.has_next()
    in_memory_store.delete(b"key")
    assert not iterator.has_next()


def test_iterator_has_next_should_not_advance_iterator(in_memory_store: Any) -> None:
    in_memory_store.put(b"key", b"value")
    iterator = in_memory_store.all()
    assert iterator.has_next()
    assert iterator.has_next()


def test_iterator_has_next_should_return_true_if_elements_remaining(in_memory_store: Any) -> None:
    in_memory_store.put(b"key1", b"value1")
    in_memory_store.put(b"key2", b"value2")
    iterator = in_memory_store.all()
    in_memory_store.delete(b"key1")
    assert iterator.has_next()


def test_iterator_next_should_return_next_element(in_memory_store: Any) -> None:
    in_memory_store.put(b"key", b"value")
    assert in_memory_store.all().next() == ks.KeyValue(b"key", b"value")


def test_iterator_next_after_has_next_should_return_next_element(in_memory_store: Any) -> None:
    in_memory_store.put(b"key", b"value")
    iterator = in_memory_store.all()
    assert iterator.has_next()
    assert iterator.next() == ks.KeyValue(b"key", b"value")


def test_iterator_next_on_empty_store_should_throw_exception(in_memory_store: Any) -> None:
    with pytest.raises(ks.NoSuchElementError):
        in_memory_store.all().next()


def test_iterator_next_should_throw_exception_if_remaining_elements_deleted(
        in_memory_store: Any) -> None:
    in_memory_store.put(b"key1", b"value1")
    in_memory_store.put(b"key2", b"value2")
    iterator = in_memory_store.all()
    assert iterator.next() == ks.KeyValue(b"key1", b"value1")
    in_memory_store.delete(b"key2")
    with pytest.raises(ks.NoSuchElementError):
        iterator.next()


def test_iterator_next_should_skip_deleted_elements(in_memory_store: Any) -> None:
    in_memory_store.put(b"key1", b"value1")
    in_memory_store.put(b"key2", b"value2")
    iterator = in_memory_store.all()
    in_memory_store.delete(b"key1")
    assert iterator.next() == ks.KeyValue(b"key2", b"value2")


def test_iterator_next_should_iterate_over_all_elements(in_memory_store: Any) -> None:
    in_memory_store.put(b"key1", b"value1")
    in_memory_store.put(b"key2", b"value2")
    iterator = in_memory_store.all()
    assert iterator.next() == ks.KeyValue(b"key1", b"value1")
    assert iterator.next() == ks.KeyValue(b"key2", b"value2")
    with pytest.raises(ks.NoSuchElementError):
        iterator.next()


def test_iterator_peek_next_key_on_empty_store_should_throw_exception(
        in_memory_store: Any) -> None:
    with pytest.raises(ks.NoSuchElementError):
        in_memory_store.all().peek_next_key()


def test_iterator_peek_next_key_on_deleted_entry_should_throw_exception(
        in_memory_store: Any) -> None:
    in_memory_store.put(b"key", b"value")
    iterator = in_memory_store.all()
    assert iterator.peek_next_key() == b"key"
    in_memory_store.delete(b"key")
    with pytest.raises(ks.NoSuchElementError):
        iterator.peek_next_key()


def test_iterator_peek_next_key_should_not_advance_iterator(in_memory_store: Any) -> None:
    in_memory_store.put(b"key", b"value")
    iterator = in_memory_store.all()
    assert iterator.peek_next_key() == b"key"
    assert iterator.peek_next_key() == b"key"


def test_iterator_peek_next_key_should_skip_deleted_elements(in_memory_store: Any) -> None:
    in_memory_store.put(b"key1", b"value1")
    in_memory_store.put(b"key2", b"value2")
    iterator = in_memory_store.all()
    in_memory_store.delete(b"key1")
    assert iterator.peek_next_key() == b"key2"


def test_iterator_should_throw_illegal_state_exception_if_already_closed(
        in_memory_store: Any) -> None:
    iterator = in_memory_store.all()
    iterator.close()
    with pytest.raises(ks.StoreError):
        iterator.has_next()
    with pytest.raises(ks.StoreError):
        iterator.next()
    with pytest.raises(ks.StoreError):
        iterator.peek_next_key()
