"""Kafka's ``ThreadCacheTest``: the per-thread record cache shared by named caches, its byte
budget, evictions (which flush a namespace's dirty entries), scans, resizing and counters.

Mapping: ``ThreadCache``, ``LRUCacheEntry`` and ``node_size`` are ``kslab.state.cache``'s (the
cache takes no ``LogContext`` or metrics); ``Bytes.wrap(b)`` is ``bytes``; ``gets()``, ``puts()``,
``evicts()`` and ``flushes()`` are attributes, ``sizeBytes()`` is ``size_bytes()``. kslab's scans
(``range``, ``reverse_range``, ``all``, ``reverse_all``) are ``CacheIterator``s (Java's
``MemoryLRUCacheBytesIterator``) of ``KeyValue(key, entry)`` with ``has_next()``, ``next()`` and
``peek_next_key()``; tests that check which keys a scan yields iterate them.
Skipped: ``cacheOverheadsSmallValues`` and ``cacheOverheadsLargeValues`` (they measure JVM heap
use).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.state.cache import LRUCacheEntry, ThreadCache, node_size

NAMESPACE, NAMESPACE1, NAMESPACE2 = "0.0-namespace", "0.1-namespace", "0.2-namespace"
BYTES = [bytes([i]) for i in range(11)]


def memory_cache_entry_size(key: bytes, value: bytes, topic: str) -> int:
    """``ThreadCacheTest.memoryCacheEntrySize`` (it counts the key twice, as Java's does)."""
    return len(key) + len(value) + 1 + 8 + 8 + 4 + len(topic) + len(key) + 8 + 8 + 8


def dirty_entry(key: bytes) -> LRUCacheEntry:
    return LRUCacheEntry(key, ks.Headers(), True, -1, -1, -1, "")


def clean_entry(key: bytes) -> LRUCacheEntry:
    return LRUCacheEntry(key)


def setup_thread_cache(first: int, last: int, entry_size: int, reverse: bool) -> ThreadCache:
    cache = ThreadCache(entry_size)
    cache.add_dirty_entry_flush_listener(NAMESPACE, lambda dirty: None)
    index = first
    while (not reverse and index < last) or (reverse and index >= last):
        cache.put(NAMESPACE, BYTES[index], dirty_entry(BYTES[index]))
        index += -1 if reverse else 1
    return cache


def keys(scan: Any) -> list[bytes]:
    return [key for key, _ in scan]


KVS = [("K1", "V1"), ("K2", "V2"), ("K3", "V3"), ("K4", "V4"), ("K5", "V5")]


def test_basic_put_get() -> None:
    cache = ThreadCache(len(KVS) * memory_cache_entry_size(b"K1", b"V1", ""))
    for key, value in KVS:
        cache.put(NAMESPACE, key.encode(), LRUCacheEntry(value.encode(), ks.Headers(), True,
                                                         1, 1, 1, ""))
    for key, value in KVS:
        entry = cache.get(NAMESPACE, key.encode())
        assert entry.is_dirty
        assert entry.value.decode() == value
    assert (cache.gets, cache.puts, cache.evicts, cache.flushes) == (5, 5, 0, 0)


def test_evict() -> None:
    received = []
    cache = ThreadCache(memory_cache_entry_size(b"K1", b"V1", ""))
    cache.add_dirty_entry_flush_listener(NAMESPACE, lambda dirty: received.extend(
        (d.key.decode(), d.new_value.decode()) for d in dirty))
    for key, value in KVS:
        cache.put(NAMESPACE, key.encode(), LRUCacheEntry(value.encode(), ks.Headers(), True,
                                                         1, 1, 1, ""))
    assert received[0] == ("K1", "V1")
    assert cache.evicts == 4


def test_should_delete() -> None:
    cache = ThreadCache(10000)
    key = b"\x00"
    cache.put(NAMESPACE, key, dirty_entry(key))
    assert cache.delete(NAMESPACE, key).value == key
    assert cache.get(NAMESPACE, key) is None


def test_should_not_flush_after_delete() -> None:
    key = b"\x00"
    cache = ThreadCache(10000)
    received: list = []
    cache.add_dirty_entry_flush_listener(NAMESPACE, received.extend)
    cache.put(NAMESPACE, key, dirty_entry(key))
    assert cache.delete(NAMESPACE, key).value == key
    cache.flush(NAMESPACE)
    assert received == []
    assert cache.flushes == 1


def test_should_not_blow_up_on_non_existent_key_when_deleting() -> None:
    cache = ThreadCache(10000)
    cache.put(NAMESPACE, b"\x00", dirty_entry(b"\x00"))
    assert cache.delete(NAMESPACE, b"\x01") is None


def test_should_not_blow_up_on_non_existent_namespace_when_deleting() -> None:
    assert ThreadCache(10000).delete(NAMESPACE, b"\x01") is None


def test_should_not_clash_with_overlapping_names() -> None:
    cache = ThreadCache(10000)
    cache.put(NAMESPACE1, b"\x00", dirty_entry(b"\x00"))
    cache.put(NAMESPACE2, b"\x00", dirty_entry(b"\x01"))
    assert cache.get(NAMESPACE1, b"\x00").value == b"\x00"
    assert cache.get(NAMESPACE2, b"\x00").value == b"\x01"


def test_should_peek_next_key() -> None:
    cache = setup_thread_cache(0, 1, 10000, False)
    iterator = cache.range(NAMESPACE, b"\x00", b"\x01")
    assert iterator.peek_next_key() == b"\x00"
    assert iterator.peek_next_key() == b"\x00"


def test_should_peek_next_key_reverse_range() -> None:
    cache = setup_thread_cache(1, 1, 10000, True)
    iterator = cache.reverse_range(NAMESPACE, b"\x00", b"\x01")
    assert iterator.peek_next_key() == b"\x01"
    assert iterator.peek_next_key() == b"\x01"


def test_should_get_same_key_as_peek_next() -> None:
    cache = setup_thread_cache(0, 1, 10000, False)
    iterator = cache.range(NAMESPACE, b"\x00", b"\x01")
    assert iterator.peek_next_key() == iterator.next()[0]


def test_should_get_same_key_as_peek_next_reverse_range() -> None:
    cache = setup_thread_cache(1, 1, 10000, True)
    iterator = cache.reverse_range(NAMESPACE, b"\x00", b"\x01")
    assert iterator.peek_next_key() == iterator.next()[0]


def test_should_throw_if_no_peek_next_key_range() -> None:
    cache = setup_thread_cache(0, 0, 10000, False)
    with pytest.raises(ks.NoSuchElementError):
        cache.range(NAMESPACE, b"\x00", b"\x01").peek_next_key()


def test_should_throw_if_no_peek_next_key_reverse_range() -> None:
    cache = setup_thread_cache(-1, 0, 10000, True)
    with pytest.raises(ks.NoSuchElementError):
        cache.reverse_range(NAMESPACE, b"\x00", b"\x01").peek_next_key()


def test_should_return_false_if_no_next_key() -> None:
    cache = setup_thread_cache(0, 0, 10000, False)
    assert not cache.range(NAMESPACE, b"\x00", b"\x01").has_next()


def test_should_return_false_if_no_next_key_reverse_range() -> None:
    cache = setup_thread_cache(-1, 0, 10000, True)
    assert not cache.reverse_range(NAMESPACE, b"\x00", b"\x01").has_next()


def test_should_peek_and_iterate_over_range() -> None:
    cache = setup_thread_cache(0, 10, 10000, False)
    assert keys(cache.range(NAMESPACE, b"\x01", b"\x04")) == BYTES[1:5]


def test_should_skip_to_entry_when_to_inclusive_is_false_in_range() -> None:
    cache = setup_thread_cache(0, 10, 10000, False)
    assert keys(cache.range(NAMESPACE, b"\x01", b"\x04", False)) == BYTES[1:4]


def test_should_peek_and_iterate_over_reverse_range() -> None:
    cache = setup_thread_cache(10, 0, 10000, True)
    assert keys(cache.reverse_range(NAMESPACE, b"\x01", b"\x04")) == BYTES[4:0:-1]


def _evicting_cache(first: int, last: int, reverse: bool) -> ThreadCache:
    cache = setup_thread_cache(first, last, memory_cache_entry_size(b"\x00", b"\x00", "") * 5,
                               reverse)
    assert cache.size() == 5
    cache.put(NAMESPACE, b"\x06", dirty_entry(b"\x06"))  # evicts the eldest entry
    return cache


def test_should_skip_entries_where_value_has_been_evicted_from_cache() -> None:
    cache = _evicting_cache(0, 5, False)
    assert next(iter(cache.range(NAMESPACE, b"\x00", b"\x05")))[0] == b"\x01"


def test_should_skip_entries_where_value_has_been_evicted_from_cache_reverse_range() -> None:
    cache = _evicting_cache(4, 0, True)
    assert next(iter(cache.reverse_range(NAMESPACE, b"\x00", b"\x05")))[0] == b"\x03"


def test_should_fetch_all_entries_in_cache() -> None:
    cache = setup_thread_cache(0, 11, 10000, False)
    assert keys(cache.all(NAMESPACE)) == BYTES


def test_should_fetch_all_entries_in_cache_in_reverse_order() -> None:
    cache = setup_thread_cache(10, 0, 10000, True)
    assert keys(cache.reverse_all(NAMESPACE)) == BYTES[::-1]


def test_should_return_all_unevicted_values_from_cache() -> None:
    cache = _evicting_cache(0, 5, False)
    assert next(iter(cache.all(NAMESPACE)))[0] == b"\x01"


def test_should_return_all_unevicted_values_from_cache_in_reverse_order() -> None:
    cache = _evicting_cache(4, 0, True)
    assert next(iter(cache.reverse_all(NAMESPACE)))[0] == b"\x06"


def _flushed_keys(entry: Any) -> tuple[ThreadCache, list[bytes]]:
    cache = ThreadCache(100000)
    received: list[bytes] = []
    cache.add_dirty_entry_flush_listener(NAMESPACE1, lambda d: received.extend(e.key for e in d))
    for key in BYTES[:3]:
        cache.put(NAMESPACE1, key, entry(key))
    cache.put(NAMESPACE2, b"\x04", entry(b"\x04"))
    cache.flush(NAMESPACE1)
    return cache, received


def test_should_flush_dirty_entries_for_namespace() -> None:
    assert _flushed_keys(dirty_entry)[1] == BYTES[:3]


def test_should_not_flush_clean_entries_for_namespace() -> None:
    assert _flushed_keys(clean_entry)[1] == []


def _evicts_immediately(cache: ThreadCache) -> None:
    received: list = []
    cache.add_dirty_entry_flush_listener(NAMESPACE, received.extend)
    cache.put(NAMESPACE, b"\x00", dirty_entry(b"\x00"))
    assert len(received) == 1
    cache.flush(NAMESPACE)
    assert len(received) == 1


def test_should_evict_immediately_if_cache_size_is_very_small() -> None:
    _evicts_immediately(ThreadCache(1))


def test_should_evict_immediately_if_cache_size_is_zero() -> None:
    _evicts_immediately(ThreadCache(0))


def test_should_evict_after_put_all() -> None:
    received: list = []
    cache = ThreadCache(1)
    cache.add_dirty_entry_flush_listener(NAMESPACE, received.extend)
    cache.put_all(NAMESPACE, [(b"\x00", dirty_entry(b"\x05")), (b"\x01", dirty_entry(b"\x06"))])
    assert cache.evicts == 2
    assert len(received) == 2


def test_should_put_all() -> None:
    cache = ThreadCache(100000)
    cache.put_all(NAMESPACE, [(b"\x00", dirty_entry(b"\x05")), (b"\x01", dirty_entry(b"\x06"))])
    assert cache.get(NAMESPACE, b"\x00").value == b"\x05"
    assert cache.get(NAMESPACE, b"\x01").value == b"\x06"


def test_should_not_forward_clean_entry_on_eviction() -> None:
    cache = ThreadCache(0)
    received: list = []
    cache.add_dirty_entry_flush_listener(NAMESPACE, received.extend)
    cache.put(NAMESPACE, b"\x01", clean_entry(b"\x00"))
    assert received == []


def test_should_put_if_absent() -> None:
    cache = ThreadCache(100000)
    key, value = b"\x0a", b"\x1e"
    assert cache.put_if_absent(NAMESPACE, key, dirty_entry(value)) is None
    assert cache.put_if_absent(NAMESPACE, key, dirty_entry(b"\x08")).value == value
    assert cache.get(NAMESPACE, key).value == value


def test_should_evict_after_put_if_absent() -> None:
    received: list = []
    cache = ThreadCache(1)
    cache.add_dirty_entry_flush_listener(NAMESPACE, received.extend)
    cache.put_if_absent(NAMESPACE, b"\x00", dirty_entry(b"\x05"))
    cache.put_if_absent(NAMESPACE, b"\x01", dirty_entry(b"\x06"))
    cache.put_if_absent(NAMESPACE, b"\x01", dirty_entry(b"\x06"))
    assert cache.evicts == 3
    assert len(received) == 3


def test_should_not_loop_for_ever_when_evicting_and_current_cache_is_empty() -> None:
    max_cache_size_in_bytes = 100
    cache = ThreadCache(max_cache_size_in_bytes)
    cache.add_dirty_entry_flush_listener(
        NAMESPACE, lambda dirty: cache.put(NAMESPACE1, b"\x00", dirty_entry(bytes(2))))
    cache.add_dirty_entry_flush_listener(NAMESPACE1, lambda dirty: None)
    cache.add_dirty_entry_flush_listener(NAMESPACE2, lambda dirty: None)
    cache.put(NAMESPACE2, b"\x01", dirty_entry(bytes(1)))
    cache.put(NAMESPACE, b"\x01", dirty_entry(bytes(1)))
    remaining = max_cache_size_in_bytes - cache.size_bytes()
    cache.put(NAMESPACE, b"\x02", dirty_entry(bytes(remaining + 100)))


def test_should_cleanup_named_cache_on_close() -> None:
    cache = ThreadCache(100000)
    cache.put(NAMESPACE1, b"\x01", clean_entry(b"\x01"))
    cache.put(NAMESPACE2, b"\x01", clean_entry(b"\x01"))
    assert cache.size() == 2
    cache.close(NAMESPACE2)
    assert cache.size() == 1
    assert cache.get(NAMESPACE2, b"\x01") is None


def test_should_return_null_if_key_is_null() -> None:
    cache = ThreadCache(10)
    cache.put(NAMESPACE, b"\x01", clean_entry(b"\x01"))
    assert cache.get(NAMESPACE, None) is None


def test_should_calculate_size_in_bytes() -> None:
    cache = ThreadCache(100000)
    node = node_size(b"\x01", dirty_entry(b"\x00"))
    cache.put(NAMESPACE1, b"\x01", clean_entry(b"\x00"))
    assert cache.size_bytes() == node


def test_should_resize_and_shrink() -> None:
    cache = ThreadCache(10000)
    for key in (1, 2, 3):
        cache.put(NAMESPACE, bytes([key]), clean_entry(b"\x00"))
    assert cache.size_bytes() == 141
    cache.resize(100)
    assert cache.size_bytes() == 94
    cache.put(NAMESPACE1, b"\x04", clean_entry(b"\x00"))
    assert cache.size_bytes() == 94
