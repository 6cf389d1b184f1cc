"""Runs one chunk of an idle single-partition task's input over columns, or declines.

Phase one runs every user function, deserializer and serializer of the chunk's stateless
chains and mutates nothing; if anything raises, ``run`` returns ``None`` and the engine re-runs
the chunk on the record path, which raises the exact error with the exact partial state (the
user functions of earlier records then run twice, as Kafka's reprocessing after a failure also
does). Phase two applies the chunk: logs, offsets, clocks, metrics, the counts, the commits
and the task's context.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate, chain, islice, repeat
from operator import le, sub
from typing import Any, Protocol

from kslab.core.bulk.columns import ByteColumn, LogBatch
from kslab.core.bulk.count import count_cached, count_direct, count_with_processor
from kslab.core.bulk.plan import Chain, CountStep, built_in, compile_chain
from kslab.core.bulk.stage import Stage
from kslab.core.bulk.windowed import replays_window_cache, tumbling_count
from kslab.dsl._window_aggregates import TimeWindowAggregateSupplier
from kslab.records import Headers, Record, Window, Windowed, as_headers
from kslab.serdes import Bytes, Integer, Long, String
from kslab.serdes._base import fast_deserializer, fast_serializer

__all__ = ["BulkExecutor", "EnginePort"]

# run_partitioned's sort key of a consumed record: row * _ROW + pass * _PASS + task rank
_ROW, _PASS = 1 << 40, 1 << 16

# serdes whose round trip gives back an equal object of exactly this (immutable) type
_IDENTITY = {String: str, Long: int, Integer: int, Bytes: bytes}


class EnginePort(Protocol):
    """What the executor needs from the engine: the next offset of each topic partition and
    the log of each topic (and, for ``run_partitioned``, the partitions of a key column).

    ``commits_each_record`` (optional, default true): the engine commits after every
    consumed record (the test driver, as Kafka's); false for an engine that commits on an
    interval (the live runtime), which gives each chunk its records' offsets and tracks
    them itself."""

    offsets: dict[tuple[str, int], int]

    def log(self, topic: str) -> Any:
        """The log of ``topic`` (``extend_columns(*batch)`` appends a ``LogBatch``)."""

    def appends_only(self, topic: str) -> bool:
        """True when a write to ``topic`` only appends to its log (no loop-back); asking
        changes nothing."""

    def partitions(self, topic: str, keys: list[bytes | None]) -> list[int] | None:
        """The partition the default partitioner gives each serialized key on ``topic``
        (``run_partitioned``'s sinks), or ``None`` when it cannot say without changing
        anything (a ``None`` key takes the next round-robin partition)."""

    # For ``run_partitioned`` over topics tasks read back (optional: without them such a
    # sink declines): ``reader(topic, partition)``, the task that reads a topic partition
    # (``None``: none, or not one this way), and ``rank(task)``, the task's place in the
    # order the engine gives each task a turn.


def _decoded(serde: Any, topic: str, fields: list[Any], headers: list[Any]) -> list[Any]:
    """``serde.deserialize(topic, field, header)`` of each field: in C through the serde's
    fast codec when it takes them all (``serdes._base.fast_deserializer``), else the serde's
    own method (which gives the value or raises its error)."""
    fast = fast_deserializer(serde)
    if fast is not None:
        decode, indexed = fast
        try:
            if fields.count(None):
                decoded = [None if field is None else decode(field) for field in fields]
            else:  # no null (the usual case): all in C
                decoded = list(map(decode, fields))
                if indexed:
                    return list(chain.from_iterable(decoded))
        except Exception:
            pass
        else:
            if not indexed:
                return decoded
            return [None if value is None else value[0] for value in decoded]
    return list(map(serde.deserialize, repeat(topic), fields, headers))


def _encoded(serde: Any, topic: str, items: list[Any], headers: list[Any]) -> list[Any]:
    """``serde.serialize(topic, item, header)`` of each item, in C through the serde's fast
    codec where it takes them all (``serdes._base.fast_serializer``)."""
    encode = fast_serializer(serde)
    if encode is not None:
        try:
            return [None if item is None else encode(item) for item in items]
        except Exception:
            pass
    column = getattr(serde, "serialize_column", None)  # (a user's serde may not have one)
    if column is not None:
        return column(topic, items, headers)  # type: ignore[no-any-return]
    return list(map(serde.serialize, repeat(topic), items, headers))


def _fields(column: Any) -> list[Any]:
    """The fields of a column: a ``ByteColumn``'s or a plain list."""
    return column.fields if isinstance(column, ByteColumn) else column  # type: ignore[no-any-return]


def _store_key_serializer(count: CountStep) -> Any:
    """How the count's store serializes a key (raising its own error), when it says and its
    serde is built-in (a custom serde may count its calls: the record path's then decide)."""
    if count.kind == "tumbling":
        serialize = count.aggregate.processor.serialize
    else:  # the typed store behind a record cache serializes the keys
        store = getattr(count.store, "wrapped", count.store)
        serialize = getattr(store, "_serialize_key", None)
    owner = getattr(serialize, "__self__", None)
    return serialize if built_in(getattr(owner, "_key_serde", None)) else None


def _serialize_all(serialize: Any, keys: set[Any]) -> dict[Any, bytes]:
    """``{key: serialize(key)}``, through the store's one-argument C-level codec when it has
    one (the same bytes; a key it refuses raises, and the chunk goes to the record path)."""
    encode = getattr(serialize.__self__, "_kenc", None)
    if encode is None:
        return {key: serialize(key) for key in keys}
    encoded = dict(zip(keys, map(encode, keys), strict=True))
    for key, raw in encoded.items():
        if raw.__class__ is not bytes:  # a codec handing back a bytearray or the like
            encoded[key] = serialize(key)
    return encoded


def _count_key_bytes(count: CountStep, keys: list[Any]) -> dict[Any, bytes] | None:
    """Serialize every distinct key the count will see as its store and sink will, so that a
    serde refusing one declines the chunk before anything changed (the record path then
    raises the store's or the sink's error at the right record); the store's key bytes."""
    distinct = set(keys)
    distinct.discard(None)
    serialize = _store_key_serializer(count)
    key_bytes = None if serialize is None else _serialize_all(serialize, distinct)
    sink = count.sink
    topic, key_ser = sink.topic, sink._key_ser
    windowed = isinstance(count.aggregate.processor.s, TimeWindowAggregateSupplier)
    sink_serde = getattr(sink.key_serde, "_inner", None) if windowed else sink.key_serde
    # a built-in serde of the store's own type refuses just what the store's refused
    if key_bytes is None or type(sink_serde) is not type(serialize.__self__._key_serde):
        if windowed:
            window = Window(0, count.aggregate.processor.size)
            for key in distinct:
                key_ser(topic, Windowed(key, window), None)
        else:
            for key in distinct:
                key_ser(topic, key, None)
    sink._value_ser(topic, 1, None)  # a count is an int: a serde refusing one refuses all
    return key_bytes


def _same_fields(sink: Any, keys: list[Any], values: list[Any]) -> bool:
    """True when a sink writes the same bytes for ``values`` as for ``keys``: equal objects
    of the one type its key and value serdes (the same built-in) serialize alike."""
    kind = _IDENTITY.get(type(sink.key_serde))
    return kind is not None and type(sink.value_serde) is type(sink.key_serde) \
        and keys == values and set(map(type, keys)) == {kind}


def _round_trips(sink_serde: Any, source_serde: Any, objects: list[Any]) -> bool:
    """True when ``objects`` read back through ``source_serde`` as themselves: ``None`` or
    exactly the type the (same) built-in serde round-trips (checked in C)."""
    kind = _IDENTITY.get(type(sink_serde))
    if kind is None or type(source_serde) is not type(sink_serde):
        return False
    return set(map(type, objects)) <= {kind, type(None)}


class BulkExecutor:
    """The bulk path of one engine's tasks (plans are compiled once per task and topic)."""

    def __init__(self, port: EnginePort, *, partitioned: bool = False) -> None:
        self.port = port
        self.partitioned = partitioned  # tasks of several partitions (``run_partitioned``)
        self._plans: dict[tuple[int, str], Chain | None] = {}
        self.chunks = 0  # chunks run in bulk (tests assert a topology used or left the path)
        self.declined = 0
        self.cached_counts = 0  # chunks whose cached count took count_cached (tests assert it)
        self.counted_at_once = 0  # chunks whose count read and wrote each key once (or window)
        self.window_records_at_once = 0  # records a tumbling count took in runs at once

    @property
    def _commits_each(self) -> bool:
        """True when the engine commits after every consumed record (``EnginePort``)."""
        return getattr(self.port, "commits_each_record", True)  # type: ignore[no-any-return]

    def _declined(self) -> bool:
        """Count a declined chunk; ``False``, for the caller to return."""
        self.declined += 1
        return False

    def plan(self, task: Any, topic: str) -> Chain | None:
        """The compiled plan for ``topic`` in ``task`` (``None``: record path)."""
        key = (id(task), topic)
        if key not in self._plans:
            self._plans[key] = compile_chain(task, topic, partitioned=self.partitioned)
        return self._plans[key]

    def forget(self, task: Any) -> None:
        """Drop ``task``'s plans (an engine closing the task: its id may be reused)."""
        for key in [key for key in self._plans if key[0] == id(task)]:
            del self._plans[key]

    def run(self, task: Any, topic: str, rows: list[tuple[Any, ...]]
            ) -> tuple[list[Any], ...] | None:
        """Process ``rows`` (serialized, partition 0) of ``topic`` in bulk; the rows as
        columns ``(keys, values, headers, timestamps, partitions)`` (the engine may keep
        them: they are never changed), or ``None``: declined."""
        plan = self._accepted(task, topic) if rows else None
        if plan is None:
            self.declined += 1
            return None
        columns = tuple(map(list, zip(*rows, strict=True)))
        return columns if self._run(plan, task, topic, columns) else None

    def _accepted(self, task: Any, topic: str) -> Chain | None:
        """The plan when a chunk of ``topic`` may go to ``task``'s bulk path now: nothing
        scheduled or idling that the record path would run between records."""
        plan = self.plan(task, topic)
        if plan is None or task.stream_time_queue._heap or task.wall_clock_queue._heap \
                or task.idle is not None:
            return None
        return plan

    def run_columns(self, task: Any, topic: str, columns: tuple[list[Any], ...],
                    offsets: list[int] | None = None, partition: int = 0) -> bool:
        """``run`` for rows given as columns ``(keys, values, headers, timestamps,
        partitions)`` (never changed) of ``partition`` (0 unless the engine says);
        ``offsets``: each row's offset, from an engine that tracks them itself (else they
        follow the port's next offset); ``False``: declined."""
        plan = self._accepted(task, topic) if columns[3] else None
        if plan is None:
            self.declined += 1
            return False
        return self._run(plan, task, topic, columns, offsets, partition)

    def run_partitioned(self, topic: str,
                        groups: list[tuple[Any, list[tuple[Any, ...]], list[int]]]) -> bool:
        """Run a chunk of ``topic`` whose rows several tasks read: ``groups`` holds each
        task, its rows (serialized ``(key, value, headers, timestamp, partition)``) and each
        row's place in the chunk. Every task's batch forms run first (phase one for all);
        then each task's phase two, and the sinks' records of all tasks go to their logs in
        the record path's order. Records a task sends to a topic other tasks read (a
        repartition topic) run through those tasks' batch forms in the same chunk
        (``_prepare_readers``). ``False``, nothing changed: declined.

        The order is the driver's (``TopologyTestDriver``): each input row is piped and then
        every task, in the port's ``rank`` order, processes one queued record per pass until
        none is left. So a record's work sorts by (input row, pass, task rank): the row's own
        task works in pass 1; a reading task takes the row's j-th record for it in pass j + 1,
        or j + 2 when it ranks before the writing task."""
        port = self.port
        prepared: list[tuple[Any, list[Stage], list[Any], int]] = []
        staged: list[tuple[Any, ...]] = []  # the changelogs' records, a block per append
        looped: list[tuple[Stage, list[Any]]] = []  # stages writing topics tasks read
        reserved: dict[int, int] = {}  # record cache bytes the chunk's held writes reserved
        try:
            for task, rows, places in groups:
                plan = self._accepted(task, topic)
                if plan is None:
                    return self._declined()
                rank = port.rank(task)
                if rank >= _PASS:
                    return self._declined()
                first = _PASS + rank  # pass 1
                keys = [place * _ROW + first for place in places]
                columns = tuple(map(list, zip(*rows, strict=True)))
                writes_read: list[Stage] = []
                stages = self._prepare(
                    plan, topic, columns, True,
                    lambda name, log, task=task, keys=keys: self._changelog_columns(
                        task, name, log, staged, keys),
                    task.id.partition, caches_held=len(task._caches) <= 1, looped=writes_read,
                    reserved=reserved)
                if stages is None:
                    return self._declined()
                prepared.append((task, stages, keys, len(rows)))
                looped += [(stage, keys) for stage in writes_read]
            if looped:
                readers = self._prepare_readers(looped, {id(task) for task, _, _ in groups},
                                                staged, reserved)
                if readers is None:
                    return self._declined()
                prepared += readers
        except Exception:
            return self._declined()
        outputs: list[tuple[Stage, list[Any]]] = []
        actions: list[tuple[Any, Callable[[], None]]] = []
        for task, stages, keys, count in prepared:
            sinks: list[Stage] = []
            later: list[tuple[int, Callable[[], None]]] = []
            self._apply(task, stages, count, sinks, later)
            outputs += [(stage, keys) for stage in sinks]
            actions += [(keys[origin], call) for origin, call in later]
        actions.sort(key=lambda action: action[0])  # the warnings, in the record path's order
        for _, call in actions:
            call()
        self._append_merged(outputs, staged)
        self.chunks += 1
        return True

    def _prepare_readers(self, looped: list[tuple[Stage, list[Any]]], writers: set[int],
                         staged: list[tuple[Any, ...]], reserved: dict[int, int]
                         ) -> list[tuple[Any, list[Stage], list[Any], int]] | None:
        """Phase one of the tasks that read what the chunk's tasks wrote (``looped``: each
        writing stage and its consumed records' sort keys): each reading task's records in
        the order they were written, each with its sort key (see ``run_partitioned``).
        ``None`` when one cannot run now: it is a writer too, has records queued or several
        input partitions, declines, or writes a topic tasks read in turn."""
        port = self.port
        # every record the writers sent to topics tasks read, as columns, with its sort key
        sort_keys: list[int] = []
        topics: list[str] = []
        partitions: list[int] = []
        record_keys: list[Any] = []
        values: list[Any] = []
        headers: list[Any] = []
        timestamps: list[int] = []
        for stage, keys in looped:
            out = stage.out
            assert out is not None and stage.out_partitions is not None
            count = len(out.timestamps)
            input_row = stage.input_row
            sort_keys += [keys[input_row[origin]] for origin in stage.cols.origin]
            topics += [stage.chain.sink.topic] * count  # type: ignore[union-attr]
            partitions += stage.out_partitions
            record_keys += _fields(out.keys)
            values += _fields(out.values)
            headers += out.headers or [None] * count
            timestamps += out.timestamps
        # the order they were written in: row by row (a row's records are its one writer's,
        # in send order: the sort is stable)
        order = sorted(range(len(sort_keys)), key=sort_keys.__getitem__)
        inputs: dict[tuple[str, int], tuple[Any, int, list[int], list[int]]] = {}
        taken: dict[tuple[str, int], int] = {}  # records of the current row per partition
        current = -1
        for index in order:
            row, writer = divmod(sort_keys[index], _ROW)
            writer %= _PASS
            tp = (topics[index], partitions[index])
            entry = inputs.get(tp)
            if entry is None:
                task = port.reader(*tp)
                if task is None or id(task) in writers or task.has_records() \
                        or len(task.input_partitions) != 1:
                    return None
                rank = port.rank(task)
                if rank >= _PASS:
                    return None
                entry = inputs[tp] = (task, rank, [], [])
            if row != current:
                current = row
                taken.clear()
            nth = taken.get(tp, 0)
            if nth >= _ROW // _PASS - 2:
                return None  # (more records of a row for one task than a sort key holds)
            taken[tp] = nth + 1
            _, rank, indexes, keys = entry
            indexes.append(index)
            keys.append(row * _ROW + (nth + 1 + (rank < writer)) * _PASS + rank)
        prepared: list[tuple[Any, list[Stage], list[Any], int]] = []
        for (topic, partition), (task, _, indexes, keys) in inputs.items():
            plan = self._accepted(task, topic)
            if plan is None:
                return None
            columns = tuple(list(map(column.__getitem__, indexes)) for column in (
                record_keys, values, headers, timestamps))
            stages = self._prepare(
                plan, topic, (*columns, [partition] * len(indexes)), True,
                lambda name, log, task=task, keys=keys: self._changelog_columns(
                    task, name, log, staged, keys),
                partition, caches_held=len(task._caches) <= 1, reserved=reserved)
            if stages is None:
                return None
            prepared.append((task, stages, keys, len(keys)))
        return prepared

    def _append_merged(self, outputs: list[tuple[Stage, list[Any]]],
                       staged: list[tuple[Any, ...]]) -> None:
        """Each sink's and changelog's records from every task, per topic in the order of
        the sort keys of the consumed records they descend from (stable: a consumed record's
        records keep their order, and each is one task's), with their partitions."""
        by_topic: dict[str, tuple[list[Any], ...]] = {}  # sort keys, then the columns

        def columns_of(topic: str) -> tuple[list[Any], ...]:
            found = by_topic.get(topic)
            if found is None:
                found = by_topic[topic] = ([], [], [], [], [], [])
            return found

        for topic, rows, partition, keys, values, timestamps in staged:
            sort_keys, all_keys, all_values, headers, all_timestamps, partitions = columns_of(
                topic)
            sort_keys += rows
            all_keys += keys
            all_values += values
            headers += [None] * len(rows)
            all_timestamps += timestamps
            partitions += [partition] * len(rows)
        for stage, places in outputs:
            out = stage.out
            if out is None or not out.timestamps:
                continue
            count = len(out.timestamps)
            sort_keys, keys, values, headers, timestamps, partitions = columns_of(
                stage.chain.sink.topic)  # type: ignore[union-attr]
            input_row = stage.input_row
            sort_keys += [places[input_row[origin]] for origin in stage.cols.origin]
            keys += _fields(out.keys)
            values += _fields(out.values)
            headers += out.headers or [None] * count
            timestamps += out.timestamps
            partitions += stage.out_partitions  # type: ignore[arg-type]
        for topic, (sort_keys, *columns) in by_topic.items():
            order = sorted(range(len(sort_keys)), key=sort_keys.__getitem__)
            keys, values, headers, timestamps, partitions = (
                list(map(column.__getitem__, order)) for column in columns)
            self.port.log(topic).extend_columns(keys, values, headers, timestamps, partitions)

    def _run(self, plan: Chain, task: Any, topic: str, columns: tuple[list[Any], ...],
             offsets: list[int] | None = None, partition: int = 0) -> bool:
        try:
            # a record cache holds a run's writes only where it is the task's one cache (the
            # others would flush or evict in between)
            stages = self._prepare(plan, topic, columns, self._commits_each,
                                   lambda name, log: self._changelog_columns(task, name, log),
                                   partition, caches_held=len(task._caches) <= 1)
        except Exception:
            stages = None
        if stages is None:
            return self._declined()
        stages[0].offsets = offsets
        self._apply(task, stages, len(columns[3]))  # every input row
        self.chunks += 1
        return True

    # -- phase one: user code, no mutation ------------------------------------------------

    def _prepare(self, plan: Chain, topic: str, columns: tuple[list[Any], ...],
                 commit_each: bool, changelog: Callable[..., Any],
                 partition: int = 0, *, caches_held: bool = True,
                 looped: list[Stage] | None = None,
                 reserved: dict[int, int] | None = None) -> list[Stage] | None:
        """Phase one of a chunk; ``looped``: where a stage whose sink writes a topic tasks
        read goes (``run_partitioned`` runs those tasks next), else such a sink declines;
        ``reserved``: the record cache bytes the chunk's held writes reserved so far (one
        dict for every task of a chunk: they may share a thread cache)."""
        if reserved is None:
            reserved = {}
        key_fields, value_fields, headers, timestamps, _ = columns
        if min(timestamps) < 0:
            return None  # the record path raises the negative-timestamp error
        if headers.count(None) != len(headers):
            headers = [header if header is None or header.__class__ is Headers
                       else as_headers(header) for header in headers]
        keys = _decoded(plan.source.key_serde, topic, key_fields, headers)
        values = _decoded(plan.source.value_serde, topic, value_fields, headers)
        stage = Stage(plan, topic, keys, values, timestamps, headers,
                       list(range(len(timestamps))), commit_each, changelog, partition,
                       caches_held, reserved)
        stages = [stage]
        while True:
            chain = stage.chain
            cols = stage.cols
            for processor in chain.processors:
                cols = processor.process_batch(cols, stage.run)
                if cols is None:
                    return None  # a batch form that cannot take this run
            stage.cols = cols
            if chain.sink is None:
                assert chain.count is not None
                stage.key_bytes = _count_key_bytes(chain.count, cols.keys)
                return stages
            sink = chain.sink
            out_topic = sink.topic
            out_headers = stage.run.headers(cols)
            out_timestamps = stage.run.timestamps(cols)
            key_fields = _encoded(sink.key_serde, out_topic, cols.keys, out_headers)
            out_keys = ByteColumn(key_fields)
            if _same_fields(sink, cols.keys, cols.values):  # a group_by(value): one layout
                out_values = out_keys
            else:
                out_values = ByteColumn(_encoded(sink.value_serde, out_topic, cols.values,
                                                 out_headers))
            stage.out = LogBatch(out_keys, out_values, out_headers, out_timestamps)
            if self.partitioned:  # the default partitioner over the key column
                if not self.port.appends_only(out_topic):
                    if looped is None:
                        return None  # read back by a task that cannot run in this chunk
                    looped.append(stage)
                stage.out_partitions = self.port.partitions(out_topic, key_fields)
                if stage.out_partitions is None:
                    return None  # a null key: round robin, which the record path keeps
            downstream = chain.downstream
            if downstream is None:
                return stages
            source = downstream.source
            next_keys, next_values = cols.keys, cols.values
            if not _round_trips(sink.key_serde, source.key_serde, next_keys):
                next_keys = list(map(source.key_serde.deserialize, repeat(out_topic),
                                     key_fields, out_headers))
            if not _round_trips(sink.value_serde, source.value_serde, next_values):
                next_values = list(map(source.value_serde.deserialize, repeat(out_topic),
                                       out_values.fields, out_headers))
            rows_of = stage.input_row
            stage = Stage(downstream, out_topic, next_keys, next_values, out_timestamps,
                           out_headers, [rows_of[i] for i in cols.origin], commit_each,
                           changelog, 0, caches_held, reserved)
            stages.append(stage)

    # -- phase two: apply ----------------------------------------------------------------

    def _changelog_topic(self, task: Any, store: Any) -> str | None:
        """The changelog topic when the store logs through the task's context and the engine
        only appends there; ``None``: the store writes its changelog itself."""
        if getattr(store, "_log", None) != task.context.log_change or task.id.partition != 0:
            return None
        topic = task.changelog_topics.get(store.name)
        if topic is None or not self.port.appends_only(topic):
            return None
        return topic  # type: ignore[no-any-return]

    def _changelog_columns(self, task: Any, store_name: str, log: Any,
                           staged: list[tuple[Any, ...]] | None = None,
                           places: list[Any] | None = None) -> Any:
        """``append(keys, values, timestamps, origins)`` of a store's changelog records in
        one batch, when the store logs through the task's context (``log``) and the engine
        only appends to the changelog's log; ``None`` otherwise. ``staged``: the records go
        there as one block per append, ``(topic, sort keys, partition, keys, values,
        timestamps)``, for ``run_partitioned`` to merge with the other tasks' (``places``:
        each consumed record's sort key)."""
        topic = task.changelog_topics.get(store_name)
        if log != task.context.log_change or topic is None or not self.port.appends_only(
                topic) or (task.id.partition != 0 and not self.partitioned):
            return None
        port, partition = self.port, task.id.partition

        def append(keys: list[bytes], values: list[bytes], timestamps: list[int],
                   origins: list[int]) -> None:
            if not timestamps:
                return
            if staged is not None and places is not None:
                staged.append((topic, list(map(places.__getitem__, origins)), partition,
                               keys, values, timestamps))
                return
            port.log(topic).extend_columns(keys, values, None, timestamps,
                                           [partition] * len(timestamps) if partition
                                           else None)

        return append

    def _changelog_extend(self, task: Any, store: Any) -> Any:
        """Appends a ``LogBatch`` to the changelog's log when ``_changelog_topic`` allows
        batches for the store behind ``store``'s cache; ``None``: the store logs each write."""
        topic = self._changelog_topic(task, getattr(store, "wrapped", store))
        if topic is None:
            return None
        port = self.port

        def extend(batch: LogBatch) -> None:
            if batch.timestamps:  # (an empty one would still create the log)
                port.log(topic).extend_columns(*batch)

        return extend

    def _consume(self, task: Any, stage: Stage) -> int:
        """Advance offsets (unless the engine gave the stage its own) and partition time and
        the processed count; the first offset."""
        topic, timestamps, partition = stage.topic, stage.timestamps, stage.partition
        if stage.offsets is not None:
            first = stage.offsets[0]
        else:
            offsets = self.port.offsets
            tp = (topic, partition)
            first = offsets[tp]
            offsets[tp] = first + len(timestamps)
        if timestamps:
            latest = max(timestamps)
            queue = task.queue_for(topic, partition)
            if latest > queue.partition_time:
                queue.partition_time = latest
        task.metrics.processed += len(timestamps)
        return first

    @staticmethod
    def _advance_stream_time(task: Any, stages: list[Stage]) -> None:
        """Stream time after the chunk, and each consumed record's lateness as the record path
        takes them: an input row, then what it looped back. The chain's stateless operators
        keep timestamps, so a looped-back record is exactly as late as its input row."""
        group, metrics = task.partition_group, task.metrics
        timestamps = stages[0].timestamps
        if timestamps[0] >= group.stream_time and all(map(le, timestamps,
                                                          islice(timestamps, 1, None))):
            group.stream_time = timestamps[-1]  # in order (the usual case): none is late
            return
        # stream time once each input row is taken, and how far behind it each row was
        after = list(accumulate(timestamps, max, initial=group.stream_time))[1:]
        late = list(map(sub, after, timestamps))
        total, highest = sum(late), max(late)
        if highest:
            for stage in stages[1:]:
                looped = list(map(late.__getitem__, stage.input_row))
                total += sum(looped)
        metrics.lateness_sum += total
        if highest > metrics.lateness_max:
            metrics.lateness_max = highest
        if after[-1] > group.stream_time:
            group.stream_time = after[-1]

    def _apply(self, task: Any, stages: list[Stage], row_count: int,
               outputs: list[Stage] | None = None,
               later: list[tuple[int, Callable[[], None]]] | None = None) -> None:
        """Phase two: offsets, clocks, held writes, logs, counts, commits, the context;
        ``outputs`` and ``later``: the sink stages and the deferred actions are left there
        for the caller to merge with other tasks' (into one log, in one order) instead."""
        context = task.context
        commits = 0
        last: tuple[str, int, Record] | None = None
        self._advance_stream_time(task, stages)
        for n, stage in enumerate(stages):
            consumed = len(stage.timestamps)
            if not consumed:
                continue
            first = self._consume(task, stage)
            stage.run.apply(context, first, later)
            commits += consumed
            # the record path processes an input row, then what it looped back
            if n == 0 or stage.input_row[-1] == row_count - 1:
                index = consumed - 1
                last = (stage.topic, stage.offset_of(index),
                        Record(stage.keys[index], stage.values[index],
                               stage.timestamps[index], stage.headers[index]))
            chain = stage.chain
            if chain.sink is not None:
                if outputs is not None:
                    outputs.append(stage)
                elif stage.out is not None and stage.out.timestamps:  # (an empty one
                    # would still create the log)
                    self.port.log(chain.sink.topic).extend_columns(*stage.out,
                                                                   stage.out_partitions)
                continue
            count, cols = chain.count, stage.cols
            assert count is not None
            if cols.origin is stage.identity:  # no record dropped or multiplied
                ts, hs = stage.timestamps, stage.headers
            else:
                ts = [stage.timestamps[i] for i in cols.origin]
                hs = [stage.headers[i] for i in cols.origin]
            if count.kind == "tumbling":
                out, at_once = tumbling_count(
                    task, stage.topic, count.aggregate, count.sink, cols.keys, cols.values, ts,
                    hs, first, cols.origin, stage.key_bytes,
                    self._changelog_extend(task, count.store))
                self.counted_at_once += at_once > 0
                self.window_records_at_once += at_once
            elif count.kind == "direct":
                changelog_topic = self._changelog_topic(task, count.store)
                changelog: list[LogBatch] | None = None if changelog_topic is None else []
                out, at_once = count_direct(context, stage.topic, count.store, count.sink,
                                            cols.keys, cols.values, ts, hs, first, cols.origin,
                                            changelog, stage.key_bytes)
                self.counted_at_once += at_once
                for batch in changelog or ():
                    if batch.timestamps:  # (an empty one would still create the log)
                        self.port.log(changelog_topic).extend_columns(*batch)
            else:
                reaching = consumed if cols.origin is stage.identity \
                    else len(set(cols.origin))  # consumed records the count sees
                commits -= reaching  # committed after each by the count
                out = None
                if count.kind == "tumbling_cached" and reaching == len(cols.origin) \
                        and replays_window_cache(task, count.aggregate, count.store):
                    out, at_once = tumbling_count(
                        task, stage.topic, count.aggregate, count.sink, cols.keys, cols.values,
                        ts, hs, first, cols.origin, stage.key_bytes,
                        self._changelog_extend(task, count.store), cached=True)
                    self.cached_counts += 1
                    self.counted_at_once += at_once > 0
                    self.window_records_at_once += at_once
                elif count.kind == "cached":
                    done = count_cached(task, stage.topic, count.aggregate, count.store,
                                        count.sink, cols.keys, cols.values, ts, hs, first,
                                        cols.origin, self._changelog_extend(task, count.store),
                                        stage.key_bytes)
                    if done is not None:
                        out = done[0]
                        self.cached_counts += 1
                        self.counted_at_once += done[1]
                if out is None:
                    out = LogBatch.of_rows(count_with_processor(
                        task, stage.topic, count.aggregate, count.sink, cols.keys, cols.values,
                        ts, hs, first, cols.origin))
            if out.timestamps:
                self.port.log(count.sink.topic).extend_columns(*out)
        # the record path commits after every record; with no record cache that is a no-op
        if self._commits_each:
            task.commit_times(commits if task._caches else 1)
        if last is not None:
            context.topic, context.partition, context.offset, context.record = last[0], \
                stages[0].partition, last[1], last[2]
        context.current = None
