"""run_batch's Python side without Spark: Arrow batches joined into a task's chunks, each
row's mark, a sink's partitions, the output batch a collector drains, and a worker's frozen
heap (pyarrow only, no SparkSession)."""

from __future__ import annotations

import random
import subprocess
import sys
from itertools import accumulate

import numpy as np
import pyarrow as pa
import pytest

from kslab.processor.partitioner import default_partition
from kslab.spark import _batch
from kslab.spark._task import RowCollector, _marks


def _batch_of(partitions: list[int], offsets: list[int], first: int) -> pa.RecordBatch:
    n = len(partitions)
    return pa.RecordBatch.from_pydict({
        "_q": pa.array([0] * n, pa.int32()),
        "partition": pa.array(partitions, pa.int32()),
        "offset": pa.array(offsets, pa.int64()),
        "timestamp": pa.array(range(first, first + n), pa.int64()),
        "key": pa.array([f"k{first + i}".encode() for i in range(n)], pa.binary()),
        "value": pa.array([None] * n, pa.binary()),
        "headers": pa.array([None] * n, pa.string()),
    })


def test_batches_are_joined_into_chunks_of_at_least_chunk_rows(monkeypatch):
    monkeypatch.setattr(_batch, "CHUNK_ROWS", 5)
    batches = [_batch_of([0, 0, 0], [-1, -1, -1], 3 * i) for i in range(3)]
    chunks = list(_batch._fed_columns(iter([*batches, _batch_of([], [], 9)]), False))
    assert [len(c["timestamp"]) for c in chunks] == [6, 3]
    assert chunks[0]["partition"] == 0 and chunks[0]["offset"] is None
    assert chunks[0]["_q"] is None and chunks[0]["headers"] == [None] * 6
    assert chunks[0]["key"] == [f"k{i}".encode() for i in range(6)]
    assert chunks[1]["timestamp"] == [6, 7, 8]


def test_a_chunk_of_several_partitions_or_given_offsets_keeps_each_row(monkeypatch):
    monkeypatch.setattr(_batch, "CHUNK_ROWS", 100)
    (chunk,) = _batch._fed_columns(iter([_batch_of([0, 0, 1], [5, 6, -1], 0)]), False)
    assert chunk["partition"] == [0, 0, 1]
    assert chunk["offset"] == [5, 6, -1]
    (chunk,) = _batch._fed_columns(iter([_batch_of([1, 1], [-1, -1], 0)]), True)
    assert chunk["_q"] == [0, 0] and chunk["offset"] == [-1, -1]


@pytest.mark.parametrize("start", [-(2**63), 0, 50])
def test_marks_are_the_running_highest_timestamp(start):
    rng = random.Random(start)
    for timestamps in ([1, 2, 2, 9], [5, 3, 7, 1, 8], [rng.randrange(100) for _ in range(500)],
                       sorted(rng.randrange(100) for _ in range(500))):
        expected = list(accumulate(timestamps, max, initial=start))[1:]
        assert _marks(np.array(timestamps, np.int64), start).tolist() == expected


def test_drain_builds_the_rows_in_the_order_kept():
    collector = RowCollector({"out": 2}, ["out"], 1, {"out": 0})
    collector.seq = 7
    collector.extend("out", [b"a", b"b"], [b"1", b"2"], None, [10, 5], [0, 1])
    collector.extend("changelog", [b"x"], [b"y"], None, [1], None)  # not kept: dropped
    collector.send("out", b"c", b"3", [("h", b"v")], 4, 1, "sink")
    batch = collector.drain()
    assert batch.to_pydict() == {
        "_t": [0, 0, 0], "partition": [0, 1, 1], "key": [b"a", b"b", b"c"],
        "value": [b"1", b"2", b"3"], "timestamp": [10, 5, 4],
        "headers": [None, None, '[{"key": "h", "value": "dg=="}]'],
        "task": [1, 1, 1], "seq": [7, 8, 9], "mark": [10, 10, 10]}
    assert len(collector) == 0 and collector.seq == 10
    collector.extend("out", [b"d"], [b"4"], None, [20], None)
    assert collector.drain().to_pydict()["seq"] == [10]


@pytest.mark.parametrize("distinct", [3, 400])
def test_a_key_columns_partitions_are_the_default_partitioners(distinct):
    keys = [f"key-{i % distinct}".encode() for i in range(1000)]
    collector = RowCollector({"out": 3}, ["out"], 0, {"out": 0})
    partitions = collector.partitions_of("out", keys)
    assert partitions == [default_partition(k, 3) for k in keys]
    collector.extend("out", keys, keys, None, list(range(1000)), partitions)
    rows = collector.drain().to_pydict()
    assert rows["partition"] == partitions and rows["key"] == keys and rows["value"] == keys


def test_a_none_key_declines_on_several_partitions_and_takes_0_on_one():
    collector = RowCollector({"out": 2, "one": 1}, ["out", "one"], 0, {"out": 0, "one": 1})
    assert collector.partitions_of("out", [b"a", None]) is None
    assert collector.partitions_of("one", [b"a", None]) == [0, 0]


def test_rows_sent_between_chunks_keep_their_place_and_marks():
    collector = RowCollector({"out": 1}, ["out"], 2, {"out": 0})
    collector.send("out", b"a", b"1", None, 5, None, "sink")
    collector.extend("out", [b"b", b"c"], [b"2", b"3"], None, [3, 8], None)
    collector.send("out", b"d", b"4", None, 6, None, "sink")
    assert len(collector) == 4
    rows = collector.drain().to_pydict()
    assert (rows["key"], rows["timestamp"], rows["mark"], rows["seq"]) == (
        [b"a", b"b", b"c", b"d"], [5, 3, 8, 6], [5, 5, 8, 8], [0, 1, 2, 3])


def test_a_worker_heap_is_frozen_once():
    code = ("import gc; from kslab.spark._workers import settle_worker_heap; "
            "settle_worker_heap(); first = gc.get_freeze_count(); x = [[] for _ in range(9)]; "
            "settle_worker_heap(); print(first > 10000, gc.get_freeze_count() == first)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["True", "True"]
