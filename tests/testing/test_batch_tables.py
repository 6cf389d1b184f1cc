"""Table operators and stream-table joins in batch against the record path: every observable
equal, and the shapes run in batch (the executor's ``chunks`` grew) or keep the record path
where they must.

Table sources with their record cache on, off by ``Materialized`` or by
``statestore.cache.max.bytes`` 0, over in-memory and RocksDB stores, with null keys and
out-of-order updates (their warnings); ``to_table`` with table ``filter`` / ``map_values``
sending old values; stream-table and stream-globaltable inner and left joins, through a
filtered and mapped table's getters, reading through the table's record cache (its hits,
misses, read-backs and evictions replayed); a table written
and joined in one chain and a sink into a global table's topic keep the record path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import piped_observables

S, J = serdes.String(), serdes.Json()
Pipes = list[tuple[str, list[tuple[Any, Any, int]]]]


def _run(topology: Callable[[], ks.Topology], pipes: Pipes, bulk: bool,
         config: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
    """``piped_observables`` with the ``out`` topic read as Json."""
    return piped_observables(topology, pipes, bulk, config)


def _same(topology: Callable[[], ks.Topology], pipes: Pipes,
          config: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
    """The observables of the bulk run (equal to the record run's) and its executor."""
    bulk, executor = _run(topology, pipes, True, config)
    record, _ = _run(topology, pipes, False, config)
    assert bulk == record
    return bulk, executor


def _materialized(store: str, cache: bool) -> Any:
    mat = ks.Materialized.as_("customers").with_store_type(store)
    return mat if cache else mat.with_caching_disabled()


CUSTOMERS = [("c1", {"name": "ann", "tier": 1}, 0), ("c2", {"name": "bob", "tier": 2}, 10),
             ("c3", {"name": "cy", "tier": 1}, 20), ("c1", {"name": "ann", "tier": 3}, 30)]
ORDERS = [(f"c{i % 5}", {"id": i, "amount": 10 * i}, 100 + i) for i in range(12)]
CONFIGS = [("in_memory", True, None), ("persistent", True, None),
           ("in_memory", False, None), ("persistent", True, {"statestore.cache.max.bytes": 0})]


@pytest.mark.parametrize(("store", "cache", "config"), CONFIGS)
def test_a_table_source_runs_in_batch(store: str, cache: bool,
                                      config: dict[str, Any] | None) -> None:
    """``table(...).to_stream().to(...)``: every update forwarded (a cached store flushes
    each record's update at the commit after it), null keys skipped with their warnings."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("customers", ks.Consumed.with_(S, J), _materialized(store, cache)) \
            .to_stream().to("out", ks.Produced.with_(S, J))
        return b.build()

    pipes: Pipes = [("customers", [*CUSTOMERS[:2], (None, {"name": "x"}, 15), *CUSTOMERS[2:]])]
    observed, executor = _same(topology, pipes, config)
    assert executor.chunks == 1 and executor.declined == 0
    assert observed["out"] == [(k, v, ts) for k, v, ts in CUSTOMERS]
    assert [message for _, _, message in observed["warnings"]] == [
        "Skipping record due to null key. topic=[customers] partition=[0] offset=[2]"]


def test_an_out_of_order_table_update_warns_as_the_record_path() -> None:
    records = [("c1", {"n": 1}, 50), ("c2", {"n": 2}, 60), ("c1", {"n": 3}, 40),
               ("c2", {"n": 4}, 65), ("c1", {"n": 5}, 35)]

    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("customers", ks.Consumed.with_(S, J), _materialized("in_memory", False)) \
            .to_stream().to("out", ks.Produced.with_(S, J))
        return b.build()

    observed, executor = _same(topology, [("customers", records)])
    assert executor.chunks == 1
    assert [message for _, _, message in observed["warnings"]] == [
        "Detected out-of-order KTable update for customers, old timestamp=[50] new "
        "timestamp=[40]. topic=[customers] partition=[0] offset=[2].",
        "Detected out-of-order KTable update for customers, old timestamp=[40] new "
        "timestamp=[35]. topic=[customers] partition=[0] offset=[4]."]


def test_a_table_tombstone_runs_in_batch() -> None:
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        b.table("customers", ks.Consumed.with_(S, J), _materialized("in_memory", True)) \
            .to_stream().to("out", ks.Produced.with_(S, J))
        return b.build()

    observed, executor = _same(topology, [("customers", [*CUSTOMERS, ("c2", None, 40)])])
    assert executor.chunks == 1 and executor.declined == 0
    assert observed["out"][-1] == ("c2", None, 40)


@pytest.mark.parametrize(("store", "cache", "config"), CONFIGS)
def test_to_table_with_table_operators_runs_in_batch(store: str, cache: bool,
                                                     config: dict[str, Any] | None) -> None:
    """``to_table`` (materialized: it sends old values to the filter below it), a table
    ``filter`` that turns a row it no longer keeps into a tombstone, and ``map_values``."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        (b.stream("orders", ks.Consumed.with_(S, J))
         .to_table(_materialized(store, cache))
         .filter(lambda k, v: v["amount"] % 20 == 0)
         .map_values(lambda v: {"cents": v["amount"] * 100})
         .to_stream().to("out", ks.Produced.with_(S, J)))
        return b.build()

    observed, executor = _same(topology, [("orders", ORDERS)])
    assert executor.chunks == 1 and executor.declined == 0
    # c0..c4 first: kept if even; then each key's second order: kept, or dropped (a
    # tombstone when its first one was kept), or nothing at all (neither kept)
    assert observed["out"] == [
        ("c0", {"cents": 0}, 100), ("c2", {"cents": 2000}, 102), ("c4", {"cents": 4000}, 104),
        ("c0", None, 105), ("c1", {"cents": 6000}, 106), ("c2", None, 107),
        ("c3", {"cents": 8000}, 108), ("c4", None, 109), ("c0", {"cents": 10000}, 110),
        ("c1", None, 111)]


