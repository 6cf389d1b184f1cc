"""The tests ``TimeOrderedWindowStoreTest`` and ``TimeOrderedCachingPersistentWindowStoreTest``
share (the two Java classes are the same but for three names): a cached time-ordered RocksDB
window store of bytes, retention and segment interval 100 ms, window size 10 ms, over a 300-byte
thread cache, with and without the key-first index (``has_index``).

Mapping: Java's ``RocksDBTimeOrderedWindowSegmentedBytesStore`` + ``RocksDBTimeOrderedWindowStore``
+ ``TimeOrderedCachingWindowStore`` is kslab's ``persistent_window_store`` supplier marked
``time_ordered`` (as the DSL marks an emit-on-window-close store) with ``segment_interval`` 100
and ``has_index``, built by ``window_store_builder`` with ``serdes.Bytes()`` keys and values,
caching on and logging off; ``underlyingStore`` is the cached store's ``wrapped`` store (a write to
Java's ``bytesStore`` is a write to it), ``cache`` its ``thread_cache``. The context is
``RecordingContext`` (timestamp 10, offset 0, partition 0, topic "topic") with
``statestore.cache.max.bytes`` = 300. ``CacheFlushListenerStub`` records ``(new, old)`` per
``Windowed`` key with the bytes decoded as Strings. ``InvalidStateStoreException`` and
``NullPointerException`` are ``ks.StoreError``.

``has_index`` is the supplier's ``has_index`` flag (Java's ``RocksDbIndexedTimeOrderedWindow
BytesStoreSupplier`` with ``hasIndex``): index entries count in the cache and key-range fetches
go key first within a segment.
Skipped: ``shouldDelegateInit``, ``shouldThrowIfWrongStore`` and the three ``shouldClose...``
tests (Mockito mocks of the inner store and ``ThreadCache``; kslab has one caching window store
class), ``shouldMatchPositionAfterPut...`` (IQv2 ``Position`` is not in kslab's API).
``shouldSkipNonExistBaseKeyInCache`` puts a bare index entry into the cache by hand under
kslab's cache key layout (8-byte segment, schema prefix 1, key, start, sequence).
"""

from __future__ import annotations

import logging
import struct
import uuid
from typing import Any

import pytest

import kslab as ks
from kslab.state.cache import LRUCacheEntry
from tests.conformance.state._kv_store_support import RecordingContext

__all__ = [
    "HAS_INDEX",
    "FlushListenerStub",
    "Setup",
    "cached",
    "check_no_duplicates_in_ranges",
    "check_old_values_when_disabled",
    "setup",
    "test_should_backward_fetch_and_iterate_over_exact_keys",
    "test_should_clear_namespace_cache_on_close",
    "test_should_fetch_all_backward_within_timestamp_range",
    "test_should_fetch_all_within_timestamp_range",
    "test_should_fetch_and_iterate_over_exact_keys",
    "test_should_fetch_and_iterate_over_key_backward_range",
    "test_should_fetch_and_iterate_over_key_range",
    "test_should_flush_evicted_items_into_underlying_store",
    "test_should_forward_dirty_item_to_listener_when_evicted",
    "test_should_forward_dirty_items_when_flush_called",
    "test_should_forward_old_values_when_enabled",
    "test_should_get_all_backward_from_cache",
    "test_should_get_all_from_cache",
    "test_should_iterate_across_windows",
    "test_should_iterate_backward_across_windows",
    "test_should_iterate_backward_cache_and_store",
    "test_should_iterate_backward_cache_and_store_key_range",
    "test_should_iterate_cache_and_store",
    "test_should_iterate_cache_and_store_key_range",
    "test_should_not_throw_invalid_backward_range_exception_with_negative_from_key",
    "test_should_not_throw_invalid_range_exception_with_negative_from_key",
    "test_should_not_throw_null_pointer_exception_on_put_null_value",
    "test_should_put_backward_fetch_range_from_cache_for_null_key_from",
    "test_should_put_backward_fetch_range_from_cache_for_null_key_from_key_to",
    "test_should_put_backward_fetch_range_from_cache_for_null_key_to",
    "test_should_put_fetch_from_cache",
    "test_should_put_fetch_range_from_cache",
    "test_should_put_fetch_range_from_cache_for_null_key_from",
    "test_should_put_fetch_range_from_cache_for_null_key_from_key_to",
    "test_should_put_fetch_range_from_cache_for_null_key_to",
    "test_should_return_same_results_for_single_key_fetch_and_equal_key_range_backward_fetch",
    "test_should_return_same_results_for_single_key_fetch_and_equal_key_range_fetch",
    "test_should_set_flush_listener",
    "test_should_skip_non_exist_base_key_in_cache",
    "test_should_take_value_from_cache_if_same_timestamp_flushed_to_rocks",
    "test_should_throw_if_trying_to_fetch_from_closed_caching_store",
    "test_should_throw_if_trying_to_fetch_range_from_closed_caching_store",
    "test_should_throw_if_trying_to_write_to_closed_caching_store",
    "test_should_throw_null_pointer_exception_on_fetch_null_key",
    "test_should_throw_null_pointer_exception_on_put_null_key",
]

