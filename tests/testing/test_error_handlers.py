"""Processing / production exception handlers and the KIP-1034 DLQ in the TopologyTestDriver.

The DLQ records land in the DLQ topic's output, as Java's driver produces them through its
collector: the source record as read, with the ``__streams.errors.*`` headers after its own.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S = serdes.String()


class Shape(ks.Processor):
    """'boom' raises; digits become ints (the Long sink takes them); anything else stays text."""

    def init(self, context):
        self.context = context

    def process(self, record):
        if record.value == "boom":
            msg = "boom on purpose"
            raise ValueError(msg)
        value = int(record.value) if record.value.isdigit() else record.value
        self.context.forward(record.with_value(value))


def _topology():
    """src -> shape -> out (longs) and src -> copy (every record)."""
    return (ks.Topology()
            .add_source("src", "in", key_serde=S, value_serde=S)
            .add_processor("shape", Shape, "src")
            .add_sink("out", "out", "shape", key_serde=S, value_serde=serdes.Long())
            .add_sink("copy", "copy", "src", key_serde=S, value_serde=S))


def _pipe(driver, values):
    topic = driver.create_input_topic("in")
    for i, value in enumerate(values):
        topic.pipe_input(f"k{i}", value, 100 + i)


def _letters(driver):
    out = driver.create_output_topic("dlq", serdes.String(), serdes.String())
    return [(r.key, r.value, r.timestamp, dict(r.headers)) for r in out.read_records_to_list()]


def test_processing_log_and_continue_skips_the_failing_node_and_writes_the_dlq():
    config = {"processing.exception.handler": "log_and_continue",
              "errors.dead.letter.queue.topic.name": "dlq"}
    with ks.TopologyTestDriver(_topology(), config) as driver:
        _pipe(driver, ["1", "boom", "2"])
        assert driver.create_output_topic("out").read_key_values_to_list() == [("k0", 1),
                                                                               ("k2", 2)]
        assert driver.create_output_topic("copy").read_values_to_list() == ["1", "boom", "2"]
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
        ((key, value, timestamp, headers),) = _letters(driver)
    assert (key, value, timestamp) == ("k1", "boom", 101)
    assert headers["__streams.errors.exception"] == b"ValueError"
    assert headers["__streams.errors.message"] == b"boom on purpose"
    assert (headers["__streams.errors.topic"], headers["__streams.errors.partition"],
            headers["__streams.errors.offset"]) == (b"in", b"0", b"1")
    assert b"Traceback" in headers["__streams.errors.stacktrace"]


def test_processing_log_and_fail_with_a_dlq_writes_the_record_then_fails():
    config = {"errors.dead.letter.queue.topic.name": "dlq"}
    with ks.TopologyTestDriver(_topology(), config) as driver:
        with pytest.raises(ks.StreamsError) as info:
            _pipe(driver, ["boom"])
        assert [(k, v) for k, v, _, _ in _letters(driver)] == [("k0", "boom")]
    assert "processor=shape" in str(info.value) and "log_and_fail" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)


def test_production_log_and_continue_drops_the_unserializable_sink_record_only():
    config = {"default.production.exception.handler": "log_and_continue",
              "errors.dead.letter.queue.topic.name": "dlq"}
    with ks.TopologyTestDriver(_topology(), config) as driver:
        _pipe(driver, ["1", "text", "3"])
        assert driver.create_output_topic("out").read_key_values_to_list() == [("k0", 1),
                                                                               ("k2", 3)]
        assert driver.create_output_topic("copy").read_values_to_list() == ["1", "text", "3"]
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
        ((key, value, _, headers),) = _letters(driver)
    assert (key, value) == ("k1", "text")
    assert headers["__streams.errors.exception"] == b"SerializationError"
    assert b"cannot serialize the value 'text'" in headers["__streams.errors.message"]


def test_production_default_fails_naming_topic_key_and_cause():
    with ks.TopologyTestDriver(_topology()) as driver, pytest.raises(ks.SerdeError) as info:
        _pipe(driver, ["text"])
    assert "sink 'out' cannot serialize the value 'text'" in str(info.value)


class SkipValueErrors:
    """A user production handler: continue on value serialization failures, log what came."""

    seen: list = []

    def handle_serialization_exception(self, context, record, exception, origin):
        SkipValueErrors.seen.append((context.processor_node_id, record.key, origin))
        return ks.ProductionHandlerResponse.CONTINUE


def test_a_user_production_handler_decides_about_serialization_failures():
    SkipValueErrors.seen = []
    config = {"default.production.exception.handler": SkipValueErrors}
    with ks.TopologyTestDriver(_topology(), config) as driver:
        _pipe(driver, ["text", "2"])
        assert driver.create_output_topic("out").read_key_values_to_list() == [("k1", 2)]
        assert "dlq" not in driver.produced_topic_names()  # user handlers write no DLQ
    from kslab.core.error_policy import SerializationExceptionOrigin

    assert SkipValueErrors.seen == [("out", "k0", SerializationExceptionOrigin.VALUE)]


def test_a_plain_function_is_a_processing_handler_and_a_bad_answer_is_fatal():
    def answer(context, record, exception):
        return "CONTINUE" if record.key == "k0" else 42

    with ks.TopologyTestDriver(_topology(), {"processing.exception.handler": answer}) as driver:
        _pipe(driver, ["boom"])
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
        with pytest.raises(ks.StreamsError) as info:
            driver.create_input_topic("in").pipe_input("k1", "boom", 5)
    assert str(info.value) == "Fatal user code error in processing error callback"
    assert "returned 42; return CONTINUE or FAIL" in str(info.value.__cause__)


class TickFails(ks.Processor):
    def init(self, context):
        self.context = context
        context.schedule(10, ks.PunctuationType.STREAM_TIME, self.tick)

    def tick(self, timestamp):
        msg = f"tick at {timestamp} failed"
        raise RuntimeError(msg)

    def process(self, record):
        self.context.forward(record)


def _ticking():
    return (ks.Topology().add_source("src", "in", key_serde=S, value_serde=S)
            .add_processor("tick", TickFails, "src")
            .add_sink("out", "out", "tick", key_serde=S, value_serde=S))


def test_a_failing_punctuation_goes_to_the_processing_handler_and_the_dlq():
    config = {"processing.exception.handler": "log_and_continue",
              "errors.dead.letter.queue.topic.name": "dlq"}
    with ks.TopologyTestDriver(_ticking(), config) as driver:
        topic = driver.create_input_topic("in")
        topic.pipe_input("a", "x", 0)
        topic.pipe_input("b", "y", 10)
        assert driver.create_output_topic("out").read_values_to_list() == ["x", "y"]
        assert driver.metrics()["0_0"]["dropped-records-total"] == 2  # ticks at 0 and 10
        letters = _letters(driver)
    assert [(k, v, ts) for k, v, ts, _ in letters] == [(None, None, 0), (None, None, 10)]
    assert letters[1][3]["__streams.errors.message"] == b"tick at 10 failed"
    assert letters[1][3]["__streams.errors.topic"] is None


def test_a_failing_punctuation_under_a_fail_handler_names_the_processor():
    with ks.TopologyTestDriver(_ticking(), {"processing.exception.handler": "log_and_fail",
                                            "errors.dead.letter.queue.topic.name": "dlq"}) \
            as driver, pytest.raises(ks.StreamsError) as info:
        driver.create_input_topic("in").pipe_input("a", "x", 0)
    assert "Exception caught while punctuating processor 'tick' at 0" in str(info.value)
    assert str(info.value.__cause__) == "tick at 0 failed"


def test_skipped_unreadable_records_go_to_the_dlq():
    topo = (ks.Topology().add_source("src", "in", key_serde=S, value_serde=serdes.Long())
            .add_sink("out", "out", "src", key_serde=S, value_serde=serdes.Long()))
    config = {"default.deserialization.exception.handler": "log_and_continue",
              "errors.dead.letter.queue.topic.name": "dlq"}
    with ks.TopologyTestDriver(topo, config) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "abc", 7)
        ((key, value, timestamp, headers),) = _letters(driver)
        assert driver.metrics()["0_0"]["dropped-records-total"] == 1
    assert (key, value, timestamp) == ("k", "abc", 7)
    assert headers["__streams.errors.exception"] == b"SerdeError"


def test_unknown_handler_names_are_refused():
    with pytest.raises(ks.KslabError) as info:
        ks.TopologyTestDriver(_topology(), {"processing.exception.handler": "retry_forever"})
    assert "processing.exception.handler" in str(info.value)
    assert "log_and_continue" in str(info.value)


def test_the_default_path_wraps_nothing():
    with ks.TopologyTestDriver(_topology()) as driver:
        task = driver.tasks[ks.TaskId(0, 0)]
        assert "process_now" not in vars(task) and "_run" not in vars(task)
        shape = task.nodes["shape"]
        assert shape.call.__name__ == "process"  # the user's own method, unwrapped
