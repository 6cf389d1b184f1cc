"""Tasks of one process that feed each other, run to completion: each takes a turn in order.

Kafka's test driver runs every task in one thread: after a record is piped in, it gives each
task in turn the chance to process one record, hands what that task sent to the tasks reading
it, and goes round again until no task has a record it may process. Both the test driver and
Spark's batch replay of sub-topologies that feed each other (a foreign-key join) run tasks this
way; the rule lives here once. Invariant: a task processes one record a turn, then its stream-time
punctuation is checked, it commits and its sends are delivered before the next task's turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kslab.core.task import StreamTask

__all__ = ["run_turns"]


def run_turns(tasks: Sequence[StreamTask], deliver: Callable[[], None], *,
              idling: bool = True,
              before: Callable[[StreamTask], None] | None = None) -> None:
    """Give each of ``tasks`` a turn, in order, round after round, until a round finds no task
    with a record it may process; ``deliver()`` hands the records a task sent to the tasks that
    read them, after each turn. ``idling``: honour ``max.task.idle.ms`` (a task waiting for an
    empty partition skips its turn); off for a replay, where every record is already there.
    ``before(task)`` is called as a task's turn starts (to tell the engine who writes next)."""
    progressed = True
    while progressed:
        progressed = False
        for task in tasks:
            if task.has_records() and (not idling or task.is_processable()):
                progressed = True
                if before is not None:
                    before(task)
                if task.process():
                    task.maybe_punctuate_stream_time()
                task.commit()
                deliver()
