"""Kafka's ``KTableSuppressProcessorTest``, translated to kslab's DSL and TopologyTestDriver.

Java drives ``KTableSuppressProcessor`` directly (a Mockito parent table and a mocked context)
with hand-made ``Change``s. kslab's suppress processor is internal, so each test builds the same
suppression through the DSL and produces the same input changes from records:

* a table source gives ``Change(new, old)`` for a key's updates (a tombstone is ``None``);
* a windowed ``reduce`` gives the window's value, with ``TimeWindows`` / ``SessionWindows`` /
  ``SlidingWindows`` for the window shapes Java builds by hand (a sliding window's end is
  inclusive, which gives Java's "record at the window end" case);
* a windowed tombstone comes from ``filter`` (a window whose value stops matching) or from a
  session merge, as Java's ``Change(null, old)`` stands for.

The suppressed table is read through ``to_stream()`` into ``MockApiProcessorSupplier``, so a
forwarded ``Record(key, Change(new, old), ts)`` is checked as ``(key, new, ts)`` (plus headers
where Java sets them); records that the DSL forwards before the one Java asserts are asserted
too. Java's ``StreamsException`` for a full buffer maps to ``ks.StreamsError``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from tests.conformance._join_suppress_support import MockApiProcessorSupplier

ARBITRARY_LONG = 5
STRING = serdes.String()
LONG = serdes.Long()
DAYS_100 = 100 * 24 * 3_600_000
UNBOUNDED = ks.BufferConfig.unbounded()


def _table(suppressed):
    """A String/Long table (no cache: every change reaches suppress, as Java's raw ``Change``s
    do), suppressed, captured after ``to_stream()``."""
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    (builder.table("input", ks.Consumed.with_(STRING, LONG),
                   ks.Materialized.with_(STRING, LONG).with_caching_disabled())
     .suppress(suppressed).to_stream().process(supplier))
    return builder, supplier


def _windowed(windows, suppressed, keep=None):
    """A windowed sum of Long values (optionally filtered), suppressed, then captured."""
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    table = (builder.stream("input", ks.Consumed.with_(STRING, LONG)).group_by_key()
             .windowed_by(windows).reduce(lambda agg, value: agg + value))
    if keep is not None:
        table = table.filter(keep)
    table.suppress(suppressed).to_stream().process(supplier)
    return builder, supplier


def _run(built, records):
    """Pipe ``(key, value, timestamp[, headers])`` records; the processor's captured records."""
    builder, supplier = built
    with ks.TopologyTestDriver(builder.build()) as driver:
        topic = driver.create_input_topic("input", STRING, LONG)
        for record in records:
            topic.pipe_input(*record)
        return [(r.key, r.value, r.timestamp, list(r.headers or ()))
                for r in supplier.processors[-1].records]


def _final_results():
    return ks.Suppressed.until_window_closes(UNBOUNDED)


def _window(key, start, end):
    return ks.Windowed(key, ks.Window(start, end))


def test_zero_time_limit_should_immediately_emit():
    built = _table(ks.Suppressed.until_time_limit(0, UNBOUNDED))
    assert _run(built, [("hey", 7, ARBITRARY_LONG)]) == [("hey", 7, ARBITRARY_LONG, [])]


def test_windowed_zero_time_limit_should_immediately_emit():
    built = _windowed(ks.TimeWindows.of_size_with_no_grace(100),
                      ks.Suppressed.until_time_limit(0, UNBOUNDED))
    assert _run(built, [("hey", 7, ARBITRARY_LONG)]) == [
        (_window("hey", 0, 100), 7, ARBITRARY_LONG, [])]


def test_intermediate_suppression_should_buffer_and_emit_later():
    built = _table(ks.Suppressed.until_time_limit(1, UNBOUNDED))
    assert _run(built, [("hey", 1, 0)]) == []
    assert _run(built, [("hey", 1, 0), ("tick", None, 1)]) == [("hey", 1, 0, [])]


def test_final_results_suppression_should_buffer_and_emit_at_grace_expiration():
    built = _windowed(ks.TimeWindows.of_size_and_grace(1, 1), _final_results())
    assert _run(built, [("hey", 7, 99)]) == []
    # although the stream time is now 100, we have to wait 1 ms after the window *end* before we
    # emit "hey", so we don't emit yet.
    assert _run(built, [("hey", 7, 99), ("dummyKey1", 7, 100)]) == []
    # ok, now it's time to emit "hey"
    assert _run(built, [("hey", 7, 99), ("dummyKey1", 7, 100), ("dummyKey2", 7, 101)]) == [
        (_window("hey", 99, 100), 7, 99, [])]


