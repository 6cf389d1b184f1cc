"""Table deletes in batch against the record path: a ``None`` value piped into a table's topic
(a tombstone), a row that stops passing a materialized table ``filter``, a table or stream
aggregate becoming ``None``, through ``to_stream().to(...)``, table aggregations (the old row
subtracted) and stream-table joins (a deleted row: an inner join drops, a left join joins
``None``); and a table aggregation on one partition with both the table's and the
aggregate's record cache on (two caches in one task). Each program runs with the bulk path on
and off (``kslab.driver.bulk``): every observable equal (outputs, store bytes, record caches
and their counters, changelogs, metrics, warnings), the expected outputs exact, and the chunks
run in batch (the executor's ``chunks``) with none declined.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import piped_observables

S, J, L = serdes.String(), serdes.Json(), serdes.Long()
Pipes = list[tuple[str, list[tuple[Any, Any, int]]]]
CACHES = [None, {"statestore.cache.max.bytes": 0}]  # the default cache (10 MiB), or none


def _run(topology: Callable[[], ks.Topology], pipes: Pipes, bulk: bool,
         config: dict[str, Any] | None, out_serde: Any) -> tuple[dict[str, Any], Any]:
    """``piped_observables``, the ``out`` topic read with ``out_serde``."""
    return piped_observables(topology, pipes, bulk, config, out_serde)


def _same(topology: Callable[[], ks.Topology], pipes: Pipes, config: dict[str, Any] | None,
          out_serde: Any = J) -> list[tuple[Any, Any, int]]:
    """The outputs of the bulk run, which ran every chunk in batch and equals the record
    run in every observable."""
    bulk, executor = _run(topology, pipes, True, config, out_serde)
    record, _ = _run(topology, pipes, False, config, out_serde)
    assert bulk == record
    assert executor.chunks >= len(pipes)  # (a long pipe: several chunks)
    assert executor.declined == 0
    return bulk["out"]  # type: ignore[no-any-return]


ROWS = [("c1", {"r": "eu", "n": 2}, 0), ("c2", {"r": "us", "n": 1}, 10), ("c1", None, 20),
        ("c9", None, 25), ("c2", {"r": "eu", "n": 4}, 30), ("c1", {"r": "us", "n": 3}, 40),
        ("c2", None, 50)]


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("config", CACHES)
def test_a_table_tombstone_is_forwarded(store: str, config: dict[str, Any] | None) -> None:
    """A ``None`` value deletes the row and forwards its tombstone; one for a key the table
    never held is forwarded only without a record cache (the cache's flush skips a delete
    of a key the store does not hold)."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("t", ks.Consumed.with_(S, J), ks.Materialized.as_("rows").with_store_type(
            store)).to_stream().to("out", ks.Produced.with_(S, J))
        return b.build()

    out = _same(topology, [("t", ROWS)], config)
    absent = [] if config is None else [("c9", None, 25)]
    assert out == [("c1", {"r": "eu", "n": 2}, 0), ("c2", {"r": "us", "n": 1}, 10),
                   ("c1", None, 20), *absent, ("c2", {"r": "eu", "n": 4}, 30),
                   ("c1", {"r": "us", "n": 3}, 40), ("c2", None, 50)]


@pytest.mark.parametrize("config", CACHES)
def test_a_row_that_stops_passing_a_materialized_filter_is_deleted(
        config: dict[str, Any] | None) -> None:
    """A materialized ``filter``: a row that stops passing forwards ``Change(None, old)``; a
    change that neither passed before nor passes now is dropped."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("t", ks.Consumed.with_(S, J), ks.Materialized.as_("rows")
                .with_caching_disabled()).filter(
            lambda k, v: v["n"] % 2 == 0, ks.Materialized.as_("even")) \
            .to_stream().to("out", ks.Produced.with_(S, J))
        return b.build()

    out = _same(topology, [("t", ROWS)], config)
    assert out == [("c1", {"r": "eu", "n": 2}, 0), ("c1", None, 20),
                   ("c2", {"r": "eu", "n": 4}, 30), ("c2", None, 50)]


@pytest.mark.parametrize("config", CACHES)
def test_a_table_count_subtracts_a_deleted_row(config: dict[str, Any] | None) -> None:
    """``table.group_by(...).count()`` on one partition, both caches on by default: a delete
    subtracts its old row (a ``None`` old value is not subtracted)."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("t", ks.Consumed.with_(S, J), ks.Materialized.as_("rows")) \
            .group_by(lambda k, v: (v["r"], v)).count(ks.Materialized.as_("counts")) \
            .to_stream().to("out", ks.Produced.with_(S, L))
        return b.build()

    out = _same(topology, [("t", ROWS)], config, L)
    assert out == [("eu", 1, 0), ("us", 1, 10), ("eu", 0, 20), ("us", 0, 30), ("eu", 1, 30),
                   ("us", 1, 40), ("eu", 0, 50)]


