"""Kafka's ``RelaxedNullKeyRequirementJoinTest`` (streams/src/test/.../integration; it runs on
the TopologyTestDriver), translated to kslab: left and outer joins keep null-keyed records
(KIP-962), even behind a repartition, while a repartition with no such join downstream drops
them. Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

WINDOW = ks.JoinWindows.of_time_difference_and_grace(60_000, 10_000)
LEFT, RIGHT, OUT = "left", "right", "out"
S = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string"}


def joiner(lv: object, rv: object) -> str:
    return f"{'null' if lv is None else lv}|{'null' if rv is None else rv}"


class Fixture:
    """beforeEach(): both streams read and repartitioned."""

    def __init__(self) -> None:
        self.builder = ks.StreamsBuilder()
        self.left_stream = self.builder.stream(LEFT).repartition()
        self.right_stream = self.builder.stream(RIGHT).repartition()
        self.driver: ks.TopologyTestDriver | None = None

    def init_topology(self) -> None:
        self.driver = ks.TopologyTestDriver(self.builder.build(), PROPS)
        self.left = self.driver.create_input_topic(LEFT, S, S)
        self.right = self.driver.create_input_topic(RIGHT, S, S)
        self.out = self.driver.create_output_topic(OUT, S, S)


@pytest.fixture
def fx():
    f = Fixture()
    yield f
    if f.driver is not None:
        f.driver.close()


def test_relaxed_left_stream_stream_join(fx):
    fx.left_stream.left_join(fx.right_stream, joiner, WINDOW).to(OUT)
    fx.init_topology()
    fx.left.pipe_input(None, "leftValue", 1)
    assert fx.out.read_key_values_to_list() == [ks.KeyValue(None, "leftValue|null")]


def test_relaxed_left_stream_table_join(fx):
    fx.left_stream.left_join(fx.right_stream.to_table(), joiner).to(OUT)
    fx.init_topology()
    fx.left.pipe_input(None, "leftValue", 1)
    assert fx.out.read_key_values_to_list() == [ks.KeyValue(None, "leftValue|null")]


def test_relaxed_outer_stream_stream_join(fx):
    fx.left_stream.outer_join(fx.right_stream, joiner, WINDOW).to(OUT)
    fx.init_topology()
    fx.right.pipe_input(None, "rightValue", 1)
    fx.left.pipe_input(None, "leftValue")
    assert fx.out.read_key_values_to_list() == [ks.KeyValue(None, "null|rightValue"),
                                                ks.KeyValue(None, "leftValue|null")]


def test_relaxed_left_stream_global_table_join(fx):
    global_table = fx.builder.global_table("global")
    fx.left_stream.left_join(global_table, lambda key, value: None, joiner).to(OUT)
    fx.init_topology()
    fx.left.pipe_input(None, "leftValue", 1)
    assert fx.out.read_key_values_to_list() == [ks.KeyValue(None, "leftValue|null")]


def test_drop_null_key_records_for_repartition_nodes_with_no_relaxed_join_downstream(fx):
    fx.left_stream.repartition().to(OUT)
    fx.init_topology()
    fx.left.pipe_input(None, "leftValue", 1)
    assert fx.out.read_key_values_to_list() == []
