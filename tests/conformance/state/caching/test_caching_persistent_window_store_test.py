"""Kafka's ``CachingPersistentWindowStoreTest``: ``CachingWindowStore`` over a RocksDB window store
of ``Bytes`` keys and ``byte[]`` values (retention 100 ms, window size 10 ms, 100 ms segments)
with a 150-byte thread cache.

Mapping: the caching store is ``Stores.window_store_builder(persistent_window_store, Bytes,
Bytes).with_caching_enabled().with_logging_disabled()`` (its supplier's ``segment_interval`` set
to Java's 100), opened on ``CacheContext`` (Java's ``InternalMockProcessorContext`` with a
``ThreadCache`` and ``ProcessorRecordContext(10, 0, 0, "topic")``); ``cache`` is the store's
``thread_cache``; ``underlyingStore`` / ``bytesStore`` is ``wrapped``;
``CacheFlushListenerStub`` is ``FlushListenerStub``; ``InvalidStateStoreException`` and
``NullPointerException`` are ``StoreError``. The close-error tests swap in a mocked cache /
wrapped store, as Java's do. ``shouldNotReturnDuplicatesInRanges`` runs its processor in the
test driver. Skipped: ``shouldMatchPositionAfterPut*`` (IQv2 ``Position`` is not in kslab's API)
and ``shouldDelegateInit`` (Mockito-only: the wrapped store's ``init`` is what opens it, as every
other test shows).
"""

from __future__ import annotations

import logging
import struct
import uuid
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import kslab as ks
from kslab.state.caching_window import CachingWindowStore
from tests.conformance.state.caching._window_cache_support import (
    CacheContext,
    FlushListenerStub,
    memory_cache_entry_size,
)

MAX_CACHE_SIZE_BYTES = 150
DEFAULT_TIMESTAMP = 10
WINDOW_SIZE = 10
SEGMENT_INTERVAL = 100
TOPIC = "topic"
MAX = 2**63 - 1
NEXT_WINDOW = DEFAULT_TIMESTAMP + WINDOW_SIZE


@pytest.fixture
def context(tmp_path: Path) -> CacheContext:
    return CacheContext(tmp_path / "0_0", MAX_CACHE_SIZE_BYTES, DEFAULT_TIMESTAMP, TOPIC)


@pytest.fixture
def listener() -> FlushListenerStub:
    return FlushListenerStub()


@pytest.fixture
def store(context: CacheContext, listener: FlushListenerStub) -> Any:
    supplier = ks.Stores.persistent_window_store("store-name", 100, WINDOW_SIZE, False)
    supplier.segment_interval = SEGMENT_INTERVAL
    caching = ks.Stores.window_store_builder(supplier, ks.serdes.Bytes(), ks.serdes.Bytes()) \
        .with_caching_enabled().with_logging_disabled().build()
    assert isinstance(caching, CachingWindowStore)
    caching.init(context)
    caching.set_flush_listener(listener, False)
    yield caching
    if caching.is_open:
        caching.close()


def b(text: str) -> bytes:
    return text.encode()


def windowed(key: str, start: int) -> ks.Windowed:
    return ks.Windowed(b(key), ks.Window(start, start + WINDOW_SIZE))


def pair(key: str, value: str, start: int) -> ks.KeyValue:
    return ks.KeyValue(windowed(key, start), b(value))


