"""A suppression buffer's puts and evictions during a run (``HeldBufferWrites``), held for
phase two.

The suppress processor's batch form runs its record rule (``put``, then evict while the oldest
entry's time is due or the buffer is over its bounds) against this object, which answers as
the buffer would after the run's writes so far: the buffer's own entries, in time order, less
those the run evicted or put again, merged with the entries the run put (a key keeps its
buffer time while buffered: Java's non-resetting buffer). Sizes and counts follow the
buffer's rules (``BufferEntry.size``). Phase two replays each put and eviction through the
buffer's own writes in order (its sensors sampled as the record path samples them) and, where
the engine commits after every consumed record, the buffer's commit flush after each one (its
changelog records, in Java's ``HashSet`` order), consumed record by consumed record with each
as the task's context (deferred actions). Invariant: nothing here writes the buffer before
phase two.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from sortedcontainers import SortedList

from kslab.processor.batch import BatchRun
from kslab.records import as_headers
from kslab.state.buffer import LONG_MAX, BufferEntry

__all__ = ["HeldBufferWrites"]

_MISSING = object()


class _Held:
    """An entry the run put: the entry (its context's offset and partition filled in phase
    two), its key, new, old and prior value objects, and the consumed record that put it."""

    __slots__ = ("entry", "objects", "origin")

    def __init__(self, entry: BufferEntry, objects: tuple[Any, Any, Any, Any],
                 origin: int) -> None:
        self.entry = entry
        self.objects = objects
        self.origin = origin


class HeldBufferWrites:
    """What a run does to a ``SuppressionBuffer``, worked out in phase one (see the module
    docstring). ``evict_while`` hands each evicted change to its callback as ``(key, new,
    old, (timestamp, context, headers))``: ``context`` the consumed record of the run that
    buffered it (an ``int``) or ``(topic, partition, offset, headers)`` for an entry buffered
    before the run."""

    def __init__(self, buffer: Any, run: BatchRun, entries: dict[bytes, BufferEntry],
                 objects: dict[bytes, tuple[Any, Any, Any, Any]], order: SortedList) -> None:
        self.buffer = buffer
        self.run = run
        self._stored = entries  # the buffer's, read only
        self._stored_objects = objects
        self._order = order
        self._cursor = 0  # stored entries before it are evicted or put again by the run
        self._held: dict[bytes, _Held | None] = {}  # None: evicted by the run
        self._queue: SortedList = SortedList()  # (time, key) of the entries the run put
        self._count = buffer.num_records()
        self._size = buffer.buffer_size()
        self._ops: list[tuple[Any, ...]] = []  # ("put", entry, objects) or ("drop", count)
        self._groups: list[tuple[int, int]] = []  # each consumed record's and its position
        self._starts: list[int] = []  # where its ops start
        self._last_origin = -1

    # -- the buffer's reads, as after the run's writes so far ----------------------------------

    def num_records(self) -> int:
        """How many keys are buffered."""
        return self._count

    def buffer_size(self) -> int:
        """The estimated bytes buffered."""
        return self._size

    def min_timestamp(self) -> int:
        """The smallest buffer time (Java's ``Long.MAX_VALUE`` when empty)."""
        head = self._head()
        return LONG_MAX if head is None else head[0]

    def _stored_head(self) -> tuple[int, bytes] | None:
        order, held, i = self._order, self._held, self._cursor
        while i < len(order) and order[i][1] in held:
            i += 1
        self._cursor = i
        return order[i] if i < len(order) else None

    def _head(self) -> tuple[int, bytes] | None:
        stored = self._stored_head()
        queue = self._queue
        if not queue:
            return stored
        return queue[0] if stored is None or queue[0] < stored else stored

    # -- the run's writes ---------------------------------------------------------------------

    def put(self, origin: int, position: int, time: int, key: Any, new: Any, old: Any,
            timestamp: int, headers: Any) -> None:
        """``SuppressionBuffer.put`` of consumed record ``origin``'s change (at
        ``position`` of the batch; its context's offset and partition filled in phase
        two)."""
        if origin != self._last_origin:
            self._groups.append((origin, position))
            self._starts.append(len(self._ops))
            self._last_origin = origin
        buffer = self.buffer
        topic = buffer.topic
        key_bytes = buffer.key_serde.serialize(topic, key)
        serialize = buffer.value_serde.serialize
        new_bytes = None if new is None else serialize(topic, new)
        old_bytes = None if old is None else serialize(topic, old)
        held = self._held.get(key_bytes, _MISSING)
        previous = self._stored.get(key_bytes) if held is _MISSING else \
            None if held is None else held.entry  # type: ignore[union-attr]
        if previous is None:
            prior, prior_obj = old_bytes, old
            self._count += 1
        else:  # non-resetting: a key keeps its place (and time) in the queue
            time, prior = previous.time, previous.prior
            self._size -= previous.size()
            if held is _MISSING:
                cached = self._stored_objects.get(key_bytes)
                prior_obj = cached[3] if cached is not None else (
                    None if prior is None else buffer.value_serde.deserialize(topic, prior))
            else:
                prior_obj = held.objects[3]  # type: ignore[union-attr]
        entry = BufferEntry(time, key_bytes, prior, old_bytes, new_bytes,  # (a record's
                            (timestamp, -1, self.run.topic, 0, as_headers(headers)))  # own)
        self._size += entry.size()
        objects = (key, new, old, prior_obj)
        if held is _MISSING or held is None:
            self._queue.add((time, key_bytes))
        self._held[key_bytes] = _Held(entry, objects, origin)
        self._ops.append(("put", entry, objects))

    def evict_while(self, predicate: Callable[[], bool],
                    callback: Callable[[Any, Any, Any, tuple[Any, ...]], None]) -> None:
        """``SuppressionBuffer.evict_while``: evict in time order while ``predicate()``,
        ``callback`` seeing each entry (see the class docstring)."""
        evicted = 0
        while self._count and predicate():
            callback(*self._evict_next())
            evicted += 1
        if evicted:
            self._ops.append(("drop", evicted))

    def _evict_next(self) -> tuple[Any, Any, Any, tuple[Any, ...]]:
        time, key_bytes = self._head()  # type: ignore[misc]
        held = self._held.get(key_bytes)
        if held is not None:
            self._queue.remove((time, key_bytes))
            entry = held.entry
            key, new, old, _ = held.objects
            context: tuple[Any, ...] = (entry.context[0], held.origin, entry.context[4])
        else:
            entry = self._stored[key_bytes]
            key, new, old, stored = self.buffer.eviction(key_bytes)
            timestamp, offset, topic, partition, headers = stored
            headers = headers if headers else None  # (as a record's raw headers: a sink's)
            context = (timestamp, (topic, partition, offset, headers), headers)
        self._held[key_bytes] = None
        self._count -= 1
        self._size -= entry.size()
        return key, new, old, context

    def defer(self) -> None:
        """Hand phase two its writes (``run.defer``): each consumed record's puts (its
        offset and partition in their contexts) and evictions through the buffer's own
        writes, in order, then, where the engine commits after every consumed record, the
        commit's flush, with that record as the task's context (a tombstone takes its
        timestamp)."""
        groups = self._groups
        for (origin, position), (start, end) in zip(groups, self._bounds(), strict=True):
            self.run.defer(origin, partial(self._apply, start, end, origin), position)

    def _bounds(self) -> list[tuple[int, int]]:
        starts = self._starts
        return list(zip(starts, [*starts[1:], len(self._ops)], strict=True))

    def _apply(self, start: int, end: int, origin: int) -> None:
        buffer = self.buffer
        topic, partition, offset = self.run.source(origin)
        for op in self._ops[start:end]:
            if op[0] == "put":
                entry, objects = op[1], op[2]
                timestamp, _, _, _, headers = entry.context
                buffer.put_entry(entry._replace(context=(timestamp, offset, topic, partition,
                                                         headers)), objects)
            else:
                buffer.drop_oldest(op[1])
        if self.run.commit_each:
            buffer.flush()
