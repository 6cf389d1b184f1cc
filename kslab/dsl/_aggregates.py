"""The processors behind ``count`` / ``reduce`` / ``aggregate`` of grouped streams and tables.

Stream aggregations fold each record into the stored aggregate of its key; table aggregations
first subtract the old value of a changed row, then add the new one, so a row moving between
groups leaves the old group and joins the new. Invariant: the aggregate's timestamp is the
largest timestamp of the records folded into it, as in Java.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from operator import is_
from typing import Any

from kslab.dsl._change import Change, Changes
from kslab.dsl._processors import skip_record
from kslab.dsl._table_processors import (
    StoreGetterSupplier,
    TupleForwarder,
    change_columns,
    forward_updates,
)
from kslab.dsl._tally import KeyTally, key_types, tally_keys
from kslab.errors import StreamsError
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun
from kslab.records import Record, ValueAndTimestamp
from kslab.state.fresh import IMMUTABLE, fresh_value

_new_tuple = tuple.__new__  # a NamedTuple's own __new__ is a Python function
_NONE = type(None)

__all__ = [
    "AggregateSupplier",
    "RepartitionMapSupplier",
    "TableAggregateSupplier",
    "count_adder",
    "count_initializer",
    "count_subtractor",
]


def count_initializer() -> int:
    """A count starts at 0."""
    return 0


def count_adder(key: Any, value: Any, aggregate: int) -> int:
    """One more."""
    return aggregate + 1


def count_subtractor(key: Any, value: Any, aggregate: int) -> int:
    """One less."""
    return aggregate - 1


class AggregateSupplier:
    """Java's ``KStreamAggregate`` (and ``KStreamReduce`` when ``reducer`` is given)."""

    def __init__(self, store_name: str, initializer: Callable[[], Any] | None,
                 aggregator: Callable[[Any, Any, Any], Any] | None,
                 reducer: Callable[[Any, Any], Any] | None = None) -> None:
        self.store_name = store_name
        self.initializer = initializer
        self.aggregator = aggregator
        self.reducer = reducer
        self.send_old_values = False

    def view(self) -> StoreGetterSupplier:
        """Getters reading the aggregate store."""
        return StoreGetterSupplier(self.store_name)

    def __call__(self) -> Processor:
        return _StreamAggregateProcessor(self)


