"""A chunk split where a record cache flushes mid-run: batch, one record, batch again.

A batch run replays a record cache's gets and puts at once, so it declines where one of them
would evict a dirty entry: Kafka's ``NamedCache.evict`` then flushes the whole namespace (the
evicted entry, then every other dirty one in the order of its last write: written, logged and
forwarded) in the middle of the record's processing, which only the record path does. An
engine that commits on an interval (the live runtime) meets this once its cache is full of
dirty entries, so a count over more keys than its cache would go record by record from then
on. ``run_split`` runs such a chunk as the rows before that record in batch, that record on
the record path (which flushes as Kafka's does) and the rest in batch again, on a namespace
now clean. Invariant: the rows are processed in order, each once, each part by a path that
gives the record path's result from the state the parts before it left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.core.bulk.executor import BulkExecutor
from kslab.core.bulk.sinks import Written

__all__ = ["run_queued", "run_split"]

MAX_SPLITS = 8  # at most this many records of a chunk on the record path at a flush: each
# split runs phase one over the rest of the chunk again


def run_split(executor: BulkExecutor, task: Any, topic: str, columns: tuple[list[Any], ...],
              record: Callable[[int, int], None], offsets: list[int] | None = None,
              partition: int = 0, objects: Written | None = None) -> int:
    """Run ``columns`` (``BulkExecutor.run_columns``'s rows of ``task``'s ``topic``) in
    order: in batch where the executor takes them, split at each row whose record cache get
    or put would flush (``BulkExecutor.flush_row``), that row, and the rest where the
    executor declines for any other reason (or after ``MAX_SPLITS`` splits, or where a split
    gained no row in batch), by ``record(start, end)``, the engine's record path over rows
    ``[start, end)``. ``objects`` (``Written``) go with the whole chunk only. How many rows
    ran in batch."""
    total = len(columns[3])
    start = batched = splits = 0
    while start < total:
        part = _rows(columns, start, total)
        given = None if offsets is None else offsets[start:]
        if executor.run_columns(task, topic, part, given, partition,
                                objects if start == 0 else None):
            return batched + total - start
        row = executor.flush_row
        if row is None or splits == MAX_SPLITS or (splits and not row):
            record(start, total)
            return batched
        splits += 1
        if row and not executor.run_columns(task, topic, _rows(part, 0, row),
                                            None if given is None else given[:row], partition):
            record(start, total)  # (the rows before the flush declined after all)
            return batched
        batched += row
        record(start + row, start + row + 1)
        start += row + 1
    return batched


def run_queued(executor: BulkExecutor, task: Any, queue: Any, raws: list[tuple],
               record: Callable[[int, int], None]) -> int:
    """``run_split`` of ``raws``, the raw records (``(topic, partition, offset, timestamp,
    key, value, headers)``) of ``queue``'s partition that ``task``'s partition group takes
    next one after another (``PartitionGroup.run_after``: a task reading several partitions,
    a join's); ``record(start, end)`` processes rows ``[start, end)`` of them on the record
    path (all of them for a run of one, as the engines leave a polled run of one, or where
    ``task`` has no plan for the topic). How many ran in batch."""
    topic, partition = queue.topic, queue.partition
    if len(raws) < 2 or executor.plan(task, topic) is None:
        record(0, len(raws))
        return 0
    _, _, offsets, timestamps, keys, values, headers = map(list, zip(*raws, strict=True))
    first, last = offsets[0], offsets[-1]
    if last - first + 1 == len(offsets):
        offsets = range(first, last + 1)  # type: ignore[assignment]
    return run_split(executor, task, topic, (keys, values, headers, timestamps, None),
                     record, offsets, partition)


def _rows(columns: tuple[list[Any], ...], start: int, end: int) -> tuple[list[Any], ...]:
    """Rows ``[start, end)`` of ``columns`` (a ``None`` column stays ``None``)."""
    if start == 0 and end == len(columns[3]):
        return columns
    return tuple(None if column is None else column[start:end] for column in columns)
