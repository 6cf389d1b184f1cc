"""Store backends over Spark state: a task's stores and clocks kept by transformWithStateInPandas.

Every store of a task lives in one ``MapState`` of serialized key → value bytes.
``SparkStateBackend`` backs the byte-backed stores (key-value, timestamped, versioned, window,
session) as a write-behind cache: a point read loads that one key on first use, a scan (range,
prefix, ``all``, a window store rebuilding its segment index) loads the rest of the map once,
and the keys that changed are written back once, when the micro-batch ends. A store holding no
more entries than the micro-batch has records is read whole at once (one streamed read costs
less than a round trip per key). Stores that keep
objects rather than bytes (the suppression buffer, the outer-join store) are restored from
their changelog encoding and their changelog writes are captured into the ``MapState``
(``ChangelogState``). ``TaskClocks`` keeps the task's stream time, partition times, punctuation
schedules and each store's own observed stream time in a ``ValueState``.
Invariant: what Spark checkpoints after a micro-batch is exactly the bytes the core's stores and
clocks held when the task committed at its end — never a half-applied batch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from kslab.core.task import StreamTask
from kslab.errors import StoreError
from kslab.state._typed import TypedStore
from kslab.state.backends.memory import InMemoryKeyValueBackend
from kslab.state.pending import PendingWrites

__all__ = ["ChangelogState", "SparkStateBackend", "TaskClocks", "attach_spark_state",
           "spark_backed_kinds"]

KEY_SCHEMA = "key binary"
VALUE_SCHEMA = "value binary"
META_SCHEMA = "meta string"

# Store kinds that hold bytes in a KeyValueBackend (SparkStateBackend) and kinds that keep
# objects but restore from their changelog encoding (ChangelogState).
_BYTE_KINDS = ("key_value", "timestamped_key_value", "versioned_key_value", "window",
               "timestamped_window", "session")
_CHANGELOG_KINDS = ("suppression_buffer", "key_value_list")


def spark_backed_kinds() -> tuple[str, ...]:
    """The store kinds streaming on Spark keeps in Spark state."""
    return _BYTE_KINDS + _CHANGELOG_KINDS


class SparkStateBackend(InMemoryKeyValueBackend):
    """The sorted in-memory backend as a write-behind cache over one Spark ``MapState``.

    With ``preload`` the whole map is read when the task opens (every micro-batch); otherwise a
    key is read on its first ``get`` and the whole map only on the first scan.
    """

    def __init__(self, name: str, state: Any, *, preload: bool = False,
                 size: int | None = None) -> None:
        super().__init__(name)
        self._state = state
        self._dirty: set[bytes] = set()
        self._seen: set[bytes] = set()  # keys whose current value memory knows
        self._stored: set[bytes] = set()  # keys known to be in the MapState
        self._absent: set[bytes] = set()  # keys known not to be in it
        self._complete = False
        self.size = size  # entries in the MapState, when known
        self.get = self._get  # type: ignore[method-assign]
        if preload:
            self._load_all()

    def _get(self, key: bytes) -> bytes | None:
        value = self._map.get(key)
        if value is not None or self._complete or key in self._seen:
            return value
        self._seen.add(key)
        row = self._state.getValue((key,))
        if row is None:
            self._absent.add(key)
            return None
        value = bytes(row[0])
        self._stored.add(key)
        self._map[key] = value  # (a new key of the map: sorted in by the next scan)
        return value

    def _load_all(self) -> None:
        """Read every entry of the map that memory does not know yet (once)."""
        if self._complete:
            return
        entries, seen = self._map, self._seen
        for (key,), (value,) in self._state.iterator():
            key = bytes(key)
            self._stored.add(key)
            if key not in seen and key not in entries:
                entries[key] = bytes(value)  # (sorted in by the next scan)
        self._complete = True
        self.size = len(self._stored)

    def put(self, key: bytes, value: bytes) -> None:
        """Write in memory; remembered for the end of the micro-batch. A new key joins the
        map only: the sorted keys take it in at the next scan (the base class's invariant),
        so a micro-batch that never scans never sorts."""
        self._map[key] = value
        self._seen.add(key)
        self._dirty.add(key)

    def put_all(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Write every pair in order (a ``None`` value deletes); without deletes at once."""
        entries = list(entries)
        if any(value is None for _, value in entries):
            for key, value in entries:
                if value is None:
                    self.delete(key)
                else:
                    self.put(key, value)
            return
        self._map.update(entries)
        keys = [key for key, _ in entries]
        self._seen.update(keys)
        self._dirty.update(keys)

    def put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        """Write only when ``key`` is absent (looking it up in Spark state first)."""
        old = self._get(key)
        if old is None:
            self.put(key, value)
        return old

    def delete(self, key: bytes) -> bytes | None:
        """Delete in memory; remembered for the end of the micro-batch."""
        self._get(key)
        self._seen.add(key)
        self._dirty.add(key)
        return super().delete(key)

    def range(self, from_key: bytes | None, to_key: bytes | None) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key`` (loads the whole map first)."""
        self._load_all()
        return super().range(from_key, to_key)

    def reverse_range(self, from_key: bytes | None,
                      to_key: bytes | None) -> Iterator[tuple[bytes, bytes]]:
        """Pairs in the range, descending (loads the whole map first)."""
        self._load_all()
        return super().reverse_range(from_key, to_key)

    def prefix_scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Pairs whose key starts with ``prefix`` (loads the whole map first)."""
        self._load_all()
        return super().prefix_scan(prefix)

    def approximate_num_entries(self) -> int:
        """The exact number of keys (loads the whole map first)."""
        self._load_all()
        return super().approximate_num_entries()

    def snapshot(self) -> dict[bytes, bytes]:
        """Every entry (loads the whole map first)."""
        self._load_all()
        return super().snapshot()

    def restore_snapshot(self, snapshot: object) -> None:
        """Replace the contents; every key that changes is written back."""
        self._load_all()
        before = dict(self._map)
        super().restore_snapshot(snapshot)
        changed = {k for k in before.keys() | self._map.keys() if before.get(k) != self._map.get(k)}
        self._seen.update(changed)
        self._dirty.update(changed)

    def close(self) -> None:
        """Keep the entries: Spark state, not this object, owns them."""

    def write_back(self) -> int:
        """Write the keys changed since loading to the ``MapState``; returns how many."""
        entries, state, stored, absent = self._map, self._state, self._stored, self._absent
        for key in self._dirty:
            value = entries.get(key)
            present = key in stored or (not self._complete and key not in absent
                                        and state.containsKey((key,)))
            if value is not None:
                state.updateValue((key,), (value,))
                stored.add(key)
                absent.discard(key)
                if not present and self.size is not None:
                    self.size += 1
            elif present:
                state.removeKey((key,))
                stored.discard(key)
                absent.add(key)
                if self.size is not None:
                    self.size -= 1
        written = len(self._dirty)
        self._dirty.clear()
        return written


class ChangelogState:
    """A store that keeps objects, kept in a ``MapState`` as its changelog records.

    Opening replays the map through the store's ``restore_batch`` (as a restore from its
    changelog topic would); the store's changelog writes are captured instead of sent, and the
    last one per key is written to the map when the micro-batch ends.
    """

    def __init__(self, store: Any, state: Any) -> None:
        self._state = state
        self._stored: set[bytes] = set()
        self._pending: PendingWrites[bytes, bytes | None] = PendingWrites()  # last changes
        records = []
        for (key,), (value,) in state.iterator():
            key = bytes(key)
            self._stored.add(key)
            records.append((key, bytes(value)))
        store.restore_batch(records)
        store.capture_changelog(self._capture)

    def _capture(self, _store: str, key: bytes, value: bytes | None, *_context: Any) -> None:
        """Stands in for the task's ``log_change`` (timestamp and headers are not kept)."""
        self._pending[key] = value

    def write_back(self) -> int:
        """Write the captured changes to the ``MapState``; returns how many keys."""
        state, stored = self._state, self._stored
        written = len(self._pending)
        for key, value in self._pending.drain():
            if value is not None:
                state.updateValue((key,), (value,))
                stored.add(key)
            elif key in stored:
                state.removeKey((key,))
                stored.discard(key)
        return written


def typed_store(store: Any) -> Any:
    """The typed store under any wrappers (the DSL's record cache), or the store itself."""
    while not isinstance(store, TypedStore):
        if getattr(type(store), "wrapped", None) is None:  # (the class's: not a read a
            return store  # wrapper delegates to the store behind it)
        store = store.wrapped
    return store


def attach_spark_state(task: StreamTask, states: dict[str, Any], *,
                       preload: bool | None = None,
                       sizes: dict[str, int] | None = None,
                       records: int = 0) -> list[Any]:
    """Put every store of ``task`` (after ``initialize``) on its ``MapState``; the backends.

    ``sizes`` are the stores' entry counts after the last micro-batch (``None``: there was none,
    every store is empty): a store with at most ``records`` entries (the micro-batch's record
    count) is read whole at once. ``preload`` True reads every store whole, False only on a scan.
    """
    backends: list[Any] = []
    for name, store in task.stores.items():
        typed = typed_store(store)
        kind = getattr(typed, "store_kind", "")
        if not isinstance(typed, TypedStore):
            if kind not in _CHANGELOG_KINDS:
                msg = (f"store '{name}' is a {kind or type(typed).__name__} store, which Spark "
                       "state cannot hold; run this topology on ks.KafkaStreams")
                raise StoreError(msg)
            backends.append(ChangelogState(typed, states[name]))
            continue
        size = 0 if sizes is None else sizes.get(name)
        whole = preload if preload is not None else size is not None and size <= records
        backend = SparkStateBackend(name, states[name], preload=whole, size=size)
        typed.replace_backend(backend)  # (a timestamp-dropping adapter keeps its behaviour)
        reindex = getattr(typed, "reindex", None)
        if reindex is not None:  # window and session stores index their keys by time
            reindex()
        backends.append(backend)
    return backends


class TaskClocks:
    """Stream time, partition times, punctuation schedules, store and processor marks."""

    def __init__(self, state: Any) -> None:
        self._state = state

    def load(self) -> dict[str, Any] | None:
        """What the last micro-batch saved, or ``None`` before the first."""
        if not self._state.exists():
            return None
        saved: dict[str, Any] = json.loads(self._state.get()[0])
        return saved

    def restore(self, task: StreamTask, saved: dict[str, Any] | None) -> None:
        """Give ``task`` (just built, stores attached) what it had at the end of the last batch."""
        if saved is None:
            return
        group = task.partition_group
        group.stream_time = saved["stream_time"]
        for entry in saved["partitions"]:
            queue = group.queues.get((entry[0], entry[1]))
            if queue is not None:
                queue.partition_time = entry[2]
        _restore_queue(task.stream_time_queue, saved["stream"])
        _restore_queue(task.wall_clock_queue, saved["wall"])
        for name, marks in saved.get("stores", {}).items():
            store = task.stores.get(name)
            if store is not None:
                typed_store(store).restore_marks(marks)
        for name, marks in saved.get("processors", {}).items():
            processor = getattr(task.nodes.get(name), "processor", None)
            if processor is not None:
                _restore_processor_marks(processor, marks)

    def save(self, task: StreamTask, backends: list[Any],
             extra: dict[str, Any] | None = None) -> None:
        """Remember ``task``'s clocks and its stores' marks and sizes for the next micro-batch,
        with the engine's ``extra`` entries (JSON)."""
        group = task.partition_group
        saved = {
            "stream_time": group.stream_time,
            "partitions": [[t, p, q.partition_time] for (t, p), q in group.queues.items()],
            "stream": _times(task.stream_time_queue),
            "wall": _times(task.wall_clock_queue),
            "stores": {name: marks for name, store in task.stores.items()
                       if (marks := _marks(typed_store(store)))},
            "processors": {name: marks for name, node in task.nodes.items()
                           if (marks := _processor_marks(getattr(node, "processor", None)))},
            "sizes": {b.name: b.size for b in backends
                      if isinstance(b, SparkStateBackend) and b.size is not None},
            **(extra or {}),
        }
        self._state.update((json.dumps(saved),))


def _marks(store: Any) -> dict[str, int]:
    if not isinstance(store, TypedStore):
        return {}
    return store.marks()


def _processor_marks(processor: Any) -> dict[str, int]:
    """The stream time a DSL processor keeps in plain attributes: a window, session or suppress
    processor's ``observed`` time, a stream-stream join's shared time tracker. Carried across
    micro-batches so a micro-batch is not a restart: a record late for the run stays late."""
    marks: dict[str, int] = {}
    if isinstance(observed := getattr(processor, "observed", None), int):
        marks["observed"] = observed
    tracker = getattr(processor, "tracker", None)
    for attr in ("stream_time", "min_time"):
        if isinstance(value := getattr(tracker, attr, None), int):
            marks[f"tracker.{attr}"] = value
    return marks


def _restore_processor_marks(processor: Any, marks: dict[str, int]) -> None:
    for attr, value in marks.items():
        target = processor
        if attr.startswith("tracker."):
            target, attr = processor.tracker, attr.removeprefix("tracker.")
        setattr(target, attr, value)


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
