"""User functions that change their aggregate or value in place, on the batch path.

Python users write aggregators as ``agg["n"] += 1; return agg``. The record path reads a key's
value from its store once per record, after the record before was written; a batch run reads
it once and folds the run over it, so each aggregate a user function gets must be an object of
its own (``kslab.state.fresh``), and each old value a table forwards a copy of what the store
held, not the object an earlier update forwarded. Each program runs with the batch path on
and off and must give the exact outputs below; ``bulk_stats`` says the chunks ran in batch.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from kslab.state.fresh import fresh_value

S, J, L = serdes.String(), serdes.Json(), serdes.Long()
CACHES = {"cache on": {}, "cache off": {"statestore.cache.max.bytes": 0}}


def _add(key: Any, value: Any, agg: dict[str, int]) -> dict[str, int]:
    agg["n"] += 1
    agg["sum"] += value["amount"]
    return agg


def _drive(build: Any, config: dict[str, Any], pipes: list[tuple[str, list[Any]]],
           out: str, value_serde: Any, partitions: dict[str, int] | None = None
           ) -> tuple[list[Any], dict[str, int]]:
    """Run ``build(builder)``'s topology over ``pipes`` (topic, records); the outputs of
    ``out`` as ``(key, value)`` and the driver's bulk counters."""
    builder = ks.StreamsBuilder()
    build(builder)
    with ks.TopologyTestDriver(builder.build(), config, partitions=partitions) as driver:
        for topic, records in pipes:
            driver.create_input_topic(topic, S, J).pipe_record_list(records)
        got = [(r.key, r.value) for r in driver.create_output_topic(
            out, S, value_serde).read_key_values_to_list()]
        return got, driver.bulk_stats()


def _both(build: Any, config: dict[str, Any], pipes: list[tuple[str, list[Any]]], out: str,
          value_serde: Any, partitions: dict[str, int] | None = None) -> list[Any]:
    """The outputs on the batch path, checked equal to the record path's and run in batch."""
    batch, stats = _drive(build, config, pipes, out, value_serde, partitions)
    record, _ = _drive(build, {**config, "kslab.driver.bulk": False}, pipes, out, value_serde,
                       partitions)
    assert stats["chunks"] >= 1
    assert batch == record
    return batch


ORDERS = [ks.TestRecord(key, {"amount": amount}, 10 * i)
          for i, (key, amount) in enumerate([("a", 1), ("a", 2), ("b", 10), ("a", 3),
                                             ("b", 20), ("a", 4)])]


@pytest.mark.parametrize("cache", sorted(CACHES))
@pytest.mark.parametrize("partitions", [None, {"in": 2}])
def test_an_aggregator_changing_its_aggregate_in_place_gives_every_update(cache, partitions):
    def build(b: ks.StreamsBuilder) -> None:
        (b.stream("in", ks.Consumed.with_(S, J)).group_by_key()
         .aggregate(lambda: {"n": 0, "sum": 0}, _add, ks.Materialized.with_(S, J))
         .to_stream().to("out", ks.Produced.with_(S, J)))

    got = _both(build, CACHES[cache], [("in", ORDERS)], "out", J, partitions)
    assert sorted(got, key=lambda kv: (kv[0], kv[1]["n"])) == [
        ("a", {"n": 1, "sum": 1}), ("a", {"n": 2, "sum": 3}), ("a", {"n": 3, "sum": 6}),
        ("a", {"n": 4, "sum": 10}), ("b", {"n": 1, "sum": 10}), ("b", {"n": 2, "sum": 30})]


@pytest.mark.parametrize("cache", sorted(CACHES))
def test_a_reducer_changing_its_aggregate_in_place_gives_every_update(cache):
    def reduce_in_place(agg: dict[str, int], value: dict[str, int]) -> dict[str, int]:
        agg["amount"] += value["amount"]
        return agg

    def build(b: ks.StreamsBuilder) -> None:
        (b.stream("in", ks.Consumed.with_(S, J)).group_by_key()
         .reduce(reduce_in_place, ks.Materialized.with_(S, J))
         .to_stream().to("out", ks.Produced.with_(S, J)))

    got = _both(build, CACHES[cache], [("in", ORDERS)], "out", J)
    assert got == [("a", {"amount": 1}), ("a", {"amount": 3}), ("b", {"amount": 10}),
                   ("a", {"amount": 6}), ("b", {"amount": 30}), ("a", {"amount": 10})]


