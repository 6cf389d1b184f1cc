"""``KTable.suppress``: ``Suppressed`` and ``BufferConfig``, and the processor that buffers changes.

``until_window_closes`` buffers each window's latest change under the window end and emits it
once stream time reaches ``end + grace`` (tombstones dropped, as Java's final results do);
``until_time_limit`` buffers under the time of a key's first buffered change and emits the
key's latest change once ``time_to_wait`` of stream time has passed since then (Java's
non-resetting buffer: a newer change does not restart the wait). Reading a suppressed table
(a join's lookup) sees a buffered key's value from before its buffered changes. Invariant: stream
time here is the largest timestamp the suppress processor has seen, plus, only when
``kslab.idle.stream.time.advance.ms`` is set, the task's stream time punctuations, so default
behaviour is exactly Kafka Streams'.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kslab.dsl._change import Change
from kslab.dsl._graph import GraphNode, ProcessorGraphNode
from kslab.dsl.config import check_name, millis
from kslab.dsl.windows import SessionWindows, SlidingWindows, TimeWindows
from kslab.errors import StreamsError, TopologyError
from kslab.processor import Processor, ProcessorContext, PunctuationType
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Record, ValueAndTimestamp
from kslab.sensors import RateTotalSensor
from kslab.state.buffer import SuppressionBufferBuilder

__all__ = ["BufferConfig", "Suppressed", "suppress"]

SUPPRESS_NAME = "KTABLE-SUPPRESS-"
IDLE_ADVANCE_CONFIG = "kslab.idle.stream.time.advance.ms"
_UNBOUNDED = 2**63 - 1


class BufferConfig:
    """How much a suppression buffer may hold and what happens when it is full."""

    def __init__(self, max_records: int = _UNBOUNDED, max_bytes: int = _UNBOUNDED,
                 strategy: str = "emit", logging: bool = True,
                 log_config: dict[str, str] | None = None) -> None:
        self.max_records_ = max_records
        self.max_bytes_ = max_bytes
        self.strategy = strategy
        self.logging = logging
        self.log_config = dict(log_config or {})

    def _with(self, **changes: Any) -> BufferConfig:
        fields = {"max_records": self.max_records_, "max_bytes": self.max_bytes_,
                  "strategy": self.strategy, "logging": self.logging,
                  "log_config": self.log_config}
        fields.update(changes)
        return BufferConfig(**fields)

    @staticmethod
    def unbounded() -> BufferConfig:
        """No limit (Java's strict unbounded config)."""
        return BufferConfig(strategy="shut_down")

    @staticmethod
    def max_records(n: int) -> BufferConfig:
        """At most ``n`` keys; emits the oldest early when full unless told to shut down."""
        return BufferConfig(max_records=_positive(n, "max_records"))

    @staticmethod
    def max_bytes(n: int) -> BufferConfig:
        """At most ``n`` estimated bytes; emits the oldest early when full by default."""
        return BufferConfig(max_bytes=_positive(n, "max_bytes"))

    def with_max_records(self, n: int) -> BufferConfig:
        """Also cap the number of keys."""
        return self._with(max_records=_positive(n, "max_records"))

    def with_max_bytes(self, n: int) -> BufferConfig:
        """Also cap the estimated bytes."""
        return self._with(max_bytes=_positive(n, "max_bytes"))

    def with_no_bound(self) -> BufferConfig:
        """No limit; the task shuts down if memory runs out."""
        return self._with(max_records=_UNBOUNDED, max_bytes=_UNBOUNDED, strategy="shut_down")

    def emit_early_when_full(self) -> BufferConfig:
        """When full, emit the oldest records early instead of failing."""
        return self._with(strategy="emit")

    def shut_down_when_full(self) -> BufferConfig:
        """When full, fail the task with an error (never emit early)."""
        return self._with(strategy="shut_down")

    def with_logging_disabled(self) -> BufferConfig:
        """Keep the buffer in memory only (no changelog)."""
        return self._with(logging=False, log_config={})

    def with_logging_enabled(self, config: dict[str, Any] | None = None) -> BufferConfig:
        """Write the buffer's changelog with ``config`` as topic configs."""
        return self._with(logging=True, log_config={str(k): str(v)
                                                    for k, v in (config or {}).items()})

    def _key(self) -> tuple[Any, ...]:
        return (self.max_records_, self.max_bytes_, self.strategy, self.logging,
                tuple(sorted(self.log_config.items())))

    def __eq__(self, other: object) -> bool:
        """Equal bounds, policy and logging (Java's buffer configs compare by value)."""
        return isinstance(other, BufferConfig) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"BufferConfig(max_records={self.max_records_}, max_bytes={self.max_bytes_}, "
                f"when_full={self.strategy})")


