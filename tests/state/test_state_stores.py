"""Stores, suppliers and builders: Java's defaults, chaining, validation and independent builds."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from state_fixtures import FakeContext, LongSerde, StrSerde

import kslab.state as state
from kslab.errors import KslabError, MissingArgumentError, StoreError
from kslab.state import (
    KeyValueBytesStoreSupplier,
    KeyValueStore,
    KeyValueStoreBuilder,
    StateStore,
    StoreBuilder,
    Stores,
    TimestampedKeyValueStore,
    TimestampedKeyValueStoreBuilder,
)


def test_exports() -> None:
    assert state.__all__ == [
        "KeyValueBytesStoreSupplier",
        "KeyValueIterator",
        "KeyValueStore",
        "KeyValueStoreBuilder",
        "KeyValueStoreFacade",
        "SessionBytesStoreSupplier",
        "SessionStore",
        "SessionStoreBuilder",
        "StateSerdes",
        "StateStore",
        "StoreBuilder",
        "StoreContext",
        "StoreSupplier",
        "Stores",
        "TimestampedKeyValueStore",
        "TimestampedKeyValueStoreBuilder",
        "TimestampedWindowStore",
        "TimestampedWindowStoreBuilder",
        "ValueAndTimestampSerde",
        "VersionedKeyValueStore",
        "VersionedKeyValueStoreBuilder",
        "WindowBytesStoreSupplier",
        "WindowStore",
        "WindowStoreBuilder",
    ]


@pytest.mark.parametrize(
    ("supplier", "persistent", "scope"),
    [
        (Stores.in_memory_key_value_store("s"), False, "in-memory"),
        (Stores.persistent_key_value_store("s"), True, "rocksdb"),
        (Stores.persistent_timestamped_key_value_store("s"), True, "rocksdb"),
        (Stores.lru_map("s", 10), False, "in-memory-lru"),
    ],
)
def test_suppliers(supplier: KeyValueBytesStoreSupplier, persistent: bool, scope: str) -> None:
    assert isinstance(supplier, KeyValueBytesStoreSupplier)
    assert (supplier.name, supplier.persistent, supplier.metrics_scope) == ("s", persistent, scope)
    first, second = supplier.get(), supplier.get()
    assert first is not second
    assert first.persistent is persistent


def test_supplier_reprs() -> None:
    assert repr(Stores.in_memory_key_value_store("a")) == "InMemoryKeyValueBytesStoreSupplier('a')"
    assert (
        repr(Stores.persistent_timestamped_key_value_store("a"))
        == "RocksDBKeyValueBytesStoreSupplier('a', timestamped=True)"
    )
    assert repr(Stores.lru_map("a", 3)) == "LRUKeyValueBytesStoreSupplier('a', max_cache_size=3)"


def test_builder_defaults_follow_java() -> None:
    builder = Stores.key_value_store_builder(Stores.in_memory_key_value_store("counts"))
    assert isinstance(builder, StoreBuilder)
    assert isinstance(builder, KeyValueStoreBuilder)
    assert builder.name == "counts"
    assert builder.logging_enabled is True
    assert builder.caching_enabled is False
    assert builder.log_config == {}
    assert builder.key_serde is None
    assert builder.value_serde is None
    assert builder.persistent is False


def test_builder_flags_chain() -> None:
    builder = Stores.key_value_store_builder(
        Stores.persistent_key_value_store("counts"), StrSerde(), "long"
    )
    assert builder.with_caching_enabled() is builder
    assert builder.caching_enabled is True
    assert builder.with_logging_enabled({"min.insync.replicas": "1"}) is builder
    assert builder.with_logging_enabled({"retention.ms": 100}) is builder
    assert builder.log_config == {"min.insync.replicas": "1", "retention.ms": "100"}
    assert builder.with_logging_disabled() is builder
    assert (builder.logging_enabled, builder.log_config) == (False, {})
    assert builder.with_logging_enabled() is builder
    assert builder.with_caching_disabled().caching_enabled is False
    assert builder.logging_enabled is True
    assert builder.value_serde == "long"
    assert builder.persistent is True
    assert repr(builder) == "<KeyValueStoreBuilder 'counts' logging=True caching=False>"


def test_built_stores_carry_the_flags(context: FakeContext) -> None:
    builder = (
        Stores.key_value_store_builder(
            Stores.in_memory_key_value_store("f"), StrSerde(), StrSerde()
        )
        .with_logging_disabled()
        .with_caching_enabled()
    )
    store = builder.build()
    assert isinstance(store, StateStore)
    assert (store.name, store.logging_enabled, store.caching_enabled) == ("f", False, True)


def test_builds_are_independent(context: FakeContext) -> None:
    builder = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("s"), StrSerde(), LongSerde()
    )
    first, second = builder.build(), builder.build()
    assert first is not second
    first.init(context)
    second.init(context)
    first.put("a", 1)
    assert second.get("a") is None
    first.close()
    assert second.is_open is True


def test_timestamped_builder_builds_timestamped_stores() -> None:
    builder = Stores.timestamped_key_value_store_builder(Stores.lru_map("t", 5))
    assert isinstance(builder, TimestampedKeyValueStoreBuilder)
    store = builder.build()
    assert isinstance(store, TimestampedKeyValueStore)
    plain = Stores.key_value_store_builder(Stores.lru_map("t", 5)).build()
    assert type(plain) is KeyValueStore


def test_store_kind_and_serdes_tell_engines_how_to_serve_a_store(context: FakeContext) -> None:
    key_serde, value_serde = StrSerde(), LongSerde()
    plain = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("p"), key_serde, value_serde
    ).build()
    stamped = Stores.timestamped_key_value_store_builder(
        Stores.in_memory_key_value_store("t"), key_serde, value_serde
    ).build()
    assert (plain.store_kind, stamped.store_kind) == ("key_value", "timestamped_key_value")
    assert stamped.plain_view().store_kind == "key_value"
    assert (plain.key_serde, plain.changelog_topic) == (None, None)
    plain.init(context)
    stamped.init(context)
    assert (plain.key_serde, plain.value_serde) == (key_serde, value_serde)
    assert plain.changelog_topic == "app-p-changelog"
    view = stamped.plain_view()
    assert (view.key_serde, view.changelog_topic) == (key_serde, "app-t-changelog")
    assert view.timestamped_store is stamped


@pytest.mark.parametrize(
    "factory",
    [
        Stores.in_memory_key_value_store,
        Stores.persistent_key_value_store,
        Stores.persistent_timestamped_key_value_store,
        lambda name: Stores.lru_map(name, 1),
    ],
)
@pytest.mark.parametrize("name", ["", 3])
def test_store_names_are_validated(factory: Any, name: Any) -> None:
    with pytest.raises(StoreError, match=f"got store name {name!r}; pass a non-empty str"):
        factory(name)
    with pytest.raises(StoreError) as info:  # Java's NullPointerException text
        factory(None)
    assert isinstance(info.value, MissingArgumentError)
    assert str(info.value) == "name cannot be null"


def test_lru_size_is_validated() -> None:
    with pytest.raises(StoreError, match=r"^maxCacheSize cannot be negative$"):
        Stores.lru_map("l", -1)
    with pytest.raises(StoreError, match=r"max_cache_size='3'; pass an int"):
        Stores.lru_map("l", "3")


def test_builder_arguments_are_validated() -> None:
    with pytest.raises(StoreError, match=r"got 'counts', not a key-value store supplier"):
        Stores.key_value_store_builder("counts")
    with pytest.raises(StoreError, match=r"^Store 'c' got value_serde=42, which is not a serde"):
        Stores.key_value_store_builder(Stores.in_memory_key_value_store("c"), None, 42)
    builder = Stores.key_value_store_builder(Stores.in_memory_key_value_store("c"))
    with pytest.raises(StoreError, match="pass a dict of topic configs"):
        builder.with_logging_enabled(["retention.ms"])
    assert issubclass(StoreError, KslabError)


def test_missing_default_serde_is_explained() -> None:
    context = FakeContext()
    context.default_value_serde = None
    store = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("n"), StrSerde()
    ).build()
    with pytest.raises(
        StoreError, match=r"^Store 'n' has no value serde and the engine configures"
    ):
        store.init(context)


def _serdes_resolve_available() -> bool:
    if importlib.util.find_spec("kslab.serdes._resolve") is None:
        return False
    import kslab.serdes

    return hasattr(kslab.serdes, "resolve")


@pytest.mark.skipif(not _serdes_resolve_available(), reason="kslab.serdes.resolve not present")
def test_serde_names_resolve_through_kslab_serdes(tmp_path: Path) -> None:
    store = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("named"), "string", "long"
    ).build()
    context = FakeContext(state_dir=tmp_path)
    store.init(context)
    store.put("a", 1)
    assert context.changelog == [("named", b"a", bytes(7) + b"\x01", 0)]
    assert store.get("a") == 1
    bad = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("bad"), "strnig", "long"
    ).build()
    with pytest.raises(StoreError, match=r"^Store 'bad' cannot use 'strnig' as its key serde"):
        bad.init(context)
