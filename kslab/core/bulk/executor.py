"""Runs one chunk of an idle single-partition task's input over columns, or declines.

Phase one runs every user function, deserializer and serializer of the chunk and mutates
nothing; if anything raises, ``run`` returns ``False`` and the engine re-runs the chunk on the
record path, which raises the exact error with the exact partial state (the user functions of
earlier records then run twice, as Kafka's reprocessing after a failure also does). Phase two
applies the chunk: logs, offsets, clocks, metrics, the count store and the task's context.
"""

from __future__ import annotations

from typing import Any, Protocol

from kslab.core.bulk.columns import Columns, apply_stateless
from kslab.core.bulk.count import count_rows
from kslab.core.bulk.plan import StatelessChain, compile_chain
from kslab.records import Headers, Record, as_headers
from kslab.serdes import Bytes, Integer, Long, String

__all__ = ["BulkExecutor", "EnginePort"]

# serdes whose round trip gives back an equal object of exactly this (immutable) type
_IDENTITY = {String: str, Long: int, Integer: int, Bytes: bytes}


class EnginePort(Protocol):
    """What the executor needs from the engine: offsets, topic logs and loop-back writers."""

    offsets: dict[tuple[str, int], int]

    def log(self, topic: str) -> Any:
        """The log of ``topic`` (``extend(rows)`` appends serialized rows)."""

    def writer(self, topic: str) -> Any:
        """The engine's direct writer for ``topic`` (loop-back topics queue the record)."""


class _Prepared:
    """Everything phase one computed for a chunk."""

    __slots__ = ("cols", "headers", "keys", "out_rows", "timestamps", "values")


def _round_trips(sink_serde: Any, source_serde: Any, objects: list[Any]) -> bool:
    kind = _IDENTITY.get(type(sink_serde))
    if kind is None or type(source_serde) is not type(sink_serde):
        return False
    return all(o is None or o.__class__ is kind for o in objects)


class BulkExecutor:
    """The bulk path of one engine's tasks (plans are compiled once per task and topic)."""

    def __init__(self, port: EnginePort) -> None:
        self.port = port
        self._plans: dict[tuple[int, str], StatelessChain | None] = {}
        self.chunks = 0  # chunks run in bulk (tests assert a topology used or left the path)
        self.declined = 0
        self.steps = 0  # records the last chunk processed: the record path commits after each

    def plan(self, task: Any, topic: str) -> StatelessChain | None:
        """The compiled plan for ``topic`` in ``task`` (``None``: record path)."""
        key = (id(task), topic)
        if key not in self._plans:
            self._plans[key] = compile_chain(task, topic)
        return self._plans[key]

    def run(self, task: Any, topic: str, rows: list[tuple[Any, ...]]) -> bool:
        """Process ``rows`` (serialized, partition 0) of ``topic`` in bulk; ``False``: declined."""
        plan = self.plan(task, topic)
        if plan is None or task.stream_time_queue._heap or task.wall_clock_queue._heap \
                or task.idle is not None or not rows:
            self.declined += 1
            return False
        try:
            prepared = self._prepare(plan, topic, rows)
        except Exception:
            prepared = None
        if prepared is None:
            self.declined += 1
            return False
        self.steps = len(rows)
        self._apply(task, plan, topic, rows, prepared)
        self.chunks += 1
        return True

    # -- phase one: user code, no mutation ------------------------------------------------

    def _prepare(self, plan: StatelessChain, topic: str, rows: list[tuple[Any, ...]]
                 ) -> _Prepared | None:
        kdes = plan.source.key_serde.deserialize
        vdes = plan.source.value_serde.deserialize
        keys, values, timestamps, headers = [], [], [], []
        for key_bytes, value_bytes, header, timestamp, _ in rows:
            if timestamp < 0:
                return None  # the record path raises the negative-timestamp error
            keys.append(kdes(topic, key_bytes, header))
            values.append(vdes(topic, value_bytes, header))
            timestamps.append(timestamp)
            headers.append(header if header is None or header.__class__ is Headers
                           else as_headers(header))
        cols = Columns(keys, values, list(range(len(rows))))
        for processor in plan.processors:
            cols = apply_stateless(processor, cols)
        sink = plan.sink
        out_topic, kser, vser = sink.topic, sink._key_ser, sink._value_ser
        out_rows = []
        for key, value, row in zip(cols.keys, cols.values, cols.origin, strict=True):
            header = headers[row]
            out_rows.append((kser(out_topic, key, header), vser(out_topic, value, header),
                             header, timestamps[row], 0))
        downstream = plan.downstream
        if downstream is not None and downstream.bulk:
            source = downstream.source
            if not _round_trips(sink.key_serde, source.key_serde, cols.keys):
                cols.keys = [source.key_serde.deserialize(out_topic, r[0], r[2])
                             for r in out_rows]
            if not _round_trips(sink.value_serde, source.value_serde, cols.values):
                cols.values = [source.value_serde.deserialize(out_topic, r[1], r[2])
                               for r in out_rows]
        prepared = _Prepared()
        prepared.keys, prepared.values, prepared.timestamps = keys, values, timestamps
        prepared.headers, prepared.cols, prepared.out_rows = headers, cols, out_rows
        return prepared

    # -- phase two: apply ----------------------------------------------------------------

    def _consume(self, task: Any, topic: str, timestamps: list[int], count: int) -> int:
        """Advance offsets, partition and stream time and the processed count; first offset."""
        offsets = self.port.offsets
        tp = (topic, 0)
        first = offsets[tp]
        offsets[tp] = first + count
        if timestamps:
            latest = max(timestamps)
            queue = task.queue_for(topic, 0)
            if latest > queue.partition_time:
                queue.partition_time = latest
            group = task.partition_group
            if latest > group.stream_time:
                group.stream_time = latest
        task.metrics.processed += count
        return first

    def _apply(self, task: Any, plan: StatelessChain, topic: str, rows: list[tuple[Any, ...]],
               p: _Prepared) -> None:
        first = self._consume(task, topic, p.timestamps, len(rows))
        context = task.context
        last = (topic, first + len(rows) - 1,
                Record(p.keys[-1], p.values[-1], p.timestamps[-1], p.headers[-1]))
        sink_topic = plan.sink.topic
        downstream = plan.downstream
        out_rows = p.out_rows
        if downstream is not None and not downstream.bulk:
            write = self.port.writer(sink_topic)  # the engine loops these back one by one
            for row in out_rows:
                write(*row)
        elif out_rows:
            self.port.log(sink_topic).extend(out_rows)
        if downstream is not None and downstream.bulk and out_rows:
            cols = p.cols
            ts = [r[3] for r in out_rows]
            hs = [r[2] for r in out_rows]
            rfirst = self._consume(task, sink_topic, ts, len(out_rows))
            self.steps += len(out_rows)
            counted = count_rows(context, sink_topic, downstream.store, downstream.sink,
                                 cols.keys, cols.values, ts, hs, rfirst)
            if counted:
                self.port.log(downstream.sink.topic).extend(counted)
            last = (sink_topic, rfirst + len(out_rows) - 1,
                    Record(cols.keys[-1], cols.values[-1], ts[-1], hs[-1]))
        context.topic, context.partition, context.offset = last[0], 0, last[1]
        context.record = last[2]
        context.current = None
