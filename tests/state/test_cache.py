"""The record cache, translated from Kafka's ThreadCacheTest and NamedCacheTest.

Sizes are Java's: an entry counts ``len(key) + 24`` (LRU node) ``+ 1 + len(value) + 20 +
len(topic) + headers`` bytes.
"""

from __future__ import annotations

import pytest

from kslab import Headers
from kslab.errors import StoreError
from kslab.state.cache import LRUCacheEntry, NamedCache, ThreadCache, node_size, total_cache_size

NS, NS1, NS2 = "0.0-namespace", "0.1-namespace", "0.2-namespace"


def memory_cache_entry_size(key: bytes, value: bytes, topic: str = "") -> int:
    """ThreadCacheTest.memoryCacheEntrySize (it counts the key twice, so it over-estimates)."""
    return len(key) + len(value) + 1 + 8 + 8 + 4 + len(topic) + len(key) + 8 + 8 + 8


def dirty(value: bytes) -> LRUCacheEntry:
    return LRUCacheEntry(value, None, True, -1, -1, -1, "")


def clean(value: bytes) -> LRUCacheEntry:
    return LRUCacheEntry(value)


def test_entry_sizes_are_javas():
    assert node_size(b"\x01", clean(b"\x00")) == 47  # ThreadCacheTest.shouldResizeAndShrink
    assert clean(b"\x00").size == 22
    headered = LRUCacheEntry(b"vv", Headers([("h", b"xyz")]), True, 3, 4, 5, "topic")
    assert headered.size == 1 + 2 + 20 + 5 + 1 + 3
    assert LRUCacheEntry(None, None, True).size == 21


def test_basic_put_get_and_stats():
    pairs = [(f"K{i}".encode(), f"V{i}".encode()) for i in range(1, 6)]
    cache = ThreadCache(len(pairs) * memory_cache_entry_size(*pairs[0]))
    for key, value in pairs:
        cache.put(NS, key, dirty(value))
    for key, value in pairs:
        assert cache.get(NS, key).value == value
    assert (cache.gets, cache.puts, cache.evicts, cache.flushes) == (5, 5, 0, 0)


def test_evict_flushes_the_eldest_dirty_entry():
    received = []
    pairs = [(f"K{i}".encode(), f"V{i}".encode()) for i in range(1, 6)]
    cache = ThreadCache(memory_cache_entry_size(*pairs[0]))
    cache.add_dirty_entry_flush_listener(
        NS, lambda entries: received.extend((e.key, e.new_value) for e in entries))
    for key, value in pairs:
        cache.put(NS, key, LRUCacheEntry(value, None, True, 1, 1, 1, ""))
    assert received == [(b"K1", b"V1"), (b"K2", b"V2"), (b"K3", b"V3"), (b"K4", b"V4")]
    assert cache.evicts == 4


def test_delete_and_no_flush_after_delete():
    cache = ThreadCache(10000)
    cache.put(NS, b"\x00", dirty(b"\x00"))
    assert cache.delete(NS, b"\x00").value == b"\x00"
    assert cache.get(NS, b"\x00") is None
    received = []
    cache.add_dirty_entry_flush_listener(NS, received.extend)
    cache.flush(NS)
    assert (received, cache.flushes) == ([], 1)
    assert cache.delete(NS, b"\x09") is None
    assert cache.delete("unknown", b"\x09") is None


def test_namespaces_do_not_clash():
    cache = ThreadCache(10000)
    cache.put("name", b"\x01", dirty(b"\x01"))
    cache.put("other", b"\x01", dirty(b"\x02"))
    assert cache.get("name", b"\x01").value == b"\x01"
    assert cache.get("other", b"\x01").value == b"\x02"


def test_range_skips_entries_evicted_meanwhile():
    size = node_size(b"\x01", dirty(b"\x01"))
    cache = ThreadCache(size * 5)
    cache.add_dirty_entry_flush_listener(NS, lambda entries: None)
    for i in range(6):
        cache.put(NS, bytes([i]), dirty(bytes([i])))
    assert cache.size() == 5  # key 0 was evicted
    assert [k for k, _ in cache.range(NS, bytes([0]), bytes([5]))] == [bytes([i])
                                                                       for i in range(1, 6)]
    assert [k for k, _ in cache.range(NS, bytes([1]), bytes([4]), to_inclusive=False)] == [
        b"\x01", b"\x02", b"\x03"]
    assert [k for k, _ in cache.reverse_range(NS, bytes([1]), bytes([3]))] == [
        b"\x03", b"\x02", b"\x01"]
    assert next(k for k, _ in cache.all(NS)) == b"\x01"
    assert next(k for k, _ in cache.reverse_all(NS)) == b"\x05"
    assert list(cache.range("missing", None, None)) == []


