"""Kafka's ``KafkaStreamsTest``: the client API's answers around its life cycle.

Java runs ``KafkaStreams`` over mocked clients and stream threads; most cases here need no
broker, since they check the client before ``start()`` or after ``close()`` (the bootstrap
address is never dialled), and ``shouldThrowUnknownStateStoreExceptionWhenStoreNotExist`` runs
on the LocalBroker. Java's states after ``start(); close()`` are reached by ``close()`` from
CREATED, which leaves the client NOT_RUNNING the same way. Mapping: ``StreamsNotStartedException``
is ``kslab.runtime._iq.StreamsNotStartedError`` and the ``IllegalStateException`` of a stopped
client ``StreamsNotRunningError`` (both ``ks.StoreError`` and ``ks.StreamsError``);
``IllegalArgumentException`` is ``InvalidArgumentError``, ``NullPointerException``
``MissingArgumentError``, ``TopologyException`` ``ks.TopologyError``,
``UnknownStateStoreException`` ``ks.StoreError``; ``Optional.empty()`` is ``None``.

Left out: cases on mocked stream threads' states, metrics reporters, client suppliers, RocksDB
metrics recording, client instance ids (telemetry) and the state directory's creation, which
the live-runtime tests cover where kslab has them (``tests/runtime/test_state*.py``).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.errors import InvalidArgumentError, MissingArgumentError
from kslab.runtime._iq import StreamsNotRunningError, StreamsNotStartedError

S = ks.serdes.String()


def builder_with_source():
    builder = ks.StreamsBuilder()
    builder.table("source-topic", ks.Consumed.with_(S, S), ks.Materialized.as_("store"))
    return builder


@pytest.fixture
def streams(tmp_path):
    client = ks.KafkaStreams(builder_with_source().build(), {
        "application.id": "app-id", "bootstrap.servers": "localhost:1",
        "state.dir": str(tmp_path)})
    yield client
    client.close()


def test_should_transit_to_not_running_if_close_right_after_created(streams):
    streams.close()
    assert streams.state is ks.KafkaStreams.State.NOT_RUNNING


def test_close_is_idempotent(streams):
    assert streams.close() is True
    assert streams.close() is True
    assert streams.state is ks.KafkaStreams.State.NOT_RUNNING


def test_should_not_add_thread_when_created(streams):
    assert streams.add_stream_thread() is None
    assert streams.metadata_for_local_threads() == []


def test_should_not_add_thread_when_closed(streams):
    streams.close()
    assert streams.add_stream_thread() is None


def test_should_not_remove_thread_when_not_running(streams):
    assert streams.remove_stream_thread() is None


def test_cannot_start_once_closed(streams):
    streams.close()
    with pytest.raises(ks.StreamsError):
        streams.start()


def test_should_throw_exception_setting_state_listener_not_in_create_state(streams):
    streams.close()
    with pytest.raises(ks.StreamsError):
        streams.set_state_listener(lambda new, old: None)


def test_should_throw_exception_setting_streams_uncaught_exception_handler_not_in_create_state(
        streams):
    streams.close()
    with pytest.raises(ks.StreamsError):
        streams.set_uncaught_exception_handler(lambda error: ks.KafkaStreams.SHUTDOWN_CLIENT)


def test_should_throw_null_pointer_exception_setting_streams_uncaught_exception_handler_if_null(
        streams):
    with pytest.raises(MissingArgumentError):
        streams.set_uncaught_exception_handler(None)


def test_should_allow_cleanup_before_start_and_after_close(streams):
    streams.cleanup()
    streams.close()
    streams.cleanup()


@pytest.mark.parametrize("query", [
    lambda s: s.metadata_for_all_streams_clients(),
    lambda s: s.streams_metadata_for_store("store"),
    lambda s: s.query_metadata_for_key("store", "key", S),
    lambda s: s.store("store"),
], ids=["shouldNotGetAllTasksWhenNotRunning", "shouldNotGetAllTasksWithStoreWhenNotRunning",
        "shouldNotGetQueryMetadataWithSerializerWhenNotRunningOrRebalancing",
        "shouldNotGetStoreWhenWhenNotRunningOrRebalancing"])
def test_should_not_query_when_not_running(streams, query):
    with pytest.raises(StreamsNotStartedError,
                       match=r"^KafkaStreams has not been started, you can retry after calling "
                             r"start\(\)"):
        query(streams)
    streams.close()
    with pytest.raises(StreamsNotRunningError,
                       match=r"^KafkaStreams is not running\. State is NOT_RUNNING\."):
        query(streams)


@pytest.mark.parametrize("timeout", [-1, pytest.param(-0.5, id="fraction")])
def test_should_throw_on_negative_timeout_for_close(streams, timeout):
    with pytest.raises(InvalidArgumentError, match=r"^Timeout can't be negative\."):
        streams.close(timeout)
    assert streams.state is ks.KafkaStreams.State.CREATED


def test_should_throw_topology_exception_on_empty_topology(tmp_path):
    with pytest.raises(ks.TopologyError) as caught:
        ks.KafkaStreams(ks.StreamsBuilder().build(), {
            "application.id": "app-id", "bootstrap.servers": "localhost:1",
            "state.dir": str(tmp_path)})
    assert str(caught.value) == (
        "Invalid topology: Topology has no stream threads and no global threads, must "
        "subscribe to at least one source topic or global table.")


def test_should_not_create_stream_threads_for_global_only_topology(tmp_path):
    builder = ks.StreamsBuilder()
    builder.global_table("anyTopic")
    client = ks.KafkaStreams(builder, {"application.id": "app-id",
                                       "bootstrap.servers": "localhost:1",
                                       "state.dir": str(tmp_path)})
    try:
        assert client.state is ks.KafkaStreams.State.CREATED  # made: no TopologyError
    finally:
        client.close()


def test_should_throw_unknown_state_store_exception_when_store_not_exist(kafka):
    topic = kafka.create(kafka.name("source-topic"))
    builder = ks.StreamsBuilder()
    builder.table(topic, ks.Consumed.with_(S, S), ks.Materialized.as_("store"))
    client = kafka.track(ks.KafkaStreams(builder, kafka.config("iq")))
    client.start()
    assert client.wait_until_running(30)
    with pytest.raises(ks.StoreError, match="unknown-store"):
        client.store("unknown-store")
