"""Table aggregations in batch against the record path: ``table.group_by(...)`` (Java's
``KTableRepartitionMap``) then ``count``, ``reduce`` or ``aggregate`` with a subtractor
(``KTableAggregate`` / ``KTableReduce`` over the repartition topic's ``Change`` records).

Every observable equals the record path's (``driver_observables.state``: logs, store bytes,
caches and counters, changelogs, clocks, metrics), the aggregates equal the ones worked out
here by hand, and the chunks ran in batch (the executor's ``chunks`` grew, nothing declined):
over in-memory and RocksDB stores, record caches on or off, on one partition (the repartition
read back by the task that wrote it, in the same chunk) and on several. What keeps the record
path: two record caches in one task (the table's and the aggregate's, on one partition), a
table update deleting a row, and an aggregate becoming ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import captured_warnings, state

S, J, L = serdes.String(), serdes.Json(), serdes.Long()
Rows = list[tuple[str, Any, int]]

# users moving between countries: u{i % 50} lives in c{i % 7} after update i
USERS: Rows = [(f"u{i % 50}", {"country": f"c{i % 7}", "age": i % 40}, i) for i in range(600)]


def _latest(rows: Rows) -> dict[str, Any]:
    """Each user's last row (``None``: deleted)."""
    latest: dict[str, Any] = {}
    for key, value, _ in rows:
        latest[key] = value
    return latest


def _topology(agg: str, table_cache: bool, agg_cache: bool, store: str) -> ks.Topology:
    """``users`` grouped by country and counted, reduced (summed ages) or aggregated (a sum
    of ages), the aggregate table's updates written to ``out``."""
    b = ks.StreamsBuilder()
    table_mat = ks.Materialized.as_("users-store").with_store_type(store)
    if not table_cache:
        table_mat = table_mat.with_caching_disabled()
    grouped = b.table("users", ks.Consumed.with_(S, J), table_mat).group_by(
        lambda k, v: (v["country"], v["age"]), ks.Grouped.with_(S, L))
    mat = ks.Materialized.as_("agg-store").with_store_type(store)
    if not agg_cache:
        mat = mat.with_caching_disabled()
    if agg == "count":
        table = grouped.count(mat)
    elif agg == "reduce":
        table = grouped.reduce(lambda a, b: a + b, lambda a, b: a - b, mat)
    else:
        table = grouped.aggregate(lambda: 0, lambda k, v, a: a + v, lambda k, v, a: a - v, mat)
    table.to_stream().to("out", ks.Produced.with_(S, L))
    return b.build()


def _run(topology: Callable[[], ks.Topology], rows: Rows, bulk: bool,
         partitions: int = 1) -> tuple[dict[str, Any], Any]:
    """Every observable of piping ``rows`` into ``users`` as one list, with the bulk path on
    or off, and the bulk executor that ran (``None`` off)."""
    parts = None if partitions == 1 else {"users": partitions}
    with captured_warnings() as warnings:
        driver = ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": bulk},
                                       partitions=parts)
        try:
            driver.create_input_topic("users", S, J).pipe_record_list(
                [ks.TestRecord(k, v, ts) for k, v, ts in rows])
            observed = state(driver)
            observed["out"] = [(r.key, r.value, r.timestamp) for r in
                               driver.create_output_topic("out", S, L).read_records_to_list()]
            # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
            executor = driver._bulk or driver._partitioned
        finally:
            driver.close()
    observed["warnings"] = list(warnings)
    return observed, executor


def _same(topology: Callable[[], ks.Topology], rows: Rows,
          partitions: int = 1) -> tuple[dict[str, Any], Any]:
    """The bulk run's observables (equal to the record run's) and its executor."""
    bulk, executor = _run(topology, rows, True, partitions)
    record, _ = _run(topology, rows, False, partitions)
    assert bulk == record
    return bulk, executor


def _expected(agg: str, rows: Rows) -> dict[str, int]:
    """Each country's aggregate over the users living there now (countries left empty
    keep 0)."""
    expected: dict[str, int] = {}
    for value in _latest(rows).values():
        if value is not None:
            expected.setdefault(value["country"], 0)
            expected[value["country"]] += 1 if agg == "count" else value["age"]
    return expected


def _last_out(observed: dict[str, Any]) -> dict[str, int]:
    """Each key's last update in ``out``."""
    return {key: value for key, value, _ in observed["out"]}


CASES = [  # store, the table's record cache, the aggregate's, partitions
    ("in_memory", False, False, 1), ("persistent", False, False, 1),
    ("in_memory", False, True, 1), ("persistent", False, True, 1),
    ("in_memory", True, True, 3), ("persistent", False, False, 2),
    ("persistent", True, False, 2),
]


