"""Kafka's ``StoreQueryIntegrationTest`` on the live runtime (a LocalBroker): two instances (or
one, adding and removing a stream thread) of a source table ``source-table`` over a 2-partition
topic, one standby replica, queried after 100 updates of key 1 with ``StoreQueryParameters``:
by default only the active partition answers; ``with_partition`` picks one partition and a
partition the instance does not hold is refused; ``enable_stale_stores`` lets the standby
answer. The app and configs are ``test_optimized_k_table_conformance.TableApp``'s (Java's
``streamsConfiguration()`` is the same).

kslab's equivalents: Java's ``queryMetadataForKey(store, key, partitioner)`` answering partition
0 is ``query_metadata_for_key(store, key, key_serde)`` (key 1 is in partition 0); Java's view of
a partition the instance does not hold fails on its first read ("The specified partition 1 for
store source-table does not exist."), kslab's ``store(...)`` fails at once with a
``StoreError``. Left out: the named-topology case (a deprecated internal API) and
``shouldFailWithIllegalArgumentExceptionWhenIQPartitionerReturnsMultiplePartitions``
(``query_metadata_for_key`` takes no partitioner).
"""

from __future__ import annotations

import pytest
from runtime_fixtures import wait_for
from test_optimized_k_table_conformance import INT, TableApp

import kslab as ks
from kslab.runtime import StoreQueryParameters

TABLE = "source-table"
KEY = 1


def _query(check) -> bool:
    """Java's ``until``: a read during a rebalance is retried."""
    try:
        return check()
    except ks.StoreError:
        return False


def _two_instances(kafka, threads: int = 1):
    app = TableApp(kafka, TABLE)
    (streams1, port1), (streams2, _p2) = app.start(threads), app.start(threads)
    assert streams1.wait_until_running(60) and streams2.wait_until_running(60)
    app.produce(KEY, 0, 100)
    assert app.acquire(100)
    return streams1, port1, streams2


def test_should_query_only_active_partition_stores_by_default(kafka):
    streams1, port1, streams2 = _two_instances(kafka)

    def check() -> bool:
        meta = streams1.query_metadata_for_key(TABLE, KEY, INT)
        store1 = streams1.store(TABLE, kind="key_value")
        store2 = streams2.store(TABLE, kind="key_value")
        if meta.active_host.port == port1:
            assert store1.get(KEY) is not None and store2.get(KEY) is None
        else:
            assert store1.get(KEY) is None and store2.get(KEY) is not None
        return True
    assert wait_for(lambda: _query(check), 60)


def test_should_query_specific_active_partition_stores(kafka):
    streams1, port1, streams2 = _two_instances(kafka)

    def check() -> bool:
        meta = streams1.query_metadata_for_key(TABLE, KEY, INT)
        key_partition = meta.partition
        other_partition = 1 if key_partition == 0 else 0
        param = StoreQueryParameters.from_name_and_type(TABLE, "key_value") \
            .with_partition(key_partition)
        other = StoreQueryParameters.from_name_and_type(TABLE, "key_value") \
            .with_partition(other_partition)
        active, passive = (streams1, streams2) if meta.active_host.port == port1 \
            else (streams2, streams1)
        assert active.store(param).get(KEY) is not None
        assert passive.store(other).get(KEY) is None
        with pytest.raises(ks.StoreError, match=f"store '{TABLE}' has no task on this "):
            active.store(other)
        return True
    assert wait_for(lambda: _query(check), 60)


@pytest.mark.parametrize("threads", [1, 2], ids=["one_thread", "multi_stream_threads"])
def test_should_query_specific_stale_partition_stores(kafka, threads):
    streams1, _port1, streams2 = _two_instances(kafka, threads)
    if threads > 1:
        assert len(streams1.metadata_for_local_threads()) > 1
        assert len(streams2.metadata_for_local_threads()) > 1
    key_partition = streams1.query_metadata_for_key(TABLE, KEY, INT).partition
    other_partition = 1 if key_partition == 0 else 0
    param = StoreQueryParameters.from_name_and_type(TABLE, "key_value") \
        .enable_stale_stores().with_partition(key_partition)
    for streams in (streams1, streams2):
        assert wait_for(lambda: _query(lambda: streams.store(param).get(KEY) is not None), 60)  # noqa: B023
    other = StoreQueryParameters.from_name_and_type(TABLE, "key_value") \
        .enable_stale_stores().with_partition(other_partition)
    assert streams1.store(other).get(KEY) is None
    assert streams2.store(other).get(KEY) is None


def test_should_query_all_stale_partition_stores(kafka):
    streams1, _port1, streams2 = _two_instances(kafka)
    stale = StoreQueryParameters.from_name_and_type(TABLE, "key_value").enable_stale_stores()
    for streams in (streams1, streams2):
        assert wait_for(lambda: _query(lambda: streams.store(stale).get(KEY) is not None), 60)  # noqa: B023


def test_should_query_stores_after_adding_and_removing_stream_thread(kafka):
    app = TableApp(kafka, TABLE)
    streams1, _port = app.start(1)
    assert streams1.wait_until_running(60)
    assert streams1.add_stream_thread() is not None
    assert wait_for(lambda: streams1.state.is_running_or_rebalancing(), 60)
    for key in (1, 2, 3):
        app.produce(key, 0, 100)
    assert app.acquire(300)

    def all_keys() -> bool:
        store = streams1.store(TABLE, kind="key_value")
        return all(store.get(key) is not None for key in (1, 2, 3))
    assert wait_for(lambda: streams1.state == ks.KafkaStreams.State.RUNNING, 60)
    assert wait_for(lambda: _query(all_keys), 60)

    assert streams1.remove_stream_thread() is not None
    assert wait_for(lambda: streams1.state == ks.KafkaStreams.State.RUNNING, 60)
    assert wait_for(lambda: _query(all_keys), 60)
