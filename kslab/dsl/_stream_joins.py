"""Windowed stream-stream joins: ``KStream.join / left_join / outer_join(other, joiner, windows)``.

Lowered as Java's ``KStreamImplJoin``: each side puts its records into its own window store
(retaining duplicates) through a ``KSTREAM-WINDOWED-`` node, a join processor per side looks up
the other side's store, and a ``KSTREAM-MERGE-`` node merges both. Invariant (KIP-633): a
left/outer record that found no partner is parked in the shared ``KSTREAM-OUTERSHARED-`` store and
emitted null-padded only when stream time has passed its window end plus grace; a later partner
removes it, so no spurious null-padded result is ever emitted.

(Over 600 lines: each join processor's batch form is written next to its record form and
shares its step, and the outer store's held view next to the store whose bytes it works out.)
"""

from __future__ import annotations

import struct
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from copy import copy
from pathlib import Path
from typing import Any

from kslab.dsl._graph import ProcessorGraphNode
from kslab.dsl._naming import resolve_config
from kslab.dsl._processors import skip_record
from kslab.dsl._tally import key_types, tally_keys
from kslab.dsl.config import internal
from kslab.dsl.joined import StreamJoined
from kslab.dsl.windows import JoinWindows
from kslab.errors import StoreError, StreamsError, TopologyError
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Record
from kslab.state import Stores
from kslab.state.base import ChangelogBackedMemoryStore, StoreBuilder, StoreContext, resolve_serde
from kslab.state.fresh import fresh_values
from kslab.state.windowed_builders import WindowBytesStoreSupplier

_NONE = type(None)

__all__ = ["HeldOuterWrites", "JoinSide", "PassThrough", "WindowPut", "stream_stream_join"]

_Q = struct.Struct(">q")
_I = struct.Struct(">i")
_VARIABLE_SIZE = b"\x01"


EMIT_INTERVAL_CONFIG = "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__"
# Java's default; the TopologyTestDriver sets the key to 0, as Kafka's does
_DEFAULT_EMIT_INTERVAL = 1000


class _TimeTracker:
    """Java's ``TimeTracker``: stream time, the smallest parked time and the emit throttle."""

    def __init__(self) -> None:
        self.stream_time = -1
        self.min_time = 2**63 - 1
        self.emit_interval = 1000
        self.next_time_to_emit = 0


class _Shared:
    """Per task: one time tracker shared by the two join processors."""

    def __init__(self) -> None:
        self.trackers: dict[Any, _TimeTracker] = {}

    def get(self, task_id: Any) -> _TimeTracker:
        return self.trackers.setdefault(task_id, _TimeTracker())


