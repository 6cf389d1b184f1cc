"""Graph rewrites done at ``build()``: duplicate sources, repartition filters, optimizations.

``topology.optimization=all`` reuses a table's source topic as its changelog, merges the
repartition topics that follow one key-changing operation into one and runs a stream joined with
itself on one window store, as Kafka's ``InternalStreamsBuilder`` does. Invariant: rewrites only
relink graph nodes and never rename an existing node; the only new names come from
``new_repartition_node`` via the builder's counter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from kslab.dsl._graph import GraphNode, ProcessorGraphNode, RepartitionNode, StreamSourceNode
from kslab.dsl._processors import Filter, NotNullKey, Supplier, skip_record
from kslab.errors import TopologyError
from kslab.processor import Processor, ProcessorContext
from kslab.records import Record
from kslab.topology._subtopologies import check_copartitions

if TYPE_CHECKING:
    from kslab.dsl.builder import StreamsBuilder
    from kslab.topology.topology import Topology

__all__ = [
    "check_copartitioning",
    "find_parent",
    "key_changing_parent",
    "merge_duplicate_sources",
    "new_repartition_node",
    "optimize",
]

REPARTITION_SUFFIX = "-repartition"
_GENERATED = re.compile(r"KSTREAM.*-[0-9]{10}")
_ALL = ("reuse.ktable.source.topics", "merge.repartition.topics", "single.store.self.join")


def _pass_all(key: Any, value: Any) -> bool:
    return True


def new_repartition_node(
    builder: StreamsBuilder,
    key_serde: Any,
    value_serde: Any,
    prefix: str,
    *,
    partitioner: Callable[..., Any] | None = None,
    partitions: int | None = None,
    optimizable: bool = True,
) -> RepartitionNode:
    """Java's ``createRepartitionedSource``: uses three indexes; user prefixes name the nodes."""
    topic = prefix if prefix.endswith(REPARTITION_SUFFIX) else prefix + REPARTITION_SUFFIX
    sink = builder.new_processor_name("KSTREAM-SINK-")
    filter_name = builder.new_processor_name("KSTREAM-FILTER-")
    source = builder.new_processor_name("KSTREAM-SOURCE-")
    if not _GENERATED.fullmatch(prefix):
        sink, source, filter_name = topic + "-sink", topic + "-source", topic + "-filter"
    return RepartitionNode(
        source, sink, filter_name, topic, key_serde, value_serde,
        filter_supplier=Supplier(Filter, _pass_all, False), partitioner=partitioner,
        partitions=partitions, optimizable=optimizable,
    )


def find_parent(node: GraphNode, predicate: Callable[[GraphNode], bool]) -> GraphNode | None:
    """Java's ``findParentNodeMatching``: ``node`` itself, a parent, or the deepest match."""
    if predicate(node):
        return node
    found = None
    for parent in node.parents:
        if predicate(parent):
            return parent
        found = find_parent(parent, predicate)
    return found


def key_changing_parent(node: GraphNode) -> GraphNode | None:
    """The key-changing node a repartition belongs to, unless a value change comes between."""
    nearest = find_parent(node, lambda n: n.key_changing or n.value_changing)
    key_changer = find_parent(node, lambda n: n.key_changing)
    if nearest is not None and nearest is key_changer:
        return key_changer
    return None


def merge_duplicate_sources(builder: StreamsBuilder) -> None:
    """Fold a second ``stream()`` of the same topics (or pattern) into the first source."""
    by_topic: dict[str, StreamSourceNode] = {}
    by_pattern: dict[tuple[str, int], StreamSourceNode] = {}
    for node in list(builder.root.children):
        if not isinstance(node, StreamSourceNode):
            continue
        if isinstance(node.topics, re.Pattern):
            key = (node.topics.pattern, node.topics.flags)
            main = by_pattern.setdefault(key, node)
            if main is not node:
                main.merge(node)
                builder.root.remove_child(node)
            continue
        for topic in node.topics:
            main = by_topic.setdefault(topic, node)
            if main is node:
                continue
            if set(main.topics) != set(node.topics):
                msg = (
                    "Two source nodes are subscribed to overlapping but not equal input topics "
                    f"('{main.name}' {main.topics} and '{node.name}' {node.topics}); read the "
                    "same list of topics in both, or split them"
                )
                raise TopologyError(msg)
            main.merge(node)
            builder.root.remove_child(node)


def _optimizations(props: dict[str, Any] | None) -> set[str]:
    value = (props or {}).get("topology.optimization")
    if value is None:
        return set()
    names = {v.strip() for v in str(value).split(",") if v.strip()}
    if "all" in names:
        return set(_ALL)
    if "none" in names:
        return set()
    unknown = names - set(_ALL)
    if unknown:
        msg = (
            f"Unrecognized config value for topology.optimization: {sorted(unknown)}; use "
            "'all', 'none' or a comma-separated list of " + ", ".join(_ALL)
        )
        raise TopologyError(msg)
    return names


