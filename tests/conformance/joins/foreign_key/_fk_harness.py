"""A foreign-key join in the test driver, opened up for Kafka's foreignkeyjoin processor tests.

Kafka tests each FK-join processor alone with a mock context. kslab's processors are not public,
so ``FkJoinHarness`` builds ``left.join(right, fk_extractor, joiner)`` (String keys and values,
the value is the foreign key) in a driver with application id ``app`` and exposes what those
tests need: the subscription-registration and response topics (to pipe into and read from,
through the FK wire serdes), the subscription store, the join's output, capture processors hung
under the four FK processors, and the per-task dropped-records counters.
"""

from __future__ import annotations

from typing import Any

import kslab as ks
from kslab import serdes
from kslab.dsl._fk_wire import (
    CombinedKeySchema,
    SubscriptionResponseWrapperSerde,
    SubscriptionWrapperSerde,
)

S = serdes.String()
APP = "app"
SUBSCRIPTION_TOPIC = f"{APP}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"
RESPONSE_TOPIC = f"{APP}-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic"
SUBSCRIPTION_STORE = "KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010"
# the FK join's processors, by the role Kafka's test classes name them after
RECEIVE = "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011"
SUBSCRIPTION_JOIN = "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012"
FOREIGN_TABLE_JOIN = "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013"
RESPONSE_JOIN = "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017"
COMBINED_KEY_SCHEMA = CombinedKeySchema(lambda: "fk-topic", S, lambda: "pk-topic", S)


def joiner(value1: object, value2: object) -> str:
    """The joiner of Kafka's FK processor tests, with Java's ``null``."""
    return f"({'null' if value1 is None else value1},{'null' if value2 is None else value2})"


class FkJoinHarness:
    """A driver running ``left.join/left_join(right, value -> value, joiner)``."""

    def __init__(self, left_join: bool = False, capture: str | None = None) -> None:
        builder = ks.StreamsBuilder()
        left = builder.table("left", ks.Consumed.with_(S, S))
        right = builder.table("right", ks.Consumed.with_(S, S))
        join = left.left_join if left_join else left.join
        join(right, lambda value: value, joiner).to_stream().to("out")
        topology = builder.build()
        self.captured: list[tuple[Any, Any, int]] = []
        if capture is not None:
            topology.add_processor("capture", lambda: _Capture(self.captured), capture)
        self.driver = ks.TopologyTestDriver(topology, {"application.id": APP,
                                                       "default.key.serde": "string",
                                                       "default.value.serde": "string"})
        self.left = self.driver.create_input_topic("left", S, S)
        self.right = self.driver.create_input_topic("right", S, S)
        self.subscriptions = self.driver.create_input_topic(
            SUBSCRIPTION_TOPIC, S, SubscriptionWrapperSerde("", S))
        self.responses = self.driver.create_input_topic(
            RESPONSE_TOPIC, S, SubscriptionResponseWrapperSerde(S))
        self.response_output = self.driver.create_output_topic(
            RESPONSE_TOPIC, S, SubscriptionResponseWrapperSerde(S))
        self.out = self.driver.create_output_topic("out", S, S)
        self.store = self.driver.get_timestamped_key_value_store(SUBSCRIPTION_STORE)

    def drain(self) -> list[tuple[Any, Any, int]]:
        """What the capture processor saw since the last call, as (key, value, timestamp)."""
        seen, self.captured[:] = list(self.captured), []
        return seen

    def dropped(self) -> int:
        """``dropped-records-total`` of the driver's task ``0_0`` (like Java's driver, it runs the
        whole topology as one task): Kafka's dropped-records sensor."""
        return self.driver.metrics()["0_0"]["dropped-records-total"]

    def close(self) -> None:
        self.driver.close()


class _Capture(ks.Processor):
    def __init__(self, seen: list) -> None:
        self.seen = seen

    def process(self, record: ks.Record) -> None:
        self.seen.append((record.key, record.value, record.timestamp))
