"""``Tally.run``, the bulk counts' running count per key, against a plain model of the count:
in order (counted in C iterators) and out of order (a loop), with and without stored counts
and timestamps larger than the records'."""

from __future__ import annotations

import random

import pytest

from kslab.core.bulk.count import Tally


def _model(ids: list[int], counts: list[int], stamps: list[int], timestamps: list[int]
           ) -> tuple[list[int], ...]:
    counts, stamps = list(counts), list(stamps)
    news, stamped, last = [], [], [0] * len(counts)
    for position, (key, timestamp) in enumerate(zip(ids, timestamps, strict=True)):
        counts[key] += 1
        stamps[key] = max(stamps[key], timestamp)
        news.append(counts[key])
        stamped.append(stamps[key])
        last[key] = position
    return news, stamped, last, counts, stamps


@pytest.mark.parametrize("ordered", [True, False], ids=["in-order", "out-of-order"])
@pytest.mark.parametrize("stored", ["none", "older", "newer"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_run_counts_as_the_model(ordered: bool, stored: str, seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"k{rng.randint(0, 9)}" for _ in range(200)]
    timestamps = [1000 + rng.randint(0, 500) for _ in keys]
    if ordered:
        timestamps.sort()
    tally = Tally(keys, {key: key.encode() for key in keys})
    if stored != "none":  # what the store held before the chunk, for some keys
        for i in range(0, len(tally.counts), 2):
            tally.counts[i] = rng.randint(1, 50)
            tally.stamps[i] = rng.randint(0, 900) if stored == "older" \
                else rng.randint(1100, 1600)
    expected = _model(tally.ids, tally.counts, tally.stamps, timestamps)
    news, stamped, last = tally.run(timestamps)
    assert (news, stamped, last, tally.counts, tally.stamps) == expected
    assert len(set(news)) > 1 and len(tally.counts) == 10


def test_run_of_nothing_is_empty() -> None:
    tally = Tally([], {})
    assert tally.run([]) == ([], [], [])
