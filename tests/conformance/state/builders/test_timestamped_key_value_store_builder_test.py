"""Kafka's ``TimestampedKeyValueStoreBuilderTest``: what ``build()`` wraps around the supplier's
store, and when a plain store is adapted to hold timestamped values.

Mapping: as ``test_key_value_store_builder_test`` (a ``KeyValueBytesStoreSupplier`` subclass stands
for the mock, the typed ``TimestampedKeyValueStore`` is Java's metered + change-logging layers,
``CachingKeyValueStore`` is outermost). Whether the builder wrapped a plain RocksDB store in
``KeyValueToTimestampedKeyValueByteStoreAdapter`` is checked by behaviour: such a store reads
timestamps back as -1, a ``RocksDBTimestampedStore`` keeps them. Skipped:
``shouldThrowNullPointerIfTimeIsNull`` (kslab builders take no ``Time``).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state import (
    KeyValueBytesStoreSupplier,
    TimestampedKeyValueStore,
    TimestampedKeyValueStoreBuilder,
)
from kslab.state.backends import (
    InMemoryKeyValueBackend,
    RocksDBKeyValueBackend,
    RocksDBTimestampedKeyValueBackend,
)
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
def builder(inner: Any) -> TimestampedKeyValueStoreBuilder:
    return TimestampedKeyValueStoreBuilder(MockSupplier(inner), S, S)


def _kept_timestamp(store: Any, tmp_path: Any) -> int:
    context = RecordingContext(tmp_path / "0_0", S, S)
    store.init(context)
    try:
        store.put("k", ks.ValueAndTimestamp("v", 42))
        assert context.changelog == []
        return store.get("k").timestamp
    finally:
        store.close()


def test_should_have_metered_store_as_outer_store(builder: Any) -> None:
    assert isinstance(builder.build(), TimestampedKeyValueStore)


def test_should_have_change_logging_store_by_default(builder: Any) -> None:
    store = builder.build()
    assert isinstance(store, TimestampedKeyValueStore)
    assert store.logging_enabled


def test_should_not_have_change_logging_store_when_disabled(
        builder: Any, inner: Any, tmp_path: Any) -> None:
    store = builder.with_logging_disabled().build()
    assert not store.logging_enabled
    assert _kept_timestamp(store, tmp_path) == 42


def test_should_have_caching_store_when_enabled(builder: Any) -> None:
    store = builder.with_caching_enabled().build()
    assert isinstance(store, CachingKeyValueStore)
    assert isinstance(store.wrapped, TimestampedKeyValueStore)


def test_should_have_change_logging_store_when_logging_enabled(
        builder: Any, inner: Any, tmp_path: Any) -> None:
    store = builder.with_logging_enabled({}).build()
    assert isinstance(store, TimestampedKeyValueStore)
    assert store.logging_enabled
    context = RecordingContext(tmp_path, S, S)
    store.init(context)
    store.put("k", ks.ValueAndTimestamp("v", 42))
    assert inner.get(b"k") is not None
    assert [(key, ts) for _, key, _, ts in context.changelog] == [(b"k", 42)]
    store.close()


def test_should_have_caching_and_change_logging_when_both_enabled(builder: Any) -> None:
    store = builder.with_logging_enabled({}).with_caching_enabled().build()
    assert isinstance(store, CachingKeyValueStore)
    assert isinstance(store.wrapped, TimestampedKeyValueStore)
    assert store.wrapped.logging_enabled


def test_should_not_wrap_timestamped_byte_store(tmp_path: Any) -> None:
    supplier = MockSupplier(RocksDBTimestampedKeyValueBackend("name"))
    store = TimestampedKeyValueStoreBuilder(supplier, S, S) \
        .with_logging_disabled().with_caching_disabled().build()
    assert _kept_timestamp(store, tmp_path) == 42


def test_should_wrap_plain_key_value_store_as_timestamp_store(tmp_path: Any) -> None:
    supplier = MockSupplier(RocksDBKeyValueBackend("name"))
    store = TimestampedKeyValueStoreBuilder(supplier, S, S) \
        .with_logging_disabled().with_caching_disabled().build()
    assert _kept_timestamp(store, tmp_path) == -1


def test_should_throw_null_pointer_if_inner_is_null() -> None:
    with pytest.raises(MissingArgumentError):
        TimestampedKeyValueStoreBuilder(None, S, S)


def test_should_not_throw_null_pointer_if_key_serde_is_null() -> None:
    TimestampedKeyValueStoreBuilder(MockSupplier(), None, S)


def test_should_not_throw_null_pointer_if_value_serde_is_null() -> None:
    TimestampedKeyValueStoreBuilder(MockSupplier(), S, None)


def test_should_throw_null_pointer_if_metrics_scope_is_null() -> None:
    supplier = MockSupplier()
    supplier.metrics_scope = None
    with pytest.raises(MissingArgumentError) as info:
        TimestampedKeyValueStoreBuilder(supplier, S, S)
    assert str(info.value) == "storeSupplier's metricsScope can't be null"