@pytest.mark.parametrize(("store", "cache", "config"), CONFIGS)
def test_a_materialized_table_operator_runs_in_batch(store: str, cache: bool,
                                                     config: dict[str, Any] | None) -> None:
    """A materialized ``map_values`` whose filter below asks it for old values (each key
    read before its put, through the record cache where there is one)."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        mapped = ks.Materialized.as_("mapped").with_store_type(store)
        (b.table("customers", ks.Consumed.with_(S, J))
         .map_values(lambda c: {"name": c["name"].upper(), "tier": c["tier"]},
                     mapped if cache else mapped.with_caching_disabled())
         .filter(lambda k, c: c["tier"] < 3)
         .to_stream().to("out", ks.Produced.with_(S, J)))
        return b.build()

    observed, executor = _same(topology, [("customers", CUSTOMERS)], config)
    assert executor.chunks == 1 and executor.declined == 0
    assert observed["out"] == [("c1", {"name": "ANN", "tier": 1}, 0),
                               ("c2", {"name": "BOB", "tier": 2}, 10),
                               ("c3", {"name": "CY", "tier": 1}, 20), ("c1", None, 30)]


@pytest.mark.parametrize("cache", [True, False])
def test_a_materialized_filter_runs_its_tombstones_in_batch(cache: bool) -> None:
    """A materialized ``filter``: a chunk runs in batch, a row that stops passing (a
    tombstone) too, unless a record cache is in front of the filter's store behind the
    table's (the table's cache flushes into it)."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        kept = ks.Materialized.as_("kept").with_store_type("in_memory")
        (b.table("customers", ks.Consumed.with_(S, J))
         .filter(lambda k, c: c["tier"] < 9, kept if cache else kept.with_caching_disabled())
         .to_stream().to("out", ks.Produced.with_(S, J)))
        return b.build()

    dropped = ("c2", {"name": "bob", "tier": 9}, 40)
    observed, executor = _same(topology, [("customers", CUSTOMERS), ("customers", [dropped])])
    assert (executor.chunks, executor.declined) == ((0, 2) if cache else (2, 0))
    assert observed["out"] == [*CUSTOMERS, ("c2", None, 40)]


