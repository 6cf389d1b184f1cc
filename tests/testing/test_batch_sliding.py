"""Sliding-windowed aggregations' batch form against the record path: every observable equal.

``count``, ``reduce`` and ``aggregate`` over ``SlidingWindows`` with and without grace, over
in-memory and RocksDB window stores, record cache on (each commit's flush replayed) and off,
old values sent or not, early records (before the time difference), out-of-order and late
records (dropped with their warnings), ``None`` keys and values, several partitions; and exact
outputs on a small input, the same with the bulk path off (``kslab.driver.bulk``).
"""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import state
from tests.testing.windowed_cases import both_paths, events, windowed_aggregation

S, L, J = serdes.String(), serdes.Long(), serdes.Json()


def _sliding(kind: str, store: str, cache: bool, grace: int | None,
             old_values: bool = False) -> ks.Topology:
    """A sliding aggregation of ``kind`` over ``lines`` (difference 10)."""
    windows = (ks.SlidingWindows.of_time_difference_with_no_grace(10) if grace is None
               else ks.SlidingWindows.of_time_difference_and_grace(10, grace))
    return windowed_aggregation(windows, kind, "windows", store, cache, old_values)


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("kind", ["count", "reduce", "aggregate"])
@pytest.mark.parametrize("grace", [None, 30])
def test_sliding_aggregation_matches(store: str, cache: bool, kind: str, grace: int | None,
                                     caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _sliding(kind, store, cache, grace), caplog, events(600, 3))
    assert executor.declined == 0


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_old_values_match(store: str, cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _sliding("aggregate", store, cache, 30, old_values=True),
                     caplog, events(600, 5, headers=True))
    assert executor.declined == 0


_EXACT = [("a", "x", 0), ("a", "x", 5), ("a", "x", 20), ("a", "x", 18), ("b", "x", 3),
          ("a", None, 21), (None, "x", 22), ("a", "x", 2)]


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "record"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("store", ["in_memory", "persistent"])
def test_sliding_count_exact_outputs(bulk: bool, cache: bool, store: str,
                                     caplog: pytest.LogCaptureFixture) -> None:
    """Early records (before the difference: the window from 0 and a right window), a
    record's left window, an out-of-order one updating a later window and creating its right
    window, late records dropped, a ``None`` value and key skipped, on the bulk path and off
    it."""
    caplog.set_level(logging.WARNING)
    mat = ks.Materialized.as_("counts").with_store_type(store)
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.SlidingWindows.of_time_difference_and_grace(10, 5))
     .count(mat if cache else mat.with_caching_disabled())
     .to_stream()
     .map(lambda wk, n: (f"{wk.key}@{wk.window.start}-{wk.window.end}", str(n)))
     .to("out", ks.Produced.with_(S, S)))
    with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
        driver.create_input_topic("in", S, S).pipe_record_list(
            [ks.TestRecord(k, v, ts) for k, v, ts in _EXACT])
        out = [(r.key, r.value, r.timestamp) for r in
               driver.create_output_topic("out", S, S).read_records_to_list()]
        ran = driver.bulk_stats()
    assert out == [("a@0-10", "1", 0), ("a@1-11", "1", 5), ("a@0-10", "2", 5),
                   ("a@10-20", "1", 20), ("a@10-20", "2", 20), ("a@8-18", "1", 18),
                   ("a@19-29", "1", 20)]
    assert ran == ({"chunks": 1, "declined": 0} if bulk else {"chunks": 0, "declined": 0})
    assert [r.getMessage().split(".")[0] for r in caplog.records
            if r.name.startswith("kslab")] == [
        "Skipping record for expired window", "Skipping record due to null key or value",
        "Skipping record due to null key or value", "Skipping record for expired window"]


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_several_partitions_match(cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    """Three input partitions: each task's windows, changelog partitions and warnings in the
    driver's order."""
    caplog.set_level(logging.WARNING)
    records = [record for record in events(600, 6) if record[0] is not None]
    seen = []
    for bulk in (True, False):
        caplog.clear()
        with ks.TopologyTestDriver(_sliding("aggregate", "persistent", cache, 30),
                                   {"kslab.driver.bulk": bulk},
                                   partitions={"lines": 3}) as driver:
            driver.create_input_topic("lines", S, S).pipe_record_list(
                [ks.TestRecord(k, v, ts, h) for k, v, ts, h in records])
            # internal on purpose: the partitioned executor itself (its counters per run)
            ran = driver._partitioned
            seen.append((state(driver), [r.getMessage() for r in caplog.records
                                         if r.name.startswith("kslab")],
                         None if ran is None else (ran.chunks, ran.declined)))
    assert seen[0][:2] == seen[1][:2]
    assert (seen[0][2], seen[1][2]) == ((2, 0), None)
