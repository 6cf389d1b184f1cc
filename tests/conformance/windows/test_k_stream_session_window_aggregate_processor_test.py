"""Kafka's ``KStreamSessionWindowAggregateProcessorTest``, through kslab's DSL and driver.

Java drives ``KStreamSessionWindowAggregate`` by hand on an ``InternalMockProcessorContext``
(a persistent session store named ``session-store``, retention 3 gaps, logging off, caching as
each test asks, emit interval 0, a forward that records ``Change`` values). Here the same
aggregation (initializer 0, aggregator +1, merger sum) runs through ``windowed_by(...)
.aggregate(...)`` and the driver; what the processor forwards is what the node after
``to_stream()`` receives (``Change(new, None)`` becomes ``new``, the ``Change(null, null)`` of a
merged-away session ``None``); ``sessionStore.findSessions`` is the driver's session store.
``setRecordContext(partition -3, offset -2)`` has no driver equivalent: the log lines carry the
driver's partition 0 and offsets. Java's driver-less test calls ``sessionStore.flush()`` once
after all records, so a cached store forwards each session's last value once; the driver commits
(flushes) after every record, so for the cached update-mode tests the last value per session is
compared. The value getter (``sessionAggregator.view().get()``) is read through the store it
reads, ``fetch_session``.
"""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SessionWindows
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

GAP_MS = 5 * 60 * 1000
STORE_NAME = "session-store"
S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string",
         "__emit.interval.ms.kstreams.windowed.aggregation__": 0}
UPDATE, CLOSE = "ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE"
KV = ks.KeyValue


