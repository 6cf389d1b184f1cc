"""``KafkaStreams.close()`` ends every thread and client the app made.

Right after ``close()`` no thread of the app runs and none of its confluent-kafka clients is
open (with the garbage collector off: a client left in a reference cycle counts). The app runs
on a broker of its own, which is then stopped: a client still alive would show itself, as
librdkafka logs to stderr (fd 2) when a connection drops or cannot be made. The app object
stays referenced, as a notebook variable keeps it.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator

import pytest
from apps import word_count_papi
from runtime_fixtures import KafkaHelper, open_clients, wait_for
from test_iq import _free_port
from test_state import GlobalUpdater

import kslab as ks
from kslab import serdes


def _app_with_every_client(kafka: KafkaHelper) -> ks.KafkaStreams:
    """An app that makes every kind of client: stream threads (consumer, producer, restore
    consumer), the global consumer, the control consumer, the DLQ (through the thread's
    producer), the hosts producer of ``application.server`` and the admin client."""
    table, source = kafka.create(kafka.name("names")), kafka.create(kafka.name("in"), 2)
    sink, dlq = kafka.create(kafka.name("out"), 2), kafka.create(kafka.name("dlq"))
    kafka.produce(table, [(b"k1", b"one")])
    kafka.produce(source, [(b"k1", b"a b"), (b"k2", b"\xff not utf-8")])
    s = serdes.String()
    topology = word_count_papi(source, sink, persistent=False).add_global_store(
        ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("names"), s, s)
        .with_logging_disabled(), "names-source", table, "names-updater", GlobalUpdater,
        key_serde=s, value_serde=s)
    return ks.KafkaStreams(topology, kafka.config(
        "close", num__stream__threads=2, application__server=f"localhost:{_free_port()}",
        default__deserialization__exception__handler="log_and_continue",
        **{"errors.dead.letter.queue.topic.name": dlq}))


@pytest.fixture
def no_gc() -> Iterator[None]:
    """Closing must close: a client left to the garbage collector (say, in a reference
    cycle) lives on until a collection the test does not run."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def test_close_leaves_no_thread_and_no_client(tmp_path, request, capfd, no_gc):
    threads, clients = set(threading.enumerate()), open_clients()  # kept: ids stay unique
    known = {id(c) for c in clients}
    with ks.LocalBroker() as broker:
        kafka = KafkaHelper(broker.bootstrap_servers, tmp_path, request.node.name)
        streams = _app_with_every_client(kafka)
        streams.start()
        assert wait_for(lambda: streams.metrics()["client"]["dead-letter-records"] == 1)
        assert wait_for(lambda: streams.store("counts").get("b") == 1)
        assert streams.close(timeout=30_000)
        assert [t.name for t in threading.enumerate() if t not in threads] == []
        kafka.close()
        assert [c for c in open_clients() if id(c) not in known] == []
        capfd.readouterr()
    time.sleep(2)  # librdkafka retries a lost broker within 100 ms, then backs off to 10 s
    lines = [line for line in capfd.readouterr().err.splitlines()
             if f"127.0.0.1:{broker.port}" in line]
    assert lines == []
    assert streams.state is ks.KafkaStreams.State.NOT_RUNNING
