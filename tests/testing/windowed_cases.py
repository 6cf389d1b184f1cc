"""What the session and sliding batch-form tests share: random keyed events, one windowed
aggregation program per kind, and the check that the bulk path equals the record path.

``windowed_aggregation`` builds ``count``, ``reduce`` or ``aggregate`` over ``lines`` with the
given windows, its updates mapped to strings after ``to_stream`` (a table filter first when
``old_values`` asks for them); ``both_paths`` drives it with the bulk path on and off
and asserts every observable and every warning equal.
"""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.test_bulk_differential import _drive

__all__ = ["Records", "both_paths", "events", "windowed_aggregation"]

S, J = serdes.String(), serdes.Json()
Records = list[tuple[Any, Any, int, Any]]


def events(n: int, seed: int, *, headers: bool = False) -> Records:
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


def windowed_aggregation(windows: Any, kind: str, store_name: str, store: str, cache: bool,
                         old_values: bool = False, merger: Any = None,
                         non_null_for_reduce: bool = False) -> ks.Topology:
    """``kind`` (``count``, ``reduce``, ``aggregate``) over ``lines`` windowed by ``windows``,
    in a ``store`` store named ``store_name``, record cache on or off; ``merger``: a session
    aggregate's; ``non_null_for_reduce``: a reduce reads no ``None`` value (which would start
    a ``None`` aggregate, a delete)."""
    mat = ks.Materialized.as_(store_name).with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    stream = b.stream("lines", ks.Consumed.with_(S, S))
    if kind == "reduce" and non_null_for_reduce:
        stream = stream.filter(lambda k, v: v is not None)
    grouped = stream.group_by_key(ks.Grouped.with_(S, S)).windowed_by(windows)
    if kind == "count":
        table = grouped.count(mat)
    elif kind == "reduce":
        table = grouped.reduce(lambda a, v: f"{a}+{v}" if len(a) < 40 else str(v),
                               mat.with_value_serde(S))
    else:
        functions = [lambda: {"n": 0, "last": None},
                     lambda k, v, agg: {"n": agg["n"] + 1, "last": v}]
        if merger is not None:
            functions.append(merger)
        table = grouped.aggregate(*functions, mat.with_value_serde(J))
    if old_values:
        table = table.filter(lambda k, agg: agg is None or str(agg) != "3")
    (table.to_stream()
     .map(lambda wk, agg: (wk.key, f"[{wk.window.start},{wk.window.end}]={agg}"))
     .to("out", ks.Produced.with_(S, S)))
    return b.build()


def both_paths(topology: Any, caplog: pytest.LogCaptureFixture, records: Records,
                       config: dict[str, Any] | None = None) -> Any:
    """Drive ``topology`` with the bulk path on and off: every observable and warning equal;
    the bulk run's executor."""
    caplog.set_level(logging.WARNING)
    bulk, executor, bulk_log = _drive(topology, records, True, caplog, config)
    record, _, record_log = _drive(topology, records, False, caplog, config)
    assert bulk == record
    assert bulk_log == record_log
    return executor
