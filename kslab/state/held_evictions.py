"""The record cache's eviction in a batch run's form: which clean entries a run's puts evict.

``ThreadCache.put`` evicts, after a put leaves the thread cache over its budget, entries of
the namespace put into from its least recently used end until the total fits (a dirty one
flushes the whole namespace first). A batch run (``kslab.state.held_cache``) replays a run's
gets and puts at once, so it must know what the record path's puts evicted. This module
works it out exactly where eviction only drops clean entries nobody looks at again.
Invariant: where ``run_evictions`` gives a count, the record path's puts evict exactly that
many of the namespace's eldest entries, all clean and none of them a key the run touches,
so the run's gets hit and miss as without eviction and nothing is flushed or forwarded by
it; the run then evicts them (``ThreadCache.evict_clean``) and counts them as evictions.

Why a count is enough: while the entries evicted are clean and untouched by the run, each
eviction takes the next of the eldest entries as they stood before the run (an entry the run
gets or puts moves to the most recently used end; one it never touches keeps its place), so
the record path has evicted, after each put, the fewest eldest entries whose bytes cover how
far that put left the cache over budget. The most over budget is reached at the run's
fullest moment (``peak_growth``), and the count for it is the count at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from operator import add
from typing import Any

from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache, headers_size

__all__ = ["entry_header_bytes", "peak_growth", "run_evictions"]


def peak_growth(keys: list[bytes], stored: list[int], header_bytes: list[int] | None,
                topic: str | None, before: dict[bytes, LRUCacheEntry | None],
                read_back: dict[bytes, int]) -> int:
    """The most bytes a run's puts grow a named cache by, after any of its puts (where the
    record path may evict). ``keys[i]``: update ``i``'s key, whose put writes an entry of
    ``stored[i]`` value bytes (the timestamp and value a timestamped store keeps) with
    ``header_bytes[i]`` bytes of headers (``None``: none) and the run's ``topic``.
    ``before``: the keys cached before the run (their entry), and those a get reads back
    from the store first (``None``: the get puts a clean entry of ``read_back[key]`` value
    bytes, with no topic or headers, before the update's put replaces it); any other key
    enters with its first put."""
    fixed = NODE_OVERHEAD + 21 + (len(topic) if topic else 0)  # node_size less key and value
    sizes = list(map(add, map(len, keys), stored))
    if header_bytes is not None:
        sizes = list(map(add, sizes, header_bytes))
    node: dict[bytes, int | None] = {
        key: None if entry is None else len(key) + NODE_OVERHEAD + entry.size
        for key, entry in before.items()}
    grown = peak = 0
    for key, size in zip(keys, map(add, sizes, repeat(fixed)), strict=True):
        old = node.get(key, 0)
        if old is None:  # the get before this put reads the key back: a put of its own
            old = len(key) + NODE_OVERHEAD + 21 + read_back[key]
            grown += old
            if grown > peak:
                peak = grown
        grown += size - old
        node[key] = size
        if grown > peak:
            peak = grown
    return peak


def entry_header_bytes(headers: list[Any], positions: Iterable[int]) -> list[int] | None:
    """The header bytes of the entry each update at ``positions`` writes (its record's
    headers, ``headers[position]``), or ``None`` when no record has any."""
    if not any(headers):
        return None
    sizes = list(map(headers_size, headers))
    return list(map(sizes.__getitem__, positions))


def run_evictions(run: Any, cache: ThreadCache, namespace: str, peak: int,
                  touched: Any) -> int | None:
    """How many entries of ``namespace`` a run growing it by ``peak`` bytes at its fullest
    evicts on the record path (the whole thread cache reserved for the run:
    ``BatchRun.reserve_evicting``), when all of them are clean and untouched (no key in
    ``touched``); ``None`` when that is not known so (the run goes record by record)."""
    over = run.reserve_evicting(cache, peak)
    if over is None:
        return None
    return cache.evictable(namespace, over, touched)
