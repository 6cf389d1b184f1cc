"""Draft."""
from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.windowed_cases import both_paths, events

S, L = serdes.String(), serdes.Long()


def _suppressed(final: bool, cache: bool, bound: Any = None, logging: bool = True,
                extractor: bool = False) -> ks.Topology:
    mat = ks.Materialized.as_("counts").with_store_type("in_memory")
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    grouped = b.stream("lines", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
    buffer = bound if bound is not None else ks.BufferConfig.unbounded()
    if not logging:
        buffer = buffer.with_logging_disabled()
    if final:
        table = grouped.windowed_by(ks.TimeWindows.of_size_and_grace(50, 20)).count(mat)
        suppressed = table.suppress(ks.Suppressed.until_window_closes(buffer))
    else:
        table = grouped.count(mat)
        suppressed = table.suppress(ks.Suppressed.until_time_limit(30, buffer))
    stream = suppressed.to_stream()
    if final:
        stream = stream.map_values(lambda v: v)
        stream = stream.select_key(lambda wk, v: f"{wk.key}@{wk.window.start}")
    else:
        stream = stream.filter(lambda k, v: v is None or v % 3 != 1)
    if extractor:
        stream.to(lambda k, v, ctx: f"out-{ctx.offset % 2}", ks.Produced.with_(S, L))
    else:
        stream.to("out", ks.Produced.with_(S, L))
    return b.build()


@pytest.mark.parametrize("final", [True, False], ids=["final", "limit"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_suppress_matches(final: bool, cache: bool, caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _suppressed(final, cache), caplog,
                          events(600, 3, headers=True))
    print(executor.chunks, executor.declined)
    assert executor.declined == 0


@pytest.mark.parametrize("final", [True, False], ids=["final", "limit"])
def test_bounded(final: bool, caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _suppressed(final, False, ks.BufferConfig.max_records(2)),
                          caplog, events(600, 4, headers=True))
    assert executor.declined == 0


@pytest.mark.parametrize("final", [True, False], ids=["final", "limit"])
def test_extractor(final: bool, caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _suppressed(final, True, extractor=True), caplog,
                          events(600, 5, headers=True))
    assert executor.declined == 0
