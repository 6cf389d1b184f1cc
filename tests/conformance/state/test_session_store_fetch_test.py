"""Kafka's ``SessionStoreFetchTest``: a session-windowed count materialized in an in-memory or
RocksDB session store, logged or not, cached or not, read back through the test driver with
``fetch`` / ``find_sessions`` key ranges (open bounds included), forward and backward.

Mapping: ``Materialized.as(supplier).withKeySerde(...).withValueSerde(...)`` plus the caching and
logging switches is ``ks.Materialized.as_(supplier)`` with the same ``with_...`` calls;
``driver.getSessionStore`` is ``driver.get_session_store``; ``TestUtils.checkEquals`` compares
the whole iteration. Java passes (logging, caching) to ``getStoreConfig(type, caching,
logging)`` swapped; all four combinations run anyway, as here. Nothing is skipped.
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

EXPECTED = [
    ks.KeyValue(ks.Windowed("key-a", ks.Window(0, 500)), 4),
    ks.KeyValue(ks.Windowed("key-aa", ks.Window(0, 500)), 4),
    ks.KeyValue(ks.Windowed("key-b", ks.Window(1500, 2000)), 6),
    ks.KeyValue(ks.Windowed("key-bb", ks.Window(1500, 2000)), 6),
]


def records() -> list[tuple[str, str]]:
    out = []
    for i in range(DATA_SIZE):
        key = "key-" + ("a" if i < DATA_SIZE // 2 else "b")
        out += [(key, f"val-{i}"), (key + key[-1], f"val-{i}")]
    return out


# Java's setUp: low/high/middle/innerLow/innerHigh and the "between" keys
MIDDLE, INNER_LOW, INNER_HIGH = "key-b", "key-a", "key-b"
INNER_LOW_BETWEEN, INNER_HIGH_BETWEEN = "key-1", "key-7"


def store_config(store_type: str, logging: bool, caching: bool) -> ks.Materialized:
    supplier = ks.Stores.in_memory_session_store(STORE_NAME, RETENTION_MS) \
        if store_type == "in_memory" else \
        ks.Stores.persistent_session_store(STORE_NAME, RETENTION_MS)
    config = ks.Materialized.as_(supplier).with_key_serde(ks.serdes.String()) \
        .with_value_serde(ks.serdes.Long())
    config = config.with_caching_enabled() if caching else config.with_caching_disabled()
    return config.with_logging_enabled({}) if logging else config.with_logging_disabled()


def scan(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def ordered(forward: bool) -> list[Any]:
    return EXPECTED if forward else EXPECTED[::-1]


def check_range(store: Any, low: str | None, high: str | None, forward: bool) -> None:
    fetch = store.fetch if forward else store.backward_fetch
    result = scan(fetch(low, high))
    expected = [kv for kv in scan(fetch(None, None))
                if (low is None or kv.key.key >= low) and (high is None or kv.key.key <= high)]
    assert result == expected, (low, high)


PARAMS = list(itertools.product(["in_memory", "rocks_db"], [True, False], [True, False],
                                [True, False]))


@pytest.mark.parametrize(("store_type", "logging", "caching", "forward"), PARAMS)
def test_test_store_config(store_type: str, logging: bool, caching: bool, forward: bool) -> None:
    builder = ks.StreamsBuilder()
    builder.stream("input", ks.Consumed.with_(ks.serdes.String(), ks.serdes.String())) \
        .group_by_key(ks.Grouped.with_(ks.serdes.String(), ks.serdes.String())) \
        .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(WINDOW_SIZE)) \
        .count(store_config(store_type, logging, caching)) \
        .to_stream().to("output")
    with ks.TopologyTestDriver(builder.build()) as driver:
        topic = driver.create_input_topic("input", ks.serdes.String(), ks.serdes.String())
        store = driver.get_session_store(STORE_NAME)
        medium = DATA_SIZE // 2 * 2
        for i, (key, value) in enumerate(records()):
            start = 0 if i < medium else 1500
            topic.pipe_input(key, value, start)
            topic.pipe_input(key, value, start + WINDOW_SIZE)
        fetch = store.fetch if forward else store.backward_fetch
        find = store.find_sessions if forward else store.backward_find_sessions
        # verifyNormalQuery
        assert scan(fetch("key-a", "key-bb")) == ordered(forward)
        assert scan(find("key-a", "key-bb", 0, 2**63 - 1)) == ordered(forward)
        # verifyInfiniteQuery
        assert scan(fetch(None, None)) == ordered(forward)
        assert scan(find(None, None, 0, 2**63 - 1)) == ordered(forward)
        # verifyRangeQuery
        check_range(store, INNER_LOW, INNER_HIGH, forward)
        check_range(store, None, MIDDLE, forward)
        check_range(store, MIDDLE, None, forward)
        check_range(store, None, INNER_HIGH_BETWEEN, forward)
        check_range(store, INNER_LOW_BETWEEN, None, forward)
