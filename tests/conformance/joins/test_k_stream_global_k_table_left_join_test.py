"""Kafka's ``KStreamGlobalKTableLeftJoinTest`` (streams, kstream/internals), translated to kslab.

Java's ``MockApiProcessorSupplier`` under the join becomes a capture processor appending
``(key, value, timestamp)``; ``checkAndClearProcessResult`` becomes ``drain()``.
``MockValueJoiner.TOSTRING_JOINER`` is ``f"{v1}+{v2}"`` with ``None`` printed as Java's
``null``. Both input topics auto-advance by 1 ms, as in Java.
``copartitionGroups()`` of Java's internal topology builder is ``Topology.copartition_groups()``.
Nothing is skipped (Java's ``initWithVersionedStore`` helper is used by no test).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

INT, S = serdes.Integer(), serdes.String()
STREAM_TOPIC = "streamTopic"
GLOBAL_TABLE_TOPIC = "globalTableTopic"
EXPECTED_KEYS = [0, 1, 2, 3]
PROPS = {"default.key.serde": "integer", "default.value.serde": "string"}


def _s(value: object) -> str:
    return "null" if value is None else str(value)


def tostring_joiner(v1: object, v2: object) -> str:
    """Java's MockValueJoiner.TOSTRING_JOINER."""
    return f"{_s(v1)}+{_s(v2)}"


def key_mapper(key: object, value: str) -> str | None:
    """The second comma-separated token of the value is the global table's key, if present."""
    tokens = value.split(",")
    return tokens[1] if len(tokens) > 1 else None


class Capture(ks.Processor):
    """Java's MockApiProcessor: records what reaches it."""

    seen: list = []

    def process(self, record: ks.Record) -> None:
        Capture.seen.append((record.key, record.value, record.timestamp))


def drain() -> list:
    seen, Capture.seen = Capture.seen, []
    return seen


class Fixture:
    """setUp(): a stream left-joined with a global table (unversioned store)."""

    def __init__(self) -> None:
        Capture.seen = []
        self.builder = ks.StreamsBuilder()
        stream = self.builder.stream(STREAM_TOPIC, ks.Consumed.with_(INT, S))
        table = self.builder.global_table(GLOBAL_TABLE_TOPIC, ks.Consumed.with_(S, S))
        stream.left_join(table, key_mapper, tostring_joiner).process(Capture)
        self.driver = ks.TopologyTestDriver(self.builder.build(), PROPS)
        self.stream = self.driver.create_input_topic(STREAM_TOPIC, INT, S, 0, 1)
        self.table = self.driver.create_input_topic(GLOBAL_TABLE_TOPIC, S, S, 0, 1)

    def push_to_stream(self, count: int, prefix: str, include_foreign_key: bool,
                       include_null_key: bool) -> None:
        for i in range(count):
            value = f"{prefix}{EXPECTED_KEYS[i]}"
            if include_foreign_key:
                value = f"{value},FKey{EXPECTED_KEYS[i]}"
            key = None if include_null_key and i == 0 else EXPECTED_KEYS[i]
            self.stream.pipe_input(key, value)

    def push_to_global_table(self, count: int, prefix: str) -> None:
        for i in range(count):
            self.table.pipe_input(f"FKey{EXPECTED_KEYS[i]}", f"{prefix}{EXPECTED_KEYS[i]}")

    def push_null_value_to_global_table(self, count: int) -> None:
        for i in range(count):
            self.table.pipe_input(f"FKey{EXPECTED_KEYS[i]}", None)


@pytest.fixture
def fx():
    f = Fixture()
    yield f
    f.driver.close()


def test_should_not_require_copartitioning(fx):
    assert len(fx.builder.build().copartition_groups()) == 0


def test_should_join_with_empty_global_table_on_stream_updates(fx):
    fx.push_to_stream(2, "X", True, False)
    assert drain() == [(0, "X0,FKey0+null", 0), (1, "X1,FKey1+null", 1)]


def test_should_not_join_on_global_table_updates(fx):
    fx.push_to_stream(2, "X", True, False)
    assert drain() == [(0, "X0,FKey0+null", 0), (1, "X1,FKey1+null", 1)]
    fx.push_to_global_table(2, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X", True, False)
    assert drain() == [(0, "X0,FKey0+Y0", 2), (1, "X1,FKey1+Y1", 3), (2, "X2,FKey2+null", 4),
                       (3, "X3,FKey3+null", 5)]
    fx.push_to_global_table(4, "YY")
    assert drain() == []
    fx.push_to_stream(4, "X", True, False)
    assert drain() == [(0, "X0,FKey0+YY0", 6), (1, "X1,FKey1+YY1", 7), (2, "X2,FKey2+YY2", 8),
                       (3, "X3,FKey3+YY3", 9)]
    fx.push_to_global_table(4, "YYY")
    assert drain() == []


def test_should_join_regardless_if_match_found_on_stream_updates(fx):
    fx.push_to_global_table(2, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X", True, False)
    assert drain() == [(0, "X0,FKey0+Y0", 0), (1, "X1,FKey1+Y1", 1), (2, "X2,FKey2+null", 2),
                       (3, "X3,FKey3+null", 3)]


def test_should_clear_global_table_entry_on_null_value_updates(fx):
    fx.push_to_global_table(4, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X", True, False)
    assert drain() == [(0, "X0,FKey0+Y0", 0), (1, "X1,FKey1+Y1", 1), (2, "X2,FKey2+Y2", 2),
                       (3, "X3,FKey3+Y3", 3)]
    fx.push_null_value_to_global_table(2)
    assert drain() == []
    fx.push_to_stream(4, "XX", True, False)
    assert drain() == [(0, "XX0,FKey0+null", 4), (1, "XX1,FKey1+null", 5),
                       (2, "XX2,FKey2+Y2", 6), (3, "XX3,FKey3+Y3", 7)]


def test_should_not_join_on_null_key_mapper_values(fx):
    fx.push_to_global_table(4, "Y")
    assert drain() == []
    fx.push_to_stream(4, "XXX", False, False)
    assert drain() == []


def test_should_join_on_null_key_with_non_null_key_mapper_values(fx):
    fx.push_to_global_table(4, "Y")
    assert drain() == []
    fx.push_to_stream(4, "X", True, True)
    assert drain() == [(None, "X0,FKey0+Y0", 0), (1, "X1,FKey1+Y1", 1), (2, "X2,FKey2+Y2", 2),
                       (3, "X3,FKey3+Y3", 3)]
