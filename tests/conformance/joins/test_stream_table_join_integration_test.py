"""Kafka's ``StreamTableJoinIntegrationTest`` (streams/src/test/.../integration), translated to
kslab. Its ``runTestWithDriver`` (``AbstractJoinIntegrationTest``) runs on the TopologyTestDriver:
``INPUT`` is the base class's input list (topic, key, value, timestamp) and each test gives the
output expected after every input record (``None`` for nothing), with and without the record
cache. Java's base timestamp (``MockTime``) is 0 here. A versioned table answers each stream
record as of the record's timestamp (KIP-914). Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

STORE_NAME = "table-store"
APP_ID = "stream-table-join-integration-test"
INPUT_TOPIC_LEFT, INPUT_TOPIC_RIGHT = "inputTopicLeft", "inputTopicRight"
OUTPUT_TOPIC = "outputTopic"
K = ANY_UNIQUE_KEY = 0
LONG, S = serdes.Long(), serdes.String()
L, R = INPUT_TOPIC_LEFT, INPUT_TOPIC_RIGHT

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


def build(left_join: bool, versioned: bool) -> ks.Topology:
    builder = ks.StreamsBuilder()
    left_stream = builder.stream(INPUT_TOPIC_LEFT)
    if versioned:
        right_table = builder.table(INPUT_TOPIC_RIGHT, materialized=ks.Materialized.as_(
            ks.Stores.persistent_versioned_key_value_store(STORE_NAME, 5 * 60_000)))
    else:
        right_table = builder.table(INPUT_TOPIC_RIGHT)
    join = left_stream.left_join if left_join else left_stream.join
    join(right_table, value_joiner).to(OUTPUT_TOPIC)
    return builder.build(CONFIG)


CONFIG = {"default.key.serde": "long", "default.value.serde": "string",
          "commit.interval.ms": 100}


def run(topology: ks.Topology, cache_enabled: bool, app: str, expected: list) -> None:
    config = dict(CONFIG, **{"application.id": APP_ID + app})
    if not cache_enabled:
        config["statestore.cache.max.bytes"] = 0
    with ks.TopologyTestDriver(topology, config) as driver:
        topics = {name: driver.create_input_topic(name, LONG, S) for name in (R, L)}
        out = driver.create_output_topic(OUTPUT_TOPIC, LONG, S)
        for step, (topic, key, value, timestamp) in enumerate(INPUT):
            topics[topic].pipe_input(key, value, timestamp)
            output = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
            want = expected[step]
            assert output == ([] if want is None else [(K, *want)]), f"step {step}"


def _expected(entries: dict[int, tuple[str, int]]) -> list:
    """The per-step expectation list: output records at the given steps, nothing elsewhere."""
    return [entries.get(step) for step in range(len(INPUT))]


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner(cache_enabled):
    run(build(False, False), cache_enabled, "-inner",
        _expected({4: ("B-a", 5), 14: ("D-d", 6), 18: ("E-e", 15)}))


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left(cache_enabled):
    run(build(True, False), cache_enabled, "-left",
        _expected({2: ("A-null", 3), 4: ("B-a", 5), 8: ("C-null", 9), 14: ("D-d", 6),
                   18: ("E-e", 15), 21: ("F-null", 4)}))


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_with_versioned_store(cache_enabled):
    run(build(False, True), cache_enabled, "-inner",
        _expected({4: ("B-a", 5), 14: ("D-b", 6), 18: ("E-e", 15), 21: ("F-a", 4)}))


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_with_versioned_store(cache_enabled):
    run(build(True, True), cache_enabled, "-left",
        _expected({2: ("A-null", 3), 4: ("B-a", 5), 8: ("C-null", 9), 14: ("D-b", 6),
                   18: ("E-e", 15), 21: ("F-a", 4)}))
