"""Automatic garbage collection held off while a stream thread processes a polled batch
(``kslab.runtime._gc``): off inside, on again after (also after an error), never turned on
where the application turned it off, and one thread's pause never ended by another's."""

from __future__ import annotations

import gc
import threading

import pytest
from confluent_kafka import Producer
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.runtime._gc import gc_paused


@pytest.fixture
def collecting():
    """Automatic collection on for the test, as the test found it afterwards."""
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_a_pause_holds_collection_off_for_the_call_and_ends_on_an_error(collecting):
    assert gc_paused(gc.isenabled) is False
    assert gc.isenabled()

    def failing():
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        gc_paused(failing)
    assert gc.isenabled()


def test_collection_the_application_turned_off_stays_off(collecting):
    gc.disable()
    assert gc_paused(gc.isenabled) is False
    assert not gc.isenabled()


def test_another_threads_call_does_not_end_the_holders_pause(collecting):
    inside, leave = threading.Event(), threading.Event()

    def holder():
        inside.set()
        leave.wait(10)

    thread = threading.Thread(target=lambda: gc_paused(holder))
    thread.start()
    assert inside.wait(10)
    assert gc_paused(gc.isenabled) is False  # the holder's pause, while it lasts
    assert not gc.isenabled()  # this call ended; the holder's has not
    leave.set()
    thread.join(10)
    assert gc.isenabled()


def test_the_stream_thread_runs_user_functions_with_collection_off(kafka, collecting):
    source, sink = kafka.create(kafka.name("in"), 1), kafka.create(kafka.name("out"), 1)
    seen: list[bool] = []
    builder = ks.StreamsBuilder()
    (builder.stream(source, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .map_values(lambda value: seen.append(gc.isenabled()) or value)
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5})
    for i in range(50):
        producer.produce(source, b'{"n": %d}' % i, b"k")
    assert producer.flush(30) == 0
    streams = kafka.track(ks.KafkaStreams(builder, kafka.config("gc-pause")))
    streams.start()
    assert wait_for(lambda: len(seen) == 50)
    streams.close(timeout=10_000)
    assert seen == [False] * 50
    assert gc.isenabled()
