"""Kafka's ``FailOnInvalidTimestampTest`` (streams/processor), translated whole.

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
    check_extract_metadata_timestamp(ks.FailOnInvalidTimestamp())


def test_fail_on_invalid_timestamp():
    extractor = ks.FailOnInvalidTimestamp()
    with pytest.raises(ks.StreamsError, match=r"has invalid \(negative\) timestamp\. Possibly"):
        extractor.extract(consumer_record(), 42)
