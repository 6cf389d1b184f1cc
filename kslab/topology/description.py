"""Kafka Streams' ``TopologyDescription``: a topology's sub-topologies, nodes and global stores.

``str(describe(topology))`` is byte-identical to Kafka Streams 4.0's ``describe().toString()`` on
JDK 17 for the same wiring: sub-topologies by id, nodes by Kafka's node comparator (larger
"size" first, then name), topics and stores in Java ``HashSet`` order, predecessors and
successors in the order Kafka's tree sets yield while sizes grow under them. Internal topics
print as the user named them, without the ``<application.id>-`` prefix, as Java prints them.
Invariant: a description is a frozen value built once from a snapshot of the wiring; the Java
ordering rules live in ``_javaorder`` and nowhere else.

Java prints a dynamic sink as ``(extractor class: <extractor.toString()>)``. Python has no
stable ``toString()``, so kslab prints: for a function, method or class its
``module.qualname``; for a callable object whose class defines ``__str__`` or ``__repr__``, that
text (the analogue of overriding ``toString()``); for any other callable object its class's
``module.qualname`` (Java's ``Class@hash`` without the unstable hash). A ``functools.partial``
prints as the function it wraps.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kslab.errors import InvalidArgumentError, MissingArgumentError
from kslab.topology._javaorder import (
    TreeSetOrder,
    copy_capacity,
    hash_set_order,
    utf16_key,
)
from kslab.topology._nodes import Node, ProcessorNode, SinkNode, SourceNode
from kslab.topology._subtopologies import Subtopology, subtopologies

if TYPE_CHECKING:
    from kslab.topology.topology import Topology

__all__ = [
    "GlobalStoreDescription",
    "NodeDescription",
    "ProcessorDescription",
    "SinkDescription",
    "SourceDescription",
    "SubtopologyDescription",
    "TopologyDescription",
    "describe",
    "extractor_label",
]


def describe(topology: Topology) -> TopologyDescription:
    """Describe ``topology`` as Kafka does; what ``Topology.describe()`` returns."""
    subs: list[SubtopologyDescription] = []
    stores: list[GlobalStoreDescription] = []
    for group in subtopologies(topology):
        if group.is_global:
            stores.append(_describe_global_store(topology, group))
        else:
            subs.append(_describe_subtopology(topology, group))
    return TopologyDescription(tuple(subs), tuple(stores))


# -- the description values -----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class NodeDescription:
    """A node as Kafka describes it; neighbours are node names, in Kafka's printing order.

    Two nodes are equal as in Java: same kind and name, the same predecessors (as a set) and the
    same kind-specific fields; successors never count (Java omits them to avoid loops).
    """

    name: str
    predecessors: tuple[str, ...]
    successors: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.name is None:
            msg = "name cannot be null"
            raise MissingArgumentError(msg)

    def _content(self) -> tuple[Any, ...]:
        return (type(self), self.name, frozenset(self.predecessors))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodeDescription):
            return NotImplemented
        return self._content() == other._content()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.name))


@dataclass(frozen=True, eq=False)
class SourceDescription(NodeDescription):
    """A source: its ``topics`` (Java's ``topicSet()``), or ``topic_pattern`` when it has none."""

    topics: tuple[str, ...] | None = None
    topic_pattern: re.Pattern[str] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        # Java's Source(name, topics, pattern) takes exactly one of the two
        if self.topics is None and self.topic_pattern is None:
            msg = "Either topics or pattern must be not-null, but both are null."
            raise InvalidArgumentError(msg)
        if self.topics is not None and self.topic_pattern is not None:
            msg = "Either topics or pattern must be null, but both are not null."
            raise InvalidArgumentError(msg)

    def _content(self) -> tuple[Any, ...]:
        pattern = None if self.topic_pattern is None else self.topic_pattern.pattern
        return (*super()._content(), frozenset(self.topics or ()), pattern)

    def __str__(self) -> str:
        if self.topics is not None:
            shown = _java_list(self.topics)
        else:
            shown = self.topic_pattern.pattern if self.topic_pattern is not None else "null"
        return f"Source: {self.name} (topics: {shown})\n      --> {_names(self.successors)}"


@dataclass(frozen=True, eq=False)
class ProcessorDescription(NodeDescription):
    """A processor and the names of the state stores it is connected to."""

    stores: tuple[str, ...] = ()

    def _content(self) -> tuple[Any, ...]:
        return (*super()._content(), frozenset(self.stores))

    def __str__(self) -> str:
        return (
            f"Processor: {self.name} (stores: {_java_list(self.stores)})\n"
            f"      --> {_names(self.successors)}\n"
            f"      <-- {_names(self.predecessors)}"
        )


@dataclass(frozen=True, eq=False)
class SinkDescription(NodeDescription):
    """A sink: its fixed ``topic``, or the ``topic_extractor`` that picks one per record."""

    topic: str | None = None
    topic_extractor: Callable[..., str] | None = None

    def _content(self) -> tuple[Any, ...]:
        return (*super()._content(), self.topic, self.topic_extractor)

    def __str__(self) -> str:
        if self.topic_extractor is None:
            target = f"topic: {self.topic}"
        else:
            target = f"extractor class: {extractor_label(self.topic_extractor)}"
        return f"Sink: {self.name} ({target})\n      <-- {_names(self.predecessors)}"


@dataclass(frozen=True, eq=False)
class SubtopologyDescription:
    """A sub-topology: its id and its nodes in Kafka's order (sources lead, by size then name)."""

    id: int
    nodes: tuple[NodeDescription, ...]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SubtopologyDescription):
            return NotImplemented
        return self.id == other.id and frozenset(self.nodes) == frozenset(other.nodes)

    def __hash__(self) -> int:
        return hash((self.id, frozenset(self.nodes)))

    def __str__(self) -> str:
        body = "".join(f"    {node}\n" for node in self.nodes)
        return f"Sub-topology: {self.id}\n{body}\n"


