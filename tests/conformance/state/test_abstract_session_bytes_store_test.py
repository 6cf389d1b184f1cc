"""Kafka's ``AbstractSessionBytesStoreTest`` as run by ``InMemorySessionStoreTest`` and
``RocksDBSessionStoreTest``: a logged ``SessionStore<String, Long>`` (retention 10 000 ms) on a
fake task context.

Mapping: every test runs over ``Stores.in_memory_session_store`` and
``Stores.persistent_session_store`` (``store_type`` fixture, Java's ``storeType()``);
``SessionWindow(start, end)`` is ``ks.Window(start, end)``; ``InternalMockProcessorContext`` is
``FakeContext`` (its ``changelog`` is the record collector) plus ``record_dropped()`` for the
task's ``dropped-records-total``; Java's ``NullPointerException`` is ``StoreError``.
``shouldRestore``: a closed kslab store raises ``StoreError`` on reads (API.md), so the "closed
store reads empty" step is replaced by restoring the changelog into a fresh store.
Skipped: ``shouldMatchPositionAfterPut`` (IQv2 ``Position`` is not in kslab's API).
"""

from __future__ import annotations

import logging
import struct
import time
from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from tests.state.state_fixtures import FakeContext

SEGMENT_INTERVAL = 60_000
RETENTION_PERIOD = 10_000
MAX = 2**63 - 1