class OuterJoinStore(ChangelogBackedMemoryStore):
    """Java's outer-join ``ListValueStore``: parked records by ``(time, side, key)``, in order.

    Bytes as Java's: key = ``TimestampedKeyAndJoinSide`` (8-byte time, side byte 1 = left,
    key), each item a ``LeftOrRightValue`` (side byte, value), the stored and changelog value the
    whole list as ``ListSerde(ByteArray)`` (0x01, count, then length-prefixed items). The bytes
    live in a backend of the supplier's kind (in memory or RocksDB), as Java's store wraps one.
    """

    store_kind = "key_value_list"

    def __init__(self, name: str, key_serde: Any, left_serde: Any, right_serde: Any, *,
                 logging_enabled: bool, supplier: Any = None) -> None:
        super().__init__(name, key_serde, left_serde, logging_enabled=logging_enabled)
        self._right_spec = right_serde
        if supplier is None:
            supplier = Stores.in_memory_key_value_store(name)
        self._backend = supplier.get()

    @property
    def persistent(self) -> bool:
        """True over a RocksDB backend (Java's default DSL store type)."""
        return bool(self._backend.persistent)

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Open the backend (persistent ones in ``state_dir / name``), bind serdes and log."""
        directory = None
        if self._backend.persistent:
            if context.state_dir is None:
                msg = (f"Store '{self._name}' is persistent but this engine runs without a "
                       "state directory; give the join StreamJoined.with_dsl_store_suppliers("
                       "Materialized.StoreType.IN_MEMORY) or give the engine a state.dir")
                raise StoreError(msg)
            directory = Path(context.state_dir) / self._name
        self._backend.open(directory)
        super().init(context, root)

    def _bind_serdes(self, context: StoreContext) -> None:
        """The key serde and both sides' value serdes."""
        super()._bind_serdes(context)
        self.left_serde = self.value_serde
        self.right_serde = resolve_serde(self._right_spec, context.default_value_serde,
                                         self._name, is_key=False)

    def flush(self) -> None:
        """Flush the backend."""
        self._backend.flush()

    def close(self) -> None:
        """Close the backend (an in-memory one drops its entries)."""
        if self._open:
            self._backend.close()
        self._open = False

    def _key(self, timestamp: int, is_left: bool, key: Any) -> bytes:
        return _Q.pack(timestamp) + (b"\x01" if is_left else b"\x00") + \
            self.key_serde.serialize(self.topic, key)

    def add(self, timestamp: int, is_left: bool, key: Any, value: Any) -> None:
        """Park ``value`` of one side (appended to the list of its key, side and time)."""
        binary, stored = self._added(self._backend.get, timestamp, is_left, key, value)
        self._backend.put(binary, stored)
        if self._log is not None:
            self._log(self._name, binary, stored)

    def _added(self, get: Callable[[bytes], bytes | None], timestamp: int, is_left: bool,
               key: Any, value: Any) -> tuple[bytes, bytes]:
        """The binary key and new stored list of ``add`` (``get``: the stored list now)."""
        serde = self.left_serde if is_left else self.right_serde
        raw = (b"\x01" if is_left else b"\x00") + (serde.serialize(self.topic, value) or b"")
        binary = self._key(timestamp, is_left, key)
        old = get(binary)
        items = [] if old is None else _list_items(old, self._name)
        items.append(raw)
        return binary, _list_bytes(items)

    def held(self) -> HeldOuterWrites:
        """This store seen through a batch run's held writes (``HeldOuterWrites``)."""
        return HeldOuterWrites(self)

    def _apply_held(self, held: HeldOuterWrites, run: Any, origins: list[int]) -> None:
        """Phase two of ``held``: its writes in order, then their changelog records."""
        backend = self._backend
        for binary, stored in zip(held.binaries, held.stored, strict=True):
            if stored is None:
                backend.delete(binary)
            else:
                backend.put(binary, stored)
        log = self._log
        if log is None or not held.binaries:
            return
        append = run.changelog(self._name, log)
        if append is None:
            for binary, stored, timestamp in zip(held.binaries, held.stored, held.timestamps,
                                                 strict=True):
                log(self._name, binary, stored, timestamp)
            return
        append(held.binaries, held.stored, held.timestamps,
               lambda: list(map(origins.__getitem__, held.positions)))

    def remove(self, timestamp: int, is_left: bool, key: Any) -> None:
        """Drop the parked records of one key, side and time (a partner arrived)."""
        binary = self._key(timestamp, is_left, key)
        if self._backend.delete(binary) is not None and self._log is not None:
            self._log(self._name, binary, None)

    def drop(self, binary: bytes) -> None:
        """Drop an entry by its binary key (emitted)."""
        self._backend.delete(binary)
        if self._log is not None:
            self._log(self._name, binary, None)

    def items(self) -> list[tuple[bytes, bytes]]:
        """Every ``(binary key, stored list)`` in key order (``entries`` decodes one)."""
        return list(self._backend.all())

    def entries(self, binary: bytes, stored: bytes) -> list[tuple[Any, bool, Any]]:
        """The parked ``(key, is_left, value)`` records of one ``items()`` entry."""
        key = self.key_serde.deserialize(self.topic, binary[9:])
        entries = []
        for raw in _list_items(stored, self._name):
            is_left = raw[:1] == b"\x01"
            serde = self.left_serde if is_left else self.right_serde
            entries.append((key, is_left, serde.deserialize(self.topic, raw[1:])))
        return entries

    def snapshot(self) -> object:
        return self._backend.snapshot()

    def restore_snapshot(self, snapshot: object) -> None:
        self._backend.restore_snapshot(snapshot)

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        pairs = []
        for record in records:
            binary, value = record[0], record[1]
            if value is not None:
                _list_items(value, self._name)  # a wrong changelog fails here, not on emit
            pairs.append((binary, value))
        self._backend.restore_batch(pairs)


