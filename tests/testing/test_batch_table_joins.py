"""Table-table joins' batch forms against the record path: every observable equal, and exact
values.

``KTable.join``, ``left_join`` and ``outer_join`` of two source tables (each side's chunks
read the other side's store once per distinct key, through its record cache when it has one),
the result not materialized or materialized (its merger puts through the store's held writes,
with no get before a put), with a record cache or without (with the tables' caches on too:
two cached writers in a chunk, record by record), the other side seen through an
unmaterialized ``filter``, deletes, and a self-join (one topic reaching both sides: record by
record).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import piped_observables

S, J = serdes.String(), serdes.Json()
KINDS = ["join", "left_join", "outer_join"]


def _joined(kind: str, cache: bool = True, stored: bool = False, filtered: bool = False,
            result_cache: bool | None = None) -> ks.Topology:
    """Table ``a`` ``kind``-joined with table ``b`` (``x|y``), to ``out``; ``cache``: the
    tables' record caches, and a stored result's unless ``result_cache`` says; ``filtered``:
    ``b`` through an unmaterialized filter dropping values ending in 3."""
    def mat(name: str) -> Any:
        m = ks.Materialized.as_(name).with_key_serde(S).with_value_serde(J)
        on = cache if result_cache is None or name != "joined" else result_cache
        return m if on else m.with_caching_disabled()

    b = ks.StreamsBuilder()
    left = b.table("a", ks.Consumed.with_(S, J), mat("a-store"))
    right = b.table("b", ks.Consumed.with_(S, J), mat("b-store"))
    if filtered:
        right = right.filter(lambda k, v: not str(v).endswith("3"))
    joiner = lambda x, y: f"{x}|{y}"  # noqa: E731
    joined = getattr(left, kind)(right, joiner, *([mat("joined")] if stored else []))
    joined.to_stream().to("out", ks.Produced.with_(S, J))
    return b.build()


def _both(topology: Any, pipes: list[tuple[str, list[tuple[Any, Any, int]]]]
          ) -> tuple[dict[str, Any], Any]:
    """Every observable of both paths, asserted equal; the bulk run's and its executor."""
    bulk, executor = piped_observables(topology, pipes, True)
    record, _ = piped_observables(topology, pipes, False)
    assert bulk == record
    return bulk, executor


PIPES = [("b", [("k1", "B1", 5)]),
         ("a", [("k1", "A1", 10), ("k2", "A2", 20), ("k1", "A1'", 30), ("k1", None, 40)]),
         ("b", [("k2", "B2", 50), ("k3", "B3", 60)])]


@pytest.mark.parametrize("stored", [False, True], ids=["unstored", "stored"])
@pytest.mark.parametrize("kind", KINDS)
def test_exact_joins(kind: str, stored: bool) -> None:
    """Each change joins the other side's row as of its chunk (the later timestamp of the
    two): a's k2 finds no b row (an inner join drops it, a left or outer one joins ``None``),
    b's k2 then finds a's A2; a's delete of k1 forwards a tombstone (an outer join: b's row
    alone); b's k1 before any a row and b's k3 find none (only an outer join forwards them)."""
    observed, executor = _both(lambda: _joined(kind, cache=False, stored=stored), PIPES)
    outer = kind == "outer_join"
    expected = [("k1", "None|B1", 5)] if outer else []
    expected.append(("k1", "A1|B1", 10))
    if kind != "join":
        expected.append(("k2", "A2|None", 20))
    expected += [("k1", "A1'|B1", 30), ("k1", "None|B1" if outer else None, 40),
                 ("k2", "A2|B2", 50)]
    if outer:
        expected.append(("k3", "None|B3", 60))
    assert observed["out"] == expected
    assert (executor.chunks, executor.declined) == (3, 0)
    if stored:  # each key's last row (timestamp, then the JSON value)
        rows = [(b"k1", 40, b'"None|B1"')] if outer else []
        rows.append((b"k2", 50, b'"A2|B2"'))
        if outer:
            rows.append((b"k3", 60, b'"None|B3"'))
        assert sorted(observed["tasks"]["0_0"]["stores"]["joined"]["bytes"]) == [
            (key, stamp.to_bytes(8, "big") + value) for key, stamp, value in rows]


def _random_pipes(seed: int) -> list[tuple[str, list[tuple[Any, Any, int]]]]:
    """Alternating chunks of ``a`` and ``b`` updates over 8 keys, one in eight a delete."""
    rng = random.Random(seed)
    pipes: list[tuple[str, list[tuple[Any, Any, int]]]] = []
    ts = 0
    for i in range(12):
        rows = []
        for _ in range(rng.randint(1, 60)):
            ts += rng.choice([0, 1, 7])
            rows.append((f"k{rng.randint(0, 7)}",
                         None if rng.random() < 0.125 else f"v{rng.randint(0, 9)}", ts))
        pipes.append(("ab"[i % 2], rows))
    return pipes


@pytest.mark.parametrize("filtered", [False, True], ids=["plain", "filtered"])
@pytest.mark.parametrize("stored", [False, True], ids=["unstored", "stored"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("kind", KINDS)
def test_joins_match(kind: str, cache: bool, stored: bool, filtered: bool) -> None:
    _, executor = _both(lambda: _joined(kind, cache, stored, filtered), _random_pipes(3))
    if stored and cache:  # (two cached writers in a chunk, the table's and the result's:
        assert executor.chunks <= 1  # record by record)
    else:
        assert (executor.chunks, executor.declined) == (12, 0)


@pytest.mark.parametrize("kind", KINDS)
def test_a_cached_result_matches(kind: str) -> None:
    """The result's record cache (the tables' off): the merger's puts, with no get before
    them, cached and each commit's flush forwarded, as the record path's."""
    _, executor = _both(lambda: _joined(kind, False, True, result_cache=True),
                        _random_pipes(4))
    assert (executor.chunks, executor.declined) == (12, 0)


def test_a_self_join_keeps_the_record_path() -> None:
    """A table joined with its own filter: each chunk reaches both sides (both read the
    table's store), so it runs record by record, with the record path's outputs (each side
    joins each update: two results)."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        table = b.table("a", ks.Consumed.with_(S, J), ks.Materialized.as_("a-store"))
        table.join(table.filter(lambda k, v: v != "v0"), lambda x, y: f"{x}+{y}"
                   ).to_stream().to("out", ks.Produced.with_(S, J))
        return b.build()

    observed, executor = _both(topology, [("a", [("k1", "v1", 1), ("k1", "v0", 2),
                                                 ("k2", "v2", 3)])])
    assert observed["out"] == [("k1", "v1+v1", 1), ("k1", "v1+v1", 1), ("k1", None, 2),
                               ("k2", "v2+v2", 3), ("k2", "v2+v2", 3)]
    assert (executor.chunks, executor.declined) == (0, 1)
