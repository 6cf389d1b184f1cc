"""Session-windowed aggregations' batch form against the record path: every observable equal.

``count``, ``reduce`` and ``aggregate`` (with a merger) over ``SessionWindows`` with and
without grace, over in-memory and RocksDB session stores, record cache on (each commit's flush
of the removes and the put replayed) and off (a tombstone per merged session, then the new
one), old values sent or not, out-of-order and late records (dropped with their warnings),
``None`` keys, several partitions; and exact outputs on a small input, the same with the bulk
path off (``kslab.driver.bulk``).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import state
from tests.testing.windowed_cases import both_paths, events, windowed_aggregation

S, L, J = serdes.String(), serdes.Long(), serdes.Json()
def _sessions(kind: str, store: str, cache: bool, grace: int | None,
              old_values: bool = False) -> ks.Topology:
    """A session aggregation of ``kind`` over ``lines`` (gap 10)."""
    windows = (ks.SessionWindows.of_inactivity_gap_with_no_grace(10) if grace is None
               else ks.SessionWindows.of_inactivity_gap_and_grace(10, grace))
    return windowed_aggregation(
        windows, kind, "sessions", store, cache, old_values,
        merger=lambda k, one, two: {"n": one["n"] + two["n"],
                                    "last": two["last"] or one["last"]},
        non_null_for_reduce=True)


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("kind", ["count", "reduce", "aggregate"])
@pytest.mark.parametrize("grace", [None, 30])
def test_session_aggregation_matches(store: str, cache: bool, kind: str, grace: int | None,
                                     caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _sessions(kind, store, cache, grace), caplog, events(600, 3))
    # (with grace, one chunk holds a put into a session the cached store's flush finds
    # expired: dropped with a warning by the store, so that chunk goes record by record)
    assert executor.declined == (1 if grace and cache else 0)


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("grace", [None, 30])
def test_old_values_match(store: str, cache: bool, grace: int | None,
                          caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _sessions("aggregate", store, cache, grace, old_values=True),
                     caplog, events(600, 5))
    assert executor.declined == 0


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_records_with_headers_match(cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    """Behind a record cache the flush forwards each record's headers (the batch form takes
    them); without one the record path forwards none, so such chunks go record by record."""
    executor = both_paths(lambda: _sessions("count", "in_memory", cache, None), caplog,
                     events(600, 9, headers=True))
    assert executor.declined == (0 if cache else 4)


def test_a_raising_merger_leaves_the_record_paths_error_and_state(
        caplog: pytest.LogCaptureFixture) -> None:
    """The merger raises on the first merge of a session of 3 records: the chunk re-runs
    record by record, which raises the same error with the same partial state."""
    def topology() -> ks.Topology:
        def merger(k: Any, one: int, two: int) -> int:
            if two == 3:
                raise ValueError("merge of 3")
            return one + two

        b = ks.StreamsBuilder()
        (b.stream("lines", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
         .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(10))
         .aggregate(lambda: 0, lambda k, v, agg: agg + 1, merger,
                    ks.Materialized.with_(S, L))
         .to_stream().map(lambda wk, n: (wk.key, f"{wk.window}={n}"))
         .to("out", ks.Produced.with_(S, S)))
        return b.build()

    records = events(300, 4)
    outcomes = []
    for bulk in (True, False):
        driver = ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": bulk})
        topic = driver.create_input_topic("lines", S, S)
        with pytest.raises(Exception, match="merge of 3") as raised:
            topic.pipe_record_list([ks.TestRecord(k, v, ts, h) for k, v, ts, h in records])
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
        sessions = driver.get_session_store("KSTREAM-AGGREGATE-STATE-STORE-0000000001")
        with sessions.fetch("k1") as found:
            stored = [(kv.key.window.start, kv.key.window.end, kv.value) for kv in found]
        outcomes.append((type(raised.value), str(raised.value), out, stored))
        driver.close()
    assert outcomes[0] == outcomes[1]
    assert len(outcomes[0][2]) == 12


_EXACT = [("a", "x", 0), ("a", "x", 5), ("a", "x", 4), ("b", "x", 3), ("a", "x", 30),
          ("a", "x", 18), ("a", "x", 25), (None, "x", 26), ("a", "x", 1)]


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "record"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("store", ["in_memory", "persistent"])
def test_session_count_exact_outputs(bulk: bool, cache: bool, store: str,
                                     caplog: pytest.LogCaptureFixture) -> None:
    """Sessions opened, extended (the merged one removed: a tombstone, which a record cache
    folds into the put of the same session), merged across a gap, a ``None`` key skipped and
    a late record dropped, on the bulk path and off it."""
    caplog.set_level(logging.WARNING)
    mat = ks.Materialized.as_("counts").with_store_type(store)
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(10, 5))
     .count(mat if cache else mat.with_caching_disabled())
     .to_stream()
     .map(lambda wk, n: (f"{wk.key}@{wk.window.start}-{wk.window.end}",
                         None if n is None else str(n)))
     .to("out", ks.Produced.with_(S, S)))
    with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
        driver.create_input_topic("in", S, S).pipe_record_list(
            [ks.TestRecord(k, v, ts) for k, v, ts in _EXACT])
        out = [(r.key, r.value, r.timestamp) for r in
               driver.create_output_topic("out", S, S).read_records_to_list()]
        store_contents = driver.get_session_store("counts")
        with store_contents.fetch("a") as found:
            stored = [(kv.key.window.start, kv.key.window.end, kv.value) for kv in found]
        ran = driver.bulk_stats()
    folded = [] if cache else [("a@0-5", None, 5)]
    assert out == [("a@0-0", "1", 0), ("a@0-0", None, 0), ("a@0-5", "2", 5), *folded,
                   ("a@0-5", "3", 5), ("b@3-3", "1", 3), ("a@30-30", "1", 30),
                   ("a@18-18", "1", 18), ("a@18-18", None, 18), ("a@30-30", None, 30),
                   ("a@18-30", "3", 30)]
    # [0,5] expired in the store (retention: gap + grace); a record cache still holds it
    assert stored == [*([(0, 5, 3)] if cache else []), (18, 30, 3)]
    assert ran == ({"chunks": 1, "declined": 0} if bulk else {"chunks": 0, "declined": 0})
    assert [r.getMessage().split(".")[0] for r in caplog.records
            if r.name.startswith("kslab")] == [
        "Skipping record due to null key", "Skipping record for expired window"]


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_several_partitions_match(cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    """Three input partitions: each task's sessions, changelog partitions and warnings in the
    driver's order."""
    caplog.set_level(logging.WARNING)
    records = events(600, 6)
    seen = []
    for bulk in (True, False):
        caplog.clear()
        with ks.TopologyTestDriver(_sessions("aggregate", "persistent", cache, 30),
                                   {"kslab.driver.bulk": bulk},
                                   partitions={"lines": 3}) as driver:
            topic = driver.create_input_topic("lines", S, S)
            topic.pipe_record_list([ks.TestRecord(k, v, ts, h) for k, v, ts, h in records
                                    if k is not None])
            # internal on purpose: the partitioned executor itself (its counters per run)
            ran = driver._partitioned
            seen.append((state(driver), [r.getMessage() for r in caplog.records
                                         if r.name.startswith("kslab")],
                         None if ran is None else (ran.chunks, ran.declined)))
    assert seen[0][:2] == seen[1][:2]
    assert seen[0][2] == (2, 0)
    assert seen[1][2] is None


