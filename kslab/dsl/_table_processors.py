"""The processors behind KTable sources, filters and value mappers, and the table value getters.

A table supplier (Java's ``KTableProcessorSupplier``) makes processors, offers a ``view()`` whose
getters read the table's current value by key, and can be asked to send old values. Invariant:
materialization and ``send_old_values`` are decided while the DSL graph is built and never change
once a processor exists; processors read them in ``init``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import compress, islice, repeat
from operator import attrgetter, le, not_
from typing import Any

from kslab.dsl._change import Change, Changes
from kslab.dsl._processors import MapValues, log, skip_record
from kslab.dsl._stores import forward_flushed
from kslab.dsl._tally import KeyTally, key_types, tally_keys
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun, Encoded
from kslab.records import Record, ValueAndTimestamp
from kslab.state.fresh import fresh_value, fresh_values

__all__ = [
    "FilterSupplier",
    "MapValuesSupplier",
    "StoreGetterSupplier",
    "TableSource",
    "ToStream",
    "TupleForwarder",
    "change_columns",
    "forward_updates",
    "store_reads",
]

_NONE = type(None)
_NEW, _OLD, _LATEST = attrgetter("new_value"), attrgetter("old_value"), attrgetter("is_latest")


class TupleForwarder:
    """Java's ``TimestampedTupleForwarder``: forward now, or let the cache do it on flush."""

    __slots__ = ("cached", "ctx", "send_old_values")

    def __init__(self, store: Any, context: Any, send_old_values: bool) -> None:
        self.ctx = context
        self.send_old_values = send_old_values
        set_listener = getattr(store, "set_flush_listener", None)
        self.cached = bool(
            set_listener is not None
            and set_listener(forward_flushed(context, context.current), send_old_values)
        )

    def maybe_forward(self, record: Record) -> None:
        """Forward ``record`` (a ``Change``) unless the cache will; old values only if asked."""
        if self.cached:
            return
        if self.send_old_values:
            self.ctx.forward(record)
        else:
            change = record.value
            self.ctx.forward(record.with_value(Change(change.new_value, None, change.is_latest)))


def forward_updates(run: BatchRun, writes: Any, cached: bool, tally: KeyTally,
                    positions: Any, keys: list[Any], news: list[Any], olds: list[Any] | None,
                    origin: list[int], stamps: list[int]) -> Batch | None:
    """What a stateful batch form forwards of the updates it hands its store's held writes
    (``writes.update_all``: at each of ``positions``, the record path's get then put of
    ``keys[i]``'s new value ``news[i]`` at ``stamps[i]``, the ``i``-th record being consumed
    record ``origin[i]``; ``tally``: the keys' ids): every update as the processor forwards it
    (``olds``: the old values it sends, or ``None``), or, from a ``cached`` store, what the
    commits' flushes forward (``Flushed``). The updates go out as columns: their ``Change``
    objects unbuilt (``Changes``), with the key and value bytes the store wrote (``Encoded``).
    ``None`` (record by record) when the store cannot hold the writes (a delete, or a run that
    might fill the record cache); else the writes are held for phase two (``run.hold``)."""
    key_bytes = list(map(tally.distinct.__getitem__, tally.ids))
    writes.update_all(positions, key_bytes, news, stamps)
    flushed = writes.flushed()  # a cached store's: what the commits after each record flush,
    if flushed is None:  # as its flush listener sends them
        return None
    run.hold(writes)
    known_keys = Encoded(writes.key_serde, key_bytes, tally.distinct, tally.ids)
    if not cached:  # every update, as the processor forwards them (``parents``: each one's
        # record of the batch given, where some were skipped)
        return Batch(keys, Changes(news, olds, Encoded(writes.value_serde, flushed.value_bytes)),
                     origin, stamps, known_keys,
                     parents=None if positions.__class__ is range else list(positions))
    updates = flushed.updates  # the cache's flushes forward them (each key's last update of
    if updates is not None:  # a consumed record)
        keys, news, origin, stamps, key_bytes = (list(map(column.__getitem__, updates))
                                                 for column in (keys, news, origin, stamps,
                                                                key_bytes))
        known_keys = Encoded(writes.key_serde, key_bytes)
    if flushed.stamps is not None:  # (a flushed delete carries its record's timestamp)
        stamps = flushed.stamps
    news = fresh_values(news)  # (copies of what the cache keeps, as its flush forwards them)
    return Batch(keys, Changes(news, flushed.olds,
                               Encoded(writes.value_serde, flushed.value_bytes)),
                 origin, stamps, known_keys, at_commit=True)  # (sent by the commits' flushes)


