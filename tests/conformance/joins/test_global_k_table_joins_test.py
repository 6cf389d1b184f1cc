"""Kafka's ``GlobalKTableJoinsTest`` (streams, kstream/internals), translated to kslab's DSL.

``MockApiProcessor.lastValueAndTimestampPerKey()`` becomes a dict of the last
``ks.ValueAndTimestamp`` per key the capture processor saw. ``MockValueJoiner.TOSTRING_JOINER``
is ``f"{v1}+{v2}"`` with ``None`` printed as Java's ``null``. Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S = serdes.String()
STREAM_TOPIC, GLOBAL_TOPIC = "stream", "global"


def _s(value: object) -> str:
    return "null" if value is None else str(value)


def tostring_joiner(v1: object, v2: object) -> str:
    """Java's MockValueJoiner.TOSTRING_JOINER."""
    return f"{_s(v1)}+{_s(v2)}"


class Capture(ks.Processor):
    """Java's MockApiProcessor, keeping the last value and timestamp per key."""

    last: dict = {}

    def process(self, record: ks.Record) -> None:
        Capture.last[record.key] = ks.ValueAndTimestamp(record.value, record.timestamp)


@pytest.fixture
def setup():
    Capture.last = {}
    builder = ks.StreamsBuilder()
    consumed = ks.Consumed.with_(S, S)
    global_table = builder.global_table(GLOBAL_TOPIC, consumed)
    stream = builder.stream(STREAM_TOPIC, consumed)
    return builder, global_table, stream


def key_value_mapper(key: str, value: str) -> str:
    return value


def verify_join(builder: ks.StreamsBuilder, expected: dict) -> None:
    props = {"default.key.serde": "string", "default.value.serde": "string"}
    with ks.TopologyTestDriver(builder.build(), props) as driver:
        global_input = driver.create_input_topic(GLOBAL_TOPIC, S, S)
        global_input.pipe_input("a", "A", 1)
        global_input.pipe_input("b", "B", 5)
        stream_input = driver.create_input_topic(STREAM_TOPIC, S, S)
        stream_input.pipe_input("1", "a", 2)
        stream_input.pipe_input("2", "b", 10)
        stream_input.pipe_input("3", "c", 3)
    assert Capture.last == expected


def test_should_left_join_with_stream(setup):
    builder, global_table, stream = setup
    stream.left_join(global_table, key_value_mapper, tostring_joiner).process(Capture)
    verify_join(builder, {"1": ks.ValueAndTimestamp("a+A", 2),
                          "2": ks.ValueAndTimestamp("b+B", 10),
                          "3": ks.ValueAndTimestamp("c+null", 3)})


def test_should_inner_join_with_stream(setup):
    builder, global_table, stream = setup
    stream.join(global_table, key_value_mapper, tostring_joiner).process(Capture)
    verify_join(builder, {"1": ks.ValueAndTimestamp("a+A", 2),
                          "2": ks.ValueAndTimestamp("b+B", 10)})