def W(key: str, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


class Setup:
    """Java's ``setup(type, enableCaching)``: the topology, driver, store and captured results."""

    def __init__(self, kind: str, enable_caching: bool,
                 windows: SessionWindows | None = None, emit: str | None = None) -> None:
        self.emit_final = (emit or kind) == CLOSE
        builder = ks.StreamsBuilder()
        mat = (ks.Materialized.as_(STORE_NAME).with_value_serde(serdes.Long())
               .with_retention(GAP_MS * 3).with_logging_disabled())
        mat = mat.with_caching_enabled() if enable_caching else mat.with_caching_disabled()
        strategy = ks.EmitStrategy.on_window_close() if self.emit_final else \
            ks.EmitStrategy.on_window_update()
        self.supplier = MockApiProcessorSupplier()
        (builder.stream("topic", ks.Consumed.with_(S, S)).group_by_key()
         .windowed_by(windows or SessionWindows.of_inactivity_gap_with_no_grace(GAP_MS))
         .emit_strategy(strategy)
         .aggregate(lambda: 0, lambda key, value, agg: agg + 1,
                    lambda key, one, two: one + two, mat)
         .to_stream().process(self.supplier))
        self.driver = ks.TopologyTestDriver(builder.build(), PROPS)
        self.topic = self.driver.create_input_topic("topic", S, S)
        self.session_store = self.driver.get_session_store(STORE_NAME)

    def process(self, key: str | None, value: str, timestamp: int) -> None:
        self.topic.pipe_input(key, value, timestamp)

    @property
    def results(self) -> list:
        return self.supplier.the_captured_processor().processed if self.supplier.processors \
            else []

    def find(self, key: str, earliest_end: int, latest_start: int) -> list:
        with self.session_store.find_sessions(key, earliest_end, latest_start) as it:
            return list(it)


@pytest.fixture(params=[UPDATE, CLOSE])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def t(kind: str):
    setup = Setup(kind, True)
    yield setup
    setup.driver.close()


def last_per_key(results: list) -> dict:
    return {key: (value, ts) for key, value, ts in results}


def test_should_create_single_session_when_within_gap(t: Setup) -> None:
    t.process("john", "first", 0)
    t.process("john", "second", 500)
    values = t.find("john", 0, 2000)
    assert values and values[0].value == 2


def test_should_merge_sessions(t: Setup) -> None:
    session_id = "mel"
    t.process(session_id, "first", 0)
    assert t.find(session_id, 0, 0)
    # move time beyond gap
    t.process(session_id, "second", GAP_MS + 1)
    assert t.find(session_id, GAP_MS + 1, GAP_MS + 1)
    # should still exist as not within gap
    assert t.find(session_id, 0, 0)
    # move time back
    t.process(session_id, "third", GAP_MS // 2)
    found = t.find(session_id, 0, GAP_MS + 1)
    assert len(found) == 1 and found[0].value == 3


def test_should_update_session_if_the_same_time(t: Setup) -> None:
    t.process("mel", "first", 0)
    t.process("mel", "second", 0)
    found = t.find("mel", 0, 0)
    assert [kv.value for kv in found] == [2]


def test_should_have_multiple_sessions_for_same_id_when_timestamp_apart_by_session_gap(
        t: Setup) -> None:
    session_id = "mel"
    now = 0
    t.process(session_id, "first", now)
    now += GAP_MS + 1
    t.process(session_id, "second", now)
    t.process(session_id, "second", now)
    now += GAP_MS + 1
    for _ in range(3):
        t.process(session_id, "third", now)
    expected = [(W(session_id, 0, 0), 1, 0),
                (W(session_id, GAP_MS + 1, GAP_MS + 1), 2, GAP_MS + 1)]
    if t.emit_final:
        assert t.results == expected
    else:
        expected.append((W(session_id, now, now), 3, now))
        assert last_per_key(t.results) == last_per_key(expected)


def test_should_remove_merged_sessions_from_state_store(t: Setup) -> None:
    t.process("a", "1", 0)
    assert t.find("a", 0, 0)[0] == KV(W("a", 0, 0), 1)
    t.process("a", "2", 100)
    # a1 from above should have been removed; the merged session is in the store
    assert t.find("a", 0, 100) == [KV(W("a", 0, 100), 2)]


def test_should_handle_multiple_sessions_and_merging(t: Setup) -> None:
    for key, value, ts in [("a", "1", 0), ("b", "1", 0), ("c", "1", 0), ("d", "1", 0),
                           ("d", "2", GAP_MS // 2), ("a", "2", GAP_MS + 1),
                           ("b", "2", GAP_MS + 1), ("a", "3", GAP_MS + 1 + GAP_MS // 2),
                           ("c", "3", GAP_MS + 1 + GAP_MS // 2)]:
        t.process(key, value, ts)
    expected = [(W("a", 0, 0), 1, 0), (W("b", 0, 0), 1, 0), (W("c", 0, 0), 1, 0),
                (W("d", 0, GAP_MS // 2), 2, GAP_MS // 2)]
    if t.emit_final:
        assert t.results == expected
    else:
        late = GAP_MS + 1 + GAP_MS // 2
        expected += [(W("b", GAP_MS + 1, GAP_MS + 1), 1, GAP_MS + 1),
                     (W("a", GAP_MS + 1, late), 2, late), (W("c", late, late), 1, late)]
        last = last_per_key(t.results)
        for key, value, ts in expected:
            assert last[key] == (value, ts)


def test_should_get_aggregated_values_from_value_getter(t: Setup) -> None:
    t.process("a", "1", 0)
    t.process("a", "1", GAP_MS + 1)
    t.process("a", "2", GAP_MS + 1)
    assert t.session_store.fetch_session("a", 0, 0) == 1
    assert t.session_store.fetch_session("a", GAP_MS + 1, GAP_MS + 1) == 2


def test_should_immediately_forward_new_session_when_non_cached_store(kind: str) -> None:
    if kind == CLOSE:
        return
    t = Setup(kind, False)
    with t.driver:
        for key in "abc":
            t.process(key, "1", 0)
        assert t.results == [(W("a", 0, 0), 1, 0), (W("b", 0, 0), 1, 0), (W("c", 0, 0), 1, 0)]


def test_should_immediately_forward_removed_sessions_when_merging(kind: str) -> None:
    if kind == CLOSE:
        return
    t = Setup(kind, False)
    with t.driver:
        t.process("a", "1", 0)
        t.process("a", "1", 5)
        assert t.results == [(W("a", 0, 0), 1, 0), (W("a", 0, 0), None, 0),
                             (W("a", 0, 5), 2, 5)]


def test_should_log_and_meter_when_skipping_null_key_with_built_in_metrics(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    t = Setup(kind, False)
    with t.driver, caplog.at_level(logging.WARNING):
        t.process(None, "1", 0)
        assert t.driver.metrics()["0_0"]["dropped-records-total"] == 1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "Skipping record due to null key. topic=[topic] partition=[0] offset=[0]" in warnings


def test_should_log_and_meter_when_skipping_late_record_with_zero_grace(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    t = Setup(kind, False, SessionWindows.of_inactivity_gap_and_grace(10, 0), emit=UPDATE)
    with t.driver:
        t.process("dummy", "dummy", 0)  # establish stream time = 0
        t.process("OnTime1", "1", 0)  # on time, not skipped
        t.process("dummy", "dummy", 11)  # stream time 11: gap 10 plus 1, outside the window
        with caplog.at_level(logging.WARNING):
            t.process("Late1", "1", 0)  # late
        assert ("Skipping record for expired window. topic=[topic] partition=[0] offset=[3] "
                "timestamp=[0] window=[0,0] expiration=[1] streamTime=[11]") in caplog.messages
        assert t.driver.metrics()["0_0"]["dropped-records-total"] == 1


def test_should_log_and_meter_when_skipping_late_record_with_nonzero_grace(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    t = Setup(kind, False, SessionWindows.of_inactivity_gap_and_grace(10, 1), emit=UPDATE)
    with t.driver, caplog.at_level(logging.WARNING):
        t.process("dummy", "dummy", 0)  # establish stream time = 0
        t.process("OnTime1", "1", 0)  # on time
        t.process("dummy", "dummy", 11)  # stream time 11: at the edge of the window
        t.process("OnTime2", "1", 0)  # delayed but on time
        t.process("dummy", "dummy", 12)  # stream time 12: outside the window
        t.process("Late1", "1", 0)  # late
        assert ("Skipping record for expired window. topic=[topic] partition=[0] offset=[5] "
                "timestamp=[0] window=[0,0] expiration=[1] streamTime=[12]") in caplog.messages
        assert t.driver.metrics()["0_0"]["dropped-records-total"] == 1