@pytest.mark.parametrize("cache", sorted(CACHES))
def test_a_windowed_aggregator_changing_its_aggregate_in_place_gives_every_update(cache):
    def build(b: ks.StreamsBuilder) -> None:
        (b.stream("in", ks.Consumed.with_(S, J)).group_by_key()
         .windowed_by(ks.TimeWindows.of_size_with_no_grace(dt.timedelta(milliseconds=30)))
         .aggregate(lambda: {"n": 0, "sum": 0}, _add, ks.Materialized.with_(S, J))
         .to_stream().map(lambda wk, v: (f"{wk.key}@{wk.window.start}", v))
         .to("out", ks.Produced.with_(S, J)))

    got = _both(build, CACHES[cache], [("in", ORDERS)], "out", J)
    assert got == [("a@0", {"n": 1, "sum": 1}), ("a@0", {"n": 2, "sum": 3}),
                   ("b@0", {"n": 1, "sum": 10}), ("a@30", {"n": 1, "sum": 3}),
                   ("b@30", {"n": 1, "sum": 20}), ("a@30", {"n": 2, "sum": 7})]


@pytest.mark.parametrize("cache", sorted(CACHES))
def test_a_table_aggregate_changing_its_aggregate_in_place_gives_every_update(cache):
    def adder(key: Any, value: dict[str, int], agg: dict[str, int]) -> dict[str, int]:
        agg["sum"] += value["amount"]
        return agg

    def subtractor(key: Any, value: dict[str, int], agg: dict[str, int]) -> dict[str, int]:
        agg["sum"] -= value["amount"]
        return agg

    def build(b: ks.StreamsBuilder) -> None:
        (b.table("in", ks.Consumed.with_(S, J))
         .group_by(lambda k, v: ("all", v), ks.Grouped.with_(S, J))
         .aggregate(lambda: {"sum": 0}, adder, subtractor, ks.Materialized.with_(S, J))
         .to_stream().to("out", ks.Produced.with_(S, J)))

    got = _both(build, CACHES[cache], [("in", ORDERS)], "out", J)
    # a row replaced under the same group key: its old amount subtracted and the new one
    # added in one update (one repartition record carries both)
    assert [value["sum"] for _, value in got] == [1, 2, 12, 13, 23, 24]


@pytest.mark.parametrize("cache", sorted(CACHES))
def test_a_table_value_changed_in_place_downstream_leaves_the_old_values_as_stored(cache):
    """(Found by the property test: a table source's old value was the object its earlier
    update forwarded, which a ``map_values`` downstream had changed in place.)"""
    def grow(value: dict[str, Any]) -> dict[str, Any]:
        value["n"] += 1
        return value

    def build(b: ks.StreamsBuilder) -> None:
        (b.stream("in", ks.Consumed.with_(S, J))
         .flat_map_values(lambda k, v: [{"n": v["n"], "s": k}, {"n": 1, "s": v["s"]}],
                          with_key=True)
         .to_table(ks.Materialized.with_(S, J))
         .map_values(grow)
         .group_by(lambda k, v: (f"k{v['n'] % 2}", v["s"]), ks.Grouped.with_(S, S))
         .count()
         .to_stream().to("out", ks.Produced.with_(S, L)))

    records = [ks.TestRecord("k0", {"n": 0, "s": "a"}, 0),
               ks.TestRecord("k0", {"n": 0, "s": "a"}, 10)]
    got = _both(build, CACHES[cache], [("in", records)], "out", L)
    if cache == "cache off":  # every update: k1 for {"n": 0} grown, k0 for {"n": 1} grown
        assert got == [("k1", 1), ("k1", 0), ("k0", 1), ("k0", 0), ("k1", 1), ("k1", 0),
                       ("k0", 1)]
    else:  # the commit after each record flushes the table's last value of it: {"n": 1}
        # grown, then that again replacing itself (one update under one group key)
        assert got == [("k0", 1), ("k0", 1)]