class HeldOuterWrites:
    """The outer store as a batch run's writes leave it (phase one): ``add``, ``remove``,
    ``drop``, ``items`` and ``entries`` as the store's own, over its entries and the writes
    held so far; each write kept in order (``binaries``, ``stored``: ``None`` for a delete,
    ``timestamps`` and ``positions``: the batch record whose processing wrote it, whose
    time stamps its changelog record) for ``OuterJoinStore._apply_held`` in phase two."""

    __slots__ = ("_base", "_now", "_store", "binaries", "position", "positions", "stored",
                 "timestamp", "timestamps")

    def __init__(self, store: OuterJoinStore) -> None:
        self._store = store
        self._now: dict[bytes, bytes | None] = {}  # what the held writes changed
        self._base: dict[bytes, bytes] | None = None  # the store's entries, once listed
        self.binaries: list[bytes] = []
        self.stored: list[bytes | None] = []
        self.timestamps: list[int] = []
        self.positions: list[int] = []
        self.position, self.timestamp = -1, -1  # the record being processed

    def _get(self, binary: bytes) -> bytes | None:
        now = self._now
        if binary in now:
            return now[binary]
        return self._store._backend.get(binary)

    def _write(self, binary: bytes, stored: bytes | None) -> None:
        self._now[binary] = stored
        self.binaries.append(binary)
        self.stored.append(stored)
        self.timestamps.append(self.timestamp)
        self.positions.append(self.position)

    def add(self, timestamp: int, is_left: bool, key: Any, value: Any) -> None:
        """``OuterJoinStore.add``, held."""
        self._write(*self._store._added(self._get, timestamp, is_left, key, value))

    def remove(self, timestamp: int, is_left: bool, key: Any) -> None:
        """``OuterJoinStore.remove``, held."""
        binary = self._store._key(timestamp, is_left, key)
        if self._get(binary) is not None:
            self._write(binary, None)

    def drop(self, binary: bytes) -> None:
        """``OuterJoinStore.drop``, held."""
        self._write(binary, None)

    def items(self) -> list[tuple[bytes, bytes]]:
        """``OuterJoinStore.items`` after the held writes."""
        base = self._base
        if base is None:
            base = self._base = dict(self._store.items())
        merged = {**base, **self._now} if self._now else base
        return sorted((binary, stored) for binary, stored in merged.items()
                      if stored is not None)

    def entries(self, binary: bytes, stored: bytes) -> list[tuple[Any, bool, Any]]:
        """``OuterJoinStore.entries``."""
        return self._store.entries(binary, stored)


def _list_bytes(items: list[bytes]) -> bytes:
    """Kafka's ``ListSerde(ByteArray)``: strategy byte 1 (variable size), count, sized items."""
    return b"".join([_VARIABLE_SIZE, _I.pack(len(items)),
                     *(_I.pack(len(raw)) + raw for raw in items)])


def _list_items(value: bytes, store: str) -> list[bytes]:
    """The items of a ``ListSerde(ByteArray)`` value (``_list_bytes`` reversed)."""
    if value[:1] != _VARIABLE_SIZE:
        msg = (f"outer join store '{store}': changelog value starts with {value[:1]!r}, not "
               "Kafka's ListSerde variable-size flag 0x01; is this the right changelog?")
        raise StoreError(msg)
    count = _I.unpack_from(value, 1)[0]
    items, pos = [], 5
    for _ in range(count):
        size = _I.unpack_from(value, pos)[0]
        items.append(value[pos + 4:pos + 4 + size])
        pos += 4 + size
    return items


