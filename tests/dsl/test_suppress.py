"""Suppression: final window results, time limits, buffer bounds and restarts from the changelog."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import TimeWindows
from kslab.dsl.suppress import BufferConfig, Suppressed
from kslab.records import Window, Windowed

WINDOWED = serdes.TimeWindowed(serdes.String(), 60_000)


def _clicks(suppressed: Suppressed) -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("clicks", key_serde=serdes.String(), value_serde=serdes.String()).group_by_key()
     .windowed_by(TimeWindows.of_size_and_grace(60_000, 10_000))
     .count(ks.Materialized.as_("click-counts"))
     .suppress(suppressed)
     .to_stream().to("click-counts-final"))
    return b.build({"application.id": "app"})


def _pipe(driver: ks.TopologyTestDriver, inputs: list[tuple[str, int]]) -> list:
    topic = driver.create_input_topic("clicks")
    out = driver.create_output_topic("click-counts-final", WINDOWED, serdes.Long())
    emitted = []
    for key, ts in inputs:
        topic.pipe_input(key, "x", ts)
        emitted += [(r.key.key, r.key.window.start, r.value, r.timestamp)
                    for r in out.read_records_to_list()]
    return emitted


def test_until_window_closes_emits_final_counts_once() -> None:
    topology = _clicks(Suppressed.until_window_closes(BufferConfig.unbounded()))
    text = str(topology.describe())
    assert "Processor: KTABLE-SUPPRESS-0000000002 (stores: " \
           "[KTABLE-SUPPRESS-STATE-STORE-0000000003])" in text
    with ks.TopologyTestDriver(topology) as driver:
        emitted = _pipe(driver, [("a", 0), ("a", 1000), ("b", 30_000), ("a", 65_000),
                                 ("a", 69_999), ("a", 70_000), ("a", 5_000), ("b", 200_000)])
    # window [0, 60000) closes at 70000; the late record at 5000 is dropped
    assert emitted == [("a", 0, 2, 1000), ("b", 0, 1, 30_000), ("a", 60_000, 3, 70_000)]


def test_until_time_limit_rate_limits_per_key() -> None:
    b = ks.StreamsBuilder()
    (b.table("in", key_serde=serdes.String(), value_serde=serdes.Long())
     .suppress(Suppressed.until_time_limit(10, BufferConfig.unbounded()).with_name("limit"))
     .to_stream().to("out"))
    topology = b.build()
    assert "(stores: [limit-store])" in str(topology.describe())
    with ks.TopologyTestDriver(topology) as driver:
        topic = driver.create_input_topic("in")
        out = driver.create_output_topic("out", serdes.String(), serdes.Long())
        topic.pipe_input("a", 1, 0)
        topic.pipe_input("a", 2, 5)
        assert out.read_key_values_to_list() == []
        topic.pipe_input("b", 7, 15)  # a, first buffered at 0, waited 10 ms
        assert out.read_records_to_list() == [ks.TestRecord("a", 2, 5)]
        # a newer change keeps b's first buffer time (15), as Java's buffer does: due at 25
        topic.pipe_input("b", 8, 30)
        assert out.read_key_values_to_list() == [ks.KeyValue("b", 8)]
        topic.pipe_input("c", 9, 40)
        assert out.read_key_values_to_list() == []


def test_emit_early_when_full() -> None:
    b = ks.StreamsBuilder()
    (b.table("in", key_serde=serdes.String(), value_serde=serdes.Long())
     .suppress(Suppressed.until_time_limit(1000, BufferConfig.max_records(1)))
     .to_stream().to("out"))
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("in")
        out = driver.create_output_topic("out", serdes.String(), serdes.Long())
        topic.pipe_input("a", 1, 0)
        topic.pipe_input("b", 2, 1)
        assert out.read_key_values_to_list() == [ks.KeyValue("a", 1)]


def test_shut_down_when_full_fails_the_task() -> None:
    topology = _clicks(Suppressed.until_window_closes(
        BufferConfig.max_records(1).shut_down_when_full()))
    with ks.TopologyTestDriver(topology) as driver:
        topic = driver.create_input_topic("clicks")
        topic.pipe_input("a", "x", 0)
        with pytest.raises(ks.StreamsError, match=r"KTABLE-SUPPRESS-0000000002 buffer exceeded "
                           r"its max capacity. Currently \[2/1\] records"):
            topic.pipe_input("b", "x", 1)


def test_restart_re_emits_from_the_buffer_changelog() -> None:
    topology = _clicks(Suppressed.until_window_closes(BufferConfig.unbounded()))
    store = "KTABLE-SUPPRESS-STATE-STORE-0000000003"
    changelog = f"topology-test-driver-{store}-changelog"
    with ks.TopologyTestDriver(topology) as first:
        assert _pipe(first, [("a", 0), ("a", 1000), ("b", 2000)]) == []
        records = first.create_output_topic(changelog, serdes.Bytes(), serdes.Bytes())
        saved = [(r.key, r.value, r.timestamp) for r in records.read_records_to_list()]
    assert len(saved) == 3
    with ks.TopologyTestDriver(topology) as second:
        second.restore_from_changelog(store, saved)
        emitted = _pipe(second, [("c", 80_000)])
    assert emitted == [("a", 0, 2, 1000), ("b", 0, 1, 2000)]
    assert Windowed("a", Window(0, 60_000)) == Windowed("a", Window(0, 60_000))


def test_seed_final_windowed_counts() -> None:
    """Seed 000, "Final windowed counts", as written there (in Python)."""
    b = ks.StreamsBuilder()
    (b.stream("clicks", key_serde=serdes.String(), value_serde=serdes.String())
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size(60_000).grace(10_000))
     .count("click-counts")
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()))
     .to_stream()
     .to("click-counts-final"))
    with ks.TopologyTestDriver(b.build()) as driver:
        emitted = _pipe(driver, [("u1", 0), ("u1", 30_000), ("u2", 59_999), ("u1", 75_000)])
    assert emitted == [("u1", 0, 2, 30_000), ("u2", 0, 1, 59_999)]


def test_seed_revenue_per_window() -> None:
    """Seed 000, revenue per window: a compound aggregate per region and window."""
    b = ks.StreamsBuilder()
    (b.stream("orders", key_serde=serdes.String(), value_serde=serdes.Json())
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size(60_000).grace(10_000))
     .aggregate(lambda: {"order_count": 0, "gross_cents": 0},
                lambda region, order, acc: {"order_count": acc["order_count"] + 1,
                                            "gross_cents": acc["gross_cents"]
                                            + order["amount_cents"]},
                "revenue-by-window")
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()))
     .to_stream()
     .to("revenue-per-window"))
    with ks.TopologyTestDriver(b.build()) as driver:
        orders = driver.create_input_topic("orders")
        out = driver.create_output_topic("revenue-per-window", WINDOWED, serdes.Json())
        orders.pipe_input("eu", {"order_id": "1", "region": "eu", "amount_cents": 500}, 1_000)
        orders.pipe_input("eu", {"order_id": "2", "region": "eu", "amount_cents": 250}, 2_000)
        orders.pipe_input("us", {"order_id": "3", "region": "us", "amount_cents": 900}, 80_000)
        assert out.read_key_values_to_list() == [
            ks.KeyValue(Windowed("eu", Window(0, 60_000)),
                        {"order_count": 2, "gross_cents": 750}),
        ]


def test_buffer_changelog_bytes_as_java_writes_them() -> None:
    """InMemoryTimeOrderedKeyValueChangeBuffer.logValue: key = the windowed key's bytes, value =
    ProcessorRecordContext + BufferValue (prior, old or -2 when equal to prior, new) + 8-byte
    buffer time, header v = 3; an eviction is a tombstone without headers. Suppress makes the
    windowed count send old values; with the record cache on (the default) the cache's flush
    reads the old value from the store (Java's CachingWindowStore), so a new window's prior and
    old are null (-1) and the second update carries old = 1."""
    import struct

    topology = _clicks(Suppressed.until_window_closes(BufferConfig.unbounded()))
    store = "KTABLE-SUPPRESS-STATE-STORE-0000000003"
    with ks.TopologyTestDriver(topology) as driver:
        _pipe(driver, [("a", 5), ("a", 7), ("b", 80_000)])
        changelog = driver.create_output_topic(f"topology-test-driver-{store}-changelog",
                                               serdes.Bytes(), serdes.Bytes())
        logged = changelog.read_records_to_list()

    def context(timestamp: int, offset: int) -> bytes:
        return struct.pack(">qqi", timestamp, offset, 6) + b"clicks" + struct.pack(">ii", 0, 0)

    def long_value(n: int) -> bytes:
        return struct.pack(">iq", 8, n)

    key_a = b"a" + struct.pack(">q", 0)
    assert [(r.key, r.value, r.timestamp) for r in logged] == [
        (key_a, context(5, 0) + struct.pack(">ii", -1, -1) + long_value(1)
         + struct.pack(">q", 60_000), 5),
        (key_a, context(7, 1) + struct.pack(">i", -1) + long_value(1) + long_value(2)
         + struct.pack(">q", 60_000), 7),
        (key_a, None, 80_000),
        (b"b" + struct.pack(">q", 60_000),
         context(80_000, 2) + struct.pack(">ii", -1, -1) + long_value(1)
         + struct.pack(">q", 120_000), 80_000),
    ]
    assert [list(r.headers) for r in logged] == [[("v", b"\x03")]] * 2 + [[]] + \
        [[("v", b"\x03")]]
