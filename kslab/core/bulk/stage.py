"""One chain's share of a bulk chunk (``Stage``) and the ``BatchRun`` its batch forms see.

A stage holds the records a chain consumes, the same as columns after its processors' batch
forms (``cols.origin`` indexes the consumed records), its sink's records, and, in ``run``,
what the batch forms hold and defer for phase two.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import islice, repeat
from operator import add, lt
from typing import Any

from kslab.core.bulk.columns import LogBatch
from kslab.core.bulk.plan import Chain
from kslab.processor.batch import Batch, HeldWrites
from kslab.records import Record

__all__ = ["Stage", "StageRun"]


class Stage:
    """One chain's share of a chunk: the records it consumes, the same as columns after its
    processors' batch forms (``cols.origin`` indexes the consumed records), its sink's
    records, and what its batch forms hold for phase two (``run``)."""

    __slots__ = ("chain", "cols", "first_offset", "headers", "identity", "input_row", "keys",
                 "offsets", "out", "out_partitions", "partition", "run", "timestamps", "topic",
                 "values")

    def __init__(self, chain: Chain, topic: str, keys: list[Any], values: list[Any],
                 timestamps: list[int], headers: list[Any], input_row: list[int],
                 commit_each: bool, changelog: Callable[..., Any], partition: int = 0,
                 caches_held: bool = True, reserved: dict[int, int] | None = None) -> None:
        self.chain = chain
        self.topic = topic
        self.partition = partition  # of the consumed topic
        self.keys, self.values = keys, values  # as consumed (deserialized)
        self.timestamps = timestamps
        self.headers = headers
        self.input_row = input_row  # the chunk row each consumed record comes from
        self.cols = Batch(keys, values, list(range(len(keys))))
        self.identity = self.cols.origin  # still cols.origin: each record is its own row
        self.out: LogBatch | None = None
        self.out_partitions: list[int] | None = None  # each output record's partition, when
        # the engine partitions the sink's topic (several partitions)
        self.first_offset = -1  # set in phase two
        self.offsets: list[int] | None = None  # each consumed record's offset, when the
        # engine gives them (the live runtime's polled messages); else consecutive from
        # first_offset
        self.run = StageRun(self, commit_each, changelog, caches_held,
                            {} if reserved is None else reserved)

    def offset_of(self, origin: int) -> int:
        """The offset of consumed record ``origin`` (in phase two)."""
        offsets = self.offsets
        return self.first_offset + origin if offsets is None else offsets[origin]

    def release(self) -> None:
        """Drop the stage's run and what it held once the chunk is applied: the stage, its
        run and the held writes refer to each other, so without this what the batch forms
        held (their columns, held writes, the cache entries those replaced) would wait for
        the cyclic GC instead of going now."""
        run = self.run
        run.held.clear()
        run.deferred.clear()
        self.run = None  # type: ignore[assignment]


class StageRun:
    """A stage's ``BatchRun`` (``kslab.processor.batch``): its consumed records' timestamps
    and headers, and the held writes and deferred actions of its batch forms, applied in
    phase two in the order of the consumed records they belong to."""

    __slots__ = ("_changelog", "_reserved", "caches_held", "commit_each", "deferred", "held",
                 "stage")

    def __init__(self, stage: Stage, commit_each: bool, changelog: Callable[..., Any],
                 caches_held: bool = True, reserved: dict[int, int] | None = None) -> None:
        self.stage = stage
        self.commit_each = commit_each
        self.caches_held = caches_held
        self._reserved = {} if reserved is None else reserved  # thread cache -> bytes held
        # for the chunk's held writes (shared by its stages)
        self._changelog = changelog
        self.held: list[HeldWrites] = []
        self.deferred: list[tuple[int, Callable[[], None]]] = []

    @property
    def topic(self) -> str:
        """The topic the stage consumes."""
        return self.stage.topic

    def source(self, origin: int) -> tuple[str, int, int]:
        """Topic, partition and offset of consumed record ``origin`` (in phase two)."""
        return self.stage.topic, self.stage.partition, self.stage.offset_of(origin)

    def sources(self, origins: list[int]) -> tuple[str, int, list[int]]:
        """Topic and partition of the consumed records, and offset of each of ``origins``
        (in phase two)."""
        stage = self.stage
        offsets = stage.offsets
        if offsets is not None:
            return stage.topic, stage.partition, list(map(offsets.__getitem__, origins))
        return stage.topic, stage.partition, list(map(add, origins, repeat(stage.first_offset)))

    def timestamps(self, batch: Batch) -> list[int]:
        """Each record's timestamp (its origin's unless an operator set its own; the consumed
        column itself while each record is its consumed record: not to be changed)."""
        if batch.timestamps is not None:
            return batch.timestamps
        if batch.origin is self.stage.identity:
            return self.stage.timestamps
        return list(map(self.stage.timestamps.__getitem__, batch.origin))

    def in_order(self, batch: Batch) -> bool:
        """True when each record of ``batch`` comes from a consumed record of its own, in
        consumed order (no pass over the records while each is its consumed record)."""
        origin = batch.origin
        return origin is self.stage.identity or all(map(lt, origin, islice(origin, 1, None)))

    def headers(self, batch: Batch) -> list[Any]:
        """Each record's headers: its origin's (the consumed column itself while each record
        is its consumed record: not to be changed)."""
        if batch.origin is self.stage.identity:
            return self.stage.headers
        return list(map(self.stage.headers.__getitem__, batch.origin))

    def changelog(self, store_name: str, log: Any) -> Callable[..., None] | None:
        """``append(keys, values, timestamps, origins)`` of a store's changelog records at
        once (see ``BatchRun.changelog``), when its ``log`` is the task's and the engine
        only appends to the topic's log."""
        return self._changelog(store_name, log)  # type: ignore[no-any-return]

    def reserve(self, cache: Any, growth: int) -> bool:
        """``BatchRun.reserve``: ``growth`` bytes of ``cache`` for this chunk, if they fit."""
        total = self._reserved.get(id(cache), 0) + growth
        if not cache.fits(total):
            return False
        self._reserved[id(cache)] = total
        return True

    def hold(self, writes: HeldWrites) -> None:
        """Apply ``writes`` in phase two."""
        self.held.append(writes)

    def defer(self, origin: int, action: Callable[[], None]) -> None:
        """Call ``action`` in phase two with consumed record ``origin``'s context."""
        self.deferred.append((origin, action))

    def apply(self, context: Any, first_offset: int,
              later: list[tuple[int, Callable[[], None]]] | None = None) -> None:
        """Phase two of the stage's batch forms: held writes, then deferred actions in origin
        order, each with its consumed record as the task's context (``later``: handed over
        as ``(origin, call)`` for the caller to interleave with other tasks' instead)."""
        self.stage.first_offset = first_offset
        for writes in self.held:
            writes.apply()
        for origin, action in sorted(self.deferred, key=lambda item: item[0]):
            if later is None:
                self._call(context, origin, action)
            else:
                later.append((origin, partial(self._call, context, origin, action)))

    def _call(self, context: Any, origin: int, action: Callable[[], None]) -> None:
        """``action`` with consumed record ``origin`` as the context (put back after)."""
        stage = self.stage
        saved = context.topic, context.partition, context.offset, context.record
        context.topic, context.partition = stage.topic, stage.partition
        context.offset = stage.offset_of(origin)
        context.record = Record(stage.keys[origin], stage.values[origin],
                                stage.timestamps[origin], stage.headers[origin])
        try:
            action()
        finally:
            context.topic, context.partition, context.offset, context.record = saved
