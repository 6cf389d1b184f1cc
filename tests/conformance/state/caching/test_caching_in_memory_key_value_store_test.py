"""Kafka's ``CachingInMemoryKeyValueStoreTest`` with the ``AbstractKeyValueStoreTest`` tests it
inherits (``_abstract_key_value_store_tests``, over a cached ``persistent_key_value_store``).

Mapping: Java's ``CachingKeyValueStore`` over an ``InMemoryKeyValueStore`` of bytes is a
``key_value_store_builder`` store with ``serdes.Bytes()`` keys and values,
``with_caching_enabled()`` and logging disabled; ``underlyingStore`` is the cached store's
``wrapped`` typed store, ``cache`` its ``thread_cache``, sized by ``statestore.cache.max.bytes``
= 150 in the context's configs; the ``ProcessorRecordContext(10, 0, 0, "topic")`` is the context's
record, offset, partition and topic. ``CacheFlushListenerStub`` is a listener recording
``forwarded[key] = (new, old)``. ``InvalidStateStoreException`` is ``ks.StoreError``,
``NullPointerException`` ``MissingArgumentError``. Skipped: ``shouldDelegateInit`` and the three
``shouldClose...AfterError...`` tests (Mockito verification of calls on a mocked ``ThreadCache``
and inner store), and the two ``shouldMatchPositionAfterPut...`` tests (IQv2 ``Position`` is not in
kslab's API).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state.caching import CachingKeyValueStore
from tests.conformance.state._abstract_key_value_store_tests import *  # noqa: F403
from tests.conformance.state._kv_store_support import RecordingContext

B = ks.serdes.Bytes()
TOPIC = "topic"
MAX_CACHE_SIZE_BYTES = 150


@pytest.fixture
def create_store() -> Any:
    def create(context: RecordingContext) -> Any:
        opened = ks.Stores.key_value_store_builder(
            ks.Stores.persistent_key_value_store("cache-store"),
            context.default_key_serde, context.default_value_serde,
        ).with_caching_enabled().build()
        opened.init(context, opened)
        return opened
    return create


class FlushListenerStub:
    """``CacheFlushListenerStub``: the last (new, old) forwarded per key, decoded."""

    def __init__(self) -> None:
        self.forwarded: dict[str, tuple[str | None, str | None]] = {}

    def __call__(self, key: Any, new: Any, old: Any, record: Any) -> None:
        self.forwarded[key.decode()] = (
            None if new is None else new.decode(), None if old is None else old.decode()
        )


@pytest.fixture
def listener() -> FlushListenerStub:
    return FlushListenerStub()


@pytest.fixture
def cached(tmp_path: Any, listener: FlushListenerStub) -> Any:
    """``new CachingKeyValueStore(new InMemoryKeyValueStore("store"))`` with a 150-byte cache."""
    context = RecordingContext(tmp_path, B, B)
    context.configs = {"statestore.cache.max.bytes": MAX_CACHE_SIZE_BYTES}
    opened = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("store"), B, B
    ).with_caching_enabled().with_logging_disabled().build()
    opened.set_flush_listener(listener, False)
    opened.init(context)
    yield opened
    opened.close()


def memory_cache_entry_size(key: bytes, value: bytes, topic: str) -> int:
    """``ThreadCacheTest.memoryCacheEntrySize``."""
    return len(key) + len(value) + 1 + 8 + 8 + 4 + len(topic) + len(key) + 8 + 8 + 8


def add_items_to_cache(store: Any) -> int:
    cached_size, i = 0, 0
    while cached_size < MAX_CACHE_SIZE_BYTES:
        kv = str(i).encode()
        i += 1
        store.put(kv, kv)
        cached_size += memory_cache_entry_size(kv, kv, TOPIC)
    return i


def keys_of(iterator: Any) -> list[bytes]:
    with iterator:
        keys = []
        while iterator.has_next():
            keys.append(iterator.next().key)
    return keys


def test_should_set_flush_listener(cached: Any) -> None:
    assert cached.set_flush_listener(None, True)
    assert cached.set_flush_listener(None, False)


def test_should_avoid_flushing_deletions_without_dirty_keys(cached: Any, listener: Any) -> None:
    added = add_items_to_cache(cached)
    assert cached.wrapped.approximate_num_entries() == added
    assert len(listener.forwarded) == added
    cached.put(b"key", b"value")
    assert cached.wrapped.approximate_num_entries() == added
    assert len(listener.forwarded) == added
    cached.put(b"key", None)
    cached.flush()
    assert cached.wrapped.approximate_num_entries() == added
    assert len(listener.forwarded) == added


def test_should_put_get_to_from_cache(cached: Any) -> None:
    cached.put(b"key", b"value")
    cached.put(b"key2", b"value2")
    assert cached.get(b"key") == b"value"
    assert cached.get(b"key2") == b"value2"
    assert cached.thread_cache.size() == 2
    assert cached.wrapped.approximate_num_entries() == 0


def test_should_flush_evicted_items_into_underlying_store(cached: Any) -> None:
    added = add_items_to_cache(cached)
    assert cached.wrapped.approximate_num_entries() == added
    assert cached.approximate_num_entries() == added
    assert cached.wrapped.get(b"0") is not None


def test_should_forward_dirty_item_to_listener_when_evicted(cached: Any, listener: Any) -> None:
    num_records = add_items_to_cache(cached)
    assert len(listener.forwarded) == num_records


def test_should_forward_dirty_items_when_flush_called(cached: Any, listener: Any) -> None:
    cached.put(b"1", b"a")
    cached.flush()
    assert listener.forwarded["1"] == ("a", None)


def test_should_forward_old_values_when_enabled(cached: Any, listener: Any) -> None:
    cached.set_flush_listener(listener, True)
    cached.put(b"1", b"a")
    cached.flush()
    assert listener.forwarded["1"] == ("a", None)
    cached.put(b"1", b"b")
    cached.put(b"1", b"c")
    cached.flush()
    assert listener.forwarded["1"] == ("c", "a")
    cached.put(b"1", None)
    cached.flush()
    assert listener.forwarded["1"] == (None, "c")
    listener.forwarded.clear()
    cached.put(b"1", b"a")
    cached.put(b"1", b"b")
    cached.put(b"1", None)
    cached.flush()
    assert "1" not in listener.forwarded


def test_should_not_forward_old_values_when_disabled(cached: Any, listener: Any) -> None:
    cached.put(b"1", b"a")
    cached.flush()
    assert listener.forwarded["1"] == ("a", None)
    cached.put(b"1", b"b")
    cached.flush()
    assert listener.forwarded["1"] == ("b", None)
    cached.put(b"1", None)
    cached.flush()
    assert listener.forwarded["1"] == (None, None)
    listener.forwarded.clear()
    cached.put(b"1", b"a")
    cached.put(b"1", b"b")
    cached.put(b"1", None)
    cached.flush()
    assert "1" not in listener.forwarded


def test_should_iterate_all_stored_items(cached: Any) -> None:
    items = add_items_to_cache(cached)
    assert keys_of(cached.all()) == [b"0", b"1", b"2"][:items]


def test_should_reverse_iterate_all_stored_items(cached: Any) -> None:
    add_items_to_cache(cached)
    assert keys_of(cached.reverse_all()) == [b"2", b"1", b"0"]


def test_should_iterate_over_range(cached: Any) -> None:
    items = add_items_to_cache(cached)
    assert keys_of(cached.range(b"0", str(items).encode())) == [b"0", b"1", b"2"]


def test_should_reverse_iterate_over_range(cached: Any) -> None:
    items = add_items_to_cache(cached)
    assert keys_of(cached.reverse_range(b"0", str(items).encode())) == [b"2", b"1", b"0"]


def _prefix_scan(cached: Any, prefix: str) -> tuple[list[str], list[str]]:
    keys, values = [], []
    with cached.prefix_scan(prefix, ks.serdes.String()) as iterator:
        while iterator.has_next():
            entry = iterator.next()
            keys.append(entry.key.decode())
            values.append(entry.value.decode())
    return keys, values


def test_should_get_records_with_prefix_key(cached: Any) -> None:
    cached.put_all([ks.KeyValue(k, v) for k, v in [
        (b"p11", b"2"), (b"k1", b"1"), (b"k2", b"2"), (b"p2", b"2"), (b"p1", b"2"),
        (b"p0", b"2")]])
    assert _prefix_scan(cached, "p1") == (["p1", "p11"], ["2", "2"])


def test_should_get_records_with_prefix_key_excluding_next_largest_key(cached: Any) -> None:
    cached.put_all([ks.KeyValue(k, v) for k, v in [
        (b"abcd", b"2"), (b"abcdd", b"1"), (b"abce", b"2"), (b"abc", b"2")]])
    assert _prefix_scan(cached, "abcd") == (["abcd", "abcdd"], ["2", "1"])


def _assert_nothing_visible(cached: Any) -> None:
    assert cached.get(b"a") is None
    assert not cached.range(b"a", b"b").has_next()
    assert not cached.reverse_range(b"a", b"b").has_next()
    assert not cached.all().has_next()
    assert not cached.reverse_all().has_next()


def test_should_delete_items_from_cache(cached: Any) -> None:
    cached.put(b"a", b"a")
    cached.delete(b"a")
    _assert_nothing_visible(cached)


def test_should_not_show_items_deleted_from_cache_but_flushed_to_store_before_delete(
        cached: Any) -> None:
    cached.put(b"a", b"a")
    cached.flush()
    cached.delete(b"a")
    _assert_nothing_visible(cached)


def test_should_clear_namespace_cache_on_close(cached: Any) -> None:
    cached.put(b"a", b"a")
    cache = cached.thread_cache
    assert cache.size() == 1
    cached.close()
    assert cache.size() == 0


CLOSED_CALLS = {
    "get": lambda s: s.get(b"a"),
    "put": lambda s: s.put(b"a", b"a"),
    "range": lambda s: s.range(b"a", b"b"),
    "reverse_range": lambda s: s.reverse_range(b"a", b"b"),
    "all": lambda s: s.all(),
    "reverse_all": lambda s: s.reverse_all(),
    "approximate_num_entries": lambda s: (s.close(), s.approximate_num_entries()),
    "put_all": lambda s: s.put_all([ks.KeyValue(b"a", b"a")]),
    "put_if_absent": lambda s: s.put_if_absent(b"b", b"c"),
    "delete": lambda s: s.delete(b"key"),
}


def _closed(cached: Any, call: str) -> None:
    with pytest.raises(ks.StoreError):
        cached.close()
        CLOSED_CALLS[call](cached)


def test_should_throw_if_trying_to_get_from_closed_caching_store(cached: Any) -> None:
    _closed(cached, "get")


def test_should_throw_if_trying_to_write_to_closed_caching_store(cached: Any) -> None:
    _closed(cached, "put")


def test_should_throw_if_trying_to_do_range_query_on_closed_caching_store(cached: Any) -> None:
    _closed(cached, "range")


def test_should_throw_if_trying_to_do_reverse_range_query_on_closed_caching_store(
        cached: Any) -> None:
    _closed(cached, "reverse_range")


def test_should_throw_if_trying_to_do_all_query_on_closed_caching_store(cached: Any) -> None:
    _closed(cached, "all")


def test_should_throw_if_trying_to_do_reverse_all_query_on_closed_caching_store(
        cached: Any) -> None:
    _closed(cached, "reverse_all")


def test_should_throw_if_trying_to_do_get_approx_size_on_closed_caching_store(
        cached: Any) -> None:
    _closed(cached, "approximate_num_entries")


def test_should_throw_if_trying_to_do_put_all_closed_caching_store(cached: Any) -> None:
    _closed(cached, "put_all")


def test_should_throw_if_trying_to_do_put_if_absent_closed_caching_store(cached: Any) -> None:
    _closed(cached, "put_if_absent")


def test_should_throw_null_pointer_exception_on_put_with_null_key(cached: Any) -> None:
    with pytest.raises(MissingArgumentError):
        cached.put(None, b"c")


def test_should_throw_null_pointer_exception_on_put_if_absent_with_null_key(cached: Any) -> None:
    with pytest.raises(MissingArgumentError):
        cached.put_if_absent(None, b"c")


def test_should_throw_null_pointer_exception_on_put_all_with_null_key(cached: Any) -> None:
    with pytest.raises(MissingArgumentError):
        cached.put_all([ks.KeyValue(None, b"a")])


def test_should_put_if_absent(cached: Any) -> None:
    cached.put_if_absent(b"b", b"2")
    assert cached.get(b"b") == b"2"
    cached.put_if_absent(b"b", b"3")
    assert cached.get(b"b") == b"2"


def test_should_put_all(cached: Any) -> None:
    cached.put_all([ks.KeyValue(b"a", b"1"), ks.KeyValue(b"b", b"2")])
    assert cached.get(b"a") == b"1"
    assert cached.get(b"b") == b"2"


def test_should_return_underlying(cached: Any) -> None:
    assert isinstance(cached, CachingKeyValueStore)
    assert isinstance(cached.wrapped, ks.state.KeyValueStore)
    assert not isinstance(cached.wrapped, CachingKeyValueStore)


def test_should_throw_if_trying_to_delete_from_closed_caching_store(cached: Any) -> None:
    _closed(cached, "delete")
