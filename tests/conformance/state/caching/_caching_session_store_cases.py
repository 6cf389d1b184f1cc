"""The tests of Kafka's ``CachingPersistentSessionStoreTest`` and
``CachingInMemorySessionStoreTest`` (the same methods over a RocksDB or an in-memory session
store): each test module imports these and sets the ``store_kind`` fixture.

Mapping: the caching store is ``Stores.session_store_builder(persistent_session_store |
in_memory_session_store, Bytes, Bytes).with_caching_enabled().with_logging_disabled()``
(retention Long.MAX_VALUE) on ``CacheContext`` (Java's ``InternalMockProcessorContext`` with a
600-byte ``ThreadCache`` and ``ProcessorRecordContext(10, 0, 0, "topic")``); ``cache`` is its
``thread_cache``; ``CacheFlushListenerStub`` is ``SessionListener`` (a list of ``(key, (new,
old), timestamp)`` decoded to str); ``InvalidStateStoreException`` and ``NullPointerException``
are ``StoreError``. The close-error tests swap in a mocked cache and wrapped store, as Java's do.
Skipped: ``shouldMatchPositionAfterPut*`` (IQv2 ``Position`` is not in kslab's API) and
``shouldDelegateInit`` (Mockito-only: the wrapped store's ``init`` is what opens it).
"""

from __future__ import annotations

import logging
import random
import struct
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import kslab as ks
from kslab.state.caching_window import CachingSessionStore
from tests.conformance.state.caching._window_cache_support import CacheContext

MAX_CACHE_SIZE_BYTES = 600
DEFAULT_TIMESTAMP = 10
SEGMENT_INTERVAL = 100
TOPIC = "topic"
MAX = 2**63 - 1
KEY_A, KEY_AA, KEY_B = b"a", b"aa", b"b"


class SessionListener:
    """Java's ``CacheFlushListenerStub`` with session-windowed String keys and String values."""

    def __init__(self) -> None:
        self.forwarded: list[tuple[Any, tuple[Any, Any], int]] = []

    def __call__(self, key: ks.Windowed, new: Any, old: Any, record: Any = None) -> None:
        text = [None if v is None else v.decode() for v in (new, old)]
        self.forwarded.append((ks.Windowed(key.key.decode(), key.window), (text[0], text[1]),
                               record.timestamp))


@pytest.fixture
def context(tmp_path: Path) -> CacheContext:
    return CacheContext(tmp_path / "0_0", MAX_CACHE_SIZE_BYTES, DEFAULT_TIMESTAMP, TOPIC)


@pytest.fixture
def store(store_kind: str, context: CacheContext) -> Any:
    supplier = ks.Stores.persistent_session_store("store-name", MAX) if store_kind == "rocks_db" \
        else ks.Stores.in_memory_session_store("store-name", MAX)
    caching = ks.Stores.session_store_builder(supplier, ks.serdes.Bytes(), ks.serdes.Bytes()) \
        .with_caching_enabled().with_logging_disabled().build()
    assert isinstance(caching, CachingSessionStore)
    caching.init(context)
    yield caching
    if caching.is_open:
        caching.close()


def w(key: bytes, start: int, end: int) -> ks.Windowed:
    return ks.Windowed(key, ks.Window(start, end))