MAX_CACHE_SIZE_BYTES = 300
DEFAULT_TIMESTAMP = 10
WINDOW_SIZE = 10
SEGMENT_INTERVAL = 100
TOPIC = "topic"
LONG_MAX = 2**63 - 1
B = ks.serdes.Bytes()

HAS_INDEX = [pytest.param(True, id="has_index"), pytest.param(False, id="no_index")]


class FlushListenerStub:
    """``CacheFlushListenerStub``: the last ``(new, old)`` per ``Windowed<String>`` key."""

    def __init__(self) -> None:
        self.forwarded: dict[ks.Windowed, tuple[str | None, str | None]] = {}

    def __call__(self, key: ks.Windowed, new: Any, old: Any, record: Any) -> None:
        self.forwarded[ks.Windowed(key.key.decode(), key.window)] = (_text(new), _text(old))


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode()


def time_ordered_supplier(name: str, retention: int, window_size: int, retain_duplicates: bool,
                          has_index: bool) -> Any:
    """``RocksDbIndexedTimeOrderedWindowBytesStoreSupplier.create(...)``."""
    supplier = ks.Stores.persistent_window_store(name, retention, window_size, retain_duplicates)
    supplier.time_ordered = True
    supplier.has_index = has_index
    return supplier


class Setup:
    """Java's test fields after ``setUp(hasIndex)``."""

    def __init__(self, store: Any, listener: FlushListenerStub, has_index: bool) -> None:
        self.store = store  # cachingStore
        self.listener = listener  # cacheListener
        self.has_index = has_index

    @property
    def underlying(self) -> Any:
        """``underlyingStore`` (and ``bytesStore``): the store under the cache."""
        return self.store.wrapped

    @property
    def cache(self) -> Any:
        return self.store.thread_cache


@pytest.fixture
def setup(request: Any, tmp_path: Any) -> Any:
    """``setUp(hasIndex)``: the caching store over the time-ordered store, opened."""
    context = RecordingContext(tmp_path, B, B)
    context.configs = {"statestore.cache.max.bytes": MAX_CACHE_SIZE_BYTES}
    supplier = time_ordered_supplier("test", 100, WINDOW_SIZE, False, request.param)
    supplier.segment_interval = SEGMENT_INTERVAL
    store = ks.Stores.window_store_builder(supplier, B, B).with_caching_enabled() \
        .with_logging_disabled().build()
    listener = FlushListenerStub()
    store.set_flush_listener(listener, False)
    store.init(context, store)
    yield Setup(store, listener, request.param)
    if store.is_open:
        store.close()


def cached(params: list[Any] = HAS_INDEX) -> Any:
    """Parametrize the ``setup`` fixture by ``hasIndex``."""
    return pytest.mark.parametrize("setup", params, indirect=True)


def windowed(key: str, start: int) -> ks.Windowed:
    return ks.Windowed(key.encode(), ks.Window(start, start + WINDOW_SIZE))


def windowed_pair(key: str, value: str, start: int) -> ks.KeyValue:
    return ks.KeyValue(windowed(key, start), value.encode())


