"""Kafka's ``StreamStreamJoinIntegrationTest`` (streams/src/test/.../integration), translated to
kslab. Its ``runTestWithDriver`` / ``runSelfJoinTestWithDriver`` (``AbstractJoinIntegrationTest``)
run on the TopologyTestDriver: ``INPUT_WITHOUT_OUT_OF_ORDER_DATA`` is the base class's list
(topic, key, value, timestamp) and each test gives the output expected after every input record
(``None`` for nothing), with and without the record cache. Java's base timestamp is ``MockTime``'s
start (the wall clock when the test runs); ``BASE`` is a fixed wall-clock-like value and every
timestamp is offset by it. The joins use ``JoinWindows.ofTimeDifferenceAndGrace(10 s, 24 h)`` and
the joiner ``v1 + "-" + v2``; records with a null key are dropped by the inner join and joined
with null at once by the left and outer joins (KIP-962). The ``...Repartitioned`` variants put
Java's no-op ``map`` / ``flatMap`` / ``selectKey`` (``MockMapper``) in front of the join, so both
sides go through a repartition topic. Nothing is skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

APP_ID = "stream-stream-join-integration-test"
INPUT_TOPIC_LEFT, INPUT_TOPIC_RIGHT = "inputTopicLeft", "inputTopicRight"
OUTPUT_TOPIC = "outputTopic"
K = ANY_UNIQUE_KEY = 0
L, R = INPUT_TOPIC_LEFT, INPUT_TOPIC_RIGHT
LONG, S = serdes.Long(), serdes.String()
BASE = 1_700_000_000_000
WINDOWS = ks.JoinWindows.of_time_difference_and_grace(10_000, 24 * 3_600_000)

INPUT_WITHOUT_OUT_OF_ORDER_DATA = [
    (L, K, None, 1), (R, K, None, 2), (L, K, "A", 3), (R, K, "a", 4), (L, K, "B", 5),
    (R, K, "b", 6), (L, K, None, 7), (R, K, None, 8), (L, K, "C", 9), (R, K, "c", 10),
    (R, K, None, 11), (L, K, None, 12), (R, K, None, 13), (R, K, "d", 14), (L, K, "D", 15),
    (L, None, "E", 16), (R, None, "e", 17),
]
LEFT_INPUT = [None, "A", "B", None, "C", None, "D"]


def value_joiner(value1: object, value2: object) -> str:
    """Java's ``value1 + "-" + value2``."""
    return f"{'null' if value1 is None else value1}-{'null' if value2 is None else value2}"


def config(cache_enabled: bool, app: str, **extra: object) -> dict:
    """``setupConfigsAndUtils(cacheEnabled)`` plus the test's application id."""
    conf = {"default.key.serde": "long", "default.value.serde": "string",
            "commit.interval.ms": 100, "application.id": APP_ID + app, **extra}
    if not cache_enabled:
        conf["statestore.cache.max.bytes"] = 0
    return conf


def run(topology: ks.Topology, conf: dict, expected: list) -> None:
    """``runTestWithDriver``: pipe each input at ``BASE + ts``, check the output after each."""
    assert len(expected) == len(INPUT_WITHOUT_OUT_OF_ORDER_DATA)
    with ks.TopologyTestDriver(topology, conf) as driver:
        topics = {name: driver.create_input_topic(name, LONG, S) for name in (R, L)}
        out = driver.create_output_topic(OUTPUT_TOPIC, LONG, S)
        for step, (topic, key, value, timestamp) in enumerate(INPUT_WITHOUT_OUT_OF_ORDER_DATA):
            topics[topic].pipe_input(key, value, BASE + timestamp)
            output = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
            want = [(k, v, BASE + ts) for k, v, ts in expected[step] or []]
            assert output == want, f"step {step}"


def _common(last_two: list) -> list:
    """The expectations the inner, left and outer joins share for the first 15 records."""
    def at(ts: int, *values: str) -> list:
        return [(K, v, ts) for v in values]
    return [None, None, None, at(4, "A-a"), at(5, "B-a"), at(6, "A-b", "B-b"), None, None,
            at(9, "C-a", "C-b"), at(10, "A-c", "B-c", "C-c"), None, None, None,
            at(14, "A-d", "B-d", "C-d"), at(15, "D-a", "D-b", "D-c", "D-d"), *last_two]


INNER = _common([None, None])
LEFT = _common([[(None, "E-null", 16)], None])
OUTER = _common([[(None, "E-null", 16)], [(None, "null-e", 17)]])


