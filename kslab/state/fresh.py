"""A key's value as an object of its own, for a batch run's user functions and old values.

The record path reads a key's value from its store once per record (a record cache hands over
the object it holds, a store without one decodes its bytes) and the next record's read comes
after the first record's outputs were written. A batch run reads each key once and folds all
of the run's records over it before anything is written, so a fold that handed the user the
same object each time would let a Python aggregator that changes its aggregate in place
(``agg["n"] += 1; return agg``, the usual way to write one) change every update the run made
before: each forwarded value, changelog record and store write would show the key's last
state. Likewise an old value that is the object an earlier update forwarded would show what a
function downstream did to it (a table's ``map_values`` changing its value in place), where
the record path decodes the old value from the store's bytes.

``fresh_value`` gives an equal object that nothing else holds: immutable values as they are;
dicts and lists copied (deeply where they hold containers) by the containers' own C-level
copies; anything else by ``copy.deepcopy``. Equal to what the record path's read gives with a
record cache (the cached object, Kafka's default) and, for the values a JSON serde writes
exactly, without one (the bytes decoded).
"""

from __future__ import annotations

import copy
from typing import Any

from kslab.records import ValueAndTimestamp

__all__ = ["IMMUTABLE", "fresh_value", "fresh_values"]

# classes whose objects no function can change: handed over as they are
IMMUTABLE = frozenset({str, int, float, bool, type(None), bytes, complex})


def fresh_value(value: Any) -> Any:
    """An object equal to ``value`` that no one else holds (``value`` itself when immutable)."""
    kind = value.__class__
    if kind in IMMUTABLE:
        return value
    if kind is dict:
        if IMMUTABLE.issuperset(map(type, value.values())):  # flat (the usual JSON value)
            return value.copy()
        return {key: fresh_value(item) for key, item in value.items()}
    if kind is list:
        if IMMUTABLE.issuperset(map(type, value)):
            return value.copy()
        return list(map(fresh_value, value))
    if kind is ValueAndTimestamp:  # (a timestamped store's: its value fresh)
        held = value[0]
        if held.__class__ in IMMUTABLE:
            return value
        return tuple.__new__(ValueAndTimestamp, (fresh_value(held), value[1]))
    if kind is tuple and IMMUTABLE.issuperset(map(type, value)):
        return value
    return copy.deepcopy(value)


def fresh_values(values: list[Any]) -> list[Any]:
    """``fresh_value`` of each of ``values`` (the list itself when every one is immutable): what
    a record cache's flushes forward, copies of the objects it keeps (a function downstream
    that changes a forwarded value in place leaves the cached one as its bytes read)."""
    if IMMUTABLE.issuperset(map(type, values)):
        return values
    return list(map(fresh_value, values))
