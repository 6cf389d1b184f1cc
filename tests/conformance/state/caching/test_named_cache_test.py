"""Kafka's ``NamedCacheTest``: one store's slice of the record cache, its LRU order, sizes,
hit/overwrite/flush counters, evictions that flush dirty entries, and re-entrant listeners.

Mapping: ``NamedCache``, ``LRUCacheEntry`` and ``DirtyEntry`` are ``kslab.state.cache``'s (the
entry takes Java's arguments in Java's order); ``Bytes.wrap(b)`` is ``bytes``; ``sizeInBytes()`` is
``current_size_bytes``, ``hits()``/``overwrites()``/``flushes()``/``misses()`` are attributes,
``setListener`` sets ``listener``; ``first()``/``last()`` are the most and least recently used
entries, and Java's ``head()``/``tail()`` LRU nodes are read through ``lru_keys()`` (least to most
recently used) and ``node_size``. ``IllegalStateException`` is ``ks.StoreError``. Metrics are not
part of kslab's cache, so nothing else differs.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.state.cache import LRUCacheEntry, NamedCache, node_size

HEADERS = ks.Headers([("key", b"value")])


@pytest.fixture
def cache() -> NamedCache:
    return NamedCache("dummy-name")


def test_should_keep_track_of_most_recently_and_least_recently_used(cache: NamedCache) -> None:
    to_insert = [("K1", "V1"), ("K2", "V2"), ("K3", "V3"), ("K4", "V4"), ("K5", "V5")]
    for key, value in to_insert:
        cache.put(key.encode(), LRUCacheEntry(value.encode(), ks.Headers(), True, 1, 1, 1, ""))
        head, tail = cache.first(), cache.last()
        assert head.value.decode() == value
        assert tail.value.decode() == to_insert[0][1]
        assert (cache.flushes, cache.hits, cache.misses, cache.overwrites) == (0, 0, 0, 0)


def test_should_keep_track_of_size(cache: NamedCache) -> None:
    value = LRUCacheEntry(bytes([0]))
    for key in (0, 1, 2):
        cache.put(bytes([key]), value)
    assert cache.current_size_bytes == (value.size + 25) * 3  # 1 byte key + 24 bytes overhead


def test_should_put_get(cache: NamedCache) -> None:
    for key in (0, 1, 2):
        cache.put(bytes([key]), LRUCacheEntry(bytes([10 + key])))
    assert [cache.get(bytes([key])).value for key in (0, 1, 2)] == [b"\x0a", b"\x0b", b"\x0c"]
    assert cache.hits == 3


def test_should_put_if_absent(cache: NamedCache) -> None:
    cache.put(b"\x00", LRUCacheEntry(bytes([10])))
    cache.put_if_absent(b"\x00", LRUCacheEntry(bytes([20])))
    cache.put_if_absent(b"\x01", LRUCacheEntry(bytes([30])))
    assert cache.get(b"\x00").value == bytes([10])
    assert cache.get(b"\x01").value == bytes([30])


def test_should_delete_and_update_size(cache: NamedCache) -> None:
    cache.put(b"\x00", LRUCacheEntry(bytes([10])))
    assert cache.delete(b"\x00").value == bytes([10])
    assert cache.current_size_bytes == 0


def test_should_put_all(cache: NamedCache) -> None:
    cache.put_all([(bytes([k]), LRUCacheEntry(bytes([k]))) for k in (0, 1, 2)])
    assert [cache.get(bytes([k])).value for k in (0, 1, 2)] == [b"\x00", b"\x01", b"\x02"]


def test_should_overwrite_all(cache: NamedCache) -> None:
    cache.put_all([(b"\x00", LRUCacheEntry(bytes([v]))) for v in (0, 1, 2)])
    assert cache.get(b"\x00").value == bytes([2])
    assert cache.overwrites == 2


def test_should_evict_eldest_entry(cache: NamedCache) -> None:
    for key, value in [(0, 10), (1, 20), (2, 30)]:
        cache.put(bytes([key]), LRUCacheEntry(bytes([value])))
    cache.evict()
    assert cache.get(b"\x00") is None
    assert cache.size() == 2


def test_should_flush_dirt_entries_on_eviction(cache: NamedCache) -> None:
    flushed = []
    cache.put(b"\x00", LRUCacheEntry(bytes([10]), HEADERS, True, 0, 0, 0, ""))
    cache.put(b"\x01", LRUCacheEntry(bytes([20])))
    cache.put(b"\x02", LRUCacheEntry(bytes([30]), HEADERS, True, 0, 0, 0, ""))
    cache.listener = flushed.extend
    cache.evict()
    assert len(flushed) == 2
    assert flushed[0].key == b"\x00"
    assert flushed[0].entry.headers == HEADERS
    assert flushed[0].new_value == bytes([10])
    assert flushed[1].key == b"\x02"
    assert flushed[1].new_value == bytes([30])
    assert cache.flushes == 1


def test_should_not_throw_null_pointer_when_cache_is_empty_and_eviction_called(
        cache: NamedCache) -> None:
    cache.evict()


def test_should_throw_illegal_state_exception_when_trying_to_overwrite_dirty_entry_with_clean_entry(
        cache: NamedCache) -> None:
    cache.put(b"\x00", LRUCacheEntry(bytes([10]), HEADERS, True, 0, 0, 0, ""))
    with pytest.raises(ks.StoreError):
        cache.put(b"\x00", LRUCacheEntry(bytes([10]), ks.Headers(), False, 0, 0, 0, ""))


def test_should_remove_deleted_values_on_flush(cache: NamedCache) -> None:
    cache.listener = lambda dirty: None
    cache.put(b"\x00", LRUCacheEntry(None, HEADERS, True, 0, 0, 0, ""))
    cache.put(b"\x01", LRUCacheEntry(bytes([20]), ks.Headers(), True, 0, 0, 0, ""))
    cache.flush()
    assert cache.size() == 1
    assert cache.get(b"\x01") is not None


def test_should_be_reentrant_and_not_break_lru(cache: NamedCache) -> None:
    dirty = LRUCacheEntry(bytes([3]), ks.Headers(), True, 0, 0, 0, "")
    clean = LRUCacheEntry(bytes([3]))
    cache.put(b"\x00", dirty)
    cache.put(b"\x01", clean)
    cache.put(b"\x02", clean)
    node = node_size(b"\x02", clean)  # cache.head().size(): every node here has one size
    assert cache.current_size_bytes == 3 * node

    def listener(entries: list) -> None:
        cache.put(b"\x03", clean)
        cache.evict()  # evict key 1
        cache.evict()  # evict key 2

    cache.listener = listener
    assert cache.current_size_bytes == 3 * node
    cache.evict()  # evict key 0
    cache.put(b"\x04", dirty)

    assert cache.size() == 2
    assert cache.current_size_bytes == 2 * node
    assert cache.lru_keys() == [b"\x03", b"\x04"]  # tail (eldest) first, head (newest) last
    assert cache.first() is dirty

    cache.evict()  # evict key 3
    assert cache.lru_keys() == [b"\x04"]


def test_should_not_throw_illegal_argument_after_evicting_dirty_record_and_then_putting_new_record_with_same_key(  # noqa: E501
        cache: NamedCache) -> None:
    dirty = LRUCacheEntry(bytes([3]), ks.Headers(), True, 0, 0, 0, "")
    clean = LRUCacheEntry(bytes([3]))
    key = b"\x03"
    cache.listener = lambda entries: cache.put(key, clean)
    cache.put(key, dirty)
    cache.evict()


def test_should_return_null_if_key_is_null(cache: NamedCache) -> None:
    assert cache.get(None) is None