@pytest.mark.parametrize("agg", ["count", "reduce", "aggregate"])
@pytest.mark.parametrize(("store", "table_cache", "agg_cache", "partitions"), CASES)
def test_a_table_aggregation_runs_in_batch(agg: str, store: str, table_cache: bool,
                                           agg_cache: bool, partitions: int) -> None:
    """Rows moving between groups leave the old one (subtractor) and join the new one
    (adder), chunk by chunk in batch, exactly as record by record."""
    observed, executor = _same(lambda: _topology(agg, table_cache, agg_cache, store), USERS,
                               partitions)
    assert executor.chunks > 0
    assert executor.declined == 0
    assert _last_out(observed) == _expected(agg, USERS)
    if not agg_cache:  # every update forwarded: one or two per row (left, then joined)
        moved = sum(1 for i in range(50, 600) if USERS[i][1]["country"]
                    != USERS[i - 50][1]["country"])
        assert len(observed["out"]) == 600 + moved


def test_the_first_updates_of_a_count_are_exact() -> None:
    """A row's first update adds it; a later one moving it retracts it from the old group
    first (the old group's update, then the new group's), at the row's timestamp; one
    keeping its group is one change (subtracted and added: one update, Kafka 3.5 on)."""
    rows: Rows = [("u1", {"country": "fr", "age": 1}, 5), ("u2", {"country": "fr", "age": 2}, 6),
                  ("u1", {"country": "de", "age": 1}, 7), ("u2", {"country": "fr", "age": 3}, 8)]
    observed, executor = _same(lambda: _topology("count", False, False, "in_memory"), rows)
    assert observed["out"] == [("fr", 1, 5), ("fr", 2, 6), ("fr", 1, 7), ("de", 1, 7),
                               ("fr", 1, 8)]
    assert executor.chunks == 1
    assert executor.declined == 0


def test_a_selector_dropping_rows_runs_in_batch() -> None:
    """A selector's pair with a ``None`` key is not aggregated (neither added nor
    subtracted), in batch as record by record."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("users", ks.Consumed.with_(S, J), ks.Materialized.as_("users-store")
                .with_caching_disabled()).group_by(
            lambda k, v: (None if v["age"] % 3 == 0 else v["country"], v["age"]),
            ks.Grouped.with_(S, L)).count(ks.Materialized.as_("agg-store")
                                          .with_caching_disabled()) \
            .to_stream().to("out", ks.Produced.with_(S, L))
        return b.build()

    observed, executor = _same(topology, USERS)
    assert executor.chunks > 0
    assert executor.declined == 0
    expected: dict[str, int] = {}
    for value in _latest(USERS).values():
        expected.setdefault(value["country"], 0)
        expected[value["country"]] += value["age"] % 3 != 0
    assert {k: v for k, v in _last_out(observed).items() if v or k in expected} == expected


def test_two_record_caches_in_one_task_run_in_batch() -> None:
    """On one partition the table's store and the aggregate's are in one task, both cached:
    at each commit only one of them is dirty (the table's after an input row, the
    aggregate's after a repartition record), so each stage replays its own cache."""
    observed, executor = _same(lambda: _topology("count", True, True, "in_memory"), USERS)
    assert executor.chunks > 0
    assert executor.declined == 0
    assert _last_out(observed) == _expected("count", USERS)


def test_a_deleted_row_runs_in_batch() -> None:
    """A ``None`` value deletes a user (a tombstone in the table's store, its old row
    subtracted): in batch as record by record."""
    rows = [*USERS[:300], ("u3", None, 300), *USERS[300:]]
    observed, executor = _same(lambda: _topology("count", False, False, "persistent"), rows)
    assert executor.chunks == 2
    assert executor.declined == 0
    assert _last_out(observed) == _expected("count", rows)  # (u3 came back later)


def test_an_aggregate_becoming_none_runs_in_batch() -> None:
    """A reduce whose subtractor returns ``None`` deletes the group's row (its tombstone
    forwarded): in batch as record by record."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("users", ks.Consumed.with_(S, J), ks.Materialized.as_("users-store")
                .with_caching_disabled()).group_by(
            lambda k, v: (v["country"], v["age"]), ks.Grouped.with_(S, L)).reduce(
            lambda a, b: a + b, lambda a, b: None if a == b else a - b,
            ks.Materialized.as_("agg-store").with_caching_disabled()) \
            .to_stream().to("out", ks.Produced.with_(S, L))
        return b.build()

    rows: Rows = [("u1", {"country": "fr", "age": 4}, 1), ("u1", {"country": "de", "age": 4}, 2)]
    observed, executor = _same(topology, rows)
    assert executor.chunks == 1
    assert executor.declined == 0
    assert observed["out"] == [("fr", 4, 1), ("fr", None, 2), ("de", 4, 2)]