@dataclass(frozen=True)
class GlobalStoreDescription:
    """A global store: the source reading its topic and the processor updating it."""

    id: int
    source: SourceDescription
    processor: ProcessorDescription

    def __str__(self) -> str:
        return (
            f"Sub-topology: {self.id} for global store (will not generate tasks)\n"
            f"    {self.source}\n"
            f"    {self.processor}\n"
        )


@dataclass(frozen=True, eq=False)
class TopologyDescription:
    """What ``Topology.describe()`` returns; ``str()`` is Kafka Streams' text, byte for byte.

    Equality is by content: the same sub-topologies (ids and nodes) and global stores.
    """

    subtopologies: tuple[SubtopologyDescription, ...]
    global_stores: tuple[GlobalStoreDescription, ...] = ()

    # Java's nested names, so ``isinstance(n, TopologyDescription.Source)`` reads as in Kafka.
    Subtopology = SubtopologyDescription
    GlobalStore = GlobalStoreDescription
    Node = NodeDescription
    Source = SourceDescription
    Processor = ProcessorDescription
    Sink = SinkDescription

    def __post_init__(self) -> None:
        # Kafka keeps both in TreeSets ordered by id.
        object.__setattr__(self, "subtopologies", tuple(sorted(self.subtopologies, key=_id)))
        object.__setattr__(self, "global_stores", tuple(sorted(self.global_stores, key=_id)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TopologyDescription):
            return NotImplemented
        return frozenset(self.subtopologies) == frozenset(other.subtopologies) and frozenset(
            self.global_stores
        ) == frozenset(other.global_stores)

    def __hash__(self) -> int:
        return hash((frozenset(self.subtopologies), frozenset(self.global_stores)))

    def __str__(self) -> str:
        # Kafka walks ids 0, 1, 2, ...: a sub-topology when it has the expected id, otherwise
        # the next global store; whatever is left of either follows.
        parts = ["Topologies:\n "]
        subs, stores = list(self.subtopologies), list(self.global_stores)
        expected = 0
        while subs and stores:
            parts.append("  " + str(subs.pop(0) if subs[0].id == expected else stores.pop(0)))
            expected += 1
        parts.extend("  " + str(item) for item in [*subs, *stores])
        return "".join(parts)

    def __repr__(self) -> str:
        subs = ", ".join(f"{s.id} ({len(s.nodes)} nodes)" for s in self.subtopologies) or "none"
        stores = ", ".join(f"{g.id} {_java_list(g.processor.stores)}" for g in self.global_stores)
        return f"<TopologyDescription: sub-topologies {subs}; global stores {stores or 'none'}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Show Kafka's text when a notebook displays the description."""
        printer.text(str(self))


def extractor_label(extractor: Callable[..., Any]) -> str:
    """Text kslab prints for a dynamic sink's extractor (Java prints its ``toString()``)."""
    if isinstance(extractor, functools.partial):
        return extractor_label(extractor.func)
    if inspect.isroutine(extractor) or isinstance(extractor, type):
        return _qualified(extractor)
    cls = type(extractor)
    if cls.__str__ is not object.__str__ or cls.__repr__ is not object.__repr__:
        return str(extractor)
    return _qualified(cls)


# -- building them -----------------------------------------------------------------------------


def _describe_subtopology(topology: Topology, group: Subtopology) -> SubtopologyDescription:
    nodes = topology.nodes
    size = dict.fromkeys(group.nodes, 1)

    def compare(a: str, b: str) -> int:
        # Kafka's NODE_COMPARATOR: larger size first, then name; sizes keep growing while the
        # neighbour sets fill, which is why those sets are replayed insert by insert.
        if a == b:
            return 0
        if size[a] != size[b]:
            return size[b] - size[a]
        return -1 if utf16_key(a) < utf16_key(b) else 1

    preds: dict[str, TreeSetOrder[str]] = {n: TreeSetOrder(compare) for n in group.nodes}
    succs: dict[str, TreeSetOrder[str]] = {n: TreeSetOrder(compare) for n in group.nodes}
    # Kafka connects nodes walking a HashMap filled from the group's HashSet.
    for name in hash_set_order(hash_set_order(group.nodes)):
        for parent in nodes[name].parents:
            preds[name].add(parent)
            succs[parent].add(name)
            _grow(parent, size[name], size, preds)
    order = sorted(group.nodes, key=lambda n: (-size[n], utf16_key(n)))
    described = tuple(_node(nodes[n], tuple(preds[n]), tuple(succs[n])) for n in order)
    return SubtopologyDescription(group.id, described)


def _grow(name: str, delta: int, size: dict[str, int], preds: dict[str, TreeSetOrder[str]]) -> None:
    """Add ``delta`` to the size of ``name`` and of every node upstream of it, path by path."""
    stack = [name]
    while stack:
        current = stack.pop()
        size[current] += delta
        stack.extend(preds[current])


def _node(node: Node, preds: tuple[str, ...], succs: tuple[str, ...]) -> NodeDescription:
    if isinstance(node, SourceNode):
        topics = None
        if node.topics:
            topics = tuple(hash_set_order(node.topics, copy_capacity(len(node.topics))))
        return SourceDescription(node.name, preds, succs, topics, node.pattern)
    if isinstance(node, SinkNode):
        return SinkDescription(node.name, preds, succs, node.topic, node.topic_extractor)
    return ProcessorDescription(node.name, preds, succs, _store_order(node))


def _store_order(node: ProcessorNode) -> tuple[str, ...]:
    # The node keeps a HashSet of store names; describe() copies it into a new HashSet.
    names = hash_set_order(node.stores)
    return tuple(hash_set_order(names, copy_capacity(len(names))))


def _describe_global_store(topology: Topology, group: Subtopology) -> GlobalStoreDescription:
    source = next(
        node
        for name in group.nodes
        if isinstance(node := topology.nodes[name], SourceNode) and node.is_global
    )
    processor = topology.nodes[source.children[0]]
    assert isinstance(processor, ProcessorNode)
    store = _store_order(processor)[0]
    return GlobalStoreDescription(
        group.id,
        SourceDescription(source.name, (), (processor.name,), (source.topics[0],), None),
        ProcessorDescription(processor.name, (source.name,), (), (store,)),
    )


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "none"


def _java_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(items) + "]"


def _id(item: SubtopologyDescription | GlobalStoreDescription) -> int:
    return item.id


def _qualified(obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    return name if module in (None, "builtins") else f"{module}.{name}"