def test_flush_hands_over_only_dirty_entries_of_the_namespace():
    cache = ThreadCache(100000)
    received = []
    cache.add_dirty_entry_flush_listener(NS1, lambda es: received.extend(e.key for e in es))
    for key in (b"\x00", b"\x01", b"\x02"):
        cache.put(NS1, key, dirty(key))
    cache.put(NS2, b"\x04", dirty(b"\x04"))
    cache.flush(NS1)
    assert received == [b"\x00", b"\x01", b"\x02"]
    received.clear()
    for key in (b"\x05", b"\x06"):
        cache.put(NS1, key, clean(key))
    cache.flush(NS1)
    assert received == []


@pytest.mark.parametrize("budget", [0, 1])
def test_evicts_immediately_when_the_cache_is_tiny(budget):
    cache = ThreadCache(budget)
    received = []
    cache.add_dirty_entry_flush_listener(NS, received.extend)
    cache.put(NS, b"\x00", dirty(b"\x00"))
    assert len(received) == 1
    cache.flush(NS)  # nothing left to flush
    assert len(received) == 1
    cache.put(NS, b"\x01", clean(b"\x00"))  # a clean eviction forwards nothing
    assert len(received) == 1


def test_put_all_and_put_if_absent_evict_too():
    received = []
    cache = ThreadCache(1)
    cache.add_dirty_entry_flush_listener(NS, received.extend)
    cache.put_all(NS, [(b"\x00", dirty(b"\x05")), (b"\x01", dirty(b"\x06"))])
    assert (cache.evicts, len(received)) == (2, 2)
    big = ThreadCache(100000)
    assert big.put_if_absent(NS, b"\x0a", dirty(b"\x1e")) is None
    assert big.put_if_absent(NS, b"\x0a", dirty(b"\x08")).value == b"\x1e"
    assert big.get(NS, b"\x0a").value == b"\x1e"


def test_eviction_stops_when_a_flush_filled_another_namespace():
    cache = ThreadCache(100)
    cache.add_dirty_entry_flush_listener(
        NS, lambda entries: cache.put(NS1, b"\x00", dirty(bytes(2))))
    cache.add_dirty_entry_flush_listener(NS1, lambda entries: None)
    cache.add_dirty_entry_flush_listener(NS2, lambda entries: None)
    cache.put(NS2, b"\x01", dirty(bytes(1)))
    cache.put(NS, b"\x01", dirty(bytes(1)))
    remaining = 100 - cache.size_bytes()
    cache.put(NS, b"\x02", dirty(bytes(remaining + 100)))  # returns: no endless loop
    # NS1 evicted its own entry, NS emptied itself; only NS2's 47 bytes are left
    assert cache.size_bytes() == 47
    assert cache.get(NS2, b"\x01") is not None


def test_close_resize_and_size_bytes():
    cache = ThreadCache(100000)
    cache.put(NS1, b"\x01", clean(b"\x01"))
    cache.put(NS2, b"\x01", clean(b"\x01"))
    assert cache.size() == 2
    cache.close(NS2)
    assert cache.size() == 1
    assert cache.get(NS2, b"\x01") is None
    assert cache.get(NS, None) is None
    shrink = ThreadCache(10000)
    for key in (b"\x01", b"\x02", b"\x03"):
        shrink.put(NS, key, clean(b"\x00"))
    assert shrink.size_bytes() == 141
    shrink.resize(100)
    assert shrink.size_bytes() == 94
    shrink.put(NS1, b"\x04", clean(b"\x00"))
    assert shrink.size_bytes() == 94


def test_named_cache_lru_order_and_stats():
    cache = NamedCache(NS)
    for i in range(1, 6):
        cache.put(f"K{i}".encode(), LRUCacheEntry(f"V{i}".encode(), None, True, 1, 1, 1, ""))
        assert cache.first().value == f"V{i}".encode()
        assert cache.last().value == b"V1"
    assert (cache.flushes, cache.hits, cache.misses, cache.overwrites) == (0, 0, 0, 0)
    cache.get(b"K1")
    cache.get(b"nope")
    cache.put(b"K2", dirty(b"x"))
    assert cache.lru_keys() == [b"K3", b"K4", b"K5", b"K1", b"K2"]
    assert (cache.hits, cache.misses, cache.overwrites) == (1, 1, 1)


def test_named_cache_size_delete_and_flush_of_deletes():
    cache = NamedCache(NS)
    value = clean(b"\x00")
    for key in (b"\x00", b"\x01", b"\x02"):
        cache.put(key, value)
    assert cache.current_size_bytes == (value.size + 25) * 3
    cache.delete(b"\x01")
    assert cache.current_size_bytes == (value.size + 25) * 2
    flushed = []
    cache.listener = lambda entries: flushed.extend((e.key, e.new_value) for e in entries)
    cache.put(b"\x09", dirty(b"\x09"))
    cache.put(b"\x08", LRUCacheEntry(None, None, True))
    cache.flush()
    assert flushed == [(b"\x09", b"\x09"), (b"\x08", None)]
    assert cache.get(b"\x08") is None  # a flushed delete leaves the cache
    assert cache.get(b"\x09").is_dirty is False


