"""A foreign-key join streaming Kafka -> Spark -> Kafka: the cycle's tasks in one state group,
two runs (availableNow, then more input from the checkpoint), every output partition equal to
the test driver's piped each run's records in the order the cycle takes them."""

from __future__ import annotations

import random
from collections import defaultdict

import spark_apps as apps
from test_engines import driver_partitions, fk_rows, kafka_order

from conftest import consume_all, produce
from kslab import serdes
from kslab.spark import start

S = serdes.String()


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
