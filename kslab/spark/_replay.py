"""Replayed micro-batches between sub-topologies: written twice, counted once.

Spark's Kafka sink is at-least-once: a micro-batch cut short by a crash after some of its rows
reached Kafka runs again from the checkpoint and writes them again. On an output topic that is a
duplicate a reader can see; on a topic one sub-topology writes and another reads (a repartition
topic) the reading task would process the record twice, and a count downstream would count it
twice. So every row a streaming task writes to such a topic carries a header ``__kslab.seq``:
the writing (sub-topology, task) and the task's own write sequence, which continues across
micro-batches (kept with the task's clocks in Spark state, so a replay from the checkpoint
numbers its rows exactly as the first run did). The reader remembers, per (topic, partition,
writer), the highest sequence it has processed and drops any row at or below it, and strips the
header before the core sees the record. Per partition, because one writer's sequence runs across
every partition it writes and a reader holding several partitions (the tasks of a cycle of
sub-topologies, ``kslab.spark._cycle``) may take them in another interleaving. This is the one
rule both streaming processors (a task per group, a cycle per group) apply. Invariant: a reader
processes each written row once, in the order the writer wrote it, as long as the writer's
replay writes what its first run wrote (a deterministic topology: the same input, state and
batch time give the same output).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

__all__ = ["SEQ_HEADER", "drop_replays", "seen_marks", "stamp"]

SEQ_HEADER = "__kslab.seq"
_SEQ = struct.Struct(">iiq")  # writing sub-topology, writing task (partition), sequence


def stamp(columns: dict[str, list[Any]], topics: Iterable[str], stage: int, task: int) -> None:
    """Add the sequence header to the collected rows written to ``topics`` (their ``seq``
    column is the task's write sequence)."""
    wanted = set(topics)
    if not wanted:
        return
    headers = columns["headers"]
    pack = _SEQ.pack
    for i, (topic, seq) in enumerate(zip(columns["topic"], columns["seq"], strict=True)):
        if topic in wanted:
            mark = {"key": SEQ_HEADER, "value": pack(stage, task, seq)}
            headers[i] = [*headers[i], mark] if headers[i] else [mark]


def drop_replays(topics: list[str], partitions: list[int], headers: list[Any],
                 sequenced: Iterable[str],
                 seen: dict[str, int]) -> tuple[list[bool], list[Any]]:
    """Which rows to keep, and every row's headers without the sequence header.

    ``topics``/``partitions``/``headers`` are the micro-batch's rows, each partition's in
    offset order; rows of a ``sequenced`` topic whose sequence is at or below the highest
    ``seen`` for their (topic, partition, writer) are dropped; ``seen`` is updated in place
    (keys ``topic/partition/stage/task``).
    """
    wanted = set(sequenced)
    keep = [True] * len(topics)
    out = list(headers)
    unpack = _SEQ.unpack
    names: dict[tuple[Any, ...], str] = {}  # (topic, partition, stage, task) -> seen's key
    for i, topic in enumerate(topics):
        row = headers[i]
        if topic not in wanted or row is None or len(row) == 0:
            continue
        if len(row) == 1:  # (the common case: the sequence header alone)
            header = row[0]
            if header["key"] != SEQ_HEADER:
                continue
            rest, mark = None, unpack(bytes(header["value"]))
        else:
            rest, mark = [], None
            for header in row:
                if header["key"] == SEQ_HEADER and mark is None:
                    mark = unpack(bytes(header["value"]))
                else:
                    rest.append(header)
            if mark is None:
                continue
        out[i] = rest or None
        writer = (topic, partitions[i], mark[0], mark[1])
        name = names.get(writer)
        if name is None:
            name = names[writer] = f"{topic}/{partitions[i]}/{mark[0]}/{mark[1]}"
        if mark[2] <= seen.get(name, -1):
            keep[i] = False
        else:
            seen[name] = mark[2]
    return keep, out


def seen_marks(saved: dict[str, Any] | None) -> dict[str, int]:
    """The ``seen`` marks a reader saved with its clocks (empty before its first micro-batch;
    a checkpoint from before they were kept per partition has an older state layout, which
    ``kslab.spark._state`` refuses)."""
    return {} if saved is None else dict(saved.get("seen", {}))
