"""Kafka's ``KStreamRepartitionIntegrationTest`` (streams/src/test/.../integration), translated to
kslab on the TopologyTestDriver with Java's partition counts (``partitions=``: the input topic 4,
``topic-b`` as each test creates it, the output 1) instead of an embedded cluster. The repartition
topics' partition counts Java reads from the broker are read from the ``TopicPlan`` the live
runtime creates them from (the driver runs the same plan); Java's check of the final record per
key is a check of the output records (sorted, as partitions interleave). Every case runs with
``topology.optimization`` ``all`` and ``none``. Java's stream partitioner returns
``Optional<Set<Integer>>``; kslab's takes a set (or an int) the same way.

``shouldGoThroughRebalancingCorrectly`` starts a second instance and closes it; the driver has
one instance, so only the counts across the two batches and the topic's 2 partitions are checked.
"""

from __future__ import annotations

import re

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.topic_plan import TopicPlan

APP_ID = "app-repartition"
INPUT, TOPIC_B, OUTPUT = "input-topic", "topic-b", "output-topic"
INT, STR, LONG = serdes.Integer(), serdes.String(), serdes.Long()
NOW = 1_700_000_000_000
OPTIMIZATIONS = ["all", "none"]


def config(optimization: str) -> dict:
    return {"application.id": APP_ID, "statestore.cache.max.bytes": 0, "commit.interval.ms": 100,
            "default.key.serde": "integer", "default.value.serde": "string",
            "topology.optimization": optimization}


def repartition_topic(name: str) -> str:
    return f"{APP_ID}-{name}-repartition"


def count_in_topology(topology: ks.Topology, pattern: str) -> int:
    return len(re.findall(pattern, str(topology.describe())))


