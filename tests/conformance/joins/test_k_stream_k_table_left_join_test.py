"""Kafka's ``KStreamKTableLeftJoinTest`` (streams, kstream/internals), translated to kslab's DSL.

Java's ``MockApiProcessorSupplier`` under the join becomes a capture processor appending
``(key, value, timestamp)``; ``checkAndClearProcessResult`` becomes ``drain()``.
``MockValueJoiner.TOSTRING_JOINER`` is ``f"{v1}+{v2}"`` with ``None`` printed as Java's
``null``. ``pushToTable``'s random timestamps come from a seeded ``random.Random``.
``copartitionGroups()`` of Java's internal topology builder is ``Topology.copartition_groups()``.
Nothing is skipped.
"""

from __future__ import annotations

import random

import pytest

import kslab as ks
from kslab import serdes

INT, S = serdes.Integer(), serdes.String()
STREAM_TOPIC = "streamTopic"
TABLE_TOPIC = "tableTopic"
EXPECTED_KEYS = [0, 1, 2, 3]
PROPS = {"default.key.serde": "integer", "default.value.serde": "string"}


def _s(value: object) -> str:
    return "null" if value is None else str(value)


def tostring_joiner(v1: object, v2: object) -> str:
    """Java's MockValueJoiner.TOSTRING_JOINER."""
    return f"{_s(v1)}+{_s(v2)}"


class Capture(ks.Processor):
    """Java's MockApiProcessor: records what reaches it."""

    seen: list = []

    def process(self, record: ks.Record) -> None:
        Capture.seen.append((record.key, record.value, record.timestamp))


def drain() -> list:
    seen, Capture.seen = Capture.seen, []
    return seen


class Fixture:
    """setUp(): a stream left-joined with a table, the capture processor under the join."""

    def __init__(self) -> None:
        Capture.seen = []
        self.builder = ks.StreamsBuilder()
        consumed = ks.Consumed.with_(INT, S)
        stream = self.builder.stream(STREAM_TOPIC, consumed)
        table = self.builder.table(TABLE_TOPIC, consumed)
        stream.left_join(table, tostring_joiner).process(Capture)
        self.driver = ks.TopologyTestDriver(self.builder.build(), PROPS)
        self.stream = self.driver.create_input_topic(STREAM_TOPIC, INT, S)
        self.table = self.driver.create_input_topic(TABLE_TOPIC, INT, S)

    def push_to_stream(self, count: int, prefix: str) -> None:
        for i in range(count):
            self.stream.pipe_input(EXPECTED_KEYS[i], f"{prefix}{EXPECTED_KEYS[i]}", i)

    def push_to_table(self, count: int, prefix: str) -> None:
        r = random.Random(7)
        for i in range(count):
            self.table.pipe_input(EXPECTED_KEYS[i], f"{prefix}{EXPECTED_KEYS[i]}",
                                  r.randrange(2**31 - 1))

    def push_null_value_to_table(self, count: int) -> None:
        for i in range(count):
            self.table.pipe_input(EXPECTED_KEYS[i], None)


@pytest.fixture
def fx():
    f = Fixture()
    yield f
    f.driver.close()


def test_should_require_copartitioned_streams(fx):
    groups = fx.builder.build().copartition_groups()
    assert len(groups) == 1
    assert groups[0] == {STREAM_TOPIC, TABLE_TOPIC}


def test_should_join_with_empty_table_on_stream_updates(fx):
    fx.push_to_stream(2, "X")
    assert drain() == [(0, "X0+null", 0), (1, "X1+null", 1)]


def test_should_not_join_on_table_updates(fx):
    fx.push_to_stream(2, "X")
    assert drain() == [(0, "X0+null", 0), (1, "X1+null", 1)]
    fx.push_to_table(2, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1), (2, "X2+null", 2), (3, "X3+null", 3)]
    fx.push_to_table(4, "YY")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+YY0", 0), (1, "X1+YY1", 1), (2, "X2+YY2", 2), (3, "X3+YY3", 3)]
    fx.push_to_table(4, "YYY")
    assert drain() == []


def test_should_join_regardless_if_match_found_on_stream_updates(fx):
    fx.push_to_table(2, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1), (2, "X2+null", 2), (3, "X3+null", 3)]


def test_should_clear_table_entry_on_null_value_updates(fx):
    fx.push_to_table(4, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X")
    assert drain() == [(0, "X0+Y0", 0), (1, "X1+Y1", 1), (2, "X2+Y2", 2), (3, "X3+Y3", 3)]
    fx.push_null_value_to_table(2)
    assert drain() == []
    fx.push_to_stream(4, "XX")
    assert drain() == [(0, "XX0+null", 0), (1, "XX1+null", 1), (2, "XX2+Y2", 2),
                       (3, "XX3+Y3", 3)]
