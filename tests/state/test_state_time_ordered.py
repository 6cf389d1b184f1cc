"""The scans emit-on-window-close aggregations use: window stores by time (Java's time-ordered
store, which also keeps one ms more of history) and session stores by end time."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest
from state_fixtures import FakeContext

from kslab.errors import StoreError
from kslab.records import ValueAndTimestamp, Window, Windowed
from kslab.state import Stores


def _open(builder: Any, tmp_path: Path) -> Any:
    store = builder.build()
    store.init(FakeContext(state_dir=tmp_path / "0_0"))
    return store


@pytest.mark.parametrize(("persistent", "expected"), [
    (False, [("a", 5, 9), ("b", 1, 9), ("b", 2, 9)]),  # in memory: end, key, start
    (True, [("b", 1, 9), ("b", 2, 9), ("a", 5, 9)]),  # time-ordered: end, start, key
])
def test_find_sessions_by_end_time(persistent: bool, expected: list, tmp_path: Path) -> None:
    supplier = Stores.persistent_session_store("s", 1000) if persistent else \
        Stores.in_memory_session_store("s", 1000)
    supplier.time_ordered = persistent
    store = _open(Stores.session_store_builder(supplier, "string", "long")
                  .with_logging_disabled(), tmp_path)
    for key, start, end in [("b", 2, 9), ("a", 5, 9), ("b", 1, 9), ("a", 0, 3), ("c", 0, 11)]:
        store.put(Windowed(key, Window(start, end)), 1)
    with store.find_sessions(4, 9) as found:
        assert [(kv.key.key, kv.key.window.start, kv.key.window.end) for kv in found] == expected
    with store.find_sessions(0, 3) as found:
        assert [kv.key for kv in found] == [Windowed("a", Window(0, 3))]
    store.close()


@pytest.mark.parametrize("time_ordered", [False, True])
def test_time_ordered_window_store(time_ordered: bool, tmp_path: Path) -> None:
    supplier = Stores.persistent_timestamped_window_store("w", 15, 10, False)
    supplier.time_ordered = time_ordered
    store = _open(Stores.window_store_builder(supplier, "string", "long")
                  .with_logging_disabled(), tmp_path)
    for key, start in [("b", 0), ("a", 5), ("a", 0), ("b", 5), ("a", 15)]:
        store.put(key, start, start)
    with store.fetch_all(0, 20) as it:
        found = [(kv.key.key, kv.key.window.start) for kv in it]
    if time_ordered:  # by start then key; start 0 = observed 15 - retention 15 still lives
        assert found == [("a", 0), ("b", 0), ("a", 5), ("b", 5), ("a", 15)]
        assert store.fetch("a", 0) == 0
    else:  # one RocksDB segment, by key bytes then start; start 0 has expired
        assert found == [("a", 5), ("a", 15), ("b", 5)]
        assert store.fetch("a", 0) is None
    store.close()


def test_put_pair_and_fetch_pair(tmp_path: Path) -> None:
    """The aggregation hot path: same bytes and changelog as put(ValueAndTimestamp)."""
    supplier = Stores.in_memory_window_store("w", 100, 10, False)
    store = Stores.timestamped_window_store_builder(supplier, "string", "long").build()
    context = FakeContext(state_dir=tmp_path / "0_0")
    store.init(context)
    key = store.serialize_key("a")
    assert store.fetch_pair(key, 0) is None
    store.put_pair(key, 5, 7, 0)
    store.put_pair(key, 6, 9, 10)
    store.put_pair(key, None, 0, 10)  # None deletes
    store.put_pair(key, 1, 1, -100)  # expired: not stored, still logged (as put does)
    assert store.fetch_pair(key, 0) == (5, 7)
    assert store.fetch("a", 0) == ValueAndTimestamp(5, 7)
    assert store.fetch_pair(key, 10) is None
    assert [(k, v, t) for _, k, v, t in context.changelog] == [
        (b"a" + struct.pack(">qi", 0, 0), struct.pack(">q", 5), 7),
        (b"a" + struct.pack(">qi", 10, 0), struct.pack(">q", 6), 9),
        (b"a" + struct.pack(">qi", 10, 0), None, 0),
        (b"a" + struct.pack(">qi", -100, 0), struct.pack(">q", 1), 1),
    ]
    with pytest.raises(StoreError, match="'w'"):
        store.put_pair(key, "not a long", 1, 0)
    store.close()