def optimize(builder: StreamsBuilder, props: dict[str, Any] | None) -> None:
    """Apply the optimizations ``props`` asks for, then the null-key repartition filters."""
    chosen = _optimizations(props)
    if "reuse.ktable.source.topics" in chosen:
        for node in builder.table_sources:
            node.reuse_source_topic = True
    if "merge.repartition.topics" in chosen:
        _merge_repartition_topics(builder)
    if "single.store.self.join" in chosen:
        _rewrite_single_store_self_joins(builder.root)
    _rewrite_repartition_filters(builder.root)


def _rewrite_repartition_filters(root: GraphNode) -> None:
    """Every DSL repartition drops null keys, except above a join that accepts them (left
    joins): Java's ``rewriteRepartitionNodes``."""
    nodes, relaxed = _nodes_with_relaxed_join_downstream(root)
    for node in nodes:
        if isinstance(node, RepartitionNode) and id(node) not in relaxed:
            node.filter_supplier = Supplier(NotNullKey)


def _nodes_with_relaxed_join_downstream(root: GraphNode) -> tuple[list[GraphNode], set[int]]:
    """Java's ``NodesWithRelaxedNullKeyJoinDownstream``: every node in post-order, and the ids
    of those with a null-key-relaxed join below them. Iterative: a long DSL chain is deeper than
    Python's recursion limit."""
    visited: set[int] = set()
    relaxed: set[int] = set()
    nodes: list[GraphNode] = []
    stack: list[tuple[GraphNode, Iterator[GraphNode]]] = [(root, iter(root.children))]
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            visited.add(id(node))
            nodes.append(node)
            if stack and (node.relaxed_null_key_join or id(node) in relaxed):
                relaxed.add(id(stack[-1][0]))
        elif id(child) in visited:
            if child.relaxed_null_key_join or id(child) in relaxed:
                relaxed.add(id(node))
        else:
            stack.append((child, iter(child.children)))
    return nodes, relaxed


def _merge_repartition_topics(builder: StreamsBuilder) -> None:
    _group_repartitions_by_merge_node(builder)
    for key_changer, repartitions in list(builder.key_changing.items()):
        if not repartitions:
            continue
        key_serde = next((r.key_serde for r in repartitions if r.key_serde is not None), None)
        value_serde = next((r.value_serde for r in repartitions if r.value_serde is not None),
                           None)
        merged = new_repartition_node(builder, key_serde, value_serde, repartitions[0].topic)
        merged.build_priority = key_changer.build_priority
        for old in repartitions:
            child = find_parent(old, lambda n, k=key_changer: k in n.parents)  # type: ignore[misc]
            if child is None:
                msg = f"Found a null keyChangingChild node for {old!r}"
                raise TopologyError(msg)
            merged.add_child(child)
            key_changer.remove_child(child)
            for grandchild in list(old.children):
                for parent in list(old.parents):
                    parent.add_child(grandchild)
            for parent in list(old.parents):
                parent.remove_child(old)
            for grandchild in list(old.children):
                old.remove_child(grandchild)
            for group in builder.copartition_groups:
                if old.name in group:
                    group.discard(old.name)
                    group.add(merged.name)
        key_changer.add_child(merged)
        del builder.key_changing[key_changer]


def _group_repartitions_by_merge_node(builder: StreamsBuilder) -> None:
    moved: dict[GraphNode, list[GraphNode]] = {}
    for merge in builder.merge_nodes:
        moved[merge] = []
        for key_changer, repartitions in builder.key_changing.items():
            below = all(
                find_parent(r, lambda n, m=merge: m in n.parents) is not None  # type: ignore[misc]
                for r in repartitions
            )
            if below and find_parent(merge, lambda n, k=key_changer: k in n.parents) is not None:
                moved[merge].append(key_changer)
    removed: set[GraphNode] = set()
    for merge, key_changers in moved.items():
        combined: list[RepartitionNode] = []
        for key_changer in key_changers:
            combined.extend(r for r in builder.key_changing[key_changer] if r not in combined)
            removed.add(key_changer)
        builder.key_changing[merge] = combined
    for key_changer in removed:
        builder.key_changing.pop(key_changer, None)


# -- single.store.self.join ----------------------------------------------------------------------


