"""Several tasks' rows of a chunk run as one stage (``Shared``), and each task's share of it
(``Share``) that phase two settles.

The tasks of one stateless sub-topology (no store, no timestamp extractor) each run the same
batch forms over their own rows, and what they send depends on nothing a task owns. So
``BulkExecutor.run_partitioned`` runs their plan once over the whole chunk, in row order:
nothing is picked per task, and the stage's sink records are in the record path's order as
they are (the driver processes each row, with what it sends, before the next row). What a
task owns is settled per task from its rows' places afterwards (``Share``: offsets, partition
time, stream time and lateness, processed count, commits, the context's last record), and
whatever phase one reads per record is the row's own task's: its partition and offset (a
topic extractor's record context, ``partition_of``/``offset_of``) and the processor a
user's action belongs to (``owners``: each task's processor is told how many of its calls
were made when one raises).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kslab.records import Record

__all__ = ["Share", "Shared", "one_stage"]


def one_stage(plans: list[Any], tasks: list[Any], topic: str) -> bool:
    """True when the tasks' chunk may run as one stage: every task runs the same
    sub-topology's plan (one source node), without a store (nothing a task holds), and its
    source takes the records' own timestamps (an extractor sees its partition's time)."""
    name = plans[0].source.name
    return all(plan.source.name == name and not plan.stores for plan in plans) and all(
        task.queue_for(topic, task.id.partition).deserializer.timestamp_extractor is None
        for task in tasks)


class Shared:
    """The rows of a chunk that several tasks read, run as one stage: each task, its plan and
    its rows' places (``groups``: ``(task, places)`` in the order the engine gave them; places
    as a list or a numpy array), and each row's task (``group``: its index in ``groups``).
    ``sort``: each task's rank, and the row's and the first pass's weight in a sort key
    (``sort_keys``)."""

    __slots__ = ("_offsets", "_partitions", "_sort", "group", "groups", "plans")

    def __init__(self, groups: list[tuple[Any, Any]], plans: list[Any], count: int,
                 sort: tuple[list[int], int, int]) -> None:
        self.groups = groups
        self.plans = plans
        group = np.empty(count, np.intp)
        for number, (_, places) in enumerate(groups):
            group[places] = number
        self.group = group
        self._sort = sort
        self._partitions: list[int] | None = None
        self._offsets: list[int] | None = None

    def sort_keys(self) -> list[int]:
        """Each row's sort key, ``row_number * row + first + rank`` of its task, as
        ``run_partitioned`` orders a task's pass-1 work (made where something is ordered
        among other stages' records: ``Stage.place_keys``)."""
        ranks, row, first = self._sort
        keys = np.arange(len(self.group), dtype=np.int64) * row
        keys += np.asarray(ranks, np.int64)[self.group] + first
        return keys.tolist()  # type: ignore[no-any-return]

    def partitions(self) -> list[int]:
        """Each row's partition (its task's)."""
        if self._partitions is None:
            numbers = np.asarray([task.id.partition for task, _ in self.groups], np.int64)
            self._partitions = numbers[self.group].tolist()
        return self._partitions

    def offsets(self, port: Any, topic: str) -> list[int]:
        """Each row's offset: its partition's next offset (``port.offsets``) plus its place
        among its task's rows."""
        if self._offsets is None:
            offsets = np.empty(len(self.group), np.int64)
            for task, places in self.groups:
                first = port.offsets.get((topic, task.id.partition), 0)
                offsets[places] = np.arange(first, first + len(places), dtype=np.int64)
            self._offsets = offsets.tolist()
        return self._offsets

    def owners(self, step: int, origins: list[int]) -> list[Any]:
        """The processor of step ``step`` in the task of each row in ``origins``."""
        processors = [plan.steps[step].processor for plan in self.plans]
        return [processors[number] for number in self.group[origins].tolist()]

    def shares(self, stage: Any) -> list[tuple[Any, Share]]:
        """Each task and its share of ``stage`` (run over the whole chunk), for phase two."""
        timestamps = np.fromiter(stage.timestamps, np.int64, len(stage.timestamps))
        found = []
        for task, places in self.groups:
            rows = np.asarray(places, np.intp)
            found.append((task, Share(stage, task.id.partition, rows,
                                      timestamps[rows].tolist())))
        return found


class Share:
    """A task's share of a stage run over several tasks' rows, as ``BulkExecutor._apply``
    settles a stage: its topic partition, its rows' timestamps in order (``timestamps``),
    the offset of its first (``first_offset``, set as its offsets advance) and its records
    (``record``); nothing held or deferred (``run``: ``None``)."""

    __slots__ = ("first_offset", "input_row", "offsets", "partition", "rows", "run", "stage",
                 "timestamps", "topic")

    def __init__(self, stage: Any, partition: int, rows: Any, timestamps: list[int]) -> None:
        self.stage = stage
        self.topic = stage.topic
        self.partition = partition
        self.rows = rows  # the chunk rows of the task's records, in order (a numpy array)
        self.timestamps = timestamps
        self.offsets = None  # (consecutive from the partition's next offset)
        self.first_offset = -1
        self.input_row = None  # (its own consumed records: nothing looped back)
        self.run = None

    def offset_of(self, index: int) -> int:
        """The offset of the task's ``index``-th record (in phase two)."""
        return self.first_offset + index

    def record(self, index: int) -> Record:
        """The task's ``index``-th record, as consumed."""
        return self.stage.record(int(self.rows[index]))  # type: ignore[no-any-return]
