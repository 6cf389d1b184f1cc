"""Which Spark stage runs each sub-topology, in what order, and how many partitions each topic has.

``SparkPlan`` maps a topology onto stages: one per (non-global) sub-topology, ordered so that a
stage comes after every stage writing a topic it reads; topic partition counts come from the
core's ``TopicPlan`` (repartition topics take their writer's task count, as in Kafka). Global
stores are not stages: batch replay fills them in every task from their topics' frames before
the task processes anything (``global_topics``).
Sub-topologies that feed each other in a cycle (a foreign-key join's subscription and response
topics) become one stage holding them all (``Stage.members``), which batch replay runs in one
Spark task and streaming in one state group, as the test driver runs them
(``kslab.spark._cycle``).
Invariant: a plan is only built for what the Spark engine runs exactly — anything else is refused
with a ``TopologyError`` that names the node and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kslab.core.topic_plan import TopicPlan
from kslab.errors import TopologyError
from kslab.topology._nodes import SinkNode, SourceNode
from kslab.topology._subtopologies import subtopologies
from kslab.topology.topology import Topology

__all__ = ["SparkPlan", "Stage", "cycles", "loop_topics", "streaming_unsupported", "unsupported"]

@dataclass(frozen=True)
class Stage:
    """One sub-topology as a Spark stage: its nodes, topics (real names) and task count."""

    id: int
    nodes: tuple[str, ...]
    source_topics: tuple[str, ...]
    sink_topics: tuple[str, ...]
    stores: tuple[str, ...]
    tasks: int
    # a cycle of sub-topologies feeding each other, run as one stage in one Spark task (then
    # ``tasks`` is 1, ``id`` its first member's): its members, in id order; () for one
    members: tuple[Stage, ...] = ()


@dataclass
class SparkPlan:
    """The stages of a topology in run order and the partition count of every topic."""

    topology: Topology
    application_id: str
    stages: list[Stage] = field(default_factory=list)
    partitions: dict[str, int] = field(default_factory=dict)
    external: set[str] = field(default_factory=set)  # topics the caller supplies
    global_topics: tuple[str, ...] = ()  # the topics global stores are filled from

    @classmethod
    def build(cls, topology: Topology, application_id: str,
              given: Mapping[str, int]) -> SparkPlan:
        """Plan ``topology``; ``given`` holds the partition count of every supplied topic."""
        problems = unsupported(topology)
        if problems:
            node, why = problems[0]
            msg = f"node '{node}' cannot run on Spark: {why}"
            raise TopologyError(msg)
        plan = cls(topology, application_id)
        groups = [g for g in subtopologies(topology) if not g.is_global]
        written = {plan.real(t) for g in groups for t in g.sink_topics}
        existing = dict(given)
        for group in groups:
            for topic in group.source_topics:
                real = plan.real(topic)
                if real in topology.internal_topics or topic in topology.internal_topics:
                    continue
                if real not in existing and real in written:
                    existing[real] = 1  # a user topic between sub-topologies: one partition
        topics = TopicPlan.build(topology, application_id, existing)
        plan.partitions = {**given, **topics.partitions}
        plan.external = {t for t in given if t not in written}
        stages = [
            Stage(g.id, g.nodes, tuple(plan.real(t) for t in g.source_topics),
                  tuple(plan.real(t) for t in g.sink_topics), g.stores,
                  topics.task_counts[g.id])
            for g in groups
        ]
        plan.stages = _ordered(_with_cycles(plan, stages))
        plan.global_topics = tuple(sorted({spec.topic for spec in
                                           topology.global_stores.values()}))
        for stage in plan.stages:
            fed = sorted(set(stage.sink_topics) & set(plan.global_topics))
            if fed:
                msg = (f"sub-topology {stage.id} writes topic '{fed[0]}', which a global store "
                       "reads; a Spark batch replay fills global stores from their topics' "
                       "frames before any sub-topology runs, so it cannot feed one; pass the "
                       "topic's records as a frame, or join against a KTable instead")
                raise TopologyError(msg)
        return plan

    def real(self, topic: str) -> str:
        """``topic`` with the ``<application.id>-`` prefix when it is internal."""
        return self.topology.resolve_topic(topic, self.application_id)

    def readers(self, topic: str) -> list[Stage]:
        """The stages reading ``topic``."""
        return [s for s in self.stages if topic in s.source_topics]

    def is_internal(self, topic: str) -> bool:
        """True for repartition topics (named ``<application.id>-...``)."""
        return any(self.real(t) == topic and t != topic
                   for t in self.topology.internal_topics)


def unsupported(topology: Topology) -> list[tuple[str, str]]:
    """``(node, reason)`` for every node the Spark engine cannot run, in node order."""
    out = []
    for name, node in topology.nodes.items():
        if isinstance(node, SourceNode) and node.pattern is not None:
            out.append((name, "it reads a topic pattern, and a Spark plan needs the topics "
                              "up front; list the topics instead"))
        elif isinstance(node, SinkNode) and node.topic is None:
            out.append((name, "it picks its topic per record (a TopicNameExtractor), and a "
                              "Spark plan needs its output topics up front; use fixed topics "
                              "(split the stream) instead"))
    return out


def streaming_unsupported(topology: Topology) -> list[tuple[str, str]]:
    """``(node, reason)`` for what streaming cannot run that batch replay can: processors whose
    stores Spark state cannot hold (custom kinds)."""
    from kslab.spark._state import spark_backed_kinds

    backed = spark_backed_kinds()
    out = []
    kinds: dict[str, str] = {}
    for name, node in topology.nodes.items():
        if node.is_global:  # global stores live outside Spark state (kslab.spark._global)
            continue
        for store in getattr(node, "stores", ()):
            if store not in kinds:
                builder = topology.state_stores.get(store)
                built = builder.build() if builder is not None else None  # never opened
                kinds[store] = getattr(built, "store_kind", "") if built is not None else ""
            if kinds[store] not in backed:
                out.append((name, f"its store '{store}' is a {kinds[store] or 'custom'} store, "
                                  "and streaming on Spark keeps only the core's store kinds "
                                  f"({', '.join(backed)}) in Spark state; replay it with "
                                  "run_batch, or run it on ks.KafkaStreams"))
                break
    return out


def cycles(groups: Sequence[Any]) -> list[list[Any]]:
    """The groups (stages or sub-topologies: ``id``, ``source_topics``, ``sink_topics``) that
    feed each other in a cycle, one list per cycle (a strongly connected component of the
    graph "writes a topic the other reads", a group reading its own output included), each in
    id order; cycles in order of their first id."""
    feeds = {g.id: [r.id for r in groups if set(g.sink_topics) & set(r.source_topics)]
             for g in groups}
    by_id = {g.id: g for g in groups}
    found: list[list[Any]] = []
    for members in _components(feeds):
        if len(members) > 1 or members[0] in feeds[members[0]]:
            found.append([by_id[i] for i in sorted(members)])
    return sorted(found, key=lambda c: c[0].id)


def loop_topics(members: Sequence[Any]) -> list[str]:
    """The topics the ``members`` of one cycle write and read among themselves, sorted."""
    written = {t for m in members for t in m.sink_topics}
    return sorted(written & {t for m in members for t in m.source_topics})


def _components(feeds: dict[int, list[int]]) -> list[list[int]]:
    """Tarjan's strongly connected components of the graph ``feeds`` (id -> ids it feeds)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    out: list[list[int]] = []

    def visit(node: int) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in feeds[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            out.append(component)

    for node in feeds:
        if node not in index:
            visit(node)
    return out


def _with_cycles(plan: SparkPlan, stages: list[Stage]) -> list[Stage]:
    """``stages`` with each cycle's members replaced by one stage holding them (``members``):
    its inputs are the topics its members read from outside it (sorted by name: the order ties
    are broken in), its outputs what they write except internal topics only they read."""
    out = list(stages)
    for members in cycles(stages):
        loop = set(loop_topics(members))
        outside = {t for s in stages if s not in members for t in s.source_topics}
        written = dict.fromkeys(t for m in members for t in m.sink_topics)
        sinks = tuple(t for t in written
                      if t not in loop or t in outside or not plan.is_internal(t))
        sources = tuple(sorted({t for m in members for t in m.source_topics} - loop))
        cycle = Stage(members[0].id, tuple(n for m in members for n in m.nodes), sources,
                      sinks, tuple(s for m in members for s in m.stores), 1, tuple(members))
        at = out.index(members[0])
        out = [s for s in out if s not in members]
        out.insert(at, cycle)
    return out


def _ordered(stages: list[Stage]) -> list[Stage]:
    """Stages so that each follows the stages writing its inputs (no cycle is left: each one
    is a stage of its own, ``_with_cycles``)."""
    done: list[Stage] = []
    pending = list(stages)
    while pending:
        ready = [s for s in pending
                 if not any(t in s.source_topics for p in pending if p is not s
                            for t in p.sink_topics)]
        assert ready, "a cycle left among the stages"
        done.extend(ready)
        pending = [s for s in pending if s not in ready]
    return done
