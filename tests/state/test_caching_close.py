"""Closing a caching store runs Java's three steps (flush the cache, drop its namespace, close the
wrapped store) each even when an earlier one fails, then raises the first failure."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

import kslab as ks
from tests.conformance.state._kv_store_support import RecordingContext

S = ks.serdes.String()


@pytest.fixture
def flushed() -> list[tuple[Any, Any]]:
    """What the flush listener received, as ``(key, new value)``."""
    return []


@pytest.fixture
def cached(tmp_path: Any, flushed: list[tuple[Any, Any]]) -> Any:
    """A cached in-memory key-value store with a recording listener, opened."""
    store = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("store"), S, S
    ).with_caching_enabled().with_logging_disabled().build()
    store.set_flush_listener(lambda key, new, old, record: flushed.append((key, new)), False)
    store.init(RecordingContext(tmp_path, S, S))
    return store


def test_close_flushes_dirty_entries_first(cached: Any, flushed: list[tuple[Any, Any]]) -> None:
    cached.put("k", "v")
    cache = cached.thread_cache
    assert flushed == []
    cached.close()
    assert flushed == [("k", "v")]
    assert cache.size() == 0
    assert not cached.is_open


def test_close_runs_every_step_and_raises_the_first_failure(cached: Any) -> None:
    real = cached.wrapped
    cache, inner = mock.MagicMock(), mock.MagicMock(wraps=real)
    cache.flush.side_effect = RuntimeError("flush failed")
    inner.close.side_effect = RuntimeError("close failed")
    # internal on purpose: a cache and an inner store injected to fail on close
    cached._cache, cached._inner = cache, inner
    with pytest.raises(ks.StreamsError, match="closing caching key value store") as info:
        cached.close()
    assert isinstance(info.value.__cause__, RuntimeError)
    assert str(info.value.__cause__) == "flush failed"
    cache.close.assert_called_once()
    inner.close.assert_called_once()
    real.close()


def test_closing_twice_only_closes_the_wrapped_store_again(cached: Any) -> None:
    cached.close()
    cached.close()
    assert not cached.is_open
