"""Kafka's ``RocksDBStoreTest`` with the ``AbstractKeyValueStoreTest`` tests it inherits
(``_abstract_key_value_store_tests``, over ``Stores.persistent_key_value_store("my-store")``), and
its own behavioural tests of the raw ``RocksDBStore`` over ``Bytes``/``byte[]``.

Mapping: the raw ``RocksDBStore("db-name", ...)`` is a persistent store built with
``serdes.Bytes()`` keys and values and logging disabled, opened in a temporary state directory;
``context.restore(name, entries)`` is the engine's ``store.restore_batch``; Java's
``NullPointerException`` is ``MissingArgumentError`` and ``InvalidStateStoreException`` is
``ks.StoreError``. Skipped, as RocksDB options and metrics plumbing outside kslab's API: the
metrics-recorder and statistics tests, ``shouldThrowWhenUserProvidesNewBlockBasedTableFormat
Config``, ``shouldNotSetCacheInValueProvidersWhenUserProvidesPlainTableFormatConfig``,
``shouldCallRocksDbConfigSetter``, ``shouldHandleToggleOfEnablingBloomFilters``, the
``shouldVerifyThat...Metrics...`` tests, the custom-managed-iterator tests (a RocksDB option), and
the IQv2 position and consistency-vector tests (``shouldMatchPositionAfterPut``,
``shouldRestoreRecordsAndConsistencyVector*``, ``shouldHandleTombstoneRecords``,
``shouldNotThrowWhenRestoringOnMissingHeaders``). ``shouldThrowProcessorStateExceptionOnOpening
ReadOnlyDir`` and ``shouldThrowProcessorStateExceptionOnPutDeletedDir`` are skipped too: they
depend on file permissions and on RocksDB's failure when its directory vanishes under it.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from tests.conformance.state._abstract_key_value_store_tests import *  # noqa: F403
from tests.conformance.state._kv_store_support import RecordingContext

B = ks.serdes.Bytes()


@pytest.fixture
def create_store() -> Any:
    def create(context: RecordingContext) -> Any:
        opened = ks.Stores.key_value_store_builder(
            ks.Stores.persistent_key_value_store("my-store"),
            context.default_key_serde, context.default_value_serde,
        ).build()
        opened.init(context, opened)
        return opened
    return create


@pytest.fixture
def rocks_db_store(tmp_path: Any) -> Any:
    """``new RocksDBStore(DB_NAME, METRICS_SCOPE)`` initialized in a fresh state directory."""
    opened = ks.Stores.key_value_store_builder(
        ks.Stores.persistent_key_value_store("db-name"), B, B
    ).with_logging_disabled().build()
    opened.init(RecordingContext(tmp_path / "0_0", ks.serdes.String(), ks.serdes.String()))
    yield opened
    opened.close()


def _entries(*pairs: tuple[str, str | None]) -> list[tuple[bytes, bytes | None]]:
    return [(k.encode(), None if v is None else v.encode()) for k, v in pairs]


def _get(store: Any, key: str) -> str | None:
    value = store.get(key.encode())
    return None if value is None else value.decode()


def _keys(store: Any) -> set[str]:
    with store.all() as iterator:
        keys = set()
        while iterator.has_next():
            keys.add(iterator.next().key.decode())
    return keys


def _prefix_values(store: Any, prefix: str) -> list[str]:
    with store.prefix_scan(prefix, ks.serdes.String()) as iterator:
        return [kv.value.decode() for kv in iterator]


def test_should_not_throw_exception_on_restore_when_there_is_pre_existing_rocks_db_files(
        rocks_db_store: Any) -> None:
    rocks_db_store.put(b"existingKey", b"existingValue")
    rocks_db_store.flush()
    rocks_db_store.restore_batch(_entries(("restoredKey", "restoredValue")))
    assert _get(rocks_db_store, "restoredKey") == "restoredValue"


def test_should_put_all(rocks_db_store: Any) -> None:
    rocks_db_store.put_all([ks.KeyValue(k, v) for k, v in _entries(("1", "a"), ("2", "b"),
                                                                    ("3", "c"))])
    rocks_db_store.flush()
    assert [_get(rocks_db_store, k) for k in "123"] == ["a", "b", "c"]


def test_should_return_keys_with_given_prefix(rocks_db_store: Any) -> None:
    rocks_db_store.put_all([ks.KeyValue(k, v) for k, v in _entries(
        ("k1", "a"), ("prefix_3", "b"), ("k2", "c"), ("prefix_2", "d"), ("k3", "e"),
        ("prefix_1", "f"))])
    rocks_db_store.flush()
    assert _prefix_values(rocks_db_store, "prefix") == ["f", "d", "b"]


def test_should_return_keys_with_given_prefix_excluding_next_key_largest_key(
        rocks_db_store: Any) -> None:
    rocks_db_store.put_all([ks.KeyValue(k, v) for k, v in _entries(
        ("abc", "f"), ("abcd", "f"), ("abce", "f"))])
    rocks_db_store.flush()
    assert len(_prefix_values(rocks_db_store, "abcd")) == 1


def test_should_return_uui_ds_with_string_prefix(rocks_db_store: Any) -> None:
    uuid_serde = ks.serdes.UUID()
    uuid1, uuid2 = uuid.uuid4(), uuid.uuid4()
    prefix = str(uuid1)[:4]
    rocks_db_store.put_all([
        ks.KeyValue(uuid_serde.serialize("", uuid1), b"a"),
        ks.KeyValue(uuid_serde.serialize("", uuid2), b"b"),
    ])
    rocks_db_store.flush()
    expected = ["a"] if not str(uuid2).startswith(prefix) else ["a", "b"]
    assert sorted(_prefix_values(rocks_db_store, prefix)) == expected


def test_should_return_no_keys(rocks_db_store: Any) -> None:
    rocks_db_store.put_all([ks.KeyValue(k, v) for k, v in _entries(
        ("a", "a"), ("b", "c"), ("c", "e"))])
    rocks_db_store.flush()
    assert _prefix_values(rocks_db_store, "bb") == []


def test_should_restore_all(rocks_db_store: Any) -> None:
    rocks_db_store.restore_batch(_entries(("1", "a"), ("2", "b"), ("3", "c")))
    assert [_get(rocks_db_store, k) for k in "123"] == ["a", "b", "c"]


def test_should_put_only_if_absent_value(rocks_db_store: Any) -> None:
    rocks_db_store.put_if_absent(b"one", b"A")
    rocks_db_store.put_if_absent(b"one", b"B")
    assert _get(rocks_db_store, "one") == "A"


def test_should_handle_deletes_on_restore_all(rocks_db_store: Any) -> None:
    rocks_db_store.restore_batch(_entries(("1", "a"), ("2", "b"), ("3", "c"), ("1", None)))
    assert _keys(rocks_db_store) == {"2", "3"}


def test_should_handle_deletes_and_put_back_on_restore_all(rocks_db_store: Any) -> None:
    rocks_db_store.restore_batch(_entries(
        ("1", "a"), ("2", "b"), ("1", None), ("3", "c"), ("1", "restored")))
    assert _keys(rocks_db_store) == {"1", "2", "3"}
    assert [_get(rocks_db_store, k) for k in "123"] == ["restored", "b", "c"]


def test_should_restore_then_delete_on_restore_all(rocks_db_store: Any) -> None:
    rocks_db_store.restore_batch(_entries(("1", "a"), ("2", "b"), ("3", "c")))
    assert [_get(rocks_db_store, k) for k in "123"] == ["a", "b", "c"]
    rocks_db_store.restore_batch(_entries(("2", "b"), ("3", "c"), ("1", None)))
    assert _keys(rocks_db_store) == {"2", "3"}


def test_should_throw_null_pointer_exception_on_null_put(rocks_db_store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        rocks_db_store.put(None, b"someVal")


def test_should_throw_null_pointer_exception_on_null_put_all(rocks_db_store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        rocks_db_store.put(None, b"someVal")


def test_should_throw_null_pointer_exception_on_null_get(rocks_db_store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        rocks_db_store.get(None)


def test_should_throw_null_pointer_exception_on_delete(rocks_db_store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        rocks_db_store.delete(None)


def test_should_return_value_on_range(rocks_db_store: Any) -> None:
    for key, value in [("0", "zero"), ("1", "one"), ("2", "two")]:
        rocks_db_store.put(key.encode(), value.encode())
    with rocks_db_store.range(None, b"1") as iterator:
        assert [ks.KeyValue(kv.key.decode(), kv.value.decode()) for kv in iterator] == [
            ks.KeyValue("0", "zero"), ks.KeyValue("1", "one")]


def test_should_perform_range_queries_with_caching_disabled(store: Any) -> None:
    store.put(1, "hi")
    store.put(2, "goodbye")
    with store.range(1, 2) as iterator:
        assert iterator.next().value == "hi"
        assert iterator.next().value == "goodbye"
        assert not iterator.has_next()


def test_should_perform_all_queries_with_caching_disabled(store: Any) -> None:
    store.put(1, "hi")
    store.put(2, "goodbye")
    with store.all() as iterator:
        assert iterator.next().value == "hi"
        assert iterator.next().value == "goodbye"
        assert not iterator.has_next()


def test_should_close_open_range_iterators_when_store_closed_and_throw_invalid_state_store_on_has_next_and_next(  # noqa: E501
        store: Any) -> None:
    store.put(1, "hi")
    store.put(2, "goodbye")
    with store.range(1, 5) as iterator_one, store.range(1, 4) as iterator_two:
        assert iterator_one.has_next()
        assert iterator_two.has_next()
        store.close()
        for iterator in (iterator_one, iterator_two):
            with pytest.raises(ks.StoreError):
                iterator.has_next()
            with pytest.raises(ks.StoreError):
                iterator.next()
