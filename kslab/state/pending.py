"""Writes held until a flush: one ordered, last-write-wins map of key -> pending write.

Three mechanisms hold writes and hand them on later, and all three hold them here:

* the record cache's dirty entries (``NamedCache``: key bytes -> its dirty ``LRUCacheEntry``,
  handed to the flush listener in the order of their last write; the LRU order, eviction and
  sizes stay the cache's own, around this map);
* the live runtime's write-behind (``WriteBehindKeyValueStore``: key object -> ``(key,
  value object, timestamp)``, serialized into the backend at the commit);
* a batch run's replay of a record cache (``kslab.state.held_cache``: the commits' flush
  order, ``flush_order``, and each window's last put, ``HeldCachedWindowWrites``), and each
  key's last write of a batch run's held writes (``HeldTimestampedWrites.encode_finals``,
  ``WindowRun.finals``);

and so does Spark's capture of a store's changelog until the micro-batch ends
(``kslab.spark._state.ChangelogState``).

Invariants of a ``PendingWrites``:

* it holds at most one write per key, the last one held (last write wins);
* its order is the flush order, and a mechanism picks one of the two rules per map: holding
  by item assignment (``pending[key] = write``) keeps a key where it was first held since the
  last flush (first-dirtied order: write-behind, a run's finals), and
  ``hold_last`` moves it to the end (last-dirtied order: the record cache's dirty entries);
* ``drain`` hands every write over in that order and leaves the map empty only once all were
  taken: a flush that fails part way (a producer refusing a record) leaves every write held,
  as before the flush;
* ``drop`` forgets every write unflushed (an aborted transaction, a store wiped or closed).

It is a ``dict`` so that the hot paths hold, read and count with the dict's own C-level
operations (a processor's put holds a write in one item assignment), with no attributes of its
own; a mechanism clears it in place and never replaces it (a holder may keep a reference to
it, as a write-behind store binds its ``get``).

Left outside it, on purpose, because their rule differs: the batch forms' columns of held
writes (``WindowRun``, ``HeldTimestampedWrites``, ``HeldWindowWrites``) keep every write in
order, not each key's last (the changelog of a store without a cache gets every write), and ask
this class only for each key's last write; the live runtime's changelog batch
(``KafkaCollector.changelog_batch``) is a plain list of every write, for the same reason; the
suppression buffer's dirty keys flush in the
order Java's ``HashSet`` iterates them, not in write order (``kslab.state.buffer``); Spark's
``SparkStateBackend`` keeps a set of changed keys whose values stay in its sorted map (a
``MapState`` has no order to keep).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["PendingWrites"]

K = TypeVar("K")
W = TypeVar("W")


class PendingWrites(dict[K, W]):
    """An ordered, last-write-wins map of key -> pending write (see the module).

    Hold with ``pending[key] = write`` (a key keeps its first place) or ``hold_last`` (a key
    moves to the end); read with the dict's ``get``, ``in`` and ``len``; flush with
    ``drain``, abort with ``drop``.
    """

    __slots__ = ()

    def hold_last(self, key: K, write: W) -> None:
        """Hold ``write`` for ``key`` as the most recent write: the key moves to the end of
        the flush order (last-dirtied order)."""
        if key in self:
            del self[key]
        self[key] = write

    def drain(self) -> Iterator[tuple[K, W]]:
        """Each ``(key, write)`` in flush order; the map is emptied once the last one has
        been taken (a consumer that stops early or raises leaves every write held). The
        consumer must not hold new writes here while it drains."""
        yield from self.items()
        self.clear()

    def drop(self) -> None:
        """Forget every held write without flushing it (an abort)."""
        self.clear()

    @classmethod
    def last_of(cls, keys: Iterable[K], writes: Iterable[W]) -> PendingWrites[K, W]:
        """``keys[i]`` holding ``writes[i]`` in order by item assignment: each key's last
        write, in first-dirtied order (built in C)."""
        return cls(zip(keys, writes, strict=True))

    def __repr__(self) -> str:
        return f"PendingWrites({dict.__repr__(self)})"