def _joined(store: str, cache: bool, *, left: bool, table_ops: bool = False
            ) -> Callable[[], ks.Topology]:
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        customers = b.table("customers", ks.Consumed.with_(S, J), _materialized(store, cache))
        if table_ops:  # read through the getters: the filter's and mapper's calls per read
            customers = customers.filter(lambda k, c: c["tier"] < 3) \
                .map_values(lambda c: {"name": c["name"].upper()})
        orders = b.stream("orders", ks.Consumed.with_(S, J))
        join = orders.left_join if left else orders.join
        join(customers, lambda o, c: {**o, "name": None if c is None else c["name"]}) \
            .to("out", ks.Produced.with_(S, J))
        return b.build()

    return topology


@pytest.mark.parametrize(("store", "cache", "config"), CONFIGS)
@pytest.mark.parametrize("left", [False, True], ids=["inner", "left"])
def test_a_stream_table_join_runs_in_batch(store: str, cache: bool,
                                           config: dict[str, Any] | None, left: bool) -> None:
    """The table piped first, then the orders: each distinct customer read once, through
    the record cache where there is one (its counters, LRU order and read-back entries as the
    record path's gets leave them: the observables compare them)."""
    orders = [*ORDERS, (None, {"id": 99, "amount": 1}, 120)]
    observed, executor = _same(_joined(store, cache, left=left),
                               [("customers", CUSTOMERS), ("orders", orders)], config)
    assert executor.chunks == 2 and executor.declined == 0
    names = {"c1": "ann", "c2": "bob", "c3": "cy"}
    expected = [(k, {**v, "name": names.get(k)}, ts) for k, v, ts in ORDERS
                if left or k in names]
    if left:  # a left join's record without a key joins nothing
        expected.append((None, {"id": 99, "amount": 1, "name": None}, 120))
    assert observed["out"] == expected


@pytest.mark.parametrize("left", [False, True], ids=["inner", "left"])
def test_a_join_reads_the_table_through_its_filter_and_mapper(left: bool) -> None:
    observed, executor = _same(_joined("in_memory", True, left=left, table_ops=True),
                               [("customers", CUSTOMERS), ("orders", ORDERS[:6])])
    assert executor.chunks == 2
    # c1 is tier 3 by now: filtered out of the table
    assert [v["name"] for _, v, _ in observed["out"]] == (
        [None, None, "BOB", "CY", None, None] if left else ["BOB", "CY"])


def test_a_join_whose_read_backs_fill_the_cache_runs_in_batch() -> None:
    """A record cache holding a few of ten customers: the table's chunk evicts clean
    entries, and the join's misses read the others back, evicting (a key evicted before a
    later lookup read back again, a new clean entry), both in batch
    (``kslab.state.held_evictions``; the evictions are among the observables compared)."""
    customers = [(f"c{i}", {"name": f"n{i}", "tier": i}, i) for i in range(10)]
    orders = [(f"c{i % 10}", {"id": i, "amount": i}, 100 + i) for i in range(20)]
    config = {"statestore.cache.max.bytes": 400}
    observed, executor = _same(_joined("in_memory", True, left=False),
                               [("customers", customers), ("orders", orders)], config)
    assert executor.chunks == 2 and executor.declined == 0
    assert observed["tasks"]["0_0"]["stores"]["customers"]["thread_cache"][2] == 25  # evicts
    assert [(k, v["name"]) for k, v, _ in observed["out"]] == [
        (f"c{i % 10}", f"n{i % 10}") for i in range(20)]


