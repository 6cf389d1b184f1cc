"""Which tasks the bulk path may run, compiled into chains of steps (``None``: not supported).

A supported chain reads its input topic through a linear chain of processors with a batch form
(``process_batch``, see ``kslab.processor.batch``: the stateless DSL operators with one child,
stream and windowed aggregations over a store that holds its writes, table sources and table
operators, stream-table joins, ``to_stream``) and ends in a sink with a fixed topic, or in a
processor that forwards to nothing (a table only joins read). A sink topic the task reads again
(a repartition topic) must lead into such a chain; a sink topic a global table reads keeps the
record path. No two processors of a plan share a store: a batch form reads its store as it was
before the chunk, which is exact only while no other one of the chunk writes it (a join of a
table the same chain writes). Anything else (a Processor-API node, peek/foreach/print,
branches, table-table joins, suppress, sliding or session windows, custom serdes,
partitioners, error-handler guards) keeps the record path. The core asks each
processor for its batch form and never looks at its class: what an operator does over a run
is its own batch form's business.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kslab import serdes
from kslab.core.nodes import ProcessorRuntime, SinkRuntime, SourceRuntime
from kslab.topology._nodes import SourceNode

__all__ = ["Chain", "built_in", "compile_chain"]

_BUILT_IN = (serdes.String, serdes.Bytes, serdes.Long, serdes.Integer, serdes.Short,
             serdes.Double, serdes.Float, serdes.Boolean, serdes.UUID, serdes.Json)
_WINDOWED = (serdes.TimeWindowed,)


class Chain(NamedTuple):
    """source -> processors with a batch form -> a sink (``None``: the last processor forwards
    to nothing), and the chain reading its topic again, if any."""

    source: SourceRuntime
    processors: list[Any]
    sink: SinkRuntime | None
    downstream: Chain | None


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
    """The source reading ``topic``, if it uses built-in serdes (its timestamp extractor,
    if any, the executor calls per record: ``BulkExecutor._source_timestamps``)."""
    try:
        source = task.source_for(topic)
    except Exception:
        return None
    node = task.topology.nodes[source.name]
    if not isinstance(node, SourceNode):
        return None
    if not (built_in(source.key_serde) and built_in(source.value_serde)):
        return None
    return source


def task_topics(task: Any) -> set[str]:
    """The topics ``task`` reads."""
    return {topic for topic, _ in task.input_partitions}


def _global_topics(task: Any) -> set[str]:
    """The topics global tables read (a write to one is read back by the global task)."""
    return {spec.topic for spec in getattr(task.topology, "global_stores", {}).values()}


def compile_chain(task: Any, topic: str, depth: int = 0, *,
                  partitioned: bool = False, stores: set[str] | None = None) -> Chain | None:
    """The bulk plan for records of ``topic`` in ``task``, or ``None`` for the record path.
    ``partitioned``: a task of several (the engine partitions sink columns and merges the
    tasks' outputs; nothing read back by a task); ``stores``: those the plan's processors
    so far are connected to."""
    source = _source(task, topic)
    if source is None:
        return None
    if stores is None:
        stores = set()
    processors: list[Any] = []
    stateful = False
    last: Any = source
    node = _only_child(source)
    while type(node) is ProcessorRuntime:
        processor = getattr(node, "processor", None)
        if node.stores:
            stateful = True
            if not stores.isdisjoint(node.stores):
                return None  # one reads what another's held writes would have written by then
            stores.update(node.stores)
        if getattr(processor, "process_batch", None) is None or not _unguarded(node, processor):
            return None
        processors.append(processor)
        last, node = node, _only_child(node)
    if node is None and processors and not last.children:  # the last forwards to nothing
        return Chain(source, processors, None, None)
    sink = _plain_sink(node, partitioned)
    if sink is None or sink.topic in _global_topics(task):
        return None
    downstream = None
    if sink.topic in task_topics(task):
        if stateful or partitioned:  # looped back: its lateness is taken as the input
            # row's (see the executor's _apply); several tasks would interleave it
            return None
        downstream = compile_chain(task, sink.topic, depth + 1,
                                   stores=stores) if depth == 0 else None
        if downstream is None:
            return None
    return Chain(source, processors, sink, downstream)