class _OuterStoreBuilder(StoreBuilder):
    """Java's ``ListValueStoreBuilder`` over a key-value supplier (in memory or RocksDB)."""

    def __init__(self, supplier: Any, key_serde: Any, left: Any, right: Any) -> None:
        super().__init__(supplier.name, key_serde, left)
        self._supplier = supplier
        self._right = right

    @property
    def persistent(self) -> bool:
        """True when the supplier's backend is RocksDB."""
        return bool(self._supplier.persistent)

    def build(self) -> OuterJoinStore:
        """A new, unopened store with its own backend."""
        return OuterJoinStore(self._name, self._key_serde, self._value_serde, self._right,
                              logging_enabled=self._logging_enabled, supplier=self._supplier)


class WindowPut(Processor):
    """Java's ``KStreamJoinWindow``: puts each keyed record into its side's window store."""

    def __init__(self, store_name: str) -> None:
        self.store_name = store_name

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.store = context.get_state_store(self.store_name)

    def process(self, record: Record) -> None:
        if record.key is not None:
            self.store.put(record.key, record.value, record.timestamp)
        self.ctx.forward(record)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run: every keyed record's put held (``HeldWindowPuts``: its
        sequence number, the store's stream time, expiry and changelog record as the puts
        leave them); the batch forwarded as it is. ``None`` for a store that cannot hold
        them."""
        held = getattr(self.store, "held_puts", None)
        writes = None if held is None else held(batch, run)
        if writes is None:
            return None
        keys, values = batch.keys, batch.values
        timestamps = run.timestamps(batch)
        if _NONE in key_types(keys):
            positions = [position for position, key in enumerate(keys) if key is not None]
            keys, values, timestamps = (list(map(column.__getitem__, positions))
                                        for column in (keys, values, timestamps))
        else:
            positions = list(range(len(keys)))
        writes.put_all(keys, values, timestamps, positions)
        run.hold(writes)
        return batch


class JoinSide(Processor):
    """One side of the join (Java's ``KStreamKStreamJoinLeftSide`` / ``RightSide``)."""

    def __init__(self, other_store: str, windows: JoinWindows, joiner: Callable[..., Any],
                 outer: bool, outer_store: str | None, shared: _Shared, *,
                 is_left: bool) -> None:
        self.other_store = other_store
        self.windows = windows
        self.joiner = joiner
        self.outer = outer
        self.outer_store_name = outer_store
        self.shared = shared
        self.is_left = is_left
        if is_left:
            self.before, self.after = windows.before_ms, windows.after_ms
        else:
            self.before, self.after = windows.after_ms, windows.before_ms
        self.grace = windows.grace_ms

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.store = context.get_state_store(self.other_store)
        self.outer_store = None if self.outer_store_name is None else \
            context.get_state_store(self.outer_store_name)
        self.tracker = self.shared.get(context.task_id)
        if self.outer_store is not None:
            interval = context.app_configs().get(EMIT_INTERVAL_CONFIG)
            self.tracker.emit_interval = _DEFAULT_EMIT_INTERVAL if interval is None else \
                int(interval)

    def _join(self, key: Any, this: Any, other: Any) -> Any:
        return self.joiner(key, this, other) if self.is_left else self.joiner(key, other, this)

    def process(self, record: Record) -> None:
        forward = self.ctx.forward

        def emit(key: Any, value: Any, timestamp: int) -> None:
            out = record.with_value(value)
            if key is not record.key:
                out = out.with_key(key)
            forward(out if timestamp == record.timestamp else out.with_timestamp(timestamp))

        self._step(record.key, record.value, record.timestamp, self.tracker, self.outer_store,
                   self._fetch, emit, self._skip)

    def _fetch(self, key: Any, time_from: int, time_to: int) -> list[tuple[int, Any]]:
        with self.store.fetch(key, time_from, time_to) as it:
            return list(it)

    def _skip(self) -> None:
        skip_record(self.ctx, "null key or value")

    def _step(self, key: Any, value: Any, timestamp: int, tracker: _TimeTracker,
              outer_store: Any, fetch: Callable[[Any, int, int], list[tuple[int, Any]]],
              emit: Callable[[Any, Any, int], None], skip: Callable[[], None]) -> None:
        """One record (the record path's and the batch form's): its partners in the other
        side's store (``fetch``), joined and emitted (``emit``) in order, the outer store's
        parked records removed, closed or added (``outer_store``: the store, or a batch
        run's held view of it)."""
        tracker.stream_time = max(tracker.stream_time, timestamp)
        if self.outer and key is None and value is not None:
            emit(key, self._join(key, value, None), timestamp)
            return
        if key is None or value is None:
            skip()
            return
        if timestamp == tracker.stream_time and outer_store is not None:
            self._emit_closed(tracker, outer_store, emit)
        time_from = max(0, timestamp - self.before)
        time_to = max(0, timestamp + self.after)
        partners = fetch(key, time_from, time_to)
        for other_ts, other in partners:
            if outer_store is not None:
                outer_store.remove(other_ts, not self.is_left, key)
            emit(key, self._join(key, value, other), max(timestamp, other_ts))
        if self.outer and not partners:
            if outer_store is None or time_to < tracker.stream_time:
                emit(key, self._join(key, value, None), timestamp)
            else:
                tracker.min_time = min(tracker.min_time, timestamp)
                outer_store.add(timestamp, self.is_left, key, value)

    def _emit_closed(self, tracker: _TimeTracker, store: Any,
                     emit: Callable[[Any, Any, int], None]) -> None:
        windows = self.windows
        # Java adds in 64-bit longs: with nothing parked since a restart (min time = MAX) the
        # sum wraps negative, so records restored from the changelog are emitted
        if _long(tracker.min_time + self.after + self.grace) >= tracker.stream_time:
            return
        # throttled by wall-clock time, resynced to the clock on every emit (Java's clock drift fix)
        now = self.ctx.current_system_time_ms()
        if now < tracker.next_time_to_emit:
            return
        tracker.next_time_to_emit = now + tracker.emit_interval
        tracker.min_time = 2**63 - 1
        left_open = right_open = False
        for binary, stored in store.items():
            parked_ts = _Q.unpack_from(binary)[0]
            parked_left = binary[8:9] == b"\x01"
            tracker.min_time = parked_ts
            if left_open and right_open:
                break
            look_back = windows.after_ms if parked_left else windows.before_ms
            if tracker.min_time + look_back + self.grace >= tracker.stream_time:
                if parked_left:
                    left_open = True
                else:
                    right_open = True
                continue
            for key, is_left, value in store.entries(binary, stored):
                joined = self.joiner(key, value, None) if is_left else \
                    self.joiner(key, None, value)
                emit(key, joined, parked_ts)
            store.drop(binary)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of one side's records (the other side's store is not
        written by the run: a plan declines a chunk reaching both sides). Each distinct key
        read from the other side's store once, over the union of its records' time ranges
        (``fetch_keys``); then per record in order the record path's own step (``_step``):
        its partners picked from what was read, the joiner once per pair, the outer store
        (left and outer joins) and the shared time tracker worked on over held copies that
        phase two applies (``HeldOuterWrites``), a skipped record's warning deferred. The
        joined records go out with their own timestamps, each after its record's."""
        store = self.store
        fetch_keys = getattr(store, "fetch_keys", None)
        if fetch_keys is None or not getattr(store, "is_open", False):
            return None
        keys, values, origin = batch.keys, batch.values, batch.origin
        timestamps = run.timestamps(batch)
        joined = [position for position, (key, value) in enumerate(zip(keys, values,
                                                                        strict=True))
                  if key is not None and value is not None]
        before, after = self.before, self.after
        ids: dict[int, int] = {}
        found: list[tuple[list[int], list[Any]]] = []
        if joined:
            looked = list(map(keys.__getitem__, joined))
            tally = tally_keys(looked, store.key_serde, store.serialize_keys)
            count = len(tally.distinct)
            lows, highs = [2**63 - 1] * count, [-1] * count
            for position, key_id in zip(joined, tally.ids, strict=True):
                stamp = timestamps[position]
                lows[key_id] = min(lows[key_id], max(0, stamp - before))
                highs[key_id] = max(highs[key_id], max(0, stamp + after))
            ids = dict(zip(joined, tally.ids, strict=True))
            found = fetch_keys(tally.distinct, lows, highs)
        out_keys: list[Any] = []
        out_values: list[Any] = []
        out_stamps: list[int] = []
        parents: list[int] = []
        position = 0

        def fetch(key: Any, time_from: int, time_to: int) -> list[tuple[int, Any]]:
            starts, others = found[ids[position]]
            first = bisect_left(starts, time_from)
            end = bisect_right(starts, time_to, first)
            partners = fresh_values(others[first:end])  # each record's its own, as each
            return list(zip(starts[first:end], partners, strict=True))  # fetch decodes them

        def emit(key: Any, value: Any, timestamp: int) -> None:
            out_keys.append(key)
            out_values.append(value)
            out_stamps.append(timestamp)
            parents.append(position)

        def skip() -> None:
            run.defer(origin[position], self._skip, position)

        tracker = copy(self.tracker)
        outer = None if self.outer_store is None else self.outer_store.held()
        step = self._step
        for position, (key, value, stamp) in enumerate(zip(keys, values, timestamps,
                                                           strict=True)):
            if outer is not None:
                outer.position, outer.timestamp = position, stamp
            step(key, value, stamp, tracker, outer, fetch, emit, skip)
        run.hold(_HeldJoin(self, tracker, outer, run, origin))
        return Batch(out_keys, out_values, list(map(origin.__getitem__, parents)), out_stamps,
                     parents=parents)


