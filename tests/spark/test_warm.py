"""A task kept open in a Python worker is taken only under the token Spark state holds now
(no Spark: the worker-side rule ``kslab.spark._warm``; the streaming tests run it in Spark)."""

from __future__ import annotations

from kslab.spark import _warm as warm


class Task:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_taken_only_under_the_token_it_was_kept_with():
    task = Task()
    warm.keep(("app", 1, 0), "t1", task)
    assert warm.take(("app", 1, 0), "t1") is task  # Spark state is what the task ended with
    assert warm.take(("app", 1, 0), "t1") is None  # taken out while a micro-batch uses it
    assert not task.closed
    warm.keep(("app", 1, 0), "t2", task)
    # state rolled back (a replayed micro-batch) or moved on elsewhere: another token
    assert warm.take(("app", 1, 0), "t1") is None
    assert task.closed  # dropped for good
    assert warm.take(("app", 1, 0), "t2") is None


def test_no_token_in_state_takes_nothing_and_the_oldest_go_first():
    first = Task()
    warm.keep(("app", 2, 0), "t", first)
    assert warm.take(("app", 2, 0), None) is None and first.closed  # a new checkpoint
    tasks = [Task() for _ in range(warm.KEPT + 1)]
    for i, task in enumerate(tasks):
        warm.keep(("many", i), "t", task)
    assert tasks[0].closed and not any(t.closed for t in tasks[1:])
    for i, task in enumerate(tasks[1:], start=1):
        assert warm.take(("many", i), "t") is task
