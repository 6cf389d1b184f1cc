"""A repartition topic replayed on Spark keeps its writers' order (issue 21, item 1).

Kafka, and the test driver, hand a later sub-topology each partition's records in the order
they were written. A record out of order in time stays where it was written: late for a window,
it is dropped; a table update's subtraction stays before its addition. With one upstream task
writing the topic, ``run_batch`` gives exactly the driver's output; with several, one
interleaving Kafka could have produced (each writer's order kept; merged by the writers'
highest timestamp so far, then task, then sequence).
"""

from __future__ import annotations

import spark_apps as apps
from test_batch import assert_same, driver_output, frame, spark_output

from kslab import serdes
from kslab.spark import run_batch

S, L = serdes.String(), serdes.Long()


def _records(out, topic, value_serde):
    """The output as (key, value, timestamp), by partition, then task, in write order."""
    return spark_output(out[topic], topic, value_serde)


def test_a_record_late_after_a_repartition_is_dropped_as_the_driver_drops_it(spark):
    # one input partition: one task writes the repartition topic; "a" at 200 comes after
    # stream time reached 5000, so its window [0, 1000) has closed
    rows = [(0, "u1", "a", 100), (0, "u1", "a", 5000), (0, "u1", "a", 200),
            (0, "u2", "b", 300), (0, "u2", "b", 150), (0, "u1", "a", 5100)]
    out = run_batch(apps.late_after_repartition(), {"clicks": frame(spark, rows, "clicks")})
    got = _records(out, "counts", L)
    # "b" at 300 and 150 are late too: one task reads the one repartition partition
    assert got == [("a@0", 1, 100), ("a@5000", 1, 5000), ("a@5000", 2, 5100)]
    expected = driver_output(apps.late_after_repartition(), [("clicks", *r) for r in rows],
                             None, "counts", L)
    assert sorted(expected) == sorted(got)
    assert_same(got, expected)


def test_a_table_update_subtracts_before_it_adds_after_a_repartition(spark):
    # u1 moves from EU to US with an older timestamp: its subtraction from EU and addition to
    # US (both at 100) must follow the EU addition at 300, as written
    rows = [(0, "u1", "EU", 300), (0, "u2", "EU", 310), (0, "u1", "US", 100),
            (0, "u2", "US", 50), (0, "u3", "EU", 400)]
    out = run_batch(apps.regions_per_user(), {"users": frame(spark, rows, "users")})
    got = _records(out, "regions", L)
    expected = driver_output(apps.regions_per_user(), [("users", *r) for r in rows], None,
                             "regions", L)
    by_region = {}
    for region, count, _ in got:
        by_region.setdefault(region, []).append(count)
    assert by_region == {"EU": [1, 2, 1, 0, 1], "US": [1, 2]}
    assert_same(got, expected)


def test_suppress_after_a_repartition_emits_what_the_driver_emits(spark):
    rows = [(0, "u1", "a", 100), (0, "u1", "b", 2500), (0, "u1", "a", 400),
            (0, "u1", "a", 1200), (0, "u1", "b", 3100), (0, "u1", "a", 4000)]
    out = run_batch(apps.suppressed_after_repartition(),
                    {"clicks": frame(spark, rows, "clicks")})
    got = _records(out, "counts", L)
    expected = driver_output(apps.suppressed_after_repartition(),
                             [("clicks", *r) for r in rows], None, "counts", L)
    assert_same(got, expected)


def test_several_writers_keep_each_writers_order(spark):
    # three input partitions each write a late record to the one repartition partition "a"
    # goes to; piped round by round, as the driver below pipes them, each stays late
    rows = [(p, f"u{p}", "a", ts + p) for ts in (100, 5000, 200) for p in range(3)]
    partitions = {"clicks": 3}
    out = run_batch(apps.late_after_repartition(), {"clicks": frame(spark, rows, "clicks")},
                    partitions=partitions)
    got = _records(out, "counts", L)
    assert got == [("a@0", 1, 100), ("a@0", 2, 101), ("a@0", 3, 102), ("a@5000", 1, 5000),
                   ("a@5000", 2, 5001), ("a@5000", 3, 5002)]
    expected = driver_output(apps.late_after_repartition(), [("clicks", *r) for r in rows],
                             partitions, "counts", L)
    assert_same(got, expected)


def test_a_chunk_writing_two_topics_keeps_each_topics_order_on_both_paths(spark):
    # one task writes its output topic and a repartition topic; a batch chunk appends them
    # topic by topic, so the repartition's order (by each topic's own marks) must not depend
    # on what the chunk wrote to the other topic first
    rows = [(0, "u1", "a", 500), (0, "u1", "b", 100), (0, "u1", "a", 200), (0, "u1", "b", 900)]
    results = []
    for bulk in (True, False):
        out = run_batch(apps.counted_and_copied(), {"clicks": frame(spark, rows, "clicks")},
                        config={"kslab.spark.bulk": bulk})
        results.append((_records(out, "counts", L), _records(out, "copies", S)))
    assert results[0] == results[1]
    # (an aggregate's timestamp is the highest of the records it counted, as in Kafka)
    assert results[0][0] == [("a", 1, 500), ("b", 1, 100), ("a", 2, 500), ("b", 2, 900)]
    expected = driver_output(apps.counted_and_copied(), [("clicks", *r) for r in rows], None,
                             "counts", L)
    assert_same(results[0][0], expected)
