"""Which Spark task runs each group of a streaming query, and how a checkpoint remembers it.

A streaming query groups its micro-batch by task (a Kafka partition's records, or a cycle's);
``transformWithStateInPandas`` hashes the group key into one of the query's shuffle partitions,
each a Spark task with its own state store partition. Grouping by the Kafka partition itself
put both tasks of a two-partition topic in one Spark task (Spark's ``hash(0)`` and ``hash(1)``
are both odd), so one core ran every task while the other waited: ``spread_keys`` picks group
keys that land one task per shuffle partition, and ``state_partitions`` gives each query one
shuffle partition per task, remembered beside its checkpoint with the state layout.
Invariant: a query's group keys and shuffle partitions never change over its checkpoint's
life (its state is found by them); only their balance over the cores depends on the choice.
"""

from __future__ import annotations

import json
from pathlib import Path

from kslab.errors import StoreError
from kslab.spark._plan import Stage
from kslab.spark._state import LAYOUT

__all__ = ["spread_keys", "state_partitions"]


def state_partitions(checkpoint: str, stage: Stage) -> int:
    """The shuffle (and state) partitions of ``stage``'s query: one per group (a task per Kafka
    partition, one for a cycle), as its checkpoint recorded them when it began.

    A local checkpoint keeps them, with the state layout, in ``kslab-subtopology-<id>.json``
    beside the query's directory; a checkpoint from an older kslab (the query's directory
    without that file, or another layout) is refused by name, since its state would not be
    found under this layout's group keys. Another file system (``hdfs://``, ``s3a://``): the
    group count, unchecked.
    """
    groups = 1 if stage.members else stage.tasks
    local = "://" not in checkpoint or checkpoint.startswith("file://")
    if not local:
        return groups
    base = Path(checkpoint.removeprefix("file://"))
    marker = base / f"kslab-subtopology-{stage.id}.json"
    if marker.exists():
        saved = json.loads(marker.read_text())
        if saved.get("layout") == LAYOUT:
            return int(saved["shuffle_partitions"])
    elif not any((base / f"subtopology-{stage.id}" / "offsets").glob("*")):
        base.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"layout": LAYOUT, "shuffle_partitions": groups}))
        return groups
    msg = (f"the Spark checkpoint {base / f'subtopology-{stage.id}'} was written by an older "
           f"kslab (another state layout than '{LAYOUT}'); this one cannot read its state; "
           "start from a new checkpoint_location")
    raise StoreError(msg)


def spread_keys(tasks: int, partitions: int) -> list[int]:
    """The group key of each Kafka partition's task (by partition): one that Spark's hash
    partitioning (Murmur3, seed 42, modulo ``partitions``) sends to shuffle partition
    ``task % partitions``. Grouping by the Kafka partition itself would not spread them:
    ``hash(0)`` and ``hash(1)`` are both odd, so with two shuffle partitions both tasks of a
    two-partition topic shared one Spark task and one core. Key ``k`` of task ``p`` is ``p``
    plus a multiple of ``tasks`` (distinct per task); it depends only on the two counts, which
    a checkpoint keeps (``state_partitions``)."""
    keys = []
    for task in range(tasks):
        key = task
        while _pmod_hash(key, partitions) != task % partitions:
            key += tasks
        keys.append(key)
    return keys


def _pmod_hash(value: int, partitions: int) -> int:
    """Spark's ``pmod(hash(value), partitions)`` of an int column (Murmur3 x86 32, seed 42)."""
    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF

    k = (value & 0xFFFFFFFF) * 0xCC9E2D51 & 0xFFFFFFFF
    k = rotl(k, 15) * 0x1B873593 & 0xFFFFFFFF
    h = rotl(42 ^ k, 13)
    h = (h * 5 + 0xE6546B64) & 0xFFFFFFFF
    h ^= 4
    h ^= h >> 16
    h = h * 0x85EBCA6B & 0xFFFFFFFF
    h ^= h >> 13
    h = h * 0xC2B2AE35 & 0xFFFFFFFF
    h ^= h >> 16
    signed = h - (1 << 32) if h >= 1 << 31 else h
    return signed % partitions