def _build(op: str, repartitioned: bool) -> ks.StreamsBuilder:
    builder = ks.StreamsBuilder()
    left, right = builder.stream(INPUT_TOPIC_LEFT), builder.stream(INPUT_TOPIC_RIGHT)
    if repartitioned:
        left = left.map(lambda k, v: (k, v))
        right = right.flat_map(lambda k, v: [(k, v)]).select_key(lambda k, v: k)
    getattr(left, op)(right, value_joiner, WINDOWS).to(OUTPUT_TOPIC)
    return builder


CASES = {"join": ("-inner", INNER), "left_join": ("-left", LEFT),
         "outer_join": ("-outer", OUTER)}


@pytest.mark.parametrize("cache_enabled", [True, False])
@pytest.mark.parametrize("repartitioned", [False, True], ids=["", "repartitioned"])
@pytest.mark.parametrize("op", list(CASES))
def test_inner_left_outer(op, repartitioned, cache_enabled):
    """``testInner`` / ``testLeft`` / ``testOuter`` and their ``...Repartitioned`` variants."""
    app, expected = CASES[op]
    conf = config(cache_enabled, app + ("-repartitioned" if repartitioned else ""))
    run(_build(op, repartitioned).build(conf), conf, expected)


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_multi_inner(cache_enabled):
    """``testMultiInner``: ``left.join(right).join(right)``."""
    def at(ts: int, *values: str) -> list:
        return [(K, v, ts) for v in values]
    expected = [
        None, None, None, at(4, "A-a-a"), at(5, "B-a-a"),
        at(6, "A-b-a", "B-b-a", "A-a-b", "B-a-b", "A-b-b", "B-b-b"), None, None,
        at(9, "C-a-a", "C-a-b", "C-b-a", "C-b-b"),
        at(10, "A-c-a", "A-c-b", "B-c-a", "B-c-b", "C-c-a", "C-c-b", "A-a-c", "B-a-c", "A-b-c",
           "B-b-c", "C-a-c", "C-b-c", "A-c-c", "B-c-c", "C-c-c"),
        None, None, None,
        at(14, "A-d-a", "A-d-b", "A-d-c", "B-d-a", "B-d-b", "B-d-c", "C-d-a", "C-d-b", "C-d-c",
           "A-a-d", "B-a-d", "A-b-d", "B-b-d", "C-a-d", "C-b-d", "A-c-d", "B-c-d", "C-c-d",
           "A-d-d", "B-d-d", "C-d-d"),
        at(15, "D-a-a", "D-a-b", "D-a-c", "D-a-d", "D-b-a", "D-b-b", "D-b-c", "D-b-d", "D-c-a",
           "D-c-b", "D-c-c", "D-c-d", "D-d-a", "D-d-b", "D-d-c", "D-d-d"),
        None, None,
    ]
    builder = ks.StreamsBuilder()
    left, right = builder.stream(INPUT_TOPIC_LEFT), builder.stream(INPUT_TOPIC_RIGHT)
    left.join(right, value_joiner, WINDOWS).join(right, value_joiner, WINDOWS).to(OUTPUT_TOPIC)
    conf = config(cache_enabled, "-multi-inner")
    run(builder.build(conf), conf, expected)


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_self_join(cache_enabled):
    """``testSelfJoin`` (``runSelfJoinTestWithDriver``): with ``topology.optimization=all`` a
    stream joined with itself becomes one self-join node. Inputs get timestamps ``BASE + 1..7``;
    Java checks the output only at steps with an expectation."""
    def at(ts: int, *values: str) -> list:
        return [(K, v, ts) for v in values]
    expected = [None, at(2, "A-A"), at(3, "B-A", "A-B", "B-B"), None,
                at(5, "C-A", "C-B", "A-C", "B-C", "C-C"), None,
                at(7, "D-A", "D-B", "D-C", "A-D", "B-D", "C-D", "D-D")]
    builder = ks.StreamsBuilder()
    left = builder.stream(INPUT_TOPIC_LEFT)
    left.join(left, value_joiner, WINDOWS).to(OUTPUT_TOPIC)
    conf = config(cache_enabled, "-selfJoin", **{"topology.optimization": "all"})
    topology = builder.build(conf)
    with ks.TopologyTestDriver(topology, conf) as driver:
        inp = driver.create_input_topic(INPUT_TOPIC_LEFT, LONG, S)
        out = driver.create_output_topic(OUTPUT_TOPIC, LONG, S)
        for step, value in enumerate(LEFT_INPUT):
            inp.pipe_input(K, value, BASE + step + 1)
            if expected[step] is not None:
                output = [(r.key, r.value, r.timestamp) for r in out.read_records_to_list()]
                assert output == [(k, v, BASE + ts) for k, v, ts in expected[step]], f"step {step}"
