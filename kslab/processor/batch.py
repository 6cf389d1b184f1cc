"""A run of records as columns: what a processor's batch form takes and returns.

A processor may offer ``process_batch(batch, run) -> Batch | None`` beside
``process(record)``: the same rule applied to a run of records, in record order, calling the
user's function once per record exactly as ``process`` would, and returning the records it
would have forwarded to its one child, in the order it would have forwarded them (``None``:
it cannot take this run; the engine then runs it record by record).

A batch form changes no state itself and forwards nothing: a stateful one reads its store and
holds its writes in a ``HeldWrites`` it hands to ``run.hold``, and anything else that must
happen (a warning and the dropped-record metric of a skipped record) goes to ``run.defer``.
The engine applies what was held once every batch form of the run returned (phase two), and
drops it all when anything raised, running the records one by one instead, so an error
surfaces from ``process`` with the record path's exact context. Processors without
``process_batch`` always run record by record.

``origin`` maps each record of a batch to the consumed record it descends from, so the engine
keeps the record path's order (consumed record by consumed record, depth first) and each
record's headers and offset; ``timestamps`` is ``None`` while every record carries its
origin's timestamp (stateless operators keep it), else each record's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Batch", "BatchRun", "HeldWrites"]


class Batch:
    """Keys, values and the consumed record each came from (``origin``), in record order;
    ``timestamps``: each record's, or ``None`` for its origin's."""

    __slots__ = ("keys", "origin", "timestamps", "values")

    def __init__(self, keys: list[Any], values: list[Any], origin: list[int],
                 timestamps: list[int] | None = None) -> None:
        self.keys = keys
        self.values = values
        self.origin = origin
        self.timestamps = timestamps

    def __len__(self) -> int:
        return len(self.keys)

    def where(self, keep: list[bool]) -> Batch:
        """The records whose ``keep`` flag is true (this batch itself when all are)."""
        if all(keep):
            return self
        index = [i for i, ok in enumerate(keep) if ok]
        keys, values, origin, timestamps = self.keys, self.values, self.origin, self.timestamps
        return Batch([keys[i] for i in index], [values[i] for i in index],
                     [origin[i] for i in index],
                     None if timestamps is None else [timestamps[i] for i in index])

    def with_keys(self, keys: list[Any]) -> Batch:
        """The same records under ``keys``."""
        return Batch(keys, self.values, self.origin, self.timestamps)

    def with_values(self, values: list[Any]) -> Batch:
        """The same records with ``values``."""
        return Batch(self.keys, values, self.origin, self.timestamps)

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
        return Batch(keys, values, origin, timestamps)

    def __repr__(self) -> str:
        return f"Batch({len(self.keys)} records)"


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

    def reserve(self, cache: Any, growth: int) -> bool:
        """True, reserving them, when ``growth`` more bytes fit in the thread cache ``cache``
        beside what the other held writes of the chunk reserved (several tasks of one chunk
        may share a thread cache): then no put of the chunk evicts."""

    topic: str
    """The topic the run's records were consumed from."""

    def timestamps(self, batch: Batch) -> list[int]:
        """Each record's timestamp."""

    def headers(self, batch: Batch) -> list[Any]:
        """Each record's headers (its origin's; ``None`` for none)."""

    def source(self, origin: int) -> tuple[str, int, int]:
        """Topic, partition and offset of consumed record ``origin`` (valid in phase two)."""

    def changelog(self, store_name: str, log: Any) -> Callable[..., None] | None:
        """``append(keys, values, timestamps, origins)`` writing a store's changelog records
        at once in phase two (``origins``: each one's consumed record), when the engine can
        take them so (``log``: the store's changelog writer); ``None``: write each through
        ``log``."""

    def hold(self, writes: HeldWrites) -> None:
        """Apply ``writes`` in phase two (dropped if the run fails)."""

    def defer(self, origin: int, action: Callable[[], None]) -> None:
        """Call ``action`` in phase two, in origin order, with the task's record context set
        to consumed record ``origin`` (as the record path would have it then)."""
