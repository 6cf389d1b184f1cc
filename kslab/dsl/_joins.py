"""Stream-table and stream-global-table key joins, with their processor (table-table joins:
``kslab.dsl._table_joins``).

A stream-table join looks each stream record up in the table's store (the stream drives), one
record at a time or, in a batch, each distinct key once (``process_batch``). A stream-table
join with ``Joined.grace_period`` (KIP-923, versioned tables only) holds stream records in a
``<name>-Buffer`` store and joins them in timestamp order once stream time passes them by the
grace period. Invariant: both inputs of a key join are co-partitioned; the join records that as
a co-partition group of their source nodes, and a stream whose key changed is repartitioned
first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from itertools import compress, repeat
from operator import is_, is_not
from typing import Any

from kslab.dsl._graph import StreamTableJoinNode
from kslab.dsl._naming import (
    or_generate,
    resolve_config,
    resolve_name,
)
from kslab.dsl._processors import require_callable, skip_record
from kslab.dsl._table_processors import (
    store_reads,
)
from kslab.dsl._tally import key_types, tally_keys
from kslab.dsl.config import internal
from kslab.dsl.joined import Joined
from kslab.errors import InvalidArgumentError, TopologyError
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Headers, Record
from kslab.state.fresh import IMMUTABLE, fresh_value
from kslab.state.join_buffer import JoinBufferBuilder

__all__ = ["stream_global_join", "stream_table_join"]

log = logging.getLogger("kslab.dsl")
_NONE = type(None)


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
    j = internal(resolve_config(Joined, joined, op, key_serde=key_serde, value_serde=value_serde,
                                other_value_serde=other_value_serde, name=name))
    if stream.repartition_required:
        prefix = j.name if j.name is not None else stream.name
        stream = stream.repartition_for_join(prefix, j.key_serde, j.value_serde)
    b = stream.builder
    sources = stream.source_nodes | table.source_nodes
    b.copartition(sources)
    node_name = or_generate(b, j.name, "KSTREAM-LEFTJOIN-" if left else "KSTREAM-JOIN-")
    grace = j.grace_period
    buffer_name = None
    if grace is not None:
        if _output_versioned(table) is False:
            raise JoinGraceError(NOT_VERSIONED)
        buffer_name = f"{node_name}-Buffer"
        b.add_state_store(JoinBufferBuilder(buffer_name, grace, j.key_serde, j.value_serde))
    getters = table.value_getter_supplier()
    supplier = _StreamTableJoinSupplier(getters, joiner3, None, left, buffer_name,
                                        None if with_key else joiner)
    node = _GraceJoinNode(node_name, supplier,
                          store_names=table.value_getter_supplier().store_names())
    node.grace = grace
    node.buffer_name = buffer_name
    b.add_node(stream.node, node)
    if left:
        node.relaxed_null_key_join = True
    key_serde = j.key_serde if j.key_serde is not None else stream.key_serde
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
                                        left, None, None if with_key else joiner)
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
    """``joiner(key, value, other)``; ``value_joiner``: the user's ``joiner(value, other)``
    it wraps (``None``: the user's joiner takes the key), which a batch calls directly."""

    def __init__(self, getters: Any, joiner: Callable[..., Any],
                 key_mapper: Callable[[Any, Any], Any] | None, left: bool,
                 buffer_name: str | None = None,
                 value_joiner: Callable[[Any, Any], Any] | None = None) -> None:
        self.getters = getters
        self.joiner = joiner
        self.key_mapper = key_mapper
        self.left = left
        self.buffer_name = buffer_name
        self.value_joiner = value_joiner

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
        transforms = found[1]  # type: ignore[index]
        # each record's read an object of its own, as each get of the record path decodes
        # one (a function changing it in place changes no other record's: kslab.state.fresh)
        shared = not IMMUTABLE.issuperset(
            type(None if held is None else held[0]) for held in stored)
        if transforms:  # each record's read through the getters: their functions per read
            stamped = list(map(stored.__getitem__, tally.ids))
            if shared:
                stamped = [None if held is None else fresh_value(held) for held in stamped]
            for transform in transforms:
                stamped = list(map(transform, looked, stamped))
            others = [None if held is None else held[0] for held in stamped]
        else:  # each distinct key's value, then each record's (in C)
            found_values = [None if held is None else held[0] for held in stored]
            others = list(map(found_values.__getitem__, tally.ids))
            if shared:
                others = list(map(fresh_value, others))
        if len(present) < len(lookups):  # (a left join's records without a key: none)
            others_at = dict(zip(present, others, strict=True))
            others = list(map(others_at.get, range(len(lookups))))
        keys, values = batch.keys, batch.values
        every = positions.__class__ is range  # (each record joins: positions are all)
        if not every:
            keys, values = (list(map(column.__getitem__, positions)) for column in (keys,
                                                                                   values))
        joins = [True] * len(others) if self.s.left else list(map(is_not, others,
                                                                   repeat(None)))
        all_join = all(joins)
        if not all_join:  # an inner join's records whose key the table does not have
            keys, values, others = (list(compress(column, joins)) for column in (keys, values,
                                                                                 others))
        value_joiner = self.s.value_joiner
        joined = list(map(self.s.joiner, keys, values, others) if value_joiner is None
                      else map(value_joiner, values, others))
        run.hold(reads)
        if every and all_join:
            return batch.with_values(joined)
        keep = [False] * len(batch)
        for position, ok in zip(positions, joins, strict=True):
            keep[position] = ok
        return batch.where(keep).with_values(joined)

    def _lookups(self, batch: Batch, run: BatchRun) -> tuple[Any, list[Any]]:
        """The positions of the records that join and each one's lookup key (``None``: none
        looked up, a left join's record without a key); the others' skips deferred."""
        keys, values, mapper, left = batch.keys, batch.values, self.s.key_mapper, self.s.left
        if mapper is None and _NONE not in key_types(keys) and not any(map(is_, values,
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
