"""Kafka's ``MeteredSessionStoreTest``: the outer layer of a session store serializes with the
changelog topic's name, refuses ``None`` keys, sessions and windows with Java's messages, decodes
what the inner store holds and passes the flush listener to a caching store only.

Mapping: kslab folds the metered layer into the typed ``SessionStore``, so ``store`` is a
``session_store_builder`` store with String keys and values over an in-memory session backend
the test keeps (Java's mocked ``innerStore``; it holds Java's ``SessionKeySchema`` binary keys),
opened on a ``RecordingContext`` whose changelog topic is ``changelog-topic``. Java's
``SessionWindow(0, 0)`` is ``ks.Window(0, 0)``; ``NullPointerException`` is
``MissingArgumentError`` with Java's message. The ``...AndRecord<Op>Metric`` tests keep their
store assertions (the bytes the inner store gets, what the reads decode) and drop the metric ones.
Skipped: the metrics tests (``testMetrics``, ``shouldRecordRestoreTimeOnInit``,
``shouldRemoveMetrics...``, ``shouldTrackOpenIteratorsMetric``, ``shouldTimeIteratorDuration``,
``shouldTrackOldestOpenIteratorTimestamp``: kslab stores have no sensors or JMX),
``shouldDelegateInit``'s Mockito verification (kept as "the store opens") and the eight
``shouldThrowNullPointerOn(Backward)Fetch(Range|Sessions)If(From|To)IsNull`` tests of key
ranges (they throw only because the store is not initialised, so its serdes are null; an open
store takes ``None`` as an open bound, as ``ChangeLoggingSessionBytesStoreTest`` and the session
store tests assert). The named-topology part of the default changelog name does not apply.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from kslab.state.backends import InMemoryKeyValueBackend
from kslab.state.session import session_key
from kslab.state.windowed_builders import SessionBytesStoreSupplier
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
WINDOWED_KEY = ks.Windowed(KEY, ks.Window(0, 0))
WINDOWED_KEY_BYTES = session_key(KEY_BYTES, 0, 0)
START_TIMESTAMP, END_TIMESTAMP = 24, 42
RETENTION_PERIOD = 100
LONG_MAX = 2**63 - 1


class _Supplier(SessionBytesStoreSupplier):
    """An in-memory session supplier whose ``get()`` is the test's inner store."""

    def __init__(self, inner: Any) -> None:
        super().__init__(STORE_NAME, RETENTION_PERIOD, persistent=False)
        self.inner = inner

    def get(self) -> Any:
        return self.inner


@pytest.fixture
def inner() -> InMemoryKeyValueBackend:
    return InMemoryKeyValueBackend(STORE_NAME)


def build(inner: Any, key_serde: Any = S, value_serde: Any = S, *, logging: bool = True,
          caching: bool = False) -> Any:
    return built(ks.Stores.session_store_builder(_Supplier(inner), key_serde, value_serde),
                 logging=logging, caching=caching)


def init(store: Any, changelog: str | None = CHANGELOG_TOPIC) -> Any:
    store.init(_Context(changelog), store)
    return store


@pytest.fixture
def store(inner: Any) -> Any:
    """``setUpWithoutContext``: built, not initialised."""
    return build(inner)


@pytest.fixture
def opened(store: Any, inner: Any) -> Any:
    """``setUp`` then ``init``, with the inner store answering ``WINDOWED_KEY_BYTES``."""
    init(store)
    inner.put(WINDOWED_KEY_BYTES, VALUE_BYTES)
    return store


def only_value(iterator: Any) -> None:
    """Java's ``next().value == VALUE`` then ``hasNext()`` false."""
    assert iterator.next().value == VALUE
    assert not iterator.has_next()
    iterator.close()


def test_should_delegate_init(store: Any) -> None:
    init(store)
    assert store.is_open


