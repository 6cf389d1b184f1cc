"""Kafka's ``SessionWindowedCogroupedKStreamImplTest``, translated to kslab's windowed cogroups.

Java's ``NullPointerException`` for a ``null`` initializer or session merger is
``kslab.errors.MissingArgumentError``. Skipped: the tests passing only a ``null``
``Materialized`` or ``Named`` (``shouldNotHaveNullMaterializedOnAggregate``,
``shouldNotHaveNullMaterialized2OnAggregate``, ``shouldNotHaveNullNamedOnAggregate``,
``shouldNotHaveNullNamed2OnAggregate``): ``None`` means the default in kslab's Python API.
The output is read with ``serdes.SessionWindowed(String)``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import SessionWindows
from kslab.errors import MissingArgumentError

S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
TOPIC, TOPIC2, OUTPUT = "topic", "topic2", "output"
ONE_DAY = 24 * 60 * 60 * 1000


def string_init() -> str:
    return "0"


def to_string_adder(key: object, value: object, agg: str) -> str:
    return f"{agg}+{value}"


def to_string_remover(key: object, value: object, agg: str) -> str:
    return f"{agg}-{value}"


def session_merger(key: object, one: str, two: str) -> str:
    return f"{one}+{two}"


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
            SessionWindows.of_inactivity_gap_and_grace(100, ONE_DAY))

    def run(self, table: ks.KTable, inputs: list) -> list:
        table.to_stream().to(OUTPUT)
        with ks.TopologyTestDriver(self.builder.build(), PROPS) as driver:
            topics = {TOPIC: driver.create_input_topic(TOPIC, S, S),
                      TOPIC2: driver.create_input_topic(TOPIC2, S, S)}
            output = driver.create_output_topic(OUTPUT, serdes.SessionWindowed(S), S)
            for topic, key, value, ts in inputs:
                topics[topic].pipe_input(key, value, ts)
            return [(r.key.key, r.value, r.timestamp) for r in output.read_records_to_list()]

    def aggregate(self) -> ks.KTable:
        return self.windowed_cogrouped_stream.aggregate(string_init, session_merger,
                                                        ks.Materialized.with_(S, S))

    def single(self) -> ks.KTable:
        return (self.grouped_stream.cogroup(to_string_adder)
                .windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(500))
                .aggregate(string_init, session_merger, ks.Materialized.with_(S, S)))


@pytest.fixture
def t() -> Setup:
    return Setup()


def test_should_not_have_null_initializer_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(None, session_merger)


def test_should_not_have_null_session_merger_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(string_init, None)


def test_should_not_have_null_session_merger2_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(string_init, None, ks.Materialized.as_("test"))


def test_should_not_have_null_initializer2_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(None, session_merger, ks.Materialized.as_("test"))


def test_should_not_have_null_session_merger3_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(string_init, None, ks.Named.as_("name"),
                                              ks.Materialized.as_("test"))


def test_should_not_have_null_initializer3_on_aggregate(t: Setup) -> None:
    with pytest.raises(MissingArgumentError):
        t.windowed_cogrouped_stream.aggregate(None, session_merger, ks.Named.as_("name"),
                                              ks.Materialized.as_("test"))


def test_named_param_should_set_name() -> None:
    builder = ks.StreamsBuilder()
    (builder.stream(TOPIC, ks.Consumed.with_(S, S)).group_by_key(ks.Grouped.with_(S, S))
     .cogroup(to_string_adder).windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(1))
     .aggregate(string_init, session_merger, ks.Named.as_("foo")))
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


def test_session_window_aggregate_test(t: Setup) -> None:
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k2", "A", 0), (TOPIC, "k1", "B", 599),
              (TOPIC, "k2", "B", 607)]
    assert t.run(t.single(), inputs) == [("k1", "0+A", 0), ("k2", "0+A", 0),
                                         ("k1", "0+B", 599), ("k2", "0+B", 607)]


def test_session_window_aggregate2_test(t: Setup) -> None:
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k1", "A", 0), (TOPIC, "k2", "B", 599),
              (TOPIC, "k1", "B", 607)]
    assert t.run(t.single(), inputs) == [("k1", "0+A", 0), ("k1", "0+0+A+A", 0),
                                         ("k2", "0+B", 599), ("k1", "0+B", 607)]


def test_session_window_aggregate_test2_streams_test(t: Setup) -> None:
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k1", "A", 84), (TOPIC, "k1", "A", 113),
              (TOPIC, "k1", "A", 199), (TOPIC, "k1", "B", 300), (TOPIC, "k2", "B", 301),
              (TOPIC, "k2", "B", 400), (TOPIC, "k1", "B", 400)]
    assert t.run(t.aggregate(), inputs) == [
        ("k1", "0+A", 0), ("k1", None, 0), ("k1", "0+0+A+A", 84), ("k1", None, 84),
        ("k1", "0+0+0+A+A+A", 113), ("k1", None, 113), ("k1", "0+0+0+0+A+A+A+A", 199),
        ("k1", "0+B", 300), ("k2", "0+B", 301), ("k2", None, 301), ("k2", "0+0+B+B", 400),
        ("k1", None, 300), ("k1", "0+0+B+B", 400)]


def test_session_window_mix_aggregators_test(t: Setup) -> None:
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k2", "A", 0), (TOPIC, "k2", "A", 1),
              (TOPIC, "k1", "A", 2), (TOPIC2, "k1", "B", 3), (TOPIC2, "k2", "B", 3),
              (TOPIC2, "k2", "B", 444), (TOPIC2, "k1", "B", 444)]
    assert t.run(t.aggregate(), inputs) == [
        ("k1", "0+A", 0), ("k2", "0+A", 0), ("k2", None, 0), ("k2", "0+0+A+A", 1),
        ("k1", None, 0), ("k1", "0+0+A+A", 2), ("k1", None, 2), ("k1", "0+0+0+A+A-B", 3),
        ("k2", None, 1), ("k2", "0+0+0+A+A-B", 3), ("k2", "0-B", 444), ("k1", "0-B", 444)]


def test_session_window_mix_aggregators_many_windows_test(t: Setup) -> None:
    inputs = [(TOPIC, "k1", "A", 0), (TOPIC, "k2", "A", 0), (TOPIC, "k2", "A", 1),
              (TOPIC, "k1", "A", 2), (TOPIC2, "k1", "B", 3), (TOPIC2, "k2", "B", 500),
              (TOPIC2, "k2", "B", 501), (TOPIC2, "k1", "B", 501)]
    assert t.run(t.aggregate(), inputs) == [
        ("k1", "0+A", 0), ("k2", "0+A", 0), ("k2", None, 0), ("k2", "0+0+A+A", 1),
        ("k1", None, 0), ("k1", "0+0+A+A", 2), ("k1", None, 2), ("k1", "0+0+0+A+A-B", 3),
        ("k2", "0-B", 500), ("k2", None, 500), ("k2", "0+0-B-B", 501), ("k1", "0-B", 501)]
