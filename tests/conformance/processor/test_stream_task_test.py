"""Kafka's ``StreamTaskTest``: the cases whose effects a topology shows, run in kslab's driver.

Java's ``createStatelessTask`` is two sources (``topic1``, ``topic2``) feeding two mock
processors: ``processorStreamTime`` schedules a 10 ms stream-time punctuation in ``init``,
``processorSystemTime`` a 10 ms wall-clock one. Java buffers records of both partitions and lets
the task pick the lowest timestamp; the driver processes each record when it is piped, so the
records are piped in the order Java's task picks them (its comments give that order). Java's
``MockTime.sleep`` is ``advance_wall_clock_time``; ``task.punctuate(node, ..., punctuator)`` with
a throwing punctuator is a processor whose scheduled punctuator throws. ``StreamsException`` is
``ks.StreamsError`` (``getCause()`` is ``__cause__``); Java's ``FailedProcessingException`` is a
``ks.StreamsError`` too. The processing exception handlers are configured as in the
``ProcessingExceptionHandlerIntegrationTest`` port (``processing.exception.handler``).

Left out: the task life cycle (states, suspend/resume/recycle/close), commits, checkpoints,
offsets, metrics, restoration, the state directory lock, buffering and pausing, timeouts and
Java's ``TaskCorruptedException``/``TaskMigratedException`` (the task's internals, which the
driver drives itself), and ``shouldNotShareHeadersBetweenPunctuateIterations``
(``ProcessorContext.headers()`` in a punctuation is the old API; a kslab punctuator makes its
records with their own headers).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

INTEGER = serdes.Integer()


class MockProcessor(ks.Processor):
    """Java's ``MockProcessor(punctuationType, 10)``: records each punctuation's timestamp, and
    keeps the ``Cancellable`` of its schedule."""

    def __init__(self, punctuation_type, punctuations, punctuator=None):
        self.punctuation_type = punctuation_type
        self.punctuations = punctuations
        self.punctuator = punctuator
        self.received = 0

    def init(self, context):
        self.cancellable = context.schedule(10, self.punctuation_type,
                                            self.punctuator or self.punctuations.append)

    def process(self, record):
        self.received += 1


class StatelessTask:
    """Java's ``createStatelessTask``, in a driver."""

    def __init__(self, config=None, punctuator=None,
                 punctuation_type=ks.PunctuationType.STREAM_TIME):
        self.stream_time = []
        self.system_time = []
        self.processors = {}
        topology = ks.Topology()
        topology.add_source("source1", "topic1", key_serde=INTEGER, value_serde=INTEGER)
        topology.add_source("source2", "topic2", key_serde=INTEGER, value_serde=INTEGER)
        topology.add_processor("processorStreamTime", self._supplier(
            "stream", ks.PunctuationType.STREAM_TIME, self.stream_time,
            punctuator if punctuation_type == ks.PunctuationType.STREAM_TIME else None),
            "source1", "source2")
        topology.add_processor("processorSystemTime", self._supplier(
            "system", ks.PunctuationType.WALL_CLOCK_TIME, self.system_time,
            punctuator if punctuation_type == ks.PunctuationType.WALL_CLOCK_TIME else None),
            "source1", "source2")
        self.driver = ks.TopologyTestDriver(topology, config)
        self.topics = {topic: self.driver.create_input_topic(topic, INTEGER, INTEGER)
                       for topic in ("topic1", "topic2")}

    def _supplier(self, key, punctuation_type, punctuations, punctuator):
        def supplier():
            processor = MockProcessor(punctuation_type, punctuations, punctuator)
            self.processors[key] = processor
            return processor
        return supplier

    def process(self, topic, timestamp):
        """Java's ``getConsumerRecordWithOffsetAsTimestamp``: key and value are the offset."""
        self.topics[topic].pipe_input(timestamp, timestamp, timestamp)

    def close(self):
        self.driver.close()


