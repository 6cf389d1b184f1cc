"""Kafka's ``SessionStoreBuilderTest``: what ``SessionStoreBuilder(...).build()`` wraps.

Mapping: Java's wrapper layers are kslab flags and classes: the metered outer store is the
``SessionStore`` itself, ``ChangeLoggingSessionBytesStore`` is ``logging_enabled``, and
``CachingSessionStore`` is ``kslab.state.caching_window.CachingSessionStore`` whose ``wrapped``
property is the logged store. The mocked supplier is a real ``persistent_session_store`` supplier
(its ``metrics_scope`` or ``name`` set to None where Java stubs them so);
``NullPointerException`` is ``StoreError`` with Java's message. Skipped:
``shouldThrowNullPointerIfTimeIsNull`` (kslab builders take no ``Time``).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.state import SessionStore, SessionStoreBuilder
from kslab.state.caching_window import CachingSessionStore


def supplier() -> ks.state.SessionBytesStoreSupplier:
    return ks.Stores.persistent_session_store("name", 10)


def make_builder() -> SessionStoreBuilder:
    return SessionStoreBuilder(supplier(), ks.serdes.String(), ks.serdes.String())


def test_should_have_metered_store_as_outer_store() -> None:
    store = make_builder().build()
    assert isinstance(store, SessionStore)


def test_should_have_change_logging_store_by_default() -> None:
    assert make_builder().build().logging_enabled


def test_should_not_have_change_logging_store_when_disabled() -> None:
    assert not make_builder().with_logging_disabled().build().logging_enabled


def test_should_have_caching_store_when_enabled() -> None:
    store = make_builder().with_caching_enabled().build()
    assert isinstance(store, CachingSessionStore)


def test_should_have_change_logging_store_when_logging_enabled() -> None:
    store = make_builder().with_logging_enabled({}).build()
    assert isinstance(store, SessionStore)
    assert store.logging_enabled


def test_should_have_caching_and_change_logging_when_both_enabled() -> None:
    store = make_builder().with_logging_enabled({}).with_caching_enabled().build()
    assert isinstance(store, CachingSessionStore)
    assert isinstance(store.wrapped, SessionStore)
    assert store.wrapped.logging_enabled


def raised_message(supplier: object) -> str:
    with pytest.raises(ks.StoreError) as raised:
        SessionStoreBuilder(supplier, ks.serdes.String(), ks.serdes.String())
    return str(raised.value)


def test_should_throw_null_pointer_if_store_supplier_is_null() -> None:
    assert raised_message(None) == "storeSupplier cannot be null"


def test_should_throw_null_pointer_if_name_is_null() -> None:
    unnamed = supplier()
    unnamed.name = None
    assert raised_message(unnamed) == "name cannot be null"


def test_should_throw_null_pointer_if_metrics_scope_is_null() -> None:
    unscoped = supplier()
    unscoped.metrics_scope = None
    assert raised_message(unscoped) == "storeSupplier's metricsScope can't be null"
