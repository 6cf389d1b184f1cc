"""Kafka's ``MeteredTimestampedWindowStoreTest``: the outer layer of a timestamped window store
serializes with the changelog topic's name, closes the inner store, answers ``None`` for a
missing window, and takes its serdes from the builder or else from the context.

Mapping as in the ``MeteredWindowStoreTest`` port: kslab folds the metered layer into the typed
``TimestampedWindowStore``, so ``store`` is a ``timestamped_window_store_builder`` store with
String keys and values over an in-memory window backend the test keeps (Java's mocked
``innerStoreMock``, holding ``WindowKeySchema`` keys and ``timestamp + value`` bytes), opened on
a context whose changelog topic is ``changelog-topic``. Java's
``ValueAndTimestampSerde(inner)`` is the builder's plain value serde (kslab adds the timestamp
itself), and its mocked serdes that answer only for the expected topic are serdes recording the
topics they see. ``shouldDelegateInit`` is checked as in the window store port (the store opens
over the inner one). The named-topology part of the default changelog name does not apply.
"""

from __future__ import annotations

import struct
from typing import Any

import pytest

import kslab as ks
from kslab.state.backends import InMemoryKeyValueBackend
from kslab.state.window import window_key
from kslab.state.windowed_builders import WindowBytesStoreSupplier
from tests.conformance.state.metered import _metered_support as support

S = support.S

STORE_NAME = "mocked-store"
CHANGELOG_TOPIC = "changelog-topic"
KEY, VALUE = "key", "value"
KEY_BYTES = b"key"
TIMESTAMP = 42
VALUE_AND_TIMESTAMP = ks.ValueAndTimestamp(VALUE, TIMESTAMP)
VALUE_AND_TIMESTAMP_BYTES = struct.pack(">q", TIMESTAMP) + b"value"
WINDOW_SIZE_MS = 10


class _Supplier(WindowBytesStoreSupplier):
    """An in-memory timestamped window supplier whose ``get()`` is the test's inner store."""

    def __init__(self, inner: Any) -> None:
        super().__init__(STORE_NAME, 100, WINDOW_SIZE_MS, False, persistent=False,
                         timestamped=True)
        self.inner = inner

    def get(self) -> Any:
        return self.inner


class _Inner(InMemoryKeyValueBackend):
    """The in-memory backend, noting the ``open``/``close`` calls the outer store passes on
    (Java's ``verify(inner).init(...)`` / ``verify(innerStoreMock).close()``)."""

    opened = closed = False

    def open(self, directory: Any) -> None:
        super().open(directory)
        self.opened = True

    def close(self) -> None:
        super().close()
        self.closed = True


@pytest.fixture
def inner() -> _Inner:
    return _Inner(STORE_NAME)


def build(inner: Any, key_serde: Any = S, value_serde: Any = S, *, logging: bool = True) -> Any:
    return support.built(ks.Stores.timestamped_window_store_builder(_Supplier(inner), key_serde,
                                                            value_serde), logging=logging)


def init(store: Any, changelog: str | None = CHANGELOG_TOPIC, **context: Any) -> Any:
    store.init(support.ChangelogContext(changelog, **context), store)
    return store


def test_should_delegate_init(inner: Any) -> None:
    store = init(build(inner))
    assert store.is_open
    assert inner.opened


@pytest.mark.parametrize(("logging", "topic"), [
    (True, CHANGELOG_TOPIC),
    (False, f"{support.APPLICATION_ID}-{STORE_NAME}-changelog"),
], ids=["shouldPassChangelogTopicNameToStateStoreSerde",
        "shouldPassDefaultChangelogTopicNameToStateStoreSerdeIfLoggingDisabled"])
def test_changelog_topic_name_to_state_store_serde(inner: Any, logging: bool, topic: str) -> None:
    key_serde, value_serde = support.TopicRecordingSerde(), support.TopicRecordingSerde()
    inner.open(None)
    inner.put(window_key(KEY_BYTES, TIMESTAMP), VALUE_AND_TIMESTAMP_BYTES)
    store = init(build(inner, key_serde, value_serde, logging=logging),
                 CHANGELOG_TOPIC if logging else None)
    assert store.fetch(KEY, TIMESTAMP) == VALUE_AND_TIMESTAMP
    store.put(KEY, VALUE_AND_TIMESTAMP, TIMESTAMP)
    assert inner.get(window_key(KEY_BYTES, TIMESTAMP)) == VALUE_AND_TIMESTAMP_BYTES
    assert {*key_serde.topics, *value_serde.topics} == {topic}
    assert key_serde.topics and value_serde.topics


def test_should_close_underlying_store(inner: Any) -> None:
    store = init(build(inner))
    store.close()
    assert not store.is_open
    assert inner.closed


def test_should_not_exception_if_fetch_returns_null(inner: Any) -> None:
    store = init(build(inner))
    assert store.fetch("a", 0) is None


def test_should_not_throw_exception_if_serdes_correctly_set_from_processor_context(
        inner: Any) -> None:
    # (no changelog: the test context decodes changelog keys as plain keys)
    store = build(inner, None, None, logging=False)
    init(store, None, key_serde=S, value_serde=ks.serdes.Long())
    store.put("key", ks.ValueAndTimestamp(42, 60000), 60000)
    assert store.fetch("key", 60000) == ks.ValueAndTimestamp(42, 60000)


def test_should_not_throw_exception_if_serdes_correctly_set_from_constructor_parameters(
        inner: Any) -> None:
    store = init(build(inner, S, ks.serdes.Long(), logging=False), None)
    store.put("key", ks.ValueAndTimestamp(42, 60000), 60000)
    assert store.fetch("key", 60000) == ks.ValueAndTimestamp(42, 60000)