@pytest.fixture
def task():
    created = []

    def make(*args, **kwargs):
        created.append(StatelessTask(*args, **kwargs))
        return created[-1]

    yield make
    for task in created:
        task.close()


def test_should_punctuate_once_stream_time_after_gap(task):
    t = task()
    for topic, timestamp, punctuated in [
        ("topic1", 20, [20]),  # st: 20, punctuate at 20
        ("topic2", 25, [20]),
        ("topic1", 142, [20, 142]),  # punctuate at 142
        ("topic2", 145, [20, 142]),  # only one punctuation after the 100 ms gap
        ("topic1", 155, [20, 142, 155]),
        ("topic2", 159, [20, 142, 155]),
        ("topic1", 160, [20, 142, 155, 160]),  # aligned at 0
        ("topic2", 161, [20, 142, 155, 160]),
    ]:
        t.process(topic, timestamp)
        assert t.stream_time == punctuated, timestamp
    assert t.processors["stream"].received == 8


def test_should_respect_punctuate_cancellation_stream_time(task):
    t = task()
    t.process("topic1", 20)  # st is now 20
    assert t.stream_time == [20]
    t.process("topic2", 25)
    t.process("topic1", 30)  # st is now 30: punctuated at 30
    t.processors["stream"].cancellable.cancel()
    for topic, timestamp in [("topic2", 35), ("topic1", 40), ("topic2", 45)]:
        t.process(topic, timestamp)
    assert t.stream_time == [20, 30]


def test_should_respect_punctuate_cancellation_stream_time_before_it_is_due(task):
    """Java's exact case: cancelled at stream time 30 before the task punctuates for it."""
    t = task()
    t.process("topic1", 20)
    t.process("topic2", 25)
    t.processors["stream"].cancellable.cancel()
    t.process("topic1", 30)
    assert t.stream_time == [20]


def test_should_respect_punctuate_cancellation_system_time(task):
    t = task()
    t.driver.advance_wall_clock_time(10)
    assert t.system_time == [10]
    t.processors["system"].cancellable.cancel()
    t.driver.advance_wall_clock_time(10)
    assert t.system_time == [10]


def test_should_punctuate_system_time_when_interval_elapsed(task):
    t = task()
    for sleep, punctuated in [(10, [10]), (10, [10, 20]), (9, [10, 20]), (1, [10, 20, 30]),
                              (20, [10, 20, 30, 50])]:
        t.driver.advance_wall_clock_time(sleep)
        assert t.system_time == punctuated


def test_should_not_punctuate_system_time_when_interval_not_elapsed(task):
    t = task()
    t.driver.advance_wall_clock_time(9)
    assert t.system_time == []


def test_should_punctuate_once_system_time_after_gap(task):
    t = task()
    expected = []
    for sleep, fired in [(100, 100), (10, 110), (12, 122), (7, None), (1, 130), (105, 235),
                         (5, 240)]:  # 240: still aligned on the initial punctuation
        t.driver.advance_wall_clock_time(sleep)
        if fired is not None:
            expected.append(fired)
        assert t.system_time == expected


def kaboom(timestamp):
    msg = "KABOOM!"
    raise RuntimeError(msg)


@pytest.mark.parametrize("punctuation_type", [ks.PunctuationType.STREAM_TIME,
                                              ks.PunctuationType.WALL_CLOCK_TIME])
def test_should_wrap_exceptions_with_streams_exception_and_add_context_when_punctuating(
        task, punctuation_type):
    """``shouldWrapKafkaExceptionsWithStreamsExceptionAndAddContextWhenPunctuating{StreamTime,
    WallClockTimeTime}``: the error names the punctuating processor."""
    t = task(punctuator=kaboom, punctuation_type=punctuation_type)
    name = ("processorStreamTime" if punctuation_type == ks.PunctuationType.STREAM_TIME
            else "processorSystemTime")
    with pytest.raises(ks.StreamsError) as caught:
        if punctuation_type == ks.PunctuationType.STREAM_TIME:
            t.process("topic1", 1)
        else:
            t.driver.advance_wall_clock_time(10)
    assert f"processor '{name}'" in str(caught.value)
    assert str(caught.value.__cause__) == "KABOOM!"


