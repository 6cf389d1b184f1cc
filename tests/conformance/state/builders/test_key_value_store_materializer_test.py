"""Kafka's ``KeyValueStoreMaterializerTest``: the store a DSL table builds from ``Materialized``.

Java builds the ``KeyValueStoreMaterializer`` of a ``MaterializedInternal`` and unwraps the
store layer by layer; here the table is materialized by ``builder.table`` and the driver's store
is unwrapped the way kslab layers it (see the ``KeyValueStoreBuilderTest`` port): the record
cache is the outer ``CachingKeyValueStore`` (``wrapped`` is the typed store), and the typed
store (Java's metered store) says whether the change-logging layer is there
(``logging_enabled``). Java's mocked supplier named "name" is a real supplier of that name
(in-memory for key-value stores, RocksDB for versioned ones).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.state import TimestampedKeyValueStore, VersionedKeyValueStore
from kslab.state.caching import CachingKeyValueStore

S = serdes.String()
STORE_NAME = "name"


def built_store(materialized):
    """The table store ``materialized`` makes, as the driver holds it."""
    builder = ks.StreamsBuilder()
    builder.table("topic", ks.Consumed.with_(S, S), materialized)
    with ks.TopologyTestDriver(builder.build()) as driver:
        (name, store), = driver.get_all_state_stores().items()
        return name, store


def layers(store):
    """(caching?, the typed store under any cache)."""
    if isinstance(store, CachingKeyValueStore):
        return True, store.wrapped
    return False, store


def key_value_supplier():
    return ks.Stores.in_memory_key_value_store(STORE_NAME)


def versioned_supplier():
    return ks.Stores.persistent_versioned_key_value_store(STORE_NAME, 60_000)


@pytest.mark.parametrize(("materialized", "caching", "logging"), [
    (ks.Materialized.as_("store"), True, True),
    (ks.Materialized.as_("store").with_caching_disabled(), False, True),
    (ks.Materialized.as_("store").with_logging_disabled(), True, False),
    (ks.Materialized.as_("store").with_caching_disabled().with_logging_disabled(), False, False),
], ids=["shouldCreateTimestampedBuilderWithCachingAndLoggingEnabledByDefault",
        "shouldCreateDefaultTimestampedBuilderWithCachingDisabled",
        "shouldCreateDefaultTimestampedBuilderWithLoggingDisabled",
        "shouldCreateDefaultTimestampedBuilderWithCachingAndLoggingDisabled"])
def test_default_timestamped_builder(materialized, caching, logging):
    name, store = built_store(materialized)
    cached, typed = layers(store)
    assert name == "store"
    assert (cached, typed.logging_enabled) == (caching, logging)
    assert isinstance(typed, TimestampedKeyValueStore)
    assert typed.persistent  # the default DSL store is RocksDB


@pytest.mark.parametrize(("configure", "caching", "logging"), [
    (lambda m: m, True, True),
    (lambda m: m.with_caching_disabled(), False, True),
    (lambda m: m.with_logging_disabled(), True, False),
    (lambda m: m.with_caching_disabled().with_logging_disabled(), False, False),
], ids=["shouldCreateTimestampedStoreWithProvidedSupplierAndCachingAndLoggingEnabledByDefault",
        "shouldCreateTimestampedStoreWithProvidedSupplierAndCachingDisabled",
        "shouldCreateTimestampedStoreWithProvidedSupplierAndLoggingDisabled",
        "shouldCreateTimestampedStoreWithProvidedSupplierAndCachingAndLoggingDisabled"])
def test_timestamped_store_with_provided_supplier(configure, caching, logging):
    name, store = built_store(configure(ks.Materialized.as_(key_value_supplier())))
    cached, typed = layers(store)
    assert name == STORE_NAME  # the supplier's store
    assert (cached, typed.logging_enabled) == (caching, logging)
    assert isinstance(typed, TimestampedKeyValueStore)
    assert not typed.persistent  # the supplier's in-memory store


@pytest.mark.parametrize(("configure", "logging"), [
    (lambda m: m, True),
    (lambda m: m.with_logging_disabled(), False),
    (lambda m: m.with_caching_enabled(), True),
], ids=["shouldCreateVersionedStoreWithProvidedSupplierAndLoggingEnabledByDefault",
        "shouldCreateVersionedStoreWithProvidedSupplierAndLoggingDisabled",
        "shouldNotBuildVersionedStoreWithCachingEvenIfExplicitlySet"])
def test_versioned_store_with_provided_supplier(configure, logging):
    name, store = built_store(configure(ks.Materialized.as_(versioned_supplier())))
    cached, typed = layers(store)
    assert name == STORE_NAME
    assert not cached  # a versioned store never has a record cache
    assert typed.logging_enabled == logging
    assert isinstance(typed, VersionedKeyValueStore)
