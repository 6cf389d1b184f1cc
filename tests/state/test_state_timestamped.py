"""TimestampedKeyValueStore: byte layout, changelog format, restore, facade, timestamp dropping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest
from state_fixtures import FakeContext, LongSerde, StrSerde

from kslab.errors import StoreError
from kslab.records import KeyValue, ValueAndTimestamp
from kslab.state import (
    KeyValueStore,
    KeyValueStoreFacade,
    Stores,
    TimestampedKeyValueStore,
)

VAT = ValueAndTimestamp


@pytest.fixture(params=["memory", "rocksdb-ts", "lru"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def test_values_come_back_with_their_timestamps(make_kv: Any, kind: str) -> None:
    store = make_kv(kind, timestamped=True)
    assert isinstance(store, TimestampedKeyValueStore)
    assert isinstance(store, KeyValueStore)
    store.put("a", VAT(5, 100))
    store.put("b", VAT(-1, -1))
    assert store.get("a") == VAT(5, 100)
    assert store.get("b") == VAT(-1, -1)
    assert store.get("zz") is None
    assert list(store.all()) == [KeyValue("a", VAT(5, 100)), KeyValue("b", VAT(-1, -1))]


def test_byte_layout_is_big_endian_timestamp_then_value(make_kv: Any, kind: str) -> None:
    store = make_kv(kind, timestamped=True)
    store.put("a", VAT(5, 1_700_000_000_000))
    store.put("n", VAT(7, -1))
    stored = dict(store.backend.all())
    assert stored[b"a"].hex() == "0000018bcfe56800" + "0000000000000005"
    assert stored[b"n"].hex() == "ffffffffffffffff" + "0000000000000007"


def test_changelog_gets_plain_value_bytes_with_the_value_timestamp(
    make_kv: Any, context: FakeContext, kind: str
) -> None:
    store = make_kv(kind, name="table", timestamped=True)
    context.timestamp = 999  # the record being processed; deletes are stamped with it
    store.put("a", VAT(1, 10))
    store.put("a", VAT(None, 11))  # a None value is a delete
    store.put_all([("b", VAT(2, 20)), ("c", None)])
    store.put_if_absent("d", VAT(3, 30))
    store.delete("b")
    one, two, three = (bytes(7) + bytes((n,)) for n in (1, 2, 3))
    assert context.changelog == [
        ("table", b"a", one, 10),
        ("table", b"a", None, 999),
        ("table", b"b", two, 20),
        ("table", b"c", None, 999),
        ("table", b"d", three, 30),
        ("table", b"b", None, 999),
    ]


def test_put_if_absent_and_delete_return_value_and_timestamp(make_kv: Any, kind: str) -> None:
    store = make_kv(kind, timestamped=True)
    assert store.put_if_absent("a", VAT(1, 10)) is None
    assert store.put_if_absent("a", VAT(2, 20)) == VAT(1, 10)
    assert store.delete("a") == VAT(1, 10)
    assert store.delete("a") is None


def test_restore_from_changelog_records_rebuilds_the_bytes(
    make_kv: Any, context: FakeContext, kind: str
) -> None:
    source = make_kv(kind, name="src", timestamped=True)
    source.put("a", VAT(1, 10))
    source.put("b", VAT(2, 20))
    source.put("a", VAT(3, 30))
    source.delete("b")
    records = [(key, value, ts) for _, key, value, ts in context.changelog]
    target = make_kv(kind, name="dst", timestamped=True)
    target.restore_batch(records)
    assert list(target.all()) == [KeyValue("a", VAT(3, 30))]
    assert list(target.backend.all()) == list(source.backend.all())


def test_restore_without_timestamps_is_refused(make_kv: Any) -> None:
    store = make_kv("memory", name="t", timestamped=True)
    with pytest.raises(StoreError, match=r"^Store 't' is timestamped and restores from \(key"):
        store.restore_batch([(b"a", b"\x00" * 8)])


def test_put_without_value_and_timestamp_is_refused(make_kv: Any) -> None:
    store = make_kv("memory", name="t", timestamped=True)
    with pytest.raises(StoreError, match=r"^Store 't' is timestamped and got 5; put ValueAndTime"):
        store.put("a", 5)
    with pytest.raises(StoreError, match="is timestamped and got"):
        store.put("a", (5, 1))
    with pytest.raises(StoreError, match=r"got timestamp 1.5 in"):
        store.put("a", VAT(5, 1.5))
    with pytest.raises(StoreError, match=r"cannot serialize value 'x' \(str\)"):
        store.put("a", VAT("x", 1))
    assert store.get("a") is None


def test_frames_have_a_timestamp_column(make_kv: Any) -> None:
    store = make_kv("memory", timestamped=True)
    store.put("b", VAT(2, 20))
    store.put("a", VAT(1, 10))
    pd.testing.assert_frame_equal(
        store.to_pandas(),
        pd.DataFrame({"key": ["a", "b"], "value": [1, 2], "timestamp": [10, 20]}),
    )
    assert store.to_polars().equals(
        pl.DataFrame({"key": ["a", "b"], "value": [1, 2], "timestamp": [10, 20]})
    )


def test_plain_view_reads_values_and_writes_timestamp_minus_one(
    make_kv: Any, context: FakeContext, kind: str
) -> None:
    store = make_kv(kind, name="t", timestamped=True)
    view = store.plain_view()
    assert isinstance(view, KeyValueStoreFacade)
    assert (view.name, view.persistent, view.is_open) == ("t", store.persistent, True)
    store.put("a", VAT(1, 10))
    assert view.get("a") == 1
    view.put("b", 2)
    assert store.get("b") == VAT(2, -1)
    assert context.changelog[-1] == ("t", b"b", bytes(7) + b"\x02", -1)
    assert view.put_if_absent("b", 5) == 2
    assert view.put_if_absent("c", 3) is None
    view.put_all([("d", 4), ("c", None)])
    assert list(view.all()) == [("a", 1), ("b", 2), ("d", 4)]
    assert list(view.reverse_all()) == [("d", 4), ("b", 2), ("a", 1)]
    assert list(view.range("b", None)) == [("b", 2), ("d", 4)]
    assert list(view.reverse_range(None, "b")) == [("b", 2), ("a", 1)]
    assert list(view.prefix_scan("d", StrSerde())) == [("d", 4)]
    assert view.delete("a") == 1
    if not view.persistent:  # RocksDB only estimates after deletes
        assert view.approximate_num_entries() == 2
    pd.testing.assert_frame_equal(
        view.to_pandas(), pd.DataFrame({"key": ["b", "d"], "value": [2, 4]})
    )
    assert view.to_polars().equals(pl.DataFrame({"key": ["b", "d"], "value": [2, 4]}))
    view.put("b", None)
    assert store.get("b") is None
    view.close()
    assert store.is_open is False


def test_persistent_plain_supplier_drops_timestamps(tmp_path: Path) -> None:
    # Java: a timestamped builder over persistentKeyValueStore stores values only, reads -1
    context = FakeContext(state_dir=tmp_path)
    store = Stores.timestamped_key_value_store_builder(
        Stores.persistent_key_value_store("plain"), StrSerde(), LongSerde()
    ).build()
    store.init(context)
    store.put("a", VAT(1, 10))
    assert store.get("a") == VAT(1, -1)
    assert list(store.all()) == [("a", VAT(1, -1))]
    assert store.put_if_absent("a", VAT(2, 20)) == VAT(1, -1)
    assert store.snapshot() == [(b"a", bytes(7) + b"\x01")]  # no timestamp on disk
    assert context.changelog == [("plain", b"a", bytes(7) + b"\x01", 10)]
    store.restore_batch([(b"b", bytes(7) + b"\x02", 30)])
    assert store.get("b") == VAT(2, -1)
    assert store.delete("b") == VAT(2, -1)
    assert list(store.reverse_range("a", "z")) == [("a", VAT(1, -1))]
    assert list(store.prefix_scan("a")) == [("a", VAT(1, -1))]
    store.close()


def test_persistent_timestamped_supplier_keeps_timestamps(make_kv: Any) -> None:
    store = make_kv("rocksdb-ts", timestamped=True)
    store.put("a", VAT(1, 10))
    assert store.get("a") == VAT(1, 10)
    assert store.snapshot() == [(b"a", bytes(7) + b"\x0a" + bytes(7) + b"\x01")]
