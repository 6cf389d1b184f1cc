"""Which topics an application reads and writes, with their partition counts and task ids.

Shared by every engine (the live runtime, Spark, and the test driver with ``partitions=``), so
Kafka's rules for internal topics are written once.

``TopicPlan`` maps a topology onto real topics: source topics (which must exist), repartition
topics (partition count of the sub-topology writing them, unless fixed), changelogs (one
partition per task, compacted) and the task ids of every sub-topology. Invariant: a repartition
topic or changelog is created explicitly with its partition count and configs before any client
touches it, because some brokers (Tansu) auto-create undeclared topics with a default count.
Window and session changelogs keep ``retention.ms = store retention +
windowstore.changelog.additional.retention.ms`` (1 day by default), unless the store's log
config sets ``retention.ms``, as Java's ``WindowedChangelogTopicConfig``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kslab.errors import StreamsError, TopologyError
from kslab.records import TaskId
from kslab.topology._nodes import SourceNode
from kslab.topology._subtopologies import Subtopology, subtopologies
from kslab.topology.topology import Topology

__all__ = ["TopicPlan"]

_WINDOWED_KINDS = ("window", "timestamped_window", "session")
ADDITIONAL_RETENTION_CONFIG = "windowstore.changelog.additional.retention.ms"
_DAY_MS = 24 * 60 * 60 * 1000
# Java's InternalTopicConfig defaults: every internal topic, then repartition topics on top;
# the app's ``topic.*`` settings go over these, a store's own log config over those
_INTERNAL_DEFAULTS = {"message.timestamp.type": "CreateTime"}
_REPARTITION_DEFAULTS = {**_INTERNAL_DEFAULTS, "cleanup.policy": "delete",
                         "segment.bytes": "52428800", "retention.ms": "-1"}


@dataclass
class TopicPlan:
    """The real topics of one application and the tasks they define."""

    topology: Topology
    application_id: str
    groups: list[Subtopology] = field(default_factory=list)
    partitions: dict[str, int] = field(default_factory=dict)
    internal: dict[str, dict[str, str]] = field(default_factory=dict)  # topic -> configs
    group_of_topic: dict[str, int] = field(default_factory=dict)
    task_counts: dict[int, int] = field(default_factory=dict)
    global_topics: list[str] = field(default_factory=list)
    patterns: list[tuple[int, re.Pattern[str]]] = field(default_factory=list)
    additional_retention_ms: int = _DAY_MS
    topic_defaults: dict[str, str] = field(default_factory=dict)  # the config's "topic.*"

    @classmethod
    def build(cls, topology: Topology, application_id: str, existing: dict[str, int],
              config: Any = None) -> TopicPlan:
        """Resolve partition counts against ``existing`` (topic -> partitions on the broker);
        ``config`` (a ``StreamsConfig`` or dict) gives the window changelogs' extra retention
        and the ``topic.*`` settings every internal topic gets."""
        plan = cls(topology, application_id)
        extra = None if config is None else config.get(ADDITIONAL_RETENTION_CONFIG)
        if extra is not None:
            plan.additional_retention_ms = int(extra)
        given = config.as_dict() if hasattr(config, "as_dict") else dict(config or {})
        plan.topic_defaults = {k[len("topic."):]: str(v) for k, v in given.items()
                               if k.startswith("topic.")}
        plan._resolve(existing)
        return plan

    @staticmethod
    def _match_once(topic: str, pattern: re.Pattern[str],
                    matched: dict[str, re.Pattern[str]]) -> None:
        """A topic feeds one pattern source only (Java's ``TopologyException`` from
        ``InternalTopologyBuilder``): two overlapping patterns would read each record twice."""
        other = matched.setdefault(topic, pattern)
        if other.pattern != pattern.pattern:
            msg = (f"Topic {topic} is already matched for another regex pattern {other.pattern} "
                   f"and hence cannot be matched to this regex pattern {pattern.pattern} any "
                   "more; make the source patterns disjoint")
            raise TopologyError(msg)

    def real(self, topic: str) -> str:
        """``topic`` with the ``<application.id>-`` prefix when it is internal."""
        return self.topology.resolve_topic(topic, self.application_id)

    def _resolve(self, existing: dict[str, int]) -> None:
        topo = self.topology
        self.groups = [g for g in subtopologies(topo) if not g.is_global]
        for spec in topo.global_stores.values():
            self._require(spec.topic, existing)
            self.global_topics.append(spec.topic)
        internal = {self.real(t): info for t, info in topo.internal_topics.items()}
        matched: dict[str, re.Pattern[str]] = {}  # topic -> the pattern source reading it
        for topic, info in internal.items():
            if info.partitions is not None:
                self.partitions[topic] = info.partitions
        for group in self.groups:
            for topic in group.source_topics:
                real = self.real(topic)
                self.group_of_topic[real] = group.id
                if real not in internal:
                    self.partitions[real] = self._require(real, existing)
            for pattern in group.source_patterns:
                self.patterns.append((group.id, pattern))
                for topic, count in existing.items():
                    if pattern.fullmatch(topic):
                        self._match_once(topic, pattern, matched)
                        self.group_of_topic[topic] = group.id
                        self.partitions[topic] = count
        # as Java's RepartitionTopics: repartition topics first take their writers' counts (to
        # a fixed point), then co-partitioning decides the joined ones (ensureCopartitioning),
        # and each sub-topology runs one task per partition of its widest source topic
        for _ in range(len(self.groups) + 1):
            for group in self.groups:
                self.task_counts[group.id] = self._widest_source(group)
                for topic in group.sink_topics:
                    real = self.real(topic)
                    if real in internal and internal[real].partitions is None:
                        self.partitions[real] = self.task_counts[group.id]
        self._copartition(internal)
        for group in self.groups:
            self.task_counts[group.id] = self._widest_source(group)
        for topic in internal:
            self.partitions.setdefault(topic, 1)
            self.internal[topic] = {**_REPARTITION_DEFAULTS, **self.topic_defaults}
        for group in self.groups:
            for store in group.stores:
                changelog = topo.changelog_topic_for(store, self.application_id)
                if changelog is None or changelog in self.group_of_topic:
                    continue  # unlogged, or a read-only store reusing its source topic
                self.partitions[changelog] = self.task_counts[group.id]
                self.internal[changelog] = self._changelog_config(store)

    def _require(self, topic: str, existing: dict[str, int]) -> int:
        count = existing.get(topic)
        if count is None:
            msg = (
                f"source topic '{topic}' does not exist on the broker; create it (with the "
                "partition count you want) before starting the application"
            )
            raise StreamsError(msg, topic=topic)
        return count

    def _widest_source(self, group: Subtopology) -> int:
        """The partition count of ``group``'s widest source topic (its task count)."""
        counts = [self.partitions[self.real(t)] for t in group.source_topics
                  if self.real(t) in self.partitions]
        counts += [n for t, n in self.partitions.items() if self.group_of_topic.get(t) == group.id]
        return max(counts or [1])

    def _copartition(self, internal: dict[str, Any]) -> None:
        """Java's ``CopartitionedTopicsEnforcer``: the repartition topics of a co-partitioned
        group take the count of its user topics (which must agree, and must agree with any
        repartition topic given a count); a group of repartition topics only takes the count
        given to some of them (the same for all), else the largest of their counts. The errors
        are Java's messages with the fix added."""
        topo = self.topology
        for group in topo.copartitioned_sources():
            topics = []
            for name in group:
                node = topo.nodes.get(name)
                if isinstance(node, SourceNode):
                    topics.extend(self.real(t) for t in node.topics)
            external = {t: self.partitions[t] for t in topics
                        if t in self.partitions and t not in internal}
            pinned = {t: self.partitions[t] for t in topics
                      if t in internal and internal[t].partitions is not None}
            unfixed = [t for t in topics if t in internal and internal[t].partitions is None]
            if external:
                count = self._same_count(external, "Topics not co-partitioned",
                                         "repartition one side or recreate the topic")
                for t, n in sorted(pinned.items()):
                    if n != count:
                        msg = (
                            f"Number of partitions [{n}] of repartition topic [{t}] doesn't "
                            f"match number of partitions [{count}] of the source topic; give "
                            f"the Repartitioned {count} partitions (or none) to join it"
                        )
                        raise TopologyError(msg)
            elif pinned:
                count = self._same_count(
                    pinned, "Following topics do not have the same number of partitions",
                    "give the joined Repartitioned the same number of partitions")
            elif unfixed:
                count = max(self.partitions.get(t, 1) for t in unfixed)
            else:
                continue
            for t in unfixed:
                self.partitions[t] = count

    @staticmethod
    def _same_count(counts: dict[str, int], problem: str, fix: str) -> int:
        """The one partition count of ``counts``, or a ``TopologyError`` listing them."""
        if len(set(counts.values())) > 1:
            listed = ", ".join(f"{t}={n}" for t, n in sorted(counts.items()))
            msg = (f"{problem}: [{listed}]; joined topics need the same number of partitions: "
                   f"{fix}")
            raise TopologyError(msg)
        return next(iter(counts.values()))

    def _changelog_config(self, store: str) -> dict[str, str]:
        builder = self.topology.state_stores[store]
        kind = getattr(builder.build(), "store_kind", "")  # built, never opened: no files
        config = {**_INTERNAL_DEFAULTS,
                  "cleanup.policy": "compact,delete" if kind in _WINDOWED_KINDS else "compact",
                  **self.topic_defaults}
        windowed = getattr(builder, "changelog_topic_config", None)
        if windowed is not None:
            config.update(windowed(self.additional_retention_ms))
        else:
            config.update(getattr(builder, "log_config", {}) or {})
        return config

    # -- tasks --------------------------------------------------------------------------------

    def source_topics(self) -> list[str]:
        """Every topic the stream threads subscribe to (repartition topics included)."""
        return sorted(self.group_of_topic)

    def match_new(self, existing: dict[str, int]) -> list[str]:
        """Add the topics of ``existing`` (topic -> partitions on the broker) that a pattern
        source matches and the plan does not read yet (a topic created after the start, found
        by a metadata refresh); the added topics, sorted. A topic two patterns match raises
        ``TopologyError``, as at the start."""
        added = []
        for topic, count in sorted(existing.items()):
            if topic in self.group_of_topic:
                continue
            hits = [(gid, pattern) for gid, pattern in self.patterns if pattern.fullmatch(topic)]
            matched: dict[str, re.Pattern[str]] = {}
            for _gid, pattern in hits:
                self._match_once(topic, pattern, matched)
            if hits:
                self.partitions[topic] = count
                self.group_of_topic[topic] = hits[0][0]
                added.append(topic)
        return added

    def task_of(self, topic: str, partition: int) -> TaskId:
        """The task reading ``partition`` of ``topic``."""
        group = self.group_of_topic.get(topic)
        if group is None:
            for gid, pattern in self.patterns:
                if pattern.fullmatch(topic):
                    self.group_of_topic[topic] = gid
                    return TaskId(gid, partition)
            msg = f"topic '{topic}' is read by no sub-topology of this application"
            raise StreamsError(msg, topic=topic)
        return TaskId(group, partition)

    def group(self, gid: int) -> Subtopology:
        """The sub-topology with id ``gid``."""
        return next(g for g in self.groups if g.id == gid)

    def changelogs_of(self, gid: int) -> dict[str, str]:
        """Store name -> changelog topic for the logged stores of sub-topology ``gid``."""
        out = {}
        for store in self.group(gid).stores:
            topic = self.topology.changelog_topic_for(store, self.application_id)
            if topic is not None:
                out[store] = topic
        return out
