"""What Kafka's ``Metered*StoreTest`` classes share: the context whose ``changelogFor`` answers a
given topic, a serde recording the topic of every call (Java's mocks that answer only for the
expected topic), and a store built with or without logging and caching."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kslab as ks
from tests.conformance.state._kv_store_support import RecordingContext

__all__ = ["APPLICATION_ID", "ChangelogContext", "S", "TopicRecordingSerde", "built"]

APPLICATION_ID = "test-app"
S = ks.serdes.String()


class ChangelogContext(RecordingContext):
    """``context.changelogFor(STORE_NAME)`` is ``changelog`` when given (else the default
    ``<application.id>-<store>-changelog``); ``keySerde()``/``valueSerde()`` are the defaults."""

    def __init__(self, changelog: str | None, key_serde: Any = S, value_serde: Any = S,
                 state_dir: Path | None = None) -> None:
        super().__init__(state_dir, key_serde, value_serde)
        self.application_id = APPLICATION_ID
        self._changelog = changelog

    def changelog_topic(self, store_name: str) -> str:
        return self._changelog or super().changelog_topic(store_name)


class TopicRecordingSerde:
    """A String serde that records the topic of every call."""

    def __init__(self) -> None:
        self.topics: list[str] = []

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        self.topics.append(topic)
        return S.serialize(topic, data)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        self.topics.append(topic)
        return S.deserialize(topic, data)


def built(builder: Any, *, logging: bool = True, caching: bool = False) -> Any:
    """``builder``'s store, with its changelog turned off and its cache on as asked."""
    if not logging:
        builder = builder.with_logging_disabled()
    if caching:
        builder = builder.with_caching_enabled()
    return builder.build()
