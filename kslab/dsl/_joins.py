"""Key joins: stream-table, stream-global-table and table-table, with their processors.

A stream-table join looks each stream record up in the table's store (the stream drives); a
table-table join has one processor per side that looks the other side up, and a merger after
both. A stream-table join with ``Joined.grace_period`` (KIP-923, versioned tables only) holds
stream records in a ``<name>-Buffer`` store and joins them in timestamp order once stream time
passes them by the grace period. Invariant: both inputs of a key join are co-partitioned; the
join records that as a co-partition group of their source nodes, and a stream whose key changed
is repartitioned first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from itertools import compress, repeat
from operator import is_, is_not
from typing import Any

from kslab.dsl._change import Change
from kslab.dsl._graph import KTableKTableJoinNode, StreamTableJoinNode
from kslab.dsl._naming import (
    or_generate,
    resolve_config,
    resolve_materialized,
    resolve_name,
    suffix_or_generate,
)
from kslab.dsl._processors import require_callable, skip_record
from kslab.dsl._stores import store_factory
from kslab.dsl._table_processors import (
    StoreGetterSupplier,
    TupleForwarder,
    output_versioned,
    store_reads,
)
from kslab.dsl._tally import key_types, tally_keys
from kslab.dsl.config import Materialized, Named
from kslab.dsl.joined import Joined
from kslab.errors import InvalidArgumentError, TopologyError
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Headers, Record, ValueAndTimestamp
from kslab.state.join_buffer import JoinBufferBuilder

__all__ = ["stream_global_join", "stream_table_join", "table_table_join"]

log = logging.getLogger("kslab.dsl")


def _joiner(joiner: Callable[..., Any], with_key: bool, op: str) -> Callable[..., Any]:
    require_callable(joiner, "joiner", op)
    return joiner if with_key else (lambda key, left, right: joiner(left, right))


# -- stream-table -------------------------------------------------------------------------------


def stream_table_join(stream: Any, table: Any, joiner: Callable[..., Any], joined: Any = None,
                      *, left: bool, op: str, key_serde: Any = None, value_serde: Any = None,
                      other_value_serde: Any = None, name: str | None = None,
                      with_key: bool = False) -> Any:
    """``KStream.join/left_join(table, joiner, joined)``."""
    from kslab.dsl.kstream import KStream

    joiner3 = _joiner(joiner, with_key, op)
    j = resolve_config(Joined, joined, op, key_serde=key_serde, value_serde=value_serde,
                       other_value_serde=other_value_serde, name=name)
    if stream.repartition_required:
        prefix = j._name if j._name is not None else stream.name
        stream = stream._repartition_for_join(prefix, j._key_serde, j._value_serde)
    b = stream.builder
    sources = stream.source_nodes | table.source_nodes
    b.copartition(sources)
    node_name = or_generate(b, j._name, "KSTREAM-LEFTJOIN-" if left else "KSTREAM-JOIN-")
    grace = j._grace_period
    buffer_name = None
    if grace is not None:
        if _output_versioned(table) is False:
            raise JoinGraceError(NOT_VERSIONED)
        buffer_name = f"{node_name}-Buffer"
        b.add_state_store(JoinBufferBuilder(buffer_name, grace, j._key_serde, j._value_serde))
    getters = table.value_getter_supplier()
    supplier = _StreamTableJoinSupplier(getters, joiner3, None, left, buffer_name)
    node = _GraceJoinNode(node_name, supplier,
                          store_names=table.value_getter_supplier().store_names())
    node.grace = grace
    node.buffer_name = buffer_name
    b.add_node(stream.node, node)
    if left:
        node.relaxed_null_key_join = True
    key_serde = j._key_serde if j._key_serde is not None else stream.key_serde
    return KStream(b, node_name, key_serde, None, sources, False, node)


def stream_global_join(stream: Any, table: Any, key_selector: Callable[[Any, Any], Any],
                       joiner: Callable[..., Any], named: Any = None, *, left: bool, op: str,
                       name: str | None = None, with_key: bool = False) -> Any:
    """``KStream.join/left_join(global_table, key_selector, joiner)``."""
    from kslab.dsl.kstream import KStream

    require_callable(key_selector, "key_selector", op)
    joiner3 = _joiner(joiner, with_key, op)
    b = stream.builder
    node_name = or_generate(b, resolve_name(named, name, op), "KSTREAM-LEFTJOIN-")
    supplier = _StreamTableJoinSupplier(table.value_getter_supplier(), joiner3, key_selector,
                                        left)
    node = StreamTableJoinNode(node_name, supplier)
    if left:
        node.relaxed_null_key_join = True
    b.add_node(stream.node, node)
    return KStream(b, node_name, stream.key_serde, None, stream.source_nodes,
                   stream.repartition_required, node)


NOT_VERSIONED = "KTable must be versioned to use a grace period in a stream table join."


class JoinGraceError(TopologyError, InvalidArgumentError):
    """A grace period the table cannot honour: a wiring error that is Java's
    ``IllegalArgumentException``, so it is a ``ValueError`` as well as a ``TopologyError``."""


def _output_versioned(table: Any) -> bool | None:
    """Whether a source table's store is versioned (None when the table inherits a store)."""
    from kslab.dsl._table_processors import TableSource

    if not isinstance(table.supplier, TableSource):
        return None
    builder = table.node.store_factory()
    return getattr(builder, "history_retention", None) is not None


