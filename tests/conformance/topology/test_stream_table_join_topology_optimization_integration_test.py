"""Kafka's ``StreamTableJoinTopologyOptimizationIntegrationTest`` (streams/src/test/.../
integration), translated to kslab. Java starts the application on a cluster whose stream topic
has 4 partitions and table topic 2, then checks the internal topics it created: the
``selectKey`` repartition topic takes the table's 2 partitions (co-partitioning), and the table's
changelog exists only without optimization (with it, the source topic is the changelog). Here
those topics are read from the ``TopicPlan`` the live runtime creates its internal topics from,
given the same existing topics. Java's end-to-end check writes the expected records to the output
topic itself (the table topic stays empty, so the join outputs nothing); the driver run below
checks that, with the same partition counts, the join does output nothing and the repartition
topic has two partitions' worth of tasks (kslab gave the join's sub-topology four tasks and its
changelog four partitions, from the writer of the repartition topic, before the fix).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.topic_plan import TopicPlan

APP_ID = "stream-table-join-topology-optimization"
INPUT, TABLE, OUTPUT = "input-topic", "table-topic", "output-topic"
INT, STR = serdes.Integer(), serdes.String()


def build(optimization: str) -> tuple[ks.Topology, dict]:
    config = {"application.id": APP_ID, "statestore.cache.max.bytes": 0,
              "commit.interval.ms": 100, "default.key.serde": "integer",
              "default.value.serde": "string", "topology.optimization": optimization}
    builder = ks.StreamsBuilder()
    stream = builder.stream(INPUT)
    table = builder.table(TABLE, materialized=ks.Materialized.as_("store"))
    stream.select_key(lambda k, v: k, named=ks.Named.as_("selectKey")) \
        .join(table, lambda v1, v2: v2).to(OUTPUT)
    return builder.build(config), config


@pytest.mark.parametrize("optimization", ["all", "none"])
def test_should_do_stream_table_join_with_different_number_of_partitions(optimization):
    topology, config = build(optimization)
    plan = TopicPlan.build(topology, APP_ID, {INPUT: 4, TABLE: 2, OUTPUT: 4}, config)
    repartition = f"{APP_ID}-selectKey-repartition"
    changelog = f"{APP_ID}-store-changelog"
    assert repartition in plan.internal
    assert plan.partitions[repartition] == 2
    assert (changelog in plan.internal) == (optimization == "none")
    if optimization == "none":  # one changelog partition per task of the join's sub-topology
        assert plan.partitions[changelog] == 2

    partitions = {INPUT: 4, TABLE: 2, OUTPUT: 4}
    with ks.TopologyTestDriver(topology, config, partitions=partitions) as driver:
        driver.create_input_topic(INPUT, INT, STR).pipe_key_value_list(
            [(1, "A"), (2, "B")], 1_700_000_000_000)
        assert driver.create_output_topic(OUTPUT, INT, STR).read_key_values_to_list() == []
        join_tasks = {t.id for t in driver.tasks.values() if "store" in t.stores}
        assert {task_id.partition for task_id in join_tasks} == {0, 1}