class _StreamAggregateProcessor(Processor):
    def __init__(self, supplier: AggregateSupplier) -> None:
        self.s = supplier

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        self.store = context.get_state_store(self.s.store_name)
        self.forwarder = TupleForwarder(self.store, context, self.s.send_old_values)

    def _fold(self, key: Any, value: Any, stored: Any, timestamp: int) -> tuple[Any, Any, int]:
        """The aggregate before (Java's ``oldAgg``: the initializer's for a new key of an
        aggregate), the aggregate after, and its timestamp (the largest folded into it)."""
        s = self.s
        if stored is None:
            if s.reducer is None:  # Java's KStreamAggregate: the initial value is the old one
                old = s.initializer()  # type: ignore[misc]
                return old, s.aggregator(key, value, old), timestamp  # type: ignore[misc]
            return None, value, timestamp
        old = stored[0]
        if stored[1] > timestamp:
            timestamp = stored[1]
        if s.reducer is not None:
            return old, s.reducer(old, value), timestamp
        return old, s.aggregator(key, value, old), timestamp  # type: ignore[misc]

    def process(self, record: Record) -> None:
        key, value = record.key, record.value
        if key is None or value is None:
            skip_record(self.ctx, "null key or value")
            return
        store = self.store
        old, new, timestamp = self._fold(key, value, store.get(key), record.timestamp)
        code = store.put(key, _new_tuple(ValueAndTimestamp, (new, timestamp)))
        if not self.forwarder.cached:  # a cached store forwards on flush
            if code == -(2**63):  # a versioned store refused a put older than its history
                return
            old_sent = old if self.s.send_old_values else None
            is_latest = code is None or code == -1
            self.forwarder.maybe_forward(Record(key, Change(new, old_sent, is_latest), timestamp,
                                                record.raw_headers))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run: each key's stored aggregate read once, the aggregator (or
        reducer) once per record in order over it (a count folded in C), then handed to the
        store's held writes as each record's get and put; a cached store's updates go out as
        its commits flush them. The updates go out as columns: their ``Change`` objects
        unbuilt (``Changes``), with the key and value bytes the store wrote (``Encoded``).
        An aggregate becoming ``None`` deletes its row. ``None``, record by record, when the
        store cannot hold the writes."""
        held = getattr(self.store, "held_writes", None)
        writes = None if held is None else held(batch, run)
        if writes is None:
            return None
        keys, values, origin = batch.keys, batch.values, batch.origin
        timestamps = run.timestamps(batch)
        types = key_types(keys)
        if _NONE in types or any(map(is_, values, repeat(None))):
            positions = [position for position, (key, value) in enumerate(zip(
                keys, values, strict=True)) if key is not None and value is not None]
            for position in sorted(set(range(len(keys))) - set(positions)):
                run.defer(origin[position], self._skip, position)
            keys, origin, timestamps = (list(map(column.__getitem__, positions))
                                        for column in (keys, origin, timestamps))
            types.discard(_NONE)
        else:
            positions = range(len(keys))  # (a range: every record's)
        tally = tally_keys(keys, writes.key_serde, writes.serialize_keys, types)
        stored = writes.read(tally.distinct)
        send_old = self.s.send_old_values
        if self._counts():
            olds, news, stamps = tally.count(stored, timestamps, send_old)
        else:
            olds, news, stamps = self._fold_all(tally, stored, positions, batch.keys,
                                                batch.values, timestamps)
        return forward_updates(run, writes, self.forwarder.cached, tally, positions, keys,
                               news, olds if send_old else None, origin, stamps)

    def _counts(self) -> bool:
        """True for ``count()``: the aggregate is the number of records."""
        s = self.s
        return s.reducer is None and s.initializer is count_initializer \
            and s.aggregator is count_adder

    def _fold_all(self, tally: KeyTally, stored: list[Any], positions: list[int],
                  keys: list[Any], values: list[Any], timestamps: list[int]
                  ) -> tuple[list[Any], list[Any], list[int]]:
        """``_fold`` of each record at ``positions`` over its key's aggregate so far, each
        aggregate the user's function gets an object of its own (``fresh_value``: a function
        changing it in place changes no update made before, nor a cached object)."""
        current = list(stored)  # each distinct key's ValueAndTimestamp, as the folds leave it
        fold = self._fold
        olds: list[Any] = []
        news: list[Any] = []
        stamps: list[int] = []
        for key_id, position, timestamp in zip(tally.ids, positions, timestamps, strict=True):
            held = current[key_id]
            if held is not None and held[0].__class__ not in IMMUTABLE:
                held = (fresh_value(held[0]), held[1])
            old, new, stamp = fold(keys[position], values[position], held, timestamp)
            current[key_id] = None if new is None else (new, stamp)  # (None: deleted)
            olds.append(old)
            news.append(new)
            stamps.append(stamp)
        return olds, news, stamps

    def _skip(self) -> None:
        skip_record(self.ctx, "null key or value")


class RepartitionMapSupplier:
    """Java's ``KTableRepartitionMap``: re-keys table changes for ``KTable.group_by``.

    Since Kafka 3.5 a change that keeps its group key goes out as one ``Change(new, old)``;
    otherwise the old pair is retracted under the old key and the new pair added under the new.
    """

    def __init__(self, parent: Any, selector: Callable[[Any, Any], Any]) -> None:
        self.parent = parent
        self.selector = selector
        self.node: Any = None  # the group-by's graph node, set once it exists

    def use_versioned_semantics(self) -> bool:
        """True below a versioned table: out-of-order updates are then not aggregated (Java's
        ``enableVersionedSemantics`` at build time)."""
        from kslab.dsl._table_processors import output_versioned

        parents = self.node.parents if self.node is not None else []
        return any(output_versioned(parent) for parent in parents)

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Always sends old values: a group-by needs them."""
        return True

    def view(self) -> Any:
        """Not readable: the re-keyed rows live in another sub-topology."""
        msg = "Underlying state store not accessible due to repartitioning."
        raise StreamsError(msg)

    def __call__(self) -> Processor:
        return _RepartitionMapProcessor(self.selector, self.use_versioned_semantics())


