"""A run of records as columns: what a processor's batch form takes and returns.

A processor may offer ``process_batch(batch) -> Batch`` beside ``process(record)``: the same
rule applied to a run of records, in record order, calling the user's function once per record
exactly as ``process`` would, and returning the records it would have forwarded to its one
child, in the order it would have forwarded them. A batch form changes no state and forwards
nothing itself: an engine that runs a batch may discard the result (and run the records one by
one instead) when anything in the batch raises, so the error surfaces from ``process`` with the
record path's exact context. Processors without ``process_batch`` always run record by record.

``origin`` maps each record of a batch to the input row it descends from, so the engine keeps
the record path's order (input row by input row, depth first) and each record's timestamp,
headers and offset.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Batch"]


class Batch:
    """Keys, values and the input row each record came from (``origin``), in record order."""

    __slots__ = ("keys", "origin", "values")

    def __init__(self, keys: list[Any], values: list[Any], origin: list[int]) -> None:
        self.keys = keys
        self.values = values
        self.origin = origin

    def __len__(self) -> int:
        return len(self.keys)

    def where(self, keep: list[bool]) -> Batch:
        """The records whose ``keep`` flag is true (this batch itself when all are)."""
        if all(keep):
            return self
        keys, values, origin = self.keys, self.values, self.origin
        index = [i for i, ok in enumerate(keep) if ok]
        return Batch([keys[i] for i in index], [values[i] for i in index],
                     [origin[i] for i in index])

    def __repr__(self) -> str:
        return f"Batch({len(self.keys)} records)"
