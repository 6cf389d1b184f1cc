"""A foreign-key join streaming Kafka -> Spark -> Kafka: the cycle's tasks in one state group,
two runs (availableNow, then more input from the checkpoint), every output partition equal to
the test driver's piped each run's records in the order the cycle takes them; and a cycle
between two repartitions whose last micro-batch, and its feeder's, run again after a restart
(as after a crash between writing and committing) with the driver's output all the same."""

from __future__ import annotations

import random
from collections import defaultdict

import spark_apps as apps
from test_engines import driver_partitions, fk_rows, kafka_order

from conftest import consume_all, produce, uncommit_last_batch
from kslab import serdes
from kslab.spark import start
from kslab.spark._replay import SEQ_HEADER

S, L = serdes.String(), serdes.Long()


def test_a_foreign_key_join_streams_with_the_drivers_output(spark, broker, topics, tmp_path):
    names = {"left": topics("left", 2), "right": topics("right", 3), "out": topics("out", 1),
             "out-left": topics("out-left", 3)}
    partitions = {names["left"]: 2, names["right"]: 3, names["out-left"]: 3}
    rows = fk_rows(random.Random("fk-stream"), {"left": 40, "right": 30},
                   {"left": 2, "right": 3})
    # no timestamp 0 (a producer would put the wall clock there); two runs' worth of input
    runs = [{names[t]: [(p, k, v, ts + 1_000) for p, k, v, ts in r[half]]
             for t, r in rows.items()} for half in (slice(0, 20), slice(20, None))]

    def topology():
        return apps.engines_fk_join(names["left"], names["right"], names["out"],
                                    names["out-left"])

    config = {"application.id": names["left"].replace("-left", "-app"),
              "bootstrap.servers": broker.bootstrap_servers}
    for run in runs:
        for topic, run_rows in run.items():
            produce(broker, topic, [(p, S.serialize(topic, k), S.serialize(topic, v), ts)
                                    for p, k, v, ts in run_rows])
        streams = start(topology(), config, checkpoint_location=str(tmp_path / "ckpt"),
                        trigger={"availableNow": True}, spark=spark)
        assert streams.await_termination(300)
        assert len(streams.queries) == 1  # the cycle is one query
    piped = [record for run in runs for record in kafka_order(run)]
    outputs = {names["out"]: S, names["out-left"]: S}
    expected = driver_partitions(topology, piped, partitions, outputs)
    got: dict[tuple[str, int], list[tuple[str, str | None, int]]] = defaultdict(list)
    for topic in outputs:
        for p, key, value, ts in consume_all(broker, topic, 3 if topic == names["out-left"]
                                             else 1):
            got[(topic, p)].append((S.deserialize(topic, key), S.deserialize(topic, value), ts))
    assert dict(got) == expected
    assert len(expected[(names["out"], 0)]) >= 20


def test_a_replayed_micro_batch_around_a_cycle_counts_nothing_twice(spark, broker, topics,
                                                                     tmp_path):
    """The cycle's feeder and the cycle itself replay their last micro-batch after a restart:
    the cycle drops the feeder's replayed rows and the count after it drops the cycle's (each
    by its writer's sequence), so the count's output is the driver's record for record.
    Timestamps rise across both inputs (no ties; the second run's after the first's) and one
    task re-keys the left records, so the cycle takes them in the order the driver was piped
    them."""
    # one left partition: one task writes the repartition topic, so each of its partitions
    # holds records in time order (two writers would interleave as the broker took them)
    names = {"left": topics("left", 1), "right": topics("right", 3), "out": topics("out", 3)}
    partitions = {names["left"]: 1, names["right"]: 3, names["out"]: 3}
    rng = random.Random("fk-replay")
    times = rng.sample(range(1_000, 11_000, 7), 50)
    middle = sorted(times)[30]  # the first run: the 30 earliest records
    rows = fk_rows(rng, {"left": 30, "right": 20}, {"left": 1, "right": 3},
                   timestamps=iter(times))
    runs = [{names[t]: sorted((r for r in rs if (r[3] < middle) == first), key=lambda r: r[3])
             for t, rs in rows.items()} for first in (True, False)]

    def topology():
        return apps.engines_fk_pipeline(names["left"], names["right"], names["out"])

    app = names["left"].replace("-left", "-app")
    config = {"application.id": app, "bootstrap.servers": broker.bootstrap_servers}
    checkpoint = tmp_path / "ckpt"
    for i, run in enumerate(runs):
        for topic, run_rows in run.items():
            produce(broker, topic, [(p, S.serialize(topic, k), S.serialize(topic, v), ts)
                                    for p, k, v, ts in run_rows])
        streams = start(topology(), config, checkpoint_location=str(checkpoint),
                        trigger={"availableNow": True}, spark=spark)
        assert streams.await_termination(300)
        if i == 0:
            feeder, cycle, count = streams.plan.stages
            assert cycle.members and not feeder.members and not count.members
            for stage in (feeder, cycle):
                uncommit_last_batch(checkpoint, stage.id)
    piped = [record for run in runs for record in kafka_order(run)]
    expected = driver_partitions(topology, piped, partitions, {names["out"]: L})
    got: dict[tuple[str, int], list[tuple[str, int, int]]] = defaultdict(list)
    for p, key, value, ts in consume_all(broker, names["out"], 3):
        got[(names["out"], p)].append((S.deserialize("", key), L.deserialize("", value), ts))
    assert dict(got) == expected
    assert sum(len(r) for r in expected.values()) >= 15
    # the replays happened: both repartition topics hold rows their writer numbered alike
    from confluent_kafka.admin import AdminClient

    listed = AdminClient({"bootstrap.servers": broker.bootstrap_servers}).list_topics(
        timeout=10).topics
    built = topology()
    for topic in [built.resolve_topic(t, app) for t in built.internal_topics
                  if t.endswith("-repartition")]:
        marks = [value for *_, headers in consume_all(broker, topic,
                                                      len(listed[topic].partitions), True)
                 for key, value in headers or () if key == SEQ_HEADER]
        assert len(marks) > len(set(marks)), topic
