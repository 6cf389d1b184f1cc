"""Kafka's ``KStreamRepartitionTest``, translated to kslab's ``repartition``.

Java's Mockito ``StreamPartitioner`` is a Python function recording its calls; it returns the
partition set ``{1}`` as the mock's ``Optional.of(singleton(1))`` does. Java's
``TopologyException`` is ``ks.TopologyError``; ``JoinWindows.of(10s)`` (deprecated) is
``JoinWindows.of_time_difference_with_no_grace(10_000)`` (the same windows and, with no grace
period given, the same topology). Nothing skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

INPUT_TOPIC = "input-topic"
PROPS = {"application.id": "kstream-repartition-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def repartition_output_topic(props, repartition_operation_name):
    return f"{props['application.id']}-{repartition_operation_name}-repartition"


def test_should_invoke_partitioner_when_set():
    # shouldInvokePartitionerWhenSet
    builder = ks.StreamsBuilder()
    expected_keys = [0, 1]
    calls = []

    def stream_partitioner(topic, key, value, num_partitions):
        calls.append((topic, key, value, num_partitions))
        return {1} if (key, value) in ((0, "X0"), (1, "X1")) else None

    repartition_operation_name = "test"
    repartitioned = ks.Repartitioned.stream_partitioner(stream_partitioner).with_name(
        repartition_operation_name)
    builder.stream(INPUT_TOPIC).repartition(repartitioned)

    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        test_input_topic = driver.create_input_topic(INPUT_TOPIC, serdes.Integer(),
                                                     serdes.String())
        topic_name = repartition_output_topic(PROPS, repartition_operation_name)
        test_output_topic = driver.create_output_topic(topic_name, serdes.Integer(),
                                                       serdes.String())
        for i in range(2):
            test_input_topic.pipe_input(expected_keys[i], f"X{expected_keys[i]}", i + 10)

        assert test_output_topic.read_record() == ks.TestRecord(0, "X0", 10)
        assert test_output_topic.read_record() == ks.TestRecord(1, "X1", 11)
        assert test_output_topic.read_records_to_list() == []

    assert [(key, value) for _, key, value, _ in calls] == [(0, "X0"), (1, "X1")]


def test_should_throw_an_exception_when_number_of_partitions_of_repartition_operations_do_not_match_when_joining():  # noqa: E501
    # shouldThrowAnExceptionWhenNumberOfPartitionsOfRepartitionOperationsDoNotMatchWhenJoining
    topic_b = "topic-b"
    output_topic = "topic-output"
    topic_b_repartitioned_name = "topic-b-scale-up"
    input_topic_repartitioned_name = "input-topic-scale-up"
    topic_b_number_of_partitions = 2
    input_topic_number_of_partitions = 4
    builder = ks.StreamsBuilder()

    input_topic_repartitioned = ks.Repartitioned.as_(
        input_topic_repartitioned_name).with_number_of_partitions(input_topic_number_of_partitions)
    topic_b_repartitioned = ks.Repartitioned.as_(
        topic_b_repartitioned_name).with_number_of_partitions(topic_b_number_of_partitions)
    consumed = ks.Consumed.with_(serdes.Integer(), serdes.String())
    topic_b_stream = builder.stream(topic_b, consumed).repartition(topic_b_repartitioned)
    (builder.stream(INPUT_TOPIC, consumed)
     .repartition(input_topic_repartitioned)
     .join(topic_b_stream, lambda value1, value2: value2,
           ks.JoinWindows.of_time_difference_with_no_grace(10_000))
     .to(output_topic))

    with pytest.raises(ks.TopologyError) as info:
        builder.build(PROPS)
    partitions = {f"{topic_b_repartitioned_name}-repartition": topic_b_number_of_partitions,
                  f"{input_topic_repartitioned_name}-repartition":
                      input_topic_number_of_partitions}
    tree_map = ", ".join(f"{topic}={count}" for topic, count in sorted(partitions.items()))
    expected_error_message = (
        f"Following topics do not have the same number of partitions: [{{{tree_map}}}]")
    assert expected_error_message in str(info.value)
