"""Kafka's ``KeyValueStoreBuilderTest``: what ``build()`` wraps around the supplier's store.

Mapping: the mocked supplier is a ``KeyValueBytesStoreSupplier`` subclass named "name" with
metrics scope "metricScope" whose ``get()`` returns one in-memory backend (``inner``). kslab folds
Java's ``MeteredKeyValueStore`` and ``ChangeLoggingKeyValueBytesStore`` into one typed
``KeyValueStore`` whose ``logging_enabled`` says whether the change-logging layer is there, and
puts ``CachingKeyValueStore`` outermost (its ``wrapped`` is the typed store). "The wrapped store is
``inner``" is checked by behaviour: a ``put`` lands in ``inner`` and logs nothing. Java's
``NullPointerException`` is ``MissingArgumentError``. Skipped: ``shouldThrowNullPointerIfTimeIs
Null`` (kslab builders take no ``Time``).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state import KeyValueBytesStoreSupplier, KeyValueStore, KeyValueStoreBuilder
from kslab.state.backends import InMemoryKeyValueBackend
from kslab.state.caching import CachingKeyValueStore
from tests.conformance.state._kv_store_support import RecordingContext

S = ks.serdes.String()


class MockSupplier(KeyValueBytesStoreSupplier):
    """``when(supplier.name()).thenReturn("name"); when(supplier.get()).thenReturn(inner)``."""

    metrics_scope: Any = "metricScope"

    def __init__(self, inner: Any = None) -> None:
        super().__init__("name")
        self.inner = inner

    def get(self) -> Any:
        return self.inner


@pytest.fixture
def inner() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend("name")


@pytest.fixture
def builder(inner: InMemoryKeyValueBackend) -> KeyValueStoreBuilder:
    return KeyValueStoreBuilder(MockSupplier(inner), S, S)


def assert_wraps_inner(store: Any, inner: InMemoryKeyValueBackend, tmp_path: Any) -> None:
    """``store.wrapped() == inner`` with no change-logging layer in between."""
    context = RecordingContext(tmp_path, S, S)
    store.init(context)
    store.put("k", "v")
    assert inner.get(b"k") == b"v"
    assert context.changelog == []
    store.close()


def test_should_have_metered_store_as_outer_store(builder: KeyValueStoreBuilder) -> None:
    assert isinstance(builder.build(), KeyValueStore)


def test_should_have_change_logging_store_by_default(builder: KeyValueStoreBuilder) -> None:
    store = builder.build()
    assert isinstance(store, KeyValueStore)
    assert store.logging_enabled


def test_should_not_have_change_logging_store_when_disabled(
        builder: KeyValueStoreBuilder, inner: Any, tmp_path: Any) -> None:
    store = builder.with_logging_disabled().build()
    assert not store.logging_enabled
    assert_wraps_inner(store, inner, tmp_path)


def test_should_have_caching_store_when_enabled(builder: KeyValueStoreBuilder) -> None:
    store = builder.with_caching_enabled().build()
    assert isinstance(store, CachingKeyValueStore)
    assert isinstance(store.wrapped, KeyValueStore)


def test_should_have_change_logging_store_when_logging_enabled(
        builder: KeyValueStoreBuilder, inner: Any, tmp_path: Any) -> None:
    store = builder.with_logging_enabled({}).build()
    assert isinstance(store, KeyValueStore)
    assert store.logging_enabled
    context = RecordingContext(tmp_path, S, S)
    store.init(context)
    store.put("k", "v")
    assert inner.get(b"k") == b"v"
    assert context.changelog == [("name", b"k", b"v", 10)]
    store.close()


def test_should_have_caching_and_change_logging_when_both_enabled(
        builder: KeyValueStoreBuilder) -> None:
    store = builder.with_logging_enabled({}).with_caching_enabled().build()
    assert isinstance(store, CachingKeyValueStore)
    assert isinstance(store.wrapped, KeyValueStore)
    assert store.wrapped.logging_enabled


def test_should_throw_null_pointer_if_inner_is_null() -> None:
    with pytest.raises(MissingArgumentError):
        KeyValueStoreBuilder(None, S, S)


def test_should_throw_null_pointer_if_metrics_scope_is_null() -> None:
    supplier = MockSupplier()
    supplier.metrics_scope = None
    with pytest.raises(MissingArgumentError) as info:
        KeyValueStoreBuilder(supplier, S, S)
    assert str(info.value) == "storeSupplier's metricsScope can't be null"
