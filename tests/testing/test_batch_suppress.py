"""``suppress``'s batch form against the record path: every observable equal, and exact values.

Both forms (``until_time_limit`` over a count, ``until_window_closes`` over a tumbling count),
the count's record cache on (its flushes forward at each commit) and off, the buffer's
changelog on and off, unbounded and bounded buffers (emitting early when full by records or
bytes; a final one shutting down when full raises the record path's error with its partial
state), headers; each evicted change leaves under the context of the record that buffered it
(its headers, and its offset as a topic extractor sees it, through a ``map``); a node after
the suppress that does not pass records under other records' contexts keeps the record path.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import captured_warnings, error_summary, state
from tests.testing.windowed_cases import both_paths, events

S, L, B = serdes.String(), serdes.Long(), serdes.Bytes()
H = [("h", b"1")]


def _suppressed(final: bool, cache: bool = False, buffer: Any = None, logging: bool = True,
                extractor: bool = False, mapped: bool = False,
                regrouped: bool = False) -> ks.Topology:
    """A count of ``lines`` (windowed by 50 ms with 20 ms grace when ``final``) suppressed
    until its windows close or for 30 ms, to ``out`` (or, with ``extractor``, to
    ``out-<offset of the record that buffered the change>``) through ``to_stream`` and a
    ``select_key`` or ``filter`` (and a ``map`` when ``mapped``; a ``count`` of the
    suppressed changes by key when ``regrouped``)."""
    mat = ks.Materialized.as_("counts").with_store_type("in_memory")
    if not cache:
        mat = mat.with_caching_disabled()
    buffer = buffer if buffer is not None else ks.BufferConfig.unbounded()
    if not logging:
        buffer = buffer.with_logging_disabled()
    b = ks.StreamsBuilder()
    grouped = b.stream("lines", ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
    if final:
        table = grouped.windowed_by(ks.TimeWindows.of_size_and_grace(50, 20)).count(mat)
        stream = table.suppress(ks.Suppressed.until_window_closes(buffer).with_name("final")
                                ).to_stream().select_key(
            lambda wk, v: f"{wk.key}@{wk.window.start}")
    else:
        stream = grouped.count(mat).suppress(
            ks.Suppressed.until_time_limit(30, buffer).with_name("limit")
        ).to_stream().filter(lambda k, v: v is None or v % 3 != 1 or k != "k4")
    if mapped:
        stream = stream.map(lambda k, v: (k, v))
    if regrouped:
        stream = stream.group_by_key(ks.Grouped.with_(S, L)).count(
            ks.Materialized.as_("regrouped").with_caching_disabled()).to_stream()
    if extractor:
        stream.to(lambda k, v, ctx: f"out-{ctx.offset}", ks.Produced.with_(S, L))
    else:
        stream.to("out", ks.Produced.with_(S, L))
    return b.build()


def _run(topology: ks.Topology, rows: list[tuple[str, int, Any]], bulk: bool
         ) -> tuple[dict[str, Any], Any]:
    """Pipe ``rows`` (key, timestamp, headers; value ``x``) as one list; every observable,
    each topic read back, and the bulk executor."""
    driver = ks.TopologyTestDriver(topology, {"kslab.driver.bulk": bulk})
    try:
        driver.create_input_topic("lines", S, S).pipe_record_list(
            [ks.TestRecord(k, "x", ts, h) for k, ts, h in rows])
        observed = state(driver)
        observed["reads"] = {
            topic: [(r.key, r.value, r.timestamp, r.headers) for r in driver.create_output_topic(
                topic, S if topic.startswith("out") else B,
                L if topic.startswith("out") else B).read_records_to_list()]
            for topic in sorted(driver.output_logs())}
        # internal on purpose: the bulk executor itself (its per-chunk counters)
        return observed, driver._bulk
    finally:
        driver.close()


def _both(topology: Any, rows: list[tuple[str, int, Any]]) -> dict[str, Any]:
    """The reads of both paths, asserted equal (every observable), the chunk run in batch."""
    bulk, executor = _run(topology(), rows, True)
    record, _ = _run(topology(), rows, False)
    assert bulk == record
    assert (executor.chunks, executor.declined) == (1, 0)
    return bulk["reads"]


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_time_limit_emits_each_key_once_its_wait_passed(cache: bool) -> None:
    """A key's first change starts its wait (a later one does not restart it); at c@40 stream
    time passes a's (0 + 30) and b's (10 + 30): their latest changes leave in time order,
    b's under its own record's headers and timestamp; at a@75, c's."""
    rows = [("a", 0, None), ("b", 10, H), ("a", 20, None), ("c", 40, None), ("b", 50, None),
            ("a", 75, None)]
    reads = _both(lambda: _suppressed(False, cache), rows)
    empty = ks.Headers()
    assert reads["out"] == [("a", 2, 20, empty), ("b", 1, 10, ks.Headers(H)),
                            ("c", 1, 40, empty)]
    changelog = reads["topology-test-driver-limit-store-changelog"]
    # one flush per commit: each put's entry (its buffer time last), tombstones once evicted
    assert [(k, v if v is None else v[-8:], ts) for k, v, ts, _ in changelog] == [
        (b"a", (0).to_bytes(8, "big"), 0), (b"b", (10).to_bytes(8, "big"), 10),
        (b"a", (0).to_bytes(8, "big"), 20),
        (b"a", None, 40), (b"b", None, 40), (b"c", (40).to_bytes(8, "big"), 40),
        (b"b", (50).to_bytes(8, "big"), 50),
        (b"a", (75).to_bytes(8, "big"), 75), (b"c", None, 75)]


