"""Spark's batch replay against the test driver across the DSL (issue 21, item 5): joins of two
streams and of two tables, session and sliding windows, windows emitted on close, suppression
after a repartition, cogroup, a versioned table and a table aggregation, each run on random
inputs on both engines with every output record compared in order.

A task reading two topics takes their records as Kafka Streams does when all are buffered:
the topic whose next record is earliest first. The driver processes records in the order they
are piped, so it is given the two topics merged that way (``kafka_order``); then the two
engines must agree exactly. A foreign-key join (sub-topologies feeding each other) is refused
on Spark before it runs, naming its topics and what to do.
"""

from __future__ import annotations

import random

import pytest
import spark_apps as apps
from test_batch import frame, spark_output

import kslab as ks
from kslab import serdes
from kslab.errors import TopologyError
from kslab.spark import run_batch

S, L = serdes.String(), serdes.Long()
Row = tuple[int, str, str, int]  # (partition, key, value, timestamp)


def random_rows(rng: random.Random, count: int) -> list[Row]:
    """``count`` records of 4 keys, values ``a|b:x|y|z``, timestamps rising 25 ms a record
    with up to 80 ms of jitter (some out of order, some late)."""
    return [(0, f"k{rng.randrange(4)}", f"{rng.choice('ab')}:{'xyz'[i % 3]}",
             25 * i + rng.randrange(80)) for i in range(count)]


def kafka_order(topics: dict[str, list[Row]]) -> list[tuple[str, Row]]:
    """The topics' records in the order a task reading all of them, each fully buffered,
    processes them: the topic with the earliest next record first (ties: by topic name)."""
    queues = {topic: list(rows) for topic, rows in topics.items()}
    merged = []
    while any(queues.values()):
        topic = min((t for t, rows in queues.items() if rows), key=lambda t: (queues[t][0][3], t))
        merged.append((topic, queues[topic].pop(0)))
    return merged


CASES = {  # topology -> the output's value serde
    "engines_stream_stream_join": S,
    "engines_table_table_join": S,
    "engines_session_count": L,
    "engines_sliding_count": L,
    "engines_suppress_final": L,
    "engines_cogroup": L,
    "engines_emit_on_close": L,
    "engines_versioned_join": S,
    "engines_table_aggregate": S,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_batch_gives_the_drivers_output(spark, name):
    topology = getattr(apps, name)
    rng = random.Random(name)
    sources = topology().source_topics()
    topics = {t: random_rows(rng, 40 if t == "left" else 30) for t in ("left", "right")
              if t in sources}
    with ks.TopologyTestDriver(topology()) as driver:
        inputs = {t: driver.create_input_topic(t, S, S) for t in topics}
        for topic, (_, key, value, timestamp) in kafka_order(topics):
            inputs[topic].pipe_input(key, value, timestamp)
        expected = [(r.key, r.value, r.timestamp) for r in
                    driver.create_output_topic("out", S, CASES[name]).read_records_to_list()]
    out = run_batch(topology(), {t: frame(spark, rows, t) for t, rows in topics.items()})
    assert len(expected) >= 10
    assert spark_output(out["out"], "out", CASES[name]) == expected


def test_a_foreign_key_join_is_refused_with_its_topics_named(spark):
    rows = random_rows(random.Random(7), 10)
    with pytest.raises(TopologyError, match=r"feed each other in a cycle through topics .*"
                                            r"SUBSCRIPTION-REGISTRATION.* \(a foreign-key join: "
                                            r"its subscription and response topics\); .*run "
                                            r"this topology in the test driver or on "
                                            r"ks.KafkaStreams"):
        run_batch(apps.engines_fk_join(), {"left": frame(spark, rows, "left"),
                                           "right": frame(spark, rows, "right")})
