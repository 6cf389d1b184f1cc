"""Reset an application, as Kafka's ``kafka-streams-application-reset`` tool does.

A reset sets the application's committed offsets on its input topics (to the earliest offset by
default, the latest, a point in time, or a duration back), deletes its internal topics
(repartition and changelog topics, the foreign-key join's subscription topics, kslab's control
topic) and, given the state directory, removes the local state as ``KafkaStreams.cleanup()``
does; the next run then reprocesses the input from there with empty stores. It refuses while
the group has active members: their commits would undo the reset. Invariant: nothing is changed
before that check passed, and a dry run changes nothing at all.

Whether a group is active is asked in two ways, because brokers answer differently: Kafka's
``DescribeGroups`` lists the members; Tansu's answers ``STABLE`` with no members, but refuses an
offset commit from outside the group (``UNKNOWN_MEMBER_ID``) exactly while members are in it. So
the reset first describes the group, then commits the group's current offsets back unchanged
(a no-op for an empty group) and takes a refusal as "active". A reset to a time reads forward
from the broker's ``ListOffsets`` answer to the first record at or after it: exact on Kafka
(whose answer is that record) and on Tansu 0.6 (which answers the earliest offset whatever the
time is asked).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from kslab.errors import StreamsError
from kslab.runtime._state import clean_state_dir

__all__ = ["INTERNAL_SUFFIXES", "ResetResult", "internal_topics_of", "reset_application"]

# what ends the name of an application's internal topic (after "<application.id>-"): Kafka's
# repartition and changelog topics, the foreign-key join's subscription and response topics,
# and kslab's control topic
INTERNAL_SUFFIXES = ("-changelog", "-repartition", "-topic", "-kslab-control")
TIMEOUT_S = 10
_ACTIVE = ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "REBALANCE_IN_PROGRESS",
           "FENCED_INSTANCE_ID")


class ActiveGroupError(StreamsError):
    """The application's group has active members: a reset must wait until they stop."""


@dataclass
class ResetResult:
    """What a reset did (or, dry, would do)."""

    application_id: str
    offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    deleted_topics: list[str] = field(default_factory=list)
    removed_state: Path | None = None
    dry_run: bool = False

    def summary(self) -> str:
        """Lines a person reads: the offsets set, the topics deleted, the state removed."""
        verb = "would " if self.dry_run else ""
        lines = [f"{'dry run: ' if self.dry_run else ''}reset of {self.application_id}"]
        for (topic, partition), offset in sorted(self.offsets.items()):
            lines.append(f"  {verb}set {topic}-{partition} to offset {offset}")
        for topic in self.deleted_topics:
            lines.append(f"  {verb}delete internal topic {topic}")
        if self.removed_state is not None:
            lines.append(f"  {verb}remove local state {self.removed_state}")
        if len(lines) == 1:
            lines.append("  nothing to reset: no input topic given, no internal topic found")
        return "\n".join(lines)


def internal_topics_of(application_id: str, topics: Iterable[str]) -> list[str]:
    """The names among ``topics`` that are ``application_id``'s internal topics, sorted."""
    prefix = f"{application_id}-"
    return sorted(t for t in topics if t.startswith(prefix) and t.endswith(INTERNAL_SUFFIXES))


def reset_application(servers: str, application_id: str, input_topics: Sequence[str] = (), *,
                      to: str | datetime | float = "earliest", state_dir: str | Path | None = None,
                      dry_run: bool = False, client_config: dict[str, Any] | None = None
                      ) -> ResetResult:
    """Reset ``application_id`` on ``servers`` (see the module docstring).

    ``to`` is ``"earliest"``, ``"latest"``, a ``datetime`` (the first offset at or after it) or
    a number of seconds back from now (``--by-duration``). Raises ``ActiveGroupError`` while
    the group has members, ``StreamsError`` for an input topic the cluster lacks.
    """
    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient

    base = {"bootstrap.servers": servers, **(client_config or {})}
    admin = AdminClient(base)
    metadata = admin.list_topics(timeout=TIMEOUT_S).topics
    missing = [t for t in input_topics if t not in metadata]
    if missing:
        msg = (f"input topic(s) {', '.join(missing)} of {application_id} do not exist on "
               f"{servers}; check the names (topics there: {len(metadata)})")
        raise StreamsError(msg)
    consumer = Consumer({**base, "group.id": application_id, "enable.auto.commit": False})
    try:
        _refuse_if_active(admin, consumer, application_id, metadata)
        result = ResetResult(application_id, dry_run=dry_run)
        result.offsets = _target_offsets(consumer, metadata, input_topics, to)
        result.deleted_topics = internal_topics_of(application_id, metadata)
        state = Path(state_dir) / application_id if state_dir is not None else None
        result.removed_state = state if state is not None and state.exists() else None
        if dry_run:
            return result
        if result.offsets:
            from confluent_kafka import TopicPartition

            consumer.commit(offsets=[TopicPartition(t, p, o)
                                     for (t, p), o in sorted(result.offsets.items())],
                            asynchronous=False)
        if result.deleted_topics:
            futures = admin.delete_topics(result.deleted_topics, operation_timeout=TIMEOUT_S)
            for future in futures.values():
                future.result(TIMEOUT_S)
        if result.removed_state is not None:
            clean_state_dir(result.removed_state)
        return result
    finally:
        consumer.close()


