"""A key-value store holding its writes as objects answers and logs as the plain store does:
every put reaches the changelog batch, in order (Java logs every put of a store without a
cache)."""

from __future__ import annotations

import random
import threading
from types import SimpleNamespace
from typing import Any

import pytest
from state_fixtures import FakeContext, StrSerde

from kslab import serdes
from kslab.errors import KslabError, StoreError
from kslab.state import Stores
from kslab.state.keyvalue import KeyValueStore
from kslab.state.write_behind import WriteBehindKeyValueStore, hold_writes


class BatchContext(FakeContext):
    """A StoreContext whose changelog keeps every write in order, as the runtime's batch."""

    def __init__(self, timestamp: int = 0) -> None:
        super().__init__(timestamp=timestamp)
        self.batch: list[tuple[bytes, bytes | None, Any, int]] = []
        self.record = SimpleNamespace(timestamp=timestamp)

    def at(self, timestamp: int) -> None:
        self.timestamp = timestamp
        self.record = SimpleNamespace(timestamp=timestamp)

    def log_change(self, store_name: str, key: bytes, value: bytes | None,
                   timestamp: int | None = None, headers: Any = None) -> None:
        self.batch.append((key, value, headers,
                           self.timestamp if timestamp is None else timestamp))


def open_store(supplier: Any = None, key_serde: Any = None, value_serde: Any = None,
               context: BatchContext | None = None) -> tuple[Any, BatchContext]:
    context = context or BatchContext()
    store = Stores.key_value_store_builder(
        supplier or Stores.in_memory_key_value_store("counts"),
        serdes.String() if key_serde is None else key_serde,
        serdes.Long() if value_serde is None else value_serde).build()
    store.init(context)
    return store, context


def held_pair() -> tuple[Any, BatchContext, Any, BatchContext]:
    """A write-behind store and a plain one, each with its own batch."""
    held, held_context = open_store()
    assert hold_writes(held, held_context, held_context.batch)
    plain, plain_context = open_store()
    return held, held_context, plain, plain_context


def test_puts_are_held_until_written_behind_then_logged_every_one_with_their_timestamps():
    store, context = open_store()
    assert hold_writes(store, context, context.batch)
    assert type(store) is WriteBehindKeyValueStore
    context.at(10)
    store.put("a", 1)
    context.at(20)
    store.put("b", 2)
    context.at(30)
    store.put("a", 3)
    assert store.get("a") == 3
    assert store.get("b") == 2
    assert (store.held_writes(), store.held_put_count()) == (2, 3)  # keys, puts
    assert context.batch == []  # nothing written yet
    assert store.backend.get(b"a") is None
    store.write_behind()
    assert store.held_writes() == 0
    assert context.batch == [
        (b"a", (1).to_bytes(8, "big"), None, 10),
        (b"b", (2).to_bytes(8, "big"), None, 20),
        (b"a", (3).to_bytes(8, "big"), None, 30),
    ]
    assert store.backend.get(b"a") == (3).to_bytes(8, "big")
    assert store.get("a") == 3  # now from the backend


def test_a_random_mix_of_operations_answers_and_logs_as_the_plain_store():
    held, held_context, plain, plain_context = held_pair()
    rng = random.Random(7)
    keys = [f"k{i}" for i in range(12)] + ["é", "ß"]
    for step in range(3000):
        for context in (held_context, plain_context):
            context.at(step)
        op = rng.randrange(10)
        key = rng.choice(keys)
        if op < 4:
            value = rng.randrange(-5, 1000)
            held.put(key, value)
            plain.put(key, value)
        elif op < 6:
            assert held.get(key) == plain.get(key)
        elif op == 6:
            assert held.delete(key) == plain.delete(key)
        elif op == 7:
            low, high = sorted(rng.sample(keys, 2))
            assert list(held.range(low, high)) == list(plain.range(low, high))
            assert list(held.reverse_all()) == list(plain.reverse_all())
        elif op == 8:
            assert held.put_if_absent(key, step) == plain.put_if_absent(key, step)
            assert list(held.prefix_scan("k1")) == list(plain.prefix_scan("k1"))
        else:
            assert held.approximate_num_entries() == plain.approximate_num_entries()
            if rng.random() < 0.3:  # a commit
                held.write_behind()
                assert held_context.batch == plain_context.batch
                held_context.batch.clear()
                plain_context.batch.clear()
    held.write_behind()
    assert held_context.batch == plain_context.batch
    assert list(held.all()) == list(plain.all())


def test_values_of_other_classes_or_out_of_range_take_the_plain_path_with_its_answers_and_errors():
    held, held_context, plain, plain_context = held_pair()
    for store in (held, plain):
        store.put("a", 1)
        store.put("t", True)  # a bool: Long writes 1, and reads back 1
    assert held.get("t") == plain.get("t") == 1
    assert type(held.get("t")) is int
    with pytest.raises(KslabError) as held_error:
        held.put("big", 2**63)
    with pytest.raises(KslabError) as plain_error:
        plain.put("big", 2**63)
    assert str(held_error.value) == str(plain_error.value)
    with pytest.raises(KslabError) as held_error:
        held.put("\ud800", 1)  # a lone surrogate has no UTF-8 bytes
    with pytest.raises(KslabError) as plain_error:
        plain.put("\ud800", 1)
    assert str(held_error.value) == str(plain_error.value)
    held.put("gone", 4)
    held.put("gone", None)  # a delete: the plain path, after writing behind
    plain.put("gone", 4)
    plain.put("gone", None)
    assert held.get("gone") is None
    held.write_behind()
    assert held_context.batch == plain_context.batch
    assert held_context.batch[-2:] == [(b"gone", (4).to_bytes(8, "big"), None, 0),
                                       (b"gone", None, None, 0)]


