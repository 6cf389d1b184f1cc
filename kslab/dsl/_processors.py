"""The Processor API processors behind the stateless KStream operators.

One small class per Java processor (``KStreamFilter``, ``KStreamMap``, ``KStreamBranch``...);
each DSL call wraps one in a graph node, so user-function errors name the operator's node.
Each also has a batch form, ``process_batch`` (see ``kslab.processor.batch``), written beside
``process`` with the same rule; ``peek``, ``foreach`` and ``print`` hand their user's action
on each record to the engine (``run.act``), which calls them in the record path's order.
Invariant: these processors keep no state between records; ``Supplier`` makes a new instance for
every task, as a ``ProcessorSupplier`` must.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from itertools import compress
from operator import not_, truth
from typing import Any

from kslab.errors import MissingArgumentError, TopologyError
from kslab.processor import Processor, ProcessorContext
from kslab.processor.batch import Batch, BatchRun, Routed
from kslab.records import Record, split_pairs
from kslab.state.fresh import fresh_values

__all__ = [
    "Branch",
    "Filter",
    "FlatMap",
    "FlatMapValues",
    "Foreach",
    "Map",
    "MapValues",
    "MissingDslArgumentError",
    "PassThrough",
    "Peek",
    "Print",
    "Supplier",
    "java_str",
    "require_callable",
    "require_not_none",
    "skip_record",
]


log = logging.getLogger("kslab.dsl")
log.addHandler(logging.NullHandler())  # a library logs; the application decides where it goes


def skip_record(context: Any, reason: str) -> None:
    """Log a dropped record in Java's words ("Skipping record due to <reason>") and count it."""
    metadata = context.record_metadata()
    if metadata is not None:
        log.warning("Skipping record due to %s. topic=[%s] partition=[%s] offset=[%s]", reason,
                    metadata.topic, metadata.partition, metadata.offset)
    else:
        log.warning("Skipping record due to %s. Topic, partition, and offset not known.", reason)
    dropped = getattr(context, "record_dropped", None)
    if dropped is not None:
        dropped()


class Supplier:
    """A processor supplier: ``Supplier(Filter, predicate, False)()`` makes a new ``Filter``."""

    __slots__ = ("args", "kind")

    def __init__(self, kind: type, *args: Any) -> None:
        self.kind = kind
        self.args = args

    def __call__(self) -> Any:
        return self.kind(*self.args)

    def __repr__(self) -> str:
        return f"<supplier of {self.kind.__name__}>"


class _Stateless(Processor):
    """Keeps the context (and its bound ``forward``); subclasses only implement ``process``."""

    ctx: ProcessorContext

    def init(self, context: ProcessorContext) -> None:
        """Keep the context for forwarding."""
        self.ctx = context
        self.forward = context.forward


