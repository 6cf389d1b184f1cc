"""Windowed stream-stream joins on the driver's batch path (issue 19): ``WindowPut``,
``JoinSide`` (inner, left, outer) and ``PassThrough`` batch forms against the record path.

Each test pipes one side's records before the other's, so the chunk of the second side joins
against a store its run does not write; the outputs are given exactly, and every observable
(outputs, changelogs, store bytes, clocks, metrics, warnings) must equal the record path's
(``{"kslab.driver.bulk": False}``). The properties draw bulk-shaped programs with a
stream-stream join (``dsl_grammar`` shape ``sjoin``) on one and on several partitions.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import captured_warnings, state
from tests.testing.test_batch_differential import EXAMPLES, SETTINGS, Case, cases, check

S = serdes.String()
Row = tuple[Any, Any, int]

RIGHT = [("a", "r1", 0), ("b", "r2", 50)]
LEFT = [("a", "l1", 10), ("c", "l2", 20), ("b", "l3", 160), (None, "l4", 170),
        ("a", None, 180), ("a", "l5", 400)]
LATE = [("b", "r3", 200), ("a", "r4", 5), ("c", "r5", 390)]  # r4: its partner l1 expired
# the outer join of RIGHT, LEFT, then LATE: l2, r2 and l3 emitted null-padded when l5 moves
# stream time past their windows and grace; r4 at once (its window already closed); r5 parked
OUTER = [("a", "l1+r1", 10), (None, "l4+None", 170), ("c", "l2+None", 20),
         ("b", "None+r2", 50), ("b", "l3+None", 160), ("b", "l3+r3", 200),
         ("a", "None+r4", 5)]


def topology(kind: str, store: str | None = None, logging: bool = True,
             self_join: bool = False, suppliers: str | None = None) -> ks.Topology:
    """``L.<kind>(R, "l+r", JoinWindows(100 ms, grace 50 ms))`` to topic ``out``
    (``suppliers``: the window stores from the user's ``in_memory`` or ``persistent``
    suppliers)."""
    b = ks.StreamsBuilder()
    left = b.stream("L", ks.Consumed.with_(S, S))
    right = left.map_values(str.upper) if self_join else b.stream("R", ks.Consumed.with_(S, S))
    joined = ks.StreamJoined.with_(S, S, S)
    if store is not None:
        joined = joined.with_dsl_store_suppliers(store)
    if not logging:
        joined = joined.with_logging_disabled()
    if suppliers is not None:
        make = getattr(ks.Stores, f"{suppliers}_window_store")
        joined = (joined.with_this_store_supplier(make("this-side", 250, 200, True))
                  .with_other_store_supplier(make("other-side", 250, 200, True)))
    windows = ks.JoinWindows.of_time_difference_and_grace(100, 50)
    getattr(left, kind)(right, lambda a, c: f"{a}+{c}", windows, joined).to(
        "out", ks.Produced.with_(S, S))
    return b.build()


def run(topo: ks.Topology, bulk: bool, pipes: list[tuple[str, list[Row]]],
        partitions: int | None = None) -> tuple[list[tuple[Any, Any, int]], dict[str, Any],
                                                 list[Any], int]:
    """The outputs, every observable, the warnings and the chunks run in batch."""
    with captured_warnings() as warnings:
        driver = ks.TopologyTestDriver(topo, {"kslab.driver.bulk": bulk}, partitions=None
                                       if partitions is None else {"L": partitions,
                                                                   "R": partitions})
        for topic, rows in pipes:
            driver.create_input_topic(topic, S, S).pipe_record_list(
                [ks.TestRecord(k, v, ts) for k, v, ts in rows])
        out = [(r.key, r.value, r.timestamp) for r in
               driver.create_output_topic("out", S, S).read_records_to_list()]
        observed = state(driver)
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        executor = driver._bulk or driver._partitioned
        chunks = executor.chunks if executor is not None else 0
        driver.close()
    return out, observed, list(warnings), chunks


def both(topo_args: dict[str, Any], pipes: list[tuple[str, list[Row]]],
         partitions: int | None = None) -> tuple[list[tuple[Any, Any, int]], list[Any]]:
    """Run on the batch path and on the record path: the same observables; the outputs and
    warnings (the batch path ran every chunk in batch)."""
    out, observed, warnings, chunks = run(topology(**topo_args), True, pipes, partitions)
    out2, observed2, warnings2, _ = run(topology(**topo_args), False, pipes, partitions)
    assert out == out2
    assert warnings == warnings2
    assert observed == observed2
    assert chunks == len(pipes)
    return out, warnings


SKIP = "Skipping record due to null key or value. topic=[L] partition=[0] offset=[{}]"
SKIPS = [SKIP.format(4)]  # a left or outer join joins a keyless record (offset 3)


@pytest.mark.parametrize("store", [None, "in_memory", "rocks_db"])
@pytest.mark.parametrize("logging", [True, False])
def test_inner_join(store: str | None, logging: bool) -> None:
    out, warnings = both({"kind": "join", "store": store, "logging": logging},
                         [("R", RIGHT), ("L", LEFT), ("R", LATE)])
    assert out == [("a", "l1+r1", 10), ("b", "l3+r3", 200)]
    assert [m for _, _, m in warnings] == [SKIP.format(3), SKIP.format(4)]


@pytest.mark.parametrize("store", [None, "in_memory"])
def test_left_join_parks_unmatched_records_until_grace_passes(store: str | None) -> None:
    out, warnings = both({"kind": "left_join", "store": store},
                         [("R", RIGHT), ("L", LEFT), ("R", LATE)])
    assert out == [("a", "l1+r1", 10), (None, "l4+None", 170), ("c", "l2+None", 20),
                   ("b", "l3+None", 160), ("b", "l3+r3", 200)]
    assert [m for _, _, m in warnings] == SKIPS


@pytest.mark.parametrize("store", [None, "in_memory"])
@pytest.mark.parametrize("logging", [True, False])
def test_outer_join_emits_both_sides_null_padded(store: str | None, logging: bool) -> None:
    out, _ = both({"kind": "outer_join", "store": store, "logging": logging},
                  [("R", RIGHT), ("L", LEFT), ("R", LATE)])
    assert out == OUTER


def test_outer_join_exact_outputs() -> None:
    out, _ = both({"kind": "outer_join"}, [("R", RIGHT), ("L", LEFT)])
    assert out == [("a", "l1+r1", 10), (None, "l4+None", 170), ("c", "l2+None", 20),
                   ("b", "None+r2", 50), ("b", "l3+None", 160)]


@pytest.mark.parametrize("suppliers", ["in_memory", "persistent"])
def test_outer_join_over_the_users_store_suppliers(suppliers: str) -> None:
    out, _ = both({"kind": "outer_join", "suppliers": suppliers},
                  [("R", RIGHT), ("L", LEFT), ("R", LATE)])
    assert out == OUTER


def test_late_records_outside_retention_are_dropped_from_the_store() -> None:
    """A put of a record older than the store's retention (250 ms) is dropped with the
    in-memory store's warning and counted, in its place among the skipped records'
    warnings; it still joins what is in the other side's store."""
    late_left = [("a", "x1", 1000), (None, "x2", 1001), ("a", "x3", 10), ("b", None, 1002)]
    out, warnings = both({"kind": "join", "store": "in_memory"},
                         [("R", RIGHT), ("L", late_left)])
    assert out == [("a", "x3+r1", 10)]
    assert [m for _, _, m in warnings] == [
        "Skipping record due to null key or value. topic=[L] partition=[0] offset=[1]",
        "Skipping record for expired segment.",
        "Skipping record due to null key or value. topic=[L] partition=[0] offset=[3]"]


