"""Kafka's ``InMemoryLRUCacheStoreTest`` with the ``AbstractKeyValueStoreTest`` tests it inherits
(``_abstract_key_value_store_tests``): ``Stores.lru_map("my-store", 10)`` behind a
``key_value_store_builder``, its eviction order and the tombstones evictions log.

Mapping: as ``test_in_memory_key_value_store_test`` (``RecordingContext`` is the Java
``KeyValueStoreTestDriver``). Nothing is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from tests.conformance.state._abstract_key_value_store_tests import *  # noqa: F403
from tests.conformance.state._kv_store_support import RecordingContext, size_of


@pytest.fixture
def create_store() -> Any:
    def create(context: RecordingContext) -> Any:
        opened = ks.Stores.key_value_store_builder(
            ks.Stores.lru_map("my-store", 10),
            context.default_key_serde, context.default_value_serde,
        ).build()
        opened.init(context, opened)
        return opened
    return create


PAIRS = [ks.KeyValue(1, "1"), ks.KeyValue(2, "2"), ks.KeyValue(3, "3")]


def test_should_put_all_key_value_pairs(store: Any) -> None:
    store.put_all(PAIRS)
    assert store.approximate_num_entries() == 3
    for pair in PAIRS:
        assert store.get(pair.key) == pair.value


def test_should_update_values_for_existing_keys_on_put_all(store: Any) -> None:
    store.put_all(PAIRS)
    updated = [ks.KeyValue(1, "ONE"), ks.KeyValue(2, "TWO"), ks.KeyValue(3, "THREE")]
    store.put_all(updated)
    assert store.approximate_num_entries() == 3
    for pair in updated:
        assert store.get(pair.key) == pair.value


def test_evict(store: Any, context: RecordingContext) -> None:
    for key, value in enumerate(
            ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]):
        store.put(key, value)
    assert size_of(store) == 10

    store.put(10, "ten")
    store.flush()
    assert size_of(store) == 10
    assert context.flushed_entry_removed(0)
    assert context.num_flushed_entry_removed() == 1

    store.delete(1)
    store.flush()
    assert size_of(store) == 9
    assert context.flushed_entry_removed(0)
    assert context.flushed_entry_removed(1)
    assert context.num_flushed_entry_removed() == 2

    store.put(11, "eleven")
    store.flush()
    assert size_of(store) == 10
    assert context.num_flushed_entry_removed() == 2

    store.put(2, "two-again")
    store.flush()
    assert size_of(store) == 10
    assert context.num_flushed_entry_removed() == 2

    store.put(12, "twelve")
    store.flush()
    assert size_of(store) == 10
    assert context.flushed_entry_removed(0)
    assert context.flushed_entry_removed(1)
    assert context.flushed_entry_removed(3)
    assert context.num_flushed_entry_removed() == 3


def test_restore_evict(store: Any, create_store: Any, context: RecordingContext) -> None:
    store.close()
    for key, value in enumerate(["zero", "one", "two", "three", "four", "five", "fix", "seven",
                                 "eight", "nine", "ten"]):
        context.add_entry_to_restore_log(key, value)
    store = create_store(context)
    try:
        context.restore(store)
        assert context.num_flushed_entry_stored() == 0
        assert context.num_flushed_entry_removed() == 0
        assert size_of(store) == 10
    finally:
        store.close()