class Filter(_Stateless):
    """Java's ``KStreamFilter``: forward when ``predicate`` holds (or fails, for filter_not)."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, predicate: Callable[[Any, Any], bool], negate: bool) -> None:
        self.predicate = predicate
        self.negate = negate

    def process(self, record: Record) -> None:
        """Forward ``record`` if it passes."""
        if bool(self.predicate(record.key, record.value)) is not self.negate:
            self.forward(record)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """The records that pass, the predicate called once per record in order."""
        results = map(self.predicate, batch.keys, batch.values)  # (in C)
        return batch.where(list(map(not_ if self.negate else truth, results)))


class NotNullKey(_Stateless):
    """The filter before a repartition topic: records with a ``None`` key are dropped."""

    def process(self, record: Record) -> None:
        """Forward records that have a key."""
        if record.key is not None:
            self.forward(record)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """The records that have a key."""
        return batch.where([key is not None for key in batch.keys])


def _not_null_result(result: Any) -> Any:
    """A ``KeyValueMapper``'s result, or Java's error when it is ``None`` (map, flat_map)."""
    if result is None:
        msg = "The provided KeyValueMapper returned null which is not allowed."
        raise MissingArgumentError(msg)
    return result


class Map(_Stateless):
    """Java's ``KStreamMap``: ``mapper(key, value) -> (new_key, new_value)``."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, mapper: Callable[[Any, Any], Any]) -> None:
        self.mapper = mapper

    def process(self, record: Record) -> None:
        """Forward the mapped pair."""
        key, value = _not_null_result(self.mapper(record.key, record.value))
        self.forward(record.with_key(key).with_value(value))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Each record's mapped pair: the mapper called in C, and where every result is a
        tuple or list of two (a ``KeyValue`` is a tuple) the pairs split in C; any other
        result is unpacked as ``process`` unpacks it (or raises its error)."""
        results = list(map(self.mapper, batch.keys, batch.values))
        pairs = split_pairs(results)
        if pairs is not None:
            return Batch(pairs[0], pairs[1], batch.origin, batch.timestamps,
                         contexts=batch.contexts)
        keys: list[Any] = []
        values: list[Any] = []
        for result in results:
            key, value = _not_null_result(result)
            keys.append(key)
            values.append(value)
        return Batch(keys, values, batch.origin, batch.timestamps, contexts=batch.contexts)


class SelectKey(_Stateless):
    """``select_key`` / ``group_by``: ``selector(key, value) -> new_key`` (Java's KStreamMap)."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, selector: Callable[[Any, Any], Any]) -> None:
        self.selector = selector

    def process(self, record: Record) -> None:
        """Forward the record under its new key."""
        self.forward(record.with_key(self.selector(record.key, record.value)))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Each record under its new key."""
        return batch.with_keys(list(map(self.selector, batch.keys, batch.values)))


class MapValues(_Stateless):
    """Java's ``KStreamMapValues``: a new value from the value (or the key and value)."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, mapper: Callable[..., Any], with_key: bool) -> None:
        self.mapper = mapper
        self.with_key = with_key

    def process(self, record: Record) -> None:
        """Forward the record with its mapped value."""
        if self.with_key:
            value = self.mapper(record.key, record.value)
        else:
            value = self.mapper(record.value)
        self.forward(record.with_value(value))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Each record with its mapped value."""
        mapper = self.mapper
        if self.with_key:
            return batch.with_values(list(map(mapper, batch.keys, batch.values)))
        return batch.with_values(list(map(mapper, batch.values)))


class FlatMap(_Stateless):
    """Java's ``KStreamFlatMap``: zero or more ``(key, value)`` pairs per record."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, mapper: Callable[[Any, Any], Any]) -> None:
        self.mapper = mapper

    def process(self, record: Record) -> None:
        """Forward every pair the mapper returns."""
        pairs = _not_null_result(self.mapper(record.key, record.value))
        forward = self.ctx.forward
        for key, value in pairs:
            forward(record.with_key(key).with_value(value))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Every pair of every record, in order."""
        mapper = self.mapper
        keys: list[Any] = []
        values: list[Any] = []
        counts: list[int] = []
        for key, value in zip(batch.keys, batch.values, strict=True):
            n = 0
            for new_key, new_value in _not_null_result(mapper(key, value)):
                keys.append(new_key)
                values.append(new_value)
                n += 1
            counts.append(n)
        return batch.repeated(counts, keys, values)


class FlatMapValues(_Stateless):
    """Java's ``KStreamFlatMapValues``: zero or more values per record, same key."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, mapper: Callable[..., Any], with_key: bool) -> None:
        self.mapper = mapper
        self.with_key = with_key

    def process(self, record: Record) -> None:
        """Forward one record per returned value."""
        if self.with_key:
            values = self.mapper(record.key, record.value)
        else:
            values = self.mapper(record.value)
        forward = self.ctx.forward
        for value in values:
            forward(record.with_value(value))

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Every value of every record, under the record's key, in order."""
        mapper, with_key = self.mapper, self.with_key
        keys: list[Any] = []
        values: list[Any] = []
        counts: list[int] = []
        for key, value in zip(batch.keys, batch.values, strict=True):
            produced = list(mapper(key, value) if with_key else mapper(value))
            n = len(produced)
            if n:
                values += produced
                keys += [key] * n
            counts.append(n)
        return batch.repeated(counts, keys, values)


class _Acting(_Stateless):
    """A processor calling a user's action on each record (peek, foreach, print), whose
    batch form hands the calls to the engine (``run.act``). ``replay``: when one of them
    raised in phase two, the engine runs the run again record by record; the record path
    then skips the calls made already and raises the error in place of the one that raised
    (``kslab.processor.batch.Acting``), so each action is called once, in order."""

    _replay: list[Any] | None = None  # [calls already made, the error of the next one]

    def replay(self, done: int, error: BaseException | None) -> None:
        """Skip the actions of the next ``done`` records, then raise ``error`` (if any)."""
        self._replay = [done, error] if done or error is not None else None

    def _replayed(self) -> bool:
        """True when this record's action was called already (the record path skips it);
        raises the held error in place of the call that raised it."""
        replay = self._replay
        if replay[0]:  # type: ignore[index]
            replay[0] -= 1  # type: ignore[index]
            if not replay[0] and replay[1] is None:  # type: ignore[index]
                self._replay = None
            return True
        self._replay = None
        raise replay[1]  # type: ignore[index,misc]


class Peek(_Acting):
    """Java's ``KStreamPeek``: call ``action(key, value)`` and forward unchanged."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, action: Callable[[Any, Any], None]) -> None:
        self.action = action

    def process(self, record: Record) -> None:
        """Run the action, then forward."""
        if self._replay is None or not self._replayed():
            self.action(record.key, record.value)
        self.forward(record)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Every record, unchanged; the action held for phase two."""
        run.act(self, _as_now(batch), self.action)
        return batch


def _as_now(batch: Batch) -> Batch:
    """``batch`` for an action held for phase two: its values as they are now, copied where
    a function later in phase one could change them in place (``kslab.state.fresh``), as the
    record path calls the action before the record goes on."""
    values = batch.values
    copies = fresh_values(values)
    return batch if copies is values else batch.with_values(copies)


class Foreach(_Acting):
    """Java's ``ForeachProcessor``: call ``action(key, value)``; a terminal operation."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, action: Callable[[Any, Any], None]) -> None:
        self.action = action

    def process(self, record: Record) -> None:
        """Run the action."""
        if self._replay is None or not self._replayed():
            self.action(record.key, record.value)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Nothing forwarded; the action held for phase two."""
        run.act(self, _as_now(batch), self.action)
        return Batch([], [], [])


class PassThrough(_Stateless):
    """Forwards every record unchanged (merge nodes, branch children)."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def process(self, record: Record) -> None:
        """Forward."""
        self.forward(record)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Every record, unchanged."""
        return batch


class Branch(_Stateless):
    """Java's ``KStreamBranch``: the first matching predicate picks the child; else the default."""

    def __init__(self, predicates: Sequence[Callable[[Any, Any], bool]],
                 children: Sequence[str]) -> None:
        self.predicates = predicates
        self.children = children

    def _route(self, key: Any, value: Any) -> int:
        """The index of the child ``(key, value)`` goes to (its predicates called in order
        until one holds); -1 for none."""
        for index, predicate in enumerate(self.predicates):
            if predicate(key, value):
                return index
        return len(self.predicates) if len(self.children) > len(self.predicates) else -1

    def process(self, record: Record) -> None:
        """Forward to the first branch whose predicate holds, or to the default branch."""
        index = self._route(record.key, record.value)
        if index >= 0:
            self.ctx.forward(record, self.children[index])

    def process_batch(self, batch: Batch, run: BatchRun) -> Routed:
        """Each branch's records: each predicate called, in record order, on the records no
        earlier predicate took (as ``process`` calls them), the rest to the default
        branch."""
        keys, values = batch.keys, batch.values
        count = len(keys)
        masks: list[Any] = []  # each child's: which records it takes (truthy)
        left: list[int] | None = None  # the positions no predicate took yet (None: all)
        for predicate in self.predicates:
            if left is None:  # the first: every record, in C
                taken = list(map(predicate, keys, values))
                masks.append(taken)
                left = list(compress(range(count), map(not_, taken)))
                continue
            mask = [False] * count
            hits = list(map(predicate, map(keys.__getitem__, left),
                            map(values.__getitem__, left)))
            for position in compress(left, hits):
                mask[position] = True
            masks.append(mask)
            left = list(compress(left, map(not_, hits)))
        if len(self.children) > len(self.predicates):  # the default branch
            if left is None:
                masks.append([True] * count)
            elif len(masks) == 1:
                masks.append(list(map(not_, masks[0])))
            else:
                default = [False] * count
                for position in left:
                    default[position] = True
                masks.append(default)
        return Routed({child: batch.where(mask)
                       for child, mask in zip(self.children, masks, strict=True)})


def java_str(value: Any) -> str:
    """``String.valueOf`` for the values a topology carries: ``None`` prints as ``null``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


class Print(_Acting):
    """Java's ``KStreamPrint``: ``[label]: key, value`` per record, to stdout or a file."""

    batch_contexts = True  # its batch form keeps each record's context (Batch.contexts)

    def __init__(self, label: str, path: str | None,
                 mapper: Callable[[Any, Any], Any] | None) -> None:
        self.label = label
        self.path = path
        self.mapper = mapper
        self._file: Any = None

    def init(self, context: ProcessorContext) -> None:
        """Open the output file, if any."""
        super().init(context)
        self._out()

    def _out(self) -> Any:
        """The file (opened for appending on first use; ``Printed.to_file`` truncated it)."""
        if self.path is None:
            return sys.stdout
        if self._file is None:
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        return self._file

    def process(self, record: Record) -> None:
        """Print one line."""
        if self._replay is None or not self._replayed():
            self._print(record.key, record.value)

    def _print(self, key: Any, value: Any) -> None:
        """Print ``key, value`` (or the mapper's text of them) under the label."""
        if self.mapper is not None:
            text = java_str(self.mapper(key, value))
        else:
            text = f"{java_str(key)}, {java_str(value)}"
        print(f"[{self.label}]: {text}", file=self._out(), flush=True)

    def process_batch(self, batch: Batch, run: BatchRun) -> Batch:
        """Nothing forwarded; each line printed in phase two."""
        run.act(self, _as_now(batch), self._print)
        return Batch([], [], [])

    def close(self) -> None:
        """Close the output file."""
        if self._file is not None:
            self._file.close()
            self._file = None


class MissingDslArgumentError(TopologyError, MissingArgumentError):
    """A DSL operator got ``None`` where Java requires a value (``"<param> can't be null"``).

    Both a ``TopologyError`` (kslab's wiring errors) and a ``MissingArgumentError`` (Java's
    ``NullPointerException``), so either can be caught. ``operation`` names the DSL method.
    """

    operation: str | None = None


def require_not_none(value: Any, param: str, op: str) -> None:
    """Raise ``MissingDslArgumentError`` for ``None``, in Java's exact words so that code
    matching Kafka's message (``"predicate can't be null"``) works; ``op`` is in ``.operation``.
    """
    if value is None:
        error = MissingDslArgumentError(f"{param} can't be null")
        error.operation = op
        raise error


def require_callable(fn: Any, param: str, op: str) -> None:
    """Raise ``TopologyError`` naming ``param`` of ``op`` when ``fn`` is not callable."""
    require_not_none(fn, param, op)
    if not callable(fn):
        msg = f"{op}() got {param}={fn!r}, which is not callable; pass a function"
        raise TopologyError(msg)
