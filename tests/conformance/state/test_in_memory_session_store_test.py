"""Kafka's ``InMemorySessionStoreTest``, its own test (the inherited
``AbstractSessionBytesStoreTest`` ones run over the in-memory store in
``test_abstract_session_bytes_store_test.py``): an iterator opened before an expiring put still
returns what it covered.

Mapping: ``Stores.in_memory_session_store`` of String keys and Long values (retention 10 000 ms),
logged, on ``FakeContext``. Nothing else is skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from tests.state.state_fixtures import FakeContext

RETENTION_PERIOD = 10_000


@pytest.fixture
def store(tmp_path: Path) -> Any:
    supplier = ks.Stores.in_memory_session_store("in-memory session store", RETENTION_PERIOD)
    opened = ks.Stores.session_store_builder(supplier, ks.serdes.String(),
                                             ks.serdes.Long()).build()
    opened.init(FakeContext(state_dir=tmp_path / "0_0", timestamp=1))
    yield opened
    opened.close()


def test_should_not_expire_from_open_iterator(store: Any) -> None:
    store.put(ks.Windowed("a", ks.Window(0, 0)), 1)
    store.put(ks.Windowed("aa", ks.Window(0, 10)), 2)
    store.put(ks.Windowed("a", ks.Window(10, 20)), 3)
    iterator = store.find_sessions("a", "b", 0, RETENTION_PERIOD)
    store.put(ks.Windowed("aa", ks.Window(100, 2 * RETENTION_PERIOD)), 4)
    assert {kv.value for kv in iterator} == {1, 2, 3, 4}
    assert not iterator.has_next()
    iterator.close()
    with store.find_sessions("a", "b", 0, 20) as it:
        assert not it.has_next()
