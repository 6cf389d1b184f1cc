"""A run of records as columns: what a processor's batch form takes and returns.

A processor may offer ``process_batch(batch, run) -> Batch | Routed | None`` beside
``process(record)``: the same rule applied to a run of records, in record order, calling the
user's function once per record exactly as ``process`` would, and returning the records it
would have forwarded, in the order it would have forwarded them: a ``Batch`` for every child
(a node with several children forwards each record to each of them in turn), or a ``Routed``
batch per named child for a node forwarding each record to one named child at most
(``split``'s branches). ``None``: it cannot take this run; the engine then runs it record by
record.

A batch form changes no state itself and forwards nothing: a stateful one reads its store and
holds its writes in a ``HeldWrites`` it hands to ``run.hold``, anything else that must happen
(a warning and the dropped-record metric of a skipped record) goes to ``run.defer``, and a
user's action on each record (``peek``, ``foreach``, ``print``) goes to ``run.act``. The
engine applies what was held once every batch form of the run returned (phase two), and drops
it all when anything raised, running the records one by one instead, so an error surfaces
from ``process`` with the record path's exact context. Processors without ``process_batch``
always run record by record.

``origin`` maps each record of a batch to the consumed record it descends from, so the engine
keeps the record path's order (consumed record by consumed record, depth first) and each
record's headers and offset; ``timestamps`` is ``None`` while every record carries its
origin's timestamp (stateless operators keep it), else each record's own. Where one consumed
record gives several records (a flat map), ``parents`` says which record of the given batch
each one comes from, so the engine can place what every branch does with it in the record
path's depth-first order.

A record may carry another record's context (``contexts``): a suppression buffer forwards a
change under the context of the record that buffered it (its topic, partition, offset and
headers). The engine honours it in sinks (headers, a topic extractor's record context) and
hands such a batch only to processors saying they pass each record's context on untouched
(``batch_contexts = True``: their batch forms keep the column through ``where``,
``with_keys``, ``with_values``) and defer nothing that reads it; any other declines the run.

A stateful batch form may leave a column unbuilt (a function building it on first read:
an operator that only passes it on, or a sink given its bytes, never pays for one object per
record) and may say which bytes a serde wrote for a column (``Encoded``: the store serialized
the keys and the values it wrote, so a sink with a serde writing the same bytes takes them).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import chain, compress, repeat
from typing import Any, NamedTuple, Protocol

__all__ = ["Acting", "Batch", "BatchRun", "Encoded", "Flushed", "HeldWrites", "Routed"]


class Encoded(NamedTuple):
    """The bytes ``serde`` wrote for each item of a column (``serde.serialize(topic, item)``
    as a store already called it), so that an engine writing the column with a serde that
    writes the same bytes (``kslab.serdes._base.writes_alike``) takes them instead of
    serializing every item again. ``distinct`` and ``ids``: the fields are
    ``distinct[ids[i]]`` (a few distinct keys repeated: logs keep them so, see
    ``kslab.core.bulk.columns.ByteColumn``), or ``None``."""

    serde: Any
    fields: list[bytes]
    distinct: list[bytes] | None = None
    ids: list[int] | None = None


class Flushed(NamedTuple):
    """What a run's held writes forward and wrote, worked out in phase one (``flushed``).

    ``updates``: the indexes of the updates (in the order given to the held writes) whose
    new values a record cache's flushes forward, in flush order; ``None`` for every update in
    order (and for a store without a cache, where the processor forwards each update itself).
    ``olds``: the value each forwarded update replaced in the store (only where old values
    are sent), else ``None``. ``value_bytes``: each forwarded update's new value as the
    store's value serde wrote it (a store without a cache: every update's; ``None``: a
    delete). ``stamps``: each forwarded update's timestamp where some differ from the
    updates' own (a cache's flushed delete carries its record's), else ``None``."""

    updates: list[int] | None
    olds: list[Any] | None
    value_bytes: list[bytes | None]
    stamps: list[int] | None = None


