"""Kafka's ``TimestampedWindowStoreBuilderTest``: what ``TimestampedWindowStoreBuilder(...)
.build()`` wraps, for a plain and a time-ordered supplier (Java's two ``storeName`` values).

Mapping: Java's wrapper layers are kslab flags and classes: the metered outer store is the
``TimestampedWindowStore`` itself, ``ChangeLoggingTimestampedWindowBytesStore`` is
``logging_enabled``, both ``CachingWindowStore`` and ``TimeOrderedCachingWindowStore`` are
``kslab.state.caching_window.CachingWindowStore`` (whose ``wrapped`` property is the logged
store). The time-ordered supplier is a ``persistent_timestamped_window_store`` supplier with
``time_ordered = True`` (what emit-final aggregations use). ``shouldNotWrapTimestampedByteStore``
/ ``shouldWrapPlainKeyValueStoreAsTimestampStore``: kslab has no byte-store adapter layer; a
timestamped builder over a timestamped or a plain supplier both build a
``TimestampedWindowStore`` holding ``ValueAndTimestamp``. Skipped:
``shouldThrowNullPointerIfTimeIsNull`` (kslab builders take no ``Time``).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.state import TimestampedWindowStore, TimestampedWindowStoreBuilder
from kslab.state.caching_window import CachingWindowStore

STORE_NAMES = ["Timestamped Store", "TimeOrdered Store"]


def supplier(store_name: str, *, plain: bool = False, duplicates: bool = False) -> Any:
    factory = ks.Stores.persistent_window_store if plain else \
        ks.Stores.persistent_timestamped_window_store
    made = factory("name", 10, 5 if not duplicates else 10, duplicates)
    made.time_ordered = store_name == "TimeOrdered Store"
    return made


def make_builder(store_name: str, **kwargs: Any) -> TimestampedWindowStoreBuilder:
    return TimestampedWindowStoreBuilder(supplier(store_name, **kwargs), ks.serdes.String(),
                                         ks.serdes.String())


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_have_metered_store_as_outer_store(store_name: str) -> None:
    assert isinstance(make_builder(store_name).build(), TimestampedWindowStore)


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_have_change_logging_store_by_default(store_name: str) -> None:
    assert make_builder(store_name).build().logging_enabled


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_not_have_change_logging_store_when_disabled(store_name: str) -> None:
    assert not make_builder(store_name).with_logging_disabled().build().logging_enabled


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_have_caching_store_when_enabled(store_name: str) -> None:
    store = make_builder(store_name).with_caching_enabled().build()
    assert isinstance(store, CachingWindowStore)
    assert isinstance(store.wrapped, TimestampedWindowStore)


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_have_change_logging_store_when_logging_enabled(store_name: str) -> None:
    store = make_builder(store_name).with_logging_enabled({}).build()
    assert isinstance(store, TimestampedWindowStore)
    assert store.logging_enabled


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_have_caching_and_change_logging_when_both_enabled(store_name: str) -> None:
    store = make_builder(store_name).with_logging_enabled({}).with_caching_enabled().build()
    assert isinstance(store, CachingWindowStore)
    assert isinstance(store.wrapped, TimestampedWindowStore)
    assert store.wrapped.logging_enabled


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_not_wrap_timestamped_byte_store(store_name: str) -> None:
    store = make_builder(store_name).with_logging_disabled().with_caching_disabled().build()
    assert isinstance(store, TimestampedWindowStore)


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_wrap_plain_key_value_store_as_timestamp_store(store_name: str) -> None:
    store = make_builder(store_name, plain=True).with_logging_disabled() \
        .with_caching_disabled().build()
    assert isinstance(store, TimestampedWindowStore)


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_disable_caching_with_retain_duplicates(store_name: str) -> None:
    builder = make_builder(store_name, duplicates=True).with_caching_enabled()
    builder.build()
    assert builder.caching_enabled is False


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_throw_null_pointer_if_inner_is_null(store_name: str) -> None:
    with pytest.raises(ks.StoreError) as raised:
        TimestampedWindowStoreBuilder(None, ks.serdes.String(), ks.serdes.String())
    assert str(raised.value) == "storeSupplier can't be null"


@pytest.mark.parametrize("store_name", STORE_NAMES)
def test_should_throw_null_pointer_if_metrics_scope_is_null(store_name: str) -> None:
    unscoped = supplier(store_name)
    unscoped.metrics_scope = None
    with pytest.raises(ks.StoreError) as raised:
        TimestampedWindowStoreBuilder(unscoped, ks.serdes.String(), ks.serdes.String())
    assert str(raised.value) == "storeSupplier's metricsScope can't be null"