def to_list(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def keys(iterator: Any) -> list[Any]:
    with iterator:
        return [kv.key for kv in iterator]


def put_three(store: Any) -> None:
    for key in (KEY_A, KEY_AA, KEY_B):
        store.put(w(key, 0, 0), b"1")
    assert store.thread_cache.size() == 3


def three(*names: bytes) -> list[ks.KeyValue]:
    return [ks.KeyValue(w(key, 0, 0), b"1") for key in names]


def test_should_put_fetch_from_cache(store: Any) -> None:
    put_three(store)
    with store.find_sessions(KEY_A, 0, 0) as a, store.find_sessions(KEY_B, 0, 0) as b:
        assert a.next() == ks.KeyValue(w(KEY_A, 0, 0), b"1")
        assert b.next() == ks.KeyValue(w(KEY_B, 0, 0), b"1")
        assert not a.has_next()
        assert not b.has_next()


def test_should_put_fetch_all_keys_from_cache(store: Any, store_kind: str) -> None:
    put_three(store)
    everything = three(KEY_A, KEY_AA, KEY_B)
    assert to_list(store.fetch(KEY_A, KEY_B)) == everything
    assert to_list(store.fetch(None, KEY_B)) == everything
    # CachingInMemorySessionStoreTest repeats fetch(null, keyB) where the persistent one asks
    # fetch(keyA, null) and fetch(null, null); both find every session
    assert to_list(store.fetch(KEY_A, None)) == everything
    assert to_list(store.fetch(None, None)) == everything


def test_should_put_backward_fetch_all_keys_from_cache(store: Any) -> None:
    put_three(store)
    everything = three(KEY_B, KEY_AA, KEY_A)
    assert to_list(store.backward_fetch(KEY_A, KEY_B)) == everything
    assert to_list(store.backward_fetch(None, KEY_B)) == everything
    assert to_list(store.backward_fetch(KEY_A, None)) == everything
    assert to_list(store.backward_fetch(None, None)) == everything


def test_should_put_fetch_range_from_cache(store: Any) -> None:
    put_three(store)
    assert to_list(store.find_sessions(KEY_AA, KEY_B, 0, 0)) == three(KEY_AA, KEY_B)
    assert to_list(store.find_sessions(None, KEY_AA, 0, 0)) == three(KEY_A, KEY_AA)
    assert to_list(store.find_sessions(KEY_AA, KEY_B, 0, 0)) == three(KEY_AA, KEY_B)
    assert to_list(store.find_sessions(None, None, 0, 0)) == three(KEY_A, KEY_AA, KEY_B)


def test_should_put_backward_fetch_range_from_cache(store: Any) -> None:
    put_three(store)
    assert to_list(store.backward_find_sessions(KEY_AA, KEY_B, 0, 0)) == three(KEY_B, KEY_AA)
    assert to_list(store.backward_find_sessions(None, KEY_AA, 0, 0)) == three(KEY_AA, KEY_A)
    assert to_list(store.backward_find_sessions(KEY_AA, KEY_B, 0, 0)) == three(KEY_B, KEY_AA)
    assert to_list(store.backward_find_sessions(None, None, 0, 0)) == \
        three(KEY_B, KEY_AA, KEY_A)


SAME_KEY = [ks.KeyValue(w(KEY_A, t, t), v) for t, v in
            [(0, b"1"), (10, b"2"), (100, b"3"), (1000, b"4")]]


def test_should_fetch_all_sessions_with_same_record_key(store: Any) -> None:
    for kv in SAME_KEY:
        store.put(kv.key, kv.value)
    store.put(w(KEY_AA, 0, 0), b"5")
    assert to_list(store.fetch(KEY_A)) == SAME_KEY


def test_should_backward_fetch_all_sessions_with_same_record_key(store: Any) -> None:
    for kv in SAME_KEY:
        store.put(kv.key, kv.value)
    store.put(w(KEY_AA, 0, 0), b"5")
    assert to_list(store.backward_fetch(KEY_A)) == SAME_KEY[::-1]


def add_sessions_until_overflow(store: Any, *ids: bytes) -> list[ks.KeyValue]:
    results: list[ks.KeyValue] = []
    while store.thread_cache.size() == len(results):
        stamp = len(results) * 10
        key = w(random.choice(ids), stamp, stamp)
        store.put(key, b"1")
        results.append(ks.KeyValue(key, b"1"))
    return results


def test_should_flush_items_to_store_on_eviction(store: Any) -> None:
    added = add_sessions_until_overflow(store, b"a", b"b", b"c", b"d")
    assert store.thread_cache.size() == len(added) - 1
    with store.find_sessions(added[0].key.key, 0, 0) as iterator:
        assert iterator.next() == added[0]


def test_should_query_items_in_cache_and_store(store: Any) -> None:
    added = add_sessions_until_overflow(store, b"a")
    assert to_list(store.find_sessions(b"a", 0, len(added) * 10)) == added


def test_should_remove(store: Any) -> None:
    store.put(w(KEY_A, 0, 0), b"2")
    store.put(w(KEY_B, 0, 0), b"2")
    store.remove(w(KEY_A, 0, 0))
    with store.find_sessions(KEY_A, 0, 0) as it:
        assert not it.has_next()
    assert store.fetch_session(KEY_A, 0, 0) is None
    assert store.fetch_session(KEY_B, 0, 0) == b"2"


def segments_of_a(store: Any) -> list[ks.Windowed]:
    sessions = [w(KEY_A, SEGMENT_INTERVAL * i, SEGMENT_INTERVAL * i) for i in range(6)]
    for i, session in enumerate(sessions[:3]):
        store.put(session, str(i + 1).encode())
    store.flush()
    for i, session in enumerate(sessions[3:], start=4):
        store.put(session, str(i).encode())
    return sessions


def test_should_fetch_correctly_across_segments(store: Any) -> None:
    sessions = segments_of_a(store)
    assert keys(store.find_sessions(KEY_A, 0, SEGMENT_INTERVAL * 5)) == sessions


def test_should_backward_fetch_correctly_across_segments(store: Any) -> None:
    sessions = segments_of_a(store)
    assert keys(store.backward_find_sessions(KEY_A, 0, SEGMENT_INTERVAL * 5)) == sessions[::-1]


def range_across_segments(store: Any) -> list[ks.Windowed]:
    a1, aa1 = w(KEY_A, 0, 0), w(KEY_AA, 0, 0)
    a2 = w(KEY_A, SEGMENT_INTERVAL, SEGMENT_INTERVAL)
    a3, aa3 = (w(key, SEGMENT_INTERVAL * 2, SEGMENT_INTERVAL * 2) for key in (KEY_A, KEY_AA))
    for session, value in [(a1, b"1"), (aa1, b"1"), (a2, b"2"), (a3, b"3"), (aa3, b"3")]:
        store.put(session, value)
    return [a1, aa1, a2, a3, aa3]


def test_should_fetch_range_correctly_across_segments(store: Any) -> None:
    expected = range_across_segments(store)
    assert keys(store.find_sessions(KEY_A, KEY_AA, 0, SEGMENT_INTERVAL * 2)) == expected


def test_should_backward_fetch_range_correctly_across_segments(store: Any) -> None:
    expected = range_across_segments(store)
    assert keys(store.backward_find_sessions(KEY_A, KEY_AA, 0, SEGMENT_INTERVAL * 2)) == \
        expected[::-1]


def test_should_set_flush_listener(store: Any) -> None:
    assert store.set_flush_listener(None, True) is True
    assert store.set_flush_listener(None, False) is True


def test_should_forward_changed_values_during_flush(store: Any) -> None:
    a, b = w(KEY_A, 2, 4), w(KEY_A, 1, 2)
    a_text, b_text = ks.Windowed("a", ks.Window(2, 4)), ks.Windowed("a", ks.Window(1, 2))
    listener = SessionListener()
    store.set_flush_listener(listener, True)
    steps = [
        (lambda: store.put(b, b"1"), [(b_text, ("1", None), DEFAULT_TIMESTAMP)]),
        (lambda: store.put(a, b"1"), [(a_text, ("1", None), DEFAULT_TIMESTAMP)]),
        (lambda: store.put(a, b"2"), [(a_text, ("2", "1"), DEFAULT_TIMESTAMP)]),
        (lambda: store.remove(a), [(a_text, (None, "2"), DEFAULT_TIMESTAMP)]),
    ]
    for write, expected in steps:
        write()
        store.flush()
        assert listener.forwarded == expected
        listener.forwarded.clear()
    store.put(a, b"1")
    store.put(a, b"2")
    store.remove(a)
    store.flush()
    assert listener.forwarded == []


def test_should_not_forward_changed_values_during_flush_when_send_old_values_disabled(
        store: Any) -> None:
    a, a_text = w(KEY_A, 0, 0), ks.Windowed("a", ks.Window(0, 0))
    listener = SessionListener()
    store.set_flush_listener(listener, False)
    store.put(a, b"1")
    store.flush()
    store.put(a, b"2")
    store.flush()
    store.remove(a)
    store.flush()
    assert listener.forwarded == [
        (a_text, ("1", None), DEFAULT_TIMESTAMP),
        (a_text, ("2", None), DEFAULT_TIMESTAMP),
        (a_text, (None, None), DEFAULT_TIMESTAMP),
    ]
    listener.forwarded.clear()
    store.put(a, b"1")
    store.put(a, b"2")
    store.remove(a)
    store.flush()
    assert listener.forwarded == []


def put_four(store: Any) -> None:
    for key, start, value in [(KEY_A, 0, b"1"), (KEY_AA, 2, b"2"), (KEY_AA, 4, b"3"),
                              (KEY_B, 6, b"4")]:
        store.put(w(key, start, start + 1), value)


def test_should_return_same_results_for_single_key_find_sessions_and_equal_key_range_find_sessions(
        store: Any) -> None:
    put_four(store)
    with store.find_sessions(KEY_AA, 0, 10) as single, \
            store.find_sessions(KEY_AA, KEY_AA, 0, 10) as ranged:
        assert single.next() == ranged.next()
        assert single.next() == ranged.next()
        assert not single.has_next()
        assert not ranged.has_next()


def test_should_return_same_results_for_single_key_find_sessions_backwards_and_equal_key_range_find_sessions(  # noqa: E501
        store: Any) -> None:
    put_four(store)
    with store.backward_find_sessions(KEY_AA, 0, 10) as single, \
            store.backward_find_sessions(KEY_AA, KEY_AA, 0, 10) as ranged:
        assert single.next() == ranged.next()
        assert single.next() == ranged.next()
        assert not single.has_next()
        assert not ranged.has_next()


def test_should_clear_namespace_cache_on_close(store: Any) -> None:
    store.put(w(KEY_A, 0, 0), b"1")
    cache = store.thread_cache
    assert cache.size() == 1
    store.close()
    assert cache.size() == 0


def test_should_throw_if_trying_to_fetch_from_closed_caching_store(store: Any) -> None:
    store.close()
    with pytest.raises(ks.StoreError):
        store.fetch(KEY_A)


def test_should_throw_if_trying_to_find_merge_session_from_closed_caching_store(
        store: Any) -> None:
    store.close()
    with pytest.raises(ks.StoreError):
        store.find_sessions(KEY_A, 0, MAX)


def test_should_throw_if_trying_to_remove_from_closed_caching_store(store: Any) -> None:
    store.close()
    with pytest.raises(ks.StoreError):
        store.remove(w(KEY_A, 0, 0))


def test_should_throw_if_trying_to_put_into_closed_caching_store(store: Any) -> None:
    store.close()
    with pytest.raises(ks.StoreError):
        store.put(w(KEY_A, 0, 0), b"1")




def test_should_throw_null_pointer_exception_on_find_sessions_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.find_sessions(None, 1, 2)


def test_should_throw_null_pointer_exception_on_fetch_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.fetch(None)


def test_should_throw_null_pointer_exception_on_remove_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.remove(None)


def test_should_throw_null_pointer_exception_on_put_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.put(None, b"1")


INVALID_RANGE = (
    "Returning empty iterator for fetch with invalid key range: from > to. This may be due to "
    "range arguments set in the wrong order, or serdes that don't preserve ordering when "
    "lexicographically comparing the serialized bytes. Note that the built-in numerical serdes "
    "do not follow this for negative numbers"
)
NEGATIVE_FROM, POSITIVE_TO = struct.pack(">i", -1), struct.pack(">i", 1)


def test_should_not_throw_invalid_range_exception_when_backward_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), \
            store.backward_find_sessions(NEGATIVE_FROM, POSITIVE_TO, 0, 10) as iterator:
        assert not iterator.has_next()
    assert INVALID_RANGE in caplog.messages


