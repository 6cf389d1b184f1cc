"""Kafka's ``RocksDBWindowStoreTest`` (``AbstractRocksDBWindowStoreTest`` with
``StoreType.RocksDBWindowStore``), its own tests; the inherited ``AbstractWindowBytesStoreTest``
ones run over the RocksDB store in ``test_abstract_window_bytes_store_test.py``.

Mapping: ``Stores.persistent_window_store`` (retention 120 000 ms, window size 3 ms, so 60 000 ms
segments) of Integer keys and String values, logged, on ``FakeContext``; ``context.restore`` is
the store's changelog restore hook ``_restore_batch`` into a store opened on an empty state
directory (Java deletes the local image first). Skipped: the ``segmentDirs`` assertions of
``testRolling``, ``testSegmentMaintenance`` and ``testRestore`` and all of ``testInitialLoading``
(kslab's RocksDB backend keeps its segments in one database, not one directory per segment:
what is fetched is checked, not the on-disk layout); ``shouldMatchPositionAfterPut`` (IQv2
``Position`` is not in kslab's API).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from tests.state.state_fixtures import FakeContext

WINDOW_SIZE = 3
SEGMENT_INTERVAL = 60_000
RETENTION_PERIOD = 2 * SEGMENT_INTERVAL
START = SEGMENT_INTERVAL * 2
INCREMENT = SEGMENT_INTERVAL // 2
NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight"]


@pytest.fixture
def context(tmp_path: Path) -> FakeContext:
    return FakeContext(state_dir=tmp_path / "0_0", timestamp=1)


@pytest.fixture
def build(context: FakeContext) -> Any:
    opened: list[Any] = []

    def make(duplicates: bool = False, on: FakeContext | None = None) -> Any:
        supplier = ks.Stores.persistent_window_store("window-store", RETENTION_PERIOD,
                                                     WINDOW_SIZE, duplicates)
        store = ks.Stores.window_store_builder(supplier, ks.serdes.Integer(),
                                               ks.serdes.String()).build()
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


def values(iterator: Any) -> set[Any]:
    with iterator:
        return {kv.value for kv in iterator}


def around(store: Any, key: int) -> set[Any]:
    """What ``fetch(key, t - WINDOW_SIZE, t + WINDOW_SIZE)`` finds around key's put time."""
    time = START + INCREMENT * key
    return values(store.fetch(key, time - WINDOW_SIZE, time + WINDOW_SIZE))


def assert_visible(store: Any, visible: set[int]) -> None:
    for key in range(9):
        expected = {NAMES[key]} if key in visible else set()
        assert around(store, key) == expected, key


def test_should_only_iterate_open_segments(store: Any) -> None:
    store.put(1, "one", 0)
    store.put(1, "two", SEGMENT_INTERVAL)
    store.put(1, "three", 2 * SEGMENT_INTERVAL)
    with store.fetch(1, 0, 2 * SEGMENT_INTERVAL) as iterator:
        store.put(1, "four", 3 * SEGMENT_INTERVAL)
        assert iterator.next() == ks.KeyValue(SEGMENT_INTERVAL, "two")
        assert iterator.next() == ks.KeyValue(2 * SEGMENT_INTERVAL, "three")
        assert not iterator.has_next()


def test_test_rolling(store: Any) -> None:
    for key in (0, 1, 2, 4, 5):
        store.put(key, NAMES[key], START + INCREMENT * key)
    assert_visible(store, {2, 4, 5})
    store.put(6, "six", START + INCREMENT * 6)
    assert_visible(store, {4, 5, 6})
    store.put(7, "seven", START + INCREMENT * 7)
    assert_visible(store, {4, 5, 6, 7})
    store.put(8, "eight", START + INCREMENT * 8)
    assert_visible(store, {5, 6, 7, 8})
    store.flush()


def count(store: Any, time_from: int, time_to: int) -> int:
    with store.fetch(0, time_from, time_to) as iterator:
        return sum(1 for _ in iterator)


def test_test_segment_maintenance(store: Any, build: Any, context: FakeContext) -> None:
    store.close()
    store = build(duplicates=True)
    context.timestamp = 0
    store.put(0, "v", 0)
    store.put(0, "v", SEGMENT_INTERVAL - 1)
    store.put(0, "v", SEGMENT_INTERVAL - 1)
    store.put(0, "v", SEGMENT_INTERVAL)
    assert count(store, 0, SEGMENT_INTERVAL * 4) == 4
    store.put(0, "v", SEGMENT_INTERVAL * 3)
    assert count(store, 0, SEGMENT_INTERVAL * 4) == 1
    store.put(0, "v", SEGMENT_INTERVAL * 5)
    assert count(store, SEGMENT_INTERVAL * 4, SEGMENT_INTERVAL * 10) == 1


def test_test_restore(store: Any, build: Any, context: FakeContext, tmp_path: Path) -> None:
    for key in range(9):
        store.put(key, NAMES[key], START + INCREMENT * key)
    store.flush()
    store.close()
    fresh = build(on=FakeContext(state_dir=tmp_path / "fresh", timestamp=1))
    assert_visible(fresh, set())
    fresh.restore_batch([(key, value) for _, key, value, _ in context.changelog])
    assert_visible(fresh, {5, 6, 7, 8})
    fresh.flush()
