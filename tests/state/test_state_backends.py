"""Byte backends: every operation, bounds, order and snapshots, identical on all three engines."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kslab.state.backends import (
    InMemoryKeyValueBackend,
    LRUKeyValueBackend,
    RocksDBKeyValueBackend,
)
from kslab.state.backends._keys import INVALID_RANGE_WARNING, increment

KINDS = ["memory", "rocksdb", "lru"]


@pytest.fixture(params=KINDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    kind = request.param
    if kind == "memory":
        store: Any = InMemoryKeyValueBackend("b")
        store.open(None)
    elif kind == "rocksdb":
        store = RocksDBKeyValueBackend("b")
        store.open(tmp_path / "b")
    else:
        store = LRUKeyValueBackend("b", 100)
        store.open(None)
    yield store
    store.close()


def fill(backend: Any, *keys: bytes) -> None:
    for key in keys:
        backend.put(key, key.upper() + b"!")


def keys_of(pairs: Iterator[tuple[bytes, bytes]]) -> list[bytes]:
    return [key for key, _ in pairs]


def test_point_operations(backend: Any) -> None:
    assert backend.get(b"a") is None
    backend.put(b"a", b"1")
    backend.put(b"a", b"2")
    assert backend.get(b"a") == b"2"
    assert backend.put_if_absent(b"a", b"3") == b"2"
    assert backend.put_if_absent(b"b", b"4") is None
    assert backend.get(b"b") == b"4"
    assert backend.delete(b"a") == b"2"
    assert backend.delete(b"a") is None
    assert backend.get(b"a") is None
    assert keys_of(backend.all()) == [b"b"]


def test_put_all_writes_in_order_and_none_deletes(backend: Any) -> None:
    backend.put(b"x", b"old")
    backend.put_all([(b"a", b"1"), (b"x", None), (b"a", b"2"), (b"c", b"3")])
    assert list(backend.all()) == [(b"a", b"2"), (b"c", b"3")]


@pytest.mark.parametrize("removed", [[b"b"], [b"a", b"c", b"d", b"zz"]],
                         ids=["few", "most-and-an-absent-one"])
def test_delete_all_removes_every_key_and_scans_agree(backend: Any,
                                                      removed: list[bytes]) -> None:
    """``delete_all`` (a window store's expired segment): few keys one by one, most of them
    at once (the in-memory sorted keys then rebuilt by the next scan), absent keys skipped;
    keys put before and after it, scanned before and after it, are all seen."""
    fill(backend, b"a", b"b", b"c")
    assert keys_of(backend.all()) == [b"a", b"b", b"c"]  # the sorted keys are built here
    fill(backend, b"d", b"e")
    backend.delete_all(removed)
    fill(backend, b"f")
    left = [key for key in [b"a", b"b", b"c", b"d", b"e", b"f"] if key not in removed]
    assert keys_of(backend.all()) == left
    assert keys_of(backend.reverse_range(b"b", None)) == [k for k in reversed(left) if k >= b"b"]
    assert [backend.get(key) for key in removed] == [None] * len(removed)
    assert backend.approximate_num_entries() == len(left) or backend.persistent


def test_keys_are_ordered_as_unsigned_bytes(backend: Any) -> None:
    fill(backend, b"\xff", b"\x80", b"\x7f", b"\x00", b"a", b"ab", b"", b"b")
    assert keys_of(backend.all()) == [b"", b"\x00", b"a", b"ab", b"b", b"\x7f", b"\x80", b"\xff"]
    assert keys_of(backend.reverse_all()) == [
        b"\xff",
        b"\x80",
        b"\x7f",
        b"b",
        b"ab",
        b"a",
        b"\x00",
        b"",
    ]


def test_range_is_inclusive_and_none_is_open(backend: Any) -> None:
    fill(backend, b"a", b"b", b"ba", b"c", b"d")
    assert keys_of(backend.range(b"b", b"c")) == [b"b", b"ba", b"c"]
    assert keys_of(backend.range(None, b"b")) == [b"a", b"b"]
    assert keys_of(backend.range(b"ba", None)) == [b"ba", b"c", b"d"]
    assert keys_of(backend.range(None, None)) == [b"a", b"b", b"ba", b"c", b"d"]
    assert keys_of(backend.range(b"bb", b"bz")) == []
    assert list(backend.range(b"a", b"a")) == [(b"a", b"A!")]


def test_reverse_range_is_inclusive_and_none_is_open(backend: Any) -> None:
    fill(backend, b"a", b"b", b"ba", b"c", b"d")
    assert keys_of(backend.reverse_range(b"b", b"c")) == [b"c", b"ba", b"b"]
    assert keys_of(backend.reverse_range(None, b"b")) == [b"b", b"a"]
    assert keys_of(backend.reverse_range(b"ba", None)) == [b"d", b"c", b"ba"]
    assert keys_of(backend.reverse_range(b"bb", b"bz")) == []


def test_inverted_range_is_empty_with_a_warning(
    backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fill(backend, b"a", b"b", b"c")
    with caplog.at_level(logging.WARNING, logger="kslab.state"):
        assert list(backend.range(b"c", b"a")) == []
        assert list(backend.reverse_range(b"c", b"a")) == []
    assert [r.getMessage() for r in caplog.records] == [INVALID_RANGE_WARNING] * 2  # Java's


def test_prefix_scan(backend: Any) -> None:
    fill(backend, b"a", b"ab", b"abc", b"abd", b"ac", b"b", b"a\xff", b"a\xff\xff", b"b\x00")
    assert keys_of(backend.prefix_scan(b"ab")) == [b"ab", b"abc", b"abd"]
    assert keys_of(backend.prefix_scan(b"a\xff")) == [b"a\xff", b"a\xff\xff"]
    assert keys_of(backend.prefix_scan(b"b")) == [b"b", b"b\x00"]
    assert keys_of(backend.prefix_scan(b"z")) == []
    assert len(keys_of(backend.prefix_scan(b""))) == 9


def test_prefix_scan_of_all_ff_prefix_has_no_upper_bound(backend: Any) -> None:
    fill(backend, b"\xfe", b"\xff", b"\xff\x01", b"\xff\xff\xff")
    assert keys_of(backend.prefix_scan(b"\xff")) == [b"\xff", b"\xff\x01", b"\xff\xff\xff"]


def test_increment() -> None:
    assert increment(b"ab") == b"ac"
    assert increment(b"a\xff") == b"b"
    assert increment(b"\x00\xff\xff") == b"\x01"
    assert increment(b"\xff\xff") is None
    assert increment(b"") is None


def test_writes_during_a_scan_do_not_break_it(backend: Any) -> None:
    fill(backend, b"a", b"b", b"c")
    scan = backend.all()
    assert next(scan) == (b"a", b"A!")
    backend.put(b"bb", b"new")
    backend.put(b"a0", b"new")
    rest = [key for key, _ in scan]
    # the set of keys is fixed when the scan starts on every backend
    assert rest == [b"b", b"c"]


def test_approximate_num_entries(backend: Any) -> None:
    assert backend.approximate_num_entries() == 0
    fill(backend, b"a", b"b", b"c")
    assert backend.approximate_num_entries() == 3


def test_snapshot_round_trip(backend: Any) -> None:
    fill(backend, b"a", b"b", b"c")
    snapshot = backend.snapshot()
    backend.put(b"a", b"changed")
    backend.delete(b"b")
    backend.put(b"d", b"new")
    backend.put(b"\xff\xff", b"last")
    assert keys_of(backend.all()) == [b"a", b"c", b"d", b"\xff\xff"]
    backend.restore_snapshot(snapshot)
    assert list(backend.all()) == [(b"a", b"A!"), (b"b", b"B!"), (b"c", b"C!")]
    assert backend.get(b"d") is None
    if not backend.persistent:  # RocksDB only estimates after deletes
        assert backend.approximate_num_entries() == 3


def test_snapshot_of_empty_backend_restores_to_empty(backend: Any) -> None:
    snapshot = backend.snapshot()
    fill(backend, b"a")
    backend.restore_snapshot(snapshot)
    assert list(backend.all()) == []


def test_memory_backend_close_drops_data() -> None:
    backend = InMemoryKeyValueBackend("m")
    backend.put(b"a", b"1")
    backend.close()
    assert backend.get(b"a") is None
    assert list(backend.all()) == []


def test_memory_scan_reads_values_late_and_skips_deleted_keys() -> None:
    backend = InMemoryKeyValueBackend("m")
    fill(backend, b"a", b"b", b"c")
    scan = backend.all()
    backend.put(b"a", b"late")
    backend.delete(b"b")
    assert list(scan) == [(b"a", b"late"), (b"c", b"C!")]


def test_memory_backend_scans_see_keys_put_since_the_last_scan() -> None:
    """``put`` is the dict's own setitem; the sorted keys catch up at the next scan or delete,
    whatever mix of new keys, rewrites, deletes and re-adds came before."""
    backend = InMemoryKeyValueBackend("m")
    model: dict[bytes, bytes] = {}
    ops = 0
    for round_ in range(40):
        for i in range(round_ % 7 + 1):  # new keys and rewrites, out of order
            key = b"k%02d" % ((round_ * 13 + i * 29) % 50)
            backend.put(key, b"v%d" % ops)
            model[key] = b"v%d" % ops
            ops += 1
        if round_ % 3 == 0:  # a delete between unsynced puts, then the key comes back
            victim = b"k%02d" % ((round_ * 7) % 50)
            assert backend.delete(victim) == model.pop(victim, None)
            backend.put(victim, b"back")
            model[victim] = b"back"
        if round_ % 2:
            assert list(backend.all()) == sorted(model.items())
            assert list(backend.reverse_range(b"k10", b"k30")) == sorted(
                ((k, v) for k, v in model.items() if b"k10" <= k <= b"k30"), reverse=True)
            assert list(backend.prefix_scan(b"k2")) == sorted(
                (k, v) for k, v in model.items() if k.startswith(b"k2"))
    assert list(backend.all()) == sorted(model.items())
    assert backend.approximate_num_entries() == len(model) == 50


def test_rocksdb_scan_reads_the_snapshot_taken_at_start(tmp_path: Path) -> None:
    backend = RocksDBKeyValueBackend("r")
    backend.open(tmp_path / "r")
    fill(backend, b"a", b"b", b"c")
    scan = backend.all()
    backend.put(b"a", b"late")
    backend.delete(b"b")
    assert list(scan) == [(b"a", b"A!"), (b"b", b"B!"), (b"c", b"C!")]
    backend.close()


def test_rocksdb_put_all_is_one_batch(tmp_path: Path) -> None:
    backend = RocksDBKeyValueBackend("r")
    backend.open(tmp_path / "r")
    backend.put_all([(b"k", b"1"), (b"k", None), (b"j", b"2")])
    assert list(backend.all()) == [(b"j", b"2")]
    backend.close()
