"""Kafka's ``WallclockTimestampExtractorTest`` (streams/processor), translated whole.

Java's ``System.currentTimeMillis()`` is ``time.time()`` in ms. (Inside an engine kslab's
extractor reads the engine's clock instead: see tests/core/test_timestamp_extractors.py.)
"""

from __future__ import annotations

import time

import kslab as ks
from tests.conformance.processor.test_timestamp_extractor_test import consumer_record


def _now_ms() -> int:
    return int(time.time() * 1000)


def test_extract_system_timestamp():
    extractor = ks.WallclockTimestampExtractor()
    before = _now_ms()
    timestamp = extractor.extract(consumer_record(), 42)
    after = _now_ms()
    assert before <= timestamp <= after
