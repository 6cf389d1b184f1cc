"""The topics a stream thread's consumer subscribes to, kept current with the pattern sources.

Java's consumer subscribes to a source pattern itself: each metadata refresh (every
``metadata.max.age.ms``, 5 minutes by default) matches the broker's topics against it, and a new
match changes the subscription, so the group rebalances and a topic created while the
application runs is read. kslab's threads subscribe to topic names (``TopicPlan.source_topics``,
the patterns resolved when the application starts), and ``Subscription`` repeats Java's refresh:
every ``metadata.max.age.ms`` it lists the broker's topics, adds the new matches to the shared
plan (``TopicPlan.match_new``: a topic two patterns match raises ``TopologyError``, as Java's
stream thread fails with a ``TopologyException``) and subscribes again when the plan's topics
differ from the thread's subscription. Without pattern sources it never asks the broker.

Invariant: a thread's consumer is subscribed to exactly ``topics``, the plan's source topics at
the last refresh; the plan only grows, so every thread converges on the same subscription.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from kslab.core.topic_plan import TopicPlan

__all__ = ["Subscription"]

log = logging.getLogger("kslab.runtime")

DEFAULT_METADATA_MAX_AGE_MS = 300_000  # Java's consumer default


class Subscription:
    """One consumer's subscription to a plan's source topics, refreshed for its patterns."""

    def __init__(self, plan: TopicPlan, consumer_config: dict[str, Any]) -> None:
        self._plan = plan
        self._interval = int(consumer_config.get("metadata.max.age.ms",
                                                 DEFAULT_METADATA_MAX_AGE_MS)) / 1000
        self._next = time.monotonic() + self._interval
        self._callbacks: dict[str, Callable[..., None]] = {}  # the rebalance callbacks
        self.topics: list[str] = plan.source_topics()

    def subscribe(self, consumer: Any, **callbacks: Callable[..., None]) -> None:
        """Subscribe ``consumer`` to ``topics`` with the rebalance ``callbacks``."""
        self._callbacks = callbacks
        consumer.subscribe(self.topics, **callbacks)

    def refresh(self, consumer: Any, now: float) -> bool:
        """When a refresh is due (and the plan has patterns): match the broker's topics and
        subscribe again if the plan's topics changed; whether it subscribed again."""
        if now < self._next or not self._plan.patterns:
            return False
        self._next = now + self._interval
        from confluent_kafka import KafkaException

        try:
            metadata = consumer.list_topics(timeout=5.0)
        except KafkaException as exc:
            log.warning("listing the broker's topics for the source patterns failed (%s); "
                        "retrying in %.1f s", exc, self._interval)
            return False
        self._plan.match_new({name: len(topic.partitions)
                              for name, topic in metadata.topics.items()
                              if topic.error is None and topic.partitions})
        topics = self._plan.source_topics()
        if topics == self.topics:
            return False
        self.topics = topics
        consumer.subscribe(topics, **self._callbacks)
        return True
