"""Which Spark stage runs each sub-topology, in what order, and how many partitions each topic has.

``SparkPlan`` maps a topology onto stages: one per (non-global) sub-topology, ordered so that a
stage comes after every stage writing a topic it reads; topic partition counts come from the
core's ``TopicPlan`` (repartition topics take their writer's task count, as in Kafka). Global
stores are not stages: batch replay fills them in every task from their topics' frames before
the task processes anything (``global_topics``).
Invariant: a plan is only built for what the Spark engine runs exactly — anything else is refused
with a ``TopologyError`` that names the node and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kslab.core.topic_plan import TopicPlan
from kslab.errors import TopologyError
from kslab.topology._nodes import SinkNode, SourceNode
from kslab.topology._subtopologies import subtopologies
from kslab.topology.topology import Topology

__all__ = ["SparkPlan", "Stage", "streaming_unsupported", "unsupported"]

@dataclass(frozen=True)
class Stage:
    """One sub-topology as a Spark stage: its nodes, topics (real names) and task count."""

    id: int
    nodes: tuple[str, ...]
    source_topics: tuple[str, ...]
    sink_topics: tuple[str, ...]
    stores: tuple[str, ...]
    tasks: int


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
        plan.stages = _ordered(stages)
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


def _ordered(stages: list[Stage]) -> list[Stage]:
    """Stages so that each follows the stages writing its inputs; a cycle is refused."""
    done: list[Stage] = []
    pending = list(stages)
    while pending:
        ready = [s for s in pending
                 if not any(t in s.source_topics for p in pending if p is not s
                            for t in p.sink_topics)]
        for stage in pending:
            if set(stage.sink_topics) & set(stage.source_topics):
                msg = (f"sub-topology {stage.id} reads a topic it writes "
                       f"({sorted(set(stage.sink_topics) & set(stage.source_topics))[0]}); "
                       "a Spark batch plan cannot feed a stage its own output")
                raise TopologyError(msg)
        if not ready:
            ids = ", ".join(str(s.id) for s in pending)
            through = sorted({t for s in pending for t in s.sink_topics
                              if any(t in p.source_topics for p in pending if p is not s)})
            fk = any("SUBSCRIPTION-REGISTRATION" in t or "SUBSCRIPTION-RESPONSE" in t
                     for t in through)
            msg = (f"sub-topologies {ids} feed each other in a cycle through topics "
                   f"{', '.join(through)}"
                   f"{' (a foreign-key join: its subscription and response topics)' if fk else ''}"
                   "; Spark runs sub-topologies one after another and cannot run a cycle "
                   "yet; run this topology in the test driver or on ks.KafkaStreams")
            raise TopologyError(msg)
        done.extend(ready)
        pending = [s for s in pending if s not in ready]
    return done
