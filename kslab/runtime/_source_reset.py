"""Per-source offset reset policies (``Consumed.with_offset_reset_policy``,
``Topology.add_source(offset_reset=...)``) on the live runtime.

librdkafka's consumer has one ``auto.offset.reset`` for every partition; Kafka Streams resets a
partition without a committed offset by the policy of the source reading its topic, and by the
application's ``auto.offset.reset`` only when the source has none. So when partitions are
assigned, those whose source names a policy and whose group has no committed offset are started
at the beginning (``earliest``) or the end (``latest``) explicitly. Invariant: a committed
offset is never overridden; a committed offset that is out of range still resets by the
consumer's global policy (librdkafka decides that inside its fetcher).
"""

from __future__ import annotations

from typing import Any

__all__ = ["apply_source_resets"]


def apply_source_resets(consumer: Any, topology: Any, partitions: list[Any],
                        timeout: float = 30.0) -> bool:
    """Set the start offset of each of ``partitions`` (confluent-kafka ``TopicPartition``s,
    changed in place) whose source has a reset policy and whose group committed no offset;
    True when any was set (the caller then assigns ``partitions`` itself)."""
    from confluent_kafka import OFFSET_BEGINNING, OFFSET_END

    policies: dict[tuple[str, int], str] = {}
    for tp in partitions:
        node = topology.source_for_topic(tp.topic)
        policy = getattr(node, "offset_reset", None)
        if policy in ("earliest", "latest"):
            policies[(tp.topic, tp.partition)] = policy
    if not policies:
        return False
    wanted = [tp for tp in partitions if (tp.topic, tp.partition) in policies]
    committed = {(c.topic, c.partition): c.offset for c in consumer.committed(wanted, timeout)}
    changed = False
    for tp in wanted:
        key = (tp.topic, tp.partition)
        if committed.get(key, -1) >= 0:
            continue  # the group's position wins over any policy
        tp.offset = OFFSET_BEGINNING if policies[key] == "earliest" else OFFSET_END
        changed = True
    return changed
