"""Kafka's ``MockApiProcessorSupplier`` / ``MockApiProcessor`` and ``MockValueJoiner`` for kslab.

Shared by the stream-stream join and suppression conformance tests: the processor records every
``(key, value, timestamp)`` it receives (Java's ``KeyValueTimestamp``), and
``check_and_clear_process_result`` asserts them in order and clears them, as Java's does.
"""

from __future__ import annotations

from typing import Any

import kslab as ks

STREAMS_CONFIG = {"default.key.serde": "string", "default.value.serde": "string"}


def tostring_joiner(value1: Any, value2: Any) -> str:
    """Java's ``MockValueJoiner.TOSTRING_JOINER``: ``value1 + "+" + value2`` (null as "null")."""
    return f"{_java_str(value1)}+{_java_str(value2)}"


def _java_str(value: Any) -> str:
    return "null" if value is None else str(value)


class MockApiProcessor(ks.Processor):
    """Records what it processes, as Java's ``MockApiProcessor``."""

    def __init__(self) -> None:
        self.processed: list[tuple[Any, Any, int]] = []
        self.records: list[ks.Record] = []

    def init(self, context: ks.ProcessorContext) -> None:
        self.context = context

    def process(self, record: ks.Record) -> None:
        self.records.append(record)
        self.processed.append((record.key, record.value, record.timestamp))

    def check_and_clear_process_result(self, *expected: tuple[Any, Any, int]) -> None:
        """Assert the processed ``(key, value, timestamp)`` list, then clear it."""
        assert self.processed == list(expected)
        self.processed.clear()
        self.records.clear()

    def check_and_clear_processed_records(self, *expected: ks.Record) -> None:
        """Assert the processed records (key, value, timestamp and headers), then clear them."""
        assert [_record_fields(r) for r in self.records] == [_record_fields(r) for r in expected]
        self.processed.clear()
        self.records.clear()


def _record_fields(record: ks.Record) -> tuple[Any, Any, int, list[Any]]:
    return record.key, record.value, record.timestamp, list(record.headers or ())


class MockApiProcessorSupplier:
    """A processor supplier remembering every processor it made."""

    def __init__(self) -> None:
        self.processors: list[MockApiProcessor] = []

    def __call__(self) -> MockApiProcessor:
        processor = MockApiProcessor()
        self.processors.append(processor)
        return processor

    def the_captured_processor(self) -> MockApiProcessor:
        """The single processor made (Java asserts there is exactly one)."""
        assert len(self.processors) == 1
        return self.processors[0]
