"""Record tracing: which nodes a record passed, what each forwarded, which store keys it wrote.

Tracing is opt-in and costs nothing when off: an engine that wants it builds its tasks with
``TracingContext`` instead of ``TaskContext``. Every event carries the step (the index of the
driven input it belongs to) so a notebook can show one record's path through the graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from kslab.core.context import TaskContext
from kslab.records import Record

if TYPE_CHECKING:
    from kslab.core.punctuation import Schedule
    from kslab.core.task import StreamTask

__all__ = ["TraceEvent", "TraceLog", "Tracer", "TracingContext"]


class TraceEvent(NamedTuple):
    """One thing that happened to a record: a node received it, a store was written, a send."""

    step: int
    task: str
    node: str
    event: str  # "receive" | "put" | "delete" | "send" | "punctuate"
    key: Any
    value: Any
    timestamp: int
    detail: str | None  # the parent node, the store, or the topic


class TraceLog(list):
    """The trace as a list of ``TraceEvent``; ``to_pandas()`` / ``to_polars()`` for tables.

    A ``send`` event keeps the bytes the sink wrote; the tables show them decoded with that
    sink's serdes (``sinks``: the sinks seen sending, by name), as a person reads the record.
    """

    def __init__(self, events: Iterable[TraceEvent] = (), sinks: dict[str, Any] | None = None
                 ) -> None:
        super().__init__(events)
        self.sinks: dict[str, Any] = {} if sinks is None else sinks

    def readable(self) -> list[TraceEvent]:
        """The events with each ``send``'s key and value decoded by its sink's serdes (the
        bytes stay where a serde cannot read them back)."""
        return [self._decoded(ev) if ev.event == "send" else ev for ev in self]

    def _decoded(self, ev: TraceEvent) -> TraceEvent:
        sink = self.sinks.get(ev.node)
        if sink is None or ev.detail is None:
            return ev
        try:
            key = sink.key_serde.deserialize(ev.detail, ev.key, None)
            value = sink.value_serde.deserialize(ev.detail, ev.value, None)
        except Exception:  # a serde that cannot read its own bytes back: the bytes
            return ev
        return ev._replace(key=key, value=value)

    def to_pandas(self) -> Any:
        """One row per event, sends decoded (``readable``)."""
        import pandas as pd

        return pd.DataFrame(self.readable(), columns=list(TraceEvent._fields))

    def to_polars(self) -> Any:
        """One row per event, sends decoded (``readable``)."""
        import polars as pl

        rows = [ev._asdict() for ev in self.readable()]
        return pl.DataFrame(rows, schema=list(TraceEvent._fields), strict=False)

    def for_step(self, step: int) -> TraceLog:
        """The events of one driven input."""
        return TraceLog((ev for ev in self if ev.step == step), self.sinks)

    def path(self, step: int) -> list[str]:
        """The nodes the input of ``step`` reached, in order, without repeats."""
        seen: dict[str, None] = {}
        for ev in self:
            if ev.step == step and ev.event == "receive":
                seen.setdefault(ev.node, None)
        return list(seen)


class Tracer:
    """Collects events; the engine sets ``step`` before it drives each input."""

    def __init__(self) -> None:
        self.step = -1
        self.events = TraceLog()

    def add(self, task: Any, node: str, event: str, key: Any, value: Any, timestamp: int,
            detail: str | None) -> None:
        """Record one event under the current step."""
        self.events.append(
            TraceEvent(self.step, str(task), node, event, key, value, timestamp, detail)
        )


class TracingContext(TaskContext):
    """A ``TaskContext`` that reports every hop, store write and send to a ``Tracer``."""

    def __init__(self, task: StreamTask, tracer: Tracer) -> None:
        super().__init__(task)
        self.tracer = tracer
        self._proxies: dict[str, Any] = {}

    def forward(self, record: Record, child_name: str | None = None) -> None:
        """Forward, noting each child that receives the record."""
        node = self.current
        if node is not None:
            targets = node.children if child_name is None else [
                c for c in node.children if c.name == child_name
            ]
            for child in targets:
                self.tracer.add(self._task.id, child.name, "receive", record.key, record.value,
                                record.timestamp, node.name)
        super().forward(record, child_name)

    def process_source(self, record: Record, child_name: str | None = None) -> None:
        """Note that the source (``current``) read the record, then forward it."""
        self.tracer.add(self._task.id, self.current.name, "receive", record.key, record.value,
                        record.timestamp, self.topic)
        self.forward(record)

    def send(self, topic, key, value, headers, timestamp, partition, sink) -> None:
        """Send, noting the topic (and the sink, whose serdes decode the trace's tables)."""
        sinks = self.tracer.events.sinks
        if sink not in sinks:
            sinks[sink] = self._task.nodes.get(sink)
        self.tracer.add(self._task.id, sink, "send", key, value, timestamp, topic)
        super().send(topic, key, value, headers, timestamp, partition, sink)

    def writer(self, topic: str) -> Any:
        """No direct writers: every send goes through ``send`` so that it is traced."""
        return None

    def get_state_store(self, name: str) -> Any:
        """The store, wrapped so that writes are traced."""
        store = super().get_state_store(name)
        proxy = self._proxies.get(name)
        if proxy is None:
            proxy = self._proxies[name] = _TracedStore(store, self)
        return proxy

    def run_punctuation(self, schedule: Schedule, now: int) -> None:
        """Punctuate, noting it."""
        self.tracer.add(self._task.id, schedule.node.name, "punctuate", None, None, now, None)
        super().run_punctuation(schedule, now)


class _TracedStore:
    """Delegates to a store and reports puts and deletes."""

    def __init__(self, store: Any, context: TracingContext) -> None:
        self._store = store
        self._context = context

    def _note(self, event: str, key: Any, value: Any) -> None:
        context = self._context
        node = context.current.name if context.current is not None else "?"
        context.tracer.add(context.task_id, node, event, key, value, context.record.timestamp,
                           self._store.name)

    def put(self, key: Any, value: Any, *args: Any) -> Any:
        """Put and trace."""
        self._note("put" if value is not None else "delete", key, value)
        return self._store.put(key, value, *args)

    def put_if_absent(self, key: Any, value: Any) -> Any:
        """Put-if-absent and trace when it writes."""
        old = self._store.put_if_absent(key, value)
        if old is None:
            self._note("put", key, value)
        return old

    def put_all(self, entries: Any) -> None:
        """Put every entry and trace each."""
        entries = list(entries)
        for key, value in entries:
            self._note("put" if value is not None else "delete", key, value)
        self._store.put_all(entries)

    def delete(self, key: Any) -> Any:
        """Delete and trace."""
        self._note("delete", key, None)
        return self._store.delete(key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)