def test_named_cache_eviction_flushes_every_dirty_entry_evicted_first():
    cache = NamedCache(NS)
    flushed = []
    cache.listener = lambda entries: flushed.append([e.key for e in entries])
    cache.put(b"\x00", dirty(b"\x00"))
    cache.put(b"\x01", dirty(b"\x01"))
    cache.put(b"\x02", clean(b"\x02"))
    cache.put(b"\x00", dirty(b"\x0a"))  # \x00 becomes the most recent; \x01 the eldest
    cache.evict()
    assert flushed == [[b"\x01", b"\x00"]]
    assert cache.lru_keys() == [b"\x02", b"\x00"]
    NamedCache("empty").evict()  # nothing to evict is fine


def test_named_cache_refuses_clean_over_dirty_and_flush_without_listener():
    cache = NamedCache(NS)
    cache.put(b"\x00", dirty(b"\x00"))
    with pytest.raises(StoreError, match="clean entry for key"):
        cache.put(b"\x00", clean(b"\x00"))
    with pytest.raises(StoreError, match="No listener for namespace"):
        cache.flush()


def test_named_cache_is_reentrant_and_keeps_lru_order():
    cache = NamedCache(NS)
    d = LRUCacheEntry(b"\x03", None, True, 0, 0, 0, "")
    c = LRUCacheEntry(b"\x03")
    cache.put(b"\x00", d)
    cache.put(b"\x01", c)
    cache.put(b"\x02", c)

    def listener(entries):
        cache.put(b"\x03", c)
        cache.evict()
        cache.evict()

    cache.listener = listener
    cache.evict()
    cache.put(b"\x04", d)
    assert cache.lru_keys() == [b"\x03", b"\x04"]
    assert cache.current_size_bytes == 2 * node_size(b"\x04", d)
    cache.evict()
    assert cache.lru_keys() == [b"\x04"]


def test_total_cache_size_reads_the_deprecated_alias():
    assert total_cache_size({}) == 10 * 1024 * 1024
    assert total_cache_size({"cache.max.bytes.buffering": 5}) == 5
    assert total_cache_size({"cache.max.bytes.buffering": 5,
                             "statestore.cache.max.bytes": 7}) == 7


def _bookkeeping(cache: ThreadCache, ns: str) -> tuple[object, ...]:
    named = cache.named_cache(ns)
    assert named is not None
    return (cache.puts, cache.gets, cache.evicts, cache.flushes, cache.size_bytes(),
            named.hits, named.misses, named.overwrites, named.flushes,
            named.current_size_bytes, named.lru_keys(), named.dirty_keys(),
            # internal on purpose: the named cache's own LRU entries
            [(e.value, e.is_dirty) for e in named._entries.values()])


def test_replay_leaves_what_gets_puts_and_flushes_leave():
    """A batch run's replay of the cache (the held cached writes': each key's final clean
    entry in the order of its last use, the counters given, the commits' flushes counted by
    ``count_noop_flushes``) against the record path's get, put and flush of each update."""
    one, two = ThreadCache(10_000), ThreadCache(10_000)
    flushed: list[list[bytes]] = []
    one.add_dirty_entry_flush_listener(NS, lambda entries: None)
    two.add_dirty_entry_flush_listener(NS, lambda entries: flushed.append(
        [e.key for e in entries]))
    assert sorted(two.all(NS)) == [] and sorted(one.all(NS)) == []  # both keep sorted keys
    updates = [(b"a", b"1"), (b"b", b"22"), (b"a", b"333"), (b"c", b"4"), (b"b", b"5")]
    for key, value in updates:
        two.get(NS, key)
        two.put(NS, key, dirty(value))
        two.flush(NS)
    assert flushed == [[b"a"], [b"b"], [b"a"], [b"c"], [b"b"]]  # what the flushes forward
    one.replay(NS, [(b"a", clean(b"333")), (b"c", clean(b"4")), (b"b", clean(b"5"))],
               gets=5, hits=2, puts=5, overwrites=2)
    one.count_noop_flushes(NS, 5)  # the commit after each update
    assert _bookkeeping(one, NS) == _bookkeeping(two, NS)
    assert [k for k, _ in one.all(NS)] == [b"a", b"b", b"c"]
    # keys: 1 + 24 bytes each; entries: 21 + the value ("333", "4", "5")
    assert _bookkeeping(one, NS)[:5] == (5, 5, 0, 5, 3 * 25 + (21 + 3) + (21 + 1) + (21 + 1))
