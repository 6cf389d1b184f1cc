"""Kafka's ``SuppressScenarioTest``, translated to kslab's DSL and TopologyTestDriver.

Java's ``verify(drainProducerRecords(...), expected)`` becomes ``verify(drain(...), expected)``:
every record read from the output topic must equal ``TestRecord(key, value, timestamp)`` with
no headers, in order. ``Windowed.toString()`` (``[k1@0/2]``) is ``str(windowed)`` in kslab.
Java's ``STATE_DIR_CONFIG`` temp directory is not needed (kslab's driver keeps state in
memory). ``Long.MAX_VALUE`` as a time limit is ``MAX``. Nothing is skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

STRING_SERDE = serdes.String()
LONG = serdes.Long()
MAX = 2**63 - 1
CONFIG: dict[str, str] = {}


def drain(driver, topic, value_serde):
    """Java's ``drainProducerRecords``: every record of ``topic`` read so far."""
    return driver.create_output_topic(topic, STRING_SERDE, value_serde).read_records_to_list()


def verify(results, expected_results):
    """Java's ``verify``: the records equal ``(key, value, timestamp)`` with no headers."""
    actual = [(r.key, r.value, r.timestamp, list(r.headers or ())) for r in results]
    assert actual == [(k, v, ts, []) for k, v, ts in expected_results]


def _pair(left, right):
    """``String.format("(%s,%s)", l, r)``."""
    return f"({'null' if left is None else left},{'null' if right is None else right})"


