"""Kafka's ``KTableKTableForeignKeyJoinScenarioTest`` (streams, kstream/internals), in kslab.

``UniqueTopicSerdeScope`` becomes ``TopicRecordingScope``: its decorated serdes record
``<topic>--key`` / ``<topic>--value`` for every non-null value they serialize (and check that
one topic always sees one Python type), so the test can check which real and pseudo topics the
foreign-key join serializes for. The default serdes are Java's ``IntegerSerde`` and
``StringSerde`` (``"integer"`` / ``"string"``). Nothing is skipped.
"""

from __future__ import annotations

from typing import Any

import kslab as ks
from kslab import serdes

INT, S = serdes.Integer(), serdes.String()
LEFT_TABLE = "left_table"
RIGHT_TABLE = "right_table"
OUTPUT = "output-topic"


class TopicRecordingScope:
    """Java's UniqueTopicSerdeScope: which topics its serdes serialized keys and values for."""

    def __init__(self) -> None:
        self.registry: dict[str, type] = {}

    def decorate_serde(self, delegate: serdes.Serde, is_key: bool) -> serdes.Serde:
        """A serde that records each topic it serializes a non-null value for."""
        return _Recording(self, delegate, is_key)

    def registered_topics(self) -> set[str]:
        return set(self.registry)


class _Recording(serdes.Serde):
    def __init__(self, scope: TopicRecordingScope, delegate: serdes.Serde, is_key: bool) -> None:
        self.scope, self.delegate, self.is_key = scope, delegate, is_key

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        if data is not None:
            key = topic + ("--key" if self.is_key else "--value")
            assert self.scope.registry.setdefault(key, type(data)) is type(data), key
        return self.delegate.serialize(topic, data, headers)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        return self.delegate.deserialize(topic, data, headers)


def _fk(value: str) -> int:
    return int(value.split("-")[0])


def _pair(a: object, b: object) -> str:
    return f"({a},{b})"


def validate_topology_can_process_data(builder: ks.StreamsBuilder) -> None:
    config = {"default.key.serde": "integer", "default.value.serde": "string"}
    with ks.TopologyTestDriver(builder.build(), config) as driver:
        a_topic = driver.create_input_topic("A", INT, S)
        b_topic = driver.create_input_topic("B", INT, S)
        output = driver.create_output_topic("output", INT, S)
        a_topic.pipe_input(1, "999-alpha")
        b_topic.pipe_input(999, "beta")
        assert output.read_key_values_to_map() == {1: "(999-alpha,(999-alpha,beta))"}


def _scenario(a_consumed: ks.Consumed | None = None, fk_materialized: Any = None,
              final_materialized: Any = None, produced: ks.Produced | None = None) -> None:
    builder = ks.StreamsBuilder()
    a_table = builder.table("A", a_consumed) if a_consumed else builder.table("A")
    b_table = builder.table("B")
    fk_result = a_table.join(b_table, _fk, _pair,
                             materialized=fk_materialized or ks.Materialized.as_("asdf"))
    if final_materialized is None:
        final = a_table.join(fk_result, _pair)
    else:
        final = a_table.join(fk_result, _pair, final_materialized)
    final.to_stream().to("output", produced)
    validate_topology_can_process_data(builder)


def test_should_work_with_default_serdes():
    _scenario()


def test_should_work_with_default_and_consumed_serdes():
    _scenario(a_consumed=ks.Consumed.with_(INT, S))


def test_should_work_with_default_and_join_result_serdes():
    _scenario(fk_materialized=ks.Materialized.as_("asdf").with_key_serde(INT)
              .with_value_serde(S))


def test_should_work_with_default_and_equi_join_result_serdes():
    _scenario(final_materialized=ks.Materialized.with_(INT, S))


def test_should_work_with_default_and_produced_serdes():
    _scenario(produced=ks.Produced.with_(INT, S))


def test_should_use_expected_topics_with_serde(tmp_path):
    application_id = "ktable-ktable-joinOnForeignKey"
    streams_config = {"application.id": application_id, "state.dir": str(tmp_path)}
    scope = TopicRecordingScope()
    builder = ks.StreamsBuilder()
    left = builder.table(LEFT_TABLE, ks.Consumed.with_(scope.decorate_serde(INT, True),
                                                       scope.decorate_serde(S, False)))
    right = builder.table(RIGHT_TABLE, ks.Consumed.with_(scope.decorate_serde(INT, True),
                                                         scope.decorate_serde(S, False)))
    left.join(right, lambda value: int(value.split("|")[1]), _pair,
              materialized=ks.Materialized.with_(None, scope.decorate_serde(S, False))) \
        .to_stream().to(OUTPUT)
    topology = builder.build(streams_config)
    with ks.TopologyTestDriver(topology, streams_config) as driver:
        driver.create_input_topic(LEFT_TABLE, INT, S).pipe_input(2, "lhsValue1|1")
        driver.create_input_topic(RIGHT_TABLE, INT, S).pipe_input(1, "rhsValue1")
    prefix = application_id + "-"
    assert scope.registered_topics() == {
        # expected pseudo-topics
        prefix + "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic-fk--key",
        prefix + "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic-pk--key",
        prefix + "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic-vh--value",
        # internal topics
        prefix + "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic--key",
        prefix + "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic--key",
        prefix + "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic--value",
        prefix + "left_table-STATE-STORE-0000000000-changelog--key",
        prefix + "left_table-STATE-STORE-0000000000-changelog--value",
        prefix + "right_table-STATE-STORE-0000000003-changelog--key",
        prefix + "right_table-STATE-STORE-0000000003-changelog--value",
        # output topics
        "output-topic--key",
        "output-topic--value",
    }
