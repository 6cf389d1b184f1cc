"""Sub-topologies that feed each other (a foreign-key join), run together in one Spark task.

A foreign-key join's sub-topologies feed each other: the left table's writes subscriptions that
the right table's reads, which writes responses the left table's reads. Spark's stages run one
after another, so no order of stages can run them; running the cycle's stages again and again
to a fixpoint would not be exact either: what each side holds when a subscription or response
arrives decides the result (a response for a left row that changed since is dropped), and a
stage runs over all its input before the next starts, so the left side would meet every
response with its final rows. What is exact is what the test driver does: ``CycleRunner`` builds
the core's task of every member sub-topology and partition in one process, takes the cycle's
input records one at a time (the order ``kslab.spark._batch`` sorts them in: the smallest next
timestamp among all input partitions first, as a task takes its buffered partitions), and after
each one gives the tasks turns until none has a record left (``kslab.core.turns``), handing
what one task sends to a topic of the cycle to the task reading it at once, in the order sent.

Invariant: the tasks, their order, their turns and the partition each send goes to are the test
driver's with ``partitions=`` (one task per sub-topology and partition, in id order), so with
the cycle's inputs piped into the driver in that order the outputs are the driver's record for
record. The price: the whole cycle runs on one core, whatever its partition count.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from kslab.config import REPLAY_DEFAULTS, StreamsConfig
from kslab.core.task import StreamTask
from kslab.core.turns import run_turns
from kslab.errors import StreamsError
from kslab.records import TaskId
from kslab.spark._global_task import filled_global_task
from kslab.spark._headers import record_headers
from kslab.spark._plan import Stage, loop_topics
from kslab.spark._task import CycleCollector
from kslab.topology.topology import Topology

__all__ = ["CycleRunner"]


class CycleRunner:
    """The core tasks of every member and partition of one cycle, driven as the test driver
    drives them; their sends to the cycle's own topics are delivered in process, the rest
    become rows (``collector``)."""

    def __init__(self, topology: Topology, props: dict[str, Any], application_id: str,
                 members: Sequence[Stage], partition_counts: dict[str, int],
                 keep: Sequence[str], clock: Callable[[], int],
                 topic_ids: dict[str, int] | None = None,
                 global_records: list[tuple[Any, ...]] | None = None) -> None:
        self.collector = CycleCollector(partition_counts, keep, loop_topics(members), topic_ids)
        self._state_dir = Path(tempfile.mkdtemp(prefix=f"kslab-spark-cycle-{members[0].id}-"))
        self.tasks: list[StreamTask] = []
        self.global_task: StreamTask | None = None
        self._reader: dict[tuple[str, int], StreamTask] = {}
        self._offsets: dict[tuple[str, int], int] = defaultdict(int)  # next, per partition
        self.fed = 0  # input records piped
        self.bulk_records = 0  # (a cycle runs record by record)
        try:
            self._build(topology, props, application_id, members, partition_counts, clock,
                        global_records)
        except BaseException:
            self.close()
            raise

    def _build(self, topology: Topology, props: dict[str, Any], application_id: str,
               members: Sequence[Stage], counts: dict[str, int], clock: Callable[[], int],
               global_records: list[tuple[Any, ...]] | None) -> None:
        config = StreamsConfig({**REPLAY_DEFAULTS, **props})
        if global_records is not None:  # one global task for all: its stores are shared
            self.global_task = filled_global_task(topology, config, application_id, clock,
                                                  global_records, counts,
                                                  self._state_dir / "global")
        for member in members:
            for partition in range(member.tasks):
                inputs = [(t, partition) for t in member.source_topics
                          if partition < counts.get(t, 1)]
                task_id = TaskId(member.id, partition)
                task = StreamTask(
                    task_id, topology, member.nodes, config=config,
                    application_id=application_id, collector=self.collector, clock=clock,
                    input_partitions=inputs, state_dir=self._state_dir / str(task_id),
                    global_stores=None if self.global_task is None else self.global_task.stores,
                )
                self.tasks.append(task)
                for tp in inputs:
                    self._reader[tp] = task
        for task in self.tasks:  # once all exist, as the driver does
            task.initialize()

    def pipe(self, topic: str, partition: int, offset: int, timestamp: int, key: Any,
             value: Any, headers: Any) -> None:
        """One input record of the cycle, run to completion: its task processes it, and the
        tasks take turns until none has a record left (``offset`` < 0: its position)."""
        task = self._reader.get((topic, partition))
        if task is None:
            msg = (f"partition {partition} of topic '{topic}' has no task in the cycle of "
                   f"sub-topologies {sorted({t.id.subtopology for t in self.tasks})}; give the "
                   "topic's partition count in partitions=")
            raise StreamsError(msg, topic=topic)
        tp = (topic, partition)
        if offset < 0:
            offset = self._offsets[tp]
        self._offsets[tp] = offset + 1
        self.fed += 1
        task.add_record((topic, partition, offset, timestamp, key, value,
                         record_headers(headers)))
        run_turns(self.tasks, self._deliver, idling=False, before=self._writing)

    def punctuate_wall_clock(self) -> None:
        """Fire each task's due wall-clock punctuation and commit it, then run what they sent
        to completion, as the driver's ``advance_wall_clock_time`` does."""
        for task in self.tasks:
            self._writing(task)
            task.maybe_punctuate_wall_clock()
            task.commit()
        self._deliver()
        run_turns(self.tasks, self._deliver, idling=False, before=self._writing)

    def _writing(self, task: StreamTask) -> None:
        self.collector.writing(task.id.partition)

    def _deliver(self) -> None:
        """Queue what the tasks sent to the cycle's topics at the tasks reading them, in the
        order sent, each partition's offsets counting up from 0."""
        pending = self.collector.pending
        reader, offsets = self._reader, self._offsets
        while pending:
            topic, partition, key, value, headers, timestamp = pending.popleft()
            tp = (topic, partition)
            offset = offsets[tp]
            offsets[tp] = offset + 1
            reader[tp].add_record((topic, partition, offset, timestamp, key, value, headers))

    def output(self) -> Iterator[Any]:
        """The collected output as Arrow batches (nothing when there is none)."""
        if len(self.collector):
            yield self.collector.drain()

    def close(self) -> None:
        """Close every task (and the global stores) and remove the scratch state directory."""
        try:
            for task in self.tasks:
                task.close()
            if self.global_task is not None:
                self.global_task.close()
        finally:
            shutil.rmtree(self._state_dir, ignore_errors=True)
