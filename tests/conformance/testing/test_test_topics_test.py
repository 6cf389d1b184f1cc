"""Kafka's ``TestTopicsTest`` (test-utils), translated to kslab's input and output topics.

Exceptions: Java's ``IllegalArgumentException`` (negative durations, an unknown input topic)
maps to ``kslab.errors.InvalidArgumentError`` (a ``ks.KslabError`` and a ``ValueError``);
``NullPointerException`` for a ``None`` topic name or driver to
``kslab.errors.MissingArgumentError`` (a ``ks.KslabError`` and a ``TypeError``);
``IllegalStateException`` (a ``None`` key in ``read_key_values_to_map``) to ``ks.KslabError``;
``StreamsException`` for a record the source cannot deserialize to ``ks.StreamsError``;
``SerializationException`` when reading with the wrong serde to ``ks.SerdeError``;
``NoSuchElementException`` to ``ks.NoSuchElementError``.

``toString`` checks become ``repr`` checks: the class, ``topic='<name>'``, the size (output
topics) and the serdes (kslab's serdes stand for Java's serializer/deserializer classes).
Nothing is skipped.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import InvalidArgumentError, MissingArgumentError

INPUT_TOPIC = "input"
OUTPUT_TOPIC = "output1"
INPUT_TOPIC_MAP = OUTPUT_TOPIC
OUTPUT_TOPIC_MAP = "output2"
BASE_TIME = datetime(2019, 6, 1, 10, tzinfo=UTC)

STRING = serdes.String()
LONG = serdes.Long()


@pytest.fixture
def driver():
    builder = ks.StreamsBuilder()
    builder.stream(INPUT_TOPIC).to(OUTPUT_TOPIC)
    source = builder.stream(INPUT_TOPIC_MAP, ks.Consumed.with_(LONG, STRING))
    source.map(lambda key, value: (value, key)).to(
        OUTPUT_TOPIC_MAP, ks.Produced.with_(STRING, LONG))
    config = {"default.key.serde": "bytes", "default.value.serde": "bytes"}
    with ks.TopologyTestDriver(builder.build(), config) as test_driver:
        yield test_driver


def test_value(driver):
    # testValue
    inp = driver.create_input_topic(INPUT_TOPIC, STRING, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC, STRING, STRING)
    inp.pipe_input("Hello")
    assert out.read_value() == "Hello"
    assert out.is_empty()


def test_value_list(driver):
    # testValueList
    inp = driver.create_input_topic(INPUT_TOPIC, STRING, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC, STRING, STRING)
    values = ["This", "is", "an", "example"]
    inp.pipe_value_list(values)
    assert out.read_values_to_list() == values


def test_key_value(driver):
    # testKeyValue
    inp = driver.create_input_topic(INPUT_TOPIC, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    inp.pipe_input(1, "Hello")
    assert out.read_key_value() == ks.KeyValue(1, "Hello")
    assert out.is_empty()


def test_key_value_list(driver):
    # testKeyValueList
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC_MAP, STRING, LONG)
    words = ["This", "is", "an", "example"]
    inp.pipe_key_value_list([ks.KeyValue(i, s) for i, s in enumerate(words)])
    assert out.read_key_values_to_list() == [ks.KeyValue(s, i) for i, s in enumerate(words)]


def test_key_values_to_map(driver):
    # testKeyValuesToMap
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC_MAP, STRING, LONG)
    words = ["This", "is", "an", "example"]
    inp.pipe_key_value_list([ks.KeyValue(i, s) for i, s in enumerate(words)])
    assert out.read_key_values_to_map() == {s: i for i, s in enumerate(words)}


def test_key_values_to_map_with_null(driver):
    # testKeyValuesToMapWithNull
    inp = driver.create_input_topic(INPUT_TOPIC, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    inp.pipe_input("value")
    with pytest.raises(ks.KslabError, match="None key"):
        out.read_key_values_to_map()


def _expected_records(advance: timedelta) -> tuple[list, list]:
    words = ["This", "is", "an", "example"]
    pairs = [ks.KeyValue(i, s) for i, s in enumerate(words)]
    expected = [ks.TestRecord(s, i, BASE_TIME + i * advance) for i, s in enumerate(words)]
    return pairs, expected


def test_key_value_list_duration(driver):
    # testKeyValueListDuration
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC_MAP, STRING, LONG)
    advance = timedelta(seconds=15)
    pairs, expected = _expected_records(advance)
    inp.pipe_key_value_list(pairs, BASE_TIME, advance)
    assert out.read_records_to_list() == expected


def test_record_list(driver):
    # testRecordList
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC_MAP, STRING, LONG)
    advance = timedelta(seconds=15)
    words = ["This", "is", "an", "example"]
    inp.pipe_record_list(
        [ks.TestRecord(i, s, BASE_TIME + i * advance) for i, s in enumerate(words)])
    assert out.read_records_to_list() == \
        [ks.TestRecord(s, i, BASE_TIME + i * advance) for i, s in enumerate(words)]


def test_timestamp(driver):
    # testTimestamp
    inp = driver.create_input_topic(INPUT_TOPIC, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    inp.pipe_input(None, "Hello", 3)
    assert out.read_record() == ks.TestRecord(None, "Hello", 3)
    inp.pipe_input(2, "Kafka", 4)
    assert out.read_record() == ks.TestRecord(2, "Kafka", None, 4)  # Java's argument order
    inp.pipe_input(2, "Kafka", BASE_TIME)
    assert out.read_record() == ks.TestRecord(2, "Kafka", BASE_TIME)

    advance = timedelta(seconds=15)
    instant = BASE_TIME + timedelta(days=1)
    inp.pipe_value_list(["Advancing", "time"], instant, advance)
    assert out.read_record() == ks.TestRecord(None, "Advancing", instant)
    assert out.read_record() == ks.TestRecord(None, "time", instant + advance)


def test_with_headers(driver):
    # testWithHeaders
    headers = ks.Headers([("foo", b"value"), ("bar", None),
                          ('"A\\u00ea\\u00f1\\u00fcC"', b"value")])
    inp = driver.create_input_topic(INPUT_TOPIC, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    inp.pipe_input(ks.TestRecord(1, "Hello", headers=headers))
    record = out.read_record()
    assert (record.key, record.value, record.headers) == (1, "Hello", headers)
    inp.pipe_input(ks.TestRecord(2, "Kafka", 4, headers))
    assert out.read_record() == ks.TestRecord(2, "Kafka", 4, headers)


def test_start_timestamp(driver):
    # testStartTimestamp
    advance = timedelta(seconds=2)
    inp = driver.create_input_topic(INPUT_TOPIC, LONG, STRING, BASE_TIME, timedelta(0))
    out = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    inp.pipe_input(1, "Hello")
    assert out.read_record() == ks.TestRecord(1, "Hello", BASE_TIME)
    inp.pipe_input(2, "World")
    assert out.read_record() == ks.TestRecord(2, "World", 1559383200000)
    inp.advance_time(advance)
    inp.pipe_input(3, "Kafka")
    assert out.read_record() == ks.TestRecord(3, "Kafka", BASE_TIME + advance)


def test_timestamp_auto_advance(driver):
    # testTimestampAutoAdvance
    advance = timedelta(seconds=2)
    inp = driver.create_input_topic(INPUT_TOPIC, LONG, STRING, BASE_TIME, advance)
    out = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    inp.pipe_input("Hello")
    assert out.read_record() == ks.TestRecord(None, "Hello", BASE_TIME)
    inp.pipe_input(2, "Kafka")
    assert out.read_record() == ks.TestRecord(2, "Kafka", BASE_TIME + advance)


def test_multiple_topics(driver):
    # testMultipleTopics
    in1 = driver.create_input_topic(INPUT_TOPIC, LONG, STRING)
    in2 = driver.create_input_topic(INPUT_TOPIC_MAP, LONG, STRING)
    out1 = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    out2 = driver.create_output_topic(OUTPUT_TOPIC_MAP, STRING, LONG)
    in1.pipe_input(1, "Hello")
    assert out1.read_key_value() == (1, "Hello")
    assert out2.read_key_value() == ("Hello", 1)
    assert out1.is_empty()
    assert out2.is_empty()
    in2.pipe_input(1, "Hello")
    # not visible in out1 although it is the same topic
    assert out2.read_key_value() == ("Hello", 1)
    assert out1.is_empty()
    assert out2.is_empty()


def test_non_existing_output_topic(driver):
    # testNonExistingOutputTopic
    out = driver.create_output_topic("no-exist", LONG, STRING)
    with pytest.raises(ks.NoSuchElementError):
        out.read_record()


def test_non_used_output_topic(driver):
    # testNonUsedOutputTopic
    out = driver.create_output_topic(OUTPUT_TOPIC, LONG, STRING)
    with pytest.raises(ks.NoSuchElementError):
        out.read_record()


def test_empty_topic(driver):
    # testEmptyTopic
    inp = driver.create_input_topic(INPUT_TOPIC, STRING, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC, STRING, STRING)
    inp.pipe_input("Hello")
    assert out.read_value() == "Hello"
    with pytest.raises(ks.NoSuchElementError):
        out.read_record()
    with pytest.raises(ks.NoSuchElementError):
        out.read_value()
    with pytest.raises(ks.NoSuchElementError):
        out.read_key_value()


def test_non_existing_input_topic(driver):
    # testNonExistingInputTopic
    inp = driver.create_input_topic("no-exist", LONG, STRING)
    with pytest.raises(InvalidArgumentError, match="Unknown topic"):
        inp.pipe_input(1, "Hello")


def test_should_not_allow_to_create_topic_with_null_topic_name(driver):
    # shouldNotAllowToCreateTopicWithNullTopicName
    with pytest.raises(MissingArgumentError):
        driver.create_input_topic(None, STRING, STRING)


def test_should_not_allow_to_create_with_null_driver():
    # shouldNotAllowToCreateWithNullDriver
    with pytest.raises(MissingArgumentError):
        ks.TestInputTopic(None, INPUT_TOPIC, STRING, STRING, datetime.now(UTC), timedelta(0))


def test_wrong_serde(driver):
    # testWrongSerde
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, STRING, STRING)
    with pytest.raises(ks.StreamsError):
        inp.pipe_input("1L", "Hello")


def test_duration(driver):
    # testDuration
    with pytest.raises(InvalidArgumentError):
        driver.create_input_topic(INPUT_TOPIC_MAP, STRING, STRING, BASE_TIME, timedelta(days=-1))


def test_negative_advance(driver):
    # testNegativeAdvance
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, STRING, STRING)
    with pytest.raises(InvalidArgumentError):
        inp.advance_time(timedelta(days=-1))


def test_input_to_string(driver):
    # testInputToString
    inp = driver.create_input_topic("topicName", STRING, STRING)
    text = repr(inp)
    assert "TestInputTopic" in text
    assert "topic='topicName'" in text
    assert "String()" in text


def test_should_not_allow_to_create_output_topic_with_null_topic_name(driver):
    # shouldNotAllowToCreateOutputTopicWithNullTopicName
    with pytest.raises(MissingArgumentError):
        driver.create_output_topic(None, STRING, STRING)


def test_should_not_allow_to_create_output_with_null_driver():
    # shouldNotAllowToCreateOutputWithNullDriver
    with pytest.raises(MissingArgumentError):
        ks.TestOutputTopic(None, OUTPUT_TOPIC, STRING, STRING)


def test_output_wrong_serde(driver):
    # testOutputWrongSerde
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC_MAP, LONG, STRING)
    inp.pipe_input(1, "Hello")
    with pytest.raises(ks.SerdeError):
        out.read_key_value()


def test_output_to_string(driver):
    # testOutputToString
    out = driver.create_output_topic(OUTPUT_TOPIC, STRING, STRING)
    text = repr(out)
    assert "TestOutputTopic" in text
    assert "topic='output1'" in text
    assert "size=0" in text
    assert "String()" in text


def test_records_to_list(driver):
    # testRecordsToList
    inp = driver.create_input_topic(INPUT_TOPIC_MAP, LONG, STRING)
    out = driver.create_output_topic(OUTPUT_TOPIC_MAP, STRING, LONG)
    advance = timedelta(seconds=15)
    pairs, expected = _expected_records(advance)
    inp.pipe_key_value_list(pairs, datetime(2019, 6, 1, 10, tzinfo=UTC), advance)
    assert out.read_records_to_list() == expected
