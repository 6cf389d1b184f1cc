"""Kafka's ``UsePartitionTimeOnInvalidTimestampTest`` (streams/processor), translated whole.

``StreamsException`` maps to ``ks.StreamsError``; the message is Java's.
"""

from __future__ import annotations

import pytest

import kslab as ks
from tests.conformance.processor.test_timestamp_extractor_test import (
    check_extract_metadata_timestamp,
    consumer_record,
)


def test_extract_metadata_timestamp():
    check_extract_metadata_timestamp(ks.UsePartitionTimeOnInvalidTimestamp())


def test_use_partition_time_on_invalid_timestamp():
    partition_time = 42
    extractor = ks.UsePartitionTimeOnInvalidTimestamp()
    timestamp = extractor.extract(consumer_record(), partition_time)
    assert timestamp == partition_time


def test_should_throw_streams_exception():
    extractor = ks.UsePartitionTimeOnInvalidTimestamp()
    record = consumer_record()
    with pytest.raises(ks.StreamsError) as info:
        extractor.extract(record, -1)
    assert str(info.value) == (
        f"Could not infer new timestamp for input record {record} because partition time is "
        "unknown."
    )
