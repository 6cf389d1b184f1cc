"""The opt-in ``kslab.idle.stream.time.advance.ms``: windows close on a quiet input."""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.core.idle import IdleStreamTime


def _topology() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("clicks", key_serde=serdes.String(), value_serde=serdes.String()).group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(60_000, 10_000)).count()
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()))
     .to_stream().to("out"))
    return b.build()


def _drive(config):
    with ks.TopologyTestDriver(_topology(), config=config) as driver:
        driver.create_input_topic("clicks").pipe_input("a", "x", 1_000)
        out = driver.create_output_topic("out", serdes.TimeWindowed(serdes.String(), 60_000),
                                         serdes.Long())
        driver.advance_wall_clock_time(4_000)
        early = out.read_key_values_to_list()
        driver.advance_wall_clock_time(70_000)
        return early, out.read_records_to_list()


def test_default_is_kafka_streams_behaviour() -> None:
    assert _drive(None) == ([], [])
    assert _drive({"kslab.idle.stream.time.advance.ms": 0}) == ([], [])


def test_idle_input_advances_stream_time_and_suppress_emits() -> None:
    early, late = _drive({"kslab.idle.stream.time.advance.ms": 5_000})
    assert early == []  # idle for 4 s only
    assert late == [ks.TestRecord(ks.Windowed("a", ks.Window(0, 60_000)), 1, 1_000)]


def test_tracker_arithmetic() -> None:
    tracker = IdleStreamTime(100)
    assert tracker.stream_time_at(1_000) is None
    tracker.on_record(1_000, 50)
    assert tracker.stream_time_at(1_099) is None
    assert tracker.stream_time_at(1_100) == 150
    assert IdleStreamTime.from_config({}) is None