def w(key: Any, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def kv(key: Any, start: int, end: int, value: Any) -> ks.KeyValue:
    return ks.KeyValue(w(key, start, end), value)


class DropCountingContext(FakeContext):
    """FakeContext plus the task's ``dropped-records-total``."""

    def __init__(self, state_dir: Path | None = None, timestamp: int = 0) -> None:
        super().__init__(state_dir, timestamp)
        self.dropped = 0

    def record_dropped(self) -> None:
        self.dropped += 1


@pytest.fixture(params=["in_memory", "rocks_db"])
def store_type(request: Any) -> str:
    return request.param


@pytest.fixture
def context(tmp_path: Path) -> DropCountingContext:
    return DropCountingContext(state_dir=tmp_path / "0_0", timestamp=1)


@pytest.fixture
def build(store_type: str, context: DropCountingContext) -> Any:
    opened: list[Any] = []

    def make(retention: int = RETENTION_PERIOD, key_serde: Any = None, value_serde: Any = None,
             on: FakeContext | None = None) -> Any:
        supplier = ks.Stores.in_memory_session_store("in-memory session store", retention) \
            if store_type == "in_memory" else \
            ks.Stores.persistent_session_store("rocksDB session store", retention)
        store = ks.Stores.session_store_builder(
            supplier, key_serde or ks.serdes.String(), value_serde or ks.serdes.Long()).build()
        store.init(on or context)
        opened.append(store)
        return store

    yield make
    for store in opened:
        if store.is_open:
            store.close()


@pytest.fixture
def store(build: Any) -> Any:
    return build()


def to_list(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def values(iterator: Any) -> set[Any]:
    with iterator:
        return {pair.value for pair in iterator}


def put_all(store: Any, pairs: list[ks.KeyValue]) -> None:
    for pair in pairs:
        store.put(pair.key, pair.value)


def test_should_put_and_find_sessions_in_range(store: Any) -> None:
    a1, a2 = kv("a", 10, 10, 1), kv("a", 500, 1000, 2)
    put_all(store, [a1, a2, kv("a", 1500, 2000, 1), kv("a", 2500, 3000, 2)])
    assert to_list(store.find_sessions("a", 0, 1000)) == [a1, a2]
    assert to_list(store.find_sessions("a", 400, 600)) == [a2]


def test_should_put_and_backward_find_sessions_in_range(store: Any) -> None:
    a1, a2 = kv("a", 10, 10, 1), kv("a", 500, 1000, 2)
    put_all(store, [a1, a2, kv("a", 1500, 2000, 1), kv("a", 2500, 3000, 2)])
    assert to_list(store.backward_find_sessions("a", 0, 1000)) == [a2, a1]
    assert to_list(store.backward_find_sessions("a", 400, 600)) == [a2]


SAME_KEY = [kv("a", 0, 0, 1), kv("a", 10, 10, 2), kv("a", 100, 100, 3), kv("a", 1000, 1000, 4)]


def test_should_fetch_all_sessions_with_same_record_key(store: Any) -> None:
    put_all(store, SAME_KEY)
    store.put(w("aa", 0, 0), 5)
    assert to_list(store.fetch("a")) == SAME_KEY


@pytest.mark.parametrize("store_type", ["rocks_db", "in_memory"])
def test_should_find_sessions_for_time_range(store: Any, store_type: str) -> None:
    store.put(w("a", 0, 0), 5)
    if store_type == "rocks_db":
        with pytest.raises(ks.KslabError,
                           match=r"This API is not supported by this implementation of "
                                 r"SessionStore\."):
            store.find_sessions(0, 0)
        return
    assert to_list(store.find_sessions(0, 0)) == [kv("a", 0, 0, 5)]
    store.put(w("b", 10, 20), 10)
    store.put(w("c", 30, 40), 20)
    assert to_list(store.find_sessions(0, 20)) == [kv("a", 0, 0, 5), kv("b", 10, 20, 10)]
    assert to_list(store.find_sessions(0, 19)) == [kv("a", 0, 0, 5)]
    assert to_list(store.find_sessions(1, 20)) == [kv("b", 10, 20, 10)]
    assert to_list(store.find_sessions(19, 41)) == [kv("b", 10, 20, 10), kv("c", 30, 40, 20)]
    assert to_list(store.find_sessions(0, 40)) == \
        [kv("a", 0, 0, 5), kv("b", 10, 20, 10), kv("c", 30, 40, 20)]


def test_should_backward_fetch_all_sessions_with_same_record_key(store: Any) -> None:
    put_all(store, SAME_KEY)
    store.put(w("aa", 0, 0), 5)
    assert to_list(store.backward_fetch("a")) == SAME_KEY[::-1]


KEY_RANGE = [kv("aa", 10, 10, 2), kv("aaa", 100, 100, 3), kv("aaaa", 100, 100, 6),
             kv("b", 1000, 1000, 4), kv("bb", 1500, 2000, 5)]
A, BBB = kv("a", 0, 0, 1), kv("bbb", 2500, 3000, 6)



def test_should_fetch_all_sessions_within_key_range(store: Any) -> None:
    put_all(store, [*KEY_RANGE, A, BBB])
    assert to_list(store.fetch("aa", "bb")) == KEY_RANGE
    assert to_list(store.find_sessions("aa", "bb", 0, MAX)) == KEY_RANGE
    assert to_list(store.fetch(None, "bb")) == [A, *KEY_RANGE]
    assert to_list(store.fetch("aa", None)) == [*KEY_RANGE, BBB]
    assert to_list(store.fetch(None, None)) == [A, *KEY_RANGE, BBB]


def test_should_backward_fetch_all_sessions_within_key_range(store: Any) -> None:
    put_all(store, [*KEY_RANGE, A, BBB])
    assert to_list(store.backward_fetch("aa", "bb")) == KEY_RANGE[::-1]
    assert to_list(store.backward_find_sessions("aa", "bb", 0, MAX)) == KEY_RANGE[::-1]
    assert to_list(store.backward_fetch(None, "bb")) == [A, *KEY_RANGE][::-1]
    assert to_list(store.backward_fetch("aa", None)) == [*KEY_RANGE, BBB][::-1]
    assert to_list(store.backward_fetch(None, None)) == [A, *KEY_RANGE, BBB][::-1]


def test_should_fetch_exact_session(store: Any) -> None:
    put_all(store, [kv("a", 0, 4, 1), kv("aa", 0, 3, 2), kv("aa", 0, 4, 3), kv("aa", 1, 4, 4),
                    kv("aaa", 0, 4, 5)])
    assert store.fetch_session("aa", 0, 4) == 3


def test_should_return_null_on_session_not_found(store: Any) -> None:
    assert store.fetch_session("any key", 0, 5) is None


def test_should_find_values_within_merging_session_window_range(store: Any) -> None:
    put_all(store, [kv("a", 0, 0, 1), kv("a", 1000, 1000, 2)])
    assert to_list(store.find_sessions("a", -1, 1000)) == [kv("a", 0, 0, 1),
                                                          kv("a", 1000, 1000, 2)]


def test_should_backward_find_values_within_merging_session_window_range(store: Any) -> None:
    put_all(store, [kv("a", 0, 0, 1), kv("a", 1000, 1000, 2)])
    assert to_list(store.backward_find_sessions("a", -1, 1000)) == [kv("a", 1000, 1000, 2),
                                                                   kv("a", 0, 0, 1)]


def test_should_remove(store: Any) -> None:
    put_all(store, [kv("a", 0, 1000, 1), kv("a", 1500, 2500, 2)])
    store.remove(w("a", 0, 1000))
    with store.find_sessions("a", 0, 1000) as results:
        assert not results.has_next()
    with store.find_sessions("a", 1500, 2500) as results:
        assert results.has_next()


def test_should_remove_on_null_agg_value(store: Any) -> None:
    put_all(store, [kv("a", 0, 1000, 1), kv("a", 1500, 2500, 2)])
    store.put(w("a", 0, 1000), None)
    with store.find_sessions("a", 0, 1000) as results:
        assert not results.has_next()
    with store.find_sessions("a", 1500, 2500) as results:
        assert results.has_next()


MERGE = [kv("a", 0, 100, 1), kv("a", 101, 200, 2), kv("a", 201, 300, 3), kv("a", 301, 400, 4),
         kv("a", 401, 500, 5)]


def test_should_find_sessions_to_merge(store: Any) -> None:
    put_all(store, MERGE)
    assert to_list(store.find_sessions("a", 150, 300)) == [MERGE[1], MERGE[2]]


def test_should_backward_find_sessions_to_merge(store: Any) -> None:
    put_all(store, MERGE)
    assert to_list(store.backward_find_sessions("a", 150, 300)) == [MERGE[2], MERGE[1]]


def exact_keys_store(store: Any, build: Any) -> Any:
    store.close()
    store = build(0x7A00000000000000)
    put_all(store, [kv("a", 0, 0, 1), kv("aa", 0, 10, 2), kv("a", 10, 20, 3),
                    kv("aa", 10, 20, 4),
                    kv("a", 0x7A00000000000000 - 2, 0x7A00000000000000 - 1, 5)])
    return store


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_should_fetch_exact_keys(store: Any, build: Any, backward: bool) -> None:
    """Also ``shouldBackwardFetchExactKeys`` (backward=True)."""
    store = exact_keys_store(store, build)
    find = store.backward_find_sessions if backward else store.find_sessions
    assert values(find("a", 0, MAX)) == {1, 3, 5}
    assert values(find("aa", 0, MAX)) == {2, 4}
    assert values(find("a", "aa", 0, MAX)) == {1, 2, 3, 4, 5}
    assert values(find("a", "aa", 10, 0)) == {2}
    assert values(find(None, "aa", 0, MAX)) == {1, 2, 3, 4, 5}
    assert values(find("a", None, 0, MAX)) == {1, 2, 3, 4, 5}
    assert values(find(None, None, 0, MAX)) == {1, 2, 3, 4, 5}


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_should_fetch_and_iterate_over_exact_binary_keys(build: Any, backward: bool) -> None:
    """Also ``shouldBackwardFetchAndIterateOverExactBinaryKeys`` (backward=True)."""
    store = build(RETENTION_PERIOD, ks.serdes.Bytes(), ks.serdes.String())
    keys = [b"\x00", b"\x00\x00", b"\x00\x00\x00"]
    for i in range(9):
        store.put(w(keys[i % 3], i + 1, 100), str(i + 1))
    find = store.backward_find_sessions if backward else store.find_sessions
    assert values(find(keys[0], 0, MAX)) == {"1", "4", "7"}
    assert values(find(keys[1], 0, MAX)) == {"2", "5", "8"}
    assert values(find(keys[2], 0, MAX)) == {"3", "6", "9"}
    store.close()


PEEK = [kv("a", 0, 0, 1), kv("aa", 0, 10, 2), kv("a", 10, 20, 3), kv("aa", 10, 20, 4)]


def test_test_iterator_peek(store: Any) -> None:
    put_all(store, PEEK)
    with store.find_sessions("a", 0, 20) as iterator:
        assert iterator.peek_next_key() == w("a", 0, 0)
        assert iterator.peek_next_key() == iterator.next().key
        assert iterator.peek_next_key() == iterator.next().key
        assert not iterator.has_next()


def test_test_iterator_peek_backward(store: Any) -> None:
    put_all(store, PEEK)
    with store.backward_find_sessions("a", 0, 20) as iterator:
        assert iterator.peek_next_key() == w("a", 10, 20)
        assert iterator.peek_next_key() == iterator.next().key
        assert iterator.peek_next_key() == iterator.next().key
        assert not iterator.has_next()


def test_should_restore(store: Any, build: Any, context: FakeContext, tmp_path: Path) -> None:
    put_all(store, SAME_KEY)
    assert to_list(store.fetch("a")) == SAME_KEY
    store.close()
    with pytest.raises(ks.StoreError):
        store.fetch("a")
    fresh = build(on=FakeContext(state_dir=tmp_path / "restored"))
    assert to_list(fresh.fetch("a")) == []
    fresh.restore_batch([(key, value) for _, key, value, _ in context.changelog])
    assert to_list(fresh.fetch("a")) == SAME_KEY


def test_should_close_open_iterators_when_store_is_closed_and_not_throw_invalid_state_store_exception_on_has_next(  # noqa: E501
        store: Any) -> None:
    put_all(store, [kv("a", 0, 0, 1), kv("b", 10, 50, 2), kv("c", 100, 500, 3)])
    with store.fetch("a") as iterator:
        assert iterator.has_next()
        store.close()
        assert not iterator.has_next()


def test_should_return_same_results_for_single_key_find_sessions_and_equal_key_range_find_sessions(
        store: Any) -> None:
    put_all(store, [kv("a", 0, 1, 0), kv("aa", 2, 3, 1), kv("aa", 4, 5, 2), kv("aaa", 6, 7, 3)])
    with store.find_sessions("aa", 0, 10) as single, \
            store.find_sessions("aa", "aa", 0, 10) as ranged:
        assert single.next() == ranged.next()
        assert single.next() == ranged.next()
        assert not single.has_next()
        assert not ranged.has_next()


def test_should_measure_expired_records(store: Any, context: DropCountingContext) -> None:
    store.put(w("initial record", 0, 2 * SEGMENT_INTERVAL), 0)
    store.put(w("late record", 0, 0), 0)
    store.put(w("another on-time record", 0, 2 * SEGMENT_INTERVAL), 0)
    assert context.dropped == 1


def test_should_not_throw_exception_removing_nonexistent_key(store: Any) -> None:
    store.remove(w("a", 0, 1))


def test_should_throw_null_pointer_exception_on_find_sessions_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.find_sessions(None, 1, 2)


def test_should_throw_null_pointer_exception_on_fetch_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.fetch(None)


def test_should_throw_null_pointer_exception_on_remove_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.remove(None)


def test_should_throw_null_pointer_exception_on_put_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.put(None, 1)


def test_should_not_throw_invalid_range_exception_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    key_from = struct.pack(">i", -1).decode("utf-8", errors="replace")
    key_to = struct.pack(">i", 1).decode()
    with caplog.at_level(logging.WARNING), \
            store.find_sessions(key_from, key_to, 0, 10) as iterator:
        assert not iterator.has_next()
    assert (
        "Returning empty iterator for fetch with invalid key range: from > to. This may be due "
        "to range arguments set in the wrong order, or serdes that don't preserve ordering when "
        "lexicographically comparing the serialized bytes. Note that the built-in numerical "
        "serdes do not follow this for negative numbers"
    ) in caplog.messages


def test_should_remove_expired(store: Any, store_type: str) -> None:
    store.put(w("a", 0, 0), 1)
    if store_type == "in_memory":
        store.put(w("aa", 0, 10), 2)
        store.put(w("a", 10, 20), 3)
        store.put(w("aa", 10, RETENTION_PERIOD), 4)
    else:
        store.put(w("aa", 0, SEGMENT_INTERVAL), 2)
        store.put(w("a", 10, SEGMENT_INTERVAL), 3)
        store.put(w("aa", 10, 2 * SEGMENT_INTERVAL), 4)
    found = values(store.find_sessions("a", "b", 0, MAX))
    assert found == ({2, 3, 4} if store_type == "in_memory" else {4})


def test_should_not_fetch_expired_sessions(store: Any) -> None:
    now = int(time.time() * 1000)
    r = RETENTION_PERIOD
    store.put(w("p", now - 3 * r, now - 2 * r), 1)
    store.put(w("q", now - 2 * r, now - r), 4)
    store.put(w("r", now - r, now - r // 2), 3)
    store.put(w("p", now - r, now - r // 2), 2)
    assert values(store.find_sessions("p", now - 2 * r, now - r)) == {2}
    with store.backward_find_sessions("p", now - 5 * r, now - 4 * r) as iterator:
        assert not iterator.has_next()
    with store.find_sessions("p", "r", now - 5 * r, now - 4 * r) as iterator:
        assert not iterator.has_next()
    assert values(store.find_sessions("p", "r", now - r, now - r // 2)) == {2, 3, 4}
    assert values(store.find_sessions("p", "r", now - 2 * r, now - r)) == {2, 3, 4}
    assert values(store.backward_find_sessions("p", "r", now - 2 * r, now - r)) == {2, 3, 4}
