"""Which tasks the bulk path may run, compiled into chains of steps (``None``: not supported).

A supported chain reads its input topic through a linear chain of processors with a batch form
(``process_batch``, see ``kslab.processor.batch``: the stateless DSL operators with one child,
stream aggregations over a store that holds its writes) and ends in either a sink with a fixed
topic or a ``count`` (non-windowed, or over ``TimeWindows``) whose result goes ``to_stream``
into a sink. A sink topic the task reads again (a repartition
topic) must lead into such a chain. Anything else (a Processor-API node, peek/foreach/print,
branches, joins, tables, suppress, user aggregators or reducers, sliding or session windows,
custom serdes, timestamp extractors, partitioners, error-handler guards) keeps the record path.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kslab import serdes
from kslab.core.nodes import ProcessorRuntime, SinkRuntime, SourceRuntime
from kslab.dsl._aggregates import AggregateSupplier, count_adder, count_initializer
from kslab.dsl._processors import MapValues
from kslab.dsl._table_processors import new_value_only
from kslab.dsl._window_aggregates import TimeWindowAggregateSupplier
from kslab.serdes._base import fast_serializer
from kslab.state.caching import CachingKeyValueStore
from kslab.state.caching_window import CachingWindowStore
from kslab.state.timestamped import TimestampedKeyValueStore
from kslab.topology._nodes import SourceNode

__all__ = ["Chain", "CountStep", "built_in", "compile_chain"]

_BUILT_IN = (serdes.String, serdes.Bytes, serdes.Long, serdes.Integer, serdes.Short,
             serdes.Double, serdes.Float, serdes.Boolean, serdes.UUID, serdes.Json)
_WINDOWED = (serdes.TimeWindowed,)


class CountStep(NamedTuple):
    """count -> to_stream -> sink, done as ``kind`` says: ``"direct"`` (a plain count on an
    uncached timestamped store, on the store itself), ``"cached"`` (the same behind a record
    cache: the cache's bookkeeping replayed, else the processor), ``"tumbling"`` (a
    tumbling-window count on an uncached window store, emitting updates),
    ``"tumbling_cached"`` (the same behind a record cache, its bookkeeping replayed where it
    can be, else the processor), or ``"processor"``
    (the real processor per record, store and record cache included; only what it forwards is
    taken over)."""

    aggregate: ProcessorRuntime
    store: Any
    sink: SinkRuntime
    kind: str


class Chain(NamedTuple):
    """source -> stateless processors -> a sink (and what reads its topic again) or a count."""

    source: SourceRuntime
    processors: list[Any]
    sink: SinkRuntime | None
    downstream: Chain | None
    count: CountStep | None


def built_in(serde: Any) -> bool:
    """Built-in serdes only: a custom serde may keep state or see the call order."""
    kind = type(serde)
    if kind in _WINDOWED:
        return built_in(getattr(serde, "_inner", None))
    return kind in _BUILT_IN


def _unguarded(node: Any, owner: Any) -> bool:
    """True when ``node`` runs ``owner``'s own method (an error handler's guard wraps it in a
    function of its own)."""
    return getattr(node.call, "__self__", None) is owner


def _only_child(runtime: Any) -> Any:
    children = runtime.children
    return children[0] if len(children) == 1 else None


def _plain_sink(node: Any, partitioned: bool = False) -> SinkRuntime | None:
    """A sink writing a fixed topic with built-in serdes, through the engine's direct writer
    (``partitioned``: the default partitioner, which the engine applies to a column)."""
    if not isinstance(node, SinkRuntime) or node.topic is None:
        return None
    if partitioned:
        if node.partitioner is not None or not _unguarded(node, node):
            return None
    elif (node.partitioner is not None
          and not getattr(node.partitioner, "default_on_one_partition", False)) \
            or getattr(node, "_writer", None) is None or not _unguarded(node, node):
        return None  # guarded by an error handler, or an engine without direct writers
    if not (built_in(node.key_serde) and built_in(node.value_serde)):
        return None
    return node


def _source(task: Any, topic: str) -> SourceRuntime | None:
    """The source reading ``topic``, if it uses built-in serdes and record timestamps."""
    try:
        source = task._source_for(topic)
    except Exception:
        return None
    node = task.topology.nodes[source.name]
    extractor = getattr(node, "timestamp_extractor", None)
    if not isinstance(node, SourceNode) or (
            extractor is not None and not getattr(extractor, "uses_record_timestamp", False)):
        return None  # (FailOnInvalidTimestamp reads the record's own timestamp, as the path)
    if task.config.get("default.timestamp.extractor") is not None:
        return None
    if not (built_in(source.key_serde) and built_in(source.value_serde)):
        return None
    return source


def _is_count(processor: Any) -> bool:
    supplier = getattr(processor, "s", None)
    if type(supplier) is AggregateSupplier:
        return supplier.reducer is None and supplier.initializer is count_initializer \
            and supplier.aggregator is count_adder and not supplier.send_old_values
    if type(supplier) is TimeWindowAggregateSupplier:
        return supplier.initializer is count_initializer \
            and supplier.aggregator is count_adder and not supplier.send_old_values
    return False


def _count_step(aggregate: Any, task: Any) -> CountStep | None:
    processor = getattr(aggregate, "processor", None)
    if type(aggregate) is not ProcessorRuntime or not _is_count(processor) \
            or not _unguarded(aggregate, processor):
        return None
    to_stream = _only_child(aggregate)
    mapper = getattr(getattr(to_stream, "processor", None), "mapper", None)
    if type(to_stream) is not ProcessorRuntime or type(to_stream.processor).__name__ not in ('MapValues', 'ToStream') \
            or mapper is not new_value_only or to_stream.processor.with_key \
            or not _unguarded(to_stream, to_stream.processor):
        return None
    sink = _plain_sink(_only_child(to_stream))
    if sink is None or sink.topic in task_topics(task):
        return None
    if type(processor.s) is AggregateSupplier and (
            fast_serializer(sink.key_serde) is None or fast_serializer(sink.value_serde) is None):
        # these counts write their output through the sink's C-level codecs; otherwise the
        # aggregate's own batch form (kslab.dsl._aggregates) is the faster (and the one that
        # stays: this module's counts go once it is as fast everywhere)
        return None
    store = processor.store
    kind = "processor"
    if type(store) is TimestampedKeyValueStore and type(processor.s) is AggregateSupplier \
            and built_in(store._key_serde) and built_in(store._value_serde):
        kind = "direct"  # a custom serde may see that keys are serialized once per chunk
    elif type(store) is CachingKeyValueStore and type(processor.s) is AggregateSupplier \
            and type(store.wrapped) is TimestampedKeyValueStore:
        kind = "cached"
    elif type(processor.s) is TimeWindowAggregateSupplier \
            and processor.advance == processor.size and processor.updates \
            and processor.serialize is not None:
        if processor.pairs:
            kind = "tumbling"
        elif type(store) is CachingWindowStore:
            kind = "tumbling_cached"
    return CountStep(aggregate, store, sink, kind)


def task_topics(task: Any) -> set[str]:
    """The topics ``task`` reads."""
    return {topic for topic, _ in task.input_partitions}


def compile_chain(task: Any, topic: str, depth: int = 0, *,
                  partitioned: bool = False) -> Chain | None:
    """The bulk plan for records of ``topic`` in ``task``, or ``None`` for the record path.
    ``partitioned``: a task of several (the engine partitions sink columns and merges the
    tasks' outputs; no count's own output path, nothing read back by a task)."""
    source = _source(task, topic)
    if source is None:
        return None
    processors: list[Any] = []
    stateful = False
    node = _only_child(source)
    while type(node) is ProcessorRuntime:
        processor = getattr(node, "processor", None)
        if node.stores:
            count = None if partitioned else _count_step(node, task)
            if count is not None:
                return Chain(source, processors, None, None, count)
            stateful = True
        if getattr(processor, "process_batch", None) is None or not _unguarded(node, processor):
            return None
        processors.append(processor)
        node = _only_child(node)
    sink = _plain_sink(node, partitioned)
    if sink is None:
        return None
    downstream = None
    if sink.topic in task_topics(task):
        if stateful or partitioned:  # looped back: its lateness is taken as the input
            # row's (see the executor's _apply); several tasks would interleave it
            return None
        downstream = compile_chain(task, sink.topic, depth + 1) if depth == 0 else None
        if downstream is None:
            return None
    return Chain(source, processors, sink, downstream, None)