def _positive(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        msg = f"BufferConfig.{what} got {n!r}; pass a non-negative int"
        raise TopologyError(msg)
    return n


class Suppressed:
    """What ``KTable.suppress`` holds back: until windows close, or for a time limit per key."""

    def __init__(self, final: bool, time_to_wait: int, buffer: BufferConfig,
                 name: str | None = None) -> None:
        self.final = final
        self.time_to_wait = time_to_wait
        self.buffer = buffer
        self.name = name

    @staticmethod
    def until_window_closes(buffer_config: BufferConfig | None = None) -> Suppressed:
        """Emit each window's final result once, when it closes (end + grace)."""
        buffer = buffer_config if buffer_config is not None else BufferConfig.unbounded()
        return Suppressed(True, 0, buffer.shut_down_when_full())

    @staticmethod
    def until_time_limit(time_to_wait: Any, buffer_config: BufferConfig | None = None
                         ) -> Suppressed:
        """Emit a key's latest change once ``time_to_wait`` ms of stream time passed."""
        wait = millis(time_to_wait, "until_time_limit")
        if wait is None or wait < 0:
            msg = f"until_time_limit got time_to_wait={time_to_wait!r}; pass ms >= 0"
            raise TopologyError(msg)
        buffer = buffer_config if buffer_config is not None else BufferConfig.unbounded()
        return Suppressed(False, wait, buffer)

    def with_name(self, name: str) -> Suppressed:
        """Name the suppress processor (its store becomes ``<name>-store``)."""
        return Suppressed(self.final, self.time_to_wait, self.buffer,
                          check_name(name, "Suppressed"))

    def __eq__(self, other: object) -> bool:
        """Same kind, wait, buffer and name (Java's SuppressedInternal compares by value)."""
        return isinstance(other, Suppressed) and (
            self.final, self.time_to_wait, self.buffer, self.name) == (
            other.final, other.time_to_wait, other.buffer, other.name)

    def __hash__(self) -> int:
        return hash((self.final, self.time_to_wait, self.buffer, self.name))

    def __repr__(self) -> str:
        kind = "until_window_closes" if self.final else f"until_time_limit({self.time_to_wait})"
        return f"Suppressed.{kind} {self.buffer!r}"


class SuppressSupplier:
    """Java's ``KTableSuppressProcessorSupplier``."""

    def __init__(self, suppressed: Suppressed, duration: int, store_name: str,
                 parent: Any) -> None:
        self.suppressed = suppressed
        self.duration = duration
        self.store_name = store_name
        self.parent = parent

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Old values pass through from the parent table."""
        return self.parent.enable_sending_old_values(force_materialization)

    def view(self) -> Any:
        """Java's suppressed view: a buffered key reads as its value before the buffered
        changes (what was last emitted downstream); any other key reads the parent table."""
        return _SuppressedGetterSupplier(self.parent.value_getter_supplier(), self.store_name)

    def __call__(self) -> Processor:
        return _SuppressProcessor(self)


class _SuppressedGetterSupplier:
    def __init__(self, parent: Any, store_name: str) -> None:
        self.parent = parent
        self.store_name = store_name

    def get(self) -> _SuppressedGetter:
        return _SuppressedGetter(self.parent.get(), self.store_name)

    def store_names(self) -> list[str]:
        """The buffer first, then the parent's stores (as Java's)."""
        return [self.store_name, *self.parent.store_names()]


class _SuppressedGetter:
    def __init__(self, parent: Any, store_name: str) -> None:
        self.parent = parent
        self.store_name = store_name

    def init(self, context: ProcessorContext) -> None:
        self.parent.init(context)
        self.buffer = context.get_state_store(self.store_name)

    def get(self, key: Any) -> ValueAndTimestamp | None:
        buffered, prior = self.buffer.prior_value_for_buffered(key)
        if not buffered:
            return self.parent.get(key)
        # Java cannot know the prior value's timestamp: RecordQueue.UNKNOWN
        return None if prior is None else ValueAndTimestamp(prior, -1)

    def close(self) -> None:
        close = getattr(self.parent, "close", None)
        if close is not None:
            close()


class _SuppressProcessor(Processor):
    def __init__(self, supplier: SuppressSupplier) -> None:
        self.s = supplier
        buffer = supplier.suppressed.buffer
        self.max_records = buffer.max_records_
        self.max_bytes = buffer.max_bytes_
        self.shut_down = buffer.strategy == "shut_down"
        self.final = supplier.suppressed.final
        self.observed = -1

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.buffer = context.get_state_store(self.s.store_name)
        self.node_name = getattr(getattr(context, "current", None), "name", self.s.store_name)
        node_metrics = getattr(context, "node_metrics", None)
        self.emitted = None if node_metrics is None else RateTotalSensor(
            node_metrics(), "suppression-emit", context.current_system_time_ms)
        idle = context.app_configs().get(IDLE_ADVANCE_CONFIG)
        if idle is not None and int(idle) > 0:
            context.schedule(1, PunctuationType.STREAM_TIME, self._on_stream_time)

    def _on_stream_time(self, timestamp: int) -> None:
        if timestamp > self.observed:
            self.observed = timestamp
            self._enforce(self.buffer, timestamp, self._emit)

    def process(self, record: Record) -> None:
        if record.timestamp > self.observed:
            self.observed = record.timestamp
        time = record.key.window.end if self.final else record.timestamp
        change = record.value
        metadata = self.ctx.record_metadata()
        topic, partition, offset = (metadata.topic, metadata.partition, metadata.offset) \
            if metadata is not None else ("", -1, -1)
        self.buffer.put(time, record.key, change.new_value, change.old_value,
                        (record.timestamp, offset, topic, partition, record.headers))
        self._enforce(self.buffer, self.observed, self._emit)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run, record by record in order, against the buffer's held
        writes (``HeldBufferWrites``: the buffer as the run's puts and evictions leave it,
        replayed in phase two with the changelog's commit flushes): each change put, then
        the due (and, over a bound, the oldest) entries evicted by the rule ``process``
        runs (``_enforce``). What it forwards: each evicted change (a window's tombstone
        dropped) under the context of the record that buffered it (``Batch.contexts``), after
        the change of the record that evicted it, with that context's timestamp. A buffer
        over its bound that shuts down raises here, so the run goes record by record and
        raises there. ``None`` (record by record) for a buffer that cannot hold the run's
        writes."""
        held = getattr(self.buffer, "held_writes", None)
        if held is None:
            return None
        writes = held(run)
        keys, changes, origin = batch.keys, batch.values, batch.origin
        timestamps, headers = run.timestamps(batch), run.headers(batch)
        final = self.final
        observed = self.observed
        forwards: list[tuple[int, Any, Change, int, Any]] = []
        position = 0

        def emit(key: Any, new: Any, old: Any, context: tuple[Any, ...]) -> None:
            if new is None and final:
                return
            timestamp, source, _ = context
            forwards.append((position, key, Change(new, old), timestamp,
                             None if source == origin[position] else source))

        enforce = self._enforce
        for position, key in enumerate(keys):
            timestamp = timestamps[position]
            if timestamp > observed:
                observed = timestamp
            change = changes[position]
            writes.put(origin[position], position, key.window.end if final else timestamp, key,
                       change.new_value, change.old_value, timestamp, headers[position])
            enforce(writes, observed, emit)
        writes.defer()
        if observed != self.observed or forwards:
            run.defer(origin[-1], partial(self._batch_done, observed, len(forwards)),
                      len(keys) - 1)
        contexts = [forward[4] for forward in forwards]
        parents = [forward[0] for forward in forwards]
        return Batch([forward[1] for forward in forwards], [forward[2] for forward in forwards],
                     list(map(origin.__getitem__, parents)),
                     [forward[3] for forward in forwards], parents=parents,
                     contexts=contexts if any(c is not None for c in contexts) else None)

    def _batch_done(self, observed: int, emitted: int) -> None:
        """Phase two of a run: the stream time it saw, and the emit sensor per forward."""
        self.observed = observed
        if self.emitted is not None:
            for _ in range(emitted):
                self.emitted.record(1.0)

    def _over(self, buffer: Any) -> bool:
        return buffer.num_records() > self.max_records or buffer.buffer_size() > self.max_bytes

    def _enforce(self, buffer: Any, observed: int,
                 emit: Callable[[Any, Any, Any, tuple[Any, ...]], None]) -> None:
        """Evict the entries due at stream time ``observed``, then, over a bound, the
        oldest (or fail, shutting down): the rule of both forms (``buffer``: the buffer,
        or a run's held writes of it)."""
        expiry = observed - self.s.duration
        buffer.evict_while(lambda: buffer.min_timestamp() <= expiry, emit)
        if self._over(buffer):
            if self.shut_down:
                msg = (
                    f"{self.node_name} buffer exceeded its max capacity. Currently "
                    f"[{buffer.num_records()}/{self.max_records}] records and "
                    f"[{buffer.buffer_size()}/{self.max_bytes}] bytes."
                )
                raise StreamsError(msg)
            buffer.evict_while(partial(self._over, buffer), emit)

    def _emit(self, key: Any, new: Any, old: Any, context: tuple[Any, ...]) -> None:
        """Forward an evicted change as Java's ``Eviction`` carries it: the latest change
        ``Change(new, old)`` under its own record context."""
        if new is None and self.final:
            return  # final results: a tombstone for a window is safe to drop
        timestamp, offset, topic, partition, headers = context
        # Java's emit restores the buffered record's context around the forward: downstream
        # sees the topic, partition and offset the change came from
        ctx: Any = self.ctx
        saved = (ctx.topic, ctx.partition, ctx.offset)
        ctx.topic, ctx.partition, ctx.offset = topic, partition, offset
        try:
            ctx.forward(Record(key, Change(new, old), timestamp, headers))
        finally:
            ctx.topic, ctx.partition, ctx.offset = saved
        if self.emitted is not None:
            self.emitted.record(1.0)


