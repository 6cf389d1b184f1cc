"""The nodes of a topology graph as data: sources, processors, sinks and global stores.

These are plain records of what the user wired; they hold suppliers and serdes but never a
running processor. Parents and children are kept by name, in the order they were added, because
Kafka Streams' describe() output and its forwarding order both follow that order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GlobalStoreSpec", "Node", "ProcessorNode", "SinkNode", "SourceNode"]


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
