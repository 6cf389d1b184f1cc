"""The write-behind cache over Spark state, micro-batch after micro-batch (no Spark: a dict
stands in for the ``MapState``, counting the calls a micro-batch makes)."""

from __future__ import annotations

from zlib import crc32

import pytest

from kslab.errors import StoreError
from kslab.spark import _state
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


def batch(state: MapState, size: int | None, preload: bool = False,
          runs: tuple[int, int] = (0, 0)) -> SparkStateBackend:
    """The backend a micro-batch opens (calls counted from here)."""
    state.calls = 0
    return SparkStateBackend("s", state, preload=preload, size=size, runs=runs)


def reopen(state: MapState, last: SparkStateBackend, preload: bool = False) -> SparkStateBackend:
    """The backend the next micro-batch opens cold, from what ``last`` saved."""
    return batch(state, last.size, preload, (last.runs, last.logged))


def test_entries_survive_micro_batches_in_buckets_with_calls_bounded_by_buckets():
    state = MapState()
    first = batch(state, 0)
    for i in range(5000):
        first.put(b"k%d" % i, b"v%d" % i)
    assert first.write_back() == 5000
    assert len(state.entries) == BUCKETS  # more than a run may hold: every bucket written once
    assert first.size == 5000 and first.runs == 0
    second = reopen(state, first)
    assert second.get(b"k7") == b"v7"
    assert second.get(b"nope") is None
    read = len({crc32(b"k7") % BUCKETS, crc32(b"nope") % BUCKETS})
    assert state.calls == read  # one read per bucket, not per key
    assert second.get(b"k7") == b"v7" and second.get(b"nope") is None
    assert state.calls == read  # memory now
    second.put(b"k7", b"seven")
    assert second.delete(b"k8") == b"v8"
    second.put(b"new", b"n")  # a blind write: its bucket is read to tell it is new
    state.calls = 0
    assert second.write_back() == 3
    assert second.size == 5000  # one deleted, one added
    # the three changes are one run: one write, the buckets untouched
    assert state.calls == 2 and second.runs == 1 and len(state.entries) == BUCKETS + 1
    third = reopen(state, second)
    assert [third.get(k) for k in (b"k7", b"k8", b"new", b"k9")] == [b"seven", None, b"n", b"v9"]
    assert list(third.range(b"k998", b"k999")) == [(b"k998", b"v998"), (b"k999", b"v999")]
    assert third.approximate_num_entries() == 5000


def test_a_scan_merges_memory_with_every_bucket_and_an_emptied_bucket_goes(monkeypatch):
    monkeypatch.setattr(_state, "MAX_RUNS", 0)  # every write-back folds: buckets only
    state = MapState()
    first = batch(state, 0)
    first.put(b"a", b"1")
    first.put(b"b", b"2")
    first.write_back()
    assert first.runs == 0 and len(state.entries) == len({crc32(b"a") % BUCKETS,
                                                          crc32(b"b") % BUCKETS})
    second = reopen(state, first)
    second.put(b"a", b"changed")  # before the bucket is read: memory wins
    assert dict(second.range(None, None)) == {b"a": b"changed", b"b": b"2"}
    assert second.delete(b"a") == b"changed" and second.delete(b"b") == b"2"
    second.write_back()
    assert state.entries == {} and second.size == 0
    assert dict(reopen(state, second, preload=True).range(None, None)) == {}


def test_a_bulk_delete_reaches_spark_state():
    state = MapState()
    first = batch(state, 0)
    keys = [b"w%d" % i for i in range(40)]
    first.put_all([(key, b"x") for key in keys])
    first.write_back()
    second = reopen(state, first)
    second.delete_all(keys[:30])  # a quarter or more: the base class's bulk path
    second.write_back()
    assert second.size == 10
    assert dict(reopen(state, second).range(None, None)) == {key: b"x" for key in keys[30:]}


def test_runs_cost_what_changed_and_fold_when_they_outgrow_the_store():
    state = MapState()
    first = batch(state, 0)
    first.put_all([(b"k%d" % i, b"0") for i in range(10_000)])
    first.write_back()  # a run would outgrow the empty store: straight into the buckets
    assert first.runs == 0 and len(state.entries) == BUCKETS
    current = first
    for n in range(1, 6):  # 2,000 changes a micro-batch, kept open (no reads)
        changed = [(b"k%d" % i, b"%d" % n) for i in range(2000 * (n - 1), 2000 * n)]
        state.calls = 0
        current.put_all(changed)
        current.write_back()
        if n < 5:  # one write a micro-batch, whatever the store's size
            assert state.calls == 1 and current.runs == n and current.logged == 2000 * n
    # the fifth would take the runs past the store's 10,000 entries: folded, runs removed
    assert current.runs == 0 and current.folds == 2 and len(state.entries) == BUCKETS
    cold = reopen(state, current)
    assert [cold.get(b"k%d" % i) for i in (0, 2001, 9999)] == [b"1", b"2", b"5"]
    assert cold.size == 10_000


def test_a_cold_open_reads_the_runs_over_the_buckets():
    state = MapState()
    first = batch(state, 0)
    first.put_all([(b"k%d" % i, b"0") for i in range(5000)] + [(b"a", b"1"), (b"b", b"2")])
    first.write_back()  # into the buckets
    warm = reopen(state, first)
    for value in (b"x", b"y"):  # two runs: the later one wins
        warm.put(b"a", value)
        warm.write_back()
    warm.delete(b"b")
    warm.put(b"c", b"3")
    warm.write_back()
    assert warm.runs == 3 and warm.size == 5002
    cold = reopen(state, warm)  # reads the three runs, no bucket yet
    assert state.calls == 3
    assert [cold.get(k) for k in (b"a", b"b", b"c")] == [b"y", None, b"3"]
    assert state.calls == 3  # every key was in a run: no bucket read
    assert cold.get(b"k7") == b"0" and state.calls == 4  # one bucket read
    whole = reopen(state, warm, preload=True)
    assert whole.size == 5002 and whole.get(b"a") == b"y" and whole.get(b"b") is None
    assert dict(whole.prefix_scan(b"c")) == {b"c": b"3"}


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


def test_a_checkpoint_keeps_its_state_partitions_and_an_older_one_is_refused(tmp_path):
    from kslab.spark._groups import state_partitions
    from kslab.spark._plan import Stage

    stage = Stage(1, ("n",), ("t",), (), ("s",), tasks=3)
    assert state_partitions(str(tmp_path / "a"), stage) == 3  # one per task, remembered
    assert state_partitions(str(tmp_path / "a"), Stage(1, ("n",), ("t",), (), ("s",), 5)) == 3
    older = tmp_path / "b" / "subtopology-1" / "offsets"
    older.mkdir(parents=True)
    (older / "0").write_text("v1")  # a query directory with offsets and no kslab file
    with pytest.raises(StoreError, match=r"written by an older kslab .* start from a new "
                                         r"checkpoint_location"):
        state_partitions(str(tmp_path / "b"), stage)