def test_the_grammar_reaches_the_session_batch_form() -> None:
    """A program of the differential grammar (a session aggregate with a merger, cached, behind
    a select_key) runs its chunks in batch: the properties compare the two paths."""
    from tests.testing.dsl_programs import Fn, Mat, Op, Program, Win
    from tests.testing.test_batch_differential import Case, Pipe, difference, observe

    select = Fn("lambda k, v: None if v is None else 'k' + str(n(v) % 3)", 1)
    program = Program("str", [
        Op("stream", ("s0",), (), ("in",)),
        Op("select_key", ("s1",), ("s0",), (select,)),
        Op("group", ("t2",), ("s1",), (None, "V", Win(30, 20, session=True), "aggregate", (
            Fn("lambda: mk(0, '')"), Fn("lambda k, v, a: mk(n(a) + 1, key(k) or '')", 1),
            Fn("lambda k, a, b: mk(n(a) + n(b), (s(a) + s(b))[-12:])", 1)),
            Mat("sessions", store="persistent"), "V")),
        Op("to_stream", ("s3",), ("t2",)),
        Op("to", (), ("s3",), ("out", "SW", "V")),
    ])
    rows = tuple((f"k{i % 4}", f"{i % 10}:a", 10 * i - (i % 7) * 9, None) for i in range(40))
    case = Case(program, (Pipe("in", "list", rows, 14), Pipe("in", "frame", rows)))
    bulk, executor = observe(case, True)
    record, _ = observe(case, False)
    assert (executor.chunks, executor.declined) == (3, 0)
    assert difference(bulk, record) is None
    assert (len(bulk["outputs"]["out"]), len(bulk["warnings"])) == (868, 40)  # the
    # frame's rows are late: dropped