def _usable(pair: Any) -> bool:
    return pair is not None and pair[0] is not None and pair[1] is not None


class _RepartitionMapProcessor(Processor):
    def __init__(self, selector: Callable[[Any, Any], Any], versioned: bool) -> None:
        self.selector = selector
        self.versioned = versioned

    def init(self, context: ProcessorContext) -> None:
        self.ctx = context
        upgrade = context.app_configs().get("upgrade.from")
        self.single_change = upgrade is None or not _before_3_5(str(upgrade))

    def process(self, record: Record) -> None:
        key, change = record.key, record.value
        if key is None:
            msg = "Record key for the grouping KTable should not be null."
            raise StreamsError(msg)
        latest = change.is_latest
        if self.versioned and not latest:
            return  # an out-of-order update of a versioned table is not aggregated
        new_pair = None if change.new_value is None else self.selector(key, change.new_value)
        old_pair = None if change.old_value is None else self.selector(key, change.old_value)
        old_ok, new_ok = _usable(old_pair), _usable(new_pair)
        forward = self.ctx.forward
        if self.single_change and old_ok and new_ok and old_pair[0] == new_pair[0]:
            forward(record.with_key(old_pair[0]).with_value(
                Change(new_pair[1], old_pair[1], latest)))
            return
        if old_ok:
            forward(record.with_key(old_pair[0]).with_value(Change(None, old_pair[1], latest)))
        if new_ok:
            forward(record.with_key(new_pair[0]).with_value(Change(new_pair[1], None, latest)))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of table changes: the selector on each change's new value,
        then on its old one, record by record in order; each change gives one ``Change``
        under its group key (both pairs under one key), or the old pair's retraction and
        then the new pair's addition (``Batch.repeated``: each keeps its record's origin).
        ``None``, record by record, for a ``None`` key (the record path raises) or a change
        that is not the latest (a versioned table's)."""
        keys = batch.keys
        news_in, olds_in, latest = change_columns(batch)
        if latest is not None or _NONE in key_types(keys):
            return None
        selector, single = self.selector, self.single_change
        counts: list[int] = []
        out_keys: list[Any] = []
        out_news: list[Any] = []
        out_olds: list[Any] = []
        for key, new, old in zip(keys, news_in, [None] * len(keys) if olds_in is None else olds_in,
                                 strict=True):
            new_pair = None if new is None else selector(key, new)
            old_pair = None if old is None else selector(key, old)
            old_ok, new_ok = _usable(old_pair), _usable(new_pair)
            if single and old_ok and new_ok and old_pair[0] == new_pair[0]:
                counts.append(1)
                out_keys.append(old_pair[0])
                out_news.append(new_pair[1])
                out_olds.append(old_pair[1])
                continue
            counts.append(old_ok + new_ok)
            if old_ok:
                out_keys.append(old_pair[0])
                out_news.append(None)
                out_olds.append(old_pair[1])
            if new_ok:
                out_keys.append(new_pair[0])
                out_news.append(new_pair[1])
                out_olds.append(None)
        return batch.repeated(counts, out_keys, Changes(out_news, out_olds))  # type: ignore[arg-type]


def _before_3_5(version: str) -> bool:
    parts = version.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return False
    return (major, minor) < (3, 5)


class TableAggregateSupplier:
    """Java's ``KTableAggregate`` / ``KTableReduce``: subtract the old row, add the new one."""

    def __init__(self, store_name: str, initializer: Callable[[], Any] | None,
                 adder: Callable[..., Any], subtractor: Callable[..., Any], *,
                 reduce: bool = False) -> None:
        self.store_name = store_name
        self.initializer = initializer
        self.adder = adder
        self.subtractor = subtractor
        self.reduce = reduce
        self.send_old_values = False

    def enable_sending_old_values(self, force_materialization: bool) -> bool:
        """Always possible: the aggregate is stored."""
        self.send_old_values = True
        return True

    def view(self) -> StoreGetterSupplier:
        """Getters reading the aggregate store."""
        return StoreGetterSupplier(self.store_name)

    def __call__(self) -> Processor:
        return _TableAggregateProcessor(self)


class _TableAggregateProcessor(Processor):
    def __init__(self, supplier: TableAggregateSupplier) -> None:
        self.s = supplier

    def init(self, context: ProcessorContext) -> None:
        self.store = context.get_state_store(self.s.store_name)
        self.forwarder = TupleForwarder(self.store, context, self.s.send_old_values)

    def _fold(self, key: Any, new_value: Any, old_value: Any, stored: Any, timestamp: int
              ) -> tuple[Any, int]:
        """The aggregate after a change (``old_value`` subtracted from the stored aggregate
        ``stored``, a ``(value, timestamp)`` or ``None``, then ``new_value`` added) and its
        timestamp: the change's, or the stored one's where that is larger and was folded."""
        s = self.s
        old = None if stored is None else stored[0]
        if old_value is not None and old is not None:
            if s.reduce:
                intermediate = s.subtractor(old, old_value)
            else:
                intermediate = s.subtractor(key, old_value, old)
            stamp = max(timestamp, stored[1])
        else:
            intermediate = old
            stamp = timestamp
        if new_value is not None:
            if s.reduce:
                if intermediate is None:
                    return new_value, stamp
                return s.adder(intermediate, new_value), max(timestamp, stored[1])
            start = s.initializer() if intermediate is None else intermediate  # type: ignore[misc]
            new = s.adder(key, new_value, start)
            if stored is not None:
                stamp = max(timestamp, stored[1])
            return new, stamp
        return intermediate, stamp

    def process(self, record: Record) -> None:
        s = self.s
        key, change = record.key, record.value
        if key is None:
            op = "reduce" if s.reduce else "aggregate"
            msg = (
                f"Record key for KTable {op} operator with state {s.store_name} should not be "
                "null."
            )
            raise StreamsError(msg)
        stored = self.store.get(key)
        old = None if stored is None else stored.value
        new, timestamp = self._fold(key, change.new_value, change.old_value, stored,
                                    record.timestamp)
        code = self.store.put(key, ValueAndTimestamp(new, timestamp))
        if code == -(2**63):  # a versioned store refused a put older than its history
            return
        old_sent = old if s.send_old_values else None
        if not self.forwarder.cached:  # a cached store forwards on flush
            is_latest = code is None or code == -1
            self.forwarder.maybe_forward(Record(key, Change(new, old_sent, is_latest), timestamp,
                                                record.raw_headers))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch | None:
        """``process`` over a run of changes: each key's stored aggregate read once, the
        subtractor and then the adder (or initializer) once per record in order over it
        (``_fold``), handed to the store's held writes as each record's get and put, and
        forwarded as the stream aggregations forward theirs (``forward_updates``); an
        aggregate becoming ``None`` deletes its row. ``None``, record by record, for a
        ``None`` key (the record path raises) or a store that cannot hold the writes."""
        keys = batch.keys
        if not keys:
            return batch
        types = key_types(keys)
        if _NONE in types:
            return None
        held = getattr(self.store, "held_writes", None)
        writes = None if held is None else held(batch, run)
        if writes is None:
            return None
        news_in, olds_in, _latest = change_columns(batch)
        timestamps = run.timestamps(batch)
        tally = tally_keys(keys, writes.key_serde, writes.serialize_keys, types)
        current = list(writes.read(tally.distinct))  # each key's (aggregate, timestamp) so far
        fold = self._fold
        olds: list[Any] = []
        news: list[Any] = []
        stamps: list[int] = []
        for key_id, key, new_value, old_value, timestamp in zip(
                tally.ids, keys, news_in, [None] * len(keys) if olds_in is None else olds_in,
                timestamps, strict=True):
            stored = current[key_id]
            if stored is not None and stored[0].__class__ not in IMMUTABLE:
                stored = (fresh_value(stored[0]), stored[1])  # (its own: see _fold_all)
            new, stamp = fold(key, new_value, old_value, stored, timestamp)
            olds.append(None if stored is None else stored[0])
            news.append(new)
            stamps.append(stamp)
            current[key_id] = None if new is None else (new, stamp)  # (None: deleted)
        return forward_updates(run, writes, self.forwarder.cached, tally, range(len(keys)),
                               keys, news, olds if self.s.send_old_values else None,
                               batch.origin, stamps)