class _HeldJoin:
    """Phase two of a join side's batch run: the shared time tracker as the run leaves it,
    and the outer store's held writes."""

    __slots__ = ("_origin", "_outer", "_run", "_side", "_tracker")

    def __init__(self, side: JoinSide, tracker: _TimeTracker,
                 outer: HeldOuterWrites | None, run: BatchRun, origin: list[int]) -> None:
        self._side, self._tracker, self._outer, self._run = side, tracker, outer, run
        self._origin = origin

    def apply(self) -> None:
        """Set the tracker's clocks; write the outer store's held writes."""
        tracker, held = self._side.tracker, self._tracker
        tracker.stream_time, tracker.min_time = held.stream_time, held.min_time
        tracker.next_time_to_emit = held.next_time_to_emit
        if self._outer is not None:
            self._side.outer_store._apply_held(self._outer, self._run, self._origin)


def _long(value: int) -> int:
    """``value`` as a Java long (two's complement, 64 bits)."""
    return (value + 2**63) % 2**64 - 2**63


class PassThrough(Processor):
    """Java's ``KStreamPassThrough``: the merge node below both join sides forwards as is."""

    def init(self, context: ProcessorContext) -> None:
        self.forward = context.forward

    def process(self, record: Record) -> None:
        self.forward(record)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """``process`` over a run: every record forwarded as it is."""
        return batch