def run(builder: ks.StreamsBuilder, optimization: str, inputs: dict, partitions: dict,
        out_key=INT, out_value=STR, output: str = OUTPUT) -> tuple[ks.Topology, TopicPlan, list]:
    """Build, plan against the given topic partitions, pipe ``inputs`` (topic -> pairs) and
    return the topology, the plan and the output records sorted."""
    conf = config(optimization)
    topology = builder.build(conf)
    partitions = {INPUT: 4, OUTPUT: 1, **partitions}
    plan = TopicPlan.build(topology, APP_ID, partitions, conf)
    with ks.TopologyTestDriver(topology, conf, partitions=partitions) as driver:
        for topic, pairs in inputs.items():
            driver.create_input_topic(topic, INT, STR).pipe_key_value_list(pairs, NOW)
        out = driver.create_output_topic(output, out_key, out_value).read_key_values_to_list()
    return topology, plan, sorted((tuple(kv) for kv in out), key=repr)


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_throw_when_repartition_partitions_do_not_match_source_topic_when_joining(
        optimization):
    """``shouldThrowAnExceptionWhenNumberOfPartitionsOfRepartitionOperationDoNotMatchSource
    TopicWhenJoining``: 2 partitions joined with a topic of 6; Java's thread dies with this
    message when it creates the topics, kslab refuses before anything runs."""
    builder = ks.StreamsBuilder()
    topic_b_stream = builder.stream(TOPIC_B, ks.Consumed.with_(INT, STR))
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .repartition(ks.Repartitioned.as_("join-repartition-test").with_number_of_partitions(2)) \
        .join(topic_b_stream, lambda v1, v2: v2, ks.JoinWindows.of_time_difference_with_no_grace(
            10_000)).to(OUTPUT)
    topology = builder.build(config(optimization))
    expected = (r"Number of partitions \[2\] of repartition topic "
                rf"\[{repartition_topic('join-repartition-test')}\] doesn't match number of "
                r"partitions \[6\] of the source topic")
    with pytest.raises(ks.TopologyError, match=expected):
        TopicPlan.build(topology, APP_ID, {INPUT: 4, TOPIC_B: 6, OUTPUT: 1})
    with pytest.raises(ks.TopologyError, match=expected):
        ks.TopologyTestDriver(topology, config(optimization),
                              partitions={INPUT: 4, TOPIC_B: 6, OUTPUT: 1})


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_deduct_number_of_partitions_from_repartition_operation(optimization):
    builder = ks.StreamsBuilder()
    topic_b_stream = builder.stream(TOPIC_B, ks.Consumed.with_(INT, STR)) \
        .map(lambda k, v: (k, v), named=ks.Named.as_("topic-b-mapper"))
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .repartition(ks.Repartitioned.as_("join-repartition-test").with_number_of_partitions(3)) \
        .join(topic_b_stream, lambda v1, v2: v2, ks.JoinWindows.of_time_difference_and_grace(
            10_000, 86_400_000)).to(OUTPUT)
    records = [(1, "A"), (2, "B")]
    _, plan, out = run(builder, optimization, {INPUT: records, TOPIC_B: records}, {TOPIC_B: 6})
    assert plan.partitions[repartition_topic("join-repartition-test")] == 3
    assert plan.partitions[repartition_topic("topic-b-mapper")] == 3
    assert out == records


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_do_proper_joining_when_number_of_partitions_are_valid(optimization):
    """``shouldDoProperJoiningWhenNumberOfPartitionsAreValidWhenUsingRepartitionOperation``:
    both sides repartitioned to 4; the null-key record is dropped by the join."""
    builder = ks.StreamsBuilder()
    topic_b_stream = builder.stream(TOPIC_B, ks.Consumed.with_(INT, STR)) \
        .repartition(ks.Repartitioned.as_("topic-b-scale-up").with_number_of_partitions(4))
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .repartition(ks.Repartitioned.as_("input-topic-scale-up").with_number_of_partitions(4)) \
        .join(topic_b_stream, lambda v1, v2: v2, ks.JoinWindows.of_time_difference_and_grace(
            10_000, 86_400_000)).to(OUTPUT)
    records = [(1, "A"), (2, "B"), (None, "C")]
    _, plan, out = run(builder, optimization, {INPUT: records, TOPIC_B: records}, {TOPIC_B: 1})
    assert plan.partitions[repartition_topic("topic-b-scale-up")] == 4
    assert plan.partitions[repartition_topic("input-topic-scale-up")] == 4
    assert out == [(1, "A"), (2, "B")]


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_repartition_to_multiple_partitions(optimization):
    """A partitioner that returns every partition writes each record to all four."""
    calls = []

    def broadcasting(topic, key, value, num_partitions):
        calls.append(key)
        return set(range(num_partitions))

    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).repartition(
        ks.Repartitioned.as_("broadcasting-partitioner-test").with_stream_partitioner(
            broadcasting)).to("broadcast-output-topic")
    _, plan, out = run(builder, optimization, {INPUT: [(1, "A"), (2, "B")]},
                       {"broadcast-output-topic": 4}, output="broadcast-output-topic")
    assert repartition_topic("broadcasting-partitioner-test") in plan.internal
    assert out == [(1, "A")] * 4 + [(2, "B")] * 4
    assert len(calls) == 2


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_use_stream_partitioner_for_repartition_operation(optimization):
    calls = []

    def to_partition_one(topic, key, value, num_partitions):
        calls.append(key)
        return {1}

    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).repartition(
        ks.Repartitioned.as_("partitioner-test").with_stream_partitioner(to_partition_one)) \
        .to(OUTPUT)
    _, plan, out = run(builder, optimization, {INPUT: [(1, "A"), (2, "B")]}, {})
    assert repartition_topic("partitioner-test") in plan.internal
    assert out == [(1, "A"), (2, "B")]
    assert len(calls) == 2


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_perform_select_key_with_repartition_operation(optimization):
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).select_key(lambda k, v: int(v)) \
        .repartition().to(OUTPUT)
    topology, _, out = run(builder, optimization, {INPUT: [(1, "10"), (2, "20")]}, {})
    assert out == [(10, "10"), (20, "20")]
    assert count_in_topology(topology, r"Sink: .*-repartition.*") == 1


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_create_repartition_topic_if_key_changing_operation_was_not_performed(
        optimization):
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .repartition(ks.Repartitioned.as_("dummy")).to(OUTPUT)
    topology, plan, out = run(builder, optimization, {INPUT: [(1, "A"), (2, "B")]}, {})
    assert out == [(1, "A"), (2, "B")]
    assert repartition_topic("dummy") in plan.internal
    assert count_in_topology(topology, r"Sink: .*dummy-repartition.*") == 1


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_perform_key_select_operation_when_repartition_operation_is_used_with_key_selector(
        optimization):
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)) \
        .select_key(lambda k, v: str(k), named=ks.Named.as_("new-key")) \
        .repartition(ks.Repartitioned.as_("new-key").with_key_serde(STR)) \
        .group_by_key().count().to_stream().to(OUTPUT)
    topology, plan, out = run(builder, optimization, {INPUT: [(1, "A"), (2, "B")]}, {},
                              out_key=STR, out_value=LONG)
    assert out == [("1", 1), ("2", 1)]
    assert repartition_topic("new-key") in plan.internal
    assert count_in_topology(topology, r"Sink: .*new-key-repartition.*") == 1
    assert count_in_topology(topology, "<-- new-key\n") == 1


