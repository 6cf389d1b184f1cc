"""One plan's share of a bulk chunk (``Stage``) and the ``BatchRun`` its batch forms see.

A stage holds the records a plan consumes, what each of its steps was given and made as
columns (``given[step].origin`` indexes the consumed records), its sinks' records (``outs``),
and, in ``run``, what the batch forms hold, defer and act on for phase two. Invariant: a
stage's deferred actions are called in the record path's order (consumed record by consumed
record, depth first through the plan's steps: ``kslab.core.bulk.tree``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import islice, repeat
from operator import add, lt
from typing import Any, NamedTuple

from kslab.core.bulk import tree
from kslab.core.bulk.columns import LogBatch
from kslab.core.bulk.plan import Plan
from kslab.processor.batch import Acting, Batch, HeldWrites
from kslab.records import Record
from kslab.state.held_evictions import SharedEvictions

__all__ = ["Reserved", "SinkOut", "Stage", "StageRun"]

_WHOLE_CACHE = 1 << 62  # reserved by a run whose puts evict: no other growth fits beside it


class Reserved(dict[int, int]):
    """The record cache bytes a chunk's held writes reserved, by thread cache (its ``id``),
    shared by the chunk's stages; ``flush_row``: the first chunk row whose record cache get
    or put would evict a dirty entry, where a run declined for that (``StageRun.flushes_at``).

    ``walking``: the thread caches (ids) whose every held write of the chunk is walked with
    the others over one budget (``SharedEvictions``, one per cache in ``shared``, walked at
    the end of phase one: ``walked``), where several tasks of a chunk share a thread cache
    that their puts may fill (the executor names them); ``contended``: those where a run
    that could be walked found the cache reserved by another (the executor walks them from
    then on); ``refused``: walked ones a run that cannot be walked asked for (a join's reads,
    a window store's writes: the executor stops walking them)."""

    def __init__(self, walking: set[int] | frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.flush_row: int | None = None
        self.walking = walking
        self.shared: dict[int, SharedEvictions] = {}
        self.contended: set[int] = set()
        self.refused: set[int] = set()

    def walked(self) -> bool:
        """Walk each thread cache's shared evictions; False when one evicts a dirty entry."""
        return all(shared.walk() for shared in self.shared.values())


class SinkOut(NamedTuple):
    """One sink step's records for one topic: the columns for its log (``log``), each
    record's partition where the engine partitions the topic (else ``None``), and where the
    records are in the batch the step was given (``positions``; ``None``: all of them)."""

    step: int
    topic: str
    log: LogBatch
    partitions: list[int] | None
    positions: list[int] | None


class Stage:
    """One plan's share of a chunk: the records it consumes, what each step was given
    (``given``) and made (``made``) as columns, the batches each step received from the
    steps before it (``edges``: ``(step, batch, slot)``, step -1 the source, slot the
    child's place among several children forwarded every record), its sinks' records
    (``outs``) and what its batch forms hold for phase two (``run``). ``places``: each
    consumed record's sort key among the chunk's consumed records (set by the executor);
    ``shared``: the tasks whose rows the stage runs, where it runs several tasks' rows
    (``kslab.core.bulk.shared``: each row's partition, offset and processors are its task's)."""

    __slots__ = ("cols", "edges", "first_offset", "given", "headers", "identity", "input_row",
                 "keys", "made", "number", "offsets", "outs", "partition", "places", "plan",
                 "run", "seqs", "shared", "task", "timestamps", "topic", "values")

    def __init__(self, plan: Plan, topic: str, keys: list[Any], values: list[Any],
                 timestamps: list[int], headers: list[Any], input_row: list[int],
                 commit_each: bool, changelog: Callable[..., Any], partition: int = 0,
                 caches_held: bool = True, reserved: Reserved | None = None,
                 task: Any = None, number: int = 0) -> None:
        self.plan = plan
        self.task = task
        self.number = number  # the stage's place in its chunk (0: the input's)
        self.topic = topic
        self.partition = partition  # of the consumed topic
        self.keys, self.values = keys, values  # as consumed (deserialized)
        self.timestamps = timestamps
        self.headers = headers
        self.input_row = input_row  # the chunk row each consumed record comes from
        self.cols = Batch(keys, values, list(range(len(keys))))
        self.identity = self.cols.origin  # still cols.origin: each record is its own row
        count = len(plan.steps)
        self.given: list[Batch | None] = [None] * count
        self.made: list[Any] = [None] * count
        self.edges: list[list[tuple[int, Batch, int | None]]] = [[] for _ in range(count)]
        self.seqs: list[list[tuple[int, ...]] | None] = [None] * count
        self.outs: list[SinkOut] = []
        self.places: list[Any] | None = None
        self.shared: Any = None
        self.first_offset = -1  # set in phase two (in phase one, where a topic extractor
        # needs them)
        self.offsets: list[int] | None = None  # each consumed record's offset, when the
        # engine gives them (the live runtime's polled messages); else consecutive from
        # first_offset
        self.run = StageRun(self, commit_each, changelog, caches_held,
                            Reserved() if reserved is None else reserved)

    def offset_of(self, origin: int) -> int:
        """The offset of consumed record ``origin`` (in phase two)."""
        offsets = self.offsets
        return self.first_offset + origin if offsets is None else offsets[origin]

    def partition_of(self, origin: int) -> int:
        """The partition of consumed record ``origin``: the stage's, or its task's where the
        stage runs several tasks' rows."""
        shared = self.shared
        return self.partition if shared is None else shared.partitions()[origin]

    def record(self, origin: int) -> Record:
        """Consumed record ``origin``."""
        return Record(self.keys[origin], self.values[origin], self.timestamps[origin],
                      self.headers[origin])

    def place_keys(self) -> list[Any]:
        """Each consumed record's sort key among the chunk's: as the executor set them (or
        its ``shared`` tasks' sort keys), else the record itself where its stage is the
        chunk's only one, else (input row, stage number, the record)."""
        places = self.places
        if places is None and self.shared is not None:  # (several tasks' rows)
            places = self.places = self.shared.sort_keys()
        if places is None and self.number == 0 and self.plan.downstream is None:
            return self.identity
        if places is None:
            number = self.number
            places = self.places = [(row, number, origin) for origin, row
                                    in enumerate(self.input_row)]
        return places

    def release(self) -> None:
        """Drop the stage's run and what it held once the chunk is applied: the stage, its
        run and the held writes refer to each other, so without this what the batch forms
        held (their columns, held writes, the cache entries those replaced) would wait for
        the cyclic GC instead of going now."""
        run = self.run
        run.held.clear()
        run.deferred.clear()
        run.actions.clear()
        self.given = self.made = self.edges = self.seqs = []  # type: ignore[assignment]
        self.run = None  # type: ignore[assignment]


class StageRun:
    """A stage's ``BatchRun`` (``kslab.processor.batch``): its consumed records' timestamps
    and headers, and the held writes, deferred actions and user actions of its batch forms,
    applied in phase two in the record path's order. ``step``: the step whose batch form
    runs now."""

    __slots__ = ("_cache_writer", "_changelog", "_ordered", "_reserved", "actions",
                 "caches_held", "commit_each", "deferred", "held", "stage", "step")

    def __init__(self, stage: Stage, commit_each: bool, changelog: Callable[..., Any],
                 caches_held: bool = True, reserved: Reserved | None = None) -> None:
        self.stage = stage
        self.commit_each = commit_each
        self.caches_held = caches_held
        self._cache_writer: str | None = None  # the one record cache holding writes
        self._reserved = Reserved() if reserved is None else reserved  # (the chunk's)
        self._changelog = changelog
        self.held: list[HeldWrites] = []
        # (origin, action, step, position in the step's batch or None)
        self.deferred: list[tuple[int, Callable[[], None], int, int | None]] = []
        # (step, the processor, its batch, its action)
        self.actions: list[tuple[int, Acting, Batch, Callable[[Any, Any], None]]] = []
        self.step = 0
        self._ordered: list[tuple[int, Callable[[], None]]] | None = None

    @property
    def topic(self) -> str:
        """The topic the stage consumes."""
        return self.stage.topic

    def source(self, origin: int) -> tuple[str, int, int]:
        """Topic, partition and offset of consumed record ``origin`` (in phase two)."""
        stage = self.stage
        return stage.topic, stage.partition_of(origin), stage.offset_of(origin)

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
        """Each record's headers: its origin's, or its own context's (the consumed column
        itself while each record is its consumed record: not to be changed)."""
        contexts = batch.contexts
        if contexts is not None:
            return [context[3] for context in self.contexts(batch)]
        if batch.origin is self.stage.identity:
            return self.stage.headers
        return list(map(self.stage.headers.__getitem__, batch.origin))

    def contexts(self, batch: Batch) -> list[tuple[str, int, int, Any]]:
        """Each record's record context ``(topic, partition, offset, headers)``: its origin's
        unless ``batch.contexts`` gives its own (the offsets where phase one knows them:
        phase two, or a topic extractor's stage)."""
        stage = self.stage
        topic, partition, headers = stage.topic, stage.partition, stage.headers
        own = batch.contexts or [None] * len(batch)
        found = []
        for origin, context in zip(batch.origin, own, strict=True):
            if context is None or context.__class__ is int:
                row = origin if context is None else context
                found.append((topic, partition if stage.shared is None
                              else stage.partition_of(row), stage.offset_of(row), headers[row]))
            else:
                found.append(context)
        return found

    def changelog(self, store_name: str, log: Any) -> Callable[..., None] | None:
        """``append(keys, values, timestamps, origins)`` of a store's changelog records at
        once (see ``BatchRun.changelog``), when its ``log`` is the task's and the engine
        only appends to the topic's log."""
        return self._changelog(store_name, log)  # type: ignore[no-any-return]

    def holds_cache(self, namespace: str) -> bool:
        """``BatchRun.holds_cache``: the task's one cache, or, where each consumed record
        commits, the stage's first cached writer (claimed now)."""
        if self.caches_held:
            return True
        if not self.commit_each:
            return False
        if self._cache_writer is None:
            self._cache_writer = namespace
        return self._cache_writer == namespace

    def reserve(self, cache: Any, growth: int) -> bool:
        """``BatchRun.reserve``: ``growth`` bytes of ``cache`` for this chunk, if they fit
        (never in a cache whose writes are walked: ``Reserved.walking``)."""
        reserved = self._reserved
        if id(cache) in reserved.walking:
            reserved.refused.add(id(cache))
            return False
        total = reserved.get(id(cache), 0) + growth
        if not cache.fits(total):
            return False
        reserved[id(cache)] = total
        return True

    def reserve_evicting(self, cache: Any, *, walkable: bool = False) -> int | None:
        """``BatchRun.reserve_evicting``: the whole of ``cache`` for the asking run (so
        ``reserve`` refuses every other), and the bytes it has left; where another run has
        some of it, a ``walkable`` run names the cache ``contended``."""
        reserved = self._reserved
        if id(cache) in reserved.walking:
            reserved.refused.add(id(cache))
            return None
        if reserved.get(id(cache), 0):
            if walkable:
                reserved.contended.add(id(cache))
            return None
        reserved[id(cache)] = _WHOLE_CACHE
        return cache.max_cache_size_bytes - cache.size_bytes()  # type: ignore[no-any-return]

    def shared_evictions(self, cache: Any) -> SharedEvictions | None:
        """``BatchRun.shared_evictions``: the chunk's walk of ``cache``'s held writes, where
        they are walked together (``Reserved.walking``)."""
        reserved = self._reserved
        if id(cache) not in reserved.walking:
            return None
        shared = reserved.shared.get(id(cache))
        if shared is None:
            shared = reserved.shared[id(cache)] = SharedEvictions(
                cache.max_cache_size_bytes - cache.size_bytes())
        return shared

    def places(self, origins: list[int]) -> list[Any]:
        """``BatchRun.places``: each of consumed records ``origins``' sort key among the
        chunk's."""
        return list(map(self.stage.place_keys().__getitem__, origins))

    def flushes_at(self, origin: int) -> None:
        """``BatchRun.flushes_at``: the chunk row consumed record ``origin`` comes from is
        where the chunk may be split (the first such row, over the chunk's stages)."""
        row = self.stage.input_row[origin]
        reserved = self._reserved
        if reserved.flush_row is None or row < reserved.flush_row:
            reserved.flush_row = row

    def hold(self, writes: HeldWrites) -> None:
        """Apply ``writes`` in phase two."""
        self.held.append(writes)

    def defer(self, origin: int, action: Callable[[], None], position: int | None = None
              ) -> None:
        """Call ``action`` in phase two with consumed record ``origin``'s context, in the
        record path's order (``position``: the record of the step's batch it is for)."""
        self.deferred.append((origin, action, self.step, position))

    def act(self, owner: Acting, batch: Batch, action: Callable[[Any, Any], None]) -> None:
        """Call ``action(key, value)`` per record of ``batch`` in phase two, first
        (``BatchRun.act``: the executor calls every stage's in the record path's order)."""
        if len(batch):
            self.actions.append((self.step, owner, batch, action))

    def apply(self, context: Any, first_offset: int,
              later: list[tuple[int, Callable[[], None]]] | None = None) -> None:
        """Phase two of the stage's batch forms: held writes, then deferred actions in the
        record path's order, each with its consumed record as the task's context (``later``:
        handed over as ``(origin, call)`` for the caller to interleave with other tasks'
        instead)."""
        self.stage.first_offset = first_offset
        for writes in self.held:
            writes.apply()
        if self._ordered is None:
            self.settle()
        for origin, action in self._ordered:  # type: ignore[union-attr]
            if later is None:
                self._call(context, origin, action)
            else:
                later.append((origin, partial(self._call, context, origin, action)))

    def settle(self) -> None:
        """Put the deferred actions in the record path's order (at the end of phase one):
        by consumed record, then (from several steps) depth first through the plan, else by
        position in the step's batch (stable: one record's actions in the order they were
        deferred). Raises ``tree.Unordered`` where their records cannot be placed."""
        deferred = self.deferred
        if not deferred:
            self._ordered = []
            return
        stage = self.stage
        steps = {entry[2] for entry in deferred}
        positions = [tree.position_of(stage, step, origin) if position is None else position
                     for origin, _, step, position in deferred]
        if len(steps) == 1:
            keys: list[Any] = list(zip((entry[0] for entry in deferred), positions,
                                       strict=True))
            order = sorted(range(len(deferred)), key=keys.__getitem__)
        else:  # depth first: by (place, path, step), then in the order they were deferred
            order = tree.order([(stage, step, [position])
                                for (_, _, step, _), position in zip(deferred, positions,
                                                                     strict=True)])
        self._ordered = [(deferred[i][0], deferred[i][1]) for i in order]

    def _call(self, context: Any, origin: int, action: Callable[[], None]) -> None:
        """``action`` with consumed record ``origin`` as the context (put back after)."""
        stage = self.stage
        saved = context.topic, context.partition, context.offset, context.record
        context.topic, context.partition = stage.topic, stage.partition_of(origin)
        context.offset = stage.offset_of(origin)
        context.record = stage.record(origin)
        try:
            action()
        finally:
            context.topic, context.partition, context.offset, context.record = saved
