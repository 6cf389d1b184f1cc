"""``count_updates``, the batch forms' running count per key, against a plain model of the
count: in order (counted in C iterators) and out of order (a loop), with and without stored
counts and timestamps larger than the records'; and ``tally_keys``, which tells keys apart by
their bytes (as objects where their type maps to bytes one to one)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kslab import serdes
from kslab.dsl._tally import KeyTally, count_updates, key_types, tally_keys


def _model(ids: list[int], stored: list[Any], timestamps: list[int]) -> tuple[list[int], ...]:
    counts = [0 if held is None else held[0] for held in stored]
    stamps = [-1 if held is None else held[1] for held in stored]
    olds, news, stamped = [], [], []
    for key, timestamp in zip(ids, timestamps, strict=True):
        olds.append(counts[key])
        counts[key] += 1
        stamps[key] = max(stamps[key], timestamp)
        news.append(counts[key])
        stamped.append(stamps[key])
    return olds, news, stamped


@pytest.mark.parametrize("ordered", [True, False], ids=["in-order", "out-of-order"])
@pytest.mark.parametrize("stored", ["none", "older", "newer"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_count_updates_counts_as_the_model(ordered: bool, stored: str, seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"k{rng.randint(0, 9)}" for _ in range(200)]
    timestamps = [1000 + rng.randint(0, 500) for _ in keys]
    if ordered:
        timestamps.sort()
    tally = KeyTally(keys)
    held: list[Any] = [None] * len(tally.distinct)
    if stored != "none":  # what the store held before the run, for some keys
        for i in range(0, len(held), 2):
            held[i] = (rng.randint(1, 50), rng.randint(0, 900) if stored == "older"
                       else rng.randint(1100, 1600))
    expected = _model(tally.ids, held, timestamps)
    assert tally.count(held, timestamps) == expected
    assert count_updates(tally.ids, held, timestamps, False, ordered) == (None, *expected[1:])
    assert len(set(expected[1])) > 1 and len(tally.distinct) == 10


def test_count_updates_of_nothing_is_empty() -> None:
    assert count_updates([], [], []) == ([], [], [])
    assert count_updates([], [], [], olds=False) == (None, [], [])


def test_tally_keys_tells_keys_apart_by_their_bytes() -> None:
    """Strings under ``String``: told apart as objects, each distinct one serialized once;
    anything else (a serde with no one-to-one type, keys of mixed types) by its bytes."""
    calls: list[list[Any]] = []

    def serialize(keys: list[Any]) -> list[bytes]:
        calls.append(list(keys))
        return [serdes.Json().serialize("t", key) for key in keys]

    keys = ["a", "b", "a", "c", "b"]
    tally = tally_keys(keys, serdes.String(), serialize)
    assert (tally.distinct, tally.ids, calls) == ([b'"a"', b'"b"', b'"c"'], [0, 1, 0, 2, 1],
                                                  [["a", "b", "c"]])
    calls.clear()
    tally = tally_keys(keys, serdes.Json(), serialize)  # no one-to-one type: every key
    assert (tally.ids, calls) == ([0, 1, 0, 2, 1], [keys])
    calls.clear()
    mixed = [1, True, 1.0, 1]  # equal objects of other types: their bytes decide
    tally = tally_keys(mixed, serdes.Long(), serialize, key_types(mixed))
    assert calls == [mixed] and tally.distinct == [b"1", b"true", b"1.0"]
    assert tally.ids == [0, 1, 2, 0]