def to_list(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def verify_all_windowed(iterator: Any, keys: list[ks.Windowed], values: list[str]) -> None:
    """``verifyAllWindowedKeyValues``: exactly these keys and values, in order."""
    with iterator:
        for key, value in zip(keys, values, strict=True):
            assert iterator.has_next()
            assert iterator.next() == ks.KeyValue(key, value.encode())
        assert not iterator.has_next()


def put_five(store: Any) -> None:
    store.put(b"a", b"a", DEFAULT_TIMESTAMP)
    store.put(b"b", b"b", DEFAULT_TIMESTAMP)
    store.put(b"c", b"c", DEFAULT_TIMESTAMP + 10)
    store.put(b"d", b"d", DEFAULT_TIMESTAMP + 20)
    store.put(b"e", b"e", DEFAULT_TIMESTAMP + 20)


def put_keys_a_aa(store: Any) -> None:
    store.put(b"a", b"0001", 0)
    store.put(b"aa", b"0002", 0)
    store.put(b"a", b"0003", 1)
    store.put(b"aa", b"0004", 1)
    store.put(b"a", b"0005", SEGMENT_INTERVAL)


def memory_cache_entry_size(key: bytes, value: bytes, topic: str) -> int:
    """``ThreadCacheTest.memoryCacheEntrySize``."""
    return len(key) + len(value) + 1 + 8 + 8 + 4 + len(topic) + len(key) + 8 + 8 + 8


def add_items_to_cache(store: Any) -> int:
    cached_size, i = 0, 0
    while cached_size < MAX_CACHE_SIZE_BYTES:
        kv = str(i).encode()
        i += 1
        store.put(kv, kv, DEFAULT_TIMESTAMP)
        cached_size += memory_cache_entry_size(kv, kv, TOPIC) + 8 + 4  # timestamp, sequence
    return i


def check_no_duplicates_in_ranges(has_index: bool, tmp_path: Any, *, forward: bool) -> None:
    """``shouldNotReturnDuplicatesInRanges``: a processor counts ``all()`` of a cached
    timestamped time-ordered store before each put; the count is the records processed so far
    (``forward``: the processor forwards each record, as ``TimeOrderedWindowStoreTest``'s)."""
    builder = ks.StreamsBuilder()
    supplier = time_ordered_supplier("store-name", 3_600_000, 60_000, False, has_index)
    builder.add_state_store(ks.Stores.timestamped_window_store_builder(
        supplier, ks.serdes.String(), ks.serdes.String()).with_caching_enabled())

    class Counting(ks.Processor):
        def init(self, context: Any) -> None:
            self.context = context
            self.store = context.get_state_store("store-name")
            self.processed = 0
            assert len(to_list(self.store.all())) == 0

        def process(self, record: ks.Record) -> None:
            assert len(to_list(self.store.all())) == self.processed
            self.store.put(record.value, ks.ValueAndTimestamp(record.value, record.timestamp),
                           record.timestamp)
            self.processed += 1
            if forward:
                self.context.forward(record)

    builder.stream(TOPIC, ks.Consumed.with_(ks.serdes.String(), ks.serdes.String())) \
        .process(Counting, "store-name")
    config = {
        "auto.offset.reset": "earliest",
        "default.key.serde": "string",
        "default.value.serde": "string",
        "state.dir": str(tmp_path),
        "commit.interval.ms": 10 * 1000,
    }
    driver = ks.TopologyTestDriver(builder.build(), config, 0)
    topic = driver.create_input_topic(TOPIC, ks.serdes.String(), ks.serdes.String(), 0, 0)
    for batch in range(4):
        if batch:
            driver.advance_wall_clock_time(10_000)
            topic.advance_time(10_000)
        for _ in range(5):
            topic.pipe_input(str(uuid.uuid4()), str(uuid.uuid4()))
    driver.close()


@cached()
def test_should_put_fetch_from_cache(setup: Setup) -> None:
    store = setup.store
    store.put(b"a", b"a", DEFAULT_TIMESTAMP)
    store.put(b"b", b"b", DEFAULT_TIMESTAMP)
    assert store.fetch(b"a", 10) == b"a"
    assert store.fetch(b"b", 10) == b"b"
    assert store.fetch(b"c", 10) is None
    assert store.fetch(b"a", 0) is None
    with store.fetch(b"a", 10, 10) as a, store.fetch(b"b", 10, 10) as b:
        assert a.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b"a")
        assert b.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b"b")
        assert not a.has_next()
        assert not b.has_next()
        assert setup.cache.size() == (4 if setup.has_index else 2)


