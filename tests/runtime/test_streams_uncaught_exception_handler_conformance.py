"""Kafka's ``StreamsUncaughtExceptionHandlerIntegrationTest`` (streams/src/test/.../integration)
on the live runtime (a LocalBroker): a processor named ``process`` collects each value it sees
and raises while ``THROW_ERROR`` is set; the uncaught-exception handler's answer decides what
happens to the thread, the client and the application.

Mapping: Java's shared ``AtomicBoolean`` and value list are per-test objects here; String
serdes by default; two stream threads unless a case says otherwise; the 10 s session timeout is
6 s (every live test's). Not ported: ``shouldShutdownThreadUsingOldHandler`` (Java's deprecated
``Thread.UncaughtExceptionHandler`` overload; kslab has only the streams handler) and
``shouldReplaceThreadsWithoutJavaHandler`` (the JVM's default thread handler; Python's
``threading.excepthook`` is never reached: the thread catches what it raises).
``shouldEmitSameRecordAfterFailover`` is the port of ``EmitOnChangeIntegrationTest``
(``test_emit_on_change_conformance.py``), the same test.
"""

from __future__ import annotations

import threading

import pytest
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

STR = serdes.String()
State = ks.KafkaStreams.State


class _Shared:
    """What Java keeps in static fields: the values seen and whether to throw."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.throw_error = True


def _shutdown_processor(shared: _Shared):
    class ShutdownProcessor(ks.Processor):
        """Java's ``ShutdownProcessor``: collects the value, then throws while told to."""

        def process(self, record) -> None:
            shared.values.append(record.value)
            if shared.throw_error:
                raise ks.StreamsError(threading.current_thread().name)
            shared.throw_error = True

    return ShutdownProcessor


def _app(kafka, shared: _Shared, *, threads: int = 2, state_dir: str = "state",
         builder: ks.StreamsBuilder | None = None) -> tuple[ks.KafkaStreams, str]:
    source = kafka.name("input")
    if builder is None:
        kafka.create(source)
        builder = ks.StreamsBuilder()
        builder.stream(source).process(_shutdown_processor(shared), named="process")
    config = kafka.config("handler", num__stream__threads=threads,
                          state__dir=str(kafka.tmp_path / state_dir),
                          default__key__serde="string", default__value__serde="string")
    return kafka.track(ks.KafkaStreams(builder.build(), config)), source


def _produce(kafka, topic: str, value: str) -> None:
    kafka.produce(topic, [(STR.serialize(topic, "1"), STR.serialize(topic, value))])


def _fails_to_error(kafka, streams: ks.KafkaStreams, shared: _Shared, topic: str,
                    response) -> None:
    """Start with the handler answering ``response``; one record on ``topic`` ends the client
    in ERROR, processed once."""
    streams.set_uncaught_exception_handler(lambda exc: response)
    streams.start()
    assert streams.wait_until_running(60)
    _produce(kafka, topic, "A")
    assert wait_for(lambda: streams.state is State.ERROR, timeout=30)
    assert shared.values == ["A"]


def test_should_shutdown_client(kafka):
    shared = _Shared()
    streams, source = _app(kafka, shared)
    _fails_to_error(kafka, streams, shared, source, ks.KafkaStreams.SHUTDOWN_CLIENT)


@pytest.mark.parametrize("threads", [2, 1], ids=["replace_threads", "replace_single_thread"])
def test_should_replace_threads(kafka, threads):
    """``shouldReplaceThreads`` and ``shouldReplaceSingleThread``: every thread that takes the
    task fails on ``A`` and is replaced, until the handler has been called once per thread;
    then one more replacement processes ``A`` and the client closes cleanly."""
    shared = _Shared()
    streams, source = _app(kafka, shared, threads=threads)
    count = [0]

    def handler(exc: BaseException):
        count[0] += 1
        if count[0] == threads:
            shared.throw_error = False
        return ks.KafkaStreams.REPLACE_THREAD

    streams.set_uncaught_exception_handler(handler)
    streams.start()
    assert streams.wait_until_running(60)
    _produce(kafka, source, "A")
    assert wait_for(lambda: count[0] == threads, timeout=60)
    assert wait_for(lambda: shared.throw_error, timeout=60)  # the replacement processed "A"
    streams.close()
    assert streams.state is State.NOT_RUNNING
    assert shared.values == ["A"] * (threads + 1)


@pytest.mark.parametrize("threads", [1, 2], ids=["single_thread", "multiple_threads"])
def test_should_shutdown_application(kafka, threads):
    """``shouldShutdownSingleThreadApplication`` and ``shouldShutdownMultipleThreadApplication``:
    two instances of one topology; the one that fails asks the whole application to stop."""
    shared = _Shared()
    source = kafka.create(kafka.name("input"))
    builder = ks.StreamsBuilder()
    builder.stream(source).process(_shutdown_processor(shared), named="process")
    topology = builder.build()
    apps = []
    for name in ("one", "two"):
        config = kafka.config("handler", num__stream__threads=threads,
                              state__dir=str(kafka.tmp_path / name),
                              default__key__serde="string", default__value__serde="string")
        app = kafka.track(ks.KafkaStreams(topology, config))
        app.set_uncaught_exception_handler(lambda exc: ks.KafkaStreams.SHUTDOWN_APPLICATION)
        apps.append(app)
    for app in apps:
        app.start()
    assert wait_for(lambda: all(a.state is State.RUNNING for a in apps), timeout=60)
    _produce(kafka, source, "A")
    assert wait_for(lambda: all(a.state is State.ERROR for a in apps), timeout=30)
    assert shared.values == ["A"]


def test_should_shut_down_client_if_global_stream_thread_wants_to_replace_thread(kafka):
    """A global store's processor throws; the global thread cannot be replaced, so
    ``REPLACE_THREAD`` ends the client in ``ERROR`` (no stream thread at all here)."""
    shared = _Shared()
    source, source2 = kafka.create(kafka.name("input")), kafka.create(kafka.name("input2"))
    builder = ks.StreamsBuilder()
    builder.stream(source).process(_shutdown_processor(shared), named="process")
    builder.add_global_store(
        ks.Stores.key_value_store_builder(ks.Stores.persistent_key_value_store("globalStore"),
                                          STR, STR),
        source2, ks.Consumed.with_(STR, STR), _shutdown_processor(shared))
    streams, _ = _app(kafka, shared, threads=0, builder=builder)
    _fails_to_error(kafka, streams, shared, source2, ks.KafkaStreams.REPLACE_THREAD)
