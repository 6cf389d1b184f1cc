"""KeyValueStore: typed reads and writes, scans, iterators, frames and error messages."""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl
import pytest
from state_fixtures import FakeContext, JsonSerde, LongSerde, StrSerde

from kslab.errors import NoSuchElementError, StoreError
from kslab.records import KeyValue
from kslab.state import KeyValueIterator, KeyValueStore, Stores

KINDS = ["memory", "rocksdb", "rocksdb-ts", "lru"]


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def test_get_put_and_none_deletes(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    assert isinstance(store, KeyValueStore)
    assert store.get("a") is None
    store.put("a", 1)
    store.put("b", -2)
    assert store.get("a") == 1
    assert store.get("b") == -2
    store.put("a", None)
    assert store.get("a") is None
    if not store.persistent:  # RocksDB only estimates after deletes
        assert store.approximate_num_entries() == 1


def test_put_if_absent_and_delete_return_old_values(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    assert store.put_if_absent("a", 1) is None
    assert store.put_if_absent("a", 2) == 1
    assert store.get("a") == 1
    assert store.delete("a") == 1
    assert store.delete("a") is None


def test_put_all(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put("gone", 9)
    store.put_all([("a", 1), KeyValue("b", 2), ("gone", None), ("a", 3)])
    assert list(store.all()) == [KeyValue("a", 3), KeyValue("b", 2)]


def test_ranges_with_none_bounds_and_reverse(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put_all([(k, i) for i, k in enumerate(["a", "b", "c", "d", "e"])])
    assert [kv.key for kv in store.range("b", "d")] == ["b", "c", "d"]
    assert [kv.key for kv in store.range(None, "b")] == ["a", "b"]
    assert [kv.key for kv in store.range("d", None)] == ["d", "e"]
    assert [kv.key for kv in store.range()] == ["a", "b", "c", "d", "e"]
    assert list(store.reverse_range("b", "d")) == [("d", 3), ("c", 2), ("b", 1)]
    assert [kv.key for kv in store.reverse_range(None, "b")] == ["b", "a"]
    assert [kv.key for kv in store.reverse_all()] == ["e", "d", "c", "b", "a"]
    assert list(store.range("d", "b")) == []


def test_prefix_scan_with_a_prefix_serde(make_kv: Any, kind: str) -> None:
    store = make_kv(kind, JsonSerde(), LongSerde())
    # JSON lists serialize as '["user",1]' etc.; the string prefix '["user",' selects them
    for i, key in enumerate([["user", 1], ["user", 2], ["users", 1], ["order", 1]]):
        store.put(key, i)
    scanned = list(store.prefix_scan('["user",', StrSerde()))
    assert scanned == [(["user", 1], 0), (["user", 2], 1)]
    assert [kv.key for kv in store.prefix_scan(["order", 1])] == [["order", 1]]


def test_long_keys_order_by_bytes_not_by_number(make_kv: Any, kind: str) -> None:
    store = make_kv(kind, LongSerde(), LongSerde())
    for key in [10, -1, 2, 0, -300, 256]:
        store.put(key, key)
    # big-endian two's complement: non-negatives ascend, then negatives (0xff.. sorts last)
    assert [kv.key for kv in store.all()] == [0, 2, 10, 256, -300, -1]
    assert [kv.key for kv in store.range(2, 256)] == [2, 10, 256]
    assert list(store.range(-1, 2)) == []  # from > to as bytes: empty, as in Java


def test_string_keys_order_lexicographically(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    for key in ["9", "10", "100", "Z", "a", "é"]:
        store.put(key, 0)
    assert [kv.key for kv in store.all()] == ["10", "100", "9", "Z", "a", "é"]


def test_iterator_is_a_context_manager(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put_all([("a", 1), ("b", 2)])
    with store.all() as entries:
        assert isinstance(entries, KeyValueIterator)
        assert next(entries) == KeyValue("a", 1)
    with pytest.raises(StoreError, match=r"iterator over store 's' is closed because it was"):
        next(entries)
    entries.close()  # closing twice is harmless


def test_iterator_java_style_methods(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put_all([("a", 1), ("b", 2)])
    with store.range("a", "b") as entries:
        assert entries.has_next() is True
        assert entries.peek_next_key() == "a"
        assert entries.peek_next_key() == "a"
        assert entries.next() == KeyValue("a", 1)
        assert entries.next() == KeyValue("b", 2)
        assert entries.has_next() is False
        with pytest.raises(NoSuchElementError, match="has no more entries"):
            entries.next()
        with pytest.raises(NoSuchElementError):
            entries.peek_next_key()
        with pytest.raises(StopIteration):
            next(entries)


def test_writing_while_iterating_is_safe(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put_all([("a", 1), ("b", 2), ("c", 3)])
    seen = []
    for kv in store.all():
        seen.append(kv.key)
        store.put(kv.key + "x", 0)  # new keys after the scan started are not visited
        store.delete("c")
    if kind == "memory":
        # keys are fixed at the start, values read late: "c" was deleted before it was reached
        assert seen == ["a", "b"]
        assert [kv.key for kv in store.all()] == ["a", "ax", "b", "bx"]
    else:
        # RocksDB reads a snapshot, the LRU map a sorted copy: "c" is still visited
        assert seen == ["a", "b", "c"]
        assert [kv.key for kv in store.all()] == ["a", "ax", "b", "bx", "cx"]


def test_closing_the_store_closes_its_iterators(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put("a", 1)
    entries = store.all()
    store.close()
    with pytest.raises(StoreError, match="closed because store 's' was closed"):
        next(entries)


def test_to_pandas_and_to_polars(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put_all([("b", 2), ("a", 1)])
    pd.testing.assert_frame_equal(
        store.to_pandas(), pd.DataFrame({"key": ["a", "b"], "value": [1, 2]})
    )
    assert store.to_polars().equals(pl.DataFrame({"key": ["a", "b"], "value": [1, 2]}))


def test_frames_of_empty_and_object_valued_stores(make_kv: Any) -> None:
    store = make_kv("memory", StrSerde(), JsonSerde())
    assert list(store.to_pandas().columns) == ["key", "value"]
    assert store.to_pandas().shape == (0, 2)
    assert store.to_polars().columns == ["key", "value"]
    store.put("a", {"n": 1})
    store.put("b", [1, "x"])
    frame = store.to_polars()
    assert frame["value"].to_list() == [{"n": 1}, [1, "x"]]


def test_default_serdes_come_from_the_context(context: FakeContext) -> None:
    store = Stores.key_value_store_builder(Stores.in_memory_key_value_store("d")).build()
    store.init(context)
    store.put("k", "v")
    assert context.changelog == [("d", b"k", b"v", 0)]
    assert store.changelog_topic == "app-d-changelog"
    assert store.get("k") == "v"


# -- errors ------------------------------------------------------------------------------------


def test_use_before_init_says_how_to_fix(context: FakeContext) -> None:
    store = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("early"), StrSerde(), LongSerde()
    ).build()
    assert store.is_open is False
    for call in (
        lambda: store.get("a"),
        lambda: store.put("a", 1),
        lambda: store.delete("a"),
        lambda: store.all(),
        lambda: store.approximate_num_entries(),
        lambda: store.flush(),
        lambda: store.snapshot(),
    ):
        with pytest.raises(
            StoreError, match=r"^Store 'early' is not initialized; .*init\(context\)"
        ):
            call()


def test_use_after_close_says_how_to_fix(make_kv: Any, kind: str) -> None:
    store = make_kv(kind, name="done")
    store.put("a", 1)
    store.close()
    assert store.is_open is False
    with pytest.raises(StoreError, match=r"^Store 'done' is closed; .*driver.close\(\)"):
        store.get("a")
    with pytest.raises(StoreError, match=r"^Store 'done' is closed"):
        store.put("a", 2)
    store.close()


def test_init_twice_is_refused(make_kv: Any, context: FakeContext) -> None:
    store = make_kv("memory")
    with pytest.raises(StoreError, match=r"^Store 's' is already initialized; .*build"):
        store.init(context)


def test_unserializable_value_names_store_and_serde(make_kv: Any, kind: str) -> None:
    store = make_kv(kind, name="counts")
    with pytest.raises(StoreError) as info:
        store.put("a", "not a number")
    message = str(info.value)
    assert message.startswith(
        "Store 'counts' cannot serialize value 'not a number' (str) with value serde LongSerde(): "
    )
    assert "give the store builder a value serde for str values" in message
    assert isinstance(info.value.__cause__, Exception)
    assert store.get("a") is None


def test_unserializable_key(make_kv: Any) -> None:
    store = make_kv("memory", name="counts")
    with pytest.raises(
        StoreError, match=r"^Store 'counts' cannot serialize key 1 \(int\) with key"
    ):
        store.put(1, 1)


def test_none_key_is_refused(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    for call in (lambda: store.put(None, 1), lambda: store.get(None), lambda: store.delete(None)):
        with pytest.raises(
            StoreError, match=r"^Store 's' got a None key; .* cannot hold None keys"
        ):
            call()
    with pytest.raises(StoreError, match="got a None key"):
        store.put_all([("a", 1), (None, 2)])
    assert store.get("a") is None  # nothing written: keys are checked first


def test_serde_returning_non_bytes(make_kv: Any) -> None:
    class Shouty:
        def serialize(self, topic: str, data: Any, headers: Any = None) -> Any:
            return data.upper()

        def deserialize(self, topic: str, data: Any, headers: Any = None) -> Any:
            return data

        def __repr__(self) -> str:
            return "Shouty()"

    store = make_kv("memory", Shouty(), Shouty())
    with pytest.raises(StoreError, match=r"key serde Shouty\(\) returned str for key 'a', not"):
        store.put("a", "b")


def test_wrong_bytes_for_the_value_serde(make_kv: Any) -> None:
    store = make_kv("memory", StrSerde(), LongSerde())
    store.backend.put(b"a", b"\x01")
    with pytest.raises(StoreError, match="cannot deserialize value bytes 01 with value serde"):
        store.get("a")


def test_prefix_scan_errors(make_kv: Any) -> None:
    store = make_kv("memory")
    with pytest.raises(StoreError, match="got prefix None"):
        store.prefix_scan(None, StrSerde())
    with pytest.raises(StoreError, match="got prefix_serde=42; pass a serde"):
        store.prefix_scan("a", 42)
    with pytest.raises(StoreError, match=r"cannot serialize prefix 1.5 with LongSerde\(\)"):
        store.prefix_scan(1.5, LongSerde())


def test_repr(make_kv: Any) -> None:
    store = make_kv("rocksdb", name="r")
    assert repr(store) == "<KeyValueStore 'r' (RocksDB, open)>"