class StoreGetterSupplier:
    """Getters reading a materialized table's store (Java's materialized value getter)."""

    def __init__(self, store_name: str) -> None:
        self.store_name = store_name

    def get(self) -> StoreGetter:
        """A getter for one processor."""
        return StoreGetter(self.store_name)

    def store_names(self) -> list[str]:
        """The store the getters read."""
        return [self.store_name]


class StoreGetter:
    """Reads ``ValueAndTimestamp``s from a store the processor is connected to."""

    def __init__(self, store_name: str) -> None:
        self.store_name = store_name
        self.store: Any = None

    def init(self, context: ProcessorContext) -> None:
        """Find the store."""
        self.store = context.get_state_store(self.store_name)

    def get(self, key: Any) -> ValueAndTimestamp | None:
        """The current value and timestamp of ``key``, or ``None``."""
        return self.store.get(key)

    def held_reads(self, batch: Batch, run: BatchRun) -> Any:
        """The store's ``get`` calls of a batch run, read at once (``kslab.state.held_reads``),
        or ``None`` where it cannot read them so."""
        reads = getattr(self.store, "held_reads", None)
        return None if reads is None else reads(batch, run)


class TableSource:
    """Java's ``KTableSource``: turns records into changes, keeping them in a store if needed."""

    def __init__(self, store_name: str | None, queryable_name: str | None) -> None:
        self.store_name = store_name
        self.queryable_name = queryable_name
        self.send_old_values = False

    @property
    def materialized(self) -> bool:
        """True when the table keeps a store."""
        return self.queryable_name is not None

    def materialize(self) -> None:
        """Keep a store (a join or another reader needs one)."""
        self.queryable_name = self.store_name

    def enable_sending_old_values(self) -> None:
        """Send old values, which needs the store."""
        self.send_old_values = True
        self.queryable_name = self.store_name

    def __call__(self) -> Processor:
        return _TableSourceProcessor(self)


