"""Changelog writes, LRU eviction tombstones, and restoring stores from changelog records."""

from __future__ import annotations

from typing import Any

import pytest
from state_fixtures import FakeContext, LongSerde, StrSerde

from kslab.state import Stores

ONE = b"\x00" * 7 + b"\x01"
TWO = b"\x00" * 7 + b"\x02"
THREE = b"\x00" * 7 + b"\x03"


@pytest.fixture(params=["memory", "rocksdb", "lru"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def test_every_write_is_logged_after_the_backend(
    make_kv: Any, context: FakeContext, kind: str
) -> None:
    store = make_kv(kind, name="counts")
    store.put("a", 1)
    context.timestamp = 7
    store.put("a", None)
    store.delete("missing")  # Java logs a tombstone even when nothing was there
    store.put_all([("b", 2), ("c", None)])
    assert store.put_if_absent("b", 3) == 2  # present: no write, no record
    assert store.put_if_absent("d", 3) is None
    assert store.put_if_absent("e", None) is None  # absent + None: a tombstone, as in Java
    assert context.changelog == [
        ("counts", b"a", ONE, 0),
        ("counts", b"a", None, 7),
        ("counts", b"missing", None, 7),
        ("counts", b"b", TWO, 7),
        ("counts", b"c", None, 7),
        ("counts", b"d", THREE, 7),
        ("counts", b"e", None, 7),
    ]


def test_logging_disabled_logs_nothing(make_kv: Any, context: FakeContext, kind: str) -> None:
    store = make_kv(kind, logging=False)
    store.put("a", 1)
    store.delete("a")
    store.put_all([("b", 2)])
    store.put_if_absent("c", 3)
    assert context.changelog == []
    assert store.logging_enabled is False


def test_failed_write_logs_nothing(make_kv: Any, context: FakeContext) -> None:
    store = make_kv("memory")
    with pytest.raises(Exception, match="cannot serialize value"):
        store.put_all([("a", 1), ("b", "x")])
    assert context.changelog == []
    assert store.get("a") is None


def test_restore_from_changelog_rebuilds_the_same_store(
    make_kv: Any, context: FakeContext, kind: str
) -> None:
    source = make_kv(kind, name="src")
    source.put_all([("a", 1), ("b", 2), ("c", 3)])
    source.put("b", None)
    source.put("a", 10)
    source.delete("c")
    source.put("d", 4)
    records = [(key, value) for _, key, value, _ in context.changelog]
    logged = len(context.changelog)

    target = make_kv(kind, name="dst")
    target.restore_batch(records)
    assert list(target.all()) == list(source.all()) == [("a", 10), ("d", 4)]
    assert target.snapshot() == source.snapshot()
    assert len(context.changelog) == logged  # restoring logs nothing


def test_restore_accepts_records_with_timestamps(make_kv: Any) -> None:
    store = make_kv("memory")
    store.restore_batch([(b"a", ONE, 5), (b"b", TWO, 6), (b"a", None, 7)])
    assert list(store.all()) == [("b", 2)]


def test_snapshot_round_trip_on_the_typed_store(make_kv: Any, kind: str) -> None:
    store = make_kv(kind)
    store.put_all([("a", 1), ("b", 2)])
    snapshot = store.snapshot()
    store.put("a", 5)
    store.put("c", 3)
    store.delete("b")
    store.restore_snapshot(snapshot)
    assert list(store.all()) == [("a", 1), ("b", 2)]
    assert store.get("c") is None
    store.put("z", 26)  # still writable after a restore
    assert store.get("z") == 26


# -- LRU ---------------------------------------------------------------------------------------


def lru(context: FakeContext, size: int, logging: bool = True) -> Any:
    builder = Stores.key_value_store_builder(Stores.lru_map("lru", size), StrSerde(), LongSerde())
    if not logging:
        builder.with_logging_disabled()
    store = builder.build()
    store.init(context)
    return store


def test_lru_evicts_least_recently_used_and_logs_a_tombstone(context: FakeContext) -> None:
    store = lru(context, 3)
    store.put("a", 1)
    store.put("b", 2)
    store.put("c", 3)
    assert store.get("a") == 1  # a is now the most recently used: b is the eldest
    store.put("b", 2)  # an update is a use too: c is now the eldest
    context.changelog.clear()
    store.put("d", 4)
    assert [kv.key for kv in store.all()] == ["a", "b", "d"]
    # the eviction tombstone comes first, then the write that caused it (Java's order)
    assert context.changelog == [("lru", b"c", None, 0), ("lru", b"d", b"\x00" * 7 + b"\x04", 0)]
    store.put("e", 5)
    assert [kv.key for kv in store.all()] == ["b", "d", "e"]
    assert context.changelog[-2] == ("lru", b"a", None, 0)
    assert store.approximate_num_entries() == 3


def test_lru_scans_do_not_count_as_uses(context: FakeContext) -> None:
    store = lru(context, 2)
    store.put("a", 1)
    store.put("b", 2)
    assert list(store.all()) == [("a", 1), ("b", 2)]
    store.put("c", 3)
    assert [kv.key for kv in store.all()] == ["b", "c"]


def test_lru_put_all_logs_evictions_before_the_entries(context: FakeContext) -> None:
    store = lru(context, 1)
    store.put_all([("a", 1), ("b", 2)])
    assert [(key, value) for _, key, value, _ in context.changelog] == [
        (b"a", None),
        (b"a", ONE),
        (b"b", TWO),
    ]
    assert list(store.all()) == [("b", 2)]


def test_lru_without_logging_evicts_silently(context: FakeContext) -> None:
    store = lru(context, 1, logging=False)
    store.put("a", 1)
    store.put("b", 2)
    assert context.changelog == []
    assert list(store.all()) == [("b", 2)]


def test_lru_restore_evicts_without_logging(context: FakeContext) -> None:
    store = lru(context, 2)
    store.restore_batch([(b"a", ONE), (b"b", TWO), (b"c", THREE)])
    assert context.changelog == []
    assert list(store.all()) == [("b", 2), ("c", 3)]
    store.put("d", 4)  # the listener is back after the restore
    assert context.changelog[0] == ("lru", b"b", None, 0)


def test_lru_snapshot_keeps_recency(context: FakeContext) -> None:
    store = lru(context, 2)
    store.put("a", 1)
    store.put("b", 2)
    store.get("a")
    snapshot = store.snapshot()
    store.put("c", 3)
    store.restore_snapshot(snapshot)
    store.put("d", 4)  # b is the eldest again, as when the snapshot was taken
    assert [kv.key for kv in store.all()] == ["a", "d"]
