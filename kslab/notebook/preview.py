"""Live previews: the first records each node forwards when a builder's samples are driven.

A builder's ``sample=`` frames are merged as Kafka merges partitions (each frame in row
order, the smallest head timestamp next) and piped through a
``TopologyTestDriver`` over a copy of the topology in which every source and processor has a
tap child that keeps the first records its node forwards (tracing is only switched on to find
the node of a failing record). One
``PreviewRun`` per builder version is cached and driven further only as far as a display needs
(rows and seconds are bounded). Invariants: a preview never raises into the notebook: sample
mistakes and processing errors become a one-line ``problem`` or an ``error`` naming the node and
the record, and driving stops at the first error; each forwarded record is kept once (the
traced re-drive that finds a failing node keeps nothing).
"""

from __future__ import annotations

import functools
import heapq
import time
import weakref
from dataclasses import dataclass
from typing import Any

from kslab.errors import StreamsError
from kslab.notebook._options import options
from kslab.processor import Processor
from kslab.topology._nodes import SinkNode

__all__ = ["PreviewError", "PreviewRows", "PreviewRun", "builder_version", "merge_frames",
           "preview_for", "topology_for"]

TAP_PREFIX = "KSLAB-PREVIEW-TAP-"
_CHUNK = 25
_KEEP = 100  # rows kept per node, whatever a display asks for


@dataclass(frozen=True)
class PreviewError:
    """Driving stopped: the exception, the node it came from and the record it was handling."""

    error: str
    node: str | None
    key: Any
    value: Any
    timestamp: int | None
    topic: str
    row: int  # the row of the input topic's sample frame


@dataclass(frozen=True)
class PreviewRows:
    """What one node forwarded: ``(key, value, timestamp)`` rows and how far driving got."""

    node: str
    rows: list[tuple[Any, Any, int]]
    driven: int  # sample rows piped so far
    total: int  # sample rows in all
    problem: str | None = None  # a one-line message about the samples themselves
    error: PreviewError | None = None
    complete: bool = True  # False when the time budget ran out before the samples did


def builder_version(builder: Any) -> tuple[Any, ...]:
    """Changes whenever a DSL call adds a node, a name is taken or a sample is attached."""
    samples = tuple((topic, id(df)) for topic, df in getattr(builder, "samples", {}).items())
    return (*getattr(builder, "generation", (0, 0)), samples)


_cache: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, ...], dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)


def _entry(builder: Any) -> dict[str, Any]:
    version = builder_version(builder)
    cached = _cache.get(builder)
    if cached is None or cached[0] != version:
        old = cached[1].get("run") if cached else None
        if old is not None:
            old.close()
        cached = (version, {})
        _cache[builder] = cached
    return cached[1]


def topology_for(builder: Any) -> Any:
    """The builder's topology, cached until the builder changes (a copy of its own: drawing
    it has no effect on what the user's ``builder.build()`` returns)."""
    entry = _entry(builder)
    if "topology" not in entry:
        entry["topology"] = _detached(builder)
    return entry["topology"]


def preview_for(builder: Any, node: str, rows: int | None = None,
                seconds: float | None = None) -> PreviewRows | None:
    """The rows ``node`` forwards over the builder's samples; ``None`` without samples."""
    if not getattr(builder, "samples", None):
        return None
    entry = _entry(builder)
    run = entry.get("run")
    if run is None:
        run = entry["run"] = PreviewRun(_detached(builder), builder.samples)  # gets taps
    limit = options.preview_rows if rows is None else rows
    budget = options.preview_seconds if seconds is None else seconds
    return run.rows_for(node, limit, budget)


def _detached(builder: Any) -> Any:
    """A topology built from ``builder`` that nobody else holds (any builder-like object)."""
    build = getattr(builder, "build_detached", None) or builder.build
    return build()


class _Kept:
    """The rows every tap of one run keeps, by node, and whether taps keep anything now.

    ``keeping`` is off while a traced driver drives the same tapped topology again to find a
    failing node: those records were kept on the first drive and must not be kept twice.
    """

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, Any, int]]] = {}
        self.keeping = True


class _Tap(Processor):
    """Keeps the first records its parent forwards (a do-nothing child otherwise)."""

    def __init__(self, kept: _Kept, node: str) -> None:
        self.kept = kept
        self.rows = kept.rows.setdefault(node, [])

    def process(self, record: Any) -> None:
        """Keep the record while taps keep and fewer than ``_KEEP`` are kept."""
        if self.kept.keeping and len(self.rows) < _KEEP:
            self.rows.append((record.key, record.value, record.timestamp))


