"""Kafka's ``InMemoryWindowStoreTest``, its own tests (the inherited
``AbstractWindowBytesStoreTest`` ones run over the in-memory store in
``test_abstract_window_bytes_store_test.py``): restore from changelog records, iterators opened
before an expiring put, and expiry by retention.

Mapping: ``Stores.in_memory_window_store("InMemoryWindowStore", 120 000, 3)`` of Integer keys and
String values, logged, on ``FakeContext``; ``context.restore(name, records)`` is the store's
changelog restore hook ``_restore_batch`` (what the execution core calls). Skipped:
``shouldMatchPositionAfterPut`` (IQv2 ``Position`` is not in kslab's API).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab.state.window import window_key
from tests.state.state_fixtures import FakeContext

WINDOW_SIZE = 3
RETENTION_PERIOD = 120_000


def windowed_pair(key: Any, value: Any, start: int) -> ks.KeyValue:
    return ks.KeyValue(ks.Windowed(key, ks.Window(start, start + WINDOW_SIZE)), value)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    supplier = ks.Stores.in_memory_window_store("InMemoryWindowStore", RETENTION_PERIOD,
                                                WINDOW_SIZE, False)
    opened = ks.Stores.window_store_builder(supplier, ks.serdes.Integer(),
                                            ks.serdes.String()).build()
    opened.init(FakeContext(state_dir=tmp_path / "0_0", timestamp=1))
    yield opened
    opened.close()


def test_should_restore(store: Any) -> None:
    with store.all() as it:
        assert not it.has_next()
    store.restore_batch([
        (window_key(struct.pack(">i", 1), 0, 0), b"one"),
        (window_key(struct.pack(">i", 2), WINDOW_SIZE, 0), b"two"),
        (window_key(struct.pack(">i", 3), 2 * WINDOW_SIZE, 0), b"three"),
    ])
    with store.fetch_all(0, 2 * WINDOW_SIZE) as iterator:
        assert iterator.next() == windowed_pair(1, "one", 0)
        assert iterator.next() == windowed_pair(2, "two", WINDOW_SIZE)
        assert iterator.next() == windowed_pair(3, "three", 2 * WINDOW_SIZE)
        assert not iterator.has_next()


def test_should_not_expire_from_open_iterator(store: Any) -> None:
    store.put(1, "one", 0)
    store.put(1, "two", 10)
    store.put(2, "one", 5)
    store.put(2, "two", 15)
    iterator1 = store.fetch(1, 0, 50)
    iterator2 = store.fetch(2, 0, 50)
    store.put(1, "four", 2 * RETENTION_PERIOD)
    assert iterator1.next() == ks.KeyValue(0, "one")
    assert iterator2.next() == ks.KeyValue(5, "one")
    assert iterator2.next() == ks.KeyValue(15, "two")
    assert iterator1.next() == ks.KeyValue(10, "two")
    assert not iterator1.has_next()
    assert not iterator2.has_next()
    iterator1.close()
    iterator2.close()
    with store.fetch(1, 0, 50) as it:
        assert not it.has_next()


def test_test_expiration(store: Any) -> None:
    quarter = RETENTION_PERIOD // 4
    store.put(1, "one", 0)
    store.put(1, "two", quarter)
    store.put(1, "three", 2 * quarter)
    store.put(1, "four", 3 * quarter)
    store.put(1, "five", 4 * quarter)
    iterator = store.fetch_all(0, 4 * quarter)
    store.put(1, "six", 5 * quarter)
    assert iterator.next() == windowed_pair(1, "two", quarter)
    assert iterator.next() == windowed_pair(1, "three", RETENTION_PERIOD // 2)
    assert iterator.next() == windowed_pair(1, "four", 3 * quarter)
    assert iterator.next() == windowed_pair(1, "five", RETENTION_PERIOD)
    assert not iterator.has_next()
    with store.fetch_all(0, 5 * quarter) as iterator:
        assert iterator.next() == windowed_pair(1, "three", RETENTION_PERIOD // 2)
        assert iterator.next() == windowed_pair(1, "four", 3 * quarter)
        assert iterator.next() == windowed_pair(1, "five", RETENTION_PERIOD)
        assert iterator.next() == windowed_pair(1, "six", 5 * quarter)
        assert not iterator.has_next()