class Batch:
    """Keys, values and the consumed record each came from (``origin``), in record order;
    ``timestamps``: each record's, or ``None`` for its origin's.

    ``keys`` and ``values`` may be given as zero-argument functions building the column: it
    is built on its first read (``pending_values`` hands over the function instead, to an
    operator that has a faster way to what it needs). ``key_bytes`` and ``value_bytes``:
    the bytes a serde already wrote for each key or value (``Encoded``), or ``None``.

    ``parents``: for the batch a batch form returns, each record's position in the batch it
    was given (the record it was made from; a function building them, or ``None`` when not
    said: the engine then takes one record for each given record where ``origin`` is the
    given one's, else matches them by origin). ``at_commit``: the operator forwards these
    records from the commit after each consumed record (a record cache's flushes), not
    while that record is processed. ``contexts``: each record's record context where some
    are not their origin's (``None``: all are): per record ``None`` (its origin's), an
    ``int`` (consumed record ``j``'s) or ``(topic, partition, offset, headers)``."""

    __slots__ = ("_keys", "_parents", "_values", "at_commit", "contexts", "key_bytes",
                 "origin", "timestamps", "value_bytes")

    def __init__(self, keys: list[Any] | Callable[[], list[Any]],
                 values: list[Any] | Callable[[], list[Any]], origin: list[int],
                 timestamps: list[int] | None = None, key_bytes: Encoded | None = None,
                 value_bytes: Encoded | None = None, *,
                 parents: list[int] | Callable[[], list[int]] | None = None,
                 at_commit: bool = False, contexts: list[Any] | None = None) -> None:
        self._keys = keys
        self._values = values
        self.origin = origin
        self.timestamps = timestamps
        self.key_bytes = key_bytes
        self.value_bytes = value_bytes
        self._parents = parents
        self.at_commit = at_commit
        self.contexts = contexts

    @property
    def keys(self) -> list[Any]:
        """Each record's key (built now when the batch was given a function for them)."""
        keys = self._keys
        if callable(keys):
            keys = self._keys = keys()
        return keys  # type: ignore[return-value]

    @property
    def values(self) -> list[Any]:
        """Each record's value (built now when the batch was given a function for them)."""
        values = self._values
        if callable(values):
            values = self._values = values()
        return values  # type: ignore[return-value]

    @property
    def parents(self) -> list[int] | None:
        """Each record's position in the batch its operator was given, if said (built now
        when the batch was given a function for them)."""
        parents = self._parents
        if callable(parents):
            parents = self._parents = parents()
        return parents

    def pending_values(self) -> Any:
        """The function the values will be built with, while they are not built (else
        ``None``): an operator that knows its kind may read what it needs from it."""
        values = self._values
        return values if callable(values) else None

    def __len__(self) -> int:
        return len(self.origin)

    def where(self, keep: list[bool]) -> Batch:
        """The records whose ``keep`` flag is true (this batch itself when all are)."""
        if all(keep):
            return self
        index = list(compress(range(len(keep)), keep))  # (in C, as the columns below)
        timestamps, contexts = self.timestamps, self.contexts
        return Batch(list(map(self.keys.__getitem__, index)),
                     list(map(self.values.__getitem__, index)),
                     list(map(self.origin.__getitem__, index)),
                     None if timestamps is None else list(map(timestamps.__getitem__, index)),
                     parents=index,
                     contexts=None if contexts is None else list(map(contexts.__getitem__,
                                                                     index)))

    def with_keys(self, keys: list[Any]) -> Batch:
        """The same records under ``keys``."""
        return Batch(keys, self._values, self.origin, self.timestamps, None, self.value_bytes,
                     contexts=self.contexts)

    def with_values(self, values: list[Any], value_bytes: Encoded | None = None) -> Batch:
        """The same records with ``values`` (whose bytes are ``value_bytes``, if known)."""
        return Batch(self._keys, values, self.origin, self.timestamps, self.key_bytes,
                     value_bytes, contexts=self.contexts)

    def repeated(self, counts: list[int], keys: list[Any], values: list[Any]) -> Batch:
        """A batch of ``keys``/``values`` where record ``i`` of this one gave ``counts[i]``
        of them (a flat map): each keeps its source record's origin and timestamp."""
        origin: list[int] = []
        for row, n in zip(self.origin, counts, strict=True):
            if n:
                origin += [row] * n
        timestamps = None
        if self.timestamps is not None:
            timestamps = []
            for ts, n in zip(self.timestamps, counts, strict=True):
                if n:
                    timestamps += [ts] * n
        contexts = None
        if self.contexts is not None:
            contexts = []
            for context, n in zip(self.contexts, counts, strict=True):
                if n:
                    contexts += [context] * n
        return Batch(keys, values, origin, timestamps, parents=partial(_repeat_positions, counts),
                     contexts=contexts)

    def __repr__(self) -> str:
        return f"Batch({len(self.origin)} records)"


def _repeat_positions(counts: list[int]) -> list[int]:
    """Position ``i`` repeated ``counts[i]`` times: the parents of a flat map's records."""
    return list(chain.from_iterable(map(repeat, range(len(counts)), counts)))


class Routed(NamedTuple):
    """What the batch form of a node forwarding each record to one named child at most
    returns: each child's records by its node name, in order, each batch's ``parents``
    (or origins) placing them in the batch it was given (``Batch.where`` sets them)."""

    parts: dict[str, Batch]


class Acting(Protocol):
    """A processor whose batch form hands its user's action on each record to ``run.act``
    (``peek``, ``foreach``, ``print``)."""

    def replay(self, done: int, error: BaseException | None) -> None:
        """The engine called the action of this processor's first ``done`` records of a run
        already, and the next one raised ``error`` (``None``: none raised): the record path,
        running the run again, skips those calls and raises ``error`` in place of the next,
        so that every action is called once, in the record path's order."""


