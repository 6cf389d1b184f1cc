"""The write-behind cache over Spark state, micro-batch after micro-batch (no Spark: a dict
stands in for the ``MapState``, counting the calls a micro-batch makes)."""

from __future__ import annotations

from zlib import crc32

import pytest

from kslab.errors import StoreError
from kslab.spark._state import BUCKETS, SparkStateBackend, TaskClocks


class MapState:
    """The part of PySpark's ``MapState`` the backend uses, over a dict; counts calls."""

    def __init__(self) -> None:
        self.entries: dict[bytes, bytes] = {}
        self.calls = 0

    def getValue(self, key):
        self.calls += 1
        value = self.entries.get(key[0])
        return None if value is None else (value,)

    def updateValue(self, key, value):
        self.calls += 1
        self.entries[key[0]] = value[0]

    def removeKey(self, key):
        self.calls += 1
        del self.entries[key[0]]

    def iterator(self):
        self.calls += 1
        return iter([((k,), (v,)) for k, v in self.entries.items()])


def batch(state: MapState, size: int | None, preload: bool = False) -> SparkStateBackend:
    """The backend a micro-batch opens (calls counted from here)."""
    state.calls = 0
    return SparkStateBackend("s", state, preload=preload, size=size)


def test_entries_survive_micro_batches_in_buckets_with_calls_bounded_by_buckets():
    state = MapState()
    first = batch(state, 0)
    for i in range(2000):
        first.put(b"k%d" % i, b"v%d" % i)
    assert first.write_back() == 2000
    assert len(state.entries) == BUCKETS  # every bucket written once
    assert first.size == 2000
    second = batch(state, first.size)
    assert second.get(b"k7") == b"v7"
    assert second.get(b"nope") is None
    read = len({crc32(b"k7") % BUCKETS, crc32(b"nope") % BUCKETS})
    assert state.calls == read  # one read per bucket, not per key
    assert second.get(b"k7") == b"v7" and second.get(b"nope") is None
    assert state.calls == read  # memory now
    second.put(b"k7", b"seven")
    assert second.delete(b"k8") == b"v8"
    second.put(b"new", b"n")  # a blind write: its bucket is read before it is written
    second.write_back()
    assert second.size == 2000  # one deleted, one added
    third = batch(state, second.size)
    assert [third.get(k) for k in (b"k7", b"k8", b"new", b"k9")] == [b"seven", None, b"n", b"v9"]
    assert list(third.range(b"k998", b"k999")) == [(b"k998", b"v998"), (b"k999", b"v999")]
    assert third.approximate_num_entries() == 2000


def test_a_scan_merges_memory_with_every_bucket_and_an_emptied_bucket_goes():
    state = MapState()
    first = batch(state, 0)
    first.put(b"a", b"1")
    first.put(b"b", b"2")
    first.write_back()
    second = batch(state, 2)
    second.put(b"a", b"changed")  # before the bucket is read: memory wins
    assert dict(second.range(None, None)) == {b"a": b"changed", b"b": b"2"}
    assert second.delete(b"a") == b"changed" and second.delete(b"b") == b"2"
    second.write_back()
    assert state.entries == {} and second.size == 0
    assert dict(batch(state, 0, preload=True).range(None, None)) == {}


def test_a_bulk_delete_reaches_spark_state():
    state = MapState()
    first = batch(state, 0)
    keys = [b"w%d" % i for i in range(40)]
    first.put_all([(key, b"x") for key in keys])
    first.write_back()
    second = batch(state, 40)
    second.delete_all(keys[:30])  # a quarter or more: the base class's bulk path
    second.write_back()
    assert second.size == 10
    assert dict(batch(state, 10).range(None, None)) == {key: b"x" for key in keys[30:]}


class ValueState:
    def __init__(self, value):
        self.value = value

    def exists(self):
        return self.value is not None

    def get(self):
        return (self.value,)


def test_a_checkpoint_of_the_per_key_layout_is_refused_by_name():
    with pytest.raises(StoreError, match=r"written by an older kslab .* start from a new "
                                         r"checkpoint_location"):
        TaskClocks(ValueState('{"stream_time": 5}')).load()
    assert TaskClocks(ValueState(None)).load() is None
