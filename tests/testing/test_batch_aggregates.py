"""Stream aggregations' batch form against the record path: every observable equal.

``aggregate`` and ``reduce`` with user functions, over in-memory and RocksDB stores, with the
record cache off (by ``Materialized`` or by ``statestore.cache.max.bytes`` 0) and on (its
gets, puts and each commit's flush replayed at once: entries, LRU order, counters, sizes),
with caches small enough to evict (in batch where only clean entries are evicted,
else record by record), null keys and values skipped, a
key updated twice by one consumed record, old values sent downstream, and a map after
``to_stream``. Each compares the logs (outputs, repartition, changelog), stores, caches,
clocks, metrics, history and warnings of the two paths (``driver_observables.state``).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.test_bulk_differential import _clean_lines, _drive, _lines

S, L, J = serdes.String(), serdes.Long(), serdes.Json()


def _aggregated(store: str, cache: bool, *, by_line: bool = False,
                old_values: bool = False) -> ks.Topology:
    """Word totals as JSON: an aggregate over a repartition (or per line key, a key updated
    once per word of one consumed record), its update mapped after ``to_stream``; with
    ``old_values`` a table filter below it asks for old values."""
    mat = ks.Materialized.as_("totals").with_store_type(store).with_value_serde(J)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    words = (b.stream("lines", ks.Consumed.with_(S, S))
             .flat_map_values(lambda v: ["nullvalue"] if v is None else v.split())
             .map_values(lambda w: None if w == "nullvalue" else w))
    grouped = (words.group_by_key() if by_line else
               words.group_by(lambda k, w: None if w == "w7" else (w or "nil"),
                              ks.Grouped.with_(S, S)))
    table = grouped.aggregate(lambda: {"n": 0, "chars": 0},
                              lambda k, w, agg: {"n": agg["n"] + 1,
                                                 "chars": agg["chars"] + len(w)}, mat)
    if old_values:
        table = table.filter(lambda k, agg: agg["n"] % 3 != 0)
    (table.to_stream()
     .map(lambda k, agg: (k, None if agg is None else f"{agg['n']}/{agg['chars']}"))
     .to("totals-out", ks.Produced.with_(S, S)))
    return b.build()


def _reduced(store: str, cache: bool) -> ks.Topology:
    mat = ks.Materialized.as_("longest").with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .filter(lambda k, v: v is not None)
     .group_by_key(ks.Grouped.with_(S, S))
     .reduce(lambda a, c: a if len(a) >= len(c) else c, mat)
     .to_stream()
     .to("longest-out", ks.Produced.with_(S, S)))
    return b.build()


def _same(topology: Any, caplog: pytest.LogCaptureFixture, config: dict[str, Any] | None = None,
          lines: Any = _lines, between: Any = None) -> Any:
    caplog.set_level(logging.WARNING)
    records = lines(700, 11)
    bulk, executor, bulk_log = _drive(topology, records, True, caplog, config, between)
    record, _, record_log = _drive(topology, records, False, caplog, config, between)
    assert bulk == record
    assert bulk_log == record_log
    return executor


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("cache", ["on", "materialized-off", "config-off"])
@pytest.mark.parametrize("by_line", [False, True], ids=["repartition", "by-line"])
def test_aggregate_matches(store: str, cache: str, by_line: bool,
                           caplog: pytest.LogCaptureFixture) -> None:
    config = {"statestore.cache.max.bytes": 0} if cache == "config-off" else None
    executor = _same(lambda: _aggregated(store, cache != "materialized-off", by_line=by_line),
                     caplog, config)
    assert executor.chunks == 4 and executor.declined == 0


def test_a_cache_evicting_a_dirty_entry_goes_record_by_record(
        caplog: pytest.LogCaptureFixture) -> None:
    """60 bytes, less than one entry: each put evicts its own dirty entry (a flush before
    the commit), which only the record path does."""
    executor = _same(lambda: _aggregated("in_memory", True), caplog,
                     {"statestore.cache.max.bytes": 60})
    assert executor.chunks == 0 and executor.declined == 4


@pytest.mark.parametrize("cache_bytes", [400, 2000])
def test_a_cache_evicting_clean_entries_runs_in_batch(
        cache_bytes: int, caplog: pytest.LogCaptureFixture) -> None:
    """Every chunk's puts evict only clean entries (each commit flushed the ones before),
    worked out at once with the misses and read-backs of keys evicted before a later get
    (``kslab.state.held_evictions``), with the record path's observables."""
    executor = _same(lambda: _aggregated("in_memory", True), caplog,
                     {"statestore.cache.max.bytes": cache_bytes})
    assert executor.chunks == 4 and executor.declined == 0


