"""Replayed rows between sub-topologies: stamped by the writer, dropped once by the reader
(no Spark: the two halves that run in the writing and the reading task)."""

from __future__ import annotations

from kslab.spark._replay import SEQ_HEADER, drop_replays, stamp


def written(topics, first_seq, stage=0, task=1, headers=None):
    """Collector columns as a writing task leaves them, stamped for topic 'rep'."""
    n = len(topics)
    columns = {"topic": list(topics), "seq": list(range(first_seq, first_seq + n)),
               "headers": list(headers or [None] * n)}
    stamp(columns, ["rep"], stage, task)
    return columns


def test_a_replayed_batch_is_dropped_and_the_header_stripped():
    first = written(["rep", "out", "rep"], 0, headers=[[{"key": "h", "value": b"1"}], None, None])
    assert first["headers"][1] is None  # a topic no sub-topology reads: not stamped
    assert [h["key"] for h in first["headers"][0]] == ["h", SEQ_HEADER]
    seen: dict[str, int] = {}
    keep, headers = drop_replays(["rep", "rep"], [0, 0],
                                 [first["headers"][0], first["headers"][2]], ["rep"], seen)
    assert keep == [True, True]
    assert headers == [[{"key": "h", "value": b"1"}], None]  # the user's header kept
    assert seen == {"rep/0/0/1": 2}
    # the batch runs again (seq 0..2 again) and goes on (seq 3): only the new row is kept
    again = written(["rep", "out", "rep", "rep"], 0)
    rows = [h for t, h in zip(again["topic"], again["headers"], strict=True) if t == "rep"]
    keep, headers = drop_replays(["rep"] * 3, [0] * 3, rows, ["rep"], seen)
    assert keep == [False, False, True]
    assert headers == [None, None, None]
    assert seen == {"rep/0/0/1": 3}


def test_writers_are_told_apart_and_unstamped_rows_kept():
    one, two = written(["rep"], 5, task=0), written(["rep"], 5, task=1)
    seen = {"rep/0/0/0": 5}
    keep, _ = drop_replays(["rep", "rep", "rep", "src"], [0, 0, 0, 0],
                           [one["headers"][0], two["headers"][0], None, None], ["rep"], seen)
    assert keep == [False, True, True, True]
    assert seen == {"rep/0/0/0": 5, "rep/0/0/1": 5}


def test_one_writers_partitions_are_told_apart():
    """A reader of several partitions (a cycle's group) may take one writer's rows of two
    partitions in another order than written: each partition keeps its own mark."""
    rows = written(["rep", "rep", "rep"], 7)  # seq 7, 8, 9: 7 and 9 to partition 1, 8 to 0
    seen: dict[str, int] = {}
    keep, _ = drop_replays(["rep"] * 3, [0, 1, 1],
                           [rows["headers"][1], rows["headers"][0], rows["headers"][2]],
                           ["rep"], seen)
    assert keep == [True, True, True]
    assert seen == {"rep/0/0/1": 8, "rep/1/0/1": 9}
    keep, _ = drop_replays(["rep"] * 2, [1, 0], [rows["headers"][2], rows["headers"][1]],
                           ["rep"], seen)
    assert keep == [False, False]  # both seen already (a replay)
