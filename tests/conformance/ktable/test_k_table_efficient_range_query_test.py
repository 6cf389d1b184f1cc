"""Kafka's ``KTableEfficientRangeQueryTest`` (an integration test run on the driver): range,
reverse range and full scans of a table's store, bounded and open-ended, for every store type
with and without caching and logging.

Mapping: ``Utils.toList``/``TestUtils.checkEquals`` are list comparisons of the iterators
(closed by ``with``); ``String.compareTo`` is Python string order. Nothing is skipped.
"""

from __future__ import annotations

import itertools

import pytest

import kslab as ks
from kslab import serdes

TABLE_NAME = "mytable"
DATA_SIZE = 5
S = serdes.String()

RECORDS = [ks.KeyValue(f"key-{i * 2}", f"val-{i * 2}") for i in range(DATA_SIZE)]
LOW, HIGH, MIDDLE = RECORDS[0].key, RECORDS[-1].key, RECORDS[DATA_SIZE // 2].key
INNER_LOW, INNER_LOW_BETWEEN = RECORDS[1].key, "key-1"
INNER_HIGH, INNER_HIGH_BETWEEN = RECORDS[DATA_SIZE - 2].key, f"key-{(DATA_SIZE - 2) * 2 + 1}"


def store_config(store_type, caching_enabled, logging_enabled):
    supplier = {
        "InMemory": ks.Stores.in_memory_key_value_store,
        "RocksDB": ks.Stores.persistent_key_value_store,
        "Timed": ks.Stores.persistent_timestamped_key_value_store,
    }[store_type](TABLE_NAME)
    config = ks.Materialized.as_(supplier).with_key_serde(S).with_value_serde(S)
    config = config.with_caching_enabled() if caching_enabled else config.with_caching_disabled()
    return (config.with_logging_enabled({}) if logging_enabled
            else config.with_logging_disabled())


def filter_list(items, low, high):
    return [kv for kv in items
            if (low is None or kv.key >= low) and (high is None or kv.key <= high)]


def check_range(store, low, high, forward):
    scan = store.range if forward else store.reverse_range
    everything = store.all if forward else store.reverse_all
    with scan(low, high) as result, everything() as expected:
        assert list(result) == filter_list(list(expected), low, high)


# Java's getStoreConfig(type, name, cachingEnabled, loggingEnabled) is called with
# (type, name, enableLogging, enableCaching): the flags are crossed, which changes nothing here
PARAMS = list(itertools.product(["InMemory", "RocksDB", "Timed"], [True, False], [True, False],
                                [True, False]))


@pytest.mark.parametrize(("store_type", "enable_logging", "enable_caching", "forward"), PARAMS)
def test_store_config(store_type, enable_logging, enable_caching, forward):
    builder = ks.StreamsBuilder()
    builder.table("input", materialized=store_config(store_type, enable_logging, enable_caching))
    with ks.TopologyTestDriver(builder.build()) as driver:
        inp = driver.create_input_topic("input", S, S)
        store = driver.get_key_value_store(TABLE_NAME)
        for kv in RECORDS:
            inp.pipe_input(kv.key, kv.value)
        expected = RECORDS if forward else RECORDS[::-1]
        with (store.range(None, None) if forward else store.reverse_range(None, None)) as scan:
            assert list(scan) == expected
        with (store.all() if forward else store.reverse_all()) as scan:
            assert list(scan) == expected
        check_range(store, INNER_LOW, INNER_HIGH, forward)
        check_range(store, None, MIDDLE, forward)
        check_range(store, MIDDLE, None, forward)
        check_range(store, None, INNER_HIGH_BETWEEN, forward)
        check_range(store, INNER_LOW_BETWEEN, None, forward)
