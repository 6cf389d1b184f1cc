"""Kafka's ``TimestampExtractorTest`` (streams/processor): the shared check its subclasses run.

Java's class has no tests of its own: ``testExtractMetadataTimestamp`` is called by
``FailOnInvalidTimestampTest``, ``LogAndSkipOnInvalidTimestampTest`` and
``UsePartitionTimeOnInvalidTimestampTest``, which import ``check_extract_metadata_timestamp``
from here. Java's ``ConsumerRecord`` is the record kslab hands an extractor (topic, partition,
offset, timestamp, deserialized key and value, headers); ``new ConsumerRecord<>("anyTopic", 0, 0,
null, null)`` has Java's ``NO_TIMESTAMP`` (-1), which ``consumer_record()`` defaults to.
"""

from __future__ import annotations

from typing import Any

import kslab as ks
from kslab.core.record_queue import ConsumerRecord

NO_TIMESTAMP = -1


def consumer_record(timestamp: int = NO_TIMESTAMP) -> ConsumerRecord:
    """Java's ``new ConsumerRecord<>("anyTopic", 0, 0, timestamp, ..., null, null, headers)``."""
    return ConsumerRecord("anyTopic", 0, 0, timestamp, None, None, ks.Headers())


def check_extract_metadata_timestamp(extractor: Any) -> None:
    """Java's ``testExtractMetadataTimestamp``: a valid metadata timestamp is returned as is."""
    metadata_timestamp = 42
    timestamp = extractor.extract(consumer_record(metadata_timestamp), 0)
    assert timestamp == metadata_timestamp