def _check_store_suppliers(this: Any, other: Any, windows: JoinWindows) -> None:
    """Java's ``assertUniqueStoreNames`` and ``assertWindowSettings`` for user store suppliers."""
    if this is not None and other is not None and this.name == other.name:
        msg = "Both StoreSuppliers have the same name.  StoreSuppliers must provide unique names"
        raise StreamsError(msg)
    for supplier in (this, other):
        if supplier is None:
            continue
        if not supplier.retain_duplicates:
            msg = ("The StoreSupplier must set retainDuplicates=true, found "
                   "retainDuplicates=false")
            raise StreamsError(msg)
        if supplier.retention_period != windows.size() + windows.grace_ms or \
                supplier.window_size != windows.size():
            msg = (f"Window settings mismatch. WindowBytesStoreSupplier settings {supplier!r} "
                   f"must match JoinWindows settings {windows!r} for the window size and "
                   "retention period")
            raise StreamsError(msg)


def _outer_store_persistent(dsl_store_type: str | None, this_supplier: Any,
                            default_type: str) -> bool:
    """Java's ``OuterStreamJoinStoreFactory``: the StreamJoined's DSL store type if given, else
    the kind of the this-side store supplier, else the builder's default store type."""
    if dsl_store_type is not None:
        return dsl_store_type == "persistent"
    if isinstance(this_supplier, WindowBytesStoreSupplier):
        return bool(this_supplier.persistent)
    return default_type == "persistent"


