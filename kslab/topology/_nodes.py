"""The nodes of a topology graph as data: sources, processors, sinks and global stores.

These are plain records of what the user wired; they hold suppliers and serdes but never a
running processor. Parents and children are kept by name, in the order they were added, because
Kafka Streams' describe() output and its forwarding order both follow that order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any

from kslab.errors import InvalidArgumentError, TopologyError

__all__ = ["GlobalStoreSpec", "Node", "ProcessorNode", "SinkNode", "SourceNode",
           "SupplierReuseError", "check_supplier"]


class SupplierReuseError(TopologyError, InvalidArgumentError):
    """A processor supplier that returned the same object twice (Java's
    ``IllegalArgumentException`` from ``ApiUtils.checkSupplier``)."""


def check_supplier(supplier: Callable[[], Any], where: str) -> None:
    """Refuse a supplier whose two calls return one object, as Java's ``ApiUtils.checkSupplier``
    does when the processor is added: every task (and every restart) needs its own processor,
    and one shared instance would mix their state. ``where`` names the node or the call.

    Only plain functions (``def`` and ``lambda``, the usual way to return a shared instance) are
    called for the check. A class makes a new object on every call, and a callable object may
    count or record what it makes (as Kafka's ``MockApiProcessorSupplier``, which hides the
    check's calls with a stack inspection): calling it twice more here would show up there.
    A function returning ``None`` is a placeholder for wiring that never runs (a ``describe()``
    sketch); it is left to fail where a task first asks it for a processor."""
    if not isinstance(supplier, FunctionType):
        return
    first = supplier()
    if first is not None and first is supplier():
        supplier_name = supplier.__qualname__
        msg = (f"{where}: {supplier_name} generates single reference. {supplier_name}#get() must "
               "return a new object each time it is called; pass the Processor class or a "
               "function that constructs a new one on every call")
        raise SupplierReuseError(msg)


@dataclass(eq=False)
class SourceNode:
    """Reads one or more topics (or every topic matching ``pattern``) into the topology."""

    name: str
    topics: list[str]
    pattern: re.Pattern[str] | None = None
    key_serde: Any = None
    value_serde: Any = None
    timestamp_extractor: Callable[..., int] | None = None
    offset_reset: str | None = None
    children: list[str] = field(default_factory=list)
    is_global: bool = False

    parents: tuple[str, ...] = ()

    def matches(self, topic: str) -> bool:
        """True when this source reads ``topic``."""
        if self.pattern is not None:
            return self.pattern.fullmatch(topic) is not None
        return topic in self.topics


@dataclass(eq=False)
class ProcessorNode:
    """Runs user code: a fresh processor from ``supplier`` per task."""

    name: str
    supplier: Callable[[], Any]
    parents: tuple[str, ...]
    children: list[str] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    fixed_key: bool = False
    is_global: bool = False


@dataclass(eq=False)
class SinkNode:
    """Writes what reaches it to a topic, or to the topic a ``topic_extractor`` names."""

    name: str
    topic: str | None
    parents: tuple[str, ...]
    topic_extractor: Callable[..., str] | None = None
    key_serde: Any = None
    value_serde: Any = None
    partitioner: Callable[..., int | None] | None = None
    children: list[str] = field(default_factory=list)

    is_global: bool = False


Node = SourceNode | ProcessorNode | SinkNode


@dataclass(eq=False)
class GlobalStoreSpec:
    """A store that every instance fills from all partitions of ``topic``, through a processor."""

    store_builder: Any
    source_name: str
    topic: str
    processor_name: str
    read_only: bool = False
