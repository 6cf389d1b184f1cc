"""A store's value as an object of its own: what a user function or a forward gets.

Kafka's stores hold bytes, so every read decodes a new object and a function that changes it
in place (a Python aggregator's ``agg["n"] += 1; return agg``, a joiner filling in the table's
value, a ``map_values`` changing what it is given) changes nothing else. kslab keeps objects
beside the bytes (a record cache's entry, a batch run's aggregates so far), so it hands out
copies where Kafka would decode:

* a batch run reads each key once and folds the run's records over it before anything is
  written: each aggregate a user function gets, each table value a joiner gets and each old
  value forwarded is an object of its own, or an in-place aggregator would make every update
  of the run show the key's last state (its outputs, changelog records and store writes);
* a record cache's ``get`` and its flushes (record path and batch forms) hand out copies of the
  object they keep, which stays as its bytes read (``fresh_values``).

``fresh_value`` gives an equal object that nothing else holds: immutable values as they are;
dicts and lists copied (deeply where they hold containers) by the containers' own C-level
copies; anything else by ``copy.deepcopy``. For the values a JSON serde writes exactly this
equals what decoding the bytes gives; a store of other values holds the object it was given
(equal to its bytes read back for a serde that round-trips).
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