def _joiner(joiner: Any, with_key: bool, op: str) -> Callable[[Any, Any, Any], Any]:
    if not callable(joiner):
        msg = f"{op}() needs a value joiner (left_value, right_value) -> joined; got {joiner!r}"
        raise TopologyError(msg)
    if with_key:
        return joiner
    return lambda key, left, right: joiner(left, right)


def stream_stream_join(left: Any, right: Any, joiner: Any, windows: Any,
                       stream_joined: Any = None, *, op: str, left_outer: bool,
                       right_outer: bool, with_key: bool = False, **shorthands: Any) -> Any:
    """``KStream.join/left_join/outer_join(other_stream, joiner, windows, stream_joined)``."""
    from kslab.dsl.kstream import KStream

    if not isinstance(windows, JoinWindows):
        msg = (
            f"{op}() of two KStreams needs JoinWindows, got {windows!r}; pass e.g. "
            "JoinWindows.of_time_difference_with_no_grace(10_000)"
        )
        raise TopologyError(msg)
    join3 = _joiner(joiner, with_key, op)
    sj = internal(resolve_config(StreamJoined, stream_joined, op, **shorthands))
    name = sj.name
    key_serde = sj.key_serde if sj.key_serde is not None else left.key_serde
    this_serde = sj.value_serde if sj.value_serde is not None else left.value_serde
    other_serde = sj.other_value_serde if sj.other_value_serde is not None else \
        right.value_serde
    if left.repartition_required:
        left = left.repartition_for_join(name + "-left" if name else left.name,
                                         sj.key_serde, sj.value_serde)
    if right.repartition_required:
        right = right.repartition_for_join(name + "-right" if name else right.name,
                                           sj.key_serde, sj.other_value_serde)
    b = left.builder
    b.copartition(left.source_nodes | right.source_nodes)

    def named(suffix: str, prefix: str) -> str:
        generated = b.new_processor_name(prefix)  # Java burns the index even when named
        return name + suffix if name else generated

    this_suffix = "-outer-this-join" if right_outer else "-this-join"
    other_suffix = "-outer-other-join" if left_outer else "-other-join"
    this_windowed = named("-this-windowed", "KSTREAM-WINDOWED-")
    other_windowed = named("-other-windowed", "KSTREAM-WINDOWED-")
    this_generated = b.new_processor_name("KSTREAM-OUTERTHIS-" if right_outer
                                          else "KSTREAM-JOINTHIS-")
    other_generated = b.new_processor_name("KSTREAM-OUTEROTHER-" if left_outer
                                           else "KSTREAM-JOINOTHER-")
    this_name = name + this_suffix if name else this_generated
    other_name = name + other_suffix if name else other_generated
    merge_name = named("-merge", "KSTREAM-MERGE-")
    base = sj.store_name
    this_supplier = getattr(sj, "this_store_supplier", None)
    other_supplier = getattr(sj, "other_store_supplier", None)
    _check_store_suppliers(this_supplier, other_supplier, windows)
    this_store = this_supplier.name if this_supplier is not None else \
        (base + this_suffix if base else this_generated) + "-store"
    other_store = other_supplier.name if other_supplier is not None else \
        (base + other_suffix if base else other_generated) + "-store"
    outer_store = None
    if left_outer:
        shared_suffix = "-outer-shared-join" if right_outer else "-left-shared-join"
        if this_supplier is not None and this_supplier.name:
            outer_store = this_supplier.name + shared_suffix + "-store"
        elif base:
            outer_store = base + shared_suffix + "-store"
        else:
            prefix = "KSTREAM-OUTERTHIS-" if right_outer else "KSTREAM-JOINTHIS-"
            outer_store = "KSTREAM-OUTERSHARED-" + this_generated[len(prefix):] + "-store"
    retention = windows.size() + windows.grace_ms
    logging = sj.logging
    log_config = dict(getattr(sj, "log_config", None) or {})

    dsl_store_type = getattr(sj, "dsl_store_type", None)

    def store_type() -> str:
        """The StreamJoined's DSL store type, else the builder's (known at build time)."""
        return dsl_store_type or getattr(b, "default_store_type", None) or "persistent"

    def window_store(store: str, value_serde: Any, supplier: Any) -> Callable[[], Any]:
        def build() -> Any:
            if supplier is None:
                factory = Stores.in_memory_window_store if store_type() == "in_memory" else \
                    Stores.persistent_window_store
                builder = Stores.window_store_builder(
                    factory(store, retention, windows.size(), True), key_serde, value_serde)
            else:  # Java logs a user-supplied store with the builder's defaults
                return Stores.window_store_builder(supplier, key_serde, value_serde)
            return builder.with_logging_enabled(log_config) if logging else \
                builder.with_logging_disabled()
        return build

    def outer_factory() -> Any:
        persistent = _outer_store_persistent(dsl_store_type, this_supplier, store_type())
        supplier = Stores.persistent_key_value_store(outer_store) if persistent else \
            Stores.in_memory_key_value_store(outer_store)  # type: ignore[arg-type]
        builder = _OuterStoreBuilder(supplier, key_serde, this_serde, other_serde)
        return builder.with_logging_enabled(log_config) if logging else \
            builder.with_logging_disabled()

    shared = _Shared()
    this_node = ProcessorGraphNode(
        this_windowed, lambda: WindowPut(this_store),
        store_factory=window_store(this_store, this_serde, this_supplier))
    b.add_node(left.node, this_node)
    other_node = ProcessorGraphNode(
        other_windowed, lambda: WindowPut(other_store),
        store_factory=window_store(other_store, other_serde, other_supplier))
    b.add_node(right.node, other_node)
    this_join = ProcessorGraphNode(
        this_name, lambda: JoinSide(other_store, windows, join3, left_outer, outer_store,
                                     shared, is_left=True),
        store_names=[other_store],
        store_factory=outer_factory if outer_store else None)
    other_join = ProcessorGraphNode(
        other_name, lambda: JoinSide(this_store, windows, join3, right_outer, outer_store,
                                      shared, is_left=False),
        store_names=[this_store, *([outer_store] if outer_store else [])])
    b.add_node(this_node, this_join)
    b.add_node(other_node, other_join)
    merge = ProcessorGraphNode(merge_name, PassThrough)
    b.add_node([this_join, other_join], merge)
    if left_outer or right_outer:
        merge.relaxed_null_key_join = True  # type: ignore[attr-defined]
    # the joined stream has the StreamJoined key serde or none (Java's KStreamImplJoin): the
    # stores keep the left stream's as their fallback
    return KStream(b, merge_name, sj.key_serde, None, left.source_nodes | right.source_nodes,
                   False, merge)

