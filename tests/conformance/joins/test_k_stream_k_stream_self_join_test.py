"""Kafka's ``KStreamKStreamSelfJoinTest``, translated to kslab's DSL and TopologyTestDriver.

Each Java test builds an inner join of a topic with itself on one ``StreamsBuilder``, records
what it produces, then adds a second self-join (reading another topic) to the same builder,
builds it with ``topology.optimization=all`` (Java's ``StreamsConfig.OPTIMIZE``, which turns on
the single-store self-join rewrite) and asserts that it produces exactly the same records.
``MockApiProcessorSupplier`` is the helper in ``_join_suppress_support``. Java's
``built.in.metrics.version`` property is left out (kslab has one metrics version).

With ``topology.optimization=all`` kslab rewrites a self-join as Java's
``rewriteSingleStoreSelfJoin`` does: one window node and one store, and the merge-named processor
runs ``KStreamKStreamSelfJoin``; the outputs asserted here must equal the two-store join's.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from tests.conformance._join_suppress_support import MockApiProcessorSupplier

TOPIC1 = "topic1"
TOPIC2 = "topic2"
STR = serdes.String()
PROPS = {"default.key.serde": "string", "default.value.serde": "string",
         "topology.optimization": "all"}


def _value_joiner(v, v2):
    return v + v2


def _join(builder, topic, windows, *, single_stream):
    supplier = MockApiProcessorSupplier()
    left = builder.stream(topic, ks.Consumed.with_(STR, STR))
    right = left if single_stream else builder.stream(topic, ks.Consumed.with_(STR, STR))
    left.join(right, _value_joiner, windows,
              ks.StreamJoined.with_(STR, STR, STR)).process(supplier)
    return supplier


def _pipe(topology, topic, supplier, records, props=None):
    with ks.TopologyTestDriver(topology, props) as driver:
        inp = driver.create_input_topic(topic, STR, STR)
        processor = supplier.processors[-1]
        for key, value, timestamp in records:
            inp.pipe_input(key, value, timestamp)
        return processor


def _check_self_join_matches_inner_join(windows, records, *, single_stream):
    builder = ks.StreamsBuilder()
    inner = _join(builder, TOPIC2, windows, single_stream=single_stream)
    expected = list(_pipe(builder.build(), TOPIC2, inner, records).processed)
    self_join = _join(builder, TOPIC1, windows, single_stream=single_stream)
    processor = _pipe(builder.build(PROPS), TOPIC1, self_join, records, PROPS)
    assert len(self_join.processors) == 1
    processor.check_and_clear_process_result(*expected)


SHORT = [("A", "1", 1), ("B", "1", 2), ("A", "2", 3), ("B", "2", 4), ("B", "3", 5)]


def test_should_match_inner_join_with_self_join_with_single_stream():
    windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    _check_self_join_matches_inner_join(windows, SHORT, single_stream=True)


def test_should_match_inner_join_with_self_join_with_two_streams():
    windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    _check_self_join_matches_inner_join(windows, SHORT, single_stream=False)


def test_should_match_inner_join_with_self_join_different_before_after_windows():
    windows = ks.JoinWindows.of_time_difference_and_grace(11_000, 10_000)
    records = [("A", "1", 0), ("A", "2", 11000), ("B", "1", 12000), ("A", "3", 13000),
               ("A", "4", 15000), ("C", "1", 16000), ("D", "1", 17000), ("A", "5", 30000)]
    _check_self_join_matches_inner_join(windows, records, single_stream=False)


def test_should_match_inner_join_with_self_join_out_of_order_messages():
    windows = ks.JoinWindows.of_time_difference_with_no_grace(10_000)
    records = [("A", "1", 0), ("A", "2", 9999), ("B", "1", 11000), ("A", "3", 13000),
               ("A", "4", 15000), ("C", "1", 16000), ("D", "1", 17000), ("A", "5", 30000),
               ("A", "5", 6000)]
    _check_self_join_matches_inner_join(windows, records, single_stream=False)