class _TableSourceProcessor(Processor):
    def __init__(self, supplier: TableSource) -> None:
        self.supplier = supplier
        self.store: Any = None
        self.forwarder: TupleForwarder | None = None

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        name = self.supplier.queryable_name
        if name is not None:
            self.store = context.get_state_store(name)
            self.forwarder = TupleForwarder(self.store, context, self.supplier.send_old_values)

    def process(self, record: Record) -> None:
        key = record.key
        if key is None:
            skip_record(self.ctx, "null key")
            return
        if self.forwarder is None:
            self.ctx.forward(record.with_value(Change(record.value, None)))
            return
        old = self.store.get(key)
        if old is not None and record.timestamp < old.timestamp:
            _out_of_order(self.ctx, self.supplier.queryable_name, old.timestamp, record.timestamp)
        code = self.store.put(key, ValueAndTimestamp(record.value, record.timestamp))
        if code == -(2**63):  # a versioned store refused a put older than its history
            return
        if not self.forwarder.cached:  # a cached store forwards on flush
            # a versioned store returns the put's valid_to: -1 when it is the latest (Java)
            is_latest = code is None or code == -1
            self.forwarder.maybe_forward(record.with_value(
                Change(record.value, None if old is None else old.value, is_latest)))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run: records without a key skipped (their warnings deferred);
        without a store each record's ``Change(value, None)``; with one, each distinct key's
        stored value read once and every record put (the store's held writes, as the
        aggregations' batch forms do), an out-of-order update's warning deferred, and what
        the store's writer forwards (``forward_updates``); a ``None`` value deletes its
        row. ``None``, record by record, for a store that cannot hold the writes (a
        versioned one)."""
        keys = batch.keys
        types = key_types(keys)
        if _NONE in types:
            keep = [key is not None for key in keys]
            origin = batch.origin
            for position in compress(range(len(keys)), map(not_, keep)):
                run.defer(origin[position], self._skip)
            batch = batch.where(keep)
            keys = batch.keys
            types.discard(_NONE)
        if self.forwarder is None:
            return batch.with_values(Changes(batch.values))  # type: ignore[arg-type]
        if not keys:
            return batch  # (no record reaches the store)
        values = batch.values
        held = getattr(self.store, "held_writes", None)
        writes = None if held is None else held(batch, run)
        if writes is None:
            return None
        timestamps = run.timestamps(batch)
        tally = tally_keys(keys, writes.key_serde, writes.serialize_keys, types)
        olds = self._olds(tally, writes.read(tally.distinct), values, timestamps,
                          batch.origin, run)
        return forward_updates(run, writes, self.forwarder.cached, tally, range(len(keys)),
                               keys, values, olds, batch.origin, timestamps)

    def _olds(self, tally: KeyTally, stored: list[Any], values: list[Any],
              timestamps: list[int], origin: list[int], run: BatchRun) -> list[Any] | None:
        """The value each put replaces, as the record path's ``get`` before it finds it,
        where the processor forwards old values itself (else ``None``): one the run put
        before as an object of its own (``fresh_value``: the record path decodes it from the
        store, so what a function downstream does to the forwarded value stays off it); the
        out-of-order warning of each record older than what its key holds is deferred to
        phase two."""
        forwarder = self.forwarder
        assert forwarder is not None
        sends_olds = forwarder.send_old_values and not forwarder.cached
        if not sends_olds and all(map(le, timestamps, islice(timestamps, 1, None))) and max(
                (held[1] for held in stored if held is not None), default=-1) <= timestamps[0]:
            return None  # in time order and newer than what was stored: nothing out of order
        current: list[Any] = list(stored)  # each key's value and timestamp so far
        olds: list[Any] = []
        name = self.supplier.queryable_name
        put: set[int] = set()  # the keys the run put a value of (by id)
        for key_id, value, timestamp, row in zip(tally.ids, values, timestamps, origin,
                                                 strict=True):
            old = current[key_id]
            if old is None:
                olds.append(None)
            else:
                if timestamp < old[1]:
                    run.defer(row, partial(_out_of_order, self.ctx, name, old[1], timestamp))
                olds.append(fresh_value(old[0]) if sends_olds and key_id in put else old[0])
            current[key_id] = None if value is None else (value, timestamp)  # (a delete)
            put.add(key_id)
        return olds if sends_olds else None

    def _skip(self) -> None:
        skip_record(self.ctx, "null key")


def _out_of_order(context: ProcessorContext, store: str | None, old: int, new: int) -> None:
    metadata = context.record_metadata()
    where = (
        f"topic=[{metadata.topic}] partition=[{metadata.partition}] offset=[{metadata.offset}]"
        if metadata is not None else "Topic, partition and offset not known"
    )
    log.warning("Detected out-of-order KTable update for %s, old timestamp=[%s] new timestamp=[%s]."
                " %s.", store, old, new, where)


class _TableOpSupplier:
    """Shared logic of table operators that may keep their own store (filter, map_values)."""

    def __init__(self, parent: Any, queryable_name: str | None) -> None:
        self.parent = parent
        self.queryable_name = queryable_name
        self.send_old_values = False

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Ask for old values; without a store of its own the parent must send them."""
        if self.queryable_name is not None:
            self.send_old_values = True
            return True
        if self.parent.enable_sending_old_values(force_materialization):
            self.send_old_values = True
        return self.send_old_values

    def view(self) -> Any:
        """Getters of this table's values: its store, or the parent's view transformed."""
        if self.queryable_name is not None:
            return StoreGetterSupplier(self.queryable_name)
        return _DerivedGetterSupplier(self.parent.value_getter_supplier(), self.compute_stamped)

    def compute(self, key: Any, value: Any) -> Any:
        """The value this operator makes of ``value`` (``None`` when it has none)."""
        raise NotImplementedError

    def compute_stamped(self, key: Any, stamped: ValueAndTimestamp | None
                        ) -> ValueAndTimestamp | None:
        """``compute`` on a stored value, keeping its timestamp."""
        if stamped is None:
            return None
        value = self.compute(key, stamped.value)
        return None if value is None else ValueAndTimestamp(value, stamped.timestamp)


class _DerivedGetterSupplier:
    def __init__(self, parent: Any, transform: Callable[[Any, Any], Any]) -> None:
        self.parent = parent
        self.transform = transform

    def get(self) -> Any:
        return _DerivedGetter(self.parent.get(), self.transform)

    def store_names(self) -> list[str]:
        return self.parent.store_names()


class _DerivedGetter:
    def __init__(self, parent: Any, transform: Callable[[Any, Any], Any]) -> None:
        self.parent = parent
        self.transform = transform

    def init(self, context: ProcessorContext) -> None:
        self.parent.init(context)

    def get(self, key: Any) -> ValueAndTimestamp | None:
        return self.transform(key, self.parent.get(key))


def store_reads(getter: Any) -> tuple[StoreGetter, list[Callable[[Any, Any], Any]]] | None:
    """The store getter a table's value getter reads in the end, through the getters of
    unmaterialized filters and value mappers, and their transforms, innermost first (a
    ``get`` is each transform, in order, of the store's value: the user's function once per
    read); ``None`` for another getter (a join's)."""
    transforms: list[Callable[[Any, Any], Any]] = []
    while getter.__class__ is _DerivedGetter:
        transforms.append(getter.transform)
        getter = getter.parent
    if getter.__class__ is not StoreGetter:
        return None
    return getter, transforms[::-1]


def output_versioned(node: Any) -> bool:
    """Whether a DSL graph node's output is a versioned table (Java's
    ``isVersionedOrVersionedUpstream``): a node with a store says so itself, others inherit."""
    known = getattr(node, "output_versioned", None)  # e.g. a suppress node: never versioned
    if known is not None:
        return bool(known)
    factory = getattr(node, "store_factory", None)
    if factory is not None or type(node).__name__ == "KTableKTableJoinNode":
        builder = factory() if factory is not None else None
        return getattr(builder, "history_retention", None) is not None
    return bool(node.parents) and all(output_versioned(parent) for parent in node.parents)


class FilterSupplier(_TableOpSupplier):
    """Java's ``KTableFilter``: rows that stop matching become tombstones."""

    def __init__(self, parent: Any, predicate: Callable[[Any, Any], bool], negate: bool,
                 queryable_name: str | None) -> None:
        super().__init__(parent, queryable_name)
        self.predicate = predicate
        self.negate = negate
        self.send_old_values = parent.enable_sending_old_values(False)
        self.node: Any = None  # the filter's graph node, set once it exists
        self._versioned: bool | None = None

    @property
    def use_versioned_semantics(self) -> bool:
        """True below a versioned table: then even a null-to-null change is forwarded (Java's
        ``enableVersionedSemantics`` at build time)."""
        if self._versioned is None:
            parents = self.node.parents if self.node is not None else []
            self._versioned = any(output_versioned(parent) for parent in parents)
        return self._versioned

    def compute(self, key: Any, value: Any) -> Any:
        """``value`` if it passes, else ``None``."""
        if value is not None and bool(self.predicate(key, value)) is not self.negate:
            return value
        return None

    def compute_stamped(self, key: Any, stamped: ValueAndTimestamp | None
                        ) -> ValueAndTimestamp | None:
        """The stored value if it passes (predicate sees it even when ``None``-valued)."""
        if stamped is not None and bool(self.predicate(key, stamped.value)) is not self.negate:
            return stamped
        return None

    def __call__(self) -> Processor:
        return _TableOpProcessor(self, skip_empty=not self.use_versioned_semantics)


class MapValuesSupplier(_TableOpSupplier):
    """Java's ``KTableMapValues``: ``mapper(value)`` (or ``mapper(key, value)``) per row."""

    def __init__(self, parent: Any, mapper: Callable[..., Any], with_key: bool,
                 queryable_name: str | None) -> None:
        super().__init__(parent, queryable_name)
        self.mapper = mapper
        self.with_key = with_key

    def compute(self, key: Any, value: Any) -> Any:
        """The mapped value, or ``None`` for a deleted row."""
        if value is None:
            return None
        return self.mapper(key, value) if self.with_key else self.mapper(value)

    def __call__(self) -> Processor:
        return _TableOpProcessor(self, skip_empty=False)


class _TableOpProcessor(Processor):
    def __init__(self, supplier: _TableOpSupplier, *, skip_empty: bool) -> None:
        self.supplier = supplier
        self.skip_empty = skip_empty
        self.store: Any = None
        self.forwarder: TupleForwarder | None = None

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        s = self.supplier
        self.send_old_values = s.send_old_values
        if s.queryable_name is not None:
            self.store = context.get_state_store(s.queryable_name)
            self.forwarder = TupleForwarder(self.store, context, s.send_old_values)

    def process(self, record: Record) -> None:
        s = self.supplier
        key, change = record.key, record.value
        new = s.compute(key, change.new_value)
        old = None
        if self.send_old_values:
            if self.store is not None:
                stamped = self.store.get(key)
                old = None if stamped is None else stamped.value
            else:
                old = s.compute(key, change.old_value)
        if self.skip_empty and self.send_old_values and old is None and new is None:
            return  # the row neither matched before nor matches now
        if self.forwarder is not None:
            code = self.store.put(key, ValueAndTimestamp(new, record.timestamp))
            if code == -(2**63):  # a versioned store refused a put older than its history
                return
            if not self.forwarder.cached:  # a cached store forwards on flush
                is_latest = code is None or code == -1
                self.forwarder.maybe_forward(record.with_value(Change(new, old, is_latest)))
        else:
            self.ctx.forward(record.with_value(Change(new, old, change.is_latest)))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of changes: the operator's function on each new value (and
        then on the old one, where old values are sent without a store of its own), record by
        record in order; a change that neither matched before nor matches now dropped. With a
        store, ``_stored_batch``."""
        compute, keys = self.supplier.compute, batch.keys
        news_in, olds_in, latest = change_columns(batch)
        if self.store is not None:
            return self._stored_batch(batch, run, list(map(compute, keys, news_in)), latest)
        if not self.send_old_values:
            news = list(map(compute, keys, news_in))
            return batch.with_values(_changed(news, None, latest))  # type: ignore[arg-type]
        news, olds = [], []
        for key, new, old in zip(keys, news_in, [None] * len(keys) if olds_in is None
                                 else olds_in, strict=True):
            news.append(compute(key, new))
            olds.append(compute(key, old))
        if self.skip_empty:
            keep = [new is not None or old is not None for new, old in zip(news, olds,
                                                                            strict=True)]
            if not all(keep):
                batch = batch.where(keep)
                news, olds = list(compress(news, keep)), list(compress(olds, keep))
                latest = None if latest is None else list(compress(latest, keep))
        return batch.with_values(_changed(news, olds, latest))  # type: ignore[arg-type]

    def _stored_batch(self, batch: Batch, run: BatchRun, news: list[Any],
                      latest: list[bool] | None) -> Batch | None:
        """The run's new values (``news``; ``None``: the row is deleted, as a row that stops
        matching is) put in the operator's store, as the aggregations' batch forms put theirs
        (``forward_updates``), each one's old value the store's (where old values are sent:
        then ``process`` gets each key before its put, and drops a change that neither
        matched before nor matches now: a get with no put, ``writes.missed``). ``None``,
        record by record, for a change that is not the latest (a versioned table's), a store
        that cannot hold the writes, a record cache without old values (a put with no get
        before it, which the held writes do not count), or a run whose last change is
        dropped (its get is the key the store remembers last)."""
        forwarder = self.forwarder
        assert forwarder is not None
        if not news:
            return batch  # (no record reaches the store)
        if latest is not None or (forwarder.cached and not self.send_old_values):
            return None
        writes = self._held(batch, run)
        if writes is None:
            return None
        keys = batch.keys
        tally = tally_keys(keys, writes.key_serde, writes.serialize_keys)
        stored = writes.read(tally.distinct)
        olds: list[Any] | None = None
        positions: Any = range(len(keys))
        origin, timestamps = batch.origin, run.timestamps(batch)
        if self.send_old_values:  # the store's value before each put
            current = [None if held is None else held[0] for held in stored]
            olds, keep = [], []
            skip = self.skip_empty
            for key_id, new in zip(tally.ids, news, strict=True):
                old = current[key_id]
                if skip and old is None and new is None:
                    keep.append(False)  # (neither matched before nor matches now)
                    continue
                keep.append(True)
                olds.append(old)
                current[key_id] = new
            if not all(keep):
                if not keep[-1]:
                    return None
                positions = list(compress(positions, keep))
                keys, news, origin, timestamps = (list(compress(column, keep)) for column in (
                    keys, news, origin, timestamps))
                writes = self._held(batch, run)  # (one reading only the keys put)
                if writes is None:
                    return None
                writes.missed(len(keep) - len(positions))
                tally = tally_keys(keys, writes.key_serde, writes.serialize_keys)
                writes.read(tally.distinct)
            if forwarder.cached:
                olds = None  # (the cache's flushes send the store's)
        return forward_updates(run, writes, forwarder.cached, tally, positions, keys, news,
                               olds, origin, timestamps)

    def _held(self, batch: Batch, run: BatchRun) -> Any:
        """The store's held writes for a run over ``batch``, or ``None``."""
        held = getattr(self.store, "held_writes", None)
        return None if held is None else held(batch, run)


def change_columns(batch: Batch) -> tuple[list[Any], list[Any] | None, list[bool] | None]:
    """A batch of changes as columns: their new values, old values (``None``: none sent) and
    ``is_latest`` flags (``None``: all true), taken from a ``Changes`` column left unbuilt
    (``kslab.dsl._change``) where the batch has one."""
    changes = batch.pending_values()
    if changes.__class__ is Changes:
        news = changes.news
        return news() if callable(news) else news, changes.olds, None
    values = batch.values
    latest = list(map(_LATEST, values))
    return list(map(_NEW, values)), list(map(_OLD, values)), None if all(latest) else latest


def _changed(news: list[Any], olds: list[Any] | None, latest: list[bool] | None) -> Any:
    """The column of ``Change(news[i], olds[i], latest[i])``: left unbuilt (``Changes``)
    while every change is the latest, as a table's changes are but for a versioned one's."""
    if latest is None:
        return Changes(news, olds)
    return list(map(Change, news, repeat(None) if olds is None else olds, latest))


def new_value_only(change: Change) -> Any:
    """``to_stream``: a table change becomes its new value (``None`` for a deleted row)."""
    return change.new_value


class ToStream(MapValues):
    """``to_stream``'s processor: each table change becomes its new value
    (``new_value_only``)."""

    def __init__(self) -> None:
        super().__init__(new_value_only, False)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Each change's new value; of changes a batch form left unbuilt (``Changes``), the
        new values themselves and the bytes the store wrote for them, no ``Change`` built."""
        changes = batch.pending_values()
        if changes.__class__ is Changes:
            return batch.with_values(changes.news, changes.news_bytes)
        return batch.with_values(list(map(new_value_only, batch.values)))
