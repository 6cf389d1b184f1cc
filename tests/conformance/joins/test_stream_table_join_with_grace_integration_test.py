"""Kafka's ``StreamTableJoinWithGraceIntegrationTest`` (streams/src/test/.../integration),
translated to kslab. Its ``runTestWithDriver`` (``AbstractJoinIntegrationTest``) runs on the
TopologyTestDriver: ``INPUT`` is the base class's input list (topic, key, value, timestamp,
out-of-order records included) and each test gives the output expected after every input record
(``None`` for nothing), with and without the record cache. The table is versioned
(``Stores.persistentVersionedKeyValueStore("table-store", 5 min)``) and the join takes
``Joined.with(Long, String, String, "Grace", 2 ms)``: stream records wait in a buffer until
stream time passes their timestamp plus the grace period, then join the table as of their own
timestamp. Java's base timestamp is ``MockTime``'s start; ``BASE`` stands for it.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

STORE_NAME = "table-store"
APP_ID = "stream-table-join-integration-test"
L, R = INPUT_TOPIC_LEFT, INPUT_TOPIC_RIGHT = "inputTopicLeft", "inputTopicRight"
OUTPUT_TOPIC = "outputTopic"
K = ANY_UNIQUE_KEY = 0
LONG, S = serdes.Long(), serdes.String()
BASE = 1_700_000_000_000
JOINED = ks.Joined.with_(LONG, S, S, name="Grace", grace_period=2)

INPUT = [
    (L, K, None, 1), (R, K, None, 2), (L, K, "A", 3), (R, K, "a", 4), (L, K, "B", 5),
    (R, K, "b", 6), (L, K, None, 7), (R, K, None, 8), (L, K, "C", 9), (R, K, "c", 10),
    (R, K, None, 11), (L, K, None, 12), (R, K, None, 13),
    (R, K, "d", 7),  # out-of-order data with null as latest
    (L, K, "D", 6), (L, K, None, 2), (R, K, None, 3), (R, K, "e", 14), (L, K, "E", 15),
    (L, K, None, 10),  # out-of-order data with non-null as latest
    (R, K, None, 9), (L, K, "F", 4), (R, K, "f", 3),
]


def value_joiner(value1: object, value2: object) -> str:
    """Java's ``value1 + "-" + value2``."""
    return f"{'null' if value1 is None else value1}-{'null' if value2 is None else value2}"


def run(left_join: bool, cache_enabled: bool, expected: dict[int, tuple[str, int]]) -> None:
    builder = ks.StreamsBuilder()
    left_stream = builder.stream(INPUT_TOPIC_LEFT)
    right_table = builder.table(INPUT_TOPIC_RIGHT, materialized=ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store(STORE_NAME, 5 * 60_000)))
    join = left_stream.left_join if left_join else left_stream.join
    join(right_table, value_joiner, JOINED).to(OUTPUT_TOPIC)
    config = {"default.key.serde": "long", "default.value.serde": "string",
              "commit.interval.ms": 100,
              "application.id": APP_ID + ("-left" if left_join else "-inner")}
    if not cache_enabled:
        config["statestore.cache.max.bytes"] = 0
    with ks.TopologyTestDriver(builder.build(config), config) as driver:
        topics = {name: driver.create_input_topic(name, LONG, S) for name in (R, L)}
        out = driver.create_output_topic(OUTPUT_TOPIC, LONG, S)
        for step, (topic, key, value, timestamp) in enumerate(INPUT):
            topics[topic].pipe_input(key, value, BASE + timestamp)
            output = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
            want = [(K, expected[step][0], BASE + expected[step][1])] if step in expected else []
            assert output == want, f"step {step}"


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_with_versioned_store(cache_enabled):
    run(False, cache_enabled, {8: ("B-a", 5), 14: ("D-b", 6), 21: ("F-a", 4)})


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_with_versioned_store(cache_enabled):
    run(True, cache_enabled, {4: ("A-null", 3), 8: ("B-a", 5), 14: ("D-b", 6),
                              18: ("C-null", 9), 21: ("F-a", 4)})
