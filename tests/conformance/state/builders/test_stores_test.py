"""Kafka's ``StoresTest``: argument validation of the ``Stores`` factories (exact messages) and
the kinds of stores their suppliers and builders make.

Mapping: ``NullPointerException`` is ``MissingArgumentError``, ``IllegalArgumentException`` is
``InvalidArgumentError`` (both also ``ks.StoreError``); ``Duration`` is ``timedelta``;
``Serdes.ByteArray()`` is ``serdes.Bytes()``. The store classes Java checks with ``instanceOf``
are kslab's byte backends (``kslab.state.backends``): ``InMemoryStore`` is the sorted in-memory
backend, ``MemoryNavigableLRUCache`` the LRU backend, ``RocksDBStore`` /
``RocksDBTimestampedStore`` the two RocksDB backends; window and session suppliers say whether
they are persistent and timestamped. "Wraps a ``TimestampedBytesStore``" is checked by behaviour:
the built store keeps the timestamp it is given. Nothing is skipped.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import kslab as ks
from kslab.errors import InvalidArgumentError, MissingArgumentError
from kslab.state import SessionStore, TimestampedWindowStore, VersionedKeyValueStore, WindowStore
from kslab.state.backends import (
    InMemoryKeyValueBackend,
    LRUKeyValueBackend,
    RocksDBKeyValueBackend,
    RocksDBTimestampedKeyValueBackend,
)
from tests.conformance.state._kv_store_support import RecordingContext

Stores = ks.Stores
ZERO = timedelta(0)
S = ks.serdes.String()
BA = ks.serdes.Bytes()


def ms(value: int) -> timedelta:
    return timedelta(milliseconds=value)


def _raises(error: type, message: str, call: Any) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


NPE, IAE = MissingArgumentError, InvalidArgumentError


def test_should_throw_if_persistent_key_value_store_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null", lambda: Stores.persistent_key_value_store(None))


def test_should_throw_if_persistent_timestamped_key_value_store_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null",
            lambda: Stores.persistent_timestamped_key_value_store(None))


def test_should_throw_if_persistent_versioned_key_value_store_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null",
            lambda: Stores.persistent_versioned_key_value_store(None, ZERO))
    _raises(NPE, "name cannot be null",
            lambda: Stores.persistent_versioned_key_value_store(None, ZERO, ms(1)))


def test_should_throw_if_persistent_versioned_key_value_store_history_retention_is_negative(
) -> None:
    _raises(IAE, "historyRetention cannot be negative",
            lambda: Stores.persistent_versioned_key_value_store("anyName", ms(-1)))
    _raises(IAE, "historyRetention cannot be negative",
            lambda: Stores.persistent_versioned_key_value_store("anyName", ms(-1), ms(1)))


def test_should_throw_if_persistent_versioned_key_value_store_segment_interval_is_zero_or_negative(
) -> None:
    _raises(IAE, "segmentInterval cannot be zero or negative",
            lambda: Stores.persistent_versioned_key_value_store("anyName", ZERO, ZERO))
    _raises(IAE, "segmentInterval cannot be zero or negative",
            lambda: Stores.persistent_versioned_key_value_store("anyName", ZERO, ms(-1)))


def test_should_throw_if_i_memory_key_value_store_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null", lambda: Stores.in_memory_key_value_store(None))


def test_should_throw_if_i_lru_map_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null", lambda: Stores.lru_map(None, 0))


def test_should_throw_if_i_lru_map_store_capacity_is_negative() -> None:
    _raises(IAE, "maxCacheSize cannot be negative", lambda: Stores.lru_map("anyName", -1))


def test_should_throw_if_i_persistent_window_store_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null",
            lambda: Stores.persistent_window_store(None, ZERO, ZERO, False))


def test_should_throw_if_i_persistent_timestamped_window_store_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null",
            lambda: Stores.persistent_timestamped_window_store(None, ZERO, ZERO, False))


def test_should_throw_if_i_persistent_window_store_retention_period_is_negative() -> None:
    _raises(IAE, "retentionPeriod cannot be negative",
            lambda: Stores.persistent_window_store("anyName", ms(-1), ZERO, False))


def test_should_throw_if_i_persistent_timestamped_window_store_retention_period_is_negative(
) -> None:
    _raises(IAE, "retentionPeriod cannot be negative",
            lambda: Stores.persistent_timestamped_window_store("anyName", ms(-1), ZERO, False))


def test_should_throw_if_i_persistent_window_store_if_window_size_is_negative() -> None:
    _raises(IAE, "windowSize cannot be negative",
            lambda: Stores.persistent_window_store("anyName", ms(0), ms(-1), False))


def test_should_throw_if_i_persistent_timestamped_window_store_if_window_size_is_negative(
) -> None:
    _raises(IAE, "windowSize cannot be negative",
            lambda: Stores.persistent_timestamped_window_store("anyName", ms(0), ms(-1), False))


def test_should_throw_if_i_persistent_session_store_store_name_is_null() -> None:
    _raises(NPE, "name cannot be null", lambda: Stores.persistent_session_store(None, ms(0)))


def test_should_throw_if_i_persistent_session_store_retention_period_is_negative() -> None:
    _raises(IAE, "retentionPeriod cannot be negative",
            lambda: Stores.persistent_session_store("anyName", ms(-1)))


def test_should_throw_if_supplier_is_null_for_window_store_builder() -> None:
    _raises(NPE, "supplier cannot be null", lambda: Stores.window_store_builder(None, BA, BA))


def test_should_throw_if_supplier_is_null_for_key_value_store_builder() -> None:
    _raises(NPE, "supplier cannot be null",
            lambda: Stores.key_value_store_builder(None, BA, BA))


def test_should_throw_if_supplier_is_null_for_versioned_key_value_store_builder() -> None:
    _raises(NPE, "supplier cannot be null",
            lambda: Stores.versioned_key_value_store_builder(None, BA, BA))


def test_should_throw_if_supplier_is_null_for_session_store_builder() -> None:
    _raises(NPE, "supplier cannot be null", lambda: Stores.session_store_builder(None, BA, BA))


def test_should_create_in_memory_key_value_store() -> None:
    assert isinstance(Stores.in_memory_key_value_store("memory").get(), InMemoryKeyValueBackend)


def test_should_create_memory_navigable_cache() -> None:
    assert isinstance(Stores.lru_map("map", 10).get(), LRUKeyValueBackend)


def test_should_create_rocks_db_store() -> None:
    store = Stores.persistent_key_value_store("store").get()
    assert isinstance(store, RocksDBKeyValueBackend)
    assert not isinstance(store, RocksDBTimestampedKeyValueBackend)


def test_should_create_rocks_db_timestamped_store() -> None:
    store = Stores.persistent_timestamped_key_value_store("store").get()
    assert isinstance(store, RocksDBTimestampedKeyValueBackend)


def test_should_create_rocks_db_versioned_store() -> None:
    store = Stores.persistent_versioned_key_value_store("store", ms(1)).get()
    assert store.persistent is True


def test_should_create_rocks_db_window_store() -> None:
    supplier = Stores.persistent_window_store("store", ms(1), ms(1), False)
    assert isinstance(supplier.get(), RocksDBKeyValueBackend)
    assert supplier.persistent
    assert not supplier.timestamped


def test_should_create_rocks_db_timestamped_window_store() -> None:
    supplier = Stores.persistent_timestamped_window_store("store", ms(1), ms(1), False)
    assert isinstance(supplier.get(), RocksDBKeyValueBackend)
    assert supplier.persistent
    assert supplier.timestamped


def test_should_create_rocks_db_session_store() -> None:
    supplier = Stores.persistent_session_store("store", ms(1))
    assert isinstance(supplier.get(), RocksDBKeyValueBackend)
    assert supplier.persistent


def test_should_build_key_value_store() -> None:
    store = Stores.key_value_store_builder(Stores.persistent_key_value_store("name"), S, S).build()
    assert isinstance(store, ks.KeyValueStore)


def test_should_build_timestamped_key_value_store() -> None:
    store = Stores.timestamped_key_value_store_builder(
        Stores.persistent_timestamped_key_value_store("name"), S, S).build()
    assert isinstance(store, ks.TimestampedKeyValueStore)


def _timestamp_kept(store: Any, tmp_path: Any) -> int:
    """Write a value at timestamp 42 and read back the timestamp the store kept."""
    store.init(RecordingContext(tmp_path, S, S))
    try:
        store.put("k", ks.ValueAndTimestamp("v", 42))
        return store.get("k").timestamp
    finally:
        store.close()


def test_should_build_timestamped_key_value_store_that_wraps_key_value_store(tmp_path: Any) -> None:
    store = Stores.timestamped_key_value_store_builder(
        Stores.persistent_key_value_store("name"), S, S).build()
    assert isinstance(store, ks.TimestampedKeyValueStore)
    assert _timestamp_kept(store, tmp_path) == -1  # the plain store drops timestamps


def test_should_build_timestamped_key_value_store_that_wraps_in_memory_key_value_store(
        tmp_path: Any) -> None:
    store = Stores.timestamped_key_value_store_builder(
        Stores.in_memory_key_value_store("name"), S, S
    ).with_logging_disabled().with_caching_disabled().build()
    assert isinstance(store, ks.TimestampedKeyValueStore)
    assert _timestamp_kept(store, tmp_path) == 42


def test_should_build_versioned_key_value_store() -> None:
    store = Stores.versioned_key_value_store_builder(
        Stores.persistent_versioned_key_value_store("name", ms(1)), S, S).build()
    assert isinstance(store, VersionedKeyValueStore)


def test_should_build_window_store() -> None:
    store = Stores.window_store_builder(
        Stores.persistent_window_store("store", ms(3), ms(3), True), S, S).build()
    assert isinstance(store, WindowStore)


def test_should_build_timestamped_window_store() -> None:
    store = Stores.timestamped_window_store_builder(
        Stores.persistent_timestamped_window_store("store", ms(3), ms(3), True), S, S).build()
    assert isinstance(store, TimestampedWindowStore)


def test_should_build_timestamped_window_store_that_wraps_window_store() -> None:
    store = Stores.timestamped_window_store_builder(
        Stores.persistent_window_store("store", ms(3), ms(3), True), S, S).build()
    assert isinstance(store, TimestampedWindowStore)


def test_should_build_timestamped_window_store_that_wraps_in_memory_window_store() -> None:
    store = Stores.timestamped_window_store_builder(
        Stores.in_memory_window_store("store", ms(3), ms(3), True), S, S
    ).with_logging_disabled().with_caching_disabled().build()
    assert isinstance(store, TimestampedWindowStore)


def test_should_build_session_store() -> None:
    store = Stores.session_store_builder(
        Stores.persistent_session_store("name", ms(10)), S, S).build()
    assert isinstance(store, SessionStore)
