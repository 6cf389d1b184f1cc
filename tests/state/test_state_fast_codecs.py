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
    assert store._backend.get(b"b") == b"\x00" * 7 + b"\x02"
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
    store._backend.put(b"a", b"\x01")
    store._backend.put(b"\xff", b"\x00" * 8)
    with pytest.raises(StoreError, match="cannot deserialize value bytes 01 with value serde"):
        store.get("a")
    with pytest.raises(StoreError, match="cannot deserialize value bytes 01 with value serde"):
        next(store.all())
    with store.range(b"\xfe".decode("latin-1"), None) as entries, \
            pytest.raises(StoreError, match="cannot deserialize key bytes ff with key serde"):
        next(entries)
