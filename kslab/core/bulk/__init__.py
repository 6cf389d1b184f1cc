"""The bulk execution path: a chunk of records run sub-topology by sub-topology over columns.

Engines hand a chunk of serialized records for one idle single-partition task to
``BulkExecutor.run``; it returns ``None`` without touching any state when it cannot promise the
exact result of the record-at-a-time path (the engine then runs the chunk that way).
"""

from kslab.core.bulk.executor import BulkExecutor, EnginePort

__all__ = ["BulkExecutor", "EnginePort"]
