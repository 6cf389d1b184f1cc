"""Which tasks the bulk path may run, compiled into chains of steps (``None``: not supported).

A supported task reads its input topic through a linear chain of stateless DSL processors into
one sink with a fixed topic; a sink topic the task reads again (a repartition topic) must lead
into a non-windowed ``count`` whose result goes ``to_stream`` into one sink. Anything else (a
Processor-API node, peek/foreach/print, branches, joins, tables, suppress, user aggregators,
custom serdes, extractors, partitioners) keeps the record path.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kslab import serdes
from kslab.core.bulk.columns import STATELESS
from kslab.core.nodes import ProcessorRuntime, SinkRuntime, SourceRuntime
from kslab.dsl._aggregates import AggregateSupplier, count_adder, count_initializer
from kslab.dsl._processors import MapValues
from kslab.dsl._table_processors import new_value_only
from kslab.state.timestamped import TimestampedKeyValueStore
from kslab.topology._nodes import SourceNode

__all__ = ["CountChain", "StatelessChain", "compile_chain"]


class CountChain(NamedTuple):
    """source -> count (KStreamAggregate) -> to_stream -> sink, read from a looped-back topic.

    ``bulk`` is False when the store has a record cache: the chain then runs on the record
    path (it holds no user function, so nothing in it can fail after the chunk's user code).
    """

    source: SourceRuntime
    aggregate: ProcessorRuntime
    store: Any
    sink: SinkRuntime
    bulk: bool


class StatelessChain(NamedTuple):
    """source -> stateless processors -> sink, and what reads the sink's topic again, if any."""

    source: SourceRuntime
    processors: list[Any]
    sink: SinkRuntime
    downstream: CountChain | None


_BUILT_IN = (serdes.String, serdes.Bytes, serdes.Long, serdes.Integer, serdes.Short,
             serdes.Double, serdes.Float, serdes.Boolean, serdes.UUID)


def _kslab_serde(serde: Any) -> bool:
    """Built-in primitive serdes only: a custom serde may keep state or see the call order."""
    return type(serde) in _BUILT_IN


def _only_child(runtime: Any) -> Any:
    children = runtime.children
    return children[0] if len(children) == 1 else None


def _plain_sink(node: Any, task: Any) -> SinkRuntime | None:
    """A sink writing a fixed topic with built-in serdes, through the engine's direct writer."""
    if not isinstance(node, SinkRuntime) or node.topic is None or node.partitioner is not None:
        return None
    if getattr(node, "_writer", None) is None or node.call != node._write:
        return None  # guarded by an error handler, or an engine without direct writers
    if not (_kslab_serde(node.key_serde) and _kslab_serde(node.value_serde)):
        return None
    return node


def _source(task: Any, topic: str) -> SourceRuntime | None:
    """The source reading ``topic``, if it uses built-in serdes and record timestamps."""
    try:
        source = task._source_for(topic)
    except Exception:
        return None
    node = task.topology.nodes[source.name]
    if not isinstance(node, SourceNode) or getattr(node, "timestamp_extractor", None):
        return None
    if not (_kslab_serde(source.key_serde) and _kslab_serde(source.value_serde)):
        return None
    return source


def _count_chain(task: Any, topic: str) -> CountChain | None:
    source = _source(task, topic)
    if source is None:
        return None
    aggregate = _only_child(source)
    if type(aggregate) is not ProcessorRuntime:
        return None
    processor = getattr(aggregate, "processor", None)
    supplier = getattr(processor, "s", None)
    if type(supplier) is not AggregateSupplier or supplier.reducer is not None \
            or supplier.initializer is not count_initializer \
            or supplier.aggregator is not count_adder or supplier.send_old_values:
        return None
    if aggregate.call != processor.process:  # wrapped by an error handler's guard
        return None
    to_stream = _only_child(aggregate)
    mapper = getattr(getattr(to_stream, "processor", None), "mapper", None)
    if type(to_stream) is not ProcessorRuntime or type(to_stream.processor) is not MapValues \
            or mapper is not new_value_only or to_stream.processor.with_key:
        return None
    sink = _plain_sink(_only_child(to_stream), task)
    if sink is None or sink.topic in task_topics(task):
        return None
    store = processor.store
    if type(store) is TimestampedKeyValueStore:
        return CountChain(source, aggregate, store, sink, True)
    inner = getattr(store, "wrapped", None)
    if type(store).__name__ == "CachingKeyValueStore" and type(inner) is \
            TimestampedKeyValueStore:
        return CountChain(source, aggregate, store, sink, False)
    return None


def task_topics(task: Any) -> set[str]:
    """The topics ``task`` reads."""
    return {topic for topic, _ in task.input_partitions}


def compile_chain(task: Any, topic: str) -> StatelessChain | None:
    """The bulk plan for records of ``topic`` in ``task``, or ``None`` for the record path."""
    source = _source(task, topic)
    if source is None:
        return None
    processors: list[Any] = []
    node = _only_child(source)
    while type(node) is ProcessorRuntime and not node.stores:
        processor = getattr(node, "processor", None)
        if type(processor) not in STATELESS or node.call != processor.process:
            return None
        processors.append(processor)
        node = _only_child(node)
    sink = _plain_sink(node, task)
    if sink is None:
        return None
    downstream = None
    if sink.topic in task_topics(task):
        downstream = _count_chain(task, sink.topic)
        if downstream is None:
            return None
    return StatelessChain(source, processors, sink, downstream)
