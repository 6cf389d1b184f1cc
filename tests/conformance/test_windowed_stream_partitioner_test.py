"""Kafka's ``WindowedStreamPartitionerTest``, translated, plus what Java's ``StreamSinkNode``
does with it: a ``to()`` whose key serde is windowed (and that has no partitioner) partitions by
the base key, so a windowed result topic is co-partitioned with its un-windowed input.

Mapping: ``DefaultPartitioner.partition(topic, key, keyBytes, ...)`` is
``kslab.processor.partitioner.default_partition(key_bytes, n)`` (murmur2, as the producer);
``TimeWindowedSerializer<>(intSerializer)`` is ``serdes.TimeWindowed(serdes.Integer())``;
``streamPartitioner.partitions(...)`` returns one partition here (Java's singleton set).
Java draws random keys; this runs a fixed sample of ints, negatives and extremes included.
"""

from __future__ import annotations

import random

import kslab as ks
from kslab import serdes
from kslab.dsl._partitioners import WindowedStreamPartitioner
from kslab.processor.partitioner import default_partition
from kslab.records import Window, Windowed

TOPIC = "topic"
PARTITIONS = 6


def test_copartitioning() -> None:
    rng = random.Random(7)
    integer = serdes.Integer()
    partitioner = WindowedStreamPartitioner(serdes.TimeWindowed(integer))
    for key in [0, 1, -1, 2**31 - 1, -(2**31)] + [rng.randint(-(2**31), 2**31 - 1)
                                                  for _ in range(10)]:
        expected = default_partition(integer.serialize(TOPIC, key), PARTITIONS)
        for w in range(1, 10):
            windowed = Windowed(key, Window(10 * w, 20 * w))
            assert partitioner(TOPIC, windowed, str(key), PARTITIONS) == expected


def test_a_windowed_to_partitions_by_the_base_key() -> None:
    """The DSL gives the sink the windowed partitioner: each key's windows all land in the
    partition of the key itself (whole windowed-key bytes would scatter them)."""
    s = serdes.String()
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(s, s)).group_by_key()
     .windowed_by(ks.TimeWindows.of_size_with_no_grace(10))
     .count(ks.Materialized.with_(s, serdes.Long()).with_caching_disabled())
     .to_stream().to("out", ks.Produced.with_(serdes.TimeWindowed(s, 10), serdes.Long())))
    topology = b.build()
    keys = [f"k{i}" for i in range(12)]
    with ks.TopologyTestDriver(topology, partitions={"in": 1, "out": 4}) as driver:
        topic = driver.create_input_topic("in", s, s)
        for ts in (0, 15, 27, 38):
            for key in keys:
                topic.pipe_input(key, "v", ts)
        out = driver.create_output_topic("out", serdes.TimeWindowed(s, 10), serdes.Long())
        records = out.read_records_to_list()
        assert len(records) == 48
        by_partition = driver._collector.outputs["out"]
        partitions = [by_partition.record(i)[4] for i in range(by_partition.total)]
        assert partitions == [default_partition(s.serialize("out", r.key.key), 4)
                              for r in records]
        assert len(set(partitions)) > 1