@cached()
def test_should_put_fetch_range_from_cache(setup: Setup) -> None:
    store = setup.store
    store.put(b"a", b"a", DEFAULT_TIMESTAMP)
    store.put(b"b", b"b", DEFAULT_TIMESTAMP)
    iterator = store.fetch(b"a", b"b", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP)
    verify_all_windowed(iterator, [windowed("a", DEFAULT_TIMESTAMP),
                                   windowed("b", DEFAULT_TIMESTAMP)], ["a", "b"])
    assert setup.cache.size() == (4 if setup.has_index else 2)


@cached()
def test_should_put_fetch_range_from_cache_for_null_key_from(setup: Setup) -> None:
    put_five(setup.store)
    iterator = setup.store.fetch(None, b"d", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)
    verify_all_windowed(iterator, [
        windowed("a", DEFAULT_TIMESTAMP), windowed("b", DEFAULT_TIMESTAMP),
        windowed("c", DEFAULT_TIMESTAMP + 10), windowed("d", DEFAULT_TIMESTAMP + 20),
    ], ["a", "b", "c", "d"])


@cached()
def test_should_put_fetch_range_from_cache_for_null_key_to(setup: Setup) -> None:
    put_five(setup.store)
    iterator = setup.store.fetch(b"b", None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)
    verify_all_windowed(iterator, [
        windowed("b", DEFAULT_TIMESTAMP), windowed("c", DEFAULT_TIMESTAMP + 10),
        windowed("d", DEFAULT_TIMESTAMP + 20), windowed("e", DEFAULT_TIMESTAMP + 20),
    ], ["b", "c", "d", "e"])


@cached()
def test_should_put_fetch_range_from_cache_for_null_key_from_key_to(setup: Setup) -> None:
    put_five(setup.store)
    iterator = setup.store.fetch(None, None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)
    verify_all_windowed(iterator, [
        windowed("a", DEFAULT_TIMESTAMP), windowed("b", DEFAULT_TIMESTAMP),
        windowed("c", DEFAULT_TIMESTAMP + 10), windowed("d", DEFAULT_TIMESTAMP + 20),
        windowed("e", DEFAULT_TIMESTAMP + 20),
    ], ["a", "b", "c", "d", "e"])


@cached()
def test_should_put_backward_fetch_range_from_cache_for_null_key_from(setup: Setup) -> None:
    put_five(setup.store)
    iterator = setup.store.backward_fetch(None, b"c", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)
    verify_all_windowed(iterator, [
        windowed("c", DEFAULT_TIMESTAMP + 10), windowed("b", DEFAULT_TIMESTAMP),
        windowed("a", DEFAULT_TIMESTAMP),
    ], ["c", "b", "a"])


@cached()
def test_should_put_backward_fetch_range_from_cache_for_null_key_to(setup: Setup) -> None:
    put_five(setup.store)
    iterator = setup.store.backward_fetch(b"c", None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)
    verify_all_windowed(iterator, [
        windowed("e", DEFAULT_TIMESTAMP + 20), windowed("d", DEFAULT_TIMESTAMP + 20),
        windowed("c", DEFAULT_TIMESTAMP + 10),
    ], ["e", "d", "c"])


@cached()
def test_should_put_backward_fetch_range_from_cache_for_null_key_from_key_to(
        setup: Setup) -> None:
    put_five(setup.store)
    iterator = setup.store.backward_fetch(None, None, DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + 20)
    verify_all_windowed(iterator, [
        windowed("e", DEFAULT_TIMESTAMP + 20), windowed("d", DEFAULT_TIMESTAMP + 20),
        windowed("c", DEFAULT_TIMESTAMP + 10), windowed("b", DEFAULT_TIMESTAMP),
        windowed("a", DEFAULT_TIMESTAMP),
    ], ["e", "d", "c", "b", "a"])


LETTERS = ["a", "b", "c", "d", "e", "f", "g", "h"]