@pytest.mark.parametrize(("kind", "joined", "padded"), [("join", 167, 0), ("left_join", 173, 6),
                                                        ("outer_join", 182, 15)])
def test_several_partitions(kind: str, joined: int, padded: int) -> None:
    """Three tasks: each task's chunk joins its own stores (the outputs in the driver's
    order, as the record path's); out-of-order and expired records among them."""
    rows = [(f"k{i % 5}", f"v{i}", max(0, 10 * i - (45 if i % 7 == 3 else 0)))
            for i in range(40)]
    other = [(f"k{i % 3}", f"w{i}", 10 * i + 3) for i in range(30)]
    out, _ = both({"kind": kind}, [("R", other), ("L", rows), ("R", other[::-1])],
                  partitions=3)
    assert len(out) == joined
    assert sum("None" in value for _, value, _ in out) == padded
    assert out[:2] == [("k0", "v0+w6", 63), ("k0", "v0+w9", 93)] if kind != "outer_join" \
        else out[:2] == [("k0", "None+w0", 3), ("k2", "None+w2", 23)]


def test_a_raising_joiner_gives_the_record_paths_error_and_state() -> None:
    def joiner(a: str, c: str) -> str:
        if a == "l3":
            raise ValueError("boom")
        return f"{a}+{c}"

    def observe(bulk: bool) -> tuple[Any, ...]:
        b = ks.StreamsBuilder()
        left = b.stream("L", ks.Consumed.with_(S, S))
        right = b.stream("R", ks.Consumed.with_(S, S))
        left.outer_join(right, joiner, ks.JoinWindows.of_time_difference_and_grace(100, 50),
                        ks.StreamJoined.with_(S, S, S)).to("out", ks.Produced.with_(S, S))
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
            driver.create_input_topic("R", S, S).pipe_record_list(
                [ks.TestRecord(k, v, ts) for k, v, ts in RIGHT])
            with pytest.raises(ks.StreamsError) as raised:
                driver.create_input_topic("L", S, S).pipe_record_list(
                    [ks.TestRecord(k, v, ts) for k, v, ts in LEFT])
            return str(raised.value), state(driver)

    assert observe(True) == observe(False)


