"""Kafka's ``MeteredWindowStoreTest``: the outer layer of a window store serializes with the
changelog topic's name, refuses ``None`` keys, decodes what the inner store holds and passes the
flush listener to a caching store only.

Mapping: kslab folds the metered layer into the typed ``WindowStore``, so ``store`` is a
``window_store_builder`` store with String keys and values over an in-memory window backend the
test keeps (Java's mocked ``innerStoreMock``; it holds Java's ``WindowKeySchema`` binary keys),
opened on a ``RecordingContext`` whose changelog topic is ``changelog-topic``. Java's mocked
serdes that answer only for the expected topic are serdes recording the topic they see;
``NullPointerException`` is ``MissingArgumentError`` with Java's message. The
``...AndRecord<Op>Metrics`` tests keep their store assertions (the bytes the inner store gets,
what the fetches return) and drop the metric ones. Skipped: the metrics tests (``testMetrics``,
``shouldRecordRestoreLatencyOnInit``, ``shouldRecordFlushLatency``'s metric,
``shouldRemoveMetrics...``, ``shouldTrackOpenIteratorsMetric``, ``shouldTimeIteratorDuration``,
``shouldTrackOldestOpenIteratorTimestamp``: kslab stores have no sensors or JMX). The
named-topology part of the default changelog name does not apply.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state.backends import InMemoryKeyValueBackend
from kslab.state.window import window_key
from kslab.state.windowed_builders import WindowBytesStoreSupplier
from tests.conformance.state.metered._metered_support import (
    APPLICATION_ID,
    S,
    TopicRecordingSerde,
    built,
)
from tests.conformance.state.metered._metered_support import ChangelogContext as _Context

STORE_NAME = "mocked-store"
CHANGELOG_TOPIC = "changelog-topic"
KEY, VALUE = "key", "value"
KEY_BYTES, VALUE_BYTES = b"key", b"value"
WINDOW_SIZE_MS = 10
RETENTION_PERIOD = 100
TIMESTAMP = 42


class _Supplier(WindowBytesStoreSupplier):
    """An in-memory window supplier whose ``get()`` is the test's inner store."""

    def __init__(self, inner: Any) -> None:
        super().__init__(STORE_NAME, RETENTION_PERIOD, WINDOW_SIZE_MS, False,
                         persistent=False, timestamped=False)
        self.inner = inner

    def get(self) -> Any:
        return self.inner


@pytest.fixture
def inner() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend(STORE_NAME)


def build(inner: Any, key_serde: Any = S, value_serde: Any = S, *, logging: bool = True,
          caching: bool = False) -> Any:
    return built(ks.Stores.window_store_builder(_Supplier(inner), key_serde, value_serde),
                 logging=logging, caching=caching)


def init(store: Any, changelog: str | None = CHANGELOG_TOPIC) -> Any:
    store.init(_Context(changelog), store)
    return store


@pytest.fixture
def store(inner: Any) -> Any:
    """Java's ``store``: built, not initialised."""
    return build(inner)


def test_should_delegate_init(store: Any) -> None:
    init(store)
    assert store.is_open


def do_should_pass_changelog_topic_name_to_state_store_serde(inner: Any, topic: str,
                                                             logging: bool) -> None:
    key_serde, value_serde = TopicRecordingSerde(), TopicRecordingSerde()
    inner.open(None)
    inner.put(window_key(KEY_BYTES, TIMESTAMP), VALUE_BYTES)
    store = init(build(inner, key_serde, value_serde, logging=logging),
                 CHANGELOG_TOPIC if logging else None)
    assert store.fetch(KEY, TIMESTAMP) == VALUE
    store.put(KEY, VALUE, TIMESTAMP)
    assert key_serde.topics and set(key_serde.topics) == {topic}
    assert value_serde.topics and set(value_serde.topics) == {topic}


def test_should_pass_changelog_topic_name_to_state_store_serde(inner: Any) -> None:
    do_should_pass_changelog_topic_name_to_state_store_serde(inner, CHANGELOG_TOPIC, True)


def test_should_pass_default_changelog_topic_name_to_state_store_serde_if_logging_disabled(
        inner: Any) -> None:
    default_changelog_topic_name = f"{APPLICATION_ID}-{STORE_NAME}-changelog"
    do_should_pass_changelog_topic_name_to_state_store_serde(
        inner, default_changelog_topic_name, False)