def _find_grace(node: GraphNode, chain: str = "") -> int:
    """Java's ``findAndVerifyWindowGrace``: the grace of the windowed aggregation upstream (for
    sessions grace + gap); through other nodes the largest of all parents' graces."""
    grace = _extract_grace(node)
    if grace is not None:
        return grace
    chain = node.name if not chain else f"{node.name}->{chain}"
    if not node.parents:
        msg = (f"Window close time is only defined for windowed computations. Got [{chain}]. "
               "Use Suppressed.until_time_limit for a table that is not windowed")
        raise TopologyError(msg)
    return max(_find_grace(parent, chain) for parent in node.parents)


def _extract_grace(node: GraphNode) -> int | None:
    """The grace a windowed aggregation node defines, or ``None`` for any other node."""
    supplier = getattr(node, "supplier", None)
    for candidate in (supplier, *getattr(supplier, "parents", ())):
        windows = getattr(candidate, "windows", None)
        if isinstance(windows, SessionWindows):
            return windows.grace_ms + windows.gap_ms
        if isinstance(windows, (TimeWindows, SlidingWindows)):
            return windows.grace_ms
    return None


NOT_VERSIONED = "suppress() is only supported for non-versioned KTables"


def _output_versioned(node: GraphNode) -> bool | None:
    """Java's ``isOutputVersioned``: known for nodes that own a table store, else ``None``."""
    known = getattr(node, "output_versioned", None)
    if known is not None:
        return bool(known)
    factory = getattr(node, "store_factory", None)
    if factory is None:
        return None
    builder = factory()
    return builder is not None and getattr(builder, "history_retention", None) is not None