def test_should_wrap_exception_with_streams_exception_when_process(task):
    class Faulty(ks.Processor):
        def process(self, record):
            msg = "KABOOM!"
            raise RuntimeError(msg)

    topology = ks.Topology().add_source("source1", "topic1").add_processor(
        "faulty", Faulty, "source1")
    with ks.TopologyTestDriver(topology) as driver, pytest.raises(ks.StreamsError):
        driver.create_input_topic("topic1").pipe_input(5, 5, 5)


class Handler:
    """A processing exception handler answering ``answer`` (a callable: it is called)."""

    answer: object = None
    seen: list = []

    def handle(self, context, record, exception):
        Handler.seen.append((context, record, exception))
        return self.answer() if callable(self.answer) else self.answer

    def configure(self, configs):
        pass


def handler(answer):
    return type("Handler", (Handler,), {"answer": staticmethod(answer) if callable(answer)
                                        else answer})


def crash():
    msg = "KABOOM from ProcessingExceptionHandlerMock!"
    raise RuntimeError(msg)


ContinueHandler = handler(ks.ProcessingHandlerResponse.CONTINUE)  # LogAndContinue...Handler
FailHandler = handler(ks.ProcessingHandlerResponse.FAIL)  # LogAndFailProcessingExceptionHandler
NullHandler = handler(None)
CrashingHandler = handler(crash)


def handler_config(handler):
    return {"processing.exception.handler": handler,
            "default.deserialization.exception.handler": "log_and_fail"}


def test_punctuate_should_not_throw_streams_exception_when_processing_exception_handler_replies_with_continue(  # noqa: E501
        task):
    Handler.seen = []
    t = task(handler_config(ContinueHandler), punctuator=kaboom)
    t.process("topic1", 1)  # the punctuation at 1 throws; the handler says continue
    t.process("topic1", 11)
    assert t.processors["stream"].received == 2
    # Java's punctuation record context: no topic, partition -1, offset -1, empty headers, the
    # punctuation time, and no record
    context, record, exception = Handler.seen[0]
    assert (context.topic, context.partition, context.offset) == (None, -1, -1)
    assert list(context.headers) == []
    assert (context.processor_node_id, context.timestamp) == ("processorStreamTime", 1)
    assert record is None
    assert str(exception) == "KABOOM!"
    assert len(Handler.seen) == 2  # at 1 and at 11


def test_punctuate_should_throw_streams_exception_when_processing_exception_handler_replies_with_fail(  # noqa: E501
        task):
    t = task(handler_config(FailHandler), punctuator=kaboom)
    with pytest.raises(ks.StreamsError) as caught:
        t.process("topic1", 1)
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert str(caught.value.__cause__) == "KABOOM!"


@pytest.mark.parametrize(("handler_class", "cause"), [
    (NullHandler, "Invalid ProcessingExceptionHandler response."),
    (CrashingHandler, "KABOOM from ProcessingExceptionHandlerMock!"),
], ids=["punctuateShouldThrowStreamsExceptionWhenProcessingExceptionHandlerReturnsNull",
        "punctuateShouldThrowFailedProcessingExceptionWhenProcessingExceptionHandlerThrows"
        "AnException"])
def test_punctuate_fails_on_a_fatal_processing_exception_handler(task, handler_class, cause):
    t = task(handler_config(handler_class), punctuator=kaboom)
    with pytest.raises(ks.StreamsError) as caught:
        t.process("topic1", 1)
    assert str(caught.value).startswith("Fatal user code error in processing error callback")
    assert str(caught.value.__cause__) == cause