@cached()
def test_should_get_all_from_cache(setup: Setup) -> None:
    for s in LETTERS:
        setup.store.put(s.encode(), s.encode(), DEFAULT_TIMESTAMP)
    verify_all_windowed(setup.store.all(), [windowed(s, DEFAULT_TIMESTAMP) for s in LETTERS],
                        LETTERS)


@cached()
def test_should_get_all_backward_from_cache(setup: Setup) -> None:
    for s in LETTERS:
        setup.store.put(s.encode(), s.encode(), DEFAULT_TIMESTAMP)
    backward = LETTERS[::-1]
    verify_all_windowed(setup.store.backward_all(),
                        [windowed(s, DEFAULT_TIMESTAMP) for s in backward], backward)


@cached()
def test_should_fetch_all_within_timestamp_range(setup: Setup) -> None:
    for i, s in enumerate(LETTERS):
        setup.store.put(s.encode(), s.encode(), i)
    for low, high in ((0, 7), (2, 4), (5, 7)):
        verify_all_windowed(setup.store.fetch_all(low, high),
                            [windowed(LETTERS[i], i) for i in range(low, high + 1)],
                            LETTERS[low:high + 1])


@cached()
def test_should_fetch_all_backward_within_timestamp_range(setup: Setup) -> None:
    for i, s in enumerate(LETTERS):
        setup.store.put(s.encode(), s.encode(), i)
    for low, high in ((0, 7), (2, 4), (5, 7)):
        indexes = range(high, low - 1, -1)
        verify_all_windowed(setup.store.backward_fetch_all(low, high),
                            [windowed(LETTERS[i], i) for i in indexes],
                            [LETTERS[i] for i in indexes])


@cached()
def test_should_flush_evicted_items_into_underlying_store(setup: Setup) -> None:
    added = add_items_to_cache(setup.store)
    # all dirty entries should have been flushed
    with setup.underlying.fetch(b"0", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP) as iterator:
        assert iterator.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b"0")
        assert not iterator.has_next()
        assert setup.cache.size() == added - 1


