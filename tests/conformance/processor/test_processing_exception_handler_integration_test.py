"""Kafka's ``ProcessingExceptionHandlerIntegrationTest`` (KIP-1033), translated to kslab's driver.

Mapping: ``PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG`` is ``processing.exception.handler``,
given a handler class as in Java (``handle(context, record, exception)`` returning
``ks.ProcessingHandlerResponse``); ``StreamsException`` is ``ks.StreamsError`` and Java's
``getCause()`` is ``__cause__``; ``MockProcessorSupplier`` is ``Capture``; the
``dropped-records-total`` metric of task 0_0 is ``driver.metrics()["0_0"]``. Java's
``NullPointerException`` for a ``null`` answer is a ``TypeError`` with Java's message.

Skipped: ``dropped-records-rate`` (kslab's metrics have totals only).
"""

from __future__ import annotations

import time

import pytest

import kslab as ks
from kslab import serdes

TIMESTAMP = int(time.time() * 1000)
PROCESSOR = "KSTREAM-PROCESSOR-0000000003"


class Capture(ks.Processor):
    """Records what reaches it, as Java's ``MockProcessor``."""

    processed: list[tuple[str, str, int]] = []

    def process(self, record):
        Capture.processed.append((record.key, record.value, record.timestamp))


class RuntimeError_(ks.Processor):  # noqa: N801 - Java's runtimeErrorProcessorSupplierMock
    def init(self, context):
        self.context = context

    def process(self, record):
        if "ERR" in record.key:
            msg = "Exception should be handled by processing exception handler"
            raise RuntimeError(msg)
        self.context.forward(ks.Record(record.key, record.value, record.timestamp))


def _check_inputs(context, record, exception):
    assert record.key in ("ID123-2-ERR", "ID123-5-ERR")
    assert record.value in ("ID123-A2", "ID123-A5")
    assert context.topic == "TOPIC_NAME"
    assert context.processor_node_id == PROCESSOR
    assert context.timestamp == TIMESTAMP
    assert "Exception should be handled by processing exception handler" in str(exception)


class ContinueHandler:
    def handle(self, context, record, exception):
        if "FATAL" in record.key:
            msg = "KABOOM!"
            raise RuntimeError(msg)
        if "NULL" in record.key:
            return None
        _check_inputs(context, record, exception)
        return ks.ProcessingHandlerResponse.CONTINUE

    def configure(self, configs):
        pass


class FailHandler:
    def handle(self, context, record, exception):
        _check_inputs(context, record, exception)
        return ks.ProcessingHandlerResponse.FAIL

    def configure(self, configs):
        pass


@pytest.fixture(autouse=True)
def _fresh_capture():
    Capture.processed = []


def _topology(executed: list[bool] | None = None):
    builder = ks.StreamsBuilder()
    stream = (builder.stream("TOPIC_NAME", ks.Consumed.with_(serdes.String(), serdes.String()))
              .map(lambda k, v: ks.KeyValue(k, v))
              .map_values(lambda v: v)
              .process(RuntimeError_))
    if executed is not None:
        def mark(k, v):
            executed.append(True)
            return ks.KeyValue(k, v)
        stream = stream.map(mark)
    stream.process(Capture)
    return builder.build()


def _driver(topology, handler):
    return ks.TopologyTestDriver(topology, {"processing.exception.handler": handler}, 0)


def _dropped(driver):
    return driver.metrics()["0_0"]["dropped-records-total"]


def test_should_fail_when_processing_exception_occurs_if_exception_handler_returns_fail():
    events = [("ID123-1", "ID123-A1"), ("ID123-2-ERR", "ID123-A2"), ("ID123-3", "ID123-A3"),
              ("ID123-4", "ID123-A4")]
    with _driver(_topology(), FailHandler) as driver:
        topic = driver.create_input_topic("TOPIC_NAME", serdes.String(), serdes.String())
        with pytest.raises(ks.StreamsError) as info:
            topic.pipe_key_value_list(events, TIMESTAMP, 0)
        assert ("Exception caught in process. taskId=0_0, processor=KSTREAM-PROCESSOR-0000000003, "
                "topic=TOPIC_NAME, partition=0, offset=1") in str(info.value)
        assert Capture.processed == [("ID123-1", "ID123-A1", TIMESTAMP)]
        assert _dropped(driver) == 0


