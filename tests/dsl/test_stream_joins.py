"""Windowed stream-stream joins: inner, left and outer, with KIP-633 delayed null-padded results."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.dsl import JoinWindows

INPUTS = [("left", "a", "L1", 0), ("right", "a", "R1", 5), ("left", "b", "L2", 10),
          ("right", "c", "R2", 12), ("left", "x", "L3", 40), ("right", "a", "R3", 3)]


def _run(op: str, inputs=INPUTS, windows=None, **kwargs):
    b = ks.StreamsBuilder()
    left = b.stream("left", key_serde=serdes.String(), value_serde=serdes.String())
    right = b.stream("right", key_serde=serdes.String(), value_serde=serdes.String())
    windows = windows or JoinWindows.of_time_difference_and_grace(10, 5)
    getattr(left, op)(right, lambda lv, rv: f"{lv}+{rv}", windows, **kwargs).to("out")
    topology = b.build()
    with ks.TopologyTestDriver(topology) as driver:
        topics = {t: driver.create_input_topic(t) for t in ("left", "right")}
        out = driver.create_output_topic("out")
        for topic, key, value, ts in inputs:
            topics[topic].pipe_input(key, value, ts)
        return topology, [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]


def test_inner_join() -> None:
    topology, out = _run("join")
    assert out == [("a", "L1+R1", 5)]
    text = str(topology.describe())
    assert "Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])" \
        in text
    assert "Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-JOINOTHER-0000000005-store])" \
        in text
    assert "KSTREAM-MERGE-0000000006" in text


def test_left_join_emits_null_padded_after_window_close() -> None:
    topology, out = _run("left_join")
    # L2@10 is emitted only when stream time (40) passes 10 + after 10 + grace 5
    assert out == [("a", "L1+R1", 5), ("b", "L2+None", 10)]
    assert "KSTREAM-OUTERSHARED-0000000004-store" in str(topology.describe())


def test_outer_join_both_sides_and_out_of_order() -> None:
    topology, out = _run("outer_join")
    assert out == [("a", "L1+R1", 5), ("b", "L2+None", 10), ("c", "None+R2", 12),
                   ("a", "None+R3", 3)]
    text = str(topology.describe())
    assert "KSTREAM-OUTERTHIS-0000000004" in text
    assert "KSTREAM-OUTEROTHER-0000000005" in text


def test_out_of_order_partner_within_grace_joins() -> None:
    inputs = [("left", "a", "L1", 20), ("right", "z", "R0", 30), ("right", "a", "R1", 12)]
    _, out = _run("left_join", inputs)
    assert out == [("a", "L1+R1", 20)]


def test_no_spurious_result_before_close() -> None:
    inputs = [("left", "a", "L1", 0), ("left", "b", "L2", 14), ("right", "a", "R1", 10)]
    _, out = _run("left_join", inputs)
    assert out == [("a", "L1+R1", 10)]


def test_stream_joined_names() -> None:
    topology, _ = _run("left_join", stream_joined=ks.StreamJoined.with_(
        serdes.String(), serdes.String(), serdes.String()).with_name("j").with_store_name("s"))
    text = str(topology.describe())
    assert "Processor: j-this-windowed (stores: [s-this-join-store])" in text
    assert "Processor: j-outer-other-join (stores: [s-this-join-store, " \
           "s-left-shared-join-store])" in text


def test_join_needs_join_windows() -> None:
    b = ks.StreamsBuilder()
    with pytest.raises(ks.TopologyError, match="JoinWindows"):
        b.stream("l").join(b.stream("r"), lambda a, c: a, 10)


def _java_joiner(left, right):
    return f"{'null' if left is None else left}+{'null' if right is None else right}"


def test_left_join_with_zero_after_from_kafka() -> None:
    """KStreamKStreamLeftJoinTest.testLeftJoinedRecordsWithZeroAfterAreEmitted (first steps)."""
    b = ks.StreamsBuilder()
    one = b.stream("topic1", key_serde=serdes.Integer(), value_serde=serdes.String())
    two = b.stream("topic2", key_serde=serdes.Integer(), value_serde=serdes.String())
    seen = []
    (one.left_join(two, _java_joiner,
                   JoinWindows.of_time_difference_with_no_grace(100).after(0),
                   ks.StreamJoined.with_(serdes.Integer(), serdes.String(), serdes.String()))
     .foreach(lambda k, v: seen.append((k, v))))
    with ks.TopologyTestDriver(b.build()) as driver:
        in1, in2 = driver.create_input_topic("topic1"), driver.create_input_topic("topic2")
        for i in range(4):
            in1.pipe_input(i, f"A{i}", 1000 + i)
        assert seen == [(0, "A0+null"), (1, "A1+null"), (2, "A2+null")]
        seen.clear()
        for i in range(4):
            in2.pipe_input(i, f"a{i}", 999)
        assert seen == [(i, f"A{i}+a{i}") for i in range(4)]
        seen.clear()
        for i in range(4):
            in2.pipe_input(i, f"b{i}", 1000)
        assert seen == [(i, f"A{i}+b{i}") for i in range(4)]