def test_should_immediately_emit_events_with_zero_emit_after():
    builder = ks.StreamsBuilder()

    value_counts = (builder.table("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE),
                                  ks.Materialized.with_(STRING_SERDE, STRING_SERDE)
                                  .with_caching_disabled().with_logging_disabled())
                    .group_by(lambda k, v: (v, k), ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .count())

    (value_counts.suppress(ks.Suppressed.until_time_limit(0, ks.BufferConfig.unbounded()))
     .to_stream()
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    value_counts.to_stream().to("output-raw", ks.Produced.with_(STRING_SERDE, LONG))


    topology = builder.build()

    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v2", 1)
        input_topic.pipe_input("k2", "v1", 2)
        verify(drain(driver, "output-raw", LONG), [
            ("v1", 1, 0),
            ("v1", 0, 1),
            ("v2", 1, 1),
            ("v1", 1, 2),
        ])
        verify(drain(driver, "output-suppressed", LONG), [
            ("v1", 1, 0),
            ("v1", 0, 1),
            ("v2", 1, 1),
            ("v1", 1, 2),
        ])
        input_topic.pipe_input("x", "x", 3)
        verify(drain(driver, "output-raw", LONG), [
            ("x", 1, 3),
        ])
        verify(drain(driver, "output-suppressed", LONG), [
            ("x", 1, 3),
        ])
        input_topic.pipe_input("x", "y", 4)
        verify(drain(driver, "output-raw", LONG), [
            ("x", 0, 4),
            ("y", 1, 4),
        ])
        verify(drain(driver, "output-suppressed", LONG), [
            ("x", 0, 4),
            ("y", 1, 4),
        ])


def test_should_suppress_intermediate_events_with_time_limit():
    builder = ks.StreamsBuilder()
    value_counts = (builder.table("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE),
                                  ks.Materialized.with_(STRING_SERDE, STRING_SERDE)
                                  .with_caching_disabled().with_logging_disabled())
                    .group_by(lambda k, v: (v, k), ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .count())
    (value_counts.suppress(ks.Suppressed.until_time_limit(2, ks.BufferConfig.unbounded()))
     .to_stream()
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    value_counts.to_stream().to("output-raw", ks.Produced.with_(STRING_SERDE, LONG))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v2", 1)
        input_topic.pipe_input("k2", "v1", 2)
        verify(drain(driver, "output-raw", LONG), [
            ("v1", 1, 0),
            ("v1", 0, 1),
            ("v2", 1, 1),
            ("v1", 1, 2),
        ])
        verify(drain(driver, "output-suppressed", LONG), [("v1", 1, 2)])
        # inserting a dummy "tick" record just to advance stream time
        input_topic.pipe_input("tick", "tick", 3)
        verify(drain(driver, "output-raw", LONG), [("tick", 1, 3)])
        # the stream time is now 3, so it's time to emit this record
        verify(drain(driver, "output-suppressed", LONG), [("v2", 1, 1)])


        input_topic.pipe_input("tick", "tock", 4)
        verify(drain(driver, "output-raw", LONG), [
            ("tick", 0, 4),
            ("tock", 1, 4),
        ])
        # tick is still buffered, since it was first inserted at time 3, and it is only time 4 righ
        verify(drain(driver, "output-suppressed", LONG), [])


def test_should_suppress_intermediate_events_with_record_limit():
    builder = ks.StreamsBuilder()
    value_counts = (builder.table("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE),
                                  ks.Materialized.with_(STRING_SERDE, STRING_SERDE)
                                  .with_caching_disabled().with_logging_disabled())
                    .group_by(lambda k, v: (v, k), ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .count(ks.Materialized.with_(STRING_SERDE, LONG)))
    (value_counts.suppress(ks.Suppressed.until_time_limit(
        MAX, ks.BufferConfig.max_records(1).emit_early_when_full())).to_stream()
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    value_counts.to_stream().to("output-raw", ks.Produced.with_(STRING_SERDE, LONG))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v2", 1)
        input_topic.pipe_input("k2", "v1", 2)
        verify(drain(driver, "output-raw", LONG), [
            ("v1", 1, 0),
            ("v1", 0, 1),
            ("v2", 1, 1),
            ("v1", 1, 2),
        ])
        # consecutive updates to v1 get suppressed into only the latter.
        verify(drain(driver, "output-suppressed", LONG), [
            ("v1", 0, 1),
            ("v2", 1, 1),
        ])
        input_topic.pipe_input("x", "x", 3)
        verify(drain(driver, "output-raw", LONG), [
            ("x", 1, 3),
        ])
        # now we see that last update to v1, but we won't see the update to x until it gets evicted
        verify(drain(driver, "output-suppressed", LONG), [
            ("v1", 1, 2),
        ])


def test_should_suppress_intermediate_events_with_bytes_limit():
    builder = ks.StreamsBuilder()
    value_counts = (builder.table("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE),
                                  ks.Materialized.with_(STRING_SERDE, STRING_SERDE)
                                  .with_caching_disabled().with_logging_disabled())
                    .group_by(lambda k, v: (v, k), ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .count())
    # this is a bit brittle, but I happen to know that the entries are a little over 100 bytes in s
    (value_counts.suppress(ks.Suppressed.until_time_limit(
        MAX, ks.BufferConfig.max_bytes(200).emit_early_when_full())).to_stream()
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    value_counts.to_stream().to("output-raw", ks.Produced.with_(STRING_SERDE, LONG))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v2", 1)
        input_topic.pipe_input("k2", "v1", 2)
        verify(drain(driver, "output-raw", LONG), [
            ("v1", 1, 0),
            ("v1", 0, 1),
            ("v2", 1, 1),
            ("v1", 1, 2),
        ])
        # consecutive updates to v1 get suppressed into only the latter.
        verify(drain(driver, "output-suppressed", LONG), [
            ("v1", 0, 1),
            ("v2", 1, 1),
        ])
        input_topic.pipe_input("x", "x", 3)
        verify(drain(driver, "output-raw", LONG), [
            ("x", 1, 3),
        ])
        # now we see that last update to v1, but we won't see the update to x until it gets evicted
        verify(drain(driver, "output-suppressed", LONG), [
            ("v1", 1, 2),
        ])


def test_should_support_final_results_for_time_windows():
    builder = ks.StreamsBuilder()
    value_counts = (builder.stream("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
                    .group_by(lambda k, v: k, ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .windowed_by(ks.TimeWindows.of_size_and_grace(2, 1))
                    .count(ks.Materialized.as_("counts").with_caching_disabled()))
    (value_counts.suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())).to_stream()
     .map(lambda k, v: (str(k), v))
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    (value_counts.to_stream().map(lambda k, v: (str(k), v))
     .to("output-raw", ks.Produced.with_(STRING_SERDE, LONG)))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v1", 1)
        input_topic.pipe_input("k1", "v1", 2)
        input_topic.pipe_input("k1", "v1", 1)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v1", 5)
        # note this last record gets dropped because it is out of the grace period
        input_topic.pipe_input("k1", "v1", 0)
        verify(drain(driver, "output-raw", LONG), [
            ("[k1@0/2]", 1, 0),
            ("[k1@0/2]", 2, 1),
            ("[k1@2/4]", 1, 2),
            ("[k1@0/2]", 3, 1),
            ("[k1@0/2]", 4, 1),
            ("[k1@4/6]", 1, 5),
        ])
        verify(drain(driver, "output-suppressed", LONG), [
            ("[k1@0/2]", 4, 1),
            ("[k1@2/4]", 1, 2),
        ])


def test_should_support_final_results_for_time_windows_with_large_jump():
    builder = ks.StreamsBuilder()
    value_counts = (builder.stream("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
                    .group_by(lambda k, v: k, ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .windowed_by(ks.TimeWindows.of_size_and_grace(2, 2))
                    .count(ks.Materialized.as_("counts").with_caching_disabled().with_key_serde(STRING_SERDE)))
    (value_counts.suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())).to_stream()
     .map(lambda k, v: (str(k), v))
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    (value_counts.to_stream().map(lambda k, v: (str(k), v))
     .to("output-raw", ks.Produced.with_(STRING_SERDE, LONG)))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v1", 1)
        input_topic.pipe_input("k1", "v1", 2)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v1", 3)
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v1", 4)
        # this update should get dropped, since the previous event advanced the stream time and clo
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v1", 30)
        verify(drain(driver, "output-raw", LONG), [
            ("[k1@0/2]", 1, 0),
            ("[k1@0/2]", 2, 1),
            ("[k1@2/4]", 1, 2),
            ("[k1@0/2]", 3, 1),
            ("[k1@2/4]", 2, 3),
            ("[k1@0/2]", 4, 1),
            ("[k1@4/6]", 1, 4),
            ("[k1@30/32]", 1, 30),
        ])
        verify(drain(driver, "output-suppressed", LONG), [
            ("[k1@0/2]", 4, 1),
            ("[k1@2/4]", 2, 3),
            ("[k1@4/6]", 1, 4),
        ])


def test_should_support_final_results_for_sliding_windows():
    builder = ks.StreamsBuilder()
    value_counts = (builder.stream("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
                    .group_by(lambda k, v: k, ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .windowed_by(ks.SlidingWindows.of_time_difference_and_grace(5, 15))
                    .count(ks.Materialized.as_("counts").with_caching_disabled().with_key_serde(STRING_SERDE)))
    (value_counts.suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())).to_stream()
     .map(lambda k, v: (str(k), v))
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    (value_counts.to_stream().map(lambda k, v: (str(k), v))
     .to("output-raw", ks.Produced.with_(STRING_SERDE, LONG)))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        input_topic.pipe_input("k1", "v1", 10)
        input_topic.pipe_input("k1", "v1", 11)
        input_topic.pipe_input("k1", "v1", 10)
        input_topic.pipe_input("k1", "v1", 13)
        input_topic.pipe_input("k1", "v1", 10)
        input_topic.pipe_input("k1", "v1", 24)
        # this update should get dropped, since the previous event advanced the stream time and clo
        input_topic.pipe_input("k1", "v1", 5)
        input_topic.pipe_input("k1", "v1", 7)
        # final record to advance stream time and flush windows
        input_topic.pipe_input("k1", "v1", 90)
        actual = drain(driver, "output-raw", LONG)
        actual.sort(key=lambda record: (record.key, record.timestamp))
        # right window for k1@10 created when k1@11 is processed
        verify(actual, [
            ("[k1@11/16]", 1, 11),
            ("[k1@11/16]", 2, 13),
            ("[k1@12/17]", 1, 13),
            ("[k1@19/24]", 1, 24),
            ("[k1@5/10]", 1, 10),
            ("[k1@5/10]", 2, 10),
            ("[k1@5/10]", 3, 10),
            ("[k1@5/10]", 4, 10),
            ("[k1@5/10]", 5, 10),
            ("[k1@6/11]", 2, 11),
            ("[k1@6/11]", 3, 11),
            ("[k1@6/11]", 4, 11),
            ("[k1@6/11]", 5, 11),
            ("[k1@8/13]", 4, 13),
            ("[k1@8/13]", 5, 13),
            ("[k1@85/90]", 1, 90),
        ])
        verify(drain(driver, "output-suppressed", LONG), [
            ("[k1@5/10]", 5, 10),
            ("[k1@6/11]", 5, 11),
            ("[k1@8/13]", 5, 13),
            ("[k1@11/16]", 2, 13),
            ("[k1@12/17]", 1, 13),
            ("[k1@19/24]", 1, 24),
        ])


def test_should_support_final_results_for_session_windows():
    builder = ks.StreamsBuilder()
    value_counts = (builder.stream("input", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
                    .group_by(lambda k, v: k, ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
                    .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(5))
                    .count(ks.Materialized.as_("counts").with_caching_disabled()))
    (value_counts.suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded())).to_stream()
     .map(lambda k, v: (str(k), v))
     .to("output-suppressed", ks.Produced.with_(STRING_SERDE, LONG)))
    (value_counts.to_stream().map(lambda k, v: (str(k), v))
     .to("output-raw", ks.Produced.with_(STRING_SERDE, LONG)))
    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic = driver.create_input_topic("input", STRING_SERDE, STRING_SERDE)
        # first window
        input_topic.pipe_input("k1", "v1", 0)
        input_topic.pipe_input("k1", "v1", 5)
        # arbitrarily disordered records are admitted, because the *window* is not closed until str
        input_topic.pipe_input("k1", "v1", 1)
        # any record in the same partition advances stream time (note the key is different)
        input_topic.pipe_input("k2", "v1", 11)
        # late event for first window - this should get dropped from all streams, since the first w
        input_topic.pipe_input("k1", "v1", 5)
        # just pushing stream time forward to flush the other events through.
        input_topic.pipe_input("k1", "v1", 30)
        verify(drain(driver, "output-raw", LONG), [
            ("[k1@0/0]", 1, 0),
            ("[k1@0/0]", None, 0),
            ("[k1@0/5]", 2, 5),
            ("[k1@0/5]", None, 5),
            ("[k1@0/5]", 3, 5),
            ("[k2@11/11]", 1, 11),
            ("[k1@30/30]", 1, 30),
        ])
        verify(drain(driver, "output-suppressed", LONG), [
            ("[k1@0/5]", 3, 5),
            ("[k2@11/11]", 1, 11),
        ])


def test_should_work_before_group_by():
    builder = ks.StreamsBuilder()

    (builder.table("topic", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
     .suppress(ks.Suppressed.until_time_limit(10, ks.BufferConfig.unbounded()))
     .group_by(lambda k, v: (k, v), ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
     .count()
     .to_stream()
     .to("output", ks.Produced.with_(STRING_SERDE, LONG)))

    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        input_topic = driver.create_input_topic("topic", STRING_SERDE, STRING_SERDE)

        input_topic.pipe_input("A", "a", 0)
        input_topic.pipe_input("tick", "tick", 10)

        verify(drain(driver, "output", LONG), [("A", 1, 0)])


def test_should_work_before_join_right():
    builder = ks.StreamsBuilder()

    left = builder.table("left", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
    right = (builder.table("right", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
             .suppress(ks.Suppressed.until_time_limit(10, ks.BufferConfig.unbounded())))
    (left.outer_join(right, _pair).to_stream()
     .to("output", ks.Produced.with_(STRING_SERDE, STRING_SERDE)))

    with ks.TopologyTestDriver(builder.build(), CONFIG) as driver:
        input_topic_right = driver.create_input_topic("right", STRING_SERDE, STRING_SERDE)
        input_topic_left = driver.create_input_topic("left", STRING_SERDE, STRING_SERDE)

        input_topic_right.pipe_input("B", "1", 0)
        input_topic_right.pipe_input("A", "1", 0)
        # buffered, no output
        verify(drain(driver, "output", STRING_SERDE), [])


        input_topic_right.pipe_input("tick", "tick", 10)
        # flush buffer
        verify(drain(driver, "output", STRING_SERDE), [
            ("A", "(null,1)", 0),
            ("B", "(null,1)", 0),
        ])


        input_topic_right.pipe_input("A", "2", 11)
        # buffered, no output
        verify(drain(driver, "output", STRING_SERDE), [])


        input_topic_left.pipe_input("A", "a", 12)
        # should join with previously emitted right side
        verify(drain(driver, "output", STRING_SERDE), [("A", "(a,1)", 12)])


        input_topic_left.pipe_input("B", "b", 12)
        # should view through to the parent KTable, since B is no longer buffered
        verify(drain(driver, "output", STRING_SERDE), [("B", "(b,1)", 12)])


        input_topic_left.pipe_input("A", "b", 13)
        # should join with previously emitted right side
        verify(drain(driver, "output", STRING_SERDE), [("A", "(b,1)", 13)])


        input_topic_right.pipe_input("tick", "tick1", 21)
        verify(drain(driver, "output", STRING_SERDE), [
            ("tick", "(null,tick1)", 21),  # just a testing artifact
            ("A", "(b,2)", 13),
        ])



def test_should_work_before_join_left():
    builder = ks.StreamsBuilder()

    left = (builder.table("left", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
            .suppress(ks.Suppressed.until_time_limit(10, ks.BufferConfig.unbounded())))
    right = builder.table("right", ks.Consumed.with_(STRING_SERDE, STRING_SERDE))
    (left.outer_join(right, _pair).to_stream()
     .to("output", ks.Produced.with_(STRING_SERDE, STRING_SERDE)))

    topology = builder.build()
    with ks.TopologyTestDriver(topology, CONFIG) as driver:
        input_topic_right = driver.create_input_topic("right", STRING_SERDE, STRING_SERDE)
        input_topic_left = driver.create_input_topic("left", STRING_SERDE, STRING_SERDE)

        input_topic_left.pipe_input("B", "1", 0)
        input_topic_left.pipe_input("A", "1", 0)
        # buffered, no output
        verify(drain(driver, "output", STRING_SERDE), [])


        input_topic_left.pipe_input("tick", "tick", 10)
        # flush buffer
        verify(drain(driver, "output", STRING_SERDE), [
            ("A", "(1,null)", 0),
            ("B", "(1,null)", 0),
        ])


        input_topic_left.pipe_input("A", "2", 11)
        # buffered, no output
        verify(drain(driver, "output", STRING_SERDE), [])


        input_topic_right.pipe_input("A", "a", 12)
        # should join with previously emitted left side
        verify(drain(driver, "output", STRING_SERDE), [("A", "(1,a)", 12)])


        input_topic_right.pipe_input("B", "b", 12)
        # should view through to the parent KTable, since B is no longer buffered
        verify(drain(driver, "output", STRING_SERDE), [("B", "(1,b)", 12)])


        input_topic_right.pipe_input("A", "b", 13)
        # should join with previously emitted left side
        verify(drain(driver, "output", STRING_SERDE), [("A", "(1,b)", 13)])


        input_topic_left.pipe_input("tick", "tick1", 21)
        verify(drain(driver, "output", STRING_SERDE), [
            ("tick", "(tick1,null)", 21),  # just a testing artifact
            ("A", "(2,b)", 13),
        ])



def test_should_work_with_cogrouped():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("one", ks.Consumed.with_(STRING_SERDE, STRING_SERDE)).group_by_key(
        ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
    stream2 = builder.stream("two", ks.Consumed.with_(STRING_SERDE, STRING_SERDE)).group_by_key(
        ks.Grouped.with_(STRING_SERDE, STRING_SERDE))
    (stream1.cogroup(lambda key, value, aggregate: aggregate + value)
     .cogroup(stream2, lambda key, value, aggregate: aggregate + value)
     .windowed_by(ks.TimeWindows.of_size_with_no_grace(15 * 60 * 1000))
     .aggregate(lambda: "", ks.Named.as_("test"), ks.Materialized.as_("store"))
     .suppress(ks.Suppressed.until_window_closes(ks.BufferConfig.unbounded()))
     .to_stream())