@pytest.mark.parametrize("left", [False, True], ids=["inner", "left"])
def test_a_stream_globaltable_join_runs_in_batch(left: bool) -> None:
    """The key selector is called twice per record, as the record path calls it (once to
    check the record, once to join it): the calls are counted."""
    calls: dict[bool, list[Any]] = {True: [], False: []}

    def topology(bulk: bool) -> Callable[[], ks.Topology]:
        def build() -> ks.Topology:
            def select(key: Any, order: dict[str, Any]) -> Any:
                calls[bulk].append(order["id"])
                return None if order["id"] == 3 else f"c{order['id'] % 4}"

            b = ks.StreamsBuilder()
            customers = b.global_table("customers", ks.Consumed.with_(S, J))
            orders = b.stream("orders", ks.Consumed.with_(S, J))
            join = orders.left_join if left else orders.join
            join(customers, select, lambda o, c: {"id": o["id"], "name": c and c["name"]}) \
                .to("out", ks.Produced.with_(S, J))
            return b.build()

        return build

    pipes: Pipes = [("customers", CUSTOMERS), ("orders", ORDERS[:8])]
    bulk, executor = _run(topology(True), pipes, True)
    record, _ = _run(topology(False), pipes, False)
    assert bulk == record
    assert executor.chunks == 1  # the orders (the global table is piped record by record)
    assert calls[True] == calls[False] == [0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 5, 6, 6, 7, 7]
    expected = [(0, None), (1, "ann"), (2, "bob"), (4, None), (5, "ann"), (6, "bob"),
                (7, "cy")]
    assert [(v["id"], v["name"]) for _, v, _ in bulk["out"]] == [
        (i, name) for i, name in expected if left or name is not None]
    assert len(bulk["warnings"]) == 1  # order 3: no join key


def test_a_table_joined_in_the_chain_that_writes_it_keeps_the_record_path() -> None:
    """``t.to_stream().join(t)``: each record reads what the records before it wrote."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        table = b.stream("orders", ks.Consumed.with_(S, J)).to_table(
            _materialized("in_memory", True))
        table.to_stream().join(table, lambda o, t: {"seen": t["id"]}) \
            .to("out", ks.Produced.with_(S, J))
        return b.build()

    observed, executor = _same(topology, [("orders", ORDERS[:7])])
    assert executor.chunks == 0
    assert [v["seen"] for _, v, _ in observed["out"]] == list(range(7))


def test_a_sink_into_a_global_tables_topic_keeps_the_record_path() -> None:
    """Orders written to the global table's topic go record by record (the global task reads
    each back at once); the lookups joining the global table run in batch."""
    def topology() -> ks.Topology:
        b = ks.StreamsBuilder()
        customers = b.global_table("customers", ks.Consumed.with_(S, J))
        b.stream("orders", ks.Consumed.with_(S, J)).to("customers", ks.Produced.with_(S, J))
        b.stream("lookups", ks.Consumed.with_(S, J)) \
            .join(customers, lambda k, v: k, lambda v, c: c).to("out", ks.Produced.with_(S, J))
        return b.build()

    lookups = [("c1", {"x": 1}, 200), ("c7", {"x": 2}, 201)]
    observed, executor = _same(topology, [("orders", ORDERS[:3]), ("lookups", lookups)])
    assert executor.chunks == 1 and executor.declined == 1
    assert observed["out"] == [("c1", {"id": 1, "amount": 10}, 200)]


def test_the_join_and_table_warnings_are_logged_in_record_order(
        caplog: pytest.LogCaptureFixture) -> None:
    """Null keys of the table and null values of the orders, in one run each."""
    caplog.set_level(logging.WARNING)
    orders = [("c1", {"id": 1, "amount": 5}, 100), ("c2", None, 101),
              ("c1", {"id": 2, "amount": 5}, 102)]
    observed, executor = _same(_joined("in_memory", True, left=False),
                               [("customers", CUSTOMERS), ("orders", orders)])
    assert executor.chunks == 2
    assert [message for _, _, message in observed["warnings"]] == [
        "Skipping record due to null join key or value. topic=[orders] partition=[0] "
        "offset=[1]"]