class _StreamJoin:
    """A windowed stream-stream join as ``stream_stream_join`` lowers it: two windowed nodes,
    a join processor under each, and the merge node below both."""

    def __init__(self, merge: ProcessorGraphNode) -> None:
        self.merge = merge
        self.this_join, self.other_join = merge.parents  # type: ignore[assignment]
        self.this_windowed = self.this_join.parents[0]
        self.other_windowed = self.other_join.parents[0]

    @staticmethod
    def of(node: GraphNode) -> _StreamJoin | None:
        """The join whose merge node is ``node``, or ``None`` when ``node`` is something else."""
        from kslab.dsl._stream_joins import JoinSide, PassThrough, WindowPut

        if not _is_processor(node, PassThrough) or len(node.parents) != 2:
            return None
        sides = node.parents
        if not all(_is_processor(side, JoinSide) and len(side.parents) == 1 for side in sides):
            return None
        if not all(_is_processor(side.parents[0], WindowPut) for side in sides):
            return None
        return _StreamJoin(node)  # type: ignore[arg-type]

    def is_self_join(self) -> bool:
        """Java's test: the join node has one parent (both sides are the same stream node)."""
        this_parents, other_parents = self.this_windowed.parents, self.other_windowed.parents
        return (len(this_parents) == 1 and len(other_parents) == 1
                and this_parents[0] is other_parents[0])

    def rewrite(self) -> None:
        """Drop the other side; the merge node becomes the self-join on the this-side store."""
        this_windowed, merge = self.this_windowed, self.merge
        stream = this_windowed.parents[0]
        if this_windowed.build_priority >= self.other_windowed.build_priority:
            msg = (f"Expected the left node {this_windowed!r} to have smaller build priority "
                   f"than the right node {self.other_windowed!r}.")
            raise TopologyError(msg)
        side = self.this_join.supplier()
        store_name = this_windowed.supplier().store_name  # type: ignore[attr-defined]
        stream.remove_child(self.other_windowed)
        for join in (self.this_join, self.other_join):
            join.remove_child(merge)
        this_windowed.children[this_windowed.children.index(self.this_join)] = merge
        self.this_join.parents.remove(this_windowed)
        merge.parents.insert(0, this_windowed)
        merge.build_priority = self.this_join.build_priority
        this_windowed.supplier = Supplier(_JoinWindow, store_name)
        merge.supplier = Supplier(_SelfJoin, store_name, side.windows, side.joiner)
        merge.store_names = (store_name,)


def _is_processor(node: GraphNode, kind: type) -> bool:
    """True when ``node`` is a processor node whose supplier makes a ``kind``; only suppliers
    from ``kind``'s own module are called (a user's supplier may count its processors)."""
    if not isinstance(node, ProcessorGraphNode):
        return False
    supplier = node.supplier
    if supplier is kind:
        return True
    if getattr(supplier, "__module__", None) != kind.__module__:
        return False
    return isinstance(supplier(), kind)


def _rewrite_single_store_self_joins(root: GraphNode) -> None:
    """Java's ``rewriteSingleStoreSelfJoin``: depth first from the root, each join once (with
    an explicit stack: a long DSL chain is deeper than Python's recursion limit)."""
    visited: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        join = _StreamJoin.of(node)
        if join is not None and join.is_self_join():
            join.rewrite()
        stack.extend(reversed(node.children))


class _JoinWindow(Processor):
    """Java's ``KStreamJoinWindow``: forward first, then remember keyed records in the store."""

    def __init__(self, store_name: str) -> None:
        self.store_name = store_name

    def init(self, context: ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store(self.store_name)

    def process(self, record: Record) -> None:
        self.context.forward(record)
        if record.key is not None:
            self.store.put(record.key, record.value, record.timestamp)


class _SelfJoin(Processor):
    """Java's ``KStreamKStreamSelfJoin``: an inner join of a stream with itself on one store,
    emitting what the two-store join emits, in the same order."""

    def __init__(self, store_name: str, windows: Any, joiner: Callable[..., Any]) -> None:
        self.store_name = store_name
        self.before, self.after = windows.before_ms, windows.after_ms
        self.retention = windows.size() + windows.grace_ms
        self.joiner = joiner  # (key, this, other)
        self.stream_time = -1

    def init(self, context: ProcessorContext) -> None:
        self.context = context
        self.store = context.get_state_store(self.store_name)

    def process(self, record: Record) -> None:
        key, value, timestamp = record.key, record.value, record.timestamp
        if key is None or value is None:
            skip_record(self.context, "null key or value")
            return
        self_record = record.with_value(self.joiner(key, value, value))
        self.stream_time = max(self.stream_time, timestamp)
        emit_self = timestamp > self.stream_time - self.retention + 1
        for other_ts, other in self._fetch(key, timestamp - self.before, timestamp + self.after):
            self.context.forward(record.with_value(self.joiner(key, value, other))
                                 .with_timestamp(max(timestamp, other_ts)))
        emitted_self = False
        for other_ts, other in self._fetch(key, timestamp - self.after, timestamp + self.before):
            if timestamp < max(timestamp, other_ts) and not emitted_self and emit_self:
                emitted_self = True
                self.context.forward(self_record)
            self.context.forward(record.with_value(self.joiner(key, other, value))
                                 .with_timestamp(max(timestamp, other_ts)))
        if not emitted_self and emit_self:
            self.context.forward(self_record)

    def _fetch(self, key: Any, time_from: int, time_to: int) -> list[tuple[int, Any]]:
        with self.store.fetch(key, max(0, time_from), max(0, time_to)) as found:
            return list(found)


def check_copartitioning(topology: Topology) -> None:
    """Java's ``validateCopartition``: repartition topics of one group need equal partitions."""
    check_copartitions(topology)