def test_should_put_to_inner_store_and_record_put_metrics(store: Any, inner: Any) -> None:
    context = _Context(CHANGELOG_TOPIC)
    store.init(context, store)
    store.put("a", "a", context.timestamp)
    assert inner.get(window_key(b"a", context.timestamp)) == b"a"


def test_should_fetch_from_inner_store_and_record_fetch_metrics(store: Any) -> None:
    init(store)
    with store.fetch("a", 1, 1) as it:
        assert list(it) == []


def test_should_return_no_record_when_fetched_key_has_expired(store: Any) -> None:
    init(store)
    with store.fetch("a", 1, 1 + RETENTION_PERIOD) as it:
        assert list(it) == []


def test_should_fetch_range_from_inner_store_and_record_fetch_metrics(store: Any,
                                                                      inner: Any) -> None:
    init(store)
    inner.put(window_key(b"a", 1), b"1")
    inner.put(window_key(b"b", 1), b"2")
    expected = [ks.KeyValue(ks.Windowed("a", ks.Window(1, 11)), "1"),
                ks.KeyValue(ks.Windowed("b", ks.Window(1, 11)), "2")]
    for key_from, key_to in (("a", "b"), (None, "b"), ("a", None), (None, None)):
        with store.fetch(key_from, key_to, 1, 1) as it:
            assert list(it) == expected


def test_should_backward_fetch_from_inner_store_and_record_fetch_metrics(store: Any,
                                                                         inner: Any) -> None:
    init(store)
    inner.put(window_key(b"a", 1), b"1")
    inner.put(window_key(b"b", 1), b"2")
    with store.backward_fetch("a", "b", 1, 1) as it:
        assert [kv.value for kv in it] == ["2", "1"]


def test_should_backward_fetch_range_from_inner_store_and_record_fetch_metrics(
        store: Any, inner: Any) -> None:
    init(store)
    inner.put(window_key(b"a", 1), b"1")
    inner.put(window_key(b"b", 1), b"2")
    for key_from, key_to in (("a", "b"), (None, "b"), ("a", None), (None, None)):
        with store.backward_fetch(key_from, key_to, 1, 1) as it:
            assert [kv.value for kv in it] == ["2", "1"]


def test_should_fetch_all_from_inner_store_and_record_fetch_metrics(store: Any,
                                                                    inner: Any) -> None:
    init(store)
    inner.put(window_key(b"a", 1), b"1")
    with store.fetch_all(1, 1) as it:
        assert list(it) == [ks.KeyValue(ks.Windowed("a", ks.Window(1, 11)), "1")]


def test_should_backward_fetch_all_from_inner_store_and_record_fetch_metrics(
        store: Any, inner: Any) -> None:
    init(store)
    inner.put(window_key(b"a", 1), b"1")
    with store.backward_fetch_all(1, 1) as it:
        assert list(it) == [ks.KeyValue(ks.Windowed("a", ks.Window(1, 11)), "1")]


def test_should_record_flush_latency(store: Any) -> None:
    init(store)
    store.put("a", "a", 1)
    store.flush()
    assert store.fetch("a", 1) == "a"


def test_should_not_throw_null_pointer_exception_if_fetch_returns_null(store: Any) -> None:
    init(store)
    assert store.fetch("a", 0) is None


def test_should_set_flush_listener_on_wrapped_caching_store(inner: Any) -> None:
    metered = init(build(inner, caching=True))
    assert metered.set_flush_listener(lambda *args: None, False) is True


def test_should_not_set_flush_listener_on_wrapped_none_caching_store(store: Any) -> None:
    assert store.set_flush_listener(None, False) is False


def test_should_close_underlying_store(store: Any, inner: Any) -> None:
    init(store)
    store.close()
    assert not store.is_open


def test_should_throw_null_pointer_on_put_if_key_is_null(store: Any) -> None:
    init(store)
    with pytest.raises(MissingArgumentError, match=r"^key cannot be null$"):
        store.put(None, "a", 1)


def test_should_throw_null_pointer_on_fetch_if_key_is_null(store: Any) -> None:
    init(store)
    with pytest.raises(MissingArgumentError, match=r"^key cannot be null$"):
        store.fetch(None, 0, 1)


def test_should_throw_null_pointer_on_backward_fetch_if_key_is_null(store: Any) -> None:
    init(store)
    with pytest.raises(MissingArgumentError, match=r"^key cannot be null$"):
        store.backward_fetch(None, 0, 1)