def test_fresh_value_copies_what_a_function_could_change():
    flat = {"n": 1, "s": "a", "f": 1.5, "b": None}
    nested = {"n": 1, "inner": {"l": [1, [2]]}}
    text, number, pair = "word", 12, ("a", 1)
    assert fresh_value(text) is text and fresh_value(number) is number
    assert fresh_value(pair) is pair  # (a tuple of immutable items is immutable)
    copied = fresh_value(flat)
    assert copied == flat and copied is not flat
    deep = fresh_value(nested)
    assert deep == nested and deep["inner"] is not nested["inner"]
    assert deep["inner"]["l"][1] is not nested["inner"]["l"][1]

    class Point:
        def __init__(self, x: int) -> None:
            self.x = x

    point = Point(3)
    other = fresh_value(point)
    assert other is not point and other.x == 3


def _count_orders(order: dict[str, Any], customer: dict[str, Any]) -> dict[str, Any]:
    customer["orders"] = customer.get("orders", 0) + 1  # (changes the table's value)
    return {"id": order["id"], "orders": customer["orders"]}


@pytest.mark.parametrize("cache", sorted(CACHES))
@pytest.mark.parametrize("table", ["table", "global table"])
def test_a_joiner_changing_the_tables_value_in_place_changes_no_other_records(cache, table):
    """Each join reads the table's value as Kafka's get decodes it: a joiner that changes it
    in place changes neither the next record's read nor what the table holds."""
    def build(b: ks.StreamsBuilder) -> None:
        orders = b.stream("in", ks.Consumed.with_(S, J))
        if table == "table":
            joined = orders.join(b.table("customers", ks.Consumed.with_(S, J)), _count_orders)
        else:
            joined = orders.join(b.global_table("customers", ks.Consumed.with_(S, J)),
                                 lambda key, order: key, _count_orders)
        joined.to("out", ks.Produced.with_(S, J))

    customers = [ks.TestRecord("c1", {"name": "Ada"}, 0)]
    orders = [ks.TestRecord("c1", {"id": i}, 10 + i) for i in range(4)]
    got = _both(build, CACHES[cache], [("customers", customers), ("in", orders)], "out", J)
    assert got == [("c1", {"id": i, "orders": 1}) for i in range(4)]


@pytest.mark.parametrize("cache", sorted(CACHES))
def test_a_joined_tables_value_changed_in_place_downstream_stays_as_stored(cache):
    def grow(value: dict[str, Any]) -> dict[str, Any]:
        value["n"] = value.get("n", 0) + 1
        return value

    def build(b: ks.StreamsBuilder) -> None:
        (b.stream("in", ks.Consumed.with_(S, J))
         .join(b.table("customers", ks.Consumed.with_(S, J)), lambda order, customer: customer)
         .map_values(grow)
         .to("out", ks.Produced.with_(S, J)))

    customers = [ks.TestRecord("c1", {"name": "Ada"}, 0)]
    orders = [ks.TestRecord("c1", {"id": i}, 10 + i) for i in range(3)]
    got = _both(build, CACHES[cache], [("customers", customers), ("in", orders)], "out", J)
    assert got == [("c1", {"name": "Ada", "n": 1})] * 3


