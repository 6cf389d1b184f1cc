"""A run's keys by id, and the count's fold over them: the batch forms' shared bookkeeping.

A stateful batch form reads each distinct key of its run once and folds the run's records over
those values; ``KeyTally`` gives each record its key's id (first-seen order), so the fold
indexes lists instead of hashing keys per record, and ``count`` folds a count in C iterators.
"""

from __future__ import annotations

from itertools import count as count_from
from itertools import islice, repeat
from operator import add, le
from typing import Any

__all__ = ["KeyTally"]


class KeyTally:
    """The distinct keys of a run (first-seen order) and each record's key id."""

    __slots__ = ("distinct", "ids")

    def __init__(self, keys: list[Any]) -> None:
        self.distinct = list(dict.fromkeys(keys))
        index = dict(zip(self.distinct, range(len(self.distinct)), strict=True))
        self.ids = list(map(index.__getitem__, keys))

    def count(self, stored: list[Any], timestamps: list[int]
              ) -> tuple[list[int], list[int], list[int]]:
        """``KStreamAggregate``'s count of each record: the count before (0 for a new key),
        after, and the aggregate's timestamp (the largest of the stored one and the records'
        so far), from each distinct key's stored ``ValueAndTimestamp`` (or ``None``)."""
        ids = self.ids
        if not ids:
            return [], [], []
        counts = [0 if held is None else held[0] for held in stored]
        stamps = [-1 if held is None else held[1] for held in stored]
        counters = list(map(count_from, map(add, counts, repeat(1))))
        news = list(map(next, map(counters.__getitem__, ids)))
        olds = [new - 1 for new in news]
        if all(map(le, timestamps, islice(timestamps, 1, None))):  # in order: the latest
            if max(stamps) <= timestamps[0]:  # record's, unless a stored one is larger
                return olds, news, list(timestamps)
            return olds, news, list(map(max, map(stamps.__getitem__, ids), timestamps))
        stamped: list[int] = []
        for key_id, timestamp in zip(ids, timestamps, strict=True):
            stamp = stamps[key_id]
            if timestamp > stamp:
                stamps[key_id] = stamp = timestamp
            stamped.append(stamp)
        return olds, news, stamped
