"""Kafka's ``WindowStoreBuilderTest``: what ``Stores.window_store_builder(...).build()`` wraps.

Mapping: Java's wrapper layers are kslab flags and classes: the metered outer store is the
``WindowStore`` itself, ``ChangeLoggingWindowBytesStore`` is ``logging_enabled``, and
``CachingWindowStore`` is ``kslab.state.caching_window.CachingWindowStore`` whose ``wrapped``
property is the logged store. The mocked supplier is a real ``persistent_window_store`` supplier
(its ``metrics_scope`` set to None for the metrics-scope test); ``NullPointerException`` is
``StoreError`` with Java's message. Skipped: ``shouldThrowNullPointerIfTimeIsNull`` (kslab
builders take no ``Time``).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.state import WindowStore, WindowStoreBuilder
from kslab.state.caching_window import CachingWindowStore


def make_builder() -> WindowStoreBuilder:
    supplier = ks.Stores.persistent_window_store("name", 10, 10, False)
    return WindowStoreBuilder(supplier, ks.serdes.String(), ks.serdes.String())


def test_should_have_metered_store_as_outer_store() -> None:
    store = make_builder().build()
    assert isinstance(store, WindowStore)
    assert not isinstance(store, CachingWindowStore)


def test_should_have_change_logging_store_by_default() -> None:
    assert make_builder().build().logging_enabled


def test_should_not_have_change_logging_store_when_disabled() -> None:
    assert not make_builder().with_logging_disabled().build().logging_enabled


def test_should_have_caching_store_when_enabled() -> None:
    store = make_builder().with_caching_enabled().build()
    assert isinstance(store, CachingWindowStore)


def test_should_have_change_logging_store_when_logging_enabled() -> None:
    store = make_builder().with_logging_enabled({}).build()
    assert isinstance(store, WindowStore)
    assert store.logging_enabled


def test_should_have_caching_and_change_logging_when_both_enabled() -> None:
    store = make_builder().with_logging_enabled({}).with_caching_enabled().build()
    assert isinstance(store, CachingWindowStore)
    assert isinstance(store.wrapped, WindowStore)
    assert store.wrapped.logging_enabled


def test_should_disable_caching_with_retain_duplicates() -> None:
    supplier = ks.Stores.persistent_window_store("name", 10, 10, True)
    builder = WindowStoreBuilder(supplier, ks.serdes.String(), ks.serdes.String())
    builder.with_caching_enabled()
    builder.build()
    assert builder.caching_enabled is False


def test_should_disable_log_compaction_with_retain_duplicates() -> None:
    supplier = ks.Stores.persistent_window_store("name", 10, 10, True)
    builder = WindowStoreBuilder(supplier, ks.serdes.String(), ks.serdes.String())
    builder.with_caching_enabled()
    assert builder.log_config["cleanup.policy"] == "delete"


def test_should_throw_null_pointer_if_inner_is_null() -> None:
    with pytest.raises(ks.StoreError) as raised:
        WindowStoreBuilder(None, ks.serdes.String(), ks.serdes.String())
    assert str(raised.value) == "storeSupplier can't be null"


def test_should_throw_null_pointer_if_metrics_scope_is_null() -> None:
    supplier = ks.Stores.persistent_window_store("name", 10, 10, False)
    supplier.metrics_scope = None
    with pytest.raises(ks.StoreError) as raised:
        WindowStoreBuilder(supplier, ks.serdes.String(), ks.serdes.String())
    assert str(raised.value) == "storeSupplier's metricsScope can't be null"