def test_should_not_throw_invalid_range_exception_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), \
            store.find_sessions(NEGATIVE_FROM, POSITIVE_TO, 0, 10) as iterator:
        assert not iterator.has_next()
    assert INVALID_RANGE in caplog.messages


def close_setup(store: Any) -> tuple[mock.Mock, Any]:
    """Java's ``setUpCloseTests``: a mocked cache and wrapped store behind the caching store."""
    real_inner = store.wrapped
    cache, inner = mock.MagicMock(), mock.MagicMock(wraps=real_inner)
    order = mock.MagicMock()
    order.attach_mock(cache, "cache")
    order.attach_mock(inner, "inner")
    # internal on purpose: Java's test injects its mocks the same way
    store._cache, store._inner = cache, inner
    return order, real_inner


def close_and_order(store: Any, order: mock.Mock) -> list[str]:
    with pytest.raises(Exception):  # noqa: B017
        store.close()
    return [c[0] for c in order.mock_calls]


def test_should_close_wrapped_store_and_cache_after_error_during_cache_flush(store: Any) -> None:
    order, real = close_setup(store)
    order.cache.flush.side_effect = [RuntimeError("Simulating an error on flush"), None]
    names = close_and_order(store, order)
    assert names.index("cache.close") < names.index("inner.close")
    real.close()


def test_should_close_wrapped_store_after_error_during_cache_close(store: Any) -> None:
    order, real = close_setup(store)
    order.cache.close.side_effect = [RuntimeError("Simulating an error on close"), None]
    names = close_and_order(store, order)
    assert names.index("cache.flush") < names.index("inner.close")
    real.close()


def test_should_close_cache_after_error_during_wrapped_store_close(store: Any) -> None:
    order, real = close_setup(store)
    order.inner.close.side_effect = [RuntimeError("Simulating an error on close"), None]
    names = close_and_order(store, order)
    assert names.index("cache.flush") < names.index("cache.close")
    real.close()