def test_window_close_emits_final_counts_under_their_records_offsets() -> None:
    """Windows of 50 ms close at end + 20 ms: [0,50) at c@75, [50,100) at a@140; each
    final count goes to ``out-<offset>`` of the record that last changed it (its context)."""
    rows = [("a", 0, None), ("b", 10, H), ("a", 30, None), ("a", 60, None), ("c", 75, None),
            ("b", 95, None), ("a", 140, None)]
    reads = _both(lambda: _suppressed(True, extractor=True), rows)
    assert {t: r for t, r in reads.items() if t.startswith("out")} == {
        "out-1": [("b@0", 1, 10, ks.Headers(H))], "out-2": [("a@0", 2, 30, ks.Headers())],
        "out-3": [("a@50", 1, 60, ks.Headers())], "out-4": [("c@50", 1, 75, ks.Headers())],
        "out-5": [("b@50", 1, 95, ks.Headers())]}
    assert len(reads["topology-test-driver-final-store-changelog"]) == 12


@pytest.mark.parametrize("final", [True, False], ids=["final", "limit"])
@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("logging", [True, False], ids=["logged", "unlogged"])
def test_suppress_matches(final: bool, cache: bool, logging: bool,
                          caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _suppressed(final, cache, logging=logging), caplog,
                          events(600, 3, headers=True))
    assert executor.declined == 0


@pytest.mark.parametrize("bound", [ks.BufferConfig.max_records(2),
                                   ks.BufferConfig.max_bytes(150)], ids=["records", "bytes"])
def test_a_full_buffer_emits_early(bound: Any, caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _suppressed(False, buffer=bound), caplog, events(600, 4))
    assert executor.declined == 0


def test_extracted_topics_see_the_buffered_records_offsets(
        caplog: pytest.LogCaptureFixture) -> None:
    executor = both_paths(lambda: _suppressed(False, True, extractor=True, mapped=True),
                          caplog, events(600, 5, headers=True))
    assert executor.declined == 0


def test_a_node_that_does_not_take_other_records_contexts_keeps_the_record_path(
        caplog: pytest.LogCaptureFixture) -> None:
    """A ``count`` after the suppress (its record cache would keep each change's context):
    a chunk that evicts goes record by record."""
    executor = both_paths(lambda: _suppressed(False, regrouped=True), caplog, events(600, 6))
    assert executor.declined > 0


def test_a_final_buffer_full_raises_the_record_paths_error() -> None:
    """``until_window_closes`` with at most one record shuts down when a second window is
    buffered: the batch form raises in phase one, the chunk goes record by record and raises
    there, with the record path's partial state."""
    rows = [("a", 0, None), ("b", 10, None), ("a", 20, None)]

    def run(bulk: bool) -> tuple[Any, dict[str, Any]]:
        topology = _suppressed(True, buffer=ks.BufferConfig.max_records(1))
        with captured_warnings():
            driver = ks.TopologyTestDriver(topology, {"kslab.driver.bulk": bulk})
        try:
            with pytest.raises(ks.StreamsError) as raised:
                driver.create_input_topic("lines", S, S).pipe_record_list(
                    [ks.TestRecord(k, "x", ts, h) for k, ts, h in rows])
            return error_summary(raised.value), state(driver)
        finally:
            driver.close()

    bulk, record = run(True), run(False)
    assert bulk == record
    assert "final buffer exceeded its max capacity. Currently [2/1] records" in bulk[0][1]
