"""Store backends over Spark state: a task's stores and clocks kept by transformWithStateInPandas.

``SparkStateBackend`` is a write-behind cache over one ``MapState``: it loads the map when the
micro-batch opens the task, serves every read and write from memory, and writes the keys that
changed back once, when the micro-batch ends. ``TaskClocks`` keeps the core task's stream time,
partition times and punctuation schedules in a ``ValueState`` between micro-batches.
Invariant: what Spark checkpoints after a micro-batch is exactly the bytes the core's stores and
clocks held when the task committed at its end — never a half-applied batch.
"""

from __future__ import annotations

import json
from typing import Any

from kslab.core.task import StreamTask
from kslab.state._typed import TypedStore
from kslab.state.backends.memory import InMemoryKeyValueBackend

__all__ = ["SparkStateBackend", "TaskClocks", "attach_spark_state"]

KEY_SCHEMA = "key binary"
VALUE_SCHEMA = "value binary"
META_SCHEMA = "meta string"


class SparkStateBackend(InMemoryKeyValueBackend):
    """The sorted in-memory backend, loaded from and flushed to a Spark ``MapState``."""

    def __init__(self, name: str, state: Any) -> None:
        super().__init__(name)
        self._state = state
        self._dirty: set[bytes] = set()
        for (key,), (value,) in state.iterator():
            self._map[bytes(key)] = bytes(value)
        self._keys.update(self._map)

    def put(self, key: bytes, value: bytes) -> None:
        """Write in memory; remembered for the end of the micro-batch."""
        super().put(key, value)
        self._dirty.add(key)

    def delete(self, key: bytes) -> bytes | None:
        """Delete in memory; remembered for the end of the micro-batch."""
        self._dirty.add(key)
        return super().delete(key)

    def close(self) -> None:
        """Keep the entries: Spark state, not this object, owns them."""

    def write_back(self) -> int:
        """Write the keys changed since loading to the ``MapState``; returns how many."""
        entries, state = self._map, self._state
        for key in self._dirty:
            value = entries.get(key)
            if value is None:
                if state.containsKey((key,)):
                    state.removeKey((key,))
            else:
                state.updateValue((key,), (value,))
        written = len(self._dirty)
        self._dirty.clear()
        return written


def attach_spark_state(task: StreamTask, states: dict[str, Any]) -> list[SparkStateBackend]:
    """Put every key-value store of ``task`` on its ``MapState`` (after ``initialize``)."""
    backends = []
    for name, store in task.stores.items():
        typed = store
        while not isinstance(typed, TypedStore):
            typed = object.__getattribute__(typed, "_inner")  # DSL caches wrap the store
        backend = SparkStateBackend(name, states[name])
        holder = typed._impl
        if hasattr(holder, "_inner") and not isinstance(holder, InMemoryKeyValueBackend):
            holder._inner.close()  # a timestamp-dropping adapter keeps its behaviour
            holder._inner = backend
        else:
            holder.close()
            typed._impl = backend
        typed._attach()
        backends.append(backend)
    return backends


class TaskClocks:
    """Stream time, partition times and punctuation schedules of a task, across micro-batches."""

    def __init__(self, state: Any) -> None:
        self._state = state

    def restore(self, task: StreamTask) -> None:
        """Give ``task`` (just built) the clocks it had at the end of the last micro-batch."""
        if not self._state.exists():
            return
        saved = json.loads(self._state.get()[0])
        group = task.partition_group
        group.stream_time = saved["stream_time"]
        for entry in saved["partitions"]:
            queue = group.queues.get((entry[0], entry[1]))
            if queue is not None:
                queue.partition_time = entry[2]
        _restore_queue(task.stream_time_queue, saved["stream"])
        _restore_queue(task.wall_clock_queue, saved["wall"])

    def save(self, task: StreamTask) -> None:
        """Remember ``task``'s clocks for the next micro-batch."""
        group = task.partition_group
        saved = {
            "stream_time": group.stream_time,
            "partitions": [[t, p, q.partition_time] for (t, p), q in group.queues.items()],
            "stream": _times(task.stream_time_queue),
            "wall": _times(task.wall_clock_queue),
        }
        self._state.update((json.dumps(saved),))


def _times(queue: Any) -> list[list[Any]]:
    """Next fire time and cancel flag of each schedule, in registration order."""
    return [[t, cancelled] for t, _, _, cancelled in sorted(queue.snapshot(), key=lambda e: e[1])]


def _restore_queue(queue: Any, saved: list[list[Any]]) -> None:
    """Processors register their schedules again in ``init``, in the same order: match them."""
    current = sorted(queue.snapshot(), key=lambda e: e[1])
    restored = []
    for i, (t, seq, schedule, cancelled) in enumerate(current):
        if i < len(saved):
            t, cancelled = saved[i]
        restored.append((t, seq, schedule, cancelled))
    queue.restore(restored)