def do_should_pass_changelog_topic_name_to_state_store_serde(inner: Any, topic: str,
                                                             logging: bool) -> None:
    key_serde, value_serde = TopicRecordingSerde(), TopicRecordingSerde()
    inner.open(None)
    inner.put(session_key(KEY_BYTES, START_TIMESTAMP, END_TIMESTAMP), VALUE_BYTES)
    store = init(build(inner, key_serde, value_serde, logging=logging),
                 CHANGELOG_TOPIC if logging else None)
    assert store.fetch_session(KEY, START_TIMESTAMP, END_TIMESTAMP) == VALUE
    store.put(ks.Windowed(KEY, ks.Window(START_TIMESTAMP, END_TIMESTAMP)), VALUE)
    assert key_serde.topics and set(key_serde.topics) == {topic}
    assert value_serde.topics and set(value_serde.topics) == {topic}


def test_should_pass_changelog_topic_name_to_state_store_serde(inner: Any) -> None:
    do_should_pass_changelog_topic_name_to_state_store_serde(inner, CHANGELOG_TOPIC, True)


def test_should_pass_default_changelog_topic_name_to_state_store_serde_if_logging_disabled(
        inner: Any) -> None:
    default_changelog_topic_name = f"{APPLICATION_ID}-{STORE_NAME}-changelog"
    do_should_pass_changelog_topic_name_to_state_store_serde(
        inner, default_changelog_topic_name, False)


def test_should_write_bytes_to_inner_store_and_record_put_metric(store: Any,
                                                                 inner: Any) -> None:
    init(store)
    store.put(WINDOWED_KEY, VALUE)
    assert inner.get(WINDOWED_KEY_BYTES) == VALUE_BYTES


def test_should_find_sessions_from_store_and_record_fetch_metric(opened: Any) -> None:
    only_value(opened.find_sessions(KEY, 0, 0))


def test_should_backward_find_sessions_from_store_and_record_fetch_metric(opened: Any) -> None:
    only_value(opened.backward_find_sessions(KEY, 0, 0))


def test_should_find_session_range_from_store_and_record_fetch_metric(opened: Any) -> None:
    only_value(opened.find_sessions(KEY, KEY, 0, 0))


def test_should_backward_find_session_range_from_store_and_record_fetch_metric(
        opened: Any) -> None:
    only_value(opened.backward_find_sessions(KEY, KEY, 0, 0))


def test_should_remove_from_store_and_record_remove_metric(opened: Any, inner: Any) -> None:
    opened.remove(ks.Windowed(KEY, ks.Window(0, 0)))
    assert inner.get(WINDOWED_KEY_BYTES) is None


def test_should_fetch_for_key_and_record_fetch_metric(opened: Any) -> None:
    only_value(opened.fetch(KEY))


def test_should_backward_fetch_for_key_and_record_fetch_metric(opened: Any) -> None:
    only_value(opened.backward_fetch(KEY))


def test_should_fetch_range_from_store_and_record_fetch_metric(opened: Any) -> None:
    only_value(opened.fetch(KEY, KEY))


def test_should_backward_fetch_range_from_store_and_record_fetch_metric(opened: Any) -> None:
    only_value(opened.backward_fetch(KEY, KEY))


def system_time() -> int:
    return int(time.time() * 1000)


def test_should_return_no_sessions_when_fetched_key_has_expired(opened: Any) -> None:
    now = system_time()
    iterator = opened.find_sessions(KEY, now - RETENTION_PERIOD, now)
    assert not iterator.has_next()
    iterator.close()


def test_should_return_no_sessions_in_backward_order_when_fetched_key_has_expired(
        opened: Any) -> None:
    now = system_time()
    iterator = opened.backward_find_sessions(KEY, now - RETENTION_PERIOD, now)
    assert not iterator.has_next()
    iterator.close()


def test_should_not_find_expired_session_range_from_store(opened: Any) -> None:
    now = system_time()
    iterator = opened.find_sessions(KEY, KEY, now - RETENTION_PERIOD, now)
    assert not iterator.has_next()
    iterator.close()


def test_should_not_find_expired_session_range_in_backward_order_from_store(
        opened: Any) -> None:
    now = system_time()
    iterator = opened.backward_find_sessions(KEY, KEY, now - RETENTION_PERIOD, now)
    assert not iterator.has_next()
    iterator.close()


