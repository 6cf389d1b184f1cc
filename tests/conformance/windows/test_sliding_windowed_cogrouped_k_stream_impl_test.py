"""Kafka's ``SlidingWindowedCogroupedKStreamImplTest``, translated to kslab's windowed cogroups.

Java's ``NullPointerException`` for a ``null`` initializer is
``kslab.errors.MissingArgumentError``. Skipped: the tests passing a ``null`` ``Materialized`` or
``Named`` (``None`` means the default in kslab's Python API). The output is read with
``serdes.TimeWindowed(String, 500)`` as Java's ``TimeWindowedDeserializer(..., 500)``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SlidingWindows
from kslab.errors import MissingArgumentError

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
TOPIC, TOPIC2, OUTPUT = "topic", "topic2", "output"
WINDOW_SIZE_MS = 500


def string_init() -> str:
    return "0"


def to_string_adder(key: object, value: object, agg: str) -> str:
    return f"{agg}+{value}"


def to_string_remover(key: object, value: object, agg: str) -> str:
    return f"{agg}-{value}"


class Setup:
    def __init__(self) -> None:
        self.builder = ks.StreamsBuilder()
        stream = self.builder.stream(TOPIC, ks.Consumed.with_(S, S))
        stream2 = self.builder.stream(TOPIC2, ks.Consumed.with_(S, S))
        self.grouped_stream = stream.group_by_key(ks.Grouped.with_(S, S))
        grouped_stream2 = stream2.group_by_key(ks.Grouped.with_(S, S))
        cogrouped = self.grouped_stream.cogroup(to_string_adder) \
            .cogroup(grouped_stream2, to_string_remover)
        self.windowed_cogrouped_stream = cogrouped.windowed_by(
            SlidingWindows.of_time_difference_and_grace(WINDOW_SIZE_MS, 2000))

    def run(self, table: ks.KTable, inputs: list) -> list:
        table.to_stream().to(OUTPUT)
        with ks.TopologyTestDriver(self.builder.build(), PROPS) as driver:
            topic = driver.create_input_topic(TOPIC, S, S)
            output = driver.create_output_topic(OUTPUT, serdes.TimeWindowed(S, WINDOW_SIZE_MS), S)
            for key, value, ts in inputs:
                topic.pipe_input(key, value, ts)
            return output.read_records_to_list()


@pytest.fixture
def t() -> Setup:
    return Setup()


def test_should_not_have_null_initializer_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(None)


def test_should_not_have_null_initializer_two_option_named_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(None, ks.Named.as_("test"))


def test_should_not_have_null_initializer_two_option_materialized_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(None, ks.Materialized.as_("test"))


def test_should_not_have_null_initializer_three_option_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(None, ks.Named.as_("test"),
                                              ks.Materialized.as_("test"))


def test_named_param_should_set_name() -> None:
    builder = ks.StreamsBuilder()
    (builder.stream(TOPIC, ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .cogroup(to_string_adder)
     .windowed_by(SlidingWindows.of_time_difference_and_grace(WINDOW_SIZE_MS, 2000))
     .aggregate(string_init, ks.Named.as_("foo")))
    assert str(builder.build().describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n"
        "      --> foo-cogroup-agg-0\n"
        "    Processor: foo-cogroup-agg-0 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-"
        "0000000001])\n"
        "      --> foo-cogroup-merge\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: foo-cogroup-merge (stores: [])\n"
        "      --> none\n"
        "      <-- foo-cogroup-agg-0\n\n")


def R(key: str, start: int, value: str, ts: int) -> ks.TestRecord:
    return ks.TestRecord(ks.Windowed(key, ks.Window(start, start + WINDOW_SIZE_MS)), value, None,
                         ts)


def test_sliding_window_aggregate_streams_test(t: Setup) -> None:
    table = t.windowed_cogrouped_stream.aggregate(string_init, ks.Materialized.with_(S, S))
    results = t.run(table, [("k1", "A", 500), ("k2", "A", 500), ("k2", "A", 501),
                            ("k1", "A", 502), ("k1", "B", 503), ("k2", "B", 503),
                            ("k2", "B", 504), ("k1", "B", 504)])
    assert results == [
        R("k1", 0, "0+A", 500), R("k2", 0, "0+A", 500),
        R("k2", 501, "0+A", 501), R("k2", 1, "0+A+A", 501),
        R("k1", 501, "0+A", 502), R("k1", 2, "0+A+A", 502),
        R("k1", 501, "0+A+B", 503), R("k1", 503, "0+B", 503), R("k1", 3, "0+A+A+B", 503),
        R("k2", 501, "0+A+B", 503), R("k2", 502, "0+B", 503), R("k2", 3, "0+A+A+B", 503),
        R("k2", 502, "0+B+B", 504), R("k2", 501, "0+A+B+B", 504), R("k2", 504, "0+B", 504),
        R("k2", 4, "0+A+A+B+B", 504),
        R("k1", 503, "0+B+B", 504), R("k1", 501, "0+A+B+B", 504), R("k1", 504, "0+B", 504),
        R("k1", 4, "0+A+A+B+B", 504)]


def test_sliding_window_aggregate_overlapping_windows_test(t: Setup) -> None:
    table = t.grouped_stream.cogroup(to_string_adder) \
        .windowed_by(SlidingWindows.of_time_difference_and_grace(WINDOW_SIZE_MS, 2000)) \
        .aggregate(string_init, ks.Materialized.with_(S, S))
    results = t.run(table, [("k1", "A", 500), ("k2", "A", 500), ("k1", "B", 750),
                            ("k2", "B", 750), ("k2", "A", 1000), ("k1", "A", 1000)])
    assert [(r.key.key, r.value, r.timestamp) for r in results] == [
        ("k1", "0+A", 500), ("k2", "0+A", 500), ("k1", "0+B", 750), ("k1", "0+A+B", 750),
        ("k2", "0+B", 750), ("k2", "0+A+B", 750), ("k2", "0+B+A", 1000), ("k2", "0+A", 1000),
        ("k2", "0+A+B+A", 1000), ("k1", "0+B+A", 1000), ("k1", "0+A", 1000),
        ("k1", "0+A+B+A", 1000)]
