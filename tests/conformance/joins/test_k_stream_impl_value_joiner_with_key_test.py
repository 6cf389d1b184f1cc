"""Kafka's ``KStreamImplValueJoinerWithKeyTest`` (streams, kstream/internals), in kslab.

Java's ``ValueJoinerWithKey`` overloads are the same calls with ``with_key=True``: the joiner
receives the key first. Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S, INT = serdes.String(), serdes.Integer()
LEFT_TOPIC, RIGHT_TOPIC = "left", "right"
KTABLE_TOPIC, GLOBAL_TOPIC = "ktableTopic", "globalTopic"
OUTPUT_TOPIC = "joined-result"
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}
JOIN_WINDOWS = ks.JoinWindows.of_time_difference_and_grace(100, 24 * 3_600_000)
STREAM_JOINED = ks.StreamJoined.with_(S, INT, INT)
JOINED = ks.Joined.with_(S, INT, INT)
PRODUCED = ks.Produced.with_(S, S)


def value_joiner_with_key(key: str, lv: int, rv: int | None) -> str:
    return f"{key}:{lv + (0 if rv is None else rv)}"


def key_value_mapper(k: str, v: int) -> str:
    return k


class Setup:
    """setup(): two streams, a table and a global table, all String keys and Integer values."""

    def __init__(self) -> None:
        self.builder = ks.StreamsBuilder()
        consumed = ks.Consumed.with_(S, INT)
        self.left_stream = self.builder.stream(LEFT_TOPIC, consumed)
        self.right_stream = self.builder.stream(RIGHT_TOPIC, consumed)
        self.ktable = self.builder.table(KTABLE_TOPIC, consumed)
        self.global_ktable = self.builder.global_table(GLOBAL_TOPIC, consumed)


@pytest.fixture
def fx() -> Setup:
    return Setup()


def run_join_topology(builder: ks.StreamsBuilder, expected: list, is_table_join: bool,
                      right_topic: str) -> None:
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        right_input = driver.create_input_topic(right_topic, S, INT)
        left_input = driver.create_input_topic(LEFT_TOPIC, S, INT)
        result = driver.create_output_topic(OUTPUT_TOPIC, S, S)
        # with stream-table joins the table must see its record first: only the stream joins
        if is_table_join:
            right_input.pipe_input("A", 2)
            left_input.pipe_input("A", 3)
        else:
            left_input.pipe_input("A", 3)
            right_input.pipe_input("A", 2)
        assert result.read_key_values_to_list() == expected


def test_should_include_key_in_stream_steam_join_results(fx):
    fx.left_stream.join(fx.right_stream, value_joiner_with_key, JOIN_WINDOWS, STREAM_JOINED,
                        with_key=True).to(OUTPUT_TOPIC, PRODUCED)
    run_join_topology(fx.builder, [ks.KeyValue("A", "A:5")], False, RIGHT_TOPIC)


def test_should_include_key_in_stream_left_join_results(fx):
    fx.left_stream.left_join(fx.right_stream, value_joiner_with_key, JOIN_WINDOWS, STREAM_JOINED,
                             with_key=True).to(OUTPUT_TOPIC, PRODUCED)
    run_join_topology(fx.builder, [ks.KeyValue("A", "A:5")], False, RIGHT_TOPIC)


def test_should_include_key_in_stream_outer_join_results(fx):
    fx.left_stream.outer_join(fx.right_stream, value_joiner_with_key, JOIN_WINDOWS,
                              STREAM_JOINED, with_key=True).to(OUTPUT_TOPIC, PRODUCED)
    run_join_topology(fx.builder, [ks.KeyValue("A", "A:5")], False, RIGHT_TOPIC)


def test_should_include_key_in_stream_table_join_results(fx):
    fx.left_stream.join(fx.ktable, value_joiner_with_key, JOINED, with_key=True) \
        .to(OUTPUT_TOPIC, PRODUCED)
    run_join_topology(fx.builder, [ks.KeyValue("A", "A:5")], True, KTABLE_TOPIC)


def test_should_include_key_in_stream_table_left_join_results(fx):
    fx.left_stream.left_join(fx.ktable, value_joiner_with_key, JOINED, with_key=True) \
        .to(OUTPUT_TOPIC, PRODUCED)
    run_join_topology(fx.builder, [ks.KeyValue("A", "A:5")], True, KTABLE_TOPIC)


def test_should_include_key_in_stream_global_table_join_results(fx):
    fx.left_stream.join(fx.global_ktable, key_value_mapper, value_joiner_with_key,
                        with_key=True).to(OUTPUT_TOPIC, PRODUCED)
    run_join_topology(fx.builder, [ks.KeyValue("A", "A:5")], True, GLOBAL_TOPIC)


def test_should_include_key_in_stream_global_table_left_join_results(fx):
    fx.left_stream.left_join(fx.global_ktable, key_value_mapper, value_joiner_with_key,
                             with_key=True).to(OUTPUT_TOPIC, PRODUCED)
    run_join_topology(fx.builder, [ks.KeyValue("A", "A:5")], True, GLOBAL_TOPIC)
