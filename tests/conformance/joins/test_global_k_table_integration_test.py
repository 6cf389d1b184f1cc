"""Kafka's ``GlobalKTableIntegrationTest`` (streams/src/test/.../integration), translated to
kslab on the TopologyTestDriver instead of an embedded cluster. The global table reads a
two-partition topic (the driver's ``partitions=``) into ``globalStore`` (Long/String), the stream
(String/Long) joins it through ``keyMapper = (k, v) -> v`` with ``joiner = v1 + "+" + v2``, and a
capturing processor keeps the last ``ValueAndTimestamp`` per key (Java's
``lastValueAndTimestampPerKey`` over its captured processors). Java's ``MockTime`` stamps the
records of each produce call one millisecond apart; ``NOW`` stands for its start.

Not here: ``shouldRestoreGlobalInMemoryKTableOnRestart`` (a restart of ``KafkaStreams``: the
driver has none) and ``shouldGetToRunningWithOnlyGlobalTopology`` (the ``KafkaStreams`` state
machine); the store-count check of the first is made on the driver's global store.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

GLOBAL_TOPIC, STREAM_TOPIC, GLOBAL_STORE = "globalTable", "stream", "globalStore"
LONG, STR = serdes.Long(), serdes.String()
NOW = 1_700_000_000_000
CONFIG = {"application.id": "app-global-ktable", "statestore.cache.max.bytes": 0,
          "commit.interval.ms": 100}
STREAM_VALUES = [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5)]
INITIAL_GLOBAL = [(1, "A"), (2, "B"), (3, "C"), (4, "D")]
GLOBAL_UPDATES = [(1, "F"), (2, "G"), (3, "H"), (4, "I"), (5, "J")]


class LastPerKey(ks.Processor):
    def __init__(self, last: dict) -> None:
        self.last = last

    def process(self, record: ks.Record) -> None:
        self.last[record.key] = ks.ValueAndTimestamp(record.value, record.timestamp)


def build(left: bool, last: dict) -> ks.Topology:
    builder = ks.StreamsBuilder()
    global_table = builder.global_table(
        GLOBAL_TOPIC, ks.Consumed.with_(LONG, STR),
        ks.Materialized.as_(GLOBAL_STORE).with_key_serde(LONG).with_value_serde(STR))
    stream = builder.stream(STREAM_TOPIC, ks.Consumed.with_(STR, LONG))
    join = stream.left_join if left else stream.join
    join(global_table, lambda k, v: v, lambda v1, v2: f"{v1}+{'null' if v2 is None else v2}") \
        .process(lambda: LastPerKey(last))
    return builder.build()


@pytest.mark.parametrize("left", [True, False], ids=["left_join", "join"])
def test_should_k_stream_global_k_table_join(left):
    """``shouldKStreamGlobalKTableLeftJoin`` / ``shouldKStreamGlobalKTableJoin``."""
    last: dict = {}
    with ks.TopologyTestDriver(build(left, last), CONFIG,
                               partitions={GLOBAL_TOPIC: 2}) as driver:
        global_topic = driver.create_input_topic(GLOBAL_TOPIC, LONG, STR)
        stream_topic = driver.create_input_topic(STREAM_TOPIC, STR, LONG)
        global_topic.pipe_key_value_list(INITIAL_GLOBAL, NOW, 1)
        first = NOW + 10
        stream_topic.pipe_key_value_list(STREAM_VALUES, first, 1)
        expected = {k: ks.ValueAndTimestamp(f"{v}+{'ABCD'[v - 1]}", first + v - 1)
                    for k, v in STREAM_VALUES[:4]}
        if left:
            expected["e"] = ks.ValueAndTimestamp("5+null", first + 4)
        assert last == expected

        first = NOW + 20
        global_topic.pipe_key_value_list(GLOBAL_UPDATES, first, 1)
        store = driver.get_key_value_store(GLOBAL_STORE)
        with store.all() as entries:
            assert {kv.key: kv.value for kv in entries} == dict(GLOBAL_UPDATES)
        assert driver.get_timestamped_key_value_store(GLOBAL_STORE).get(5) == \
            ks.ValueAndTimestamp("J", first + 4)

        first = NOW + 30
        stream_topic.pipe_key_value_list(STREAM_VALUES, first, 1)
        assert last == {k: ks.ValueAndTimestamp(f"{v}+{'FGHIJ'[v - 1]}", first + v - 1)
                        for k, v in STREAM_VALUES}


def test_global_in_memory_k_table_counts_its_entries():
    """The first half of ``shouldRestoreGlobalInMemoryKTableOnRestart``."""
    builder = ks.StreamsBuilder()
    builder.global_table(GLOBAL_TOPIC, ks.Consumed.with_(LONG, STR),
                         ks.Materialized.as_(ks.Stores.in_memory_key_value_store(GLOBAL_STORE)))
    with ks.TopologyTestDriver(builder.build(), CONFIG, partitions={GLOBAL_TOPIC: 2}) as driver:
        driver.create_input_topic(GLOBAL_TOPIC, LONG, STR).pipe_key_value_list(
            INITIAL_GLOBAL, NOW, 1)
        assert driver.get_key_value_store(GLOBAL_STORE).approximate_num_entries() == 4
        assert driver.get_timestamped_key_value_store(GLOBAL_STORE) \
            .approximate_num_entries() == 4