def _refuse_if_active(admin: Any, consumer: Any, application_id: str,
                      metadata: dict[str, Any]) -> None:
    """Raise ``ActiveGroupError`` when the group has members (by either test)."""
    from confluent_kafka import KafkaException, TopicPartition

    described = admin.describe_consumer_groups([application_id])[application_id]
    try:
        members = len(described.result(TIMEOUT_S).members)
    except KafkaException:  # no such group, or a broker without DescribeGroups
        members = 0
    if members:
        _active(application_id, f"{members} member(s)")
    partitions = [TopicPartition(t, p) for t, meta in metadata.items()
                  for p in meta.partitions]
    committed = [tp for tp in consumer.committed(partitions, timeout=TIMEOUT_S) if tp.offset >= 0]
    if not committed:
        return
    try:  # the group's own offsets written back unchanged: refused while members are in it
        consumer.commit(offsets=committed, asynchronous=False)
    except KafkaException as exc:
        if exc.args[0].name() in _ACTIVE:
            _active(application_id, f"the broker refused an outside commit ({exc.args[0].name()})")
        raise


def _active(application_id: str, why: str) -> None:
    msg = (f"the consumer group {application_id} has active members ({why}): stop every "
           "instance of the application (close() or SIGTERM) and wait for the group to "
           "empty (session.timeout.ms), then reset again")
    raise ActiveGroupError(msg)


def _target_offsets(consumer: Any, metadata: dict[str, Any], topics: Sequence[str],
                    to: str | datetime | float) -> dict[tuple[str, int], int]:
    """The offset each partition of ``topics`` is reset to."""
    from confluent_kafka import TopicPartition

    partitions = [(t, p) for t in topics for p in sorted(metadata[t].partitions)]
    if to in ("earliest", "latest"):
        marks = {tp: consumer.get_watermark_offsets(TopicPartition(*tp), timeout=TIMEOUT_S)
                 for tp in partitions}
        return {tp: low if to == "earliest" else high for tp, (low, high) in marks.items()}
    if isinstance(to, datetime):
        at_ms = round(to.timestamp() * 1000)
    else:
        at_ms = round((time.time() - float(to)) * 1000)
    found = consumer.offsets_for_times([TopicPartition(t, p, at_ms) for t, p in partitions],
                                       timeout=TIMEOUT_S)
    return {(tp.topic, tp.partition): _first_at_or_after(consumer, tp, at_ms) for tp in found}


def _first_at_or_after(consumer: Any, found: Any, at_ms: int) -> int:
    """The first offset of ``found``'s partition whose record's timestamp is at least
    ``at_ms``, the end when none is, reading forward from the broker's answer: Kafka's answer
    is already that offset (one record read to confirm); Tansu 0.6 answers the earliest offset
    whatever the time, so the scan finds it."""
    from confluent_kafka import TopicPartition

    low, high = consumer.get_watermark_offsets(TopicPartition(found.topic, found.partition),
                                               timeout=TIMEOUT_S)
    start = found.offset if found.offset >= 0 else high
    if start >= high:
        return high
    consumer.assign([TopicPartition(found.topic, found.partition, max(start, low))])
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            for message in consumer.consume(500, 0.5):
                if message.error() is not None:
                    continue
                if message.timestamp()[1] >= at_ms:
                    return message.offset()
                if message.offset() + 1 >= high:
                    return high
        msg = (f"reading {found.topic}-{found.partition} from offset {start} for the first "
               f"record at or after {at_ms} ms got no data for {TIMEOUT_S} s; check the broker")
        raise StreamsError(msg)
    finally:
        consumer.unassign()