def _versioned_upstream(node: GraphNode) -> bool:
    """Java's ``isVersionedUpstream``: every parent's output is (or inherits) versioned."""
    if not node.parents:
        return False
    for parent in node.parents:
        known = _output_versioned(parent)
        if not (known if known is not None else _versioned_upstream(parent)):
            return False
    return True


class _TableSuppressNode(ProcessorGraphNode):
    """Java's ``TableSuppressNode``: rejects a versioned input, inherited ones too, at build."""

    output_versioned = False

    def write(self, topology: Any) -> None:
        """Check the input is not versioned, then add the processor and its buffer."""
        if _versioned_upstream(self):
            msg = (f"{NOT_VERSIONED} (note that version semantics might be inherited from "
                   "upstream)")
            raise TopologyError(msg)
        super().write(topology)


def suppress(table: Any, suppressed: Suppressed) -> Any:
    """``KTable.suppress``: a table whose changes are held back as ``suppressed`` says."""
    from kslab.dsl.ktable import KTable

    if not isinstance(suppressed, Suppressed):
        msg = (
            f"suppress() got {suppressed!r}; pass Suppressed.until_window_closes("
            "BufferConfig.unbounded()) or Suppressed.until_time_limit(ms, BufferConfig...)"
        )
        raise TopologyError(msg)
    if _output_versioned(table.node):  # Java's eager check; the build checks upstream too
        raise TopologyError(NOT_VERSIONED)
    b = table.builder
    name = suppressed.name or b.new_processor_name(SUPPRESS_NAME)
    duration = _find_grace(table.node) if suppressed.final else suppressed.time_to_wait
    store_name = f"{suppressed.name}-store" if suppressed.name else b.new_store_name(
        SUPPRESS_NAME)
    supplier = SuppressSupplier(suppressed, duration, store_name, table)
    table.enable_sending_old_values(True)  # as Java's KTableSuppressProcessorSupplier
    config = suppressed.buffer

    def store_factory() -> Any:
        builder = SuppressionBufferBuilder(store_name, table.key_serde, table.value_serde)
        if config.logging:
            builder.with_logging_enabled(config.log_config)
        else:
            builder.with_logging_disabled()
        return builder

    node = _TableSuppressNode(name, supplier, store_factory=store_factory)
    b.add_node(table.node, node)
    return KTable(b, name, table.key_serde, table.value_serde, {table.name}, None, supplier,
                  node)
