"""Kafka's ``KTableKTableOuterJoinTest`` (streams, kstream/internals), translated to kslab's DSL.

Every test pipes the same eight steps into ``topic1`` and ``topic2``; ``run_output`` reads the
output topic after each step (Java's ``assertOutputKeyValueTimestamp`` calls, then
``isEmpty()``), and ``run_capture`` checks the ``Change(new, old)`` records a processor hung
under the join's node sees (Java's ``builder.build().addProcessor("proc", supplier,
joined.name)`` with ``MockApiProcessor.checkAndClearProcessResult``). ``MockValueJoiner.
TOSTRING_JOINER`` is ``f"{v1}+{v2}"`` with ``None`` printed as Java's ``null``.
``KTableImpl.enableSendingOldValues`` / ``sendingOldValueEnabled`` are the same-named
``KTable`` methods; ``copartitionGroups()`` is ``Topology.copartition_groups()``.

``shouldLogAndMeterSkippedRecordsDueToNullLeftKey`` drives Java's ``KTableKTableOuterJoin``
processor directly with a ``MockProcessorContext`` (not in kslab's API); here the null-keyed
record goes through the driver, where Kafka Streams drops it with the same warning (from the
table source, at
partition 0, offset 0).
"""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import Change

INT, S = serdes.Integer(), serdes.String()
TOPIC1, TOPIC2, OUTPUT = "topic1", "topic2", "output"
EXPECTED_KEYS = [0, 1, 2, 3]
PROPS = {"default.key.serde": "integer", "default.value.serde": "string"}
CONSUMED = ks.Consumed.with_(INT, S)


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


def _steps(one: ks.TestInputTopic, two: ks.TestInputTopic) -> list:
    """The input sequence every test of the class pipes, one callable per checked step."""

    def put_all(topic: ks.TestInputTopic, prefix: str, ts) -> None:
        for key in EXPECTED_KEYS:
            topic.pipe_input(key, f"{prefix}{key}", ts(key))

    def step1() -> None:
        for i in range(2):
            one.pipe_input(EXPECTED_KEYS[i], f"X{EXPECTED_KEYS[i]}", 5 + i)
        one.pipe_input(None, "SomeVal", 42)  # discarded in the join process

    def step2() -> None:
        for i in range(2):
            two.pipe_input(EXPECTED_KEYS[i], f"Y{EXPECTED_KEYS[i]}", 10 * i)
        two.pipe_input(None, "AnotherVal", 73)  # discarded in the join process

    def deletes_two() -> None:
        two.pipe_input(EXPECTED_KEYS[0], None, 5)
        two.pipe_input(EXPECTED_KEYS[1], None, 7)

    def deletes_one() -> None:
        for key, ts in zip(EXPECTED_KEYS, (0, 42, 5, 20), strict=True):
            one.pipe_input(key, None, ts)

    return [step1, step2, lambda: put_all(one, "XX", lambda k: 7),
            lambda: put_all(two, "YY", lambda k: k * 5), lambda: put_all(one, "XXX", lambda k: 6),
            deletes_two, lambda: put_all(one, "XXXX", lambda k: 13), deletes_one]


def run_output(topology: ks.Topology, expected: list[list[tuple]]) -> None:
    """doTestJoin: pipe each step and read the output topic's records."""
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        one = driver.create_input_topic(TOPIC1, INT, S, 0, 0)
        two = driver.create_input_topic(TOPIC2, INT, S, 0, 0)
        out = driver.create_output_topic(OUTPUT, INT, S)
        for step, want in zip(_steps(one, two), expected, strict=True):
            step()
            got = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
            assert got == want


def run_capture(topology: ks.Topology, expected: list[list[tuple]]) -> None:
    """Pipe each step and check what the processor under the join saw (Change values)."""
    Capture.seen = []
    with ks.TopologyTestDriver(topology, PROPS) as driver:
        one = driver.create_input_topic(TOPIC1, INT, S, 0, 0)
        two = driver.create_input_topic(TOPIC2, INT, S, 0, 0)
        for step, want in zip(_steps(one, two), expected, strict=True):
            step()
            assert drain() == [(k, Change(*c), ts) for k, c, ts in want]


def with_capture(builder: ks.StreamsBuilder, joined: ks.KTable) -> ks.Topology:
    """``builder.build().addProcessor("proc", supplier, joined.name)``."""
    topology = builder.build()
    topology.add_processor("proc", Capture, joined.name)
    return topology


def assert_copartitioned(builder: ks.StreamsBuilder) -> None:
    groups = builder.build().copartition_groups()
    assert len(groups) == 1
    assert groups[0] == {TOPIC1, TOPIC2}


