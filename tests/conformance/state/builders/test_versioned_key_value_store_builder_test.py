"""Kafka's ``VersionedKeyValueStoreBuilderTest`` (streams, state/internals), translated to
kslab's ``VersionedKeyValueStoreBuilder``.

Java checks the store layers its builder wraps (metered outside, change-logging unless
disabled) through Mockito mocks; kslab has one store class whose changelog is switched by the
builder, so those tests check ``logging_enabled`` on the builder and on the built store.
``IllegalStateException`` for caching is a ``ks.StoreError``; ``NullPointerException`` for a
``None`` supplier is ``kslab.errors.MissingArgumentError``.

Skipped, as outside kslab's API: ``shouldThrowNullPointerIfTimeIsNull`` (kslab's builder takes
no ``Time``), ``shouldThrowNullPointerIfNameIsNull`` and
``shouldThrowNullPointerIfMetricsScopeIsNull`` (they mock a supplier returning a null name or
metrics scope; kslab's suppliers refuse a null name when made, as ``Stores`` does).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state.versioned import VersionedKeyValueStore, VersionedKeyValueStoreBuilder

STORE_NAME = "versioned-store"
S = ks.serdes.String()


@pytest.fixture
def supplier():
    return ks.Stores.persistent_versioned_key_value_store(STORE_NAME, 60_000)


@pytest.fixture
def builder(supplier):
    return VersionedKeyValueStoreBuilder(supplier, S, S)


def test_should_have_metered_store_as_outer_store(builder):
    assert isinstance(builder.build(), VersionedKeyValueStore)


def test_should_have_change_logging_store_by_default(builder):
    store = builder.build()
    assert isinstance(store, VersionedKeyValueStore)
    assert builder.logging_enabled is True
    assert store.logging_enabled is True


def test_should_not_have_change_logging_store_when_disabled(builder):
    store = builder.with_logging_disabled().build()
    assert builder.logging_enabled is False
    assert store.logging_enabled is False


def test_should_have_change_logging_store_when_logging_enabled(builder):
    store = builder.with_logging_enabled({}).build()
    assert builder.logging_enabled is True
    assert store.logging_enabled is True


def test_should_throw_when_caching_enabled(builder):
    with pytest.raises(ks.StoreError, match=r"^Versioned stores do not support caching$"):
        builder.with_caching_enabled()


def test_should_throw_null_pointer_if_inner_is_null():
    with pytest.raises(MissingArgumentError):
        VersionedKeyValueStoreBuilder(None, S, S)


def test_should_not_throw_null_pointer_if_key_serde_is_null(supplier):
    VersionedKeyValueStoreBuilder(supplier, None, S)  # does not throw


def test_should_not_throw_null_pointer_if_value_serde_is_null(supplier):
    VersionedKeyValueStoreBuilder(supplier, S, None)  # does not throw
