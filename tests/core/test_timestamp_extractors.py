"""Java's built-in timestamp extractors inside the TopologyTestDriver, end to end.

A negative timestamp under ``LogAndSkipOnInvalidTimestamp`` drops the record and counts it in
``dropped-records-total`` (Java's dropped-records sensor); ``UsePartitionTimeOnInvalidTimestamp``
gives it the partition time; ``WallclockTimestampExtractor`` reads the engine's wall clock,
which in the driver is the mocked one ``advance_wall_clock_time`` moves (Java's extractor would
read the real clock). Sources take an extractor as an instance, a class, or, through
``default.timestamp.extractor``, Java's class name.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import kslab as ks
from kslab.config import ConfigError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

JAVA = "org.apache.kafka.streams.processor."


def _topology(extractor: Any = None) -> ks.Topology:
    """in -> out, strings, with ``extractor`` on the source."""
    topology = ks.Topology()
    topology.add_source("source", "in", key_serde="string", value_serde="string",
                        timestamp_extractor=extractor)
    topology.add_sink("sink", "out", "source", key_serde="string", value_serde="string")
    return topology


def _run(topology: ks.Topology, records: list[tuple[str, str, int]],
         config: dict[str, Any] | None = None, **driver: Any) -> tuple[list[Any], int]:
    """The output records' (key, value, timestamp) and the dropped-records count."""
    with ks.TopologyTestDriver(topology, config, **driver) as d:
        topic = d.create_input_topic("in")
        for key, value, timestamp in records:
            # a negative time goes in as a datetime before the epoch (Java's Instant): the
            # input topic refuses negative ms, as Java's TestRecord does
            topic.pipe_input(key, value, timestamp if timestamp >= 0
                             else EPOCH + timedelta(milliseconds=timestamp))
        out = [(r.key, r.value, r.timestamp)
               for r in d.create_output_topic("out").read_records_to_list()]
        return out, d.metrics()["0_0"]["dropped-records-total"]


def test_log_and_skip_drops_and_counts_a_negative_timestamp(caplog):
    with caplog.at_level(logging.WARNING):
        out, dropped = _run(_topology(ks.LogAndSkipOnInvalidTimestamp()),
                            [("a", "1", 5), ("b", "2", -3), ("c", "3", 7)])
    assert out == [("a", "1", 5), ("c", "3", 7)]
    assert dropped == 1
    assert any("will be dropped because it has an invalid (negative) timestamp" in m
               for m in caplog.messages)
    assert any(m.startswith("Skipping record due to negative extracted timestamp. topic=[in] "
                            "partition=[0] offset=[1] extractedTimestamp=[-3] extractor=["
                            "kslab.processor.timestamps.LogAndSkipOnInvalidTimestamp]")
               for m in caplog.messages)


def test_use_partition_time_gives_a_negative_timestamp_the_partition_time():
    out, dropped = _run(_topology(ks.UsePartitionTimeOnInvalidTimestamp),
                        [("a", "1", 10), ("b", "2", 4), ("c", "3", -1)])
    assert out == [("a", "1", 10), ("b", "2", 4), ("c", "3", 10)]
    assert dropped == 0


def test_use_partition_time_fails_while_the_partition_time_is_unknown():
    with pytest.raises(ks.StreamsError, match=r"^Could not infer new timestamp for input record "
                                              r".* because partition time is unknown\.$"):
        _run(_topology(ks.UsePartitionTimeOnInvalidTimestamp()), [("a", "1", -1)])


def test_wallclock_reads_the_drivers_mocked_clock():
    topology = _topology(ks.WallclockTimestampExtractor())
    with ks.TopologyTestDriver(topology, initial_wall_clock_time=1000) as d:
        topic = d.create_input_topic("in")
        topic.pipe_input("a", "1", 5)
        d.advance_wall_clock_time(500)
        topic.pipe_input("b", "2", 99)
        out = d.create_output_topic("out").read_records_to_list()
    assert [(r.key, r.timestamp) for r in out] == [("a", 1000), ("b", 1500)]


@pytest.mark.parametrize("setting", [
    ks.UsePartitionTimeOnInvalidTimestamp(), ks.UsePartitionTimeOnInvalidTimestamp,
    JAVA + "UsePartitionTimeOnInvalidTimestamp", "UsePartitionTimeOnInvalidTimestamp",
])
def test_default_timestamp_extractor_takes_an_instance_a_class_or_a_class_name(setting):
    out, _ = _run(_topology(), [("a", "1", 10), ("b", "2", -1)],
                  {"default.timestamp.extractor": setting})
    assert out == [("a", "1", 10), ("b", "2", 10)]


