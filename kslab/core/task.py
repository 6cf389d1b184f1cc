"""A stream task: one set of sub-topology nodes run for one partition, with its stores and clocks.

The task owns its partition group (so its stream time), its two punctuation queues, its processor
instances and its stores. Engines feed it raw records with ``add_record`` and drive it with
``process`` / ``maybe_punctuate_*`` / ``commit``; it hands serialized output to the engine's
``RecordCollector``. Invariant: one ``process`` call handles exactly one input record, depth first
through the graph, before anything else happens in the task.

Over 600 lines because the one per-record step and what surrounds it (queues, punctuation,
commits, snapshots) share the task's state; its contracts with engines are in
``task_contracts``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kslab.config import StreamsConfig
from kslab.core.commit_metadata import (
    ProcessorMetadata,
    decode_commit_metadata,
    encode_commit_metadata,
)
from kslab.core.context import TaskContext
from kslab.core.error_policy import deserialization_handler
from kslab.core.idle import IdleStreamTime
from kslab.core.nodes import (
    FixedKeyProcessorRuntime,
    ProcessorRuntime,
    RuntimeNode,
    SinkRuntime,
    SourceRuntime,
)
from kslab.core.partition_group import UNKNOWN, PartitionGroup
from kslab.core.punctuation import PunctuationQueue, Schedule
from kslab.core.record_queue import ConsumerRecord, RecordDeserializer, RecordQueue
from kslab.core.task_contracts import RecordCollector, StepGuard, TaskMetrics
from kslab.errors import KslabError, StoreError, StreamsError
from kslab.processor import PunctuationType
from kslab.records import Record, TaskId, source_record
from kslab.serdes import resolve as resolve_serde
from kslab.topology._nodes import ProcessorNode, SinkNode, SourceNode
from kslab.topology.topology import Topology

__all__ = ["StreamTask", "wired_serde"]

log = logging.getLogger("kslab.core")


class StreamTask:
    """Runs ``node_names`` of ``topology`` for one partition."""

    def __init__(
        self,
        task_id: TaskId,
        topology: Topology,
        node_names: Iterable[str],
        *,
        config: StreamsConfig,
        application_id: str,
        collector: RecordCollector,
        clock: Callable[[], int],
        input_partitions: Iterable[tuple[str, int]],
        state_dir: Path | None = None,
        global_stores: dict[str, Any] | None = None,
        context_factory: Callable[[StreamTask], TaskContext] = TaskContext,
        on_skip: Callable[[ConsumerRecord, BaseException], None] | None = None,
    ) -> None:
        self.id = task_id
        self.topology = topology
        self.config = config
        self.application_id = application_id
        self.collector = collector
        self.clock = clock
        self.state_dir = state_dir
        self.global_stores: dict[str, Any] = global_stores if global_stores is not None else {}
        self.metrics = TaskMetrics()
        self.commit_requested = False
        self.processed_rows = 0  # process_rows: rows done before the one that raised
        # named values processors keep across restarts, committed with the input offsets
        self.processor_metadata = ProcessorMetadata()
        self._on_skip_hook = on_skip
        self.default_key_serde = resolve_serde(config.get("default.key.serde"), is_key=True)
        self.default_value_serde = resolve_serde(config.get("default.value.serde"), is_key=False)
        self._handler = deserialization_handler(config)
        self.context = context_factory(self)
        # the error policy's guard (``kslab.core.error_policy.TaskGuard``) when handlers could
        # continue or a DLQ is written: told each step's raw record, it runs punctuations
        self.guard: StepGuard | None = None
        self.stream_time_queue = PunctuationQueue()
        self.wall_clock_queue = PunctuationQueue()
        self.idle = IdleStreamTime.from_config(config)  # opt-in: kslab.idle.stream.time...

        self.node_names = [n for n in topology.nodes if n in set(node_names)]
        self.nodes: dict[str, RuntimeNode] = {}
        self._build_nodes()
        self.stores: dict[str, Any] = {}
        self.cached_stores: list[Any] = []  # stores with a record cache, flushed on commit
        # store name -> its own restore listener (``context.register`` or the builder's
        # ``with_restore_listener``), told that store's changelog restores by the live runtime
        self.restore_listeners: dict[str, Any] = {}
        # (engines read it: a chunk's record cache holds its writes only where it is the one)
        self.changelog_topics: dict[str, str] = {}
        self._queues = self._build_queues(input_partitions)
        self.max_idle_ms = int(config.get("max.task.idle.ms") or 0)
        self.partition_group = PartitionGroup(self._queues, self.max_idle_ms, self.metrics)
        # the engine's view of each input partition's lag beyond what its queue holds (Kafka's
        # fetched lag: ``None`` while unknown); ``None``: nothing beyond (the test driver)
        self.fetched_lag: Callable[[tuple[str, int]], int | None] | None = None
        self._initialized = False
        # the engine's hook between opening the stores and the processors' init (the runtime
        # lets stores hold writes there, before processors take their store views)
        self.on_stores_open: Callable[[StreamTask], None] | None = None
        self.closed = False

    # -- construction -------------------------------------------------------------------------

    def _serde(self, serde: Any, default: Any) -> Any:
        return wired_serde(serde, default, is_key=default is self.default_key_serde)

    def resolve_topic(self, topic: str) -> str:
        """A topic's real name (internal topics carry the application id)."""
        return self.topology.resolve_topic(topic, self.application_id)

    def _build_nodes(self) -> None:
        context = self.context
        for name in self.node_names:
            node = self.topology.nodes[name]
            if isinstance(node, SourceNode):
                runtime: RuntimeNode = SourceRuntime(
                    name, context,
                    self._serde(node.key_serde, self.default_key_serde),
                    self._serde(node.value_serde, self.default_value_serde),
                )
            elif isinstance(node, ProcessorNode):
                kind = FixedKeyProcessorRuntime if node.fixed_key else ProcessorRuntime
                runtime = kind(
                    name, context, node.supplier, list(node.stores), fixed_key=node.fixed_key
                )
            elif isinstance(node, SinkNode):
                runtime = SinkRuntime(
                    name, context,
                    None if node.topic is None else self.resolve_topic(node.topic),
                    node.topic_extractor,
                    self._serde(node.key_serde, self.default_key_serde),
                    self._serde(node.value_serde, self.default_value_serde),
                    node.partitioner,
                )
            else:  # pragma: no cover - the topology only holds these three kinds
                msg = f"unknown node kind {node!r}"
                raise KslabError(msg)
            self.nodes[name] = runtime
        for name in self.node_names:
            for child in self.topology.nodes[name].children:
                if child in self.nodes:
                    self.nodes[name].add_child(self.nodes[child])

    def _build_queues(
        self, input_partitions: Iterable[tuple[str, int]]
    ) -> dict[tuple[str, int], RecordQueue]:
        queues: dict[tuple[str, int], RecordQueue] = {}
        deserializers: dict[str, RecordDeserializer] = {}
        for topic, partition in input_partitions:
            source = self.source_for(topic)
            deserializer = deserializers.get(source.name)
            if deserializer is None:
                deserializer = RecordDeserializer(
                    source.name,
                    source.key_serde,
                    source.value_serde,
                    self._extractor_for(source.name),
                    self._handler,
                    self._skipped,
                    self.id,
                )
                deserializers[source.name] = deserializer
            queues[(topic, partition)] = RecordQueue(topic, partition, source, deserializer)
        return queues

    def _extractor_for(self, source_name: str) -> Callable[..., int] | None:
        """The source's timestamp extractor, else ``default.timestamp.extractor``: a function,
        an object with Java's ``extract(record, partition_time)``, a class, or a built-in
        one's (Java) class name; ``None`` means the record's own timestamp, failing if negative."""
        from kslab.processor.timestamps import resolve_timestamp_extractor

        node = self.topology.nodes[source_name]
        extractor = getattr(node, "timestamp_extractor", None)
        if extractor is not None:
            extractor = resolve_timestamp_extractor(extractor, source=source_name)
        else:
            extractor = resolve_timestamp_extractor(
                self.config.get("default.timestamp.extractor"))
        if getattr(extractor, "uses_record_timestamp", False):
            return None  # FailOnInvalidTimestamp: what the queue does without an extractor
        if getattr(extractor, "uses_wall_clock", False):
            clock = self.clock
            return lambda record, partition_time: clock()  # the driver's mocked clock
        extract = getattr(extractor, "extract", None)
        if callable(extract):
            return extract  # type: ignore[no-any-return]
        if extractor is not None and not callable(extractor):
            msg = (
                f"timestamp extractor {extractor!r} of source '{source_name}' is neither "
                "callable nor has extract(record, partition_time); pass a function "
                "(record, partition_time) -> int"
            )
            raise KslabError(msg)
        return extractor  # type: ignore[no-any-return]

    def source_for(self, topic: str) -> SourceRuntime:
        """The source node of this task that reads ``topic`` (a name or a pattern's match)."""
        for name, runtime in self.nodes.items():
            if isinstance(runtime, SourceRuntime):
                node = self.topology.nodes[name]
                if isinstance(node, SourceNode) and (
                    node.matches(topic)
                    or any(self.resolve_topic(t) == topic for t in node.topics)
                ):
                    return runtime
        msg = f"task {self.id} has no source for topic '{topic}'"
        raise KslabError(msg)

    def init_committed(self, committed: dict[tuple[str, int], str | None]) -> None:
        """Take back what the last commit left in each input partition's offset metadata (its
        partition time and the processor metadata), before ``initialize``, as Java's
        ``StreamTask.initializeTaskTimeAndProcessorMetadata`` does."""
        metadata = ProcessorMetadata()
        group = self.partition_group
        for tp, text in committed.items():
            queue = self._queues.get(tp)
            if queue is None or text is None:
                continue
            partition_time, committed_metadata = decode_commit_metadata(text)
            if partition_time > group.stream_time:
                group.stream_time = partition_time
            queue.partition_time = partition_time
            metadata.update(committed_metadata)
        self.processor_metadata = metadata

    def committable_metadata(self, consumed: Iterable[tuple[str, int]]
                             ) -> dict[tuple[str, int], str]:
        """The offset metadata to commit per partition: the ``consumed`` ones, or every input
        partition while the processor metadata changed (whichever one a restart reads back
        carries it); ``commit_done`` clears the change."""
        metadata = self.processor_metadata
        partitions = self._queues if metadata.needs_commit else consumed
        return {tp: encode_commit_metadata(self._queues[tp].partition_time, metadata)
                for tp in partitions if tp in self._queues}

    def commit_done(self) -> None:
        """The engine committed the offsets and their metadata."""
        self.processor_metadata.needs_commit = False

    def initialize(self) -> None:
        """Create and open the stores, then call every processor's ``init``, in node order."""
        if self._initialized:
            return
        self._initialized = True
        self.open_stores()
        if self.on_stores_open is not None:
            self.on_stores_open(self)
        for runtime in self.nodes.values():
            self.context.current = runtime
            runtime.init()
        self.context.current = None

    def open_stores(self) -> None:
        """Create and open the task's stores, in node order, without the processors' ``init``.

        A standby task stops here (Kafka's ``StandbyTask``): its stores follow their
        changelogs through ``restore_changelog`` and its processors never run.
        """
        for name in self.node_names:
            node = self.topology.nodes[name]
            if isinstance(node, ProcessorNode):
                for store_name in node.stores:
                    if store_name not in self.stores and store_name not in self.global_stores:
                        self._open_store(store_name)

    def _open_store(self, store_name: str) -> None:
        builder = self.topology.state_stores.get(store_name)
        global_spec = self.topology.global_stores.get(store_name)
        if builder is None and global_spec is not None:
            # the global task owns global stores: their source topic is their changelog
            builder = global_spec.store_builder
            if getattr(builder, "restore_listener", None) is not None:
                self.restore_listeners[store_name] = builder.restore_listener
            store = builder.build()
            store.init(self.context)
            self.stores[store_name] = store
            return
        if builder is None:
            msg = (
                f"processor uses store '{store_name}' but no such store was added; add it with "
                "Topology.add_state_store"
            )
            raise KslabError(msg)
        changelog = self.topology.changelog_topic_for(store_name, self.application_id)
        if changelog is not None:
            self.changelog_topics[store_name] = changelog
        listener = getattr(builder, "restore_listener", None)
        if listener is not None:
            self.restore_listeners[store_name] = listener
        store = builder.build()
        store.init(self.context)
        self.stores[store_name] = store
        if hasattr(store, "flush_cache"):
            self.cached_stores.append(store)

    def restore_changelog(self, store_name: str, records: Iterable[tuple[Any, ...]]) -> int:
        """Write changelog records ``(key_bytes, value_bytes, timestamp)`` into a store, unlogged.

        This is the restore path of every engine: on assignment a task replays its stores'
        changelogs before it processes input. A record may be a ``ChangelogRecord`` (the same
        three fields, then headers, topic, partition and offset), which reaches the store as
        it is: the suppression buffer reads its format version from the headers, every other
        store reads the first three fields. Returns the number of records applied.
        """
        store = self.stores.get(store_name)
        if store is None:
            known = sorted(self.stores) or "none"
            msg = (
                f"task {self.id} has no store '{store_name}' to restore (its stores: {known}); "
                "check the store name"
            )
            raise StoreError(msg)
        batch = list(records)
        store.restore_batch(batch)
        return len(batch)

    # -- input --------------------------------------------------------------------------------

    def add_record(self, record: tuple) -> None:
        """Queue a raw record (a ``ConsumerRecord`` or a tuple in its field order)."""
        self._queues[(record[0], record[1])].add(record)

    def add_input_partition(self, topic: str, partition: int) -> None:
        """Start reading another partition (a new topic matching a source pattern)."""
        if (topic, partition) in self._queues:
            return
        source = self.source_for(topic)
        existing = next((q for q in self._queues.values() if q.source is source), None)
        deserializer = existing.deserializer if existing is not None else RecordDeserializer(
            source.name, source.key_serde, source.value_serde, self._extractor_for(source.name),
            self._handler, self._skipped, self.id,
        )
        self._queues[(topic, partition)] = RecordQueue(topic, partition, source, deserializer)
        stream_time = self.partition_group.stream_time
        self.partition_group = PartitionGroup(self._queues, self.max_idle_ms, self.metrics)
        self.partition_group.stream_time = stream_time

    def has_records(self) -> bool:
        """True when any input partition holds a record."""
        return self.partition_group.has_records()

    def is_processable(self) -> bool:
        """False while an empty input partition holds the task back: its records are still to
        be fetched (``fetched_lag``), or ``max.task.idle.ms`` says to wait for them."""
        return self.partition_group.ready_to_process(self.clock(), self.fetched_lag)

    @property
    def input_partitions(self) -> list[tuple[str, int]]:
        """The (topic, partition) pairs this task reads."""
        return list(self._queues)

    @property
    def stream_time(self) -> int:
        """The largest timestamp this task has processed (-1 before the first record)."""
        return self.partition_group.stream_time

    # -- processing ---------------------------------------------------------------------------

    def process(self) -> bool:
        """Process the next record (smallest head timestamp); ``False`` if there was none."""
        nxt = self.partition_group.next_record()
        if nxt is None:
            return False
        queue, stamped = nxt
        self._run(queue.source, stamped)
        return True

    @property
    def queues(self) -> dict[tuple[str, int], RecordQueue]:
        """Each input partition's queue, by ``(topic, partition)`` (not to be changed)."""
        return self._queues

    def queue_for(self, topic: str, partition: int) -> RecordQueue:
        """The queue of one input partition (engines keep it for ``process_now``)."""
        return self._queues[(topic, partition)]

    def process_now(self, raw: tuple, queue: RecordQueue | None = None) -> bool:
        """Process ``raw`` at once, as ``add_record`` + ``process`` would when nothing is queued.

        ``raw`` is a ``ConsumerRecord`` (or a tuple in its field order). Engines use this fast
        path for the common case of an idle task; the caller checks ``has_records()`` first.
        """
        if queue is None:
            queue = self._queues[(raw[0], raw[1])]
        stamped = queue.deserializer.deserialize(raw, queue.partition_time)
        if stamped is None:
            return False
        self._step(queue, raw[2], stamped[1], stamped[2], stamped[0], raw[6], raw)
        return True

    def _step(self, queue: RecordQueue, offset: int, key: Any, value: Any, timestamp: int,
              headers: Any, raw: tuple | None) -> None:
        """An idle task's step for one decoded record of ``queue``'s partition: the
        partition's time and stream time move to it (``PartitionGroup.advance``: or it
        counts as late), then ``_deliver``."""
        if timestamp > queue.partition_time:
            queue.partition_time = timestamp
        self.partition_group.advance(timestamp)
        record = source_record(key, value, timestamp) if headers is None \
            else Record(key, value, timestamp, headers)
        self._deliver(queue.source, queue.topic, queue.partition, offset, record, raw)

    def _deliver(self, source: SourceRuntime, topic: str, partition: int, offset: int,
                 record: Record, raw: tuple | None) -> None:
        """The one per-record step every way of processing a record ends in (``process``,
        ``process_now``, ``process_rows``): the record becomes the context's, runs through
        the sub-topology from ``source``, and counts as processed (and for the idle clock).
        An error policy's guard (``guard``) is told the raw record (``raw``, a
        ``ConsumerRecord``-like tuple) for its handlers' context and the DLQ."""
        context, guard = self.context, self.guard
        context.topic, context.partition, context.offset = topic, partition, offset
        context.record = record
        context.current = source
        if guard is not None:
            guard.raw = raw
        try:
            context.process_source(record)
        finally:
            context.current = None
            if guard is not None:
                guard.raw = None  # punctuations that follow have no source record
        self.metrics.processed += 1
        if self.idle is not None:
            self.idle.on_record(self.clock(), self.partition_group.stream_time)

    def process_rows(self, queue: RecordQueue, offset: int,
                     rows: Iterable[tuple[Any, Any, Any, int, Any]], *,
                     commit_each: bool = False,
                     on_sent: Callable[[], None] | None = None,
                     before: Callable[[int], None] | None = None) -> int:
        """Process serialized rows ``(key, value, headers, timestamp, partition)`` of
        ``queue``'s partition, from ``offset`` on, on an idle task: each as ``process_now``
        followed by the stream-time punctuations due, then (``commit_each``) a commit when one
        would do anything, then ``on_sent()`` when the collector holds what the record sent;
        ``before(i)`` runs before row ``i`` (a tracer noting the step).

        The engines' hot loop: with the built-in serdes' C-level codecs and the record's own
        timestamp it decodes inline (``RecordDeserializer.inline_codecs``) and takes the one
        per-record step (``_step``); any other row (a codec refusing, a negative timestamp)
        goes through ``process_now`` for the same outcome or error. Returns the rows
        processed; a raise leaves ``processed_rows`` saying how many came before it."""
        codecs = queue.deserializer.inline_codecs()
        inline = codecs is not None
        kdec, kidx, vdec, vidx = codecs if codecs is not None else (None, False, None, False)
        topic, partition = queue.topic, queue.partition
        heap = self.stream_time_queue.heap
        caches = self.cached_stores
        pending = self.collector.pending if on_sent is not None else ()
        process_now, step = self.process_now, self._step
        guarded = self.guard is not None  # (the guard is told each raw record)
        done = 0
        self.processed_rows = 0
        try:
            for key_bytes, value_bytes, headers, timestamp, _ in rows:
                if before is not None:
                    before(done)
                decoded = False
                if inline:
                    try:
                        key = None if key_bytes is None else kdec(key_bytes)
                        value = None if value_bytes is None else vdec(value_bytes)
                        decoded = timestamp >= 0
                    except Exception:
                        pass  # process_now gives the outcome: a skip or the error
                if decoded:  # process_now, its deserializer's C-level codecs inlined
                    if kidx and key_bytes is not None:
                        key = key[0]
                    if vidx and value_bytes is not None:
                        value = value[0]
                    step(queue, offset, key, value, timestamp, headers,
                         (topic, partition, offset, timestamp, key_bytes, value_bytes, headers)
                         if guarded else None)
                    if heap:
                        self.maybe_punctuate_stream_time()
                elif process_now((topic, partition, offset, timestamp, key_bytes, value_bytes,
                                  headers), queue) and heap:
                    self.maybe_punctuate_stream_time()
                if commit_each and (caches or self.commit_requested):
                    self.commit()
                if pending:
                    on_sent()  # type: ignore[misc]
                done += 1
                offset += 1
        finally:
            self.processed_rows = done
        return done

    def _run(self, source: SourceRuntime, stamped: tuple) -> None:
        """``_deliver`` of a record the partition group took (its clocks moved there)."""
        timestamp, key, value, raw = stamped
        self._deliver(source, raw[0], raw[1], raw[2], Record(key, value, timestamp, raw[6]),
                      raw)

    def schedule(
        self, node: RuntimeNode, interval: int, kind: PunctuationType, punctuator: Any
    ) -> Schedule:
        """Register a punctuation for ``node`` (stream time aligned to 0, wall clock to now)."""
        if kind is PunctuationType.STREAM_TIME:
            return self.stream_time_queue.schedule(Schedule(node, 0, interval, punctuator))
        return self.wall_clock_queue.schedule(
            Schedule(node, self.clock() + interval, interval, punctuator)
        )

    def maybe_punctuate_stream_time(self) -> bool:
        """Fire the stream-time punctuations that are due; nothing before the first record."""
        stream_time = self.partition_group.stream_time
        if stream_time == UNKNOWN or not self.stream_time_queue.heap:
            return False
        return self.stream_time_queue.maybe_punctuate(stream_time, self._punctuate)

    def maybe_punctuate_wall_clock(self) -> bool:
        """Fire the wall-clock punctuations that are due at the engine's clock.

        With ``kslab.idle.stream.time.advance.ms`` set, an idle task's stream time also
        follows the clock here, firing the stream-time punctuations that become due.
        """
        fired = self.wall_clock_queue.maybe_punctuate(self.clock(), self._punctuate)
        if self.idle is not None:
            target = self.idle.stream_time_at(self.clock())
            if target is not None and target > self.partition_group.stream_time:
                self.partition_group.stream_time = target
                fired = self.maybe_punctuate_stream_time() or fired
        return fired

    def _punctuate(self, schedule: Schedule, now: int) -> None:
        """Fire ``schedule`` (through the error policy's guard, when one is installed)."""
        guard = self.guard
        if guard is None:
            self._fire(schedule, now)
        else:
            guard.punctuate(self._fire, schedule, now)

    def _fire(self, schedule: Schedule, now: int) -> None:
        self.metrics.punctuated += 1
        self.context.run_punctuation(schedule, now)

    def _skipped(self, record: ConsumerRecord, error: BaseException) -> None:
        self.metrics.dropped_records += 1
        if self._on_skip_hook is not None:
            self._on_skip_hook(record, error)

    def commit(self) -> None:
        """Make processed work durable: flush store caches (engines commit offsets after)."""
        self.commit_requested = False
        for store in self.cached_stores:  # a flush forwards the cached updates downstream
            store.flush_cache()

    def commit_times(self, times: int) -> None:
        """``commit()`` ``times`` times (the record path commits after every record); once
        no cache holds anything to flush, the rest only count their flushes, at once."""
        caches = self.cached_stores
        while times > 0:
            if all(getattr(store, "flush_is_noop", _never)() for store in caches):
                self.commit_requested = False
                for store in caches:
                    store.count_noop_flushes(times)
                return
            self.commit()
            times -= 1

    def flush(self) -> None:
        """Flush every store to its backend (disk for persistent stores)."""
        for store in self.stores.values():
            store.flush()

    def close(self) -> None:
        """Close every processor, then flush every store and close those flushed, even when
        some fail; then raise the last processor failure as Java's ``closeTopology`` does,
        else the first store failure."""
        if self.closed:
            return
        self.closed = True
        failed_close: BaseException | None = None
        for runtime in self.nodes.values():
            try:
                runtime.close()
            except Exception as exc:
                failed_close = exc
        try:
            self.close_stores()
        finally:
            if failed_close is not None:
                raise failed_close

    def close_stores(self) -> None:
        """Flush and close every store, even when some fail, then raise the first failure; a
        standby task closes this way (its processors never ran)."""
        self.closed = True
        store_errors: list[BaseException] = []
        stores = list(self.stores.values())
        flushed = []
        for store in stores:  # every store flushed before any closes (as Java's stateMgr
            try:  # flush, then close): a cache's flush may forward to a join reading another
                store.flush()
                flushed.append(store)
            except Exception as exc:
                store_errors.append(exc)
        for store in flushed:
            try:
                store.close()
            except Exception as exc:
                store_errors.append(exc)
        if store_errors:
            msg = f"closing task {self.id} failed: {store_errors[0]!r}"
            raise StreamsError(msg) from store_errors[0]

    # -- snapshots ----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Stream time, queued records, punctuation schedules, store contents and processor
        metadata."""
        return {
            "group": self.partition_group.snapshot(),
            "stream_punctuation": self.stream_time_queue.snapshot(),
            "wall_punctuation": self.wall_clock_queue.snapshot(),
            "stores": {name: store.snapshot() for name, store in self.stores.items()},
            "metrics": self.metrics.snapshot(),
            "processor_metadata": dict(self.processor_metadata.values),
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Roll back to ``snapshot``; processor instances are kept."""
        self.partition_group.restore(snapshot["group"])
        self.stream_time_queue.restore(snapshot["stream_punctuation"])
        self.wall_clock_queue.restore(snapshot["wall_punctuation"])
        for name, store_snapshot in snapshot["stores"].items():
            self.stores[name].restore_snapshot(store_snapshot)
        self.metrics.restore(snapshot["metrics"])
        self.processor_metadata = ProcessorMetadata(snapshot["processor_metadata"])

    def __repr__(self) -> str:
        return f"<StreamTask {self.id}: {len(self.nodes)} nodes, {len(self._queues)} partitions>"


def wired_serde(serde: Any, default: Any, *, is_key: bool) -> Any:
    """The serde a source or sink node runs with: its own (``configure``-d for its key or value
    position), the configured ``default`` when it has none, or, for a wrapper over the default
    (the DSL's change serde, ``bind_default``), the wrapper bound to it. Tasks (so every
    engine) and ``kslab.spark``'s typed columns wire node serdes through this one rule."""
    if serde is None:
        return default
    bind_default = getattr(serde, "bind_default", None)
    if bind_default is not None:
        return bind_default(default)
    return resolve_serde(serde, is_key=is_key)


def _never() -> bool:
    """A store that cannot say its flush would do nothing: flush it."""
    return False