def test_a_key_of_another_class_equal_to_a_held_one_reads_the_held_value():
    store, context = open_store(key_serde=serdes.Long())
    assert hold_writes(store, context, context.batch)
    store.put(1, 10)
    assert store.held_writes() == 1
    assert store.get(True) == 10  # True serializes as 1: written behind first, then read
    assert store.held_writes() == 0
    plain, _ = open_store(key_serde=serdes.Long())
    with pytest.raises(KslabError) as held_error:
        store.put(2**63, 1)  # out of Long's range: the plain put and its error
    with pytest.raises(KslabError) as plain_error:
        plain.put(2**63, 1)
    assert str(held_error.value) == str(plain_error.value)
    store.put(-(2**63), 2)
    assert store.held_writes() == 1
    assert store.get(-(2**63)) == 2


@pytest.mark.parametrize("make", [
    lambda: open_store(Stores.lru_map("counts", 10)),
    lambda: open_store(key_serde=serdes.String("UTF-16")),
    lambda: open_store(key_serde=serdes.Double()),  # -0.0 == 0.0, but not their bytes
    lambda: open_store(value_serde=serdes.Json()),
    lambda: open_store(value_serde=StrSerde()),
], ids=["lru", "utf16-key", "double-key", "json-value", "custom-serde"])
def test_stores_whose_objects_are_not_one_to_one_with_their_bytes_are_left_plain(make):
    store, context = make()
    assert not hold_writes(store, context, context.batch)
    assert type(store) is not WriteBehindKeyValueStore


def test_a_logged_store_without_a_batch_and_a_timestamped_store_are_left_plain():
    store, context = open_store()
    assert not hold_writes(store, context, None)  # every write must reach the changelog now
    timestamped = Stores.timestamped_key_value_store_builder(
        Stores.in_memory_key_value_store("ts"), serdes.String(), serdes.Long()).build()
    timestamped.init(context)
    assert not hold_writes(timestamped, context, context.batch)
    unlogged = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("quiet"), serdes.String(),
        serdes.Long()).with_logging_disabled().build()
    unlogged.init(context)
    assert hold_writes(unlogged, context, None)
    unlogged.put("a", 1)
    unlogged.write_behind()
    assert unlogged.get("a") == 1
    assert context.batch == []


@pytest.mark.parametrize(("serde", "bound"), [(serdes.Integer(), 2**31), (serdes.Short(), 2**15)])
def test_int_values_are_held_within_their_serdes_range_only(serde, bound):
    store, context = open_store(value_serde=serde)
    assert hold_writes(store, context, context.batch)
    plain, _ = open_store(value_serde=serde)
    store.put("low", -bound)
    store.put("high", bound - 1)
    assert store.held_writes() == 2
    with pytest.raises(KslabError) as held_error:
        store.put("over", bound)
    with pytest.raises(KslabError) as plain_error:
        plain.put("over", bound)
    assert str(held_error.value) == str(plain_error.value)
    assert store.held_writes() == 0  # written behind before the plain put
    assert (store.get("low"), store.get("high")) == (-bound, bound - 1)


def test_double_values_and_bytes_keys_are_held():
    store, context = open_store(key_serde=serdes.Bytes(), value_serde=serdes.Double())
    assert hold_writes(store, context, context.batch)
    store.put(b"k", -0.0)
    store.put(b"j", 3)  # an int under Double: the plain path, read back as 3.0
    assert store.held_writes() == 0
    store.put(b"k", -0.0)
    assert store.held_writes() == 1
    assert str(store.get(b"k")) == "-0.0"
    assert store.get(b"j") == 3.0
    assert type(store.get(b"j")) is float
    store.write_behind()
    assert context.batch[-1] == (b"k", serdes.Double().serialize("t", -0.0), None, 0)


def test_another_thread_scans_the_held_objects_without_writing_them_behind():
    store, context = open_store()
    assert hold_writes(store, context, context.batch)
    store.put("b", 2)
    store.write_behind()
    store.put("a", 1)
    store.put("b", 20)
    store.put("c", 3)
    seen: dict[str, Any] = {}

    def query() -> None:
        seen["all"] = [(kv.key, kv.value) for kv in store.all()]
        seen["reverse"] = [(kv.key, kv.value) for kv in store.reverse_range("a", "b")]
        seen["prefix"] = [(kv.key, kv.value) for kv in store.prefix_scan("c")]
        seen["count"] = store.approximate_num_entries()
        seen["get"] = store.get("b")

    thread = threading.Thread(target=query)
    thread.start()
    thread.join()
    assert seen == {"all": [("a", 1), ("b", 20), ("c", 3)], "reverse": [("b", 20), ("a", 1)],
                    "prefix": [("c", 3)], "count": 3, "get": 20}
    assert store.held_writes() == 3  # still held: only the owning thread writes
    assert context.batch == [(b"b", (2).to_bytes(8, "big"), None, 0)]


def test_close_drops_what_is_held_and_leaves_a_closed_plain_store():
    store, context = open_store()
    assert hold_writes(store, context, context.batch)
    store.put("a", 1)
    store.close()
    assert type(store) is KeyValueStore
    assert context.batch == []
    with pytest.raises(StoreError, match="closed"):
        store.put("a", 2)


def test_drop_held_forgets_the_held_writes():
    store, context = open_store()
    assert hold_writes(store, context, context.batch)
    store.put("a", 1)
    store.drop_held()
    assert store.get("a") is None
    store.write_behind()
    assert context.batch == []
