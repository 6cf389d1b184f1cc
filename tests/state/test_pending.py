"""PendingWrites: the one ordered, last-write-wins map of writes held until a flush."""

from __future__ import annotations

import pytest

from kslab.state.cache import LRUCacheEntry, ThreadCache
from kslab.state.pending import PendingWrites


def test_item_assignment_keeps_a_key_where_it_was_first_held_with_its_last_write():
    pending: PendingWrites[bytes, int] = PendingWrites()
    pending[b"a"] = 1
    pending[b"b"] = 2
    pending[b"a"] = 3
    assert list(pending.items()) == [(b"a", 3), (b"b", 2)]
    assert len(pending) == 2
    assert pending.get(b"a") == 3
    assert pending.get(b"c") is None


def test_hold_last_moves_a_key_to_the_end_of_the_flush_order():
    pending: PendingWrites[bytes, int] = PendingWrites()
    pending.hold_last(b"a", 1)
    pending.hold_last(b"b", 2)
    pending.hold_last(b"a", 3)
    pending.hold_last(b"c", 4)
    assert list(pending.items()) == [(b"b", 2), (b"a", 3), (b"c", 4)]


def test_drain_hands_over_every_write_in_order_then_leaves_the_map_empty():
    pending: PendingWrites[str, tuple[int, int]] = PendingWrites()
    pending["x"] = (1, 10)
    pending["y"] = (2, 20)
    pending["x"] = (3, 30)
    assert list(pending.drain()) == [("x", (3, 30)), ("y", (2, 20))]
    assert pending == {}
    assert list(pending.drain()) == []


def test_a_drain_that_fails_part_way_leaves_every_write_held():
    pending: PendingWrites[str, int] = PendingWrites()
    pending["x"] = 1
    pending["y"] = 2
    taken: list[str] = []
    with pytest.raises(RuntimeError, match="refused y"):
        for key, _write in pending.drain():
            if key == "y":
                raise RuntimeError("refused y")
            taken.append(key)
    assert taken == ["x"]
    assert list(pending.items()) == [("x", 1), ("y", 2)]
    assert list(pending.drain()) == [("x", 1), ("y", 2)]
    assert pending == {}


def test_drop_forgets_every_write_in_place():
    pending: PendingWrites[str, int] = PendingWrites()
    alias = pending  # a holder's reference (a task's context keeps its changelog batch)
    pending["x"] = 1
    pending.drop()
    assert alias == {} and alias is pending
    pending["y"] = 2
    assert list(alias.items()) == [("y", 2)]


def test_last_of_holds_each_keys_last_write_in_first_dirtied_order():
    last = PendingWrites.last_of([b"k", b"j", b"k", b"i", b"j"], range(5))
    assert type(last) is PendingWrites
    assert list(last.items()) == [(b"k", 2), (b"j", 4), (b"i", 3)]
    with pytest.raises(ValueError):
        PendingWrites.last_of([b"k"], range(2))


def test_it_is_a_dict_with_no_attributes_of_its_own():
    pending: PendingWrites[str, int] = PendingWrites()
    assert isinstance(pending, dict)
    assert not hasattr(pending, "__dict__")
    assert repr(PendingWrites.last_of("ab", [1, 2])) == "PendingWrites({'a': 1, 'b': 2})"


def test_a_record_caches_dirty_entries_are_its_pending_writes_flushed_in_last_write_order():
    cache = ThreadCache(10_000)
    flushed: list[list[tuple[bytes, bytes | None]]] = []
    cache.add_dirty_entry_flush_listener(
        "0_0-store", lambda dirty: flushed.append([(e.key, e.new_value) for e in dirty]))
    for key, value in ((b"a", b"1"), (b"b", b"2"), (b"a", b"3"), (b"c", None)):
        cache.put("0_0-store", key, LRUCacheEntry(value, is_dirty=True))
    named = cache.named_cache("0_0-store")
    assert named is not None
    assert named.dirty_keys() == [b"b", b"a", b"c"]
    cache.flush("0_0-store")
    assert flushed == [[(b"b", b"2"), (b"a", b"3"), (b"c", None)]]
    assert named.dirty_keys() == []
    assert named.lru_keys() == [b"b", b"a"]  # the delete left the cache with its flush
    cache.flush("0_0-store")
    assert flushed == [[(b"b", b"2"), (b"a", b"3"), (b"c", None)]]


def test_a_replayed_entry_of_a_dirty_key_is_flushed_in_the_keys_place_in_the_dirty_order():
    cache = ThreadCache(10_000)
    flushed: list[list[tuple[bytes, bytes | None]]] = []
    cache.add_dirty_entry_flush_listener(
        "0_0-store", lambda dirty: flushed.append([(e.key, e.new_value) for e in dirty]))
    cache.put("0_0-store", b"a", LRUCacheEntry(b"1", is_dirty=True))
    cache.put("0_0-store", b"b", LRUCacheEntry(b"2", is_dirty=True))
    cache.replay("0_0-store", [(b"a", LRUCacheEntry(b"9"))], gets=1, hits=1, puts=0,
                 overwrites=0)
    named = cache.named_cache("0_0-store")
    assert named is not None
    assert named.lru_keys() == [b"b", b"a"]
    assert named.dirty_keys() == [b"a", b"b"]
    cache.flush("0_0-store")
    assert flushed == [[(b"a", b"9"), (b"b", b"2")]]