@cached()
def test_should_forward_dirty_items_when_flush_called(setup: Setup) -> None:
    key = ks.Windowed("1", ks.Window(DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    setup.store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    setup.store.flush()
    assert setup.listener.forwarded[key] == ("a", None)


@cached()
def test_should_set_flush_listener(setup: Setup) -> None:
    assert setup.store.set_flush_listener(None, True)
    assert setup.store.set_flush_listener(None, False)


@cached()
def test_should_forward_old_values_when_enabled(setup: Setup) -> None:
    store, forwarded = setup.store, setup.listener.forwarded
    store.set_flush_listener(setup.listener, True)
    key = ks.Windowed("1", ks.Window(DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    store.put(b"1", b"b", DEFAULT_TIMESTAMP)
    store.flush()
    assert forwarded[key] == ("b", None)
    forwarded.clear()
    store.put(b"1", b"c", DEFAULT_TIMESTAMP)
    store.flush()
    assert forwarded[key] == ("c", "b")
    store.put(b"1", None, DEFAULT_TIMESTAMP)
    store.flush()
    assert forwarded[key] == (None, "c")
    forwarded.clear()
    store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    store.put(b"1", b"b", DEFAULT_TIMESTAMP)
    store.put(b"1", None, DEFAULT_TIMESTAMP)
    store.flush()
    assert key not in forwarded
    forwarded.clear()


def check_old_values_when_disabled(setup: Setup) -> None:
    """``shouldForwardOldValuesWhenDisabled`` / ``shouldNotForwardOldValuesWhenDisabled``."""
    store, forwarded = setup.store, setup.listener.forwarded
    key = ks.Windowed("1", ks.Window(DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    store.put(b"1", b"b", DEFAULT_TIMESTAMP)
    store.flush()
    assert forwarded[key] == ("b", None)
    store.put(b"1", b"c", DEFAULT_TIMESTAMP)
    store.flush()
    assert forwarded[key] == ("c", None)
    store.put(b"1", None, DEFAULT_TIMESTAMP)
    store.flush()
    assert forwarded[key] == (None, None)
    forwarded.clear()
    store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    store.put(b"1", b"b", DEFAULT_TIMESTAMP)
    store.put(b"1", None, DEFAULT_TIMESTAMP)
    store.flush()
    assert key not in forwarded
    forwarded.clear()


@cached()
def test_should_forward_dirty_item_to_listener_when_evicted(setup: Setup) -> None:
    num_records = add_items_to_cache(setup.store)
    assert len(setup.listener.forwarded) == num_records


@cached()
def test_should_take_value_from_cache_if_same_timestamp_flushed_to_rocks(setup: Setup) -> None:
    setup.store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    setup.store.flush()
    setup.store.put(b"1", b"b", DEFAULT_TIMESTAMP)
    with setup.store.fetch(b"1", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP) as fetch:
        assert fetch.next() == ks.KeyValue(DEFAULT_TIMESTAMP, b"b")
        assert not fetch.has_next()


@cached()
def test_should_iterate_across_windows(setup: Setup) -> None:
    setup.store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    setup.store.put(b"1", b"b", DEFAULT_TIMESTAMP + WINDOW_SIZE)
    fetched = to_list(setup.store.fetch(b"1", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert fetched == [ks.KeyValue(DEFAULT_TIMESTAMP, b"a"),
                       ks.KeyValue(DEFAULT_TIMESTAMP + WINDOW_SIZE, b"b")]


@cached()
def test_should_iterate_backward_across_windows(setup: Setup) -> None:
    setup.store.put(b"1", b"a", DEFAULT_TIMESTAMP)
    setup.store.put(b"1", b"b", DEFAULT_TIMESTAMP + WINDOW_SIZE)
    fetched = to_list(setup.store.backward_fetch(b"1", DEFAULT_TIMESTAMP,
                                                 DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert fetched == [ks.KeyValue(DEFAULT_TIMESTAMP + WINDOW_SIZE, b"b"),
                       ks.KeyValue(DEFAULT_TIMESTAMP, b"a")]


def put_stored_and_cached(setup: Setup) -> None:
    """``bytesStore.put(<"1" at 10>, "a")`` under the cache, then "b" at 20 through it."""
    setup.underlying.put(b"1", b"a", DEFAULT_TIMESTAMP)
    setup.store.put(b"1", b"b", DEFAULT_TIMESTAMP + WINDOW_SIZE)


@cached()
def test_should_iterate_cache_and_store(setup: Setup) -> None:
    put_stored_and_cached(setup)
    fetched = to_list(setup.store.fetch(b"1", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert fetched == [ks.KeyValue(DEFAULT_TIMESTAMP, b"a"),
                       ks.KeyValue(DEFAULT_TIMESTAMP + WINDOW_SIZE, b"b")]


@cached()
def test_should_iterate_backward_cache_and_store(setup: Setup) -> None:
    put_stored_and_cached(setup)
    fetched = to_list(setup.store.backward_fetch(b"1", DEFAULT_TIMESTAMP,
                                                 DEFAULT_TIMESTAMP + WINDOW_SIZE))
    assert fetched == [ks.KeyValue(DEFAULT_TIMESTAMP + WINDOW_SIZE, b"b"),
                       ks.KeyValue(DEFAULT_TIMESTAMP, b"a")]


@cached()
def test_should_iterate_cache_and_store_key_range(setup: Setup) -> None:
    put_stored_and_cached(setup)
    iterator = setup.store.fetch(b"1", b"2", DEFAULT_TIMESTAMP, DEFAULT_TIMESTAMP + WINDOW_SIZE)
    verify_all_windowed(iterator, [windowed("1", DEFAULT_TIMESTAMP),
                                   windowed("1", DEFAULT_TIMESTAMP + WINDOW_SIZE)], ["a", "b"])


@cached()
def test_should_iterate_backward_cache_and_store_key_range(setup: Setup) -> None:
    put_stored_and_cached(setup)
    iterator = setup.store.backward_fetch(b"1", b"2", DEFAULT_TIMESTAMP,
                                          DEFAULT_TIMESTAMP + WINDOW_SIZE)
    verify_all_windowed(iterator, [windowed("1", DEFAULT_TIMESTAMP + WINDOW_SIZE),
                                   windowed("1", DEFAULT_TIMESTAMP)], ["b", "a"])


@cached()
def test_should_clear_namespace_cache_on_close(setup: Setup) -> None:
    setup.store.put(b"a", b"a", 0)
    cache = setup.cache
    assert cache.size() == (2 if setup.has_index else 1)
    setup.store.close()
    assert cache.size() == 0


@cached()
def test_should_throw_if_trying_to_fetch_from_closed_caching_store(setup: Setup) -> None:
    setup.store.close()
    with pytest.raises(ks.StoreError):
        setup.store.fetch(b"a", 0, 10)


@cached()
def test_should_throw_if_trying_to_fetch_range_from_closed_caching_store(setup: Setup) -> None:
    setup.store.close()
    with pytest.raises(ks.StoreError):
        setup.store.fetch(b"a", b"b", 0, 10)


@cached()
def test_should_throw_if_trying_to_write_to_closed_caching_store(setup: Setup) -> None:
    setup.store.close()
    with pytest.raises(ks.StoreError):
        setup.store.put(b"a", b"a", 0)


@cached()
def test_should_skip_non_exist_base_key_in_cache(setup: Setup) -> None:
    setup.store.put(b"aa", b"0002", 0)
    if setup.has_index:  # only an index entry (segment, prefix 1, key, start, seq) in the cache
        cache_index_key = struct.pack(">q", 1 // SEGMENT_INTERVAL) + b"\x01" + b"a" + \
            struct.pack(">qi", 1, 0)
        setup.cache.put("0_0-test", cache_index_key,
                        LRUCacheEntry(b"", None, True, 0, DEFAULT_TIMESTAMP, 0, ""))
    setup.underlying.put(b"a", b"0001", 1)
    fetched = to_list(setup.store.fetch(b"a", b"aa", 0, LONG_MAX))
    if setup.has_index:
        assert fetched == [windowed_pair("a", "0001", 1), windowed_pair("aa", "0002", 0)]
    else:
        assert fetched == [windowed_pair("aa", "0002", 0), windowed_pair("a", "0001", 1)]


@cached()
def test_should_fetch_and_iterate_over_exact_keys(setup: Setup) -> None:
    put_keys_a_aa(setup.store)
    assert to_list(setup.store.fetch(b"a", 0, LONG_MAX)) == [
        ks.KeyValue(0, b"0001"), ks.KeyValue(1, b"0003"), ks.KeyValue(SEGMENT_INTERVAL, b"0005"),
    ]


@cached()
def test_should_backward_fetch_and_iterate_over_exact_keys(setup: Setup) -> None:
    put_keys_a_aa(setup.store)
    assert to_list(setup.store.backward_fetch(b"a", 0, LONG_MAX)) == [
        ks.KeyValue(SEGMENT_INTERVAL, b"0005"), ks.KeyValue(1, b"0003"), ks.KeyValue(0, b"0001"),
    ]


@cached()
def test_should_fetch_and_iterate_over_key_range(setup: Setup) -> None:
    store = setup.store
    put_keys_a_aa(store)
    assert to_list(store.fetch(b"a", b"a", 0, LONG_MAX)) == [
        windowed_pair("a", "0001", 0), windowed_pair("a", "0003", 1),
        windowed_pair("a", "0005", SEGMENT_INTERVAL),
    ]
    assert to_list(store.fetch(b"aa", b"aa", 0, LONG_MAX)) == [
        windowed_pair("aa", "0002", 0), windowed_pair("aa", "0004", 1),
    ]
    if setup.has_index:
        expected = [
            windowed_pair("a", "0001", 0), windowed_pair("a", "0003", 1),
            windowed_pair("aa", "0002", 0), windowed_pair("aa", "0004", 1),
            windowed_pair("a", "0005", SEGMENT_INTERVAL),
        ]
    else:
        expected = [
            windowed_pair("a", "0001", 0), windowed_pair("aa", "0002", 0),
            windowed_pair("a", "0003", 1), windowed_pair("aa", "0004", 1),
            windowed_pair("a", "0005", SEGMENT_INTERVAL),
        ]
    assert to_list(store.fetch(b"a", b"aa", 0, LONG_MAX)) == expected


@cached()
def test_should_fetch_and_iterate_over_key_backward_range(setup: Setup) -> None:
    store = setup.store
    put_keys_a_aa(store)
    assert to_list(store.backward_fetch(b"a", b"a", 0, LONG_MAX)) == [
        windowed_pair("a", "0005", SEGMENT_INTERVAL), windowed_pair("a", "0003", 1),
        windowed_pair("a", "0001", 0),
    ]
    assert to_list(store.backward_fetch(b"aa", b"aa", 0, LONG_MAX)) == [
        windowed_pair("aa", "0004", 1), windowed_pair("aa", "0002", 0),
    ]
    if not setup.has_index:  # ordered by timestamp without the index
        expected = [
            windowed_pair("a", "0005", SEGMENT_INTERVAL), windowed_pair("aa", "0004", 1),
            windowed_pair("a", "0003", 1), windowed_pair("aa", "0002", 0),
            windowed_pair("a", "0001", 0),
        ]
    else:  # the later segment first
        expected = [
            windowed_pair("a", "0005", SEGMENT_INTERVAL), windowed_pair("aa", "0004", 1),
            windowed_pair("aa", "0002", 0), windowed_pair("a", "0003", 1),
            windowed_pair("a", "0001", 0),
        ]
    assert to_list(store.backward_fetch(b"a", b"aa", 0, LONG_MAX)) == expected


def put_for_equal_range(store: Any) -> None:
    store.put(b"a", b"0001", 0)
    store.put(b"aa", b"0002", 1)
    store.put(b"aa", b"0003", 2)
    store.put(b"aaa", b"0004", 3)


@cached()
def test_should_return_same_results_for_single_key_fetch_and_equal_key_range_fetch(
        setup: Setup) -> None:
    put_for_equal_range(setup.store)
    with setup.store.fetch(b"aa", 0, 5) as single, setup.store.fetch(b"aa", b"aa", 0, 5) as rng:
        assert single.next().value == rng.next().value
        assert single.next().value == rng.next().value
        assert not single.has_next()
        assert not rng.has_next()


@cached()
def test_should_return_same_results_for_single_key_fetch_and_equal_key_range_backward_fetch(
        setup: Setup) -> None:
    put_for_equal_range(setup.store)
    with setup.store.backward_fetch(b"aa", 0, 5) as single, \
            setup.store.backward_fetch(b"aa", b"aa", 0, 5) as rng:
        assert single.next().value == rng.next().value
        assert single.next().value == rng.next().value
        assert not single.has_next()
        assert not rng.has_next()


@cached()
def test_should_throw_null_pointer_exception_on_put_null_key(setup: Setup) -> None:
    with pytest.raises(ks.StoreError):
        setup.store.put(None, b"anyValue", 0)


@cached()
def test_should_not_throw_null_pointer_exception_on_put_null_value(setup: Setup) -> None:
    setup.store.put(b"a", None, 0)


@cached()
def test_should_throw_null_pointer_exception_on_fetch_null_key(setup: Setup) -> None:
    with pytest.raises(ks.StoreError):
        setup.store.fetch(None, 1, 2)


NEGATIVE_FROM = ks.serdes.Integer().serialize("", -1)
POSITIVE_TO = ks.serdes.Integer().serialize("", 1)


@cached()
def test_should_not_throw_invalid_range_exception_with_negative_from_key(
        setup: Setup, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), \
            setup.store.fetch(NEGATIVE_FROM, POSITIVE_TO, 0, 10) as iterator:
        assert not iterator.has_next()
    assert "Returning empty iterator for fetch with invalid key range: from > to. This may be " \
        "due to range arguments set in the wrong order, or serdes that don't preserve ordering " \
        "when lexicographically comparing the serialized bytes. Note that the built-in " \
        "numerical serdes do not follow this for negative numbers" in caplog.messages


@cached()
def test_should_not_throw_invalid_backward_range_exception_with_negative_from_key(
        setup: Setup, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), \
            setup.store.backward_fetch(NEGATIVE_FROM, POSITIVE_TO, 0, 10) as iterator:
        assert not iterator.has_next()
    assert "Returning empty iterator for fetch with invalid key range: from > to. This may be " \
        "due to serdes that don't preserve ordering when lexicographically comparing the " \
        "serialized bytes. Note that the built-in numerical serdes do not follow this for " \
        "negative numbers" in caplog.messages
