"""Kafka's ``StoresTest``, its window and session store tests (the key-value ones are translated
apart): argument checks with Java's exceptions and messages, and what the suppliers and
builders make.

Mapping: ``NullPointerException`` is ``StoreError`` (``MissingArgumentError`` too),
``IllegalArgumentException`` is ``StoreError`` (``InvalidArgumentError`` too), both with Java's
exact message; ``Duration`` arguments are int ms. Java's ``supplier.get()`` classes
(``RocksDBWindowStore`` over a plain or timestamped segmented bytes store,
``RocksDBSessionStore``) are kslab's supplier flags: ``persistent``, ``timestamped`` and the
RocksDB backend ``get()`` returns. ``assertThat(store, not(nullValue()))`` checks the store class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import kslab as ks
from kslab.errors import InvalidArgumentError, MissingArgumentError
from kslab.state import SessionStore, TimestampedWindowStore, WindowStore
from kslab.state.backends.rocksdb import RocksDBKeyValueBackend


def message(error: type[Exception], call: Callable[[], Any]) -> str:
    with pytest.raises(ks.StoreError) as raised:
        call()
    assert isinstance(raised.value, error)
    return str(raised.value)


def test_should_throw_if_i_persistent_window_store_store_name_is_null() -> None:
    assert message(MissingArgumentError,
                   lambda: ks.Stores.persistent_window_store(None, 0, 0, False)) == \
        "name cannot be null"


def test_should_throw_if_i_persistent_timestamped_window_store_store_name_is_null() -> None:
    assert message(MissingArgumentError,
                   lambda: ks.Stores.persistent_timestamped_window_store(None, 0, 0, False)) == \
        "name cannot be null"


def test_should_throw_if_i_persistent_window_store_retention_period_is_negative() -> None:
    assert message(InvalidArgumentError,
                   lambda: ks.Stores.persistent_window_store("anyName", -1, 0, False)) == \
        "retentionPeriod cannot be negative"


def test_should_throw_if_i_persistent_timestamped_window_store_retention_period_is_negative(
) -> None:
    call = lambda: ks.Stores.persistent_timestamped_window_store("anyName", -1, 0, False)  # noqa: E731
    assert message(InvalidArgumentError, call) == "retentionPeriod cannot be negative"


def test_should_throw_if_i_persistent_window_store_if_window_size_is_negative() -> None:
    assert message(InvalidArgumentError,
                   lambda: ks.Stores.persistent_window_store("anyName", 0, -1, False)) == \
        "windowSize cannot be negative"


def test_should_throw_if_i_persistent_timestamped_window_store_if_window_size_is_negative(
) -> None:
    call = lambda: ks.Stores.persistent_timestamped_window_store("anyName", 0, -1, False)  # noqa: E731
    assert message(InvalidArgumentError, call) == "windowSize cannot be negative"


def test_should_throw_if_i_persistent_session_store_store_name_is_null() -> None:
    assert message(MissingArgumentError,
                   lambda: ks.Stores.persistent_session_store(None, 0)) == "name cannot be null"


def test_should_throw_if_i_persistent_session_store_retention_period_is_negative() -> None:
    assert message(InvalidArgumentError,
                   lambda: ks.Stores.persistent_session_store("anyName", -1)) == \
        "retentionPeriod cannot be negative"


def test_should_throw_if_supplier_is_null_for_window_store_builder() -> None:
    assert message(MissingArgumentError, lambda: ks.Stores.window_store_builder(
        None, ks.serdes.Bytes(), ks.serdes.Bytes())) == "supplier cannot be null"


def test_should_throw_if_supplier_is_null_for_session_store_builder() -> None:
    assert message(MissingArgumentError, lambda: ks.Stores.session_store_builder(
        None, ks.serdes.Bytes(), ks.serdes.Bytes())) == "supplier cannot be null"


def test_should_create_rocks_db_window_store() -> None:
    supplier = ks.Stores.persistent_window_store("store", 1, 1, False)
    assert supplier.persistent and not supplier.timestamped
    assert isinstance(supplier.get(), RocksDBKeyValueBackend)


def test_should_create_rocks_db_timestamped_window_store() -> None:
    supplier = ks.Stores.persistent_timestamped_window_store("store", 1, 1, False)
    assert supplier.persistent and supplier.timestamped
    assert isinstance(supplier.get(), RocksDBKeyValueBackend)


def test_should_create_rocks_db_session_store() -> None:
    supplier = ks.Stores.persistent_session_store("store", 1)
    assert supplier.persistent
    assert isinstance(supplier.get(), RocksDBKeyValueBackend)


def test_should_build_window_store() -> None:
    store = ks.Stores.window_store_builder(
        ks.Stores.persistent_window_store("store", 3, 3, True), ks.serdes.String(),
        ks.serdes.String()).build()
    assert isinstance(store, WindowStore)


def test_should_build_timestamped_window_store() -> None:
    store = ks.Stores.timestamped_window_store_builder(
        ks.Stores.persistent_timestamped_window_store("store", 3, 3, True), ks.serdes.String(),
        ks.serdes.String()).build()
    assert isinstance(store, TimestampedWindowStore)


def test_should_build_timestamped_window_store_that_wraps_window_store() -> None:
    store = ks.Stores.timestamped_window_store_builder(
        ks.Stores.persistent_window_store("store", 3, 3, True), ks.serdes.String(),
        ks.serdes.String()).build()
    assert isinstance(store, TimestampedWindowStore)


def test_should_build_timestamped_window_store_that_wraps_in_memory_window_store() -> None:
    store = ks.Stores.timestamped_window_store_builder(
        ks.Stores.in_memory_window_store("store", 3, 3, True), ks.serdes.String(),
        ks.serdes.String()).with_logging_disabled().with_caching_disabled().build()
    assert isinstance(store, TimestampedWindowStore)
    assert not store.persistent


def test_should_build_session_store() -> None:
    store = ks.Stores.session_store_builder(
        ks.Stores.persistent_session_store("name", 10), ks.serdes.String(),
        ks.serdes.String()).build()
    assert isinstance(store, SessionStore)