def to_list(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def put_five(store: Any) -> None:
    for key, start in [("a", 0), ("b", 0), ("c", 10), ("d", 20), ("e", 20)]:
        store.put(b(key), b(key), DEFAULT_TIMESTAMP + start)


def five(*keys: str) -> list[ks.KeyValue]:
    starts = {"a": 0, "b": 0, "c": 10, "d": 20, "e": 20}
    return [pair(key, key, DEFAULT_TIMESTAMP + starts[key]) for key in keys]


def test_should_not_return_duplicates_in_ranges(tmp_path: Path) -> None:
    counts: list[tuple[int, int]] = []

    class Counting(ks.Processor):
        def init(self, context: Any) -> None:
            self.context = context
            self.store = context.get_state_store("store-name")
            self.processed = 0
            with self.store.all() as scan:
                assert sum(1 for _ in scan) == 0

        def process(self, record: ks.Record) -> None:
            with self.store.all() as scan:
                counts.append((sum(1 for _ in scan), self.processed))
            self.store.put(record.value, record.value, record.timestamp)
            self.processed += 1
            self.context.forward(record)

    builder = ks.StreamsBuilder()
    builder.add_state_store(ks.Stores.window_store_builder(
        ks.Stores.persistent_window_store("store-name", 3_600_000, 60_000, False),
        ks.serdes.String(), ks.serdes.String()).with_caching_enabled())
    builder.stream(TOPIC, ks.Consumed.with_(ks.serdes.String(), ks.serdes.String())) \
        .process(Counting, "store-name")
    config = {"consumer.auto.offset.reset": "earliest", "commit.interval.ms": 10_000,
              "state.dir": str(tmp_path)}
    with ks.TopologyTestDriver(builder.build(), config=config, initial_wall_clock_time=0) \
            as driver:
        topic = driver.create_input_topic(TOPIC, ks.serdes.String(), ks.serdes.String(),
                                          start_timestamp=0, auto_advance=0)
        for batch in range(4):
            for _ in range(5):
                topic.pipe_input(str(uuid.uuid4()), str(uuid.uuid4()))
            if batch < 3:
                driver.advance_wall_clock_time(10_000)
                topic.advance_time(10_000)
    assert counts == [(n, n) for n in range(20)]


def test_should_put_fetch_from_cache(store: Any) -> None:
    store.put(b("a"), b("a"), DEFAULT_TIMESTAMP)
    store.put(b("b"), b("b"), DEFAULT_TIMESTAMP)
    assert store.fetch(b("a"), 10) == b("a")
    assert store.fetch(b("b"), 10) == b("b")
    assert store.fetch(b("c"), 10) is None
    assert store.fetch(b("a"), 0) is None
    with store.fetch(b("a"), 10, 10) as a, store.fetch(b("b"), 10, 10) as bb:
        assert a.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b("a"))
        assert bb.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b("b"))
        assert not a.has_next()
        assert not bb.has_next()
        assert store.thread_cache.size() == 2


