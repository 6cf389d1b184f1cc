"""Kafka's ``LogAndSkipOnInvalidTimestampTest`` (streams/processor), translated whole.

The warning Java logs is checked too (kslab logs it on ``kslab.processor``).
"""

from __future__ import annotations

import logging

import kslab as ks
from tests.conformance.processor.test_timestamp_extractor_test import (
    check_extract_metadata_timestamp,
    consumer_record,
)


def test_extract_metadata_timestamp():
    check_extract_metadata_timestamp(ks.LogAndSkipOnInvalidTimestamp())


def test_log_and_skip_on_invalid_timestamp(caplog):
    invalid_metadata_timestamp = -42
    extractor = ks.LogAndSkipOnInvalidTimestamp()
    record = consumer_record(invalid_metadata_timestamp)
    with caplog.at_level(logging.WARNING, logger="kslab.processor"):
        timestamp = extractor.extract(record, 0)
    assert timestamp == invalid_metadata_timestamp
    assert caplog.messages == [
        f"Input record {record} will be dropped because it has an invalid (negative) timestamp."
    ]
