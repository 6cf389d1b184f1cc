"""Creating an application's topics on a broker: the admin-client side of ``TopicPlan``.

The live runtime and Spark's streaming engine both create the internal topics a ``TopicPlan``
lists before any client touches them, so the core owns this, beside the plan. Invariant: the
functions take a confluent-kafka ``AdminClient`` from the engine, and import confluent-kafka
only when they create topics, so the core runs without the ``kafka`` extra.
"""

from __future__ import annotations

from typing import Any

from kslab.errors import StreamsError

__all__ = ["create_topics", "existing_topics"]


def existing_topics(admin: Any, timeout: float = 10.0) -> dict[str, int]:
    """Topic -> partition count of every topic on the broker (no topic is auto-created)."""
    metadata = admin.list_topics(timeout=timeout)
    return {name: len(t.partitions) for name, t in metadata.topics.items()
            if t.error is None and not name.startswith("__")}


def create_topics(admin: Any, wanted: dict[str, tuple[int, dict[str, str]]],
                  replication: int = -1, timeout: float = 30.0) -> list[str]:
    """Create the topics of ``wanted`` that do not exist; check those that do. Returns created."""
    from confluent_kafka import KafkaError
    from confluent_kafka.admin import NewTopic

    existing = existing_topics(admin, timeout)
    for topic, (count, _) in wanted.items():
        have = existing.get(topic)
        if have is not None and have != count:
            msg = (
                f"internal topic '{topic}' exists with {have} partitions but the application "
                f"needs {count}; delete it (or reset the application) and start again"
            )
            raise StreamsError(msg, topic=topic)
    new = [NewTopic(t, count, replication, config=config)
           for t, (count, config) in sorted(wanted.items()) if t not in existing]
    if not new:
        return []
    futures = admin.create_topics(new, operation_timeout=timeout, request_timeout=timeout)
    created = []
    for topic, future in futures.items():
        try:
            future.result()
            created.append(topic)
        except Exception as exc:
            error = exc.args[0] if exc.args else None
            if getattr(error, "code", lambda: None)() == KafkaError.TOPIC_ALREADY_EXISTS:
                continue
            msg = f"cannot create internal topic '{topic}': {exc}; check the broker and its ACLs"
            raise StreamsError(msg, topic=topic) from exc
    return created