def test_should_continue_when_processing_exception_occurs_if_exception_handler_returns_continue():
    events = [("ID123-1", "ID123-A1"), ("ID123-2-ERR", "ID123-A2"), ("ID123-3", "ID123-A3"),
              ("ID123-4", "ID123-A4"), ("ID123-5-ERR", "ID123-A5"), ("ID123-6", "ID123-A6")]
    with _driver(_topology(), ContinueHandler) as driver:
        topic = driver.create_input_topic("TOPIC_NAME", serdes.String(), serdes.String())
        topic.pipe_key_value_list(events, TIMESTAMP, 0)
        assert Capture.processed == [("ID123-1", "ID123-A1", TIMESTAMP),
                                     ("ID123-3", "ID123-A3", TIMESTAMP),
                                     ("ID123-4", "ID123-A4", TIMESTAMP),
                                     ("ID123-6", "ID123-A6", TIMESTAMP)]
        assert _dropped(driver) == 2


def test_should_stop_on_failed_processor_when_processing_exception_occurs_in_fail_handler():
    executed: list[bool] = []
    with _driver(_topology(executed), FailHandler) as driver:
        topic = driver.create_input_topic("TOPIC_NAME", serdes.String(), serdes.String())
        topic.pipe_input("ID123-1", "ID123-A1", TIMESTAMP)
        assert executed == [True]
        executed.clear()
        with pytest.raises(ks.StreamsError) as info:
            topic.pipe_input("ID123-2-ERR", "ID123-A2", TIMESTAMP)
        assert ("Exception caught in process. taskId=0_0, processor=KSTREAM-PROCESSOR-0000000003, "
                "topic=TOPIC_NAME, partition=0, offset=1") in str(info.value)
        assert executed == []


def test_should_stop_on_failed_processor_when_processing_exception_occurs_in_continue_handler():
    executed: list[bool] = []
    with _driver(_topology(executed), ContinueHandler) as driver:
        topic = driver.create_input_topic("TOPIC_NAME", serdes.String(), serdes.String())
        topic.pipe_input("ID123-1", "ID123-A1", TIMESTAMP)
        assert executed == [True]
        executed.clear()
        topic.pipe_input("ID123-2-ERR", "ID123-A2", TIMESTAMP)
        assert executed == []


def test_should_stop_processing_when_processing_exception_handler_returns_null():
    executed: list[bool] = []
    with _driver(_topology(executed), ContinueHandler) as driver:
        topic = driver.create_input_topic("TOPIC_NAME", serdes.String(), serdes.String())
        topic.pipe_input("ID123-1", "ID123-A1", TIMESTAMP)
        assert executed == [True]
        executed.clear()
        with pytest.raises(ks.StreamsError) as info:
            topic.pipe_input("ID123-ERR-NULL", "ID123-A2", 0)
        assert str(info.value) == "Fatal user code error in processing error callback"
        assert isinstance(info.value.__cause__, TypeError)
        assert str(info.value.__cause__) == "Invalid ProductionExceptionHandler response."
        assert executed == []


def test_should_stop_processing_when_fatal_user_exception_processing_exception_handler():
    executed: list[bool] = []
    with _driver(_topology(executed), ContinueHandler) as driver:
        topic = driver.create_input_topic("TOPIC_NAME", serdes.String(), serdes.String())
        topic.pipe_input("ID123-1", "ID123-A1", TIMESTAMP)
        assert executed == [True]
        executed.clear()
        with pytest.raises(ks.StreamsError) as info:
            topic.pipe_input("ID123-ERR-FATAL", "ID123-A2", 0)
        assert str(info.value) == "Fatal user code error in processing error callback"
        assert str(info.value.__cause__) == "KABOOM!"
        assert executed == []