def test_a_self_join_keeps_the_record_path() -> None:
    """Both sides reached from the chunk's topic: the plan declines (each side's store is
    written by the chunk the other side reads)."""
    rows = [("a", "x", 0), ("a", "y", 10)]
    out, observed, _, chunks = run(topology("join", self_join=True), True, [("L", rows)])
    out2, observed2, _, _ = run(topology("join", self_join=True), False, [("L", rows)])
    assert chunks == 0
    # (the upper-cased side is put first: map_values was the stream's first child)
    assert out == out2 == [("a", "x+X", 0), ("a", "x+Y", 10), ("a", "y+X", 10),
                           ("a", "y+Y", 10)]
    assert observed == observed2


@settings(SETTINGS, max_examples=EXAMPLES or 40)
@given(cases(bulk_shaped=True, shape="sjoin"))
def test_stream_join_programs_match_the_record_path(case: Case) -> None:
    check(case)


@settings(SETTINGS, max_examples=EXAMPLES or 30)
@given(cases(partitioned=True, shape="sjoin"))
def test_stream_join_programs_match_the_record_path_on_several_partitions(case: Case) -> None:
    check(case)


def test_the_emission_throttled_by_the_wall_clock() -> None:
    """With Java's 1 s emit interval the first record's check (nothing parked) starts the
    interval; the parked records closed by later records' stream time wait until the
    driver's wall clock has moved past it (``advance_wall_clock_time``)."""
    from kslab.dsl._stream_joins import EMIT_INTERVAL_CONFIG

    def observe(bulk: bool) -> tuple[Any, ...]:
        config = {"kslab.driver.bulk": bulk, EMIT_INTERVAL_CONFIG: 1000}
        with ks.TopologyTestDriver(topology("left_join"), config) as driver:
            left = driver.create_input_topic("L", S, S)
            out = driver.create_output_topic("out", S, S)
            left.pipe_record_list([ks.TestRecord("a", "x", 0), ks.TestRecord("b", "y", 400)])
            first = out.read_key_values_to_list()
            left.pipe_record_list([ks.TestRecord("c", "z", 800)])
            second = out.read_key_values_to_list()
            driver.advance_wall_clock_time(2000)
            left.pipe_record_list([ks.TestRecord("d", "w", 1200)])
            third = out.read_key_values_to_list()
            return first, second, third, state(driver), driver.bulk_stats()["chunks"] if bulk else 3

    batch, record = observe(True), observe(False)
    assert batch == record
    assert [[(kv.key, kv.value) for kv in part] for part in batch[:3]] == [
        [], [], [("a", "x+None"), ("b", "y+None"), ("c", "z+None")]]
    assert batch[4] == 3