def test_should_put_fetch_range_from_cache(store: Any) -> None:
    store.put(b("a"), b("a"), DEFAULT_TIMESTAMP)
    store.put(b("b"), b("b"), DEFAULT_TIMESTAMP)
    assert to_list(store.fetch(b("a"), b("b"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP)) == \
        [pair("a", "a", DEFAULT_TIMESTAMP), pair("b", "b", DEFAULT_TIMESTAMP)]
    assert store.thread_cache.size() == 2


def test_should_put_fetch_range_from_cache_for_null_key_from(store: Any) -> None:
    put_five(store)
    assert to_list(store.fetch(None, b("d"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)) == \
        five("a", "b", "c", "d")


def test_should_put_fetch_range_from_cache_for_null_key_to(store: Any) -> None:
    put_five(store)
    assert to_list(store.fetch(b("b"), None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)) == \
        five("b", "c", "d", "e")


def test_should_put_fetch_range_from_cache_for_null_key_from_key_to(store: Any) -> None:
    put_five(store)
    assert to_list(store.fetch(None, None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)) == \
        five("a", "b", "c", "d", "e")


def test_should_put_backward_fetch_range_from_cache_for_null_key_from(store: Any) -> None:
    put_five(store)
    got = to_list(store.backward_fetch(None, b("c"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20))
    assert got == five("c", "b", "a")


def test_should_put_backward_fetch_range_from_cache_for_null_key_to(store: Any) -> None:
    put_five(store)
    got = to_list(store.backward_fetch(b("c"), None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20))
    assert got == five("e", "d", "c")


def test_should_put_backward_fetch_range_from_cache_for_null_key_from_key_to(store: Any) -> None:
    put_five(store)
    got = to_list(store.backward_fetch(None, None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20))
    assert got == five("e", "d", "c", "b", "a")


LETTERS = ["a", "b", "c", "d", "e", "f", "g", "h"]


def test_should_get_all_from_cache(store: Any) -> None:
    for key in LETTERS:
        store.put(b(key), b(key), DEFAULT_TIMESTAMP)
    assert to_list(store.all()) == [pair(key, key, DEFAULT_TIMESTAMP) for key in LETTERS]


def test_should_get_all_backward_from_cache(store: Any) -> None:
    for key in LETTERS:
        store.put(b(key), b(key), DEFAULT_TIMESTAMP)
    assert to_list(store.backward_all()) == \
        [pair(key, key, DEFAULT_TIMESTAMP) for key in reversed(LETTERS)]


def test_should_fetch_all_within_timestamp_range(store: Any) -> None:
    for i, key in enumerate(LETTERS):
        store.put(b(key), b(key), i)
    expected = [pair(key, key, i) for i, key in enumerate(LETTERS)]
    assert to_list(store.fetch_all(0, 7)) == expected
    assert to_list(store.fetch_all(2, 4)) == expected[2:5]
    assert to_list(store.fetch_all(5, 7)) == expected[5:8]


def test_should_fetch_all_backward_within_timestamp_range(store: Any) -> None:
    for i, key in enumerate(LETTERS):
        store.put(b(key), b(key), i)
    expected = [pair(key, key, i) for i, key in enumerate(LETTERS)]
    assert to_list(store.backward_fetch_all(0, 7)) == expected[::-1]
    assert to_list(store.backward_fetch_all(2, 4)) == expected[2:5][::-1]
    assert to_list(store.backward_fetch_all(5, 7)) == expected[5:8][::-1]


def add_items_to_cache(store: Any) -> int:
    cached, i = 0, 0
    while cached < MAX_CACHE_SIZE_BYTES:
        kv = str(i)
        i += 1
        store.put(b(kv), b(kv), DEFAULT_TIMESTAMP)
        cached += memory_cache_entry_size(b(kv), b(kv), TOPIC) + 8 + 4
    return i


def test_should_flush_evicted_items_into_underlying_store(store: Any) -> None:
    added = add_items_to_cache(store)
    with store.wrapped.fetch(b("0"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP) as it:
        assert it.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b("0"))
        assert not it.has_next()
    assert store.thread_cache.size() == added - 1


def test_should_forward_dirty_items_when_flush_called(store: Any,
                                                      listener: FlushListenerStub) -> None:
    key = ks.Windowed("1", ks.Window(DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    store.put(b("1"), b("a"), DEFAULT_TIMESTAMP)
    store.flush()
    assert listener.forwarded[key] == ("a", None)


def test_should_set_flush_listener(store: Any) -> None:
    assert store.set_flush_listener(None, True) is True
    assert store.set_flush_listener(None, False) is True


def forward_old_values(store: Any, listener: FlushListenerStub, send_old: bool) -> None:
    key = ks.Windowed("1", ks.Window(DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    store.put(b("1"), b("a"), DEFAULT_TIMESTAMP)
    store.put(b("1"), b("b"), DEFAULT_TIMESTAMP)
    store.flush()
    assert listener.forwarded[key] == ("b", None)
    listener.forwarded.clear()
    store.put(b("1"), b("c"), DEFAULT_TIMESTAMP)
    store.flush()
    assert listener.forwarded[key] == ("c", "b" if send_old else None)
    store.put(b("1"), None, DEFAULT_TIMESTAMP)
    store.flush()
    assert listener.forwarded[key] == (None, "c" if send_old else None)
    listener.forwarded.clear()
    store.put(b("1"), b("a"), DEFAULT_TIMESTAMP)
    store.put(b("1"), b("b"), DEFAULT_TIMESTAMP)
    store.put(b("1"), None, DEFAULT_TIMESTAMP)
    store.flush()
    assert key not in listener.forwarded


def test_should_forward_old_values_when_enabled(store: Any, listener: FlushListenerStub) -> None:
    store.set_flush_listener(listener, True)
    forward_old_values(store, listener, True)


def test_should_forward_old_values_when_disabled(store: Any,
                                                 listener: FlushListenerStub) -> None:
    forward_old_values(store, listener, False)


def test_should_forward_dirty_item_to_listener_when_evicted(store: Any,
                                                            listener: FlushListenerStub) -> None:
    added = add_items_to_cache(store)
    assert len(listener.forwarded) == added


def test_should_take_value_from_cache_if_same_timestamp_flushed_to_rocks(store: Any) -> None:
    store.put(b("1"), b("a"), DEFAULT_TIMESTAMP)
    store.flush()
    store.put(b("1"), b("b"), DEFAULT_TIMESTAMP)
    with store.fetch(b("1"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP) as it:
        assert it.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b("b"))
        assert not it.has_next()


def test_should_iterate_across_windows(store: Any) -> None:
    store.put(b("1"), b("a"), DEFAULT_TIMESTAMP)
    store.put(b("1"), b("b"), DEFAULT_TIMESTAMP + WINDOW_SIZE)
    assert to_list(store.fetch(b("1"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE)) == \
        [ks.KeyValue(DEFAULT_TIMESTAMP, b("a")), ks.KeyValue(NEXT_WINDOW, b("b"))]


def test_should_iterate_backward_across_windows(store: Any) -> None:
    store.put(b("1"), b("a"), DEFAULT_TIMESTAMP)
    store.put(b("1"), b("b"), DEFAULT_TIMESTAMP + WINDOW_SIZE)
    got = to_list(store.backward_fetch(b("1"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert got == [ks.KeyValue(DEFAULT_TIMESTAMP + WINDOW_SIZE, b("b")),
                   ks.KeyValue(DEFAULT_TIMESTAMP, b("a"))]


def cache_and_store(store: Any) -> None:
    store.wrapped.put(b("1"), b("a"), DEFAULT_TIMESTAMP)
    store.put(b("1"), b("b"), DEFAULT_TIMESTAMP + WINDOW_SIZE)


def test_should_iterate_cache_and_store(store: Any) -> None:
    cache_and_store(store)
    assert to_list(store.fetch(b("1"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE)) == \
        [ks.KeyValue(DEFAULT_TIMESTAMP, b("a")), ks.KeyValue(NEXT_WINDOW, b("b"))]


def test_should_iterate_backward_cache_and_store(store: Any) -> None:
    cache_and_store(store)
    got = to_list(store.backward_fetch(b("1"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert got == [ks.KeyValue(DEFAULT_TIMESTAMP + WINDOW_SIZE, b("b")),
                   ks.KeyValue(DEFAULT_TIMESTAMP, b("a"))]


def test_should_iterate_cache_and_store_key_range(store: Any) -> None:
    cache_and_store(store)
    got = to_list(store.fetch(b("1"), b("2"), DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert got == [pair("1", "a", DEFAULT_TIMESTAMP), pair("1", "b", NEXT_WINDOW)]


def test_should_iterate_backward_cache_and_store_key_range(store: Any) -> None:
    cache_and_store(store)
    got = to_list(store.backward_fetch(b("1"), b("2"), DEFAULT_TIMESTAMP,
                                       DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert got == [pair("1", "b", NEXT_WINDOW), pair("1", "a", DEFAULT_TIMESTAMP)]


def test_should_clear_namespace_cache_on_close(store: Any) -> None:
    store.put(b("a"), b("a"), 0)
    cache = store.thread_cache
    assert cache.size() == 1
    store.close()
    assert cache.size() == 0


def test_should_throw_if_trying_to_fetch_from_closed_caching_store(store: Any) -> None:
    store.close()
    with pytest.raises(ks.StoreError):
        store.fetch(b("a"), 0, 10)


def test_should_throw_if_trying_to_fetch_range_from_closed_caching_store(store: Any) -> None:
    store.close()
    with pytest.raises(ks.StoreError):
        store.fetch(b("a"), b("b"), 0, 10)


def test_should_throw_if_trying_to_write_to_closed_caching_store(store: Any) -> None:
    store.close()
    with pytest.raises(ks.StoreError):
        store.put(b("a"), b("a"), 0)


def put_exact(store: Any) -> None:
    for key, value, start in [("a", "0001", 0), ("aa", "0002", 0), ("a", "0003", 1),
                              ("aa", "0004", 1), ("a", "0005", SEGMENT_INTERVAL)]:
        store.put(b(key), b(value), start)


def test_should_fetch_and_iterate_over_exact_keys(store: Any) -> None:
    put_exact(store)
    assert to_list(store.fetch(b("a"), 0, MAX)) == [
        ks.KeyValue(0, b("0001")), ks.KeyValue(1, b("0003")),
        ks.KeyValue(SEGMENT_INTERVAL, b("0005"))]


def test_should_backward_fetch_and_iterate_over_exact_keys(store: Any) -> None:
    put_exact(store)
    assert to_list(store.backward_fetch(b("a"), 0, MAX)) == [
        ks.KeyValue(SEGMENT_INTERVAL, b("0005")), ks.KeyValue(1, b("0003")),
        ks.KeyValue(0, b("0001"))]


def test_should_fetch_and_iterate_over_key_range(store: Any) -> None:
    put_exact(store)
    assert to_list(store.fetch(b("a"), b("a"), 0, MAX)) == [
        pair("a", "0001", 0), pair("a", "0003", 1), pair("a", "0005", SEGMENT_INTERVAL)]
    assert to_list(store.fetch(b("aa"), b("aa"), 0, MAX)) == [
        pair("aa", "0002", 0), pair("aa", "0004", 1)]
    assert to_list(store.fetch(b("a"), b("aa"), 0, MAX)) == [
        pair("a", "0001", 0), pair("a", "0003", 1), pair("aa", "0002", 0),
        pair("aa", "0004", 1), pair("a", "0005", SEGMENT_INTERVAL)]


def test_should_fetch_and_iterate_over_key_backward_range(store: Any) -> None:
    put_exact(store)
    assert to_list(store.backward_fetch(b("a"), b("a"), 0, MAX)) == [
        pair("a", "0005", SEGMENT_INTERVAL), pair("a", "0003", 1), pair("a", "0001", 0)]
    assert to_list(store.backward_fetch(b("aa"), b("aa"), 0, MAX)) == [
        pair("aa", "0004", 1), pair("aa", "0002", 0)]
    assert to_list(store.backward_fetch(b("a"), b("aa"), 0, MAX)) == [
        pair("a", "0005", SEGMENT_INTERVAL), pair("aa", "0004", 1), pair("aa", "0002", 0),
        pair("a", "0003", 1), pair("a", "0001", 0)]


def put_same(store: Any) -> None:
    for key, value, start in [("a", "0001", 0), ("aa", "0002", 1), ("aa", "0003", 2),
                              ("aaa", "0004", 3)]:
        store.put(b(key), b(value), start)


def test_should_return_same_results_for_single_key_fetch_and_equal_key_range_fetch(
        store: Any) -> None:
    put_same(store)
    with store.fetch(b("aa"), 0, 5) as single, store.fetch(b("aa"), b("aa"), 0, 5) as ranged:
        assert single.next().value == ranged.next().value
        assert single.next().value == ranged.next().value
        assert not single.has_next()
        assert not ranged.has_next()


def test_should_return_same_results_for_single_key_fetch_and_equal_key_range_backward_fetch(
        store: Any) -> None:
    put_same(store)
    with store.backward_fetch(b("aa"), 0, 5) as single, \
            store.backward_fetch(b("aa"), b("aa"), 0, 5) as ranged:
        assert single.next().value == ranged.next().value
        assert single.next().value == ranged.next().value
        assert not single.has_next()
        assert not ranged.has_next()


def test_should_throw_null_pointer_exception_on_put_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.put(None, b("anyValue"), 0)


def test_should_not_throw_null_pointer_exception_on_put_null_value(store: Any) -> None:
    store.put(b("a"), None, 0)


def test_should_throw_null_pointer_exception_on_fetch_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.fetch(None, 1, 2)


NEGATIVE_FROM, POSITIVE_TO = struct.pack(">i", -1), struct.pack(">i", 1)


def test_should_not_throw_invalid_range_exception_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), \
            store.fetch(NEGATIVE_FROM, POSITIVE_TO, 0, 10) as iterator:
        assert not iterator.has_next()
    assert (
        "Returning empty iterator for fetch with invalid key range: from > to. This may be due "
        "to range arguments set in the wrong order, or serdes that don't preserve ordering when "
        "lexicographically comparing the serialized bytes. Note that the built-in numerical "
        "serdes do not follow this for negative numbers"
    ) in caplog.messages


def test_should_not_throw_invalid_backward_range_exception_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), \
            store.backward_fetch(NEGATIVE_FROM, POSITIVE_TO, 0, 10) as iterator:
        assert not iterator.has_next()
    assert (
        "Returning empty iterator for fetch with invalid key range: from > to. This may be due "
        "to serdes that don't preserve ordering when lexicographically comparing the serialized "
        "bytes. Note that the built-in numerical serdes do not follow this for negative numbers"
    ) in caplog.messages


def close_setup(store: Any) -> tuple[mock.Mock, mock.Mock]:
    """Java's ``setUpCloseTests``: a mocked cache and wrapped store behind the caching store."""
    real_inner = store.wrapped
    cache, inner = mock.MagicMock(), mock.MagicMock(wraps=real_inner)
    order = mock.MagicMock()
    order.attach_mock(cache, "cache")
    order.attach_mock(inner, "inner")
    # internal on purpose: Java's test injects its mocks the same way
    store._cache, store._inner = cache, inner
    return order, real_inner


def test_should_close_cache_and_wrapped_store_after_error_during_cache_flush(store: Any) -> None:
    order, real = close_setup(store)
    order.cache.flush.side_effect = [RuntimeError("Simulating an error on flush"), None]
    with pytest.raises(Exception):  # noqa: B017
        store.close()
    names = [c[0] for c in order.mock_calls]
    assert names.index("cache.close") < names.index("inner.close")
    real.close()


def test_should_close_wrapped_store_after_error_during_cache_close(store: Any) -> None:
    order, real = close_setup(store)
    order.cache.close.side_effect = [RuntimeError("Simulating an error on close"), None]
    with pytest.raises(Exception):  # noqa: B017
        store.close()
    names = [c[0] for c in order.mock_calls]
    assert names.index("cache.flush") < names.index("inner.close")
    real.close()


def test_should_close_cache_after_error_during_state_store_close(store: Any) -> None:
    order, real = close_setup(store)
    order.inner.close.side_effect = [RuntimeError("Simulating an error on close"), None]
    with pytest.raises(Exception):  # noqa: B017
        store.close()
    names = [c[0] for c in order.mock_calls]
    assert names.index("cache.flush") < names.index("cache.close")
    real.close()