def test_default_timestamp_extractor_refuses_an_unknown_class_name():
    with pytest.raises(ConfigError) as info:
        ks.TopologyTestDriver(_topology(), {"default.timestamp.extractor": "com.x.Nope"})
    assert str(info.value) == ("Invalid value com.x.Nope for configuration "
                               "default.timestamp.extractor: Class com.x.Nope could not be found.")


def test_the_config_accepts_exactly_the_built_in_extractors():
    from kslab.config import TIMESTAMP_EXTRACTORS
    from kslab.processor import timestamps

    built_in = {name for name in timestamps.__all__ if name != "resolve_timestamp_extractor"}
    assert set(TIMESTAMP_EXTRACTORS) == built_in - {"TimestampExtractor"}
    for name in TIMESTAMP_EXTRACTORS:
        assert type(timestamps.resolve_timestamp_extractor(JAVA + name)).__name__ == name


def test_a_source_extractor_wins_over_the_default():
    config = {"default.timestamp.extractor": JAVA + "UsePartitionTimeOnInvalidTimestamp"}
    out, dropped = _run(_topology(ks.LogAndSkipOnInvalidTimestamp()), [("a", "1", -1)], config)
    assert (out, dropped) == ([], 1)


def test_consumed_takes_a_built_in_extractor():
    builder = ks.StreamsBuilder()
    consumed = ks.Consumed.with_(ks.serdes.String(), ks.serdes.String()) \
        .with_timestamp_extractor(ks.LogAndSkipOnInvalidTimestamp())
    builder.stream("in", consumed).to("out", ks.Produced.with_(ks.serdes.String(),
                                                               ks.serdes.String()))
    out, dropped = _run(builder.build(), [("a", "1", -1), ("b", "2", 3)])
    assert (out, dropped) == ([("b", "2", 3)], 1)


@pytest.mark.parametrize("extractor", [None, ks.FailOnInvalidTimestamp(),
                                       JAVA + "FailOnInvalidTimestamp"])
def test_fail_on_invalid_timestamp_stops_on_a_negative_timestamp(extractor):
    config = None if extractor is None else {"default.timestamp.extractor": extractor}
    with pytest.raises(ks.StreamsError, match=r"^Input record .* has invalid \(negative\) "
                                              r"timestamp\. Possibly because a pre-0\.10"):
        _run(_topology(), [("a", "1", -5)], config)


def test_an_extractors_streams_error_stops_the_task_as_it_is():
    def extractor(record: Any, partition_time: int) -> int:
        raise ks.StreamsError("mine")

    with pytest.raises(ks.StreamsError, match=r"^mine$"):
        _run(_topology(extractor), [("a", "1", 1)])


def test_another_extractor_error_is_a_fatal_user_code_error():
    def extractor(record: Any, partition_time: int) -> int:
        raise ValueError("bad")

    with pytest.raises(ks.StreamsError) as info:
        _run(_topology(extractor), [("a", "1", 1)])
    assert str(info.value).startswith(
        "Fatal user code error in TimestampExtractor callback for record ConsumerRecord(")
    assert str(info.value).endswith("raised ValueError('bad'); fix the extractor")
    assert isinstance(info.value.__cause__, ValueError)


def test_a_subclass_of_fail_on_invalid_timestamp_is_called():
    class UseZero(ks.FailOnInvalidTimestamp):
        def on_invalid_timestamp(self, record: Any, record_timestamp: int,
                                 partition_time: int) -> int:
            return 0

    assert ks.FailOnInvalidTimestamp.uses_record_timestamp
    assert not UseZero.uses_record_timestamp
    out, _ = _run(_topology(UseZero()), [("a", "1", -5)])
    assert out == [("a", "1", 0)]


def test_a_timestamp_extractor_subclass_reads_the_value():
    class FromValue(ks.TimestampExtractor):
        def extract(self, record: Any, partition_time: int) -> int:
            return int(record.value) + max(partition_time, 0)

    out, _ = _run(_topology(FromValue), [("a", "10", 0), ("b", "5", 0)])
    assert out == [("a", "10", 10), ("b", "5", 15)]
    with pytest.raises(TypeError):
        ks.TimestampExtractor()  # abstract, as Java's interface


def test_a_source_takes_a_built_in_class_name_and_refuses_another():
    out, dropped = _run(_topology(JAVA + "LogAndSkipOnInvalidTimestamp"), [("a", "1", -1)])
    assert (out, dropped) == ([], 1)
    with pytest.raises(ks.TopologyError, match=r"^Source 'source' has timestamp_extractor="
                                               r"'Nope', which names no built-in extractor"):
        ks.TopologyTestDriver(_topology("Nope"))
