"""Kafka's ``ProcessorNodeTest``, translated to kslab's ``Topology`` and test driver.

Java calls ``ProcessorNode.init`` / ``process`` on a node built by hand with a mocked
``InternalProcessorContext``; here the processor runs as node ``name`` behind a source of
``topic`` in a ``TopologyTestDriver`` (task ``0_0``, partition 0, offset 0, timestamp 0, as the
mocked context answers), and the handler is given as ``processing.exception.handler``.
``StreamsException`` is ``ks.StreamsError`` with Java's ``getCause()`` as ``__cause__``;
``FailedProcessingException.failedProcessorNodeName()`` is the error's ``node``. Java's
``ClassCastException`` is Python's ``TypeError``: what a processor raises when the records it
gets are not of the types it expects (e.g. bytes where it expects ``str``, when the serdes are
wrong), so the ``ClassCast`` tests check the serde hint on a ``TypeError``.

``shouldThrowStreamsExceptionIfExceptionCaughtDuringClose`` calls ``init`` in Java (as
translated); closing a processor whose ``close()`` raises is checked as well, through
``driver.close()``, which Java's ``ProcessorNode.close`` fails with "failed to close processor".

Skipped, as outside kslab's API: ``shouldNotHandleInternalExceptionsThrownDuringProcessing``
(``FailedProcessingException``, ``TaskCorruptedException`` and ``TaskMigratedException`` are
Kafka-internal exception types a processor cannot raise in kslab), and
``testMetricsWithBuiltInMetricsVersionLatest`` (JMX sensor names).
``testTopologyLevelConfigException`` is kslab-different by contract: API.md makes
``serdes.Json()`` the default key and value serde, so a topology without serdes builds and
runs instead of failing with "Failed to initialize key serdes for source node"; the test
checks that it runs.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

TOPIC = "topic"
PARTITION = 0
OFFSET = 0
TIMESTAMP = 0
TASK_ID = ks.TaskId(0, 0)
NAME = "name"
KEY = "key"
VALUE = "value"
HANDLED = "Processing exception should be caught and handled by the processing exception handler."


class ExceptionalProcessor(ks.Processor):
    def init(self, context):
        raise RuntimeError

    def process(self, record):
        raise RuntimeError

    def close(self):
        raise RuntimeError


class FailingCloseProcessor(ks.Processor):
    def process(self, record):
        pass

    def close(self):
        raise RuntimeError


class IgnoredInternalExceptionsProcessor(ks.Processor):
    def process(self, record):
        raise RuntimeError(HANDLED)


class ClassCastProcessor(ExceptionalProcessor):
    def init(self, context):
        pass

    def process(self, record):
        raise TypeError("Incompatible types simulation exception.")


class ProcessingExceptionHandlerMock:
    def __init__(self, response, should_throw_exception):
        self.response = response
        self.should_throw_exception = should_throw_exception

    def handle(self, context, record, exception):
        assert context.topic == TOPIC
        assert context.partition == PARTITION
        assert context.offset == OFFSET
        assert context.processor_node_id == NAME
        assert context.task_id == TASK_ID
        assert context.timestamp == TIMESTAMP
        assert record.key == KEY
        assert record.value == VALUE
        assert isinstance(exception, RuntimeError)
        assert str(exception) == HANDLED
        if self.should_throw_exception:
            raise RuntimeError("KABOOM!")
        return self.response

    def configure(self, configs):
        pass


def node_topology(processor_supplier, name=NAME):
    return (ks.Topology()
            .add_source("source", TOPIC, key_serde=serdes.String(), value_serde=serdes.String())
            .add_processor(name, processor_supplier, "source"))


def driver_with_handler(handler):
    return ks.TopologyTestDriver(node_topology(IgnoredInternalExceptionsProcessor),
                                 {"processing.exception.handler": handler})


def test_should_throw_streams_exception_if_exception_caught_during_init():
    with pytest.raises(ks.StreamsError):
        ks.TopologyTestDriver(node_topology(ExceptionalProcessor))


def test_should_throw_streams_exception_if_exception_caught_during_close():
    with pytest.raises(ks.StreamsError):
        ks.TopologyTestDriver(node_topology(ExceptionalProcessor))
    # what the name says: ProcessorNode.close wraps what the processor's close() raises
    driver = ks.TopologyTestDriver(node_topology(FailingCloseProcessor))
    with pytest.raises(ks.StreamsError) as error:
        driver.close()
    assert str(error.value).startswith(f"failed to close processor {NAME}")
    assert isinstance(error.value.__cause__, RuntimeError)


def test_should_throw_failed_processing_exception_when_processing_exception_handler_replies_with_fail():  # noqa: E501
    handler = ProcessingExceptionHandlerMock(ks.ProcessingHandlerResponse.FAIL, False)
    with driver_with_handler(handler) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.String(), serdes.String())
        with pytest.raises(ks.StreamsError) as error:
            inp.pipe_input(KEY, VALUE, TIMESTAMP)
    assert isinstance(error.value.__cause__, RuntimeError)
    assert str(error.value.__cause__) == HANDLED
    assert error.value.node == NAME


def test_should_not_throw_failed_processing_exception_when_processing_exception_handler_replies_with_continue():  # noqa: E501
    handler = ProcessingExceptionHandlerMock(ks.ProcessingHandlerResponse.CONTINUE, False)
    with driver_with_handler(handler) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.String(), serdes.String())
        inp.pipe_input(KEY, VALUE, TIMESTAMP)


def test_should_throw_failed_processing_exception_when_processing_exception_handler_throws_an_exception():  # noqa: E501
    handler = ProcessingExceptionHandlerMock(ks.ProcessingHandlerResponse.CONTINUE, True)
    with driver_with_handler(handler) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.String(), serdes.String())
        with pytest.raises(ks.StreamsError) as error:
            inp.pipe_input(KEY, VALUE, TIMESTAMP)
    assert isinstance(error.value.__cause__, RuntimeError)
    assert str(error.value.__cause__) == "KABOOM!"
    assert error.value.node == NAME


def test_topology_level_class_cast_exception():
    # Serdes configuration is wrong (bytes) for a mapper that expects strings
    builder = ks.StreamsBuilder()
    builder.stream("streams-plaintext-input").flat_map_values(lambda value: [value + ""])
    topology = builder.build()
    config = {"default.key.serde": "bytes", "default.value.serde": "bytes"}

    with ks.TopologyTestDriver(topology, config) as test_driver:
        topic = test_driver.create_input_topic(
            "streams-plaintext-input", serdes.String(), serdes.String())
        with pytest.raises(ks.StreamsError) as error:
            topic.pipe_input(KEY, VALUE)
        msg = str(error.value)
        assert "TypeError" in msg, "Error about class cast with serdes"
        assert "Serdes" in msg, "Error about class cast with serdes"


def test_topology_level_config_exception():
    # kslab: no serdes configured means the Json default (API.md), so the driver starts
    builder = ks.StreamsBuilder()
    builder.stream("streams-plaintext-input").flat_map_values(lambda value: [""])
    topology = builder.build()
    with ks.TopologyTestDriver(topology) as test_driver:
        test_driver.create_input_topic("streams-plaintext-input").pipe_input(KEY, VALUE)


def test_topology_level_class_cast_exception_direct():
    driver = ks.TopologyTestDriver(node_topology(ClassCastProcessor, "pname"))
    inp = driver.create_input_topic(TOPIC, serdes.String(), serdes.String())
    with pytest.raises(ks.StreamsError) as error:
        inp.pipe_input(KEY, VALUE, TIMESTAMP)
    with pytest.raises(ks.StreamsError):  # ClassCastProcessor's close() raises, as in Java
        driver.close()
    assert isinstance(error.value.__cause__, TypeError)
    assert "default Serdes" in str(error.value)
    assert "input types" in str(error.value)
    assert "pname" in str(error.value)
