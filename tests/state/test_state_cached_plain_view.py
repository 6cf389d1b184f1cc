"""The plain-value facade of a cached timestamped store reads through the cache, as Java's
``KeyValueStoreFacade`` over a ``CachingKeyValueStore`` does: scans and gets see writes that are
still dirty in the cache, and scans strip the timestamps."""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state import KeyValueStoreFacade
from tests.conformance.state._kv_store_support import RecordingContext

S = ks.serdes.String()


@pytest.fixture
def cached(tmp_path: Any) -> Any:
    """A cached in-memory timestamped store, opened, with nothing flushed yet."""
    context = RecordingContext(tmp_path, S, S)
    store = ks.Stores.timestamped_key_value_store_builder(
        ks.Stores.in_memory_key_value_store("store"), S, S
    ).with_caching_enabled().with_logging_disabled().build()
    store.init(context)
    yield store
    store.close()


def test_plain_view_of_a_cached_store_goes_through_the_cache(cached: Any) -> None:
    view = cached.plain_view()
    assert isinstance(view, KeyValueStoreFacade)
    assert view.timestamped_store is cached


def test_scans_see_unflushed_writes(cached: Any) -> None:
    cached.put("b", ks.ValueAndTimestamp("2", 20))
    cached.put("a", ks.ValueAndTimestamp("1", 10))
    view = cached.plain_view()
    assert list(view.all()) == [ks.KeyValue("a", "1"), ks.KeyValue("b", "2")]
    assert list(view.reverse_all()) == [ks.KeyValue("b", "2"), ks.KeyValue("a", "1")]
    assert list(view.range("a", "a")) == [ks.KeyValue("a", "1")]
    assert list(view.reverse_range("a", "b")) == [ks.KeyValue("b", "2"), ks.KeyValue("a", "1")]
    assert list(view.prefix_scan("b")) == [ks.KeyValue("b", "2")]
    assert list(view.prefix_scan("a", S)) == [ks.KeyValue("a", "1")]
    assert view.get("a") == "1"


def test_scans_merge_flushed_and_dirty_entries(cached: Any) -> None:
    cached.put("a", ks.ValueAndTimestamp("1", 10))
    cached.put("c", ks.ValueAndTimestamp("3", 30))
    cached.flush()
    cached.put("b", ks.ValueAndTimestamp("2", 20))
    cached.delete("c")
    with cached.plain_view().all() as entries:
        assert entries.has_next()
        assert entries.peek_next_key() == "a"
        assert entries.next() == ks.KeyValue("a", "1")
        assert entries.next() == ks.KeyValue("b", "2")
        assert not entries.has_next()
        with pytest.raises(ks.NoSuchElementError):
            entries.next()


def test_facade_writes_go_to_the_cache(cached: Any) -> None:
    cached.plain_view().put("k", "v")
    assert cached.wrapped.get("k") is None  # still dirty in the cache
    assert cached.get("k") == ks.ValueAndTimestamp("v", -1)
    cached.flush()
    assert cached.wrapped.get("k") == ks.ValueAndTimestamp("v", -1)


def test_prefix_scan_refuses_an_explicit_none_serde(cached: Any) -> None:
    with pytest.raises(MissingArgumentError, match="prefixKeySerializer cannot be null"):
        cached.plain_view().prefix_scan("a", None)
    with pytest.raises(MissingArgumentError, match="prefixKeySerializer cannot be null"):
        cached.wrapped.prefix_scan("a", None)
