"""``TopologyTestDriver.restore_from_changelog`` with whole changelog records.

Headers reach the store (the suppression buffer picks Java's changelog format by its ``v``
header, as ``InMemoryTimeOrderedKeyValueChangeBuffer.restoreBatch`` does), and ``bytes`` keys and
values of ``TestRecord``s pass unchanged into stores whose changelog bytes are their own layout
(suppression buffer, window and session stores; the grace buffer's case is in
tests/dsl/test_versioned_grace_join.py), where the store's serdes cannot make them.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.dsl import SessionWindows, TimeWindows
from kslab.dsl.suppress import BufferConfig, Suppressed
from kslab.records import Headers
from kslab.state.buffer import ChangelogRecord

S = serdes.String()
STORE = "limit-store"
CHANGELOG = f"topology-test-driver-{STORE}-changelog"

# Java's TimeOrderedKeyValueBufferTest.shouldRestoreV2Format: values captured from 2.3 code,
# restored under the header v = 2 (ContextualRecord, prior value, buffer time)
_V2 = [
    ("todelete", "0000000000000000000000000000000000000005746F70696300000000FFFFFFFF0000000E"
                 "FFFFFFFF00000006646F6F6D6564FFFFFFFF0000000000000000", 999),
    ("asdf", "0000000000000001000000000000000000000005746F70696300000000FFFFFFFF0000000CFFFFFFFF"
             "0000000471776572FFFFFFFF0000000000000002", 9999),
    ("zxcv", "0000000000000002000000000000000000000005746F70696300000000FFFFFFFF0000001400000007"
             "49474E4F52454400000005336F34696D0000000870726576696F75730000000000000001", 99),
    ("zxcv", "0000000000000003000000000000000000000005746F70696300000000FFFFFFFF0000001100000005"
             "336F34696D000000046E6578740000000870726576696F75730000000000000001", 100),
]


def _limited() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.table("in", ks.Consumed.with_(S, S))
     .suppress(Suppressed.until_time_limit(10, BufferConfig.unbounded()).with_name("limit"))
     .to_stream().to("out", ks.Produced.with_(S, S)))
    return b.build()


def _v2_header() -> Headers:
    return Headers([("v", b"\x02")])


def _emitted_after_restore(records: list) -> list[tuple[str, str, int]]:
    """Restore ``records`` into the buffer, advance stream time to 100, read what it emits."""
    with ks.TopologyTestDriver(_limited()) as driver:
        assert driver.restore_from_changelog(STORE, records) == len(records)
        driver.create_input_topic("in").pipe_input("other", "x", 100)
        out = driver.create_output_topic("out")
        return [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]


# Java evicts zxcv (buffer time 1) then asdf (buffer time 2), each with its restored record
# context's timestamp; todelete was deleted by its tombstone
_JAVA_EVICTIONS = [("zxcv", "next", 3), ("asdf", "qwer", 1)]


def test_suppress_buffer_restores_v2_changelog_records() -> None:
    records = [ChangelogRecord(key.encode(), bytes.fromhex(value), ts, _v2_header(), CHANGELOG, 0,
                               offset) for offset, (key, value, ts) in enumerate(_V2)]
    records.append(ChangelogRecord(b"todelete", None, 3, Headers(), CHANGELOG, 0, 3))
    assert _emitted_after_restore(records) == _JAVA_EVICTIONS


def test_suppress_buffer_restores_v2_test_records_read_as_bytes() -> None:
    records = [ks.TestRecord(key.encode(), bytes.fromhex(value), ts, _v2_header())
               for key, value, ts in _V2]
    records.append(ks.TestRecord(b"todelete", None, 3))
    assert _emitted_after_restore(records) == _JAVA_EVICTIONS


def test_suppress_buffer_restores_its_own_changelog_test_records() -> None:
    with ks.TopologyTestDriver(_limited()) as first:
        topic = first.create_input_topic("in")
        topic.pipe_input("a", "1", 0)
        topic.pipe_input("b", "2", 5)
        saved = first.create_output_topic(CHANGELOG, serdes.Bytes(), serdes.Bytes()) \
            .read_records_to_list()
        assert first.create_output_topic("out").read_records_to_list() == []
    assert [r.headers.last_header("v").value for r in saved] == [b"\x03", b"\x03"]
    assert _emitted_after_restore(saved) == [("a", "1", 0), ("b", "2", 5)]


def _windowed_counts() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("clicks", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(TimeWindows.of_size_and_grace(60_000, 10_000))
     .count(ks.Materialized.as_("click-counts"))
     .suppress(Suppressed.until_window_closes(BufferConfig.unbounded()))
     .to_stream().map(lambda k, v: (k.key, f"{k.window.start}:{v}"))
     .to("final", ks.Produced.with_(S, S)))
    return b.build({"application.id": "app"})


def _first_run() -> dict[str, list[ks.TestRecord]]:
    """Count three clicks in window 0; return both changelogs read with Bytes serdes."""
    names = {"click-counts": "topology-test-driver-click-counts-changelog",
             "KTABLE-SUPPRESS-STATE-STORE-0000000003":
                 "topology-test-driver-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog"}
    with ks.TopologyTestDriver(_windowed_counts()) as first:
        topic = first.create_input_topic("clicks")
        for key, ts in [("a", 0), ("a", 1000), ("b", 2000)]:
            topic.pipe_input(key, "x", ts)
        return {store: first.create_output_topic(changelog, serdes.Bytes(), serdes.Bytes())
                .read_records_to_list() for store, changelog in names.items()}


def test_window_store_restores_test_records_read_as_bytes() -> None:
    saved = _first_run()["click-counts"]
    assert len(saved) == 3
    with ks.TopologyTestDriver(_windowed_counts()) as second:
        assert second.restore_from_changelog("click-counts", saved) == 3
        store = second.get_timestamped_window_store("click-counts")
        assert store.fetch("a", 0) == ks.ValueAndTimestamp(2, 1000)
        assert store.fetch("b", 0) == ks.ValueAndTimestamp(1, 2000)
        second.create_input_topic("clicks").pipe_input("a", "x", 3000)
        assert store.fetch("a", 0) == ks.ValueAndTimestamp(3, 3000)


def test_windowed_suppress_buffer_restores_test_records_read_as_bytes() -> None:
    saved = _first_run()["KTABLE-SUPPRESS-STATE-STORE-0000000003"]
    assert len(saved) == 3
    with ks.TopologyTestDriver(_windowed_counts()) as second:
        second.restore_from_changelog("KTABLE-SUPPRESS-STATE-STORE-0000000003", saved)
        second.create_input_topic("clicks").pipe_input("c", "x", 80_000)
        out = second.create_output_topic("final").read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in out] == [("a", "0:2", 1000), ("b", "0:1", 2000)]


def _session_counts() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("clicks", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(1000))
     .count(ks.Materialized.as_("sessions")))
    return b.build()


def test_session_store_restores_test_records_read_as_bytes() -> None:
    with ks.TopologyTestDriver(_session_counts()) as first:
        topic = first.create_input_topic("clicks")
        for key, ts in [("a", 0), ("a", 500), ("b", 1000)]:  # all within retention (1000)
            topic.pipe_input(key, "x", ts)
        saved = first.create_output_topic("topology-test-driver-sessions-changelog",
                                          serdes.Bytes(), serdes.Bytes()).read_records_to_list()
    with ks.TopologyTestDriver(_session_counts()) as second:
        assert second.restore_from_changelog("sessions", saved) == len(saved)
        store = second.get_session_store("sessions")
        assert store.fetch_session("a", 0, 500) == 2
        assert store.fetch_session("a", 0, 0) is None
        assert store.fetch_session("b", 1000, 1000) == 1
