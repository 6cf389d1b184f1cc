"""Kafka's ``StateQueryResultTest``, ``VersionedKeyQueryTest`` and ``MultiVersionedKeyQueryTest``
(streams/src/test/.../query): ``getOnlyPartitionResult`` returns the one successful partition
result that holds a value (``None`` when none does, an error when several do), and the
queries refuse a ``None`` key or time with Java's messages.

Mapping: ``new SucceededQueryResult<>(v)`` is ``QueryResult.for_result(v)``; Java's
``IllegalArgumentException`` is ``InvalidArgumentError`` and ``NullPointerException``
``MissingArgumentError``. ``MultiVersionedKeyQuery`` answers a list of
``VersionedRecord`` (Java: an iterator); the semantics it runs are checked on the store.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import InvalidArgumentError, MissingArgumentError
from kslab.runtime import (
    MultiVersionedKeyQuery,
    QueryResult,
    StateQueryResult,
    VersionedKeyQuery,
)

NO_RESULTS_FOUND = QueryResult.for_result(None)
VALID_RESULT = QueryResult.for_result("Foo")


def test_get_only_partition_result_no_results():
    result = StateQueryResult()
    result.add_result(0, NO_RESULTS_FOUND)
    assert result.get_only_partition_result() is None


def test_get_only_partition_result_with_single_result():
    result = StateQueryResult()
    result.add_result(0, VALID_RESULT)
    assert result.get_only_partition_result().get_result() == "Foo"


def test_get_only_partition_result_multiple_results():
    result = StateQueryResult()
    result.add_result(0, VALID_RESULT)
    result.add_result(1, VALID_RESULT)
    with pytest.raises(InvalidArgumentError, match="did not return exactly one partition"):
        result.get_only_partition_result()


def test_versioned_key_query_should_throw_npe_with_null_key():
    with pytest.raises(MissingArgumentError, match=r"key cannot be null\."):
        VersionedKeyQuery.with_key(None)


def test_versioned_key_query_should_throw_npe_with_null_as_of_timestamp():
    query = VersionedKeyQuery.with_key(1)
    with pytest.raises(MissingArgumentError, match=r"asOf timestamp cannot be null\."):
        query.as_of(None)


def test_multi_versioned_key_query_should_throw_npe_with_null_key():
    with pytest.raises(MissingArgumentError, match=r"key cannot be null\."):
        MultiVersionedKeyQuery.with_key(None)


def test_multi_versioned_key_query_reads_the_versions_valid_in_its_time_range():
    """What the query runs on a versioned store (Java's ``RocksDBVersionedStore.get(key,
    from, to, order)``): versions valid at some time in the range, tombstones left out, newest
    first unless ascending; a version begun before ``from`` but still valid then is in."""
    topology = ks.Topology().add_source("src", "in", key_serde=serdes.String(),
                                        value_serde=serdes.Long())
    topology.add_processor("put", _Put, "src")
    topology.add_state_store(ks.Stores.versioned_key_value_store_builder(
        ks.Stores.persistent_versioned_key_value_store("ver", 100_000), serdes.String(),
        serdes.Long()), "put")
    with ks.TopologyTestDriver(topology) as driver:
        topic = driver.create_input_topic("in")
        for value, timestamp in [(1, 10), (2, 20), (None, 30), (4, 40)]:
            topic.pipe_input("k", value, timestamp)
        store = driver.get_versioned_key_value_store("ver")
        assert store.versions("k") == [ks.VersionedRecord(4, 40), ks.VersionedRecord(2, 20, 30),
                                       ks.VersionedRecord(1, 10, 20)]
        assert store.versions("k", 15, 35, ascending=True) == [
            ks.VersionedRecord(1, 10, 20), ks.VersionedRecord(2, 20, 30)]
        assert store.versions("k", 31, 35) == []  # only the tombstone was valid then
        assert store.versions("other") == []


class _Put(ks.Processor):
    def init(self, context) -> None:
        self.store = context.get_state_store("ver")

    def process(self, record) -> None:
        self.store.put(record.key, record.value, record.timestamp)