def test_a_stream_joiner_changing_its_partner_in_place_changes_no_other_records():
    """Each record's partners are read from the other side's window store as Kafka's fetch
    decodes them; within one record's joins its own value is one object (as in Kafka)."""
    def joiner(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
        left["hits"] = left.get("hits", 0) + 1
        right["hits"] = right.get("hits", 0) + 1
        return {"l": left["id"], "r": right["id"], "lh": left["hits"], "rh": right["hits"]}

    def build(b: ks.StreamsBuilder) -> None:
        (b.stream("l", ks.Consumed.with_(S, J))
         .join(b.stream("r", ks.Consumed.with_(S, J)), joiner,
               ks.JoinWindows.of_time_difference_with_no_grace(dt.timedelta(seconds=10)))
         .to("out", ks.Produced.with_(S, J)))

    rights = [ks.TestRecord("k", {"id": f"r{i}"}, i) for i in range(3)]
    lefts = [ks.TestRecord("k", {"id": f"l{i}"}, 5 + i) for i in range(3)]
    later = [ks.TestRecord("k", {"id": f"r{i}"}, 10 + i) for i in range(3, 5)]
    got = _both(build, {}, [("r", rights), ("l", lefts), ("r", later)], "out", J)
    assert got == (
        [("k", {"l": f"l{i}", "r": f"r{j}", "lh": j + 1, "rh": 1})  # each left record's
         for i in range(3) for j in range(3)]  # own value, its partners decoded afresh
        + [("k", {"l": f"l{i}", "r": f"r{j}", "lh": 1, "rh": i + 1})
           for j in (3, 4) for i in range(3)])


@pytest.mark.parametrize("windowed", [False, True])
def test_an_aggregate_changed_in_place_downstream_stays_as_the_cache_holds_it(windowed):
    """A record cache's flush forwards a copy of the aggregate it keeps: a ``map_values``
    changing the forwarded one in place changes neither the next update nor the store."""
    def mark(total: dict[str, int]) -> dict[str, int]:
        total["sum"] *= 100  # (in place)
        return total

    def build(b: ks.StreamsBuilder) -> None:
        grouped = b.stream("in", ks.Consumed.with_(S, J)).group_by_key()
        if windowed:
            grouped = grouped.windowed_by(
                ks.TimeWindows.of_size_with_no_grace(dt.timedelta(seconds=60)))
        table = grouped.aggregate(lambda: {"n": 0, "sum": 0}, _add,
                                  ks.Materialized.as_("totals").with_value_serde(J))
        stream = table.to_stream()
        if windowed:
            stream = stream.map(lambda wk, v: (wk.key, v))
        stream.map_values(mark).to("out", ks.Produced.with_(S, J))

    got = _both(build, {}, [("in", ORDERS)], "out", J)
    assert got == [("a", {"n": 1, "sum": 100}), ("a", {"n": 2, "sum": 300}),
                   ("b", {"n": 1, "sum": 1000}), ("a", {"n": 3, "sum": 600}),
                   ("b", {"n": 2, "sum": 3000}), ("a", {"n": 4, "sum": 1000})]


@pytest.mark.parametrize("partitions", [None, {"in": 2}])
def test_a_peek_sees_each_value_before_a_function_downstream_changes_it(partitions):
    """A held action (peek, foreach, print) is called in phase two with the values as they
    were when its record reached it, as the record path calls it before the record goes on
    (found by the property test). The piped records share one value object, as a test piping
    one dict several times does; each record's is its own once read."""
    seen: list[tuple[str, dict[str, int]]] = []

    def grow(value: dict[str, int]) -> dict[str, int]:
        value["amount"] += 1000  # (in place)
        return value

    def build(b: ks.StreamsBuilder) -> None:
        seen.clear()
        (b.stream("in", ks.Consumed.with_(S, J))
         .peek(lambda key, value: seen.append((key, dict(value))))
         .filter(lambda key, value: value["amount"] > 0)
         .map_values(grow).to("out", ks.Produced.with_(S, J)))

    shared = {"amount": 1}
    records = [ks.TestRecord("a", shared, 10 * i) for i in range(4)]
    calls, chunks = [], []
    for config in ({}, {"kslab.driver.bulk": False}):  # the batch path, then the record path
        got, stats = _drive(build, config, [("in", records)], "out", J, partitions)
        assert got == [("a", {"amount": 1001})] * 4
        calls.append(list(seen))
        chunks.append(stats["chunks"])
    assert chunks == [1, 0] and calls[0] == calls[1] == [("a", {"amount": 1})] * 4