class _GraceJoinNode(StreamTableJoinNode):
    """A stream-table join node that also checks and connects its grace buffer, as Java's."""

    grace: int | None = None
    buffer_name: str | None = None

    def write(self, topology: Any) -> None:
        """Add the processor, connect the table's stores and the buffer, check versioning."""
        super().write(topology)
        if self.buffer_name is not None:
            topology.connect_processor_and_state_stores(self.name, self.buffer_name)
        if self.grace is None:
            return
        for store in self.store_names or ():
            history = getattr(topology.state_stores.get(store), "history_retention", None)
            if history is None:
                raise JoinGraceError(NOT_VERSIONED)
            if self.grace > history:
                msg = "History retention must be at least grace period."
                raise JoinGraceError(msg)


class _StreamTableJoinSupplier:
    def __init__(self, getters: Any, joiner: Callable[..., Any],
                 key_mapper: Callable[[Any, Any], Any] | None, left: bool,
                 buffer_name: str | None = None) -> None:
        self.getters = getters
        self.joiner = joiner
        self.key_mapper = key_mapper
        self.left = left
        self.buffer_name = buffer_name

    def __call__(self) -> Processor:
        return _StreamTableJoinProcessor(self)


class _StreamTableJoinProcessor(Processor):
    """Java's ``KStreamKTableJoinProcessor``, with the grace buffer of KIP-923."""

    def __init__(self, s: _StreamTableJoinSupplier) -> None:
        self.s = s
        self.getter = s.getters.get()
        self.buffer: Any = None

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.getter.init(context)
        self.versioned = _versioned_store(self.getter) is not None
        if self.s.buffer_name is not None:
            if not self.versioned:
                raise JoinGraceError(NOT_VERSIONED)
            self.buffer = context.get_state_store(self.s.buffer_name)

    def _mapped(self, record: Record) -> Any:
        mapper = self.s.key_mapper
        return record.key if mapper is None else mapper(record.key, record.value)

    def process(self, record: Record) -> None:
        s = self.s
        mapped = self._mapped(record)
        if not (s.left and record.key is None and record.value is not None) and (
                mapped is None or record.value is None):
            skip_record(self.ctx, "null join key or value")
            return
        buffer = self.buffer
        if buffer is None:
            self._join(record)
            return
        metadata = self.ctx.record_metadata()
        topic, partition, offset = (None, -1, -1) if metadata is None else \
            (metadata.topic, metadata.partition, metadata.offset)
        headers = record.headers if record.headers is not None else Headers()
        context = (record.timestamp, offset, topic, partition, headers)
        if not buffer.put(record.key, record.value, context):
            self._join(record)  # older than stream time - grace: joined at once
        else:
            buffer.evict(self._release)

    def _release(self, key: Any, value: Any, context: tuple[Any, ...]) -> None:
        """Join a record leaving the buffer under its own topic, partition and offset: Java's
        ``emit`` restores the buffered ``ProcessorRecordContext`` around the join."""
        ctx: Any = self.ctx
        record = Record(key, value, context[0], context[4])
        try:
            saved = (ctx.topic, ctx.partition, ctx.offset)
        except AttributeError:  # a context without a record position (a test double)
            self._join(record)
            return
        ctx.topic, ctx.partition, ctx.offset = context[2], context[3], context[1]
        try:
            self._join(record)
        finally:
            ctx.topic, ctx.partition, ctx.offset = saved

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run: each record's lookup key (its key, or the key selector's,
        called twice per record as ``process`` and then ``_join`` call it), a record without
        one or without a value skipped (its warning deferred); each distinct lookup key read
        from the table's store once (``held_reads``); then the table's getters' transforms
        (its unmaterialized filters and value mappers) and the joiner per record, in order.
        ``None``, record by record, with a grace buffer, for a versioned table, or where the
        store cannot hold the reads (a read back into a full record cache)."""
        found = None if self.buffer is not None or self.versioned else store_reads(self.getter)
        reads = None if found is None else found[0].held_reads(batch, run)
        if reads is None:
            return None
        positions, lookups = self._lookups(batch, run)
        present = list(compress(range(len(lookups)), map(is_not, lookups, repeat(None))))
        looked = lookups if len(present) == len(lookups) else list(map(lookups.__getitem__,
                                                                       present))
        tally = tally_keys(looked, reads.key_serde, reads.serialize_keys)
        stored = reads.read(tally.distinct, tally.ids, looked[-1] if looked else None)
        if stored is None:
            return None
        stamped = list(map(stored.__getitem__, tally.ids))
        for transform in found[1]:  # type: ignore[index]
            stamped = list(map(transform, looked, stamped))
        others: list[Any] = [None] * len(lookups)
        for index, value in zip(present, stamped, strict=True):
            if value is not None:
                others[index] = value[0]
        keys, values, joiner = batch.keys, batch.values, self.s.joiner
        keep = [False] * len(batch)
        joined: list[Any] = []
        left = self.s.left
        for position, other in zip(positions, others, strict=True):
            if left or other is not None:
                keep[position] = True
                joined.append(joiner(keys[position], values[position], other))
        run.hold(reads)
        return batch.where(keep).with_values(joined)

    def _lookups(self, batch: Batch, run: BatchRun) -> tuple[Any, list[Any]]:
        """The positions of the records that join and each one's lookup key (``None``: none
        looked up, a left join's record without a key); the others' skips deferred."""
        keys, values, mapper, left = batch.keys, batch.values, self.s.key_mapper, self.s.left
        if mapper is None and None not in key_types(keys) and not any(map(is_, values,
                                                                           repeat(None))):
            return range(len(keys)), keys
        positions: list[int] = []
        lookups: list[Any] = []
        for position, (key, value) in enumerate(zip(keys, values, strict=True)):
            mapped = key if mapper is None else mapper(key, value)
            if not (left and key is None and value is not None) and (
                    mapped is None or value is None):
                run.defer(batch.origin[position], self._skip)
                continue
            positions.append(position)
            lookups.append(key if mapper is None else mapper(key, value))
        return positions, lookups

    def _skip(self) -> None:
        skip_record(self.ctx, "null join key or value")

    def _join(self, record: Record) -> None:
        s = self.s
        mapped = self._mapped(record)
        other = None
        if mapped is not None:
            if self.versioned:  # KIP-914: the table as of the record's time
                stamped = _get_as_of(self.getter, mapped, record.timestamp)
            else:
                stamped = self.getter.get(mapped)
            other = None if stamped is None else stamped.value
        if s.left or other is not None:
            self.ctx.forward(record.with_value(s.joiner(record.key, record.value, other)))


def _versioned_store(getter: Any) -> Any:
    """The versioned store a table's value getter reads in the end -- its own, or through the
    getters of unmaterialized filters and map_values -- or ``None`` (Java's
    ``KTableValueGetter.isVersioned``)."""
    store = getattr(getter, "store", None)
    if store is not None:
        return store if getattr(store, "store_kind", None) == "versioned_key_value" else None
    parent = getattr(getter, "parent", None)
    if parent is None or not hasattr(getter, "transform"):
        return None
    return _versioned_store(parent)


def _get_as_of(getter: Any, key: Any, timestamp: int) -> Any:
    """The table's value of ``key`` as of ``timestamp`` (Java's ``get(key, asOfTimestamp)``),
    through the same getters ``_versioned_store`` walks."""
    store = getattr(getter, "store", None)
    if store is not None:
        return store.get(key, timestamp)
    return getter.transform(key, _get_as_of(getter.parent, key, timestamp))


# -- table-table --------------------------------------------------------------------------------


def table_table_join(this: Any, other: Any, joiner: Callable[..., Any], named: Any = None,
                     materialized: Any = None, *, left: bool, outer: bool, op: str,
                     name: str | None = None) -> Any:
    """``KTable.join/left_join/outer_join(other, joiner)`` on the primary key."""
    from kslab.dsl.ktable import KTable

    require_callable(joiner, "joiner", op)
    if isinstance(named, Materialized | str) and not isinstance(named, Named) and \
            materialized is None:
        named, materialized = None, named
    b = this.builder
    m = resolve_materialized(materialized, op)
    mat = b.materialize(m, "KTABLE-MERGE-") if m is not None else None
    user_name = resolve_name(named, name, op)
    merge_name = or_generate(b, user_name, "KTABLE-MERGE-")
    sources = this.source_nodes | other.source_nodes
    b.copartition(sources)
    if left:
        this.enable_sending_old_values(True)
    if outer:
        other.enable_sending_old_values(True)
    kind, other_kind = ("outer", "outer") if outer else ("left", "right") if left else (
        "inner", "inner")
    this_getters, other_getters = this.value_getter_supplier(), other.value_getter_supplier()
    join_this = _TableJoinSupplier(this, other, this_getters, other_getters, joiner, kind)
    join_other = _TableJoinSupplier(other, this, other_getters, this_getters,
                                    lambda a, c: joiner(c, a), other_kind)
    this_name = suffix_or_generate(b, user_name, "-join-this", "KTABLE-JOINTHIS-")
    other_name = suffix_or_generate(b, user_name, "-join-other", "KTABLE-JOINOTHER-")
    key_serde, value_serde, queryable, factory = this.key_serde, None, None, None
    if mat is not None:
        mat.key_serde = mat.key_serde if mat.key_serde is not None else this.key_serde
        key_serde, value_serde, queryable = mat.key_serde, mat.value_serde, mat.store_name
        factory = store_factory(mat)
    merger = _MergerSupplier(join_this, join_other, queryable)
    this_stores = list(this_getters.store_names())
    other_stores = list(other_getters.store_names())
    node = KTableKTableJoinNode(
        merge_name, this_name, join_this, other_name, join_other, merger, this.name,
        other.name, lambda: this_stores, lambda: other_stores, factory,
    )
    b.add_node(this.node, node)
    b.add_node(other.node, node)
    return KTable(b, merge_name, key_serde, value_serde, sources, queryable, merger, node)


def _joined_value(kind: str, joiner: Callable[..., Any], mine: Any, theirs: Any
                  ) -> tuple[bool, Any]:
    """Whether a row exists for this pair of sides, and its joined value."""
    if kind == "inner":
        ok = mine is not None and theirs is not None
    elif kind == "left":
        ok = mine is not None
    elif kind == "right":
        ok = theirs is not None and mine is not None
    else:
        ok = mine is not None or theirs is not None
    return ok, (joiner(mine, theirs) if ok else None)


class _TableJoinSupplier:
    """One side of a table-table join (Java's ``KTableKTable{Inner,Left,Right,Outer}Join``)."""

    def __init__(self, table: Any, other: Any, my_getters: Any, other_getters: Any,
                 joiner: Callable[..., Any], kind: str) -> None:
        self.table = table
        self.other = other
        self.my_getters = my_getters
        self.other_getters = other_getters
        self.joiner = joiner
        self.kind = kind
        self.send_old_values = False
        self._versioned: bool | None = None

    def use_versioned_semantics(self) -> bool:
        """Whether this side's input is a versioned table (Java's ``enableVersionedSemantics``
        for the join whose "this" parent is versioned): its out-of-order updates are dropped."""
        if self._versioned is None:
            self._versioned = output_versioned(self.table.node)
        return self._versioned

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Both inputs must send old values."""
        self.table.enable_sending_old_values(True)
        self.other.enable_sending_old_values(True)
        self.send_old_values = True
        return True

    def view(self) -> Any:
        """Getters computing the joined row from both sides' getters."""
        return _JoinGetterSupplier(self)

    def __call__(self) -> Processor:
        return _TableJoinProcessor(self)


class _TableJoinProcessor(Processor):
    def __init__(self, s: _TableJoinSupplier) -> None:
        self.s = s
        self.getter = s.other_getters.get()

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.getter.init(context)
        self.versioned = self.s.use_versioned_semantics()

    def process(self, record: Record) -> None:
        key, change = record.key, record.value
        if key is None:
            skip_record(self.ctx, "null key")
            return
        if self.versioned and not change.is_latest:
            _skip_out_of_order(self.ctx)
            return
        s, kind = self.s, self.s.kind
        stamped = self.getter.get(key)
        theirs = None if stamped is None else stamped.value
        if theirs is None:
            if kind in ("inner", "right"):
                return
            if change.new_value is None and change.old_value is None:
                return
            timestamp = record.timestamp
        else:
            timestamp = max(record.timestamp, stamped.timestamp)
        new = old = None
        if kind == "right":
            new = s.joiner(change.new_value, theirs)
            if s.send_old_values:
                old = s.joiner(change.old_value, theirs)
        elif kind == "outer":
            if theirs is not None or change.new_value is not None:
                new = s.joiner(change.new_value, theirs)
            if s.send_old_values and (theirs is not None or change.old_value is not None):
                old = s.joiner(change.old_value, theirs)
        else:
            if change.new_value is not None:
                new = s.joiner(change.new_value, theirs)
            if s.send_old_values and change.old_value is not None:
                old = s.joiner(change.old_value, theirs)
        self.ctx.forward(Record(key, Change(new, old, change.is_latest), timestamp,
                                record._headers))


def _skip_out_of_order(context: ProcessorContext) -> None:
    """An out-of-order update of a versioned table does not change a join result (KIP-914):
    logged at INFO and counted as dropped, as Java's table-table joins do."""
    log.info("Skipping out-of-order record from versioned table while performing table-table "
             "join.")
    dropped = getattr(context, "record_dropped", None)
    if dropped is not None:
        dropped()


class _JoinGetterSupplier:
    def __init__(self, s: _TableJoinSupplier) -> None:
        self.s = s

    def get(self) -> Any:
        return _JoinGetter(self.s, self.s.my_getters.get(), self.s.other_getters.get())

    def store_names(self) -> list[str]:
        names = list(self.s.my_getters.store_names())
        names += [n for n in self.s.other_getters.store_names() if n not in names]
        return names


class _JoinGetter:
    def __init__(self, s: _TableJoinSupplier, mine: Any, theirs: Any) -> None:
        self.s, self.mine, self.theirs = s, mine, theirs

    def init(self, context: ProcessorContext) -> None:
        self.mine.init(context)
        self.theirs.init(context)

    def get(self, key: Any) -> ValueAndTimestamp | None:
        a, c = self.mine.get(key), self.theirs.get(key)
        ok, value = _joined_value(self.s.kind, self.s.joiner, None if a is None else a.value,
                                  None if c is None else c.value)
        if not ok or value is None:
            return None
        stamps = [x.timestamp for x in (a, c) if x is not None]
        return ValueAndTimestamp(value, max(stamps))


class _MergerSupplier:
    """Java's ``KTableKTableJoinMerger``: forwards either side's result (and stores it if named)."""

    def __init__(self, this: _TableJoinSupplier, other: _TableJoinSupplier,
                 queryable_name: str | None) -> None:
        self.this = this
        self.other = other
        self.queryable_name = queryable_name
        self.send_old_values = False

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Both join sides send old values."""
        self.this.enable_sending_old_values(True)
        self.other.enable_sending_old_values(True)
        self.send_old_values = True
        return True

    def view(self) -> Any:
        """The result store if materialized, else the join's own getters."""
        if self.queryable_name is not None:
            return StoreGetterSupplier(self.queryable_name)
        return _MergedViewSupplier(self)

    def __call__(self) -> Processor:
        return _MergerProcessor(self)


class _MergedViewSupplier:
    def __init__(self, merger: _MergerSupplier) -> None:
        self.merger = merger

    def get(self) -> Any:
        return self.merger.this.view().get()

    def store_names(self) -> list[str]:
        names = list(self.merger.this.view().store_names())
        names += [n for n in self.merger.other.view().store_names() if n not in names]
        return names


class _MergerProcessor(Processor):
    def __init__(self, s: _MergerSupplier) -> None:
        self.s = s
        self.store: Any = None

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        if self.s.queryable_name is not None:
            self.store = context.get_state_store(self.s.queryable_name)
            self.forwarder = TupleForwarder(self.store, context, self.s.send_old_values)

    def process(self, record: Record) -> None:
        change = record.value
        if self.store is not None:
            code = self.store.put(record.key,
                                  ValueAndTimestamp(change.new_value, record.timestamp))
            if code == -(2**63):  # a versioned store refused a put older than its history
                return
            if not self.forwarder.cached:  # a cached store forwards on flush
                # a versioned store returns the put's valid_to: -1 when it is the latest (Java)
                is_latest = code is None or code == -1
                self.forwarder.maybe_forward(record.with_value(
                    Change(change.new_value, change.old_value, is_latest)))
        elif self.s.send_old_values:
            self.ctx.forward(record)
        else:
            self.ctx.forward(record.with_value(Change(change.new_value, None, change.is_latest)))
