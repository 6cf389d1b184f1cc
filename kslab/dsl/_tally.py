"""A run's keys by id, and the count's fold over them: the batch forms' shared bookkeeping.

A stateful batch form reads each distinct key of its run once and folds the run's records over
those values; ``KeyTally`` gives each record its key's id (first-seen order), so the fold
indexes lists instead of hashing keys per record, and ``count_updates`` folds a count in C
iterators (no Python code per record).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import count as count_from
from itertools import islice, repeat
from operator import add, le, sub
from typing import Any

from kslab.serdes._base import one_to_one

__all__ = ["KeyTally", "count_updates", "key_types", "tally_keys"]

_BY_OBJECT = (str, int, bytes)  # one-to-one types whose equal objects have equal bytes (not
# float: -0.0 == 0.0)


class KeyTally:
    """The distinct keys of a run (first-seen order) and each record's key id."""

    __slots__ = ("distinct", "ids")

    def __init__(self, keys: list[Any]) -> None:
        self.distinct = list(dict.fromkeys(keys))
        index = dict(zip(self.distinct, range(len(self.distinct)), strict=True))
        self.ids = list(map(index.__getitem__, keys))

    def count(self, stored: list[Any], timestamps: list[int], olds: bool = True
              ) -> tuple[list[int] | None, list[int], list[int]]:
        """``count_updates`` of the run's records."""
        return count_updates(self.ids, stored, timestamps, olds)


def tally_keys(keys: list[Any], serde: Any, serialize: Callable[[list[Any]], list[bytes]],
               types: set[type] | None = None) -> KeyTally:
    """``KeyTally`` of ``keys`` told apart by their bytes as a store's ``serialize`` (with
    key serde ``serde``) writes them, ``distinct`` holding those bytes. Keys all of the one
    type ``serde`` maps one to one (``kslab.serdes._base.one_to_one``: a str, int or bytes
    key is equal to another exactly when their bytes are) are told apart as objects, so only
    the distinct ones are serialized; a key the serde refuses raises its error either way.
    ``types``: the keys' types, where known already (``key_types``; of a run's keys, those
    of the batch they come from)."""
    kind = one_to_one(serde)
    if kind is not None and kind[0] in _BY_OBJECT and keys and (
            {*map(type, keys)} if types is None else types) == {kind[0]}:
        tally = KeyTally(keys)
        tally.distinct = serialize(tally.distinct)
        return tally
    return KeyTally(serialize(keys))


def key_types(keys: list[Any]) -> set[type]:
    """The types of ``keys`` (``NoneType`` among them for a ``None`` key), found in C."""
    return {*map(type, keys)}


def count_updates(ids: list[int], stored: list[Any], timestamps: list[int], olds: bool = True,
                  ordered: bool | None = None) -> tuple[list[int] | None, list[int], list[int]]:
    """``KStreamAggregate``'s count of each update (``ids``: its key's id): the count before
    (0 for a new key; only with ``olds``, else ``None``), after, and the aggregate's
    timestamp (the largest of the stored one and the updates' so far: ``timestamps``
    itself where no stored one is larger and they are in order, ``ordered`` if known), from
    each key id's stored ``(count, timestamp)`` (or ``None``)."""
    if not ids:
        return [] if olds else None, [], []
    counts = [0 if held is None else held[0] for held in stored]
    stamps = [-1 if held is None else held[1] for held in stored]
    counters = list(map(count_from, map(add, counts, repeat(1))))
    news = list(map(next, map(counters.__getitem__, ids)))
    befores = list(map(sub, news, repeat(1))) if olds else None
    if ordered is None:
        ordered = all(map(le, timestamps, islice(timestamps, 1, None)))
    if ordered:  # the latest record's, unless a stored one is larger
        if max(stamps) <= timestamps[0]:
            return befores, news, timestamps
        return befores, news, list(map(max, map(stamps.__getitem__, ids), timestamps))
    stamped: list[int] = []
    for key_id, timestamp in zip(ids, timestamps, strict=True):
        stamp = stamps[key_id]
        if timestamp > stamp:
            stamps[key_id] = stamp = timestamp
        stamped.append(stamp)
    return befores, news, stamped
