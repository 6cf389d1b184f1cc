"""Kafka's ``ChangeLoggingWindowBytesStoreTest``: a logged window store writes each put to its
store and logs it under Java's ``WindowKeySchema`` key (key, window start, sequence number).

Mapping: the mocked inner store and ``ProcessorContextImpl`` are a real logged in-memory window
store of ``Bytes`` keys and values on ``FakeContext`` (whose ``changelog`` records every
``logChange(name, key, value, timestamp)``); "delegates to the inner store" means reads return
what was written. Skipped: the ``Position`` argument of ``logChange`` (IQv2 positions are not in
kslab's API), so ``shouldLogPutsWithPosition`` checks the same log record as ``shouldLogPuts``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab.state.window import window_key
from tests.state.state_fixtures import FakeContext

VALUE = b"\x00"
KEY = VALUE


@pytest.fixture
def context(tmp_path: Path) -> FakeContext:
    return FakeContext(state_dir=tmp_path / "0_0", timestamp=0)


def open_store(context: FakeContext, duplicates: bool = False) -> Any:
    supplier = ks.Stores.in_memory_window_store("window", 100, 10, duplicates)
    store = ks.Stores.window_store_builder(supplier, ks.serdes.Bytes(), ks.serdes.Bytes()).build()
    store.init(context)
    return store


@pytest.fixture
def store(context: FakeContext) -> Any:
    opened = open_store(context)
    yield opened
    if opened.is_open:
        opened.close()


def test_should_delegate_init(store: Any) -> None:
    assert store.is_open


def test_should_log_puts(store: Any, context: FakeContext) -> None:
    store.put(KEY, VALUE, context.timestamp)
    assert store.fetch(KEY, 0) == VALUE
    assert context.changelog == [("window", window_key(KEY, 0, 0), VALUE, 0)]


def test_should_log_puts_with_position(store: Any, context: FakeContext) -> None:
    test_should_log_puts(store, context)


def test_should_delegate_to_underlying_store_when_fetching(store: Any) -> None:
    store.put(KEY, VALUE, 5)
    with store.fetch(KEY, 0, 10) as it:
        assert list(it) == [ks.KeyValue(5, VALUE)]


def test_should_delegate_to_underlying_store_when_backward_fetching(store: Any) -> None:
    store.put(KEY, VALUE, 5)
    with store.backward_fetch(KEY, 0, 10) as it:
        assert list(it) == [ks.KeyValue(5, VALUE)]


def test_should_delegate_to_underlying_store_when_fetching_range(store: Any) -> None:
    store.put(KEY, VALUE, 1)
    with store.fetch(KEY, KEY, 0, 1) as it:
        assert list(it) == [ks.KeyValue(ks.Windowed(KEY, ks.Window(1, 11)), VALUE)]


def test_should_delegate_to_underlying_store_when_backward_fetching_range(store: Any) -> None:
    store.put(KEY, VALUE, 1)
    with store.backward_fetch(KEY, KEY, 0, 1) as it:
        assert list(it) == [ks.KeyValue(ks.Windowed(KEY, ks.Window(1, 11)), VALUE)]


def test_should_retain_duplicates_when_set(context: FakeContext) -> None:
    store = open_store(context, duplicates=True)
    store.put(KEY, VALUE, context.timestamp)
    store.put(KEY, VALUE, context.timestamp)
    with store.fetch(KEY, 0, 0) as it:
        assert list(it) == [ks.KeyValue(0, VALUE), ks.KeyValue(0, VALUE)]
    assert context.changelog == [
        ("window", window_key(KEY, 0, 1), VALUE, 0),
        ("window", window_key(KEY, 0, 2), VALUE, 0),
    ]
    store.close()
