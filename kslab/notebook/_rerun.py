"""A promoted app that runs the same twice: ``%kslab promote`` on a lab broker starts clean.

A notebook run again ("Restart kernel and run all") on the lab's long-lived broker would meet
what its first run left: the application's committed offsets and changelogs, and the records
its cells produced into the input topics. Kafka Streams would restore the counts and add the
new lines to them, so the second run shows other numbers than the first and the third waits
on a rebalance with the ghost of the first. So on a broker that belongs to the lab (the one
this kernel started, or ``make lab``'s, which it names in ``KSLAB_LAB_BROKER``) a promote
whose application id has run there before first does what ``kafka-streams-application-reset``
does and a little more: deletes the app's internal topics and its group's offsets, and
empties the topology's own topics (its sources and sinks, deleted and made again with their
partition counts). A first promote keeps everything, so input a notebook produced before its
first promote is read. On any other broker nothing is deleted unless ``--reset`` asks for it:
production topics are never touched by a notebook by accident.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kslab.runtime.reset import internal_topics_of

__all__ = ["LAB_BROKER_ENV", "RunReset", "is_lab_broker", "reset_previous_run", "topology_topics"]

# what `make lab` sets beside KSLAB_BOOTSTRAP_SERVERS: the address of the lab's own broker
LAB_BROKER_ENV = "KSLAB_LAB_BROKER"
TIMEOUT_S = 10


@dataclass
class RunReset:
    """What a reset found and did, for the line the magic prints."""

    ran_before: bool = False
    deleted_internal: list[str] = field(default_factory=list)
    emptied: list[str] = field(default_factory=list)

    def summary(self, application_id: str) -> str:
        """One line for the notebook, or ``""`` when nothing was there to clear."""
        if not self.ran_before:
            return ""
        parts = []
        if self.emptied:
            parts.append(f"emptied {', '.join(self.emptied)}")
        if self.deleted_internal:
            parts.append(f"deleted {len(self.deleted_internal)} internal topic(s)")
        parts.append("reset its offsets")
        return (f"kslab: {application_id} ran on this broker before: {'; '.join(parts)}, so "
                "this run starts as the first did (--keep keeps them)")


def is_lab_broker(servers: str, kernel_broker: str | None) -> bool:
    """Whether ``servers`` is a broker the lab owns: this kernel's, or ``make lab``'s."""
    return servers in (kernel_broker, os.environ.get(LAB_BROKER_ENV))


def topology_topics(topology: Any) -> list[str]:
    """The user topics ``topology`` reads and writes by name (not internal, not patterns)."""
    internal = set(topology.internal_topics)
    named = [t for t in topology.source_topics() if isinstance(t, str)]
    for sub in topology.describe().subtopologies:
        named += [n.topic for n in sub.nodes if getattr(n, "topic", None)]
    return sorted({t for t in named if t not in internal})


def reset_previous_run(servers: str, application_id: str, topics: Iterable[str]) -> RunReset:
    """Clear what an earlier run of ``application_id`` left on ``servers`` (see the module
    docstring); nothing when the group has no committed offset and no internal topic."""
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": servers})
    metadata = admin.list_topics(timeout=TIMEOUT_S).topics
    internal = internal_topics_of(application_id, metadata)
    own = [t for t in topics if t in metadata]
    group = Consumer({"bootstrap.servers": servers, "group.id": application_id,
                      "enable.auto.commit": False})
    try:
        partitions = [TopicPartition(t, p) for t in own for p in metadata[t].partitions]
        committed = group.committed(partitions, timeout=TIMEOUT_S) if partitions else []
        result = RunReset(ran_before=bool(internal) or any(tp.offset >= 0 for tp in committed))
        if not result.ran_before:
            return result
        counts = {t: len(metadata[t].partitions) for t in own}
        _wait(admin.delete_topics([*internal, *own], operation_timeout=TIMEOUT_S))
        if own:
            _create_again(admin, [NewTopic(t, counts[t], 1) for t in own])
            # the group's offsets point past the new, empty partitions: start them at 0
            group.commit(offsets=[TopicPartition(t, p, 0) for t in own
                                  for p in range(counts[t])], asynchronous=False)
        result.deleted_internal, result.emptied = internal, own
        return result
    finally:
        group.close()


def _wait(futures: dict[str, Any]) -> None:
    for future in futures.values():
        future.result(TIMEOUT_S)


def _create_again(admin: Any, topics: list[Any]) -> None:
    """Create ``topics`` just deleted: Kafka deletes in the background, so a name may still
    be taken for a moment (TOPIC_ALREADY_EXISTS); try again until ``TIMEOUT_S``."""
    from confluent_kafka import KafkaError, KafkaException

    deadline = time.monotonic() + TIMEOUT_S
    while topics:
        futures = admin.create_topics(topics)
        waiting = []
        for topic in topics:
            try:
                futures[topic.topic].result(TIMEOUT_S)
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS or \
                        time.monotonic() > deadline:
                    raise
                waiting.append(topic)
        topics = waiting
        if topics:
            time.sleep(0.2)
