"""Kafka's ``TimeWindowedCogroupedKStreamImplTest``, translated to kslab's windowed cogroups.

Java's ``NullPointerException`` for a ``null`` initializer is
``kslab.errors.MissingArgumentError``. Skipped: the tests passing a ``null`` ``Materialized`` or
``Named`` (``shouldNotHaveNullMaterializedOnTwoOptionAggregate``,
``shouldNotHaveNullNamedTwoOptionOnAggregate``, ``shouldNotHaveNullMaterializedOnAggregate``,
``shouldNotHaveNullNamedOnAggregate``): ``None`` means the default in kslab's Python API.
``TimeWindowedDeserializer(StringDeserializer, 500)`` is ``serdes.TimeWindowed(String, 500)``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import TimeWindows
from kslab.errors import MissingArgumentError

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
TOPIC, TOPIC2, OUTPUT = "topic", "topic2", "output"
WINDOW_SIZE = 500


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
        self.grouped_stream2 = stream2.group_by_key(ks.Grouped.with_(S, S))
        self.cogrouped_stream = self.grouped_stream.cogroup(to_string_adder) \
            .cogroup(self.grouped_stream2, to_string_remover)
        self.windowed_cogrouped_stream = self.cogrouped_stream.windowed_by(
            TimeWindows.of_size_with_no_grace(WINDOW_SIZE))

    def run(self, table: ks.KTable, inputs: list) -> list:
        table.to_stream().to(OUTPUT)
        with ks.TopologyTestDriver(self.builder.build(), PROPS) as driver:
            topics = {TOPIC: driver.create_input_topic(TOPIC, S, S),
                      TOPIC2: driver.create_input_topic(TOPIC2, S, S)}
            output = driver.create_output_topic(OUTPUT, serdes.TimeWindowed(S, WINDOW_SIZE), S)
            for topic, key, value, ts in inputs:
                topics[topic].pipe_input(key, value, ts)
            return [(r.key.key, r.value, r.timestamp) for r in output.read_records_to_list()]


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
    stream = builder.stream(TOPIC, ks.Consumed.with_(S, S))
    (stream.group_by_key(ks.Grouped.with_(S, S)).cogroup(to_string_adder)
     .windowed_by(TimeWindows.of_size_with_no_grace(WINDOW_SIZE))
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


def _aggregate(t: Setup) -> ks.KTable:
    return t.windowed_cogrouped_stream.aggregate(string_init, ks.Materialized.with_(S, S))


def test_time_window_aggregate_test_streams_test(t: Setup) -> None:
    inputs = [(TOPIC, k, v, ts) for k, v, ts in [("k1", "A", 0), ("k2", "A", 0), ("k2", "A", 1),
                                                 ("k1", "A", 2), ("k1", "B", 3), ("k2", "B", 3),
                                                 ("k2", "B", 4), ("k1", "B", 4)]]
    assert t.run(_aggregate(t), inputs) == [
        ("k1", "0+A", 0), ("k2", "0+A", 0), ("k2", "0+A+A", 1), ("k1", "0+A+A", 2),
        ("k1", "0+A+A+B", 3), ("k2", "0+A+A+B", 3), ("k2", "0+A+A+B+B", 4),
        ("k1", "0+A+A+B+B", 4)]


def test_time_window_mix_aggregators_test(t: Setup) -> None:
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k2", "A", 0), (TOPIC, "k2", "A", 1),
              (TOPIC, "k1", "A", 2), (TOPIC2, "k1", "B", 3), (TOPIC2, "k2", "B", 3),
              (TOPIC2, "k2", "B", 4), (TOPIC2, "k1", "B", 4)]
    assert t.run(_aggregate(t), inputs) == [
        ("k1", "0+A", 0), ("k2", "0+A", 0), ("k2", "0+A+A", 1), ("k1", "0+A+A", 2),
        ("k1", "0+A+A-B", 3), ("k2", "0+A+A-B", 3), ("k2", "0+A+A-B-B", 4),
        ("k1", "0+A+A-B-B", 4)]


def test_time_window_aggregate_many_windows_test(t: Setup) -> None:
    table = t.grouped_stream.cogroup(to_string_adder) \
        .windowed_by(TimeWindows.of_size_with_no_grace(500)) \
        .aggregate(string_init, ks.Materialized.with_(S, S))
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k2", "A", 499), (TOPIC, "k2", "A", 500),
              (TOPIC, "k1", "A", 500)]
    assert t.run(table, inputs) == [("k1", "0+A", 0), ("k2", "0+A", 499), ("k2", "0+A", 500),
                                    ("k1", "0+A", 500)]


def test_time_window_aggregate_overlapping_windows_test(t: Setup) -> None:
    table = t.grouped_stream.cogroup(to_string_adder) \
        .windowed_by(TimeWindows.of_size_with_no_grace(500).advance_by(200)) \
        .aggregate(string_init, ks.Materialized.with_(S, S))
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k2", "A", 0), (TOPIC, "k1", "B", 250),
              (TOPIC, "k2", "B", 250), (TOPIC, "k2", "A", 500), (TOPIC, "k1", "A", 500)]
    assert t.run(table, inputs) == [
        ("k1", "0+A", 0), ("k2", "0+A", 0), ("k1", "0+A+B", 250), ("k1", "0+B", 250),
        ("k2", "0+A+B", 250), ("k2", "0+B", 250), ("k2", "0+B+A", 500), ("k2", "0+A", 500),
        ("k1", "0+B+A", 500), ("k1", "0+A", 500)]


def test_time_window_mix_aggregators_many_windows_test(t: Setup) -> None:
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k2", "A", 0), (TOPIC, "k2", "A", 1),
              (TOPIC, "k1", "A", 2), (TOPIC2, "k1", "B", 3), (TOPIC2, "k2", "B", 3),
              (TOPIC2, "k2", "B", 501), (TOPIC2, "k1", "B", 501)]
    assert t.run(_aggregate(t), inputs) == [
        ("k1", "0+A", 0), ("k2", "0+A", 0), ("k2", "0+A+A", 1), ("k1", "0+A+A", 2),
        ("k1", "0+A+A-B", 3), ("k2", "0+A+A-B", 3), ("k2", "0-B", 501), ("k1", "0-B", 501)]