@pytest.mark.parametrize("config", CACHES)
def test_a_table_aggregate_becoming_none_deletes_its_row(
        config: dict[str, Any] | None) -> None:
    """A reduce whose subtractor returns ``None`` deletes the group's row and forwards its
    tombstone; the next addition starts the group again."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("t", ks.Consumed.with_(S, J), ks.Materialized.as_("rows")) \
            .group_by(lambda k, v: (v["r"], v["n"]), ks.Grouped.with_(S, L)).reduce(
                lambda a, v: a + v, lambda a, v: None if a == v else a - v,
                ks.Materialized.as_("sums")) \
            .to_stream().to("out", ks.Produced.with_(S, L))
        return b.build()

    out = _same(topology, [("t", ROWS)], config, L)
    assert out == [("eu", 2, 0), ("us", 1, 10), ("eu", None, 20), ("us", None, 30),
                   ("eu", 4, 30), ("us", 3, 40), ("eu", None, 50)]


@pytest.mark.parametrize("config", CACHES)
def test_a_stream_aggregate_becoming_none_deletes_its_row(
        config: dict[str, Any] | None) -> None:
    """``group_by_key().aggregate``: an aggregator returning ``None`` deletes the key's row
    (its tombstone forwarded); the next record starts from the initializer."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.stream("s", ks.Consumed.with_(S, J)).group_by_key().aggregate(
            lambda: 0, lambda k, v, a: None if a + v["n"] >= 5 else a + v["n"],
            ks.Materialized.as_("sums").with_value_serde(L)) \
            .to_stream().to("out", ks.Produced.with_(S, L))
        return b.build()

    rows = [("a", {"n": 2}, 0), ("a", {"n": 2}, 1), ("b", {"n": 4}, 2), ("a", {"n": 3}, 3),
            ("a", {"n": 1}, 4), ("b", {"n": 1}, 5)]
    out = _same(topology, [("s", rows)], config, L)
    assert out == [("a", 2, 0), ("a", 4, 1), ("b", 4, 2), ("a", None, 3), ("a", 1, 4),
                   ("b", None, 5)]


@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("config", CACHES)
def test_a_join_against_a_deleted_row(left: bool, config: dict[str, Any] | None) -> None:
    """A stream-table join reads a row the table deleted (in a chunk of its own, in batch):
    an inner join drops the record, a left join joins ``None``."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        table = b.table("t", ks.Consumed.with_(S, J), ks.Materialized.as_("rows"))
        stream = b.stream("s", ks.Consumed.with_(S, J))
        joined = (stream.left_join if left else stream.join)(
            table, lambda v, row: {"x": v["x"], "r": None if row is None else row["r"]})
        joined.to("out", ks.Produced.with_(S, J))
        return b.build()

    orders = [("c1", {"x": 1}, 100), ("c2", {"x": 2}, 101), ("c9", {"x": 3}, 102)]
    out = _same(topology, [("t", ROWS[:4]), ("s", orders)], config)
    expected = [("c2", {"x": 2, "r": "us"}, 101)]
    if left:
        expected = [("c1", {"x": 1, "r": None}, 100), *expected, ("c9", {"x": 3, "r": None}, 102)]
    assert out == expected


def test_two_record_caches_in_one_task_replay_their_flushes() -> None:
    """On one partition, default config: the table's cache flushes after each input row, the
    count's after each repartition record, long runs of them in a chunk, with 10% deletes."""
    rows = [(f"c{i % 37}", None if i % 10 == 9 else {"r": f"r{i % 7}"}, i) for i in range(600)]

    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("t", ks.Consumed.with_(S, J), ks.Materialized.as_("rows")) \
            .group_by(lambda k, v: (v["r"], v)).count() \
            .to_stream().to("out", ks.Produced.with_(S, L))
        return b.build()

    out = _same(topology, [("t", rows)], None, L)
    latest: dict[str, str] = {}  # each customer's region
    counts: dict[str, int] = {}
    expected = []
    for key, value, ts in rows:  # a move retracts the old region, then adds the new (a
        # customer's region always moves here: key i % 37, region i % 7)
        old, new = latest.pop(key, None), None if value is None else value["r"]
        for region, step in ((old, -1), (new, 1)):
            if region is not None:
                counts[region] = counts.get(region, 0) + step
                expected.append((region, counts[region], ts))
        if new is not None:
            latest[key] = new
    assert out == expected
    assert len(out) == 1047
