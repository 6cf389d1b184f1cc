"""Kafka's ``KTableKTableForeignKeyJoinDistributedTest.shouldBeInitializedWithDefaultSerde`` on
the live runtime (a LocalBroker): two clients, each with its own ``StreamsBuilder`` (a truly
distributed run), run a foreign-key inner join of two 1-partition tables with only the default
(String) serdes configured and ``topology.optimization=all``; each must reach RUNNING with
active tasks on every thread, the 11-partition output must hold the three joined rows, and both
clients must still be RUNNING.

Strict xfail: kslab's stream threads join with librdkafka's range assignor (README, "Where
standbys go"), which gives partition 0 of every topic to the same member, so both tasks of
this topology (``0_0`` and ``1_0``, one partition each) land on one client and the other runs
with none; Kafka Streams' assignor balances task counts across clients.
"""

from __future__ import annotations

import threading

import pytest
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

S = serdes.String()


def _builder(left_topic: str, right_topic: str, output: str) -> ks.StreamsBuilder:
    builder = ks.StreamsBuilder()
    left, right = builder.table(left_topic), builder.table(right_topic)
    left.join(right, lambda value: value.split("|")[1],
              lambda value1, value2: f"({value1},{value2})").to_stream().to(output)
    return builder


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="the range assignor puts every 1-partition task on one "
                   "client; Kafka's assignor balances tasks across clients")
def test_should_be_initialized_with_default_serde(kafka):
    left_topic = kafka.create(kafka.name("left_table"))
    right_topic = kafka.create(kafka.name("right_table"))
    output = kafka.create(kafka.name("output-topic"), partitions=11)
    kafka.produce(left_topic, [(k.encode(), v.encode()) for k, v in [
        ("lhsValue1", "lhsValue1|rhs1"), ("lhsValue2", "lhsValue2|rhs2"),
        ("lhsValue3", "lhsValue3|rhs3"), ("lhsValue4", "lhsValue4|rhs4")]])
    kafka.produce(right_topic, [(k.encode(), v.encode()) for k, v in [
        ("rhs1", "rhsValue1"), ("rhs2", "rhsValue2"), ("rhs3", "rhsValue3")]])
    app_id = kafka.name("app")

    clients, ok = [], [threading.Event(), threading.Event()]
    for index in range(2):
        config = {
            "application.id": app_id, "bootstrap.servers": kafka.bootstrap,
            "state.dir": str(kafka.tmp_path / f"client-{index}"), "default.key.serde": S,
            "default.value.serde": S, "topology.optimization": "all",
            "consumer.session.timeout.ms": 6000, "consumer.heartbeat.interval.ms": 500,
        }
        builder = _builder(left_topic, right_topic, output)
        client = kafka.track(ks.KafkaStreams(builder.build(config), config))

        def listener(new_state, old_state, client=client, event=ok[index]) -> None:
            if new_state == ks.KafkaStreams.State.RUNNING and all(
                    thread.active_tasks for thread in client.metadata_for_local_threads()):
                event.set()
        client.set_state_listener(listener)
        clients.append(client)
    for client in clients:
        client.start()

    assert wait_for(lambda: ok[0].is_set() and ok[1].is_set(), 30), \
        "at least one client did not reach state RUNNING with active tasks: " + repr(
            [(c.state, [(t.thread_name, [str(x.task_id) for x in t.active_tasks])
                        for t in c.metadata_for_local_threads()]) for c in clients])
    got = kafka.read(output, 3, partitions=11)
    assert {(k.decode(), v.decode()) for k, v, _p in got} == {
        ("lhsValue1", "(lhsValue1|rhs1,rhsValue1)"),
        ("lhsValue2", "(lhsValue2|rhs2,rhsValue2)"),
        ("lhsValue3", "(lhsValue3|rhs3,rhsValue3)"),
    }
    assert [c.state for c in clients] == [ks.KafkaStreams.State.RUNNING] * 2
