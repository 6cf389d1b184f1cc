"""kslab stand-in for Kafka's ``MockApiProcessorSupplier`` / ``MockApiProcessor`` (test-utils).

The supplier hands out a new recording processor per task, as Java's does; each processor keeps
what it saw as ``(key, value, timestamp)`` tuples (Java's ``KeyValueTimestamp``).
"""

from __future__ import annotations

from typing import Any

import kslab as ks


class MockApiProcessor(ks.Processor):
    """Records every record it processes as ``(key, value, timestamp)``; forwards nothing."""

    def __init__(self) -> None:
        self.processed: list[tuple[Any, Any, int]] = []

    def init(self, context: ks.ProcessorContext) -> None:
        """Keep the context, as Java's mock does."""
        self.context = context

    def process(self, record: ks.Record) -> None:
        """Remember the record."""
        self.processed.append((record.key, record.value, record.timestamp))


class MockApiProcessorSupplier:
    """A processor supplier that remembers every processor it made."""

    def __init__(self) -> None:
        self.processors: list[MockApiProcessor] = []

    def __call__(self) -> MockApiProcessor:
        processor = MockApiProcessor()
        self.processors.append(processor)
        return processor

    def the_captured_processor(self) -> MockApiProcessor:
        """The only processor made (Java's ``theCapturedProcessor``)."""
        return self.captured_processors(1)[0]

    def captured_processors(self, expected: int) -> list[MockApiProcessor]:
        """The processors made, checking their number (Java's ``capturedProcessors``)."""
        assert len(self.processors) == expected
        return self.processors