class PreviewRun:
    """One incremental drive of sample frames through a tapped copy of a topology."""

    def __init__(self, topology: Any, samples: dict[str, Any]) -> None:
        from kslab.testing import TopologyTestDriver

        self.problem: str | None = None
        self.error: PreviewError | None = None
        self._kept = _Kept()
        self.rows = self._kept.rows
        self.inputs: list[tuple[str, int, tuple[Any, ...]]] = []
        self.position = 0
        self._taps: dict[str, str] = {}
        self.topology = topology
        self.driver: Any = None
        self._tap(topology)
        self._finalizer: Any = None
        read = set(topology.source_topics()) if hasattr(topology, "source_topics") else set()
        self.inputs, self.problem = merge_frames(samples, read)
        try:
            self.driver = TopologyTestDriver(topology)
            self._finalizer = weakref.finalize(self, self.driver.close)
            self._topics = {t: self.driver.create_input_topic(t) for t, _, _ in self.inputs}
        except Exception as exc:
            self.problem = f"kslab: cannot drive the samples: {_one_line(exc)}"
            self.inputs = []

    def _tap(self, topology: Any) -> None:
        for name, node in list(topology.nodes.items()):
            if isinstance(node, SinkNode) or getattr(node, "is_global", False):
                continue
            tap = TAP_PREFIX + name
            self.rows.setdefault(name, [])
            try:
                topology.add_processor(tap, functools.partial(_Tap, self._kept, name), name)
            except Exception:  # a node that cannot take a child: no preview for it
                continue
            self._taps[tap] = name

    def rows_for(self, node: str, limit: int, seconds: float) -> PreviewRows:
        """Drive on until ``node`` forwarded ``limit`` rows, the samples end or time runs out."""
        deadline = time.perf_counter() + seconds
        known = TAP_PREFIX + node in self._taps
        while (known and len(self.rows.get(node, ())) < limit and self.error is None
               and self.position < len(self.inputs) and time.perf_counter() < deadline):
            self._drive(_CHUNK)
        rows = self.rows.get(node, [])[:limit]
        complete = self.position >= len(self.inputs) or len(rows) >= limit or not known
        return PreviewRows(node, rows, self.position, len(self.inputs), self.problem,
                           self.error, complete or self.error is not None)

    def _drive(self, count: int) -> None:
        end = min(self.position + count, len(self.inputs))
        while self.position < end:
            topic, row_index, (key, value, ts, headers, partition) = self.inputs[self.position]
            try:
                self._topics[topic].pipe_row(key, value, ts, headers, partition)
            except Exception as exc:
                self.error = self._describe(exc, topic, row_index, key, value, ts)
                return
            self.position += 1

    def _describe(self, exc: Exception, topic: str, row: int, key: Any, value: Any,
                  ts: Any) -> PreviewError:
        while type(exc) is StreamsError and isinstance(exc.__cause__, Exception):
            exc = exc.__cause__  # the user's exception, not the core's wrapper; a kslab
            # error (a serde that cannot write a store) keeps its own, better message
        last = self._failing_hop()
        if last is None:  # failed before any node saw it: the input record itself (serdes)
            return PreviewError(f"{type(exc).__name__}: {_one_line(exc)}", None, key, value,
                                ts, topic, row)
        return PreviewError(f"{type(exc).__name__}: {_one_line(exc)}", last.node, last.key,
                            last.value, last.timestamp, topic, row)

    def _failing_hop(self) -> Any:
        """Drive the rows again with tracing to find the node the failing record was in
        (the taps keep nothing meanwhile: these records were kept already)."""
        from kslab.testing import TopologyTestDriver

        self._kept.keeping = False
        try:
            with TopologyTestDriver(self.topology, trace=True) as traced:
                topics = {t: traced.create_input_topic(t) for t in self._topics}
                for topic, _, (key, value, ts, headers, partition) in \
                        self.inputs[:self.position + 1]:
                    try:
                        topics[topic].pipe_row(key, value, ts, headers, partition)
                    except Exception:
                        break
                step = traced.history_length - 1
                return next((ev for ev in reversed(traced.trace) if ev.event == "receive"
                             and ev.step == step and not ev.node.startswith(TAP_PREFIX)),
                            None)
        finally:
            self._kept.keeping = True

    def close(self) -> None:
        """Close the driver (and its temporary state directory)."""
        if self._finalizer is not None:
            self._finalizer()


def merge_frames(frames: dict[str, Any], read: set[str] | None = None
                 ) -> tuple[list[tuple[str, int, tuple[Any, ...]]], str | None]:
    """``(topic, row, (key, value, ts, headers, partition))`` merged as Kafka does, or a problem.

    Each frame is one partition read in row order (a late record stays late); across frames
    the row with the smallest head timestamp goes next, ties to the earlier frame. Frames need
    ``key`` and ``value`` columns (``timestamp`` is optional); topics outside ``read`` are
    skipped. A frame that cannot be read gives no rows and a one-line problem.
    """
    from kslab.testing.frames import frame_rows

    partitions = []
    for order, (topic, df) in enumerate(frames.items()):
        if read and topic not in read:
            continue
        columns = [str(c) for c in getattr(df, "columns", [])]
        missing = [c for c in ("key", "value") if c not in columns]
        if missing:
            return [], (
                f"kslab: the sample for topic '{topic}' has no {' or '.join(missing)} "
                f"column (columns: {columns}); give it key, value and timestamp columns"
            )
        try:
            found = frame_rows(df, key="key", value="value", timestamp="timestamp",
                               headers=None, partition=None)
        except Exception as exc:
            return [], f"kslab: the sample for topic '{topic}': {_one_line(exc)}"
        partitions.append([(row[2] if row[2] is not None else -1, order, i, topic, row)
                           for i, row in enumerate(found)])
    merged = heapq.merge(*partitions, key=lambda r: (r[0], r[1]))
    return [(topic, i, row) for _, _, i, topic, row in merged], None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
