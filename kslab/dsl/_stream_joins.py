"""Windowed stream-stream joins: ``KStream.join / left_join / outer_join(other, joiner, windows)``.

Lowered as Java's ``KStreamImplJoin``: each side puts its records into its own window store
(retaining duplicates) through a ``KSTREAM-WINDOWED-`` node, a join processor per side looks up
the other side's store, and a ``KSTREAM-MERGE-`` node merges both. Invariant (KIP-633): a
left/outer record that found no partner is parked in the shared ``KSTREAM-OUTERSHARED-`` store and
emitted null-padded only when stream time has passed its window end plus grace; a later partner
removes it, so no spurious null-padded result is ever emitted.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kslab.dsl._graph import ProcessorGraphNode
from kslab.dsl._naming import resolve_config
from kslab.dsl._processors import skip_record
from kslab.dsl.joined import StreamJoined
from kslab.dsl.windows import JoinWindows
from kslab.errors import StoreError, StreamsError, TopologyError
from kslab.processor import Processor, ProcessorContext
from kslab.records import Record
from kslab.state import Stores
from kslab.state.base import ChangelogBackedMemoryStore, StoreBuilder, StoreContext, resolve_serde
from kslab.state.windowed_builders import WindowBytesStoreSupplier

__all__ = ["JoinSide", "PassThrough", "WindowPut", "stream_stream_join"]

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
        serde = self.left_serde if is_left else self.right_serde
        raw = (b"\x01" if is_left else b"\x00") + (serde.serialize(self.topic, value) or b"")
        binary = self._key(timestamp, is_left, key)
        old = self._backend.get(binary)
        items = [] if old is None else _list_items(old, self._name)
        items.append(raw)
        stored = _list_bytes(items)
        self._backend.put(binary, stored)
        if self._log is not None:
            self._log(self._name, binary, stored)

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

    def _snapshot(self) -> object:
        return self._backend.snapshot()

    def _restore_snapshot(self, snapshot: object) -> None:
        self._backend.restore_snapshot(snapshot)

    def _restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        pairs = []
        for record in records:
            binary, value = record[0], record[1]
            if value is not None:
                _list_items(value, self._name)  # a wrong changelog fails here, not on emit
            pairs.append((binary, value))
        self._backend.restore_batch(pairs)


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
        tracker = self.tracker
        timestamp = record.timestamp
        tracker.stream_time = max(tracker.stream_time, timestamp)
        key, value = record.key, record.value
        if self.outer and key is None and value is not None:
            self.ctx.forward(record.with_value(self._join(key, value, None)))
            return
        if key is None or value is None:
            skip_record(self.ctx, "null key or value")
            return
        if timestamp == tracker.stream_time and self.outer_store is not None:
            self._emit_closed(record)
        time_from = max(0, timestamp - self.before)
        time_to = max(0, timestamp + self.after)
        with self.store.fetch(key, time_from, time_to) as it:
            partners = list(it)
        for other_ts, other in partners:
            if self.outer_store is not None:
                self.outer_store.remove(other_ts, not self.is_left, key)
            self.ctx.forward(record.with_value(self._join(key, value, other))
                             .with_timestamp(max(timestamp, other_ts)))
        if self.outer and not partners:
            if self.outer_store is None or time_to < tracker.stream_time:
                self.ctx.forward(record.with_value(self._join(key, value, None)))
            else:
                tracker.min_time = min(tracker.min_time, timestamp)
                self.outer_store.add(timestamp, self.is_left, key, value)

    def _emit_closed(self, record: Record) -> None:
        tracker, windows = self.tracker, self.windows
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
        store = self.outer_store
        for binary, stored in store.items():  # type: ignore[union-attr]
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
            for key, is_left, value in store.entries(binary, stored):  # type: ignore[union-attr]
                joined = self.joiner(key, value, None) if is_left else \
                    self.joiner(key, None, value)
                self.ctx.forward(record.with_key(key).with_value(joined)
                                 .with_timestamp(parked_ts))
            store.drop(binary)  # type: ignore[union-attr]


def _long(value: int) -> int:
    """``value`` as a Java long (two's complement, 64 bits)."""
    return (value + 2**63) % 2**64 - 2**63


class PassThrough(Processor):
    """Java's ``KStreamPassThrough``: the merge node below both join sides forwards as is."""

    def init(self, context: ProcessorContext) -> None:
        self.forward = context.forward

    def process(self, record: Record) -> None:
        self.forward(record)


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
    sj = resolve_config(StreamJoined, stream_joined, op, **shorthands)
    name = sj._name
    key_serde = sj._key_serde if sj._key_serde is not None else left.key_serde
    this_serde = sj._value_serde if sj._value_serde is not None else left.value_serde
    other_serde = sj._other_value_serde if sj._other_value_serde is not None else \
        right.value_serde
    if left.repartition_required:
        left = left._repartition_for_join(name + "-left" if name else left.name,
                                          sj._key_serde, sj._value_serde)
    if right.repartition_required:
        right = right._repartition_for_join(name + "-right" if name else right.name,
                                            sj._key_serde, sj._other_value_serde)
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
    base = sj._store_name
    this_supplier = getattr(sj, "_this_store_supplier", None)
    other_supplier = getattr(sj, "_other_store_supplier", None)
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
    logging = sj._logging
    log_config = dict(getattr(sj, "_log_config", None) or {})

    dsl_store_type = getattr(sj, "_dsl_store_type", None)

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
    return KStream(b, merge_name, sj._key_serde, None, left.source_nodes | right.source_nodes,
                   False, merge)

