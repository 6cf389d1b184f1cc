"""Kafka's ``WindowStoreFetchTest``: a time-windowed count materialized in an in-memory, RocksDB
or timestamped RocksDB window store, logged or not, cached or not, read back through the test
driver with ``fetch_all`` and key-range ``fetch`` (open bounds included), forward and backward.

Mapping: ``Materialized.as(supplier).withKeySerde(...).withValueSerde(...)`` plus the caching and
logging switches is ``ks.Materialized.as_(supplier)`` with the same ``with_...`` calls;
``driver.getWindowStore`` is ``driver.get_window_store``; ``TestUtils.checkEquals`` compares the
whole iteration and ``Utils.toList`` is ``list``. Java passes (logging, caching) to
``getStoreConfig(type, caching, logging)`` swapped; all four combinations run anyway, as here.
Nothing is skipped.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import kslab as ks

STORE_NAME = "store"
DATA_SIZE = 5
WINDOW_SIZE = 500
RETENTION_MS = 10_000
LONG_MAX = 2**63 - 1


def records() -> list[tuple[str, str]]:
    """Each ``key-<2i>`` twice, as Java's setup."""
    out = []
    for i in range(DATA_SIZE):
        out += [(f"key-{i * 2}", f"val-{i * 2}")] * 2
    return out


def expected_records() -> list[ks.KeyValue]:
    """Every key counted twice, the first ``DATA_SIZE / 2`` in window [0, 500), the rest in
    [500, 1000)."""
    out = []
    for i in range(DATA_SIZE):
        start = 0 if i < DATA_SIZE // 2 else WINDOW_SIZE
        out.append(ks.KeyValue(ks.Windowed(f"key-{i * 2}", ks.Window(start, start + WINDOW_SIZE)),
                               2))
    return out


# Java's setup: middle, innerLow, innerHigh and the "between" keys
MIDDLE, INNER_LOW, INNER_HIGH = "key-4", "key-2", "key-6"
INNER_LOW_BETWEEN, INNER_HIGH_BETWEEN = "key-1", "key-7"


def store_config(store_type: str, logging: bool, caching: bool) -> ks.Materialized:
    """Java's ``getStoreConfig``: the supplier by type, String keys, Long values."""
    factory = {
        "in_memory": ks.Stores.in_memory_window_store,
        "rocks_db": ks.Stores.persistent_window_store,
        "timed": ks.Stores.persistent_timestamped_window_store,
    }[store_type]
    supplier = factory(STORE_NAME, RETENTION_MS, WINDOW_SIZE, False)
    config = ks.Materialized.as_(supplier).with_key_serde(ks.serdes.String()) \
        .with_value_serde(ks.serdes.Long())
    config = config.with_caching_enabled() if caching else config.with_caching_disabled()
    return config.with_logging_enabled({}) if logging else config.with_logging_disabled()


def scan(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def check_range(store: Any, low: str | None, high: str | None, forward: bool) -> None:
    """Java's ``testRange``: a key-range fetch is the full scan filtered to the range."""
    if forward:
        result = scan(store.fetch(low, high, 0, LONG_MAX))
        everything = scan(store.fetch_all(0, LONG_MAX))
    else:
        result = scan(store.backward_fetch(low, high, 0, LONG_MAX))
        everything = scan(store.backward_fetch_all(0, LONG_MAX))
    expected = [kv for kv in everything
                if (low is None or kv.key.key >= low) and (high is None or kv.key.key <= high)]
    assert result == expected, (low, high)


PARAMS = list(itertools.product(["in_memory", "rocks_db", "timed"], [True, False],
                                [True, False], [True, False]))


@pytest.mark.parametrize(("store_type", "logging", "caching", "forward"), PARAMS)
def test_test_store_config(store_type: str, logging: bool, caching: bool, forward: bool) -> None:
    builder = ks.StreamsBuilder()
    builder.stream("input", ks.Consumed.with_(ks.serdes.String(), ks.serdes.String())) \
        .group_by_key(ks.Grouped.with_(ks.serdes.String(), ks.serdes.String())) \
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(WINDOW_SIZE)) \
        .count(store_config(store_type, logging, caching)) \
        .to_stream().to("output")
    with ks.TopologyTestDriver(builder.build()) as driver:
        topic = driver.create_input_topic("input", ks.serdes.String(), ks.serdes.String())
        store = driver.get_window_store(STORE_NAME)
        medium = DATA_SIZE // 2 * 2
        for i, (key, value) in enumerate(records()):
            start = 0 if i < medium else WINDOW_SIZE
            topic.pipe_input(key, value, start + i)
        expected = expected_records() if forward else expected_records()[::-1]
        if forward:
            assert scan(store.fetch_all(0, LONG_MAX)) == expected
            assert scan(store.fetch(None, None, 0, LONG_MAX)) == expected
        else:
            assert scan(store.backward_fetch_all(0, LONG_MAX)) == expected
            assert scan(store.backward_fetch(None, None, 0, LONG_MAX)) == expected
        check_range(store, INNER_LOW, INNER_HIGH, forward)
        check_range(store, None, MIDDLE, forward)
        check_range(store, MIDDLE, None, forward)
        check_range(store, None, INNER_HIGH_BETWEEN, forward)
        check_range(store, INNER_LOW_BETWEEN, None, forward)
