"""``PartitionGroup.run_after``: the records a task takes next, one after another, from the
partition it took its last record from (the live runtime runs them as one chunk).

Taking a record with ``next_record`` and then the run behind it must take the records in
exactly the order ``next_record`` alone takes them, for any timestamps (ties go to the
partition registered first); a run never starts where a record would have to be deserialized
to know its timestamp, and enforced processing is counted once per record taken, as the
record path counts it before each.
"""

from __future__ import annotations

import logging

from hypothesis import given, settings
from hypothesis import strategies as st

from kslab.core.partition_group import PartitionGroup
from kslab.core.record_queue import RecordDeserializer, RecordQueue
from kslab.core.task_contracts import TaskMetrics
from kslab.serdes import String


def _queue(topic: str, timestamps: list[int], extractor=None) -> RecordQueue:
    deserializer = RecordDeserializer(topic, String(), String(), extractor, "log_and_fail",
                                      lambda raw, error: None)
    queue = RecordQueue(topic, 0, None, deserializer)
    for offset, timestamp in enumerate(timestamps):
        queue.add((topic, 0, offset, timestamp, b"k", b"v", None))
    return queue


def _group(columns: dict[str, list[int]], idle_ms: int = -1, extractor=None
           ) -> tuple[PartitionGroup, TaskMetrics]:
    queues = {(topic, 0): _queue(topic, stamps, extractor) for topic, stamps in columns.items()}
    metrics = TaskMetrics()
    return PartitionGroup(queues, idle_ms, metrics), metrics


def _one_by_one(columns: dict[str, list[int]]) -> list[tuple[str, int]]:
    group, _ = _group(columns)
    taken = []
    while (found := group.next_record()) is not None:
        taken.append((found[0].topic, found[1][3][2]))
    return taken


def _with_runs(columns: dict[str, list[int]]) -> tuple[list[tuple[str, int]], int]:
    """The records in the order taken when each ``next_record`` is followed by its run, and
    how many were taken in runs."""
    group, _ = _group(columns)
    taken = []
    in_runs = 0
    while (found := group.next_record()) is not None:
        taken.append((found[0].topic, found[1][3][2]))
        run = group.run_after()
        if run is not None:
            queue, raws = run
            taken += [(queue.topic, raw[2]) for raw in raws]
            in_runs += len(raws)
            for raw in raws:  # (the engine processes them: partition and stream time go on)
                queue.partition_time = max(queue.partition_time, raw[3])
                group.advance(raw[3])
    return taken, in_runs


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c"]),
                       st.lists(st.integers(0, 12), max_size=12), min_size=1))
def test_runs_take_the_records_in_the_order_next_record_takes_them(columns):
    taken, _ = _with_runs(columns)
    assert taken == _one_by_one(columns)


def test_a_partition_ahead_of_the_others_runs_until_their_heads():
    # a: 1 2 3 4 8 9, b: 5 6 (registered after a: a tie would go to a)
    taken, in_runs = _with_runs({"a": [1, 2, 3, 4, 8, 9], "b": [5, 6]})
    assert taken == [("a", 0), ("a", 1), ("a", 2), ("a", 3), ("b", 0), ("b", 1),
                     ("a", 4), ("a", 5)]
    assert in_runs == 5  # a's 2, 3, 4 behind its first; b's 6; a's 9 (a head each time)


def test_a_tie_runs_on_only_in_the_partition_registered_first():
    group, _ = _group({"a": [1, 5, 5], "b": [5]})
    assert group.next_record()[0].topic == "a"
    queue, raws = group.run_after()
    assert (queue.topic, [raw[2] for raw in raws]) == ("a", [1, 2])  # 5 = b's head: a first
    group, _ = _group({"b": [5], "a": [1, 5, 5]})
    assert group.next_record()[0].topic == "a"
    assert group.run_after() is None  # b, registered first, takes the tie at 5


def test_an_empty_partition_bounds_nothing():
    group, _ = _group({"orders": [3, 1, 2, 7], "customers": []})
    group.next_record()
    queue, raws = group.run_after()
    assert [raw[3] for raw in raws] == [1, 2, 7]
    assert len(queue) == 0


def test_no_run_where_a_timestamp_needs_deserializing():
    # a timestamp extractor gives the timestamps
    group, _ = _group({"a": [1, 2, 3]}, extractor=lambda record, partition_time: 0)
    group.next_record()
    assert group.run_after() is None
    # a negative timestamp fails on the record path: the run stops before it
    group, _ = _group({"a": [1, 2, -1, 4]})
    group.next_record()
    assert [raw[3] for raw in group.run_after()[1]] == [2]
    # another partition's head not loaded yet (records added after the last next_record)
    group, _ = _group({"a": [1, 2, 3], "b": []})
    group.next_record()
    group.queues[("b", 0)].add(("b", 0, 0, 9, b"k", b"v", None))
    assert group.run_after() is None
    assert group.next_record()[0].topic == "a"  # (now loaded: the run goes on)
    assert [raw[3] for raw in group.run_after()[1]] == [3]


def test_put_back_returns_the_records_not_run_to_the_front_in_order():
    group, _ = _group({"a": [1, 2, 3, 4]})
    group.next_record()
    queue, raws = group.run_after()
    queue.put_back(raws[1:])
    assert [group.next_record()[1][3][2] for _ in range(2)] == [2, 3]
    assert group.next_record() is None


def test_enforced_processing_is_counted_for_every_record_of_a_run(caplog):
    group, metrics = _group({"orders": [1, 2, 3, 4], "customers": []}, idle_ms=0)
    with caplog.at_level(logging.INFO, logger="kslab.core"):
        assert group.ready_to_process(1_000, lambda tp: 0) is True
        group.next_record()
        assert len(group.run_after()[1]) == 3
    assert metrics.enforced_processing == 4  # as four ready_to_process calls count them
    assert caplog.text.count("continuing to process although [('customers', 0)]") == 4
    # without enforcement nothing is counted
    group, metrics = _group({"orders": [1, 2, 3], "customers": [9]}, idle_ms=0)
    assert group.ready_to_process(1_000, lambda tp: 0) is True
    group.next_record()
    assert len(group.run_after()[1]) == 2
    assert metrics.enforced_processing == 0
