"""Table-table key joins: one processor per side that looks the other side up, and a merger
after both (Java's ``KTableKTable{Inner,Left,Outer}Join`` and ``KTableKTableJoinMerger``).

Invariant: both tables are co-partitioned (the join records that as a co-partition group of
their source nodes), and a side that joins with old values makes both inputs send theirs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from kslab.dsl._change import Change
from kslab.dsl._graph import KTableKTableJoinNode
from kslab.dsl._naming import (
    or_generate,
    resolve_materialized,
    resolve_name,
    suffix_or_generate,
)
from kslab.dsl._processors import require_callable, skip_record
from kslab.dsl._stores import store_factory
from kslab.dsl._table_processors import (
    StoreGetterSupplier,
    TupleForwarder,
    forward_updates,
    output_versioned,
    store_reads,
)
from kslab.dsl._tally import tally_keys
from kslab.dsl.config import Materialized, Named
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Record, ValueAndTimestamp
from kslab.state.fresh import IMMUTABLE, fresh_value

__all__ = ["table_table_join"]

log = logging.getLogger("kslab.dsl")


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
        joined = _join_change(self.s, change, record.timestamp, self.getter.get(key))
        if joined is not None:
            self.ctx.forward(Record(key, joined[0], joined[1], record.raw_headers))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of changes: each distinct key read from the other side's
        store once (``held_reads``: its record cache's hits, misses and read-backs replayed
        in phase two), that side's getters' transforms (its unmaterialized filters and value
        mappers) per record, then ``_join_change`` per record, in order; a ``None`` key
        skipped with its warning deferred. ``None`` (record by record) for a versioned
        side, the other side read through another join's getter, or where the store cannot
        hold the reads (read-backs that might fill the record cache)."""
        found = None if self.versioned else store_reads(self.getter)
        reads = None if found is None else found[0].held_reads(batch, run)
        if reads is None:
            return None
        keys, changes, origin = batch.keys, batch.values, batch.origin
        positions = [position for position, key in enumerate(keys) if key is not None]
        if len(positions) < len(keys):
            for position in sorted(set(range(len(keys))) - set(positions)):
                run.defer(origin[position], partial(skip_record, self.ctx, "null key"),
                          position)
            keys = list(map(keys.__getitem__, positions))
        tally = tally_keys(keys, reads.key_serde, reads.serialize_keys)
        stored = reads.read(tally.distinct, tally.ids, keys[-1] if keys else None)
        if stored is None:
            return None
        stamped = list(map(stored.__getitem__, tally.ids))
        if not IMMUTABLE.issuperset(type(None if held is None else held[0])
                                    for held in stored):  # each record's read its own
            stamped = [None if held is None else fresh_value(held)  # object, as each get
                       for held in stamped]  # of the record path decodes one
        for transform in found[1]:  # type: ignore[index]
            stamped = list(map(transform, keys, stamped))
        timestamps = run.timestamps(batch)
        s = self.s
        kept: list[int] = []
        out: list[Change] = []
        stamps: list[int] = []
        for position, theirs in zip(positions, stamped, strict=True):
            joined = _join_change(s, changes[position], timestamps[position], theirs)
            if joined is not None:
                kept.append(position)
                out.append(joined[0])
                stamps.append(joined[1])
        run.hold(reads)
        return Batch(list(map(batch.keys.__getitem__, kept)), out,
                     list(map(origin.__getitem__, kept)), stamps, parents=kept)


def _join_change(s: _TableJoinSupplier, change: Change, timestamp: int,
                 stamped: ValueAndTimestamp | None) -> tuple[Change, int] | None:
    """One side's join of ``change`` (at ``timestamp``) with the other side's row
    ``stamped``: the joined change and its timestamp (the later of the two), or ``None``
    where nothing is forwarded (no row on the other side of an inner or right join; neither
    a new nor an old value, for a left or outer one). The joiner once per value joined."""
    kind = s.kind
    theirs = None if stamped is None else stamped.value
    if theirs is None:
        if kind in ("inner", "right"):
            return None
        if change.new_value is None and change.old_value is None:
            return None
    else:
        timestamp = max(timestamp, stamped.timestamp)  # type: ignore[union-attr]
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
    return Change(new, old, change.is_latest), timestamp


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

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of either side's joined changes: without a store, each
        forwarded as it is (or without its old value); with one, each new value put
        through the store's held writes (``puts_only``: no get before a put, as ``process``
        puts; a ``None`` value deletes its row) and forwarded as ``process`` forwards it, or,
        behind a record cache, as each commit's flush forwards it (``forward_updates``).
        ``None`` (record by record) for a store that cannot hold the writes (a run that
        might fill the record cache) or a change that is not the latest (a versioned
        side's)."""
        changes = batch.values
        if self.store is None:
            if self.s.send_old_values:
                return batch
            return batch.with_values([Change(change.new_value, None, change.is_latest)
                                      for change in changes])
        held = getattr(self.store, "held_writes", None)
        writes = None if held is None else held(batch, run, puts_only=True)
        if writes is None or not all(change.is_latest for change in changes):
            return None
        keys = batch.keys
        tally = tally_keys(keys, writes.key_serde, writes.serialize_keys)
        cached = self.forwarder.cached
        if cached:
            writes.read(tally.distinct)  # (the cache's and the store's values: the flushes')
        olds = [change.old_value for change in changes] if self.forwarder.send_old_values \
            and not cached else None  # (a plain store's put returns no valid_to: every
        # change is the latest)
        return forward_updates(run, writes, cached, tally, range(len(keys)), keys,
                               [change.new_value for change in changes], olds, batch.origin,
                               run.timestamps(batch))