class HeldWrites(Protocol):
    """A store's writes held during a run (``run.hold``), applied in phase two."""

    def apply(self) -> None:
        """Write what was held, as the record path's writes would have left the store."""


class BatchRun(Protocol):
    """What a batch form may ask of the engine running the batch."""

    commit_each: bool
    """True when the engine commits after every consumed record (the test driver: a cached
    store replays each commit's flush); false when it commits on an interval (the live
    runtime: no commit falls inside the run)."""

    caches_held: bool
    """True when a record cache may hold the run's writes: no other record cache of the
    task flushes or evicts within the run."""

    def holds_cache(self, namespace: str) -> bool:
        """True when the record cache ``namespace`` may hold the run's writes: it is the
        task's one cache (``caches_held``), or the engine commits after every consumed
        record and it is the first cache of the run to ask (the run's one cached writer: at
        each commit within the run only it is dirty, so the record path's flush order across
        the task's caches changes nothing; the others are only read, or written by another
        stage of the chunk, whose consumed records commit on their own)."""

    def reserve(self, cache: Any, growth: int) -> bool:
        """True, reserving them, when ``growth`` more bytes fit in the thread cache ``cache``
        beside what the other held writes of the chunk reserved (several tasks of one chunk
        may share a thread cache): then no put of the chunk evicts."""

    def reserve_evicting(self, cache: Any, *, walkable: bool = False) -> int | None:
        """Where ``reserve`` refused: the whole thread cache ``cache`` for the asking run
        (no other held writes of the chunk may grow it, so the run's puts are the only ones
        evicting), and the bytes it has left before its budget (to work out what the
        run's puts evict: ``kslab.state.held_evictions``); ``None`` when held writes of the
        chunk reserved some of it already. ``walkable``: the asking run could instead be
        walked with the others (``shared_evictions``), so the engine may do that."""

    def shared_evictions(self, cache: Any) -> Any:
        """Where the chunk's tasks share the thread cache ``cache`` and their puts may fill
        it: the ``SharedEvictions`` every held write of the chunk into it joins (its runs
        are walked together, in the record path's order, at the end of phase one; the
        chunk declines where one evicts a dirty entry); else ``None``."""

    def places(self, origins: list[int]) -> list[Any]:
        """The sort key of each of consumed records ``origins`` among the chunk's (the record
        path's order over the chunk's tasks)."""

    def flushes_at(self, origin: int) -> None:
        """The run declines because consumed record ``origin``'s get or put would evict a
        dirty entry of a record cache (a flush mid-run, which only the record path makes):
        the engine may run the records before it in batch, that one on the record path and
        the rest in batch again (``kslab.core.bulk.split.run_split``)."""

    topic: str
    """The topic the run's records were consumed from."""

    def timestamps(self, batch: Batch) -> list[int]:
        """Each record's timestamp."""

    def headers(self, batch: Batch) -> list[Any]:
        """Each record's headers (its origin's; ``None`` for none)."""

    def in_order(self, batch: Batch) -> bool:
        """True when each record of ``batch`` comes from a consumed record of its own, in
        the order they were consumed (a consumed record gave at most one of them)."""

    def source(self, origin: int) -> tuple[str, int, int]:
        """Topic, partition and offset of consumed record ``origin`` (valid in phase two)."""

    def sources(self, origins: list[int]) -> tuple[str, int, list[int]]:
        """The topic and partition of the run's consumed records, and the offset of each of
        consumed records ``origins`` (valid in phase two)."""

    def changelog(self, store_name: str, log: Any) -> Callable[..., None] | None:
        """``append(keys, values, timestamps, origins)`` writing a store's changelog records
        at once in phase two (``values``: their bytes, or an ``Encoded`` saying which serde
        wrote them; ``origins``: each one's consumed record, or a function giving them, for
        an engine that needs them), when the engine can take them so (``log``: the store's
        changelog writer); ``None``: write each through ``log``."""

    def hold(self, writes: HeldWrites) -> None:
        """Apply ``writes`` in phase two (dropped if the run fails)."""

    def defer(self, origin: int, action: Callable[[], None], position: int | None = None
              ) -> None:
        """Call ``action`` in phase two, in the record path's order, with the task's record
        context set to consumed record ``origin`` (as the record path would have it then);
        ``position``: the record of the given batch it is for (else the first of ``origin``).
        """

    def act(self, owner: Acting, batch: Batch, action: Callable[[Any, Any], None]) -> None:
        """Call ``action(key, value)`` for each record of ``batch`` in phase two, before
        anything is applied, in the record path's order across every node's actions; if
        one raises, nothing is applied and the run goes record by record, ``owner.replay``
        told first how many of its calls were made and what the one that raised raised."""
