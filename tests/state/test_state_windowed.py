"""Window and session stores: fetch orders, retention, duplicates, changelog layouts, restore."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest
from state_fixtures import FakeContext

from kslab.errors import StoreError
from kslab.records import KeyValue, ValueAndTimestamp, Window, Windowed
from kslab.state import Stores
from kslab.state.window import split_window_key, window_key


def _open(builder: Any, tmp_path: Path) -> tuple[Any, FakeContext]:
    context = FakeContext(state_dir=tmp_path / "0_0")
    store = builder.build()
    store.init(context)
    return store, context


@pytest.fixture(params=["memory", "rocksdb"])
def window_store(request: Any, tmp_path: Path) -> Any:
    factory = (Stores.in_memory_window_store if request.param == "memory"
               else Stores.persistent_window_store)
    builder = Stores.window_store_builder(factory("w", 100, 10, False), "string", "long")
    store, _ = _open(builder, tmp_path)
    yield store
    store.close()


def test_window_fetch_single_range_and_all(window_store: Any) -> None:
    s = window_store
    s.put("a", 1, 0)
    s.put("a", 2, 10)
    s.put("b", 3, 10)
    s.put("a", 4, 20)
    assert s.fetch("a", 10) == 2
    assert s.fetch("a", 5) is None
    with s.fetch("a", 0, 15) as it:
        assert list(it) == [KeyValue(0, 1), KeyValue(10, 2)]
    with s.backward_fetch("a", 0, 20) as it:
        assert [kv.key for kv in it] == [20, 10, 0]
    with s.fetch("a", "b", 10, 10) as it:
        assert list(it) == [KeyValue(Windowed("a", Window(10, 20)), 2),
                            KeyValue(Windowed("b", Window(10, 20)), 3)]
    with s.fetch_all(0, 100) as it:
        assert len(list(it)) == 4
    s.put("a", None, 10)
    assert s.fetch("a", 10) is None


def test_window_retention_drops_old_windows(window_store: Any) -> None:
    s = window_store
    s.put("a", 1, 0)
    s.put("a", 2, 100)  # observed 100: windows starting at <= 0 are expired
    assert s.fetch("a", 0) is None
    with s.all() as it:
        assert list(it) == [KeyValue(Windowed("a", Window(100, 110)), 2)]


def test_in_memory_fetch_all_orders_by_time_then_key(tmp_path: Path) -> None:
    builder = Stores.window_store_builder(Stores.in_memory_window_store("w", 100, 10), "string",
                                          "long")
    s, _ = _open(builder, tmp_path)
    s.put("b", 1, 0)
    s.put("a", 2, 10)
    s.put("a", 3, 0)
    with s.fetch_all(0, 10) as it:
        assert [(kv.key.key, kv.key.window.start) for kv in it] == [("a", 0), ("b", 0), ("a", 10)]


def test_window_changelog_uses_window_key_schema(tmp_path: Path) -> None:
    builder = Stores.window_store_builder(Stores.in_memory_window_store("w", 100, 10), "string",
                                          "long")
    s, ctx = _open(builder, tmp_path)
    s.put("a", 7, 10)
    assert ctx.changelog == [("w", b"a" + struct.pack(">qi", 10, 0), struct.pack(">q", 7), 0)]
    assert builder.log_config == {"cleanup.policy": "compact,delete",
                                  "retention.ms": str(100 + 86_400_000)}


def test_retain_duplicates_keeps_every_put(tmp_path: Path) -> None:
    builder = Stores.window_store_builder(Stores.in_memory_window_store("w", 100, 10, True),
                                          "string", "long")
    s, ctx = _open(builder, tmp_path)
    s.put("a", 1, 5)
    s.put("a", 2, 5)
    with s.fetch("a", 0, 10) as it:
        assert list(it) == [KeyValue(5, 1), KeyValue(5, 2)]
    assert [split_window_key(k)[2] for _, k, _, _ in ctx.changelog] == [1, 2]
    assert builder.log_config["cleanup.policy"] == "delete"


def test_timestamped_window_store_and_restore(tmp_path: Path) -> None:
    builder = Stores.timestamped_window_store_builder(
        Stores.persistent_timestamped_window_store("tw", 1000, 10), "string", "long")
    s, ctx = _open(builder, tmp_path)
    assert s.store_kind == "timestamped_window"
    s.put("a", ValueAndTimestamp(3, 42), 0)
    assert s.fetch("a", 0) == ValueAndTimestamp(3, 42)
    assert ctx.changelog[-1][3] == 42
    s.close()
    fresh = Stores.timestamped_window_store_builder(
        Stores.in_memory_window_store("tw", 1000, 10), "string", "long").build()
    fresh.init(FakeContext())
    fresh.restore_batch([(k, v, t) for _, k, v, t in ctx.changelog])
    assert fresh.fetch("a", 0) == ValueAndTimestamp(3, 42)


def test_window_supplier_validation() -> None:
    with pytest.raises(StoreError, match="must be no smaller than its window size"):
        Stores.in_memory_window_store("w", 5, 10)
    assert window_key(b"k", 1, 2) == b"k" + struct.pack(">qi", 1, 2)


@pytest.fixture(params=["memory", "rocksdb"])
def session_store(request: Any, tmp_path: Path) -> Any:
    factory = (Stores.in_memory_session_store if request.param == "memory"
               else Stores.persistent_session_store)
    builder = Stores.session_store_builder(factory("s", 100), "string", "long")
    store, ctx = _open(builder, tmp_path)
    yield store, ctx
    store.close()


def test_session_find_fetch_remove(session_store: Any) -> None:
    s, ctx = session_store
    s.put(Windowed("a", Window(0, 10)), 1)
    s.put(Windowed("a", Window(20, 30)), 2)
    s.put(Windowed("b", Window(5, 5)), 3)
    with s.find_sessions("a", 5, 25) as it:
        assert list(it) == [KeyValue(Windowed("a", Window(0, 10)), 1),
                            KeyValue(Windowed("a", Window(20, 30)), 2)]
    with s.find_sessions("a", 11, 25) as it:
        assert [kv.value for kv in it] == [2]
    with s.backward_fetch("a") as it:
        assert [kv.value for kv in it] == [2, 1]
    with s.fetch("a", "b") as it:
        assert [kv.value for kv in it] == [3, 1, 2]
    assert s.fetch_session("a", 20, 30) == 2
    s.remove(Windowed("a", Window(20, 30)))
    assert s.fetch_session("a", 20, 30) is None
    key = ctx.changelog[0][1]
    assert key == b"a" + struct.pack(">qq", 10, 0)
    assert ctx.changelog[-1][2] is None


def test_session_retention(session_store: Any) -> None:
    s, _ = session_store
    s.put(Windowed("a", Window(0, 10)), 1)
    s.put(Windowed("a", Window(200, 210)), 2)
    with s.fetch("a") as it:
        assert [kv.value for kv in it] == [2]
