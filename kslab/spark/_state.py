"""Store backends over Spark state: a task's stores and clocks kept by transformWithStateInPandas.

Every store of a task lives in one ``MapState``. ``SparkStateBackend`` backs the byte-backed
stores (key-value, timestamped, versioned, window, session) as a write-behind cache over 256
buckets of entries (one ``MapState`` entry each): a point read loads its key's bucket on first
use, a scan (range, prefix, ``all``, a window store rebuilding its segment index) loads every
bucket once, and the keys changed are written back once, when the micro-batch ends, as one run
entry (folded into the buckets when the runs outgrow the store). A store holding no more
entries than the micro-batch has records is read whole at once (one streamed read costs less
than a round trip per key). Stores that keep
objects rather than bytes (the suppression buffer, the outer-join store) are restored from
their changelog encoding and their changelog writes are captured into the ``MapState``
(``ChangelogState``). ``TaskClocks`` keeps the task's stream time, partition times, punctuation
schedules and each store's own observed stream time in a ``ValueState``.
Invariant: what Spark checkpoints after a micro-batch is exactly the bytes the core's stores and
clocks held when the task committed at its end — never a half-applied batch.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Iterator
from itertools import accumulate
from typing import Any
from zlib import crc32

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
BUCKETS = 256  # Spark state entries per byte-backed store (a power of two; fixed per checkpoint)
MAX_RUNS = 32  # runs (a micro-batch's changes each) a store keeps before folding them
_FOLD_MIN = 4096  # entries the runs may hold whatever the store's size
_TOMBSTONE = 0xFFFFFFFF  # a value length that marks a deleted key in a run
_MASK = BUCKETS - 1
_BUCKET_KEYS = [b.to_bytes(2, "big") for b in range(BUCKETS)]
_COUNT = struct.Struct("<I")
# how stores sit in Spark state (kept with each task's clocks and beside the checkpoint): v3,
# buckets and runs, groups spread over the shuffle partitions
# (``kslab.spark._groups.spread_keys``); v2 rewrote every changed bucket each micro-batch,
# grouped by Kafka partition; "buckets-256" held each entry's lengths before its bytes
LAYOUT = f"buckets-{BUCKETS}-runs-v3"


def spark_backed_kinds() -> tuple[str, ...]:
    """The store kinds streaming on Spark keeps in Spark state."""
    return _BYTE_KINDS + _CHANGELOG_KINDS


class SparkStateBackend(InMemoryKeyValueBackend):
    """The sorted in-memory backend as a write-behind cache over one Spark ``MapState``.

    The store's entries are spread over ``BUCKETS`` buckets by the CRC-32 of their key, and
    each bucket is one entry of the ``MapState`` holding all of its entries encoded together
    (``_encode``, in columns). A call on Spark state is a round trip to the JVM's state server,
    so reading per bucket rather than per key bounds a micro-batch's reads by the buckets it
    touches. A micro-batch's changes are written back as one more entry, a *run* (the changed
    keys with their values, a deleted key marked), so that writing back costs what changed, not
    the store; runs take precedence over the buckets, later runs over earlier ones, and are
    folded into the buckets (every bucket they touch rewritten, the runs removed) once they
    would hold as many entries as the store (at least ``_FOLD_MIN``), or ``MAX_RUNS`` of them:
    amortized, a micro-batch writes about twice the keys it changed. With ``preload`` every
    bucket is read when the task opens; otherwise a bucket on the first ``get`` of one of its
    keys, and every bucket on the first scan; the runs (``runs``: how many, and their entries
    in all) are read when it opens.
    """

    def __init__(self, name: str, state: Any, *, preload: bool = False,
                 size: int | None = None, runs: tuple[int, int] = (0, 0)) -> None:
        super().__init__(name)
        self._state = state
        self._dirty: set[bytes] = set()  # keys changed in memory since the micro-batch began
        self._buckets: dict[int, set[bytes]] = {}  # bucket read -> the keys its entry holds
        self._logged: dict[bytes, bytes | None] = {}  # the runs' keys, newest value (None: gone)
        self.runs, self.logged = runs  # runs in Spark state, entries in them
        self._complete = False
        self.size = size  # entries in the MapState, when known
        self.folds = 0  # times this backend folded the runs into the buckets
        self.get = self._get  # type: ignore[method-assign]
        for run in range(self.runs):
            row = state.getValue((_run_key(run),))
            if row is None:
                msg = (f"store '{name}': run {run} of {self.runs} is missing from Spark state; "
                       "the checkpoint is damaged: start from a new checkpoint_location")
                raise StoreError(msg)
            self._logged.update(_decode(bytes(row[0])))
        for key, value in self._logged.items():
            if value is not None:
                self._map[key] = value
        if preload:
            self._load_all()

    def rebind(self, state: Any) -> None:
        """Serve a later micro-batch from the same entries over its ``MapState`` (the task
        kept open in its worker, ``kslab.spark._warm``: memory equals Spark state)."""
        if self._dirty:
            msg = f"store '{self.name}' was kept open with writes not written back"
            raise StoreError(msg)
        self._state = state

    def _get(self, key: bytes) -> bytes | None:
        value = self._map.get(key)
        if value is not None or self._complete or key in self._logged:
            return value
        bucket = crc32(key) & _MASK
        if bucket in self._buckets:  # read already: absent, or deleted in memory
            return None
        self._read_bucket(bucket)
        return self._map.get(key)

    def _read_bucket(self, bucket: int) -> None:
        row = self._state.getValue((_BUCKET_KEYS[bucket],))
        self._take(bucket, {} if row is None else _decode(bytes(row[0])))

    def _take(self, bucket: int, entries: dict[bytes, bytes | None]) -> None:
        """Remember a bucket as read; its entries join memory unless a run or this micro-batch
        changed them since."""
        self._buckets[bucket] = set(entries)
        memory, dirty, logged = self._map, self._dirty, self._logged
        for key, value in entries.items():
            if key not in dirty and key not in logged and value is not None:
                memory[key] = value  # (a new key of the map: sorted in by the next scan)

    def _load_all(self) -> None:
        """Read every bucket memory has not read yet (once)."""
        if self._complete:
            return
        for (name,), (blob,) in self._state.iterator():
            name = bytes(name)
            if len(name) != len(_BUCKET_KEYS[0]):
                continue  # a run: read when the backend opened
            bucket = int.from_bytes(name, "big")
            if bucket not in self._buckets:
                self._take(bucket, _decode(bytes(blob)))
        for bucket in range(BUCKETS):
            self._buckets.setdefault(bucket, set())
        self._complete = True
        buckets = self._buckets
        self.size = sum(map(len, buckets.values())) + sum(
            (value is not None) - (key in buckets[crc32(key) & _MASK])
            for key, value in self._logged.items())

    def put(self, key: bytes, value: bytes) -> None:
        """Write in memory; remembered for the end of the micro-batch. A new key joins the
        map only: the sorted keys take it in at the next scan (the base class's invariant),
        so a micro-batch that never scans never sorts."""
        self._map[key] = value
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
        self._dirty.update(key for key, _ in entries)

    def put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        """Write only when ``key`` is absent (looking it up in Spark state first)."""
        old = self._get(key)
        if old is None:
            self.put(key, value)
        return old

    def delete(self, key: bytes) -> bytes | None:
        """Delete in memory; remembered for the end of the micro-batch."""
        self._get(key)
        self._dirty.add(key)
        return super().delete(key)

    def delete_all(self, keys: Iterable[bytes]) -> None:
        """Delete every key (a window store dropping an expired segment); each is remembered
        for the end of the micro-batch (the base class's bulk path would not tell)."""
        keys = list(keys)
        for key in keys:
            self._get(key)
        self._dirty.update(keys)
        super().delete_all(keys)

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
        self._dirty.update(k for k in before.keys() | self._map.keys()
                           if before.get(k) != self._map.get(k))

    def close(self) -> None:
        """Keep the entries: Spark state, not this object, owns them."""

    def write_back(self) -> int:
        """Write the keys changed since loading to the ``MapState``: one run, or a fold when
        the runs would outgrow the store (a changed key's bucket not read yet is read first,
        to tell whether the key is new); returns how many keys changed."""
        dirty = self._dirty
        if not dirty:
            return 0
        memory, logged, buckets = self._map, self._logged, self._buckets
        grown = 0
        for key in dirty:
            if key in logged:
                before = logged[key] is not None
            else:
                bucket = crc32(key) & _MASK
                if bucket not in buckets:
                    self._read_bucket(bucket)
                before = key in buckets[bucket]
            grown += (key in memory) - before
        if self.size is not None:
            self.size += grown
        written = len(dirty)
        if self.logged + written >= max(_FOLD_MIN, self.size or 0) or self.runs >= MAX_RUNS:
            self._fold()
        else:
            keys = list(dirty)
            values = list(map(memory.get, keys))
            self._state.updateValue((_run_key(self.runs),), (_encode(keys, values),))
            logged.update(zip(keys, values, strict=True))
            self.runs += 1
            self.logged += written
        dirty.clear()
        return written

    def _fold(self) -> None:
        """Rewrite from memory every bucket a run or this micro-batch changed; drop the runs."""
        memory, buckets, state = self._map, self._buckets, self._state
        touched: dict[int, set[bytes]] = {}
        for key in (*self._logged, *self._dirty):
            touched.setdefault(crc32(key) & _MASK, set()).add(key)
        for bucket, keys in touched.items():
            if bucket not in buckets:
                self._read_bucket(bucket)
            had = bool(buckets[bucket])
            stored = buckets[bucket] = {k for k in buckets[bucket] | keys if k in memory}
            if stored:
                names = list(stored)
                state.updateValue((_BUCKET_KEYS[bucket],),
                                  (_encode(names, list(map(memory.__getitem__, names))),))
            elif had:
                state.removeKey((_BUCKET_KEYS[bucket],))
        for run in range(self.runs):
            state.removeKey((_run_key(run),))
        self._logged.clear()
        self.runs = self.logged = 0
        self.folds += 1


def _run_key(run: int) -> bytes:
    """A run's ``MapState`` key (longer than a bucket's two bytes)."""
    return b"run" + run.to_bytes(4, "big")


def _encode(keys: list[bytes], values: list[bytes | None]) -> bytes:
    """Entries as one value, in columns so that C loops build it: the entry count, every
    key's length, every value's length (little-endian 4 bytes each; ``_TOMBSTONE`` for a
    deleted key, in a run), the keys, the values."""
    n = len(keys)
    lengths = [_TOMBSTONE if v is None else len(v) for v in values] if None in values \
        else list(map(len, values))
    return b"".join([_COUNT.pack(n), struct.pack(f"<{2 * n}I", *map(len, keys), *lengths),
                     *keys, *(v for v in values if v is not None)])


def _decode(blob: bytes) -> dict[bytes, bytes | None]:
    """The entries ``_encode`` wrote (``None`` for a deleted key)."""
    (n,) = _COUNT.unpack_from(blob, 0)
    lengths = struct.unpack_from(f"<{2 * n}I", blob, 4)
    gone = _TOMBSTONE in lengths
    ends = list(accumulate([0 if x == _TOMBSTONE else x for x in lengths] if gone else lengths,
                           initial=4 + 8 * n))
    keys = [blob[ends[i]:ends[i + 1]] for i in range(n)]
    values = [blob[ends[i]:ends[i + 1]] for i in range(n, 2 * n)]
    if gone:
        values = [None if lengths[n + i] == _TOMBSTONE else v for i, v in enumerate(values)]
    return dict(zip(keys, values, strict=True))


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

    def rebind(self, state: Any) -> None:
        """Serve a later micro-batch over its ``MapState`` (the task kept open in its worker,
        ``kslab.spark._warm``: the store equals Spark state)."""
        if self._pending:
            msg = "a store was kept open with changes not written back"
            raise StoreError(msg)
        self._state = state

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
                       records: int = 0,
                       runs: dict[str, list[int]] | None = None) -> list[Any]:
    """Put every store of ``task`` (after ``initialize``) on its ``MapState``; the backends.

    ``sizes`` are the stores' entry counts after the last micro-batch (``None``: there was none,
    every store is empty): a store with at most ``records`` entries (the micro-batch's record
    count) is read whole at once; ``runs`` are the stores' runs (how many, their entries).
    ``preload`` True reads every store whole, False only on a scan.
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
        backend = SparkStateBackend(name, states[name], preload=whole, size=size,
                                    runs=tuple((runs or {}).get(name, (0, 0))))
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
        if saved.get("layout") != LAYOUT:
            msg = ("this Spark checkpoint's state was written by an older kslab (layout "
                   f"'{saved.get('layout', 'one MapState entry per store key')}'); this one "
                   f"keeps stores as '{LAYOUT}' and cannot read it; start from a new "
                   "checkpoint_location")
            raise StoreError(msg)
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
            "runs": {b.name: [b.runs, b.logged] for b in backends
                     if isinstance(b, SparkStateBackend) and b.runs},
            **(extra or {}),
            "layout": LAYOUT,
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
