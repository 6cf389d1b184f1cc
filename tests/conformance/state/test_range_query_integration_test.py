"""Kafka's ``RangeQueryIntegrationTest`` (streams/src/test/.../integration), translated to kslab
on the TopologyTestDriver instead of an embedded cluster and interactive queries: a table
materialized in ``mytable`` (in-memory, RocksDB or timestamped RocksDB; logging and caching on or
off) is filled with ``key-0 .. key-8`` (even numbers), and the store's ``range`` /
``reverse_range`` (either bound ``None`` or between two keys) must equal its ``all`` /
``reverse_all`` filtered to the bounds, and the full scans must equal the input in order. With
the cache on, reads merge the cache and the store underneath (Java's
``MergedSortedCacheKeyValueBytesStoreIterator``). Nothing is skipped.
"""

from __future__ import annotations

import itertools

import pytest

import kslab as ks
from kslab import serdes

TABLE_NAME, INPUT = "mytable", "input-topic"
DATA_SIZE = 5
S = serdes.String()
RECORDS = [(f"key-{i * 2}", f"val-{i * 2}") for i in range(DATA_SIZE)]
LOW, HIGH, MIDDLE = RECORDS[0][0], RECORDS[-1][0], RECORDS[DATA_SIZE // 2][0]
INNER_LOW, INNER_HIGH = RECORDS[1][0], RECORDS[DATA_SIZE - 2][0]
INNER_LOW_BETWEEN, INNER_HIGH_BETWEEN = "key-1", f"key-{(DATA_SIZE - 2) * 2 + 1}"
SUPPLIERS = {"InMemory": ks.Stores.in_memory_key_value_store,
             "RocksDB": ks.Stores.persistent_key_value_store,
             "Timed": ks.Stores.persistent_timestamped_key_value_store}


def store_config(store_type: str, caching: bool, logging: bool) -> ks.Materialized:
    m = ks.Materialized.as_(SUPPLIERS[store_type](TABLE_NAME)).with_key_serde(S) \
        .with_value_serde(S)
    m = m.with_caching_enabled() if caching else m.with_caching_disabled()
    return m.with_logging_enabled({}) if logging else m.with_logging_disabled()


def _in_bounds(key: str, low: str | None, high: str | None) -> bool:
    return (low is None or key >= low) and (high is None or key <= high)


@pytest.mark.parametrize(("store_type", "logging", "caching", "forward"),
                         list(itertools.product(SUPPLIERS, [True, False], [True, False],
                                                [True, False])))
def test_store_config(store_type, logging, caching, forward):
    builder = ks.StreamsBuilder()
    builder.table(INPUT, materialized=store_config(store_type, caching, logging))
    config = {"application.id": "range-query-integration-test", "commit.interval.ms": 100,
              "default.key.serde": "string", "default.value.serde": "string"}
    with ks.TopologyTestDriver(builder.build(), config) as driver:
        driver.create_input_topic(INPUT, S, S).pipe_key_value_list(RECORDS, 1_000)
        store = driver.get_key_value_store(TABLE_NAME)
        assert store.get(HIGH) == RECORDS[-1][1]
        data = RECORDS if forward else RECORDS[::-1]
        scan, every = (store.range, store.all) if forward else \
            (store.reverse_range, store.reverse_all)
        with scan(None, None) as it:
            assert [tuple(kv) for kv in it] == data
        with every() as it:
            assert [tuple(kv) for kv in it] == data
        for name, low, high in [("range", INNER_LOW, INNER_HIGH), ("until", None, MIDDLE),
                                ("from", MIDDLE, None), ("untilBetween", None, INNER_HIGH_BETWEEN),
                                ("fromBetween", INNER_LOW_BETWEEN, None)]:
            with scan(low, high) as result, every() as expected:
                want = [tuple(kv) for kv in expected if _in_bounds(kv.key, low, high)]
                assert [tuple(kv) for kv in result] == want, name
                assert want, name
