"""Kafka's ``TableTableJoinIntegrationTest`` (streams/src/test/.../integration), translated to
kslab. Its ``runTestWithDriver`` (``AbstractJoinIntegrationTest``) already runs on the
TopologyTestDriver, so it translates directly: ``INPUT`` / ``INPUT_WITHOUT_OUT_OF_ORDER_DATA``
are the base class's input lists (topic, key, value, timestamp), each test gives the output expected
after every input record (``None`` for nothing) with the record cache off, and only the last
output record (plus the result store) with the cache on. Java's base timestamp (``MockTime``)
is 0 here. ``Materialized.as(...).withLoggingDisabled()`` store names, the result store
``table-table-join-integration-test-store`` and the joiner ``v1 + "-" + v2`` are Java's.
Versioned tables use ``Stores.persistent_versioned_key_value_store(name, 5 minutes)``; their
out-of-order updates must not change join results (KIP-914). Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

APP_ID = "table-table-join-integration-test"
STORE_NAME = APP_ID + "-store"
INPUT_TOPIC_LEFT, INPUT_TOPIC_RIGHT = "inputTopicLeft", "inputTopicRight"
OUTPUT_TOPIC = "outputTopic"
ANY_UNIQUE_KEY = 0
LONG, S = serdes.Long(), serdes.String()
L, R = INPUT_TOPIC_LEFT, INPUT_TOPIC_RIGHT

K = ANY_UNIQUE_KEY
INPUT = [
    (L, K, None, 1), (R, K, None, 2), (L, K, "A", 3), (R, K, "a", 4), (L, K, "B", 5),
    (R, K, "b", 6), (L, K, None, 7), (R, K, None, 8), (L, K, "C", 9), (R, K, "c", 10),
    (R, K, None, 11), (L, K, None, 12), (R, K, None, 13),
    (R, K, "d", 7),  # out-of-order data with null as latest
    (L, K, "D", 6), (L, K, None, 2), (R, K, None, 3), (R, K, "e", 14), (L, K, "E", 15),
    (L, K, None, 10),  # out-of-order data with non-null as latest
    (R, K, None, 9), (L, K, "F", 4), (R, K, "f", 3),
]
INPUT_WITHOUT_OUT_OF_ORDER_DATA = [
    (L, K, None, 1), (R, K, None, 2), (L, K, "A", 3), (R, K, "a", 4), (L, K, "B", 5),
    (R, K, "b", 6), (L, K, None, 7), (R, K, None, 8), (L, K, "C", 9), (R, K, "c", 10),
    (R, K, None, 11), (L, K, None, 12), (R, K, None, 13), (R, K, "d", 14), (L, K, "D", 15),
    (L, None, "E", 16), (R, None, "e", 17),  # null keys: dropped
]


def value_joiner(value1: object, value2: object) -> str:
    """Java's ``value1 + "-" + value2``."""
    return f"{'null' if value1 is None else value1}-{'null' if value2 is None else value2}"


def _table(builder: ks.StreamsBuilder, topic: str, name: str, versioned: bool) -> ks.KTable:
    store = ks.Stores.persistent_versioned_key_value_store(name, 5 * 60_000) if versioned \
        else name
    return builder.table(topic, materialized=ks.Materialized.as_(store).with_logging_disabled())


def build(left_versioned: bool, right_versioned: bool, ops: list[str]) -> ks.Topology:
    """``leftTable.<op>(rightTable, valueJoiner)...<last op>(rightTable, valueJoiner,
    materialized)`` to the output topic."""
    builder = ks.StreamsBuilder()
    left = _table(builder, INPUT_TOPIC_LEFT, "left", left_versioned)
    right = _table(builder, INPUT_TOPIC_RIGHT, "right", right_versioned)
    materialized = (ks.Materialized.as_(STORE_NAME).with_key_serde(LONG).with_value_serde(S)
                    .with_caching_disabled().with_logging_disabled())
    joined = left
    for i, op in enumerate(ops):
        last = i == len(ops) - 1
        joined = getattr(joined, op)(right, value_joiner, *([materialized] if last else []))
    joined.to_stream().to(OUTPUT_TOPIC)
    return builder.build(CONFIG)


CONFIG = {"default.key.serde": "long", "default.value.serde": "string",
          "commit.interval.ms": 100}


