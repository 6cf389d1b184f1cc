"""Kafka's ``RecordQueueTest`` (streams/processor/internals): its public effects, in the driver.

Java fills a ``RecordQueue`` with raw ``ConsumerRecord``s and polls it; the queue is where a
task deserializes a record, extracts its timestamp (given the partition time: the largest
timestamp processed so far on the partition, ``-1`` before any), and applies the invalid
timestamp and deserialization exception policies. Here one source (Integer key and value serdes,
as Java's queue) feeds a recording processor in a ``TopologyTestDriver``, which polls each record
as soon as it is piped, so ``addRawRecords`` + ``poll`` is one ``pipe_input``.

- ``shouldTrackPartitionTimeAsMaxProcessedTimestamp`` and
  ``shouldPassPartitionTimeToTimestampExtractor``: an extractor that returns the record's
  "offset" (here its value) sees partition times -1, 2, 2, 3 for records stamped 2, 1, 3, 4.
- ``shouldThrowOnNegativeTimestamp`` / ``shouldDropOnNegativeTimestamp``: a record whose
  timestamp is -1 (piped as a ``datetime`` 1 ms before the epoch, Java's ``Instant`` path; a
  negative ``int`` is refused by the input topic itself, as Java's ``TestRecord`` does) fails the
  task under the default ``FailOnInvalidTimestamp`` with Java's message, and is dropped under
  ``LogAndSkipOnInvalidTimestamp``.
- ``should(Not)ThrowStreamsExceptionWhenKey/ValueDeserializationFails(WithSkipHandler)``: 8
  bytes (a serialized Long) for an Integer key or value fail the task with a ``StreamsError``
  caused by the serde's error; with ``LogAndContinueExceptionHandler`` the record is skipped
  and the next one processed.

Not ported: ``testConsumedSensor`` (JMX sensors), ``testTimeTracking`` and
``shouldSetTimestampAndRespectMaxTimestampPolicy`` (the queue's head timestamp, size and
``setPartitionTime``, internal to a task).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import kslab as ks
from kslab import serdes

TOPIC = "topic"
BEFORE_EPOCH = datetime(1970, 1, 1, tzinfo=UTC) - timedelta(milliseconds=1)
NEGATIVE_TIMESTAMP = (
    r"^Input record ConsumerRecord\(.*timestamp=-1.*\) has invalid \(negative\) timestamp\. "
    r"Possibly because a pre-0\.10 producer client was used to write this record to Kafka "
    r"without embedding a timestamp, or because the input topic was created before upgrading "
    r"the Kafka cluster to 0\.10\+\. Use a different TimestampExtractor to process this data\."
)


def _driver(processed, timestamp_extractor=None, config=None):
    class Recording(ks.Processor):
        def process(self, record):
            processed.append((record.key, record.value, record.timestamp))

    topology = (ks.Topology()
                .add_source("source", TOPIC, key_serde=serdes.Integer(),
                            value_serde=serdes.Integer(),
                            timestamp_extractor=timestamp_extractor)
                .add_processor("p", Recording, "source"))
    return ks.TopologyTestDriver(topology, config)


class PartitionTimeTrackingTimestampExtractor(ks.TimestampExtractor):
    """Java's: fails if the partition time decreases; the record's value is its timestamp."""

    def __init__(self):
        self.partition_time = -1
        self.seen = []

    def extract(self, record, partition_time):
        if partition_time < self.partition_time:
            msg = "Partition time should not decrease"
            raise AssertionError(msg)
        self.partition_time = partition_time
        self.seen.append(partition_time)
        return record.value


def test_should_pass_partition_time_to_timestamp_extractor():
    extractor = PartitionTimeTrackingTimestampExtractor()
    processed = []
    with _driver(processed, extractor) as driver:
        topic = driver.create_input_topic(TOPIC)
        for timestamp in [2, 1, 3, 4]:
            topic.pipe_input(1, timestamp, 0)
    # no (known) timestamp had yet been passed to the extractor for the first record
    assert extractor.seen == [-1, 2, 2, 3]
    assert processed == [(1, 2, 2), (1, 1, 1), (1, 3, 3), (1, 4, 4)]


def test_should_throw_on_negative_timestamp():
    processed = []
    with _driver(processed) as driver:
        topic = driver.create_input_topic(TOPIC)
        with pytest.raises(ks.StreamsError, match=NEGATIVE_TIMESTAMP):
            topic.pipe_input(1, 10, BEFORE_EPOCH)
    assert processed == []


def test_should_drop_on_negative_timestamp():
    processed = []
    with _driver(processed, ks.LogAndSkipOnInvalidTimestamp()) as driver:
        topic = driver.create_input_topic(TOPIC)
        topic.pipe_input(1, 10, BEFORE_EPOCH)
        topic.pipe_input(2, 20, 5)
    assert processed == [(2, 20, 5)]


def _long_bytes_topic(driver, key_is_long):
    """An input topic that writes a Long (8 bytes) where the source reads an Integer."""
    long_serde, int_serde = serdes.Long(), serdes.Integer()
    return driver.create_input_topic(TOPIC, key_serde=long_serde if key_is_long else int_serde,
                                     value_serde=int_serde if key_is_long else long_serde)


@pytest.mark.parametrize("key_is_long", [True, False], ids=["key", "value"])
def test_should_throw_streams_exception_when_deserialization_fails(key_is_long):
    processed = []
    with _driver(processed) as driver:
        topic = _long_bytes_topic(driver, key_is_long)
        with pytest.raises(ks.StreamsError) as info:
            topic.pipe_input(1, 10, 0)
    assert isinstance(info.value.__cause__, ks.SerdeError)
    assert processed == []


@pytest.mark.parametrize("key_is_long", [True, False], ids=["key", "value"])
def test_should_not_throw_streams_exception_when_deserialization_fails_with_skip_handler(
        key_is_long):
    processed = []
    config = {"default.deserialization.exception.handler":
              "org.apache.kafka.streams.errors.LogAndContinueExceptionHandler"}
    with _driver(processed, config=config) as driver:
        _long_bytes_topic(driver, key_is_long).pipe_input(1, 10, 0)
        driver.create_input_topic(TOPIC).pipe_input(2, 20, 1)
    assert processed == [(2, 20, 1)]
