"""Issue 24 item 3: the driver's output records carry their partition, so a test can check
where a custom ``StreamPartitioner`` or a repartition sent a record."""

from __future__ import annotations

import kslab as ks


def by_length(topic, key, value, partitions):
    """A custom partitioner: the key's length, modulo the partition count."""
    return len(key) % partitions


def partitioned_driver():
    builder = ks.StreamsBuilder()
    builder.stream("in", ks.Consumed.with_(key_serde="string", value_serde="string")).to(
        "out", ks.Produced.with_(key_serde="string", value_serde="string")
        .stream_partitioner(by_length))
    return ks.TopologyTestDriver(builder.build(), partitions={"out": 3})


def test_records_read_back_carry_the_partition_the_partitioner_chose():
    with partitioned_driver() as driver:
        driver.create_input_topic("in").pipe_key_value_list(
            [("a", "1"), ("bb", "2"), ("ccc", "3"), ("dddd", "4")])
        out = driver.create_output_topic("out")
        first = out.read_record()
        assert (first.key, first.partition) == ("a", 1)
        assert [(r.key, r.partition) for r in out.read_records_to_list()] == [
            ("bb", 2), ("ccc", 0), ("dddd", 1)]


def test_the_partition_column_and_equality():
    with partitioned_driver() as driver:
        driver.create_input_topic("in").pipe_key_value_list([("a", "1"), ("bb", "2")])
        frame = driver.create_output_topic("out").to_pandas()
        assert list(zip(frame["key"], frame["partition"], strict=True)) == [("a", 1), ("bb", 2)]
    # equality ignores the partition, as Java's TestRecord has none
    assert ks.TestRecord("a", "1", 5, partition=2) == ks.TestRecord("a", "1", 5)
    assert ks.TestRecord("a", "1", 5).partition is None