@pytest.mark.parametrize(("optimization", "number", "expected"), [
    (o, n, e) for o in OPTIMIZATIONS for n, e in ((2, 2), (None, 4))])
def test_repartition_topic_partitions(optimization, number, expected):
    """``shouldCreateRepartitionTopicWithSpecifiedNumberOfPartitions`` (2) and
    ``shouldInheritRepartitionTopicPartitionNumberFromUpstreamTopicWhenNumberOfPartitionsIsNot
    Specified`` (the input's 4)."""
    name = "new-partitions" if number else "new-topic"
    repartitioned = ks.Repartitioned.as_(name)
    if number:
        repartitioned = repartitioned.with_number_of_partitions(number)
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).repartition(repartitioned) \
        .group_by_key().count().to_stream().to(OUTPUT)
    _, plan, out = run(builder, optimization, {INPUT: [(1, "A"), (2, "B")]}, {},
                       out_value=LONG)
    assert out == [(1, 1), (2, 1)]
    assert plan.partitions[repartition_topic(name)] == expected


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_create_only_one_repartition_topic_when_repartition_is_followed_by_group_by_key(
        optimization):
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).select_key(lambda k, v: str(k)) \
        .repartition(ks.Repartitioned.as_("new-partitions").with_key_serde(STR)
                     .with_value_serde(STR).with_number_of_partitions(1)) \
        .group_by_key().count().to_stream().to(OUTPUT)
    topology, plan, out = run(builder, optimization, {INPUT: [(1, "A"), (2, "B")]}, {},
                              out_key=STR, out_value=LONG)
    assert out == [("1", 1), ("2", 1)]
    assert repartition_topic("new-partitions") in plan.internal
    assert count_in_topology(topology, r"Sink: .*-repartition") == 1


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_generate_repartition_topic_when_name_is_not_specified(optimization):
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).select_key(lambda k, v: str(k)) \
        .repartition(ks.Repartitioned.with_(STR, STR)).to(OUTPUT)
    topology, _, out = run(builder, optimization, {INPUT: [(1, "A"), (2, "B")]}, {},
                           out_key=STR)
    assert out == [("1", "A"), ("2", "B")]
    assert count_in_topology(topology, r"Sink: .*-repartition") == 1


@pytest.mark.parametrize("optimization", OPTIMIZATIONS)
def test_should_go_through_rebalancing_correctly(optimization):
    builder = ks.StreamsBuilder()
    builder.stream(INPUT, ks.Consumed.with_(INT, STR)).select_key(lambda k, v: str(k)) \
        .repartition(ks.Repartitioned.as_("rebalancing-test").with_key_serde(STR)
                     .with_value_serde(STR).with_number_of_partitions(2)) \
        .group_by_key().count().to_stream().to(OUTPUT)
    _, plan, out = run(builder, optimization,
                       {INPUT: [(1, "A"), (2, "B"), (1, "C"), (2, "D")]}, {},
                       out_key=STR, out_value=LONG)
    assert out == [("1", 1), ("1", 2), ("2", 1), ("2", 2)]
    assert plan.partitions[repartition_topic("rebalancing-test")] == 2
