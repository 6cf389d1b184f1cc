"""Kafka's ``ListValueStoreTest``, against the one list-value store kslab has: the outer
stream-stream join's shared store (``kslab.dsl._stream_joins.OuterJoinStore``, built by
``_OuterStoreBuilder``, Java's ``ListValueStoreBuilder``), over an in-memory and a RocksDB
key-value supplier as Java's two ``StoreType``s.

Mapping: Java's generic ``KeyValueStore<Integer, String>`` keeps every value put under a key
and deletes them all on ``put(key, null)``; kslab's store keys its lists by ``(time, side,
key)`` and orders them by time first, as Java's ``TimestampedKeyAndJoinSide`` does. So Java's
integer key is the time here (one side, one join key): ``put(k, v)`` is ``add(k, True, "k",
v)``, ``put(k, null)`` is ``remove(k, True, "k")``, and ``all()`` flattened to ``(k, v)`` pairs
is ``items()`` decoded with ``entries()``. ``items()`` reads the entries into a list at once,
which is what Java's iterator guarantees for the key it is on (a delete while iterating still
returns that key's remaining values).

Skipped: ``shouldNotReturnMoreDataWhenIteratorClosed`` (kslab's store hands out a list, not a
closable iterator).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab.dsl._stream_joins import _OuterStoreBuilder
from tests.conformance.state._kv_store_support import RecordingContext

B = ks.serdes.Bytes()
KEY = "k"
SUPPLIERS = {
    "InMemory": lambda: ks.Stores.in_memory_key_value_store("in-memory list store"),
    "RocksDB": lambda: ks.Stores.persistent_key_value_store("rocksDB list store"),
}


@pytest.fixture(params=list(SUPPLIERS))
def list_store(request: Any, tmp_path: Path) -> Any:
    builder = _OuterStoreBuilder(SUPPLIERS[request.param](), ks.serdes.String(),
                                 ks.serdes.String(), ks.serdes.String())
    store = builder.build()
    context = RecordingContext(tmp_path, B, B)
    context.timestamp = 1
    store.init(context, store)
    yield store
    store.close()


def put(store: Any, key: int, value: str | None) -> None:
    if value is None:
        store.remove(key, True, KEY)
    else:
        store.add(key, True, KEY, value)


def to_list(store: Any) -> list[ks.KeyValue]:
    result = []
    for binary, stored in store.items():
        time = struct.unpack_from(">q", binary)[0]
        result += [ks.KeyValue(time, value) for _, _, value in store.entries(binary, stored)]
    return result


def test_should_get_all(list_store: Any) -> None:
    put(list_store, 0, "zero")
    # should retain duplicates
    put(list_store, 0, "zero again")
    put(list_store, 1, "one")
    put(list_store, 2, "two")
    assert to_list(list_store) == [ks.KeyValue(0, "zero"), ks.KeyValue(0, "zero again"),
                                   ks.KeyValue(1, "one"), ks.KeyValue(2, "two")]


def test_should_get_all_non_deleted_records(list_store: Any) -> None:
    for key, value in [(0, "zero"), (1, "one"), (1, "one again"), (2, "two"), (3, "three"),
                       (4, "four")]:
        put(list_store, key, value)
    # delete some records
    put(list_store, 1, None)
    put(list_store, 3, None)
    # only non-deleted records should appear in the all() iterator
    assert to_list(list_store) == [ks.KeyValue(0, "zero"), ks.KeyValue(2, "two"),
                                   ks.KeyValue(4, "four")]


def test_should_get_all_return_timestamp_ordered_records(list_store: Any) -> None:
    for key, value in [(4, "four"), (0, "zero"), (2, "two1"), (3, "three"), (1, "one")]:
        put(list_store, key, value)
    # add duplicates
    put(list_store, 2, "two2")
    assert to_list(list_store) == [
        ks.KeyValue(0, "zero"), ks.KeyValue(1, "one"), ks.KeyValue(2, "two1"),
        ks.KeyValue(2, "two2"), ks.KeyValue(3, "three"), ks.KeyValue(4, "four")]


def test_should_allow_delete_while_iterate_records(list_store: Any) -> None:
    put(list_store, 0, "zero1")
    put(list_store, 0, "zero2")
    put(list_store, 1, "one")
    it = iter(to_list(list_store))
    assert next(it) == ks.KeyValue(0, "zero1")
    put(list_store, 0, None)
    # zero2 should still be returned from the iterator after the delete call
    assert next(it) == ks.KeyValue(0, "zero2")
    # a new all() after the previous one should not return deleted records
    assert to_list(list_store) == [ks.KeyValue(1, "one")]