def test_final_results_with_zero_grace_should_still_buffer_until_the_window_end():
    built = _windowed(ks.TimeWindows.of_size_with_no_grace(100), _final_results())
    # note the record is in the past, but the window end is in the future, so we still have to
    # buffer, even though the grace period is 0.
    assert _run(built, [("hey", 7, 5)]) == []
    assert _run(built, [("hey", 7, 5), ("dummyKey", 7, 100)]) == [
        (_window("hey", 0, 100), 7, 5, [])]


def test_final_results_with_zero_grace_at_window_end_should_immediately_emit():
    built = _windowed(ks.SlidingWindows.of_time_difference_with_no_grace(100), _final_results())
    assert _run(built, [("hey", 7, 100)]) == [(_window("hey", 0, 100), 7, 100, [])]


def test_final_results_should_drop_tombstones_for_time_windows():
    built = _windowed(ks.TimeWindows.of_size_with_no_grace(100), _final_results(),
                      keep=lambda key, value: value < 10)
    # the window's value 11 fails the filter: its last change is a tombstone, dropped at close
    assert _run(built, [("hey", ARBITRARY_LONG, 5), ("hey", 6, 6), ("dummyKey", 1, 100)]) == []


def test_final_results_should_drop_tombstones_for_session_windows():
    built = _windowed(ks.SessionWindows.of_inactivity_gap_with_no_grace(5), _final_results(),
                      keep=lambda key, value: value < 10)
    # hey@1 merges session [0,0] into [0,1] (value 11, filtered): [0,0] gets a tombstone
    assert _run(built, [("hey", ARBITRARY_LONG, 0), ("hey", 6, 1), ("dummyKey", 1, 100)]) == []


def test_suppress_should_not_drop_tombstones_for_time_windows():
    built = _windowed(ks.TimeWindows.of_size_with_no_grace(100),
                      ks.Suppressed.until_time_limit(0, ks.BufferConfig.max_records(0)),
                      keep=lambda key, value: value < 10)
    headers = ks.Headers([("k", b"v")])
    assert _run(built, [("hey", ARBITRARY_LONG, 0), ("hey", 6, 99, headers)]) == [
        (_window("hey", 0, 100), ARBITRARY_LONG, 0, []),
        (_window("hey", 0, 100), None, 99, [("k", b"v")]),
    ]


def test_suppress_should_not_drop_tombstones_for_session_windows():
    built = _windowed(ks.SessionWindows.of_inactivity_gap_with_no_grace(5),
                      ks.Suppressed.until_time_limit(0, ks.BufferConfig.max_records(0)))
    assert _run(built, [("hey", ARBITRARY_LONG, 0), ("hey", 6, 1)]) == [
        (_window("hey", 0, 0), ARBITRARY_LONG, 0, []),
        (_window("hey", 0, 0), None, 0, []),
        (_window("hey", 0, 1), 11, 1, []),
    ]


def test_suppress_should_not_drop_tombstones_for_k_table():
    built = _table(ks.Suppressed.until_time_limit(0, ks.BufferConfig.max_records(0)))
    assert _run(built, [("hey", ARBITRARY_LONG, 100), ("hey", None, 100)]) == [
        ("hey", ARBITRARY_LONG, 100, []), ("hey", None, 100, [])]


def test_suppress_should_emit_when_over_record_capacity():
    built = _table(ks.Suppressed.until_time_limit(DAYS_100, ks.BufferConfig.max_records(1)))
    assert _run(built, [("hey", None, 100), ("dummyKey", None, 101)]) == [("hey", None, 100, [])]


def test_suppress_should_emit_when_over_byte_capacity():
    built = _table(ks.Suppressed.until_time_limit(DAYS_100, ks.BufferConfig.max_bytes(60)))
    assert _run(built, [("hey", None, 100), ("dummyKey", None, 101)]) == [("hey", None, 100, [])]


def test_suppress_should_shut_down_when_over_record_capacity():
    built = _table(ks.Suppressed.until_time_limit(
        DAYS_100, ks.BufferConfig.max_records(1).shut_down_when_full()))
    with pytest.raises(ks.StreamsError, match="buffer exceeded its max capacity"):
        _run(built, [("hey", None, 100), ("dummyKey", None, 100)])


def test_suppress_should_shut_down_when_over_byte_capacity():
    built = _table(ks.Suppressed.until_time_limit(
        DAYS_100, ks.BufferConfig.max_bytes(60).shut_down_when_full()))
    with pytest.raises(ks.StreamsError, match="buffer exceeded its max capacity"):
        _run(built, [("hey", None, 100), ("dummyKey", None, 100)])
