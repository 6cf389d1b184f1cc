"""Kafka's ``ChangeLoggingSessionBytesStoreTest``: a logged session store writes puts and removes
to its store and logs them under Java's ``SessionKeySchema`` key (key, end, start).

Mapping: the mocked inner store and ``ProcessorContextImpl`` are a real logged in-memory session
store of ``Bytes`` keys and values on ``FakeContext`` (whose ``changelog`` records every
``logChange(name, key, value, timestamp)``); "delegates to the inner store" means reads return
what was written, flush keeps it and close closes the store. Skipped: the ``Position`` argument
of ``logChange`` (IQv2 positions are not in kslab's API), so ``shouldLogPutsWithPosition``
checks the same log record as ``shouldLogPuts``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab.state.session import session_key
from tests.state.state_fixtures import FakeContext

VALUE = b"\x00"
KEY = VALUE
SESSION = ks.Windowed(KEY, ks.Window(0, 0))
BINARY = session_key(KEY, 0, 0)


@pytest.fixture
def context(tmp_path: Path) -> FakeContext:
    return FakeContext(state_dir=tmp_path / "0_0", timestamp=0)


@pytest.fixture
def store(context: FakeContext) -> Any:
    supplier = ks.Stores.in_memory_session_store("session", 100)
    opened = ks.Stores.session_store_builder(supplier, ks.serdes.Bytes(),
                                             ks.serdes.Bytes()).build()
    opened.init(context)
    opened.put(ks.Windowed(b"\x01", ks.Window(5, 5)), b"\x05")  # not the key under test
    context.changelog.clear()
    yield opened
    if opened.is_open:
        opened.close()


def sessions(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def test_should_delegate_init(store: Any) -> None:
    assert store.is_open


def test_should_log_puts(store: Any, context: FakeContext) -> None:
    store.put(SESSION, VALUE)
    assert store.fetch_session(KEY, 0, 0) == VALUE
    assert context.changelog == [("session", BINARY, VALUE, 0)]


def test_should_log_puts_with_position(store: Any, context: FakeContext) -> None:
    test_should_log_puts(store, context)


def test_should_log_removes(store: Any, context: FakeContext) -> None:
    store.remove(SESSION)
    store.remove(SESSION)
    assert context.changelog == [("session", BINARY, None, 0)] * 2


def test_should_delegate_to_underlying_store_when_fetching(store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.fetch(KEY)) == [ks.KeyValue(SESSION, VALUE)]


def test_should_delegate_to_underlying_store_when_backward_fetching(store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.backward_fetch(KEY)) == [ks.KeyValue(SESSION, VALUE)]


def test_should_delegate_to_underlying_store_when_fetching_range(store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.fetch(KEY, KEY)) == [ks.KeyValue(SESSION, VALUE)]


def test_should_delegate_to_underlying_store_when_backward_fetching_range(store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.backward_fetch(KEY, KEY)) == [ks.KeyValue(SESSION, VALUE)]


def test_should_delegate_to_underlying_store_when_finding_sessions(store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.find_sessions(KEY, 0, 1)) == [ks.KeyValue(SESSION, VALUE)]


def test_should_delegate_to_underlying_store_when_backward_finding_sessions(store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.backward_find_sessions(KEY, 0, 1)) == [ks.KeyValue(SESSION, VALUE)]


def test_should_delegate_to_underlying_store_when_finding_session_range(store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.find_sessions(KEY, KEY, 0, 1)) == [ks.KeyValue(SESSION, VALUE)]


def test_should_delegate_to_underlying_store_when_backward_finding_session_range(
        store: Any) -> None:
    store.put(SESSION, VALUE)
    assert sessions(store.backward_find_sessions(KEY, KEY, 0, 1)) == \
        [ks.KeyValue(SESSION, VALUE)]


def test_should_flush_underlying_store(store: Any) -> None:
    store.put(SESSION, VALUE)
    store.flush()
    assert store.fetch_session(KEY, 0, 0) == VALUE


def test_should_close_underlying_store(store: Any) -> None:
    store.close()
    assert not store.is_open
