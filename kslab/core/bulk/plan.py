"""Which tasks the bulk path may run, compiled into trees of steps (``None``: not supported).

A supported plan reads its input topic through processors with a batch form
(``process_batch``, see ``kslab.processor.batch``: the stateless DSL operators, peek, foreach,
print, branches and merges, stream and windowed aggregations over a store that holds its
writes, table sources and table operators, stream-table and windowed stream-stream joins,
``to_stream``) into sinks with a fixed topic or a topic extractor, or into processors that
forward to nothing (a table only joins read); a sink topic a global table reads keeps the
record path. The nodes the source reaches form a tree in which branches may merge again (a
DAG): a step may forward to several children (a stream two operators read, ``split``), and a
merge step takes records from several parents. A fixed sink topic the task reads again (a
repartition topic) must lead into such a plan. Anything else (a Processor-API node,
table-table and foreign-key joins, suppress, sliding or session windows, partitioners,
error-handler guards, two steps sharing a store: a batch form reads its store as it was before
the chunk, so both sides of a stream-stream join reached from one topic keep the record path)
keeps the record path. Any serde is taken: a user's is called once per field, as the record
path calls it (only a built-in serde's bytes are ever reused for another serde's). The core
asks each processor for its batch form and never looks at its class: what an operator does
over a run is its own batch form's business.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kslab import serdes
from kslab.core.nodes import ProcessorRuntime, SinkRuntime, SourceRuntime
from kslab.topology._nodes import SourceNode

__all__ = ["Plan", "Step", "built_in", "compile_plan", "task_topics"]

_BUILT_IN = (serdes.String, serdes.Bytes, serdes.Long, serdes.Integer, serdes.Short,
             serdes.Double, serdes.Float, serdes.Boolean, serdes.UUID, serdes.Json)
_WINDOWED = (serdes.TimeWindowed,)


class Step(NamedTuple):
    """One node of a plan: a processor with a batch form (``processor``) or a sink
    (``sink``), the steps it forwards to (``children``, in the node's children order) and
    those of its children by node name (a routed forward names one), and how many steps of
    the plan forward to it (``parents``: several for a merge)."""

    processor: Any
    sink: SinkRuntime | None
    children: tuple[int, ...]
    named: dict[str, int]
    parents: int


class Plan(NamedTuple):
    """source -> steps (every step after the steps forwarding to it; ``roots``: the source's
    children) -> sinks, and the plan reading a sink's topic again (``downstream``, read from
    step ``loop``), if any; ``stores``: the stores its steps are connected to."""

    source: SourceRuntime
    steps: list[Step]
    roots: tuple[int, ...]
    downstream: Plan | None
    loop: int | None
    stores: frozenset[str] = frozenset()


def built_in(serde: Any) -> bool:
    """Whether ``serde`` is one of kslab's own, whose bytes depend on nothing but the data
    and its configuration: bytes one wrote may stand for another's (``writes_alike``) and a
    pipe may serialize a column in one call. A user's serde may keep state or see the call
    order, so it is called once per field, as the record path calls it."""
    kind = type(serde)
    if kind in _WINDOWED:
        return built_in(serde.inner)
    return kind in _BUILT_IN


def _unguarded(node: Any, owner: Any) -> bool:
    """True when ``node`` runs ``owner``'s own method (an error handler's guard wraps it in a
    function of its own)."""
    return getattr(node.call, "__self__", None) is owner


def _plain_sink(node: Any, partitioned: bool = False) -> SinkRuntime | None:
    """A sink writing a fixed topic, or the topic its extractor names, with built-in serdes
    through the engine's direct writer (``partitioned``: the default partitioner, which the
    engine applies to a column; an extractor's topics are the engine port's to check)."""
    if not isinstance(node, SinkRuntime) or not _unguarded(node, node):
        return None  # guarded by an error handler
    if node.topic is None and node.topic_extractor is None:
        return None
    if partitioned or node.topic is None:
        if node.partitioner is not None:
            return None
    elif (node.partitioner is not None
          and not getattr(node.partitioner, "default_on_one_partition", False)) \
            or not node.has_direct_writer:
        return None  # an engine without direct writers
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
    return source


def task_topics(task: Any) -> set[str]:
    """The topics ``task`` reads."""
    return {topic for topic, _ in task.input_partitions}


def _reached(source: SourceRuntime) -> list[Any] | None:
    """The nodes ``source`` reaches, every one after all of its parents among them (Kahn's
    order, children in the order they are forwarded to); ``None`` for a cycle."""
    seen: dict[int, Any] = {}
    stack = list(reversed(source.children))
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack += reversed(node.children)
    waiting = dict.fromkeys(seen, 0)
    for node in seen.values():
        for child in node.children:
            waiting[id(child)] += 1
    ready = [node for node in reversed(source.children) if not waiting[id(node)]]
    order: list[Any] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for child in reversed(node.children):
            waiting[id(child)] -= 1
            if not waiting[id(child)]:
                ready.append(child)
    return order if len(order) == len(seen) else None


def _global_topics(task: Any) -> set[str]:
    """The topics global tables read."""
    return {spec.topic for spec in getattr(task.topology, "global_stores", {}).values()}


def compile_plan(task: Any, topic: str, depth: int = 0, *,
                 partitioned: bool = False) -> Plan | None:
    """The bulk plan for records of ``topic`` in ``task``, or ``None`` for the record path.
    ``partitioned``: a task of several (the engine partitions sink columns and merges the
    tasks' outputs; nothing read back by the task itself)."""
    source = _source(task, topic)
    if source is None:
        return None
    nodes = _reached(source)
    if not nodes:
        return None
    globals_read = _global_topics(task)  # (a write there is read back by the global task)
    index = {id(node): i for i, node in enumerate(nodes)}
    parents = [0] * len(nodes)
    steps: list[Step] = []
    stores: set[str] = set()
    loops: list[int] = []
    fixed: dict[str, int] = {}  # sink topics: how many sinks write each
    extracted = False
    for i, node in enumerate(nodes):
        children = tuple(index[id(child)] for child in node.children)
        for child in children:
            parents[child] += 1
        named = {child.name: index[id(child)] for child in node.children}
        if type(node) is ProcessorRuntime:
            processor = getattr(node, "processor", None)
            if getattr(processor, "process_batch", None) is None \
                    or not _unguarded(node, processor) or stores.intersection(node.stores):
                return None  # (two steps writing one store: out of scope)
            stores.update(node.stores)
            steps.append(Step(processor, None, children, named, 0))
            continue
        sink = _plain_sink(node, partitioned)
        if sink is None or children or sink.topic in globals_read:
            return None
        if sink.topic is None:
            extracted = True
        else:
            fixed[sink.topic] = fixed.get(sink.topic, 0) + 1
            if sink.topic in task_topics(task):
                loops.append(i)
        steps.append(Step(None, sink, (), {}, 0))
    roots = tuple(index[id(child)] for child in source.children)
    for root in roots:  # (the source forwards to them too)
        parents[root] += 1
    steps = [step._replace(parents=count) for step, count in zip(steps, parents, strict=True)]
    downstream = loop = None
    if loops:
        loop = loops[0]
        if len(loops) > 1 or extracted or fixed[steps[loop].sink.topic] > 1 \
                or partitioned or depth:  # type: ignore[union-attr]
            # looped back: its lateness is taken as the input row's (see the executor's
            # _apply), and its records are the one sink's; several tasks would interleave it
            return None
        downstream = compile_plan(task, steps[loop].sink.topic, depth + 1)  # type: ignore[union-attr]
        if downstream is None or stores.intersection(downstream.stores):
            return None  # (a store both read: the reader would see it as before the chunk)
    return Plan(source, steps, roots, downstream, loop, frozenset(stores))
