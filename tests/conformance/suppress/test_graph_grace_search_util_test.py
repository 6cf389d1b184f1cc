"""Kafka's ``GraphGraceSearchUtilTest``: the grace ``Suppressed.untilWindowCloses`` finds
upstream, checked through the DSL.

Java calls ``findAndVerifyWindowGrace`` on hand-made graph nodes; ``KTable.suppress`` is where
the DSL calls it, so each case builds the same shape of graph with DSL operators and shows the
grace found by when the final result comes out (a window closes at its end plus the grace; a
session at its end plus the gap plus the grace). ``TopologyException`` is ``ks.TopologyError``;
its message names the chain of nodes searched, from the DSL's ``root`` node. Java's
``shouldThrowOnNull`` (a ``null`` node) has no DSL counterpart.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
WINDOWED = serdes.TimeWindowed(S, window_size=10)
FINAL = ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())


def emitted(builder, inputs):
    """Pipe ``(key, timestamp)`` records into ``input``; return the suppressed output as
    ``(key, window start, value, timestamp at which it came out)``."""
    out = []
    with ks.TopologyTestDriver(builder.build()) as driver:
        topic = driver.create_input_topic("input", S, S)
        output = driver.create_output_topic("output", WINDOWED, L)
        for key, timestamp in inputs:
            topic.pipe_input(key, "v", timestamp)
            out += [(r.key.key, r.key.window.start, r.value, timestamp)
                    for r in output.read_records_to_list()]
    return out


def test_should_fail_if_there_is_no_grace_ancestor():
    builder = ks.StreamsBuilder()
    table = builder.table("input", ks.Consumed.with_(S, S)).filter(lambda k, v: True)
    with pytest.raises(ks.TopologyError) as caught:
        table.suppress(FINAL)
    assert ("Window close time is only defined for windowed computations. Got "
            "[root->KTABLE-SOURCE-0000000002->KTABLE-FILTER-0000000003]." in str(caught.value))


def test_should_fail_if_there_is_no_grace_ancestor_of_a_stateful_node():
    builder = ks.StreamsBuilder()
    counts = builder.stream("input", ks.Consumed.with_(S, S)).group_by_key().count()
    with pytest.raises(ks.TopologyError, match=r"Got \[root->KSTREAM-SOURCE-0000000000->"
                                               r"KSTREAM-AGGREGATE-0000000002\]\."):
        counts.suppress(FINAL)


def windowed_counts(builder, windows):
    return builder.stream("input", ks.Consumed.with_(S, S)).group_by_key().windowed_by(
        windows).count()


def test_should_extract_grace_from_k_stream_window_aggregate_node():
    builder = ks.StreamsBuilder()
    windowed_counts(builder, ks.TimeWindows.of_size_and_grace(10, 1234)).suppress(
        FINAL).to_stream().to("output", ks.Produced.with_(WINDOWED, L))
    # window [0, 10) closes at stream time 10 + 1234
    assert emitted(builder, [("A", 0), ("B", 1243), ("B", 1244)]) == [("A", 0, 1, 1244)]


def session_output(table):
    table.to_stream().map(lambda k, v: (ks.Windowed(k.key, ks.Window(k.window.start,
                                                                      k.window.start + 10)),
                                        v)).to(
        "output", ks.Produced.with_(WINDOWED, L))


def test_should_extract_grace_from_k_stream_session_window_aggregate_node():
    builder = ks.StreamsBuilder()
    session_output(windowed_counts(
        builder, ks.SessionWindows.of_inactivity_gap_and_grace(10, 1234)).suppress(FINAL))
    # the session [0, 0] closes at stream time 0 + gap 10 + grace 1234
    assert emitted(builder, [("A", 0), ("B", 1243), ("B", 1244)]) == [("A", 0, 1, 1244)]


def test_should_extract_grace_from_session_ancestor_through_stateful_parent():
    builder = ks.StreamsBuilder()
    sessions = windowed_counts(builder, ks.SessionWindows.of_inactivity_gap_and_grace(10, 1234))
    stateful = sessions.filter(lambda k, v: True, materialized="filtered")
    session_output(stateful.suppress(FINAL))
    assert emitted(builder, [("A", 0), ("B", 1243), ("B", 1244)]) == [("A", 0, 1, 1244)]


def test_should_extract_grace_from_session_ancestor_through_stateless_parent():
    builder = ks.StreamsBuilder()
    sessions = windowed_counts(builder, ks.SessionWindows.of_inactivity_gap_and_grace(10, 1234))
    session_output(sessions.map_values(lambda v: v).suppress(FINAL))
    assert emitted(builder, [("A", 0), ("B", 1243), ("B", 1244)]) == [("A", 0, 1, 1244)]


def test_should_use_max_if_multi_parents_do_not_agree_on_grace():
    builder = ks.StreamsBuilder()
    stream = builder.stream("input", ks.Consumed.with_(S, S)).group_by_key()
    left = stream.windowed_by(ks.TimeWindows.of_size_and_grace(10, 1234)).count(
        materialized="left")
    right = stream.windowed_by(ks.TimeWindows.of_size_and_grace(10, 4321)).count(
        materialized="right")
    left.join(right, lambda a, b: a + b).suppress(FINAL).to_stream().to(
        "output", ks.Produced.with_(WINDOWED, L))
    # the join's two parents: 1234 and 4321 ms of grace; the window closes after the larger
    assert emitted(builder, [("A", 0), ("B", 1244), ("B", 4330), ("B", 4331)]) == [
        ("A", 0, 2, 4331)]
