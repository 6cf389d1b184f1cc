"""KTable change records as Kafka's own tests see them: old values, joins, table aggregations.

A capture processor hung under a table's node (``topology.add_processor(..., table.name)``) sees
the ``Change(new, old)`` records the table forwards, as Kafka's MockApiProcessorSupplier does.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import Change

S, INT = serdes.String(), serdes.Integer()
NO_CACHE = {"statestore.cache.max.bytes": 0}


class Capture(ks.Processor):
    """Records what reaches it as (key, value, timestamp)."""

    seen: list = []

    def process(self, record):
        Capture.seen.append((record.key, record.value, record.timestamp))


@pytest.fixture(autouse=True)
def _clear_capture():
    Capture.seen = []


def drain() -> list:
    seen, Capture.seen = Capture.seen, []
    return seen


FILTER_INPUT = [("A", 1, 5), ("B", 1, 10), ("C", 1, 15), ("A", 2, 15), ("B", 2, 8), ("A", 3, 20),
                ("A", None, 10), ("B", None, 20)]


def run_filter(force: bool, materialized: str | None = None) -> tuple[list, list, bool]:
    def filtered_table() -> tuple[ks.StreamsBuilder, ks.KTable, ks.KTable]:
        b = ks.StreamsBuilder()
        t1 = b.table("topic1", ks.Consumed.with_(S, INT))
        t2 = t1.filter(lambda k, v: v % 2 == 0, materialized=materialized)
        t2.enable_sending_old_values(force)
        return b, t1, t2

    # one builder per capture: build() returns the builder's one topology, as Java's
    b, t1, _ = filtered_table()
    topology = b.build()
    topology.add_processor("proc1", lambda: Capture(), t1.name)
    parent = []
    with ks.TopologyTestDriver(topology, NO_CACHE) as driver:
        inp = driver.create_input_topic("topic1", S, INT)
        for key, value, ts in FILTER_INPUT:
            inp.pipe_input(key, value, ts)
        parent = drain()
    b2, _, t2 = filtered_table()
    topology2 = b2.build()
    topology2.add_processor("proc2", lambda: Capture(), t2.name)
    with ks.TopologyTestDriver(topology2, NO_CACHE) as driver:
        inp = driver.create_input_topic("topic1", S, INT)
        for key, value, ts in FILTER_INPUT:
            inp.pipe_input(key, value, ts)
    return parent, drain(), t1.sending_old_value_enabled()


def test_filter_forced_to_send_old_values_materializes_its_source():
    # KTableFilterTest.shouldEnableSendOldValuesWhenNotMaterializedAlreadyButForcedToMaterialize
    parent, filtered, parent_sends = run_filter(force=True)
    assert parent_sends
    assert parent == [
        ("A", Change(1, None), 5), ("B", Change(1, None), 10), ("C", Change(1, None), 15),
        ("A", Change(2, 1), 15), ("B", Change(2, 1), 8), ("A", Change(3, 2), 20),
        ("A", Change(None, 3), 10), ("B", Change(None, 2), 20)]
    assert filtered == [
        ("A", Change(2, None), 15), ("B", Change(2, None), 8), ("A", Change(None, 2), 20),
        ("B", Change(None, 2), 20)]


def test_filter_without_old_values_forwards_null_changes():
    # KTableFilterTest.shouldNotEnableSendingOldValuesIfNotAlreadyMaterialized...
    # ...AndNotForcedToMaterialize
    _, filtered, parent_sends = run_filter(force=False)
    assert not parent_sends
    assert filtered[:3] == [("A", Change(None, None), 5), ("B", Change(None, None), 10),
                            ("C", Change(None, None), 15)]
    assert filtered[5] == ("A", Change(None, None), 20)


def test_table_table_left_join_sends_old_values():
    # KTableKTableLeftJoinTest.testSendingOldValue (with the default record cache)
    def joiner(a, c):
        return f"{a}+{'null' if c is None else c}"

    b = ks.StreamsBuilder()
    t1, t2 = b.table("t1", ks.Consumed.with_(INT, S)), b.table("t2", ks.Consumed.with_(INT, S))
    joined = t1.left_join(t2, joiner)
    joined.enable_sending_old_values(True)
    assert (t1.sending_old_value_enabled(), t2.sending_old_value_enabled()) == (True, True)
    topology = b.build()
    topology.add_processor("proc", lambda: Capture(), joined.name)
    with ks.TopologyTestDriver(topology) as driver:
        one, two = driver.create_input_topic("t1", INT, S), driver.create_input_topic("t2", INT, S)
        one.pipe_input(0, "X0", 5)
        one.pipe_input(1, "X1", 6)
        one.pipe_input(None, "SomeVal", 42)
        assert drain() == [(0, Change("X0+null", None), 5), (1, Change("X1+null", None), 6)]
        two.pipe_input(0, "Y0", 0)
        two.pipe_input(1, "Y1", 10)
        assert drain() == [(0, Change("X0+Y0", "X0+null"), 5),
                           (1, Change("X1+Y1", "X1+null"), 10)]
        two.pipe_input(0, None, 5)
        assert drain() == [(0, Change("X0+null", "X0+Y0"), 5)]
        one.pipe_input(1, None, 42)
        assert drain() == [(1, Change(None, "X1+Y1"), 42)]


def table_aggregate(selector, adder, subtractor, initializer, inputs):
    b = ks.StreamsBuilder()
    (b.table("t", ks.Consumed.with_(S, S)).group_by(selector, ks.Grouped.with_(S, S))
     .aggregate(initializer, adder, subtractor,
                materialized=ks.Materialized.as_("agg").with_value_serde(S))
     .to_stream().process(Capture))
    with ks.TopologyTestDriver(b.build()) as driver:
        inp = driver.create_input_topic("t", S, S)
        for key, value, ts in inputs:
            inp.pipe_input(key, value, ts)
    return drain()


def add(key, value, aggregate):
    return f"{aggregate}+{value}"


def remove(key, value, aggregate):
    return f"{aggregate}-{value}"


def test_table_aggregate_repartition_with_null_groups():
    # KTableAggregateTest.testAggRepartition: a (None, v) or None pair is neither added nor removed
    def selector(key, value):
        if key == "null":
            return (None, value)
        if key == "NULL":
            return None
        return (value, value)

    inputs = [("A", "1", 10), ("A", None, 15), ("A", "1", 12), ("B", "2", 20), ("null", "3", 25),
              ("B", "4", 23), ("NULL", "5", 24), ("B", "7", 22)]
    assert table_aggregate(selector, add, remove, lambda: "0", inputs) == [
        ("1", "0+1", 10), ("1", "0+1-1", 15), ("1", "0+1-1+1", 15), ("2", "0+2", 20),
        ("2", "0+2-2", 23), ("4", "0+4", 23), ("4", "0+4-4", 23), ("7", "0+7", 22)]


def test_table_aggregate_removes_old_before_adding_new():
    # KTableAggregateTest.testRemoveOldBeforeAddNew
    inputs = [("11", "A", 10), ("12", "B", 8), ("11", None, 12), ("12", "C", 6)]
    assert table_aggregate(lambda k, v: (k[0], k[1]), lambda k, v, a: a + v,
                           lambda k, v, a: a.replace(v, ""), lambda: "", inputs) == [
        ("1", "1", 10), ("1", "12", 10), ("1", "2", 12), ("1", "2", 12)]


@pytest.mark.parametrize(("upgrade_from", "expected"), [
    (None, [("1", 1, 8), ("1", 1, 9)]),
    ("3.3", [("1", 1, 8), ("1", 0, 9), ("1", 1, 9)]),
])
def test_same_group_update_is_one_change_unless_upgrading(upgrade_from, expected):
    # KTableAggregateTest.testShouldNotSendTransientStateIfNotUpgrading / ...WhenUpgrading
    b = ks.StreamsBuilder()
    (b.table("in", ks.Consumed.with_(S, S)).group_by(lambda k, v: (k, v), ks.Grouped.with_(S, S))
     .count().to_stream().to("out", ks.Produced.with_(S, serdes.Long())))
    config = {"upgrade.from": upgrade_from} if upgrade_from else None
    with ks.TopologyTestDriver(b.build(), config) as driver:
        inp = driver.create_input_topic("in", S, S)
        inp.pipe_input("1", "", 8)
        inp.pipe_input("1", "", 9)
        out = driver.create_output_topic("out", S, serdes.Long()).read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in out] == expected
