"""Which tasks a test driver runs, and which task reads each topic partition.

With every topic at one partition the whole topology is one task, 0_0, exactly as Kafka's
driver runs it; with ``partitions=`` each sub-topology runs one task per partition, as the live
runtime does, internal topics take the partition count of the sub-topology that writes them and
changelogs one partition per task. Invariant: each (topic, partition) is read by one task.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from kslab.core.global_task import GLOBAL_TASK, global_nodes
from kslab.core.task import StreamTask
from kslab.core.topic_plan import TopicPlan
from kslab.errors import InvalidArgumentError, KslabError, TopologyError
from kslab.processor.partitioner import default_partition
from kslab.records import TaskId
from kslab.topology._nodes import SourceNode
from kslab.topology.topology import Topology

__all__ = ["TaskLayout"]

MakeTask = Callable[[TaskId, list[str], list[tuple[str, int]]], StreamTask]


class TaskLayout:
    """The driver's tasks, their input partitions and the partition counts of topics."""

    def __init__(self, topology: Topology, application_id: str,
                 partitions: Mapping[str, int] | None, make_task: MakeTask) -> None:
        self.topology = topology
        self.application_id = application_id
        self.configured = dict(partitions or {})
        self.partitions = dict(self.configured)
        self.java_mode = all(n == 1 for n in self.partitions.values())
        self.round_robin: dict[str, int] = defaultdict(int)
        self.tasks: dict[TaskId, StreamTask] = {}
        self.task_for: dict[tuple[str, int], StreamTask] = {}
        self.global_task: StreamTask | None = None
        self.global_topics: dict[str, str] = {}
        self.pattern_sources: list[SourceNode] = []
        self._make_task = make_task

    # -- building -------------------------------------------------------------------------------

    def build(self) -> None:
        """Create the global task and the stream tasks (not initialized yet)."""
        topo = self.topology
        for spec in topo.global_stores.values():
            self.global_topics[spec.topic] = spec.source_name
        global_names = global_nodes(topo)
        if global_names:
            inputs = [(t, 0) for t in self.global_topics]
            self.global_task = self._make_task(GLOBAL_TASK, global_names, inputs)
        stream_nodes = [n for n, node in topo.nodes.items()
                        if n not in global_names and not node.is_global]
        if not stream_nodes:
            return
        if self.java_mode:
            self._build_single_task(stream_nodes)
        else:
            self._build_partitioned_tasks()

    def _build_single_task(self, stream_nodes: list[str]) -> None:
        topo = self.topology
        inputs = []
        for name in stream_nodes:
            node = topo.nodes[name]
            if isinstance(node, SourceNode):
                if node.pattern is not None:
                    self.pattern_sources.append(node)
                inputs.extend((topo.resolve_topic(t, self.application_id), 0)
                              for t in node.topics)
        task = self._make_task(TaskId(0, 0), stream_nodes, inputs)
        for tp in inputs:
            self.task_for[tp] = task
        self.tasks[task.id] = task

    def _build_partitioned_tasks(self) -> None:
        topo = self.topology
        for node in topo.nodes.values():
            if isinstance(node, SourceNode) and node.pattern is not None and not node.is_global:
                msg = (
                    f"source '{node.name}' reads a pattern; patterns need partitions=None "
                    "(one task) in the test driver"
                )
                raise KslabError(msg)
        # every user topic the topology reads "exists" with its configured count (default 1);
        # internal topics and changelogs get Kafka's counts from the shared plan
        existing = {
            topo.resolve_topic(t, self.application_id): self.partition_count(t)
            for node in topo.nodes.values() if isinstance(node, SourceNode)
            for t in node.topics if t not in topo.internal_topics
        }
        existing.update(self.configured)
        plan = TopicPlan.build(topo, self.application_id, existing)
        for topic, count in plan.partitions.items():
            self.partitions.setdefault(topic, count)
        for group in plan.groups:
            topics = [plan.real(t) for t in group.source_topics]
            for partition in range(plan.task_counts[group.id]):
                inputs = [(t, partition) for t in topics if partition < self.partition_count(t)]
                task = self._make_task(TaskId(group.id, partition), list(group.nodes), inputs)
                self.tasks[task.id] = task
                for tp in inputs:
                    self.task_for[tp] = task

    # -- topics and routing ---------------------------------------------------------------------

    def read_topics(self) -> list[str]:
        """Every topic some task or the global task reads, sorted."""
        return sorted({*(t for t, _ in self.task_for), *self.global_topics})

    def partition_count(self, topic: str) -> int:
        """How many partitions ``topic`` has (1 unless configured or derived)."""
        return self.partitions.get(topic, 1)

    def default_partition(self, topic: str, key: bytes | None, count: int) -> int:
        """Kafka's default partitioner: murmur2 of the key; round robin for ``None`` keys."""
        if count == 1:
            return 0
        if key is None:
            n = self.round_robin[topic]
            self.round_robin[topic] = n + 1
            return n % count
        return default_partition(key, count)

    def source_node(self, topic: str) -> SourceNode | None:
        """The source reading ``topic`` (by name, internal name or pattern)."""
        topo = self.topology
        for node in topo.nodes.values():
            if isinstance(node, SourceNode) and (
                node.matches(topic)
                or any(topo.resolve_topic(t, self.application_id) == topic for t in node.topics)
            ):
                return node
        return None

    def route(self, topic: str, key: bytes | None,
              partition: int | None) -> tuple[StreamTask, int, bool]:
        """The task and partition for an input record, and whether a new pattern topic joined."""
        if topic in self.global_topics:
            assert self.global_task is not None
            return self.global_task, 0, False
        count = self.partition_count(topic)
        if partition is None:
            partition = self.default_partition(topic, key, count)
        elif not 0 <= partition < count:
            msg = f"partition {partition} of topic '{topic}' does not exist (it has {count})"
            raise KslabError(msg)
        task = self.task_for.get((topic, partition))
        if task is not None:
            return task, partition, False
        return self._pattern_task(topic, partition), partition, True

    def _pattern_task(self, topic: str, partition: int) -> StreamTask:
        for source in self.pattern_sources:
            if source.matches(topic):
                task = self.tasks[TaskId(0, 0)]
                task.add_input_partition(topic, partition)
                self.task_for[(topic, partition)] = task
                return task
        self._check_regex_like_topics(topic)
        msg = (
            f"Unknown topic: {topic}; the topology reads "
            f"{self.read_topics()}: pipe into one of those, or add a source for it"
        )
        raise InvalidArgumentError(msg)

    def _check_regex_like_topics(self, topic: str) -> None:
        """Kafka's driver refuses a record whose topic a source's *string* topic matches as a
        regular expression: the source was probably meant to take a ``re.Pattern``."""
        for node in self.topology.nodes.values():
            if not isinstance(node, SourceNode) or node.pattern is not None:
                continue
            for name in node.topics:
                try:
                    matched = name != topic and re.fullmatch(name, topic) is not None
                except re.error:
                    matched = False
                if matched:
                    msg = (
                        f"Invalid topology: Topology add source of type String for topic: {name} "
                        f"cannot contain regex pattern for input record topic: {topic} and "
                        "hence cannot process the message."
                    )
                    error = TopologyError(msg)  # Kafka's words exactly; the fix as a note
                    error.add_note(f"Pass re.compile({name!r}) to add_source('{node.name}', ...) "
                                   "to read every topic it matches.")
                    raise error

    def partitions_as_given(self) -> dict[str, Any]:
        """The ``partitions=`` the driver was made with."""
        return dict(self.configured)