def test_should_not_throw_null_pointer_exception_if_fetch_session_returns_null(
        store: Any) -> None:
    init(store)
    assert store.fetch_session("a", 0, LONG_MAX) is None


NULL_CHECKS = {
    "put_if_key_is_null": (lambda s: s.put(None, "a"), "sessionKey can't be null"),
    "remove_if_key_is_null": (lambda s: s.remove(None), "sessionKey can't be null"),
    "put_if_wrapped_key_is_null": (
        lambda s: s.put(ks.Windowed(None, ks.Window(0, 0)), "a"),
        r"sessionKey.key\(\) can't be null"),
    "remove_if_wrapped_key_is_null": (
        lambda s: s.remove(ks.Windowed(None, ks.Window(0, 0))),
        r"sessionKey.key\(\) can't be null"),
    "put_if_window_is_null": (
        lambda s: s.put(ks.Windowed(KEY, None), "a"), r"sessionKey.window\(\) can't be null"),
    "remove_if_window_is_null": (
        lambda s: s.remove(ks.Windowed(KEY, None)), r"sessionKey.window\(\) can't be null"),
    "fetch_if_key_is_null": (lambda s: s.fetch(None), "key cannot be null"),
    "fetch_session_if_key_is_null": (
        lambda s: s.fetch_session(None, 0, LONG_MAX), "key cannot be null"),
    "backward_fetch_if_key_is_null": (lambda s: s.backward_fetch(None), "key cannot be null"),
    "find_sessions_if_key_is_null": (
        lambda s: s.find_sessions(None, 0, 0), "key cannot be null"),
    "backward_find_sessions_if_key_is_null": (
        lambda s: s.backward_find_sessions(None, 0, 0), "key cannot be null"),
}


def _null_check(name: str, store: Any) -> None:
    call, message = NULL_CHECKS[name]
    with pytest.raises(MissingArgumentError, match=f"^{message}$"):
        call(store)


def test_should_throw_null_pointer_on_put_if_key_is_null(store: Any) -> None:
    _null_check("put_if_key_is_null", store)


def test_should_throw_null_pointer_on_remove_if_key_is_null(store: Any) -> None:
    _null_check("remove_if_key_is_null", store)


def test_should_throw_null_pointer_on_put_if_wrapped_key_is_null(store: Any) -> None:
    _null_check("put_if_wrapped_key_is_null", store)


def test_should_throw_null_pointer_on_remove_if_wrapped_key_is_null(store: Any) -> None:
    _null_check("remove_if_wrapped_key_is_null", store)


def test_should_throw_null_pointer_on_put_if_window_is_null(store: Any) -> None:
    _null_check("put_if_window_is_null", store)


def test_should_throw_null_pointer_on_remove_if_window_is_null(store: Any) -> None:
    _null_check("remove_if_window_is_null", store)


def test_should_throw_null_pointer_on_fetch_if_key_is_null(store: Any) -> None:
    _null_check("fetch_if_key_is_null", store)


def test_should_throw_null_pointer_on_fetch_session_if_key_is_null(store: Any) -> None:
    _null_check("fetch_session_if_key_is_null", store)


def test_should_throw_null_pointer_on_backward_fetch_if_key_is_null(store: Any) -> None:
    _null_check("backward_fetch_if_key_is_null", store)


def test_should_throw_null_pointer_on_find_sessions_if_key_is_null(store: Any) -> None:
    _null_check("find_sessions_if_key_is_null", store)


def test_should_throw_null_pointer_on_backward_find_sessions_if_key_is_null(store: Any) -> None:
    _null_check("backward_find_sessions_if_key_is_null", store)


def test_should_set_flush_listener_on_wrapped_caching_store(inner: Any) -> None:
    metered = init(build(inner, caching=True))
    assert metered.set_flush_listener(lambda *args: None, False) is True


def test_should_not_set_flush_listener_on_wrapped_none_caching_store(store: Any) -> None:
    assert store.set_flush_listener(None, False) is False