def run(topology: ks.Topology, cache_enabled: bool, inputs: list, expected: list,
        final: tuple[str, int] | None) -> None:
    """``runTestWithDriver``: per-step outputs without the cache (or for versioned tables,
    which do not cache); only the final record and the result store with the cache."""
    config = dict(CONFIG, **{"application.id": APP_ID})
    if not cache_enabled:
        config["statestore.cache.max.bytes"] = 0
    per_step = not cache_enabled or final is None
    if not per_step:
        inputs = INPUT  # Java runs every cached variant on the base class's ``input``
    with ks.TopologyTestDriver(topology, config) as driver:
        topics = {name: driver.create_input_topic(name, LONG, S) for name in (R, L)}
        out = driver.create_output_topic(OUTPUT_TOPIC, LONG, S)
        last = None
        for step, (topic, key, value, timestamp) in enumerate(inputs):
            topics[topic].pipe_input(key, value, timestamp)
            if not per_step:
                continue
            output = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
            want = expected[step]
            assert output == ([] if want is None else
                              [(ANY_UNIQUE_KEY, v, t) for v, t in want]), f"step {step}"
            if want is not None:
                last = want[-1]
        if not per_step:
            records = out.read_records_to_list()
            assert (records[-1].key, records[-1].value, records[-1].timestamp) == \
                (ANY_UNIQUE_KEY, *final)
            last = final
        store = driver.get_timestamped_key_value_store(STORE_NAME)
        with store.all() as entries:
            assert [(k, v.value, v.timestamp) for k, v in entries] == [(ANY_UNIQUE_KEY, *last)]

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner(cache_enabled):
    topology = build(False, False, ['join'])
    expected = [
        None,
        None,
        None,
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        None,
        [('C-c', 10)],
        [(None, 11)],
        None,
        None,
        None,
        [('D-d', 7)],
        [(None, 7)],
        None,
        None,
        [('E-e', 15)],
        [(None, 14)],
        None,
        None,
        [('F-f', 4)],
    ]
    run(topology, cache_enabled, INPUT, expected, ('F-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left(cache_enabled):
    topology = build(False, False, ['left_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        None,
        [('D-d', 7)],
        [(None, 7)],
        None,
        None,
        [('E-e', 15)],
        [(None, 14)],
        None,
        [('F-null', 4)],
        [('F-f', 4)],
    ]
    run(topology, cache_enabled, INPUT, expected, ('F-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_outer(cache_enabled):
    topology = build(False, False, ['outer_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [('null-b', 7)],
        [(None, 8)],
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        [('null-d', 7)],
        [('D-d', 7)],
        [('null-d', 7)],
        [(None, 3)],
        [('null-e', 14)],
        [('E-e', 15)],
        [('null-e', 14)],
        [(None, 9)],
        [('F-null', 4)],
        [('F-f', 4)],
    ]
    run(topology, cache_enabled, INPUT, expected, ('F-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_with_versioned_stores(cache_enabled):
    topology = build(True, True, ['join'])
    expected = [
        None,
        None,
        None,
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        None,
        [('C-c', 10)],
        [(None, 11)],
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        [('E-e', 15)],
        None,
        None,
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT, expected, None)

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_with_versioned_stores(cache_enabled):
    topology = build(True, True, ['left_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        None,
        None,
        None,
        None,
        None,
        [('E-e', 15)],
        None,
        None,
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT, expected, None)

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_outer_with_versioned_stores(cache_enabled):
    topology = build(True, True, ['outer_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [('null-b', 7)],
        [(None, 8)],
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        None,
        None,
        None,
        None,
        [('null-e', 14)],
        [('E-e', 15)],
        None,
        None,
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT, expected, None)

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_with_left_versioned_only(cache_enabled):
    topology = build(True, False, ['join'])
    expected = [
        None,
        None,
        None,
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        None,
        [('C-c', 10)],
        [(None, 11)],
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        [('E-e', 15)],
        None,
        [(None, 15)],
        None,
        [('E-f', 15)],
    ]
    run(topology, cache_enabled, INPUT, expected, ('E-f', 15))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_with_left_versioned_only(cache_enabled):
    topology = build(True, False, ['left_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        None,
        None,
        None,
        None,
        None,
        [('E-e', 15)],
        None,
        [('E-null', 15)],
        None,
        [('E-f', 15)],
    ]
    run(topology, cache_enabled, INPUT, expected, ('E-f', 15))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_outer_with_left_versioned_only(cache_enabled):
    topology = build(True, False, ['outer_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [('null-b', 7)],
        [(None, 8)],
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        [('null-d', 7)],
        None,
        None,
        [(None, 3)],
        [('null-e', 14)],
        [('E-e', 15)],
        None,
        [('E-null', 15)],
        None,
        [('E-f', 15)],
    ]
    run(topology, cache_enabled, INPUT, expected, ('E-f', 15))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_with_right_versioned_only(cache_enabled):
    topology = build(False, True, ['join'])
    expected = [
        None,
        None,
        None,
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        None,
        [('C-c', 10)],
        [(None, 11)],
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        [('E-e', 15)],
        [(None, 14)],
        None,
        [('F-e', 14)],
        None,
    ]
    run(topology, cache_enabled, INPUT, expected, ('F-e', 14))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_with_right_versioned_only(cache_enabled):
    topology = build(False, True, ['left_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [(None, 7)],
        None,
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        None,
        [('D-null', 6)],
        [(None, 2)],
        None,
        None,
        [('E-e', 15)],
        [(None, 14)],
        None,
        [('F-e', 14)],
        None,
    ]
    run(topology, cache_enabled, INPUT, expected, ('F-e', 14))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_outer_with_right_versioned_only(cache_enabled):
    topology = build(False, True, ['outer_join'])
    expected = [
        None,
        None,
        [('A-null', 3)],
        [('A-a', 4)],
        [('B-a', 5)],
        [('B-b', 6)],
        [('null-b', 7)],
        [(None, 8)],
        [('C-null', 9)],
        [('C-c', 10)],
        [('C-null', 11)],
        [(None, 12)],
        None,
        None,
        [('D-null', 6)],
        [(None, 2)],
        None,
        [('null-e', 14)],
        [('E-e', 15)],
        [('null-e', 14)],
        None,
        [('F-e', 14)],
        None,
    ]
    run(topology, cache_enabled, INPUT, expected, ('F-e', 14))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_inner(cache_enabled):
    topology = build(False, False, ['join', 'join'])
    expected = [
        None,
        None,
        None,
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [(None, 7)],
        None,
        None,
        [('C-c-c', 10), ('C-c-c', 10)],
        None,
        None,
        None,
        None,
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_left(cache_enabled):
    topology = build(False, False, ['join', 'left_join'])
    expected = [
        None,
        None,
        None,
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [(None, 7)],
        None,
        None,
        [('C-c-c', 10), ('C-c-c', 10)],
        [(None, 11)],
        None,
        None,
        None,
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_inner_outer(cache_enabled):
    topology = build(False, False, ['join', 'outer_join'])
    expected = [
        None,
        None,
        None,
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [('null-b', 7)],
        [(None, 8)],
        None,
        [('C-c-c', 10), ('C-c-c', 10)],
        [(None, 11), (None, 11)],
        None,
        None,
        [('null-d', 14)],
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_inner(cache_enabled):
    topology = build(False, False, ['left_join', 'join'])
    expected = [
        None,
        None,
        None,
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [(None, 7)],
        None,
        None,
        [('C-c-c', 10), ('C-c-c', 10)],
        [(None, 11)],
        None,
        None,
        None,
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_left(cache_enabled):
    topology = build(False, False, ['left_join', 'left_join'])
    expected = [
        None,
        None,
        [('A-null-null', 3)],
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [(None, 7)],
        None,
        [('C-null-null', 9)],
        [('C-c-c', 10), ('C-c-c', 10)],
        [('C-null-null', 11), ('C-null-null', 11)],
        [(None, 12)],
        None,
        None,
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_left_outer(cache_enabled):
    topology = build(False, False, ['left_join', 'outer_join'])
    expected = [
        None,
        None,
        [('A-null-null', 3)],
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [('null-b', 7)],
        [(None, 8)],
        [('C-null-null', 9)],
        [('C-c-c', 10), ('C-c-c', 10)],
        [('C-null-null', 11), ('C-null-null', 11)],
        [(None, 12)],
        None,
        [('null-d', 14)],
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_outer_inner(cache_enabled):
    topology = build(False, False, ['outer_join', 'join'])
    expected = [
        None,
        None,
        None,
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [('null-b-b', 7)],
        None,
        None,
        [('C-c-c', 10), ('C-c-c', 10)],
        [(None, 11)],
        None,
        None,
        [('null-d-d', 14), ('null-d-d', 14)],
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_outer_left(cache_enabled):
    topology = build(False, False, ['outer_join', 'left_join'])
    expected = [
        None,
        None,
        [('A-null-null', 3)],
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [('null-b-b', 7)],
        [(None, 8)],
        [('C-null-null', 9)],
        [('C-c-c', 10), ('C-c-c', 10)],
        [('C-null-null', 11), ('C-null-null', 11)],
        [(None, 12)],
        None,
        [('null-d-d', 14), ('null-d-d', 14)],
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))

@pytest.mark.parametrize("cache_enabled", [True, False])
def test_outer_outer(cache_enabled):
    topology = build(False, False, ['outer_join', 'outer_join'])
    expected = [
        None,
        None,
        [('A-null-null', 3)],
        [('A-a-a', 4), ('A-a-a', 4)],
        [('B-a-a', 5)],
        [('B-b-b', 6), ('B-b-b', 6)],
        [('null-b-b', 7)],
        [(None, 8), (None, 8)],
        [('C-null-null', 9)],
        [('C-c-c', 10), ('C-c-c', 10)],
        [('C-null-null', 11), ('C-null-null', 11)],
        [(None, 12)],
        None,
        [('null-d-d', 14), ('null-d-d', 14)],
        [('D-d-d', 15)],
        None,
        None,
    ]
    run(topology, cache_enabled, INPUT_WITHOUT_OUT_OF_ORDER_DATA, expected, ('F-f-f', 4))