def check_null_key_is_skipped(join: str, caplog: pytest.LogCaptureFixture) -> None:
    """shouldLogAndMeterSkippedRecordsDueToNullLeftKey, through the driver (see the docstring)."""
    builder = ks.StreamsBuilder()
    left = builder.table("left", ks.Consumed.with_(S, S))
    right = builder.table("right", ks.Consumed.with_(S, S))
    getattr(left, join)(right, tostring_joiner).to_stream().to("out")
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver, \
            caplog.at_level(logging.WARNING, logger="kslab"):
        driver.create_input_topic("left", S, S).pipe_input(None, "new", 0)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "Skipping record due to null key. topic=[left] partition=[0] offset=[0]" in warnings


JOIN_OUTPUT = [
    [(0, "X0+null", 5), (1, "X1+null", 6)],
    [(0, "X0+Y0", 5), (1, "X1+Y1", 10)],
    [(0, "XX0+Y0", 7), (1, "XX1+Y1", 10), (2, "XX2+null", 7), (3, "XX3+null", 7)],
    [(0, "XX0+YY0", 7), (1, "XX1+YY1", 7), (2, "XX2+YY2", 10), (3, "XX3+YY3", 15)],
    [(0, "XXX0+YY0", 6), (1, "XXX1+YY1", 6), (2, "XXX2+YY2", 10), (3, "XXX3+YY3", 15)],
    [(0, "XXX0+null", 6), (1, "XXX1+null", 7)],
    [(0, "XXXX0+null", 13), (1, "XXXX1+null", 13), (2, "XXXX2+YY2", 13), (3, "XXXX3+YY3", 15)],
    [(0, None, 0), (1, None, 42), (2, "null+YY2", 10), (3, "null+YY3", 20)],
]


def _tables() -> tuple[ks.StreamsBuilder, ks.KTable, ks.KTable]:
    builder = ks.StreamsBuilder()
    return builder, builder.table(TOPIC1, CONSUMED), builder.table(TOPIC2, CONSUMED)


def test_join():
    builder, table1, table2 = _tables()
    table1.outer_join(table2, tostring_joiner).to_stream().to(OUTPUT)
    assert_copartitioned(builder)
    run_output(builder.build(), JOIN_OUTPUT)


def test_not_sending_old_value():
    builder, table1, table2 = _tables()
    joined = table1.outer_join(table2, tostring_joiner)
    topology = with_capture(builder, joined)
    assert table1.sending_old_value_enabled()
    assert table2.sending_old_value_enabled()
    assert not joined.sending_old_value_enabled()
    run_capture(topology, [[(k, (v, None), ts) for k, v, ts in step] for step in JOIN_OUTPUT])


def test_sending_old_value():
    builder, table1, table2 = _tables()
    joined = table1.outer_join(table2, tostring_joiner)
    joined.enable_sending_old_values(True)
    topology = with_capture(builder, joined)
    assert table1.sending_old_value_enabled()
    assert table2.sending_old_value_enabled()
    assert joined.sending_old_value_enabled()
    run_capture(topology, [
        [(0, ("X0+null", None), 5), (1, ("X1+null", None), 6)],
        [(0, ("X0+Y0", "X0+null"), 5), (1, ("X1+Y1", "X1+null"), 10)],
        [(0, ("XX0+Y0", "X0+Y0"), 7), (1, ("XX1+Y1", "X1+Y1"), 10),
         (2, ("XX2+null", None), 7), (3, ("XX3+null", None), 7)],
        [(0, ("XX0+YY0", "XX0+Y0"), 7), (1, ("XX1+YY1", "XX1+Y1"), 7),
         (2, ("XX2+YY2", "XX2+null"), 10), (3, ("XX3+YY3", "XX3+null"), 15)],
        [(0, ("XXX0+YY0", "XX0+YY0"), 6), (1, ("XXX1+YY1", "XX1+YY1"), 6),
         (2, ("XXX2+YY2", "XX2+YY2"), 10), (3, ("XXX3+YY3", "XX3+YY3"), 15)],
        [(0, ("XXX0+null", "XXX0+YY0"), 6), (1, ("XXX1+null", "XXX1+YY1"), 7)],
        [(0, ("XXXX0+null", "XXX0+null"), 13), (1, ("XXXX1+null", "XXX1+null"), 13),
         (2, ("XXXX2+YY2", "XXX2+YY2"), 13), (3, ("XXXX3+YY3", "XXX3+YY3"), 15)],
        [(0, (None, "XXXX0+null"), 0), (1, (None, "XXXX1+null"), 42),
         (2, ("null+YY2", "XXXX2+YY2"), 10), (3, ("null+YY3", "XXXX3+YY3"), 20)],
    ])


def test_should_log_and_meter_skipped_records_due_to_null_left_key(caplog):
    check_null_key_is_skipped("outer_join", caplog)
