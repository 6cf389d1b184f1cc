"""``PartitionGroup.ready_to_process``: Kafka's ``readyToProcess`` (KIP-695).

An empty input partition holds a task back while its fetched lag is unknown or positive, and,
once known to be caught up, until ``max.task.idle.ms`` has passed; then the task goes on with
the partitions that have records (enforced processing, counted). ``max.task.idle.ms`` -1
disables all waiting. Without a ``lag_of`` (the test driver) every partition is caught up.
"""

from __future__ import annotations

import logging

import pytest

from kslab.core.partition_group import PartitionGroup
from kslab.core.record_queue import RecordQueue
from kslab.core.task_contracts import TaskMetrics

LEFT, RIGHT = ("left", 0), ("right", 0)


def _group(idle_ms: int, *, left: int = 1, right: int = 0) -> tuple[PartitionGroup, TaskMetrics]:
    queues = {tp: RecordQueue(tp[0], tp[1], None, None) for tp in (LEFT, RIGHT)}
    for tp, count in ((LEFT, left), (RIGHT, right)):
        for offset in range(count):
            queues[tp].add((tp[0], tp[1], offset, 100 + offset, b"k", b"v", None))
    metrics = TaskMetrics()
    return PartitionGroup(queues, idle_ms, metrics), metrics


def _lags(**by_topic: int | None):
    return lambda tp: by_topic[tp[0]]


@pytest.mark.parametrize("lag", [None, 5])
def test_an_empty_partition_not_known_caught_up_holds_the_task_back(lag):
    group, metrics = _group(0)
    assert group.ready_to_process(1_000, _lags(right=lag)) is False
    assert metrics.enforced_processing == 0


def test_a_caught_up_empty_partition_lets_the_task_go_on_at_once_with_idle_0(caplog):
    group, metrics = _group(0)
    with caplog.at_level(logging.INFO, logger="kslab.core"):
        assert group.ready_to_process(1_000, _lags(right=0)) is True
    assert metrics.enforced_processing == 1
    assert metrics.as_dict()["enforced-processing-total"] == 1
    assert "('right', 0)" in caplog.text and "max.task.idle.ms=0" in caplog.text


def test_disabled_idling_never_waits_even_for_an_unknown_lag():
    group, metrics = _group(-1)
    assert group.ready_to_process(1_000, _lags(right=None)) is True
    assert metrics.enforced_processing == 0


def test_every_partition_buffered_is_ready_without_enforcing():
    group, metrics = _group(0, right=1)
    assert group.ready_to_process(1_000, _lags(left=None, right=None)) is True
    assert metrics.enforced_processing == 0


def test_the_idle_deadline_starts_when_the_partition_is_first_seen_caught_up():
    group, metrics = _group(500)
    assert group.ready_to_process(1_000, _lags(right=None)) is False  # lag unknown: no deadline
    assert group.ready_to_process(2_000, _lags(right=0)) is False  # deadline 2_500
    assert group.ready_to_process(2_499, _lags(right=0)) is False
    assert group.ready_to_process(2_500, _lags(right=0)) is True
    assert metrics.enforced_processing == 1


def test_a_partition_that_gets_records_or_lag_again_starts_a_new_deadline():
    group, _ = _group(500)
    assert group.ready_to_process(1_000, _lags(right=0)) is False  # deadline 1_500
    assert group.ready_to_process(1_200, _lags(right=3)) is False  # lag again: deadline gone
    assert group.ready_to_process(1_600, _lags(right=0)) is False  # a new one: 2_100
    assert group.ready_to_process(2_100, _lags(right=0)) is True


def test_nothing_buffered_is_not_ready_even_past_every_deadline():
    group, metrics = _group(0, left=0)
    assert group.ready_to_process(1_000, _lags(left=0, right=0)) is False
    assert metrics.enforced_processing == 0


def test_without_lags_every_partition_counts_as_caught_up():
    assert _group(0)[0].ready_to_process(1_000) is True
    group, _ = _group(500)
    assert group.ready_to_process(1_000) is False
    assert group.ready_to_process(1_500) is True