def test_a_table_operator_below_the_aggregate_runs_in_batch(
        caplog: pytest.LogCaptureFixture) -> None:
    """A table filter (asking the aggregate for old values, then filtering both the new and
    the old value of each flushed update) runs in batch too, with the record path's
    observables."""
    executor = _same(lambda: _aggregated("in_memory", True, old_values=True), caplog)
    assert executor.chunks == 4 and executor.declined == 0


@pytest.mark.parametrize("cache", [True, False])
def test_interactive_reads_between_pipes_match(cache: bool,
                                               caplog: pytest.LogCaptureFixture) -> None:
    def query(driver: ks.TopologyTestDriver) -> None:
        store = driver.get_timestamped_key_value_store("totals")
        for word in ["w1", "w5", "absent", "w1"]:
            store.get(word)

    _same(lambda: _aggregated("in_memory", cache), caplog, between=query, lines=_clean_lines)


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("cache", [True, False])
def test_reduce_matches(store: str, cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    executor = _same(lambda: _reduced(store, cache), caplog)
    assert executor.chunks == 4


def _windowed(windows: Any, store: str, cache: bool, *, reduce: bool = False) -> ks.Topology:
    """Per line key, a windowed count (or a windowed reduce of the words) mapped after
    ``to_stream`` to a String key and a JSON value, as users write it."""
    mat = ks.Materialized.as_("windows").with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    windowed = (b.stream("lines", ks.Consumed.with_(S, S))
                .flat_map_values(lambda v: ["-"] if v is None else v.split())
                .group_by_key(ks.Grouped.with_(S, S))
                .windowed_by(windows))
    table = (windowed.reduce(lambda a, w: max(a, w), mat) if reduce
             else windowed.count(mat.with_value_serde(L)))
    (table.to_stream()
     .map(lambda wk, v: (f"{wk.key}@{wk.window.start}",
                         {"start": wk.window.start, "end": wk.window.end, "value": v}))
     .to("windows-out", ks.Produced.with_(S, J)))
    return b.build()


WINDOWS = {
    "tumbling": ks.TimeWindows.of_size_with_no_grace(100),
    "tumbling-grace": ks.TimeWindows.of_size_and_grace(100, 50),
    "hopping": ks.TimeWindows.of_size_and_grace(100, 200).advance_by(25),
}


@pytest.mark.parametrize("windows", sorted(WINDOWS))
@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("reduce", [False, True], ids=["count", "reduce"])
@pytest.mark.parametrize("cache", [False, True], ids=["uncached", "cached"])
def test_windowed_aggregations_match(windows: str, store: str, reduce: bool, cache: bool,
                                     caplog: pytest.LogCaptureFixture) -> None:
    """Late records dropped with their warnings, windows opening (segments rolling, expiring)
    and closing within a chunk, a key's window updated several times by one record; behind a
    record cache, its fetches, puts and flushes replayed."""
    executor = _same(lambda: _windowed(WINDOWS[windows], store, cache, reduce=reduce), caplog)
    assert executor.chunks == 4 and executor.declined == 0


@pytest.mark.parametrize("cache_bytes", [300, 3000])
def test_a_window_cache_that_evicts_matches_the_record_path(
        cache_bytes: int, caplog: pytest.LogCaptureFixture) -> None:
    """3,000 bytes: the puts evict clean windows, worked out per run (every chunk in batch);
    300: a record's puts evict a window it wrote itself, dirty (a flush mid-record: record
    by record). Every observable is the record path's either way."""
    executor = _same(lambda: _windowed(WINDOWS["hopping"], "in_memory", True), caplog,
                     {"statestore.cache.max.bytes": cache_bytes})
    assert (executor.declined > 0) == (cache_bytes == 300)
