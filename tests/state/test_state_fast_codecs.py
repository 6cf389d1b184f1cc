"""Stores over built-in serdes take the serdes' C-level codecs; what those refuse takes the
store's own path, so bytes, values and errors stay exactly as with the serdes' methods."""

from __future__ import annotations

from typing import Any

import pytest

from kslab import serdes
from kslab.errors import StoreError
from kslab.records import KeyValue


def test_get_put_and_scans_round_trip(make_kv: Any) -> None:
    store = make_kv("memory", serdes.String(), serdes.Long())
    store.put("b", 2)
    store.put("a", -(2**63))
    assert (store.get("a"), store.get("b"), store.get("zz")) == (-(2**63), 2, None)
    assert store.backend.get(b"b") == b"\x00" * 7 + b"\x02"
    with store.all() as entries:
        assert list(entries) == [KeyValue("a", -(2**63)), KeyValue("b", 2)]
    with store.reverse_range("a", "b") as entries:
        assert [type(kv) for kv in entries] == [KeyValue, KeyValue]
    store.put("a", None)
    assert store.get("a") is None


def test_refused_values_raise_the_stores_errors(make_kv: Any) -> None:
    store = make_kv("memory", serdes.String(), serdes.Long())
    with pytest.raises(StoreError, match=r"^Store 's' cannot serialize value 'x' \(str\) with"):
        store.put("a", "x")
    with pytest.raises(StoreError, match=r"^Store 's' cannot serialize key 5 \(int\) with key"):
        store.get(5)


def test_bad_stored_bytes_raise_the_stores_error_on_get_and_scan(make_kv: Any) -> None:
    store = make_kv("memory", serdes.String(), serdes.Long())
    store.backend.put(b"a", b"\x01")
    store.backend.put(b"\xff", b"\x00" * 8)
    with pytest.raises(StoreError, match="cannot deserialize value bytes 01 with value serde"):
        store.get("a")
    with pytest.raises(StoreError, match="cannot deserialize value bytes 01 with value serde"):
        next(store.all())
    with pytest.raises(StoreError, match="cannot deserialize value bytes 01 with value serde"):
        list(store.all())  # the for-loop's generator takes the same path
    with store.range(b"\xfe".decode("latin-1"), None) as entries, \
            pytest.raises(StoreError, match="cannot deserialize key bytes ff with key serde"):
        next(entries)


@pytest.mark.parametrize("kind", ["memory", "rocksdb"])
def test_a_for_loop_over_a_scan_sees_peeks_deletes_and_close_in_its_body(make_kv: Any,
                                                                        kind: str) -> None:
    """``for`` over a fast-decoding scan runs a generator; what the body does to the iterator
    or the store acts on the next step as it does for ``next()``."""
    store = make_kv(kind, serdes.String(), serdes.Long())
    for i, key in enumerate("abcdef"):
        store.put(key, i)
    seen: list[Any] = []
    with store.all() as entries:
        for kv in entries:
            seen.append(kv)
            if kv.key == "a":
                assert entries.peek_next_key() == "b"  # peeked: the loop still yields it
                assert entries.has_next()
            if kv.key == "b":
                assert entries.next() == KeyValue("c", 2)  # taken here: the loop skips it
            if kv.key == "d":
                store.put("f", 50)
            if kv.key == "e":
                break
        assert next(entries) == KeyValue("f", 50 if kind == "memory" else 5)
        with pytest.raises(StopIteration):
            next(entries)
        assert list(entries) == []
    assert seen == [KeyValue("a", 0), KeyValue("b", 1), KeyValue("d", 3), KeyValue("e", 4)]
    entries = store.all()
    for _kv in entries:
        entries.close()
        break
    with pytest.raises(StoreError, match="is closed because it was closed"):
        for _kv in entries:
            pass
