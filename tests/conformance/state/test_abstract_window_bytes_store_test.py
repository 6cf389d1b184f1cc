"""Kafka's ``AbstractWindowBytesStoreTest`` as run by ``InMemoryWindowStoreTest`` and
``RocksDBWindowStoreTest``: a logged ``WindowStore<Integer, String>`` (retention 120 000 ms,
window size 3 ms), opened on a fake task context.

Mapping: every test runs twice, over ``Stores.in_memory_window_store`` and
``Stores.persistent_window_store`` (``store_kind`` fixture). Java's ``Instant`` bounds are int ms;
``InternalMockProcessorContext`` + ``MockRecordCollector`` are ``FakeContext``, whose
``changelog`` holds what the store logged; the ``dropped-records-total`` task metric is what the
store reports through the context's ``record_dropped()`` (the hook the execution core gives
processors and stores). ``valuesToSet`` compares sets, as Java does; ``toList`` compares lists.
Java's ``NullPointerException`` on a null key is kslab's ``StoreError``. Nothing is skipped.
"""

from __future__ import annotations

import logging
import struct
from pathlib import Path
from typing import Any

import pytest

import kslab as ks
from kslab.state.window import split_window_key
from tests.state.state_fixtures import FakeContext

WINDOW_SIZE = 3
SEGMENT_INTERVAL = 60_000
RETENTION_PERIOD = 2 * SEGMENT_INTERVAL
START = SEGMENT_INTERVAL - 4
MAX = 2**63 - 1


def windowed_pair(key: Any, value: Any, start: int, size: int = WINDOW_SIZE) -> ks.KeyValue:
    """Java's ``windowedPair``: ``timeWindowForSize`` clamps an overflowing end to MAX."""
    end = start + size
    return ks.KeyValue(ks.Windowed(key, ks.Window(start, MAX if end > MAX else end)), value)


ZERO = windowed_pair(0, "zero", START)
ONE = windowed_pair(1, "one", START + 1)
TWO = windowed_pair(2, "two", START + 2)
THREE = windowed_pair(3, "three", START + 2)
FOUR = windowed_pair(4, "four", START + 4)
FIVE = windowed_pair(5, "five", START + 5)


class DropCountingContext(FakeContext):
    """FakeContext plus the task's ``dropped-records-total``."""

    def __init__(self, state_dir: Path | None = None, timestamp: int = 0) -> None:
        super().__init__(state_dir, timestamp)
        self.dropped = 0

    def record_dropped(self) -> None:
        self.dropped += 1


@pytest.fixture(params=["in_memory", "rocks_db"])
def store_kind(request: Any) -> str:
    return request.param


@pytest.fixture
def context(tmp_path: Path) -> DropCountingContext:
    return DropCountingContext(state_dir=tmp_path / "0_0", timestamp=1)


@pytest.fixture
def build(store_kind: str, context: DropCountingContext) -> Any:
    opened: list[Any] = []

    def make(retention: int = RETENTION_PERIOD, size: int = WINDOW_SIZE,
             duplicates: bool = False, key_serde: Any = None, value_serde: Any = None) -> Any:
        factory = ks.Stores.in_memory_window_store if store_kind == "in_memory" else \
            ks.Stores.persistent_window_store
        store = ks.Stores.window_store_builder(
            factory("window-store", retention, size, duplicates),
            key_serde or ks.serdes.Integer(), value_serde or ks.serdes.String()).build()
        store.init(context)
        opened.append(store)
        return store

    yield make
    for store in opened:
        if store.is_open:
            store.close()


@pytest.fixture
def store(build: Any) -> Any:
    return build()


def values(iterator: Any) -> set[Any]:
    with iterator:
        return {kv.value for kv in iterator}


def to_list(iterator: Any) -> list[Any]:
    with iterator:
        return list(iterator)


def put_first_batch(store: Any) -> None:
    store.put(0, "zero", START)
    store.put(1, "one", START + 1)
    store.put(2, "two", START + 2)
    store.put(3, "three", START + 2)
    store.put(4, "four", START + 4)
    store.put(5, "five", START + 5)


def put_second_batch(store: Any) -> None:
    for i in range(1, 7):
        store.put(2, f"two+{i}", START + 2 + i)


def entries_by_key(context: FakeContext) -> dict[int, set[str]]:
    """What the changelog holds, as ``value@(window start - START)`` per key."""
    out: dict[int, set[str]] = {}
    for _, binary, value, _ in context.changelog:
        key_bytes, start, _ = split_window_key(binary)
        key = struct.unpack(">i", key_bytes)[0]
        text = "null" if value is None else value.decode()
        out.setdefault(key, set()).add(f"{text}@{start - START}")
    return out


def assert_changelog(context: FakeContext) -> None:
    by_key = entries_by_key(context)
    assert by_key[0] == {"zero@0"}
    assert by_key[1] == {"one@1"}
    assert by_key[2] == {"two@2", "two+1@3", "two+2@4", "two+3@5", "two+4@6", "two+5@7",
                         "two+6@8"}
    assert by_key[3] == {"three@2"}
    assert by_key[4] == {"four@4"}
    assert by_key[5] == {"five@5"}
    assert 6 not in by_key


def two_values(first: int, last: int) -> set[str]:
    """The values of key 2 put at ``START + first .. START + last`` (2 is "two")."""
    return {"two" if t == 2 else f"two+{t - 2}" for t in range(max(first, 2), min(last, 8) + 1)}


def test_test_range_and_single_point_fetch(store: Any, context: FakeContext) -> None:
    put_first_batch(store)
    assert values(store.fetch(0, START - WINDOW_SIZE, START + WINDOW_SIZE)) == {"zero"}
    put_second_batch(store)
    for offset in range(3, 9):
        assert store.fetch(2, START + offset) == f"two+{offset - 2}"
    for offset in range(-2, 13):
        expected = two_values(offset - WINDOW_SIZE, offset + WINDOW_SIZE)
        got = values(store.fetch(2, START + offset - WINDOW_SIZE, START + offset + WINDOW_SIZE))
        assert got == expected, offset
    store.flush()
    assert_changelog(context)


def test_should_get_all(store: Any) -> None:
    put_first_batch(store)
    assert to_list(store.all()) == [ZERO, ONE, TWO, THREE, FOUR, FIVE]


def test_should_get_all_non_deleted_records(store: Any) -> None:
    for i, name in enumerate(["zero", "one", "two", "three", "four"]):
        store.put(i, name, START + i)
    store.put(1, None, START + 1)
    store.put(3, None, START + 3)
    assert to_list(store.all()) == [ZERO, windowed_pair(2, "two", START + 2), FOUR]


def test_should_get_all_return_timestamp_ordered_records(store: Any) -> None:
    store.put(4, "four", START + 4)
    store.put(0, "zero", START + 0)
    store.put(2, "two", START + 2)
    store.put(3, "three", START + 3)
    store.put(1, "one", START + 1)
    three = windowed_pair(3, "three", START + 3)
    assert to_list(store.all()) == [ZERO, ONE, TWO, three, FOUR]


def test_should_early_closed_iterator_still_get_all_records(store: Any) -> None:
    store.put(0, "zero", START + 0)
    store.put(1, "one", START + 1)
    it = store.all()
    assert it.next() == ZERO
    it.close()
    assert to_list(store.all()) == [ZERO, ONE]


def test_should_get_backward_all(store: Any) -> None:
    put_first_batch(store)
    assert to_list(store.backward_all()) == [FIVE, FOUR, THREE, TWO, ONE, ZERO]


def test_should_fetch_all_in_time_range(store: Any) -> None:
    put_first_batch(store)
    assert to_list(store.fetch_all(START + 1, START + 4)) == [ONE, TWO, THREE, FOUR]
    assert to_list(store.fetch_all(START, START + 3)) == [ZERO, ONE, TWO, THREE]
    assert to_list(store.fetch_all(START + 1, START + 5)) == [ONE, TWO, THREE, FOUR, FIVE]


def test_should_backward_fetch_all_in_time_range(store: Any) -> None:
    put_first_batch(store)
    assert to_list(store.backward_fetch_all(START + 1, START + 4)) == [FOUR, THREE, TWO, ONE]
    assert to_list(store.backward_fetch_all(START, START + 3)) == [THREE, TWO, ONE, ZERO]
    assert to_list(store.backward_fetch_all(START + 1, START + 5)) == \
        [FIVE, FOUR, THREE, TWO, ONE]


FETCH_RANGE_CASES = [
    (0, 1, START - WINDOW_SIZE, START + WINDOW_SIZE, [ZERO, ONE]),
    (1, 1, START - WINDOW_SIZE, START + WINDOW_SIZE, [ONE]),
    (1, 3, START - WINDOW_SIZE, START + WINDOW_SIZE, [ONE, TWO, THREE]),
    (0, 5, START - WINDOW_SIZE, START + WINDOW_SIZE, [ZERO, ONE, TWO, THREE]),
    (0, 5, START - WINDOW_SIZE, START + WINDOW_SIZE + 5, [ZERO, ONE, TWO, THREE, FOUR, FIVE]),
    (0, 5, START + 2, START + WINDOW_SIZE + 5, [TWO, THREE, FOUR, FIVE]),
    (4, 5, START + 2, START + WINDOW_SIZE, []),
    (0, 3, START + 3, START + WINDOW_SIZE + 5, []),
    (None, 2, START - WINDOW_SIZE, START + WINDOW_SIZE + 2, [ZERO, ONE, TWO]),
    (2, None, START - WINDOW_SIZE, START + WINDOW_SIZE + 5, [TWO, THREE, FOUR, FIVE]),
    (None, None, START - WINDOW_SIZE, START + WINDOW_SIZE + 5,
     [ZERO, ONE, TWO, THREE, FOUR, FIVE]),
]


def test_test_fetch_range(store: Any) -> None:
    put_first_batch(store)
    for key_from, key_to, time_from, time_to, expected in FETCH_RANGE_CASES:
        assert to_list(store.fetch(key_from, key_to, time_from, time_to)) == expected


def test_test_backward_fetch_range(store: Any) -> None:
    put_first_batch(store)
    for key_from, key_to, time_from, time_to, expected in FETCH_RANGE_CASES:
        got = to_list(store.backward_fetch(key_from, key_to, time_from, time_to))
        assert got == expected[::-1]


def test_test_put_and_fetch_before(store: Any, context: FakeContext) -> None:
    put_first_batch(store)
    names = ["zero", "one", "two", "three", "four", "five"]
    for key, name in enumerate(names):
        assert values(store.fetch(key, START + key - WINDOW_SIZE, START + key)) == {name}
    put_second_batch(store)
    for offset in range(-1, 14):
        expected = two_values(offset - WINDOW_SIZE, offset)
        assert values(store.fetch(2, START + offset - WINDOW_SIZE, START + offset)) == expected
    store.flush()
    assert_changelog(context)


def test_test_put_and_fetch_after(store: Any, context: FakeContext) -> None:
    put_first_batch(store)
    expected_first = [{"zero"}, {"one"}, {"two"}, set(), {"four"}, {"five"}]
    for key, expected in enumerate(expected_first):
        assert values(store.fetch(key, START + key, START + key + WINDOW_SIZE)) == expected
    put_second_batch(store)
    for offset in range(-2, 13):
        expected = two_values(offset, offset + WINDOW_SIZE)
        got = values(store.fetch(2, START + offset, START + offset + WINDOW_SIZE))
        assert got == expected, offset
    store.flush()
    assert_changelog(context)


def test_test_put_same_key_timestamp(store: Any, build: Any, context: FakeContext) -> None:
    store.close()
    store = build(duplicates=True)
    store.put(0, "zero", START)
    assert values(store.fetch(0, START - WINDOW_SIZE, START + WINDOW_SIZE)) == {"zero"}
    store.put(0, "zero", START)
    store.put(0, "zero+", START)
    store.put(0, "zero++", START)
    for offset in range(4):
        got = values(store.fetch(0, START + offset - WINDOW_SIZE, START + offset + WINDOW_SIZE))
        assert got == {"zero", "zero+", "zero++"}
    assert values(store.fetch(0, START + 4 - WINDOW_SIZE, START + 4 + WINDOW_SIZE)) == set()
    store.flush()
    assert entries_by_key(context)[0] == {"zero@0", "zero+@0", "zero++@0"}


def test_should_close_open_iterators_when_store_is_closed_and_not_throw_invalid_state_store_exception_on_has_next(  # noqa: E501
        store: Any) -> None:
    store.put(1, "one", 1)
    store.put(1, "two", 2)
    store.put(1, "three", 3)
    with store.fetch(1, 1, 3) as iterator:
        assert iterator.has_next()
        store.close()
        assert not iterator.has_next()


def test_should_fetch_and_iterate_over_exact_keys(build: Any) -> None:
    size = retention = 0x7A00000000000000
    store = build(retention, size, False, ks.serdes.String(), ks.serdes.String())
    store.put("a", "0001", 0)
    store.put("aa", "0002", 0)
    store.put("a", "0003", 1)
    store.put("aa", "0004", 1)
    store.put("a", "0005", 0x7A00000000000000 - 1)
    assert values(store.fetch("a", 0, MAX)) == {"0001", "0003", "0005"}
    assert set(to_list(store.fetch("a", "a", 0, MAX))) == {
        windowed_pair("a", "0001", 0, size),
        windowed_pair("a", "0003", 1, size),
        windowed_pair("a", "0005", 0x7A00000000000000 - 1, size),
    }
    assert set(to_list(store.fetch("aa", "aa", 0, MAX))) == {
        windowed_pair("aa", "0002", 0, size),
        windowed_pair("aa", "0004", 1, size),
    }
    store.close()


def test_test_delete_and_update(store: Any) -> None:
    store.put(1, "one", 0)
    store.put(1, "one v2", 0)
    assert store.fetch(1, 0, 0).next() == ks.KeyValue(0, "one v2")
    store.put(1, None, 0)
    assert not store.fetch(1, 0, 0).has_next()


def test_should_return_null_on_window_not_found(store: Any) -> None:
    assert store.fetch(1, 0) is None


def test_should_throw_null_pointer_exception_on_put_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.put(None, "anyValue", 0)


def test_should_throw_null_pointer_exception_on_get_null_key(store: Any) -> None:
    with pytest.raises(ks.StoreError):
        store.fetch(None, 1, 2)


def test_should_fetch_and_iterate_over_exact_binary_keys(build: Any) -> None:
    store = build(RETENTION_PERIOD, WINDOW_SIZE, True, ks.serdes.Bytes(), ks.serdes.String())
    key1, key2, key3 = b"\x00", b"\x00\x00", b"\x00\x00\x00"
    store.put(key1, "1", 0)
    store.put(key2, "2", 0)
    store.put(key3, "3", 0)
    store.put(key1, "4", 1)
    store.put(key2, "5", 1)
    store.put(key3, "6", 59999)
    store.put(key1, "7", 59999)
    store.put(key2, "8", 59999)
    store.put(key3, "9", 59999)
    assert values(store.fetch(key1, 0, MAX)) == {"1", "4", "7"}
    assert values(store.fetch(key2, 0, MAX)) == {"2", "5", "8"}
    assert values(store.fetch(key3, 0, MAX)) == {"3", "6", "9"}
    store.close()


def test_should_return_same_results_for_single_key_fetch_and_equal_key_range_fetch(
        store: Any) -> None:
    store.put(1, "one", 0)
    store.put(2, "two", 1)
    store.put(2, "two", 2)
    store.put(3, "three", 3)
    with store.fetch(2, 0, 5) as single, store.fetch(2, 2, 0, 5) as ranged:
        assert single.next().value == ranged.next().value
        assert single.next().value == ranged.next().value
        assert not single.has_next()
        assert not ranged.has_next()


def test_should_not_throw_invalid_range_exception_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), store.fetch(-1, 1, 0, 10) as iterator:
        assert not iterator.has_next()
    assert (
        "Returning empty iterator for fetch with invalid key range: from > to. This may be due "
        "to range arguments set in the wrong order, or serdes that don't preserve ordering when "
        "lexicographically comparing the serialized bytes. Note that the built-in numerical "
        "serdes do not follow this for negative numbers"
    ) in caplog.messages


def test_should_measure_expired_records(store: Any, context: DropCountingContext) -> None:
    store.put(1, "initial record", 2 * RETENTION_PERIOD)
    store.put(1, "late record", 0)
    store.put(1, "another on-time record", RETENTION_PERIOD + 1)
    assert context.dropped == 1


def test_should_not_throw_exception_when_fetch_range_is_expired(store: Any) -> None:
    store.put(1, "one", 0)
    store.put(1, "two", 4 * RETENTION_PERIOD)
    with store.fetch(1, 0, 10) as iterator:
        assert not iterator.has_next()


def test_test_window_iterator_peek(store: Any) -> None:
    store.put(1, "one", 0)
    with store.fetch_all(0, 0) as iterator:
        assert iterator.has_next()
        next_key = iterator.peek_next_key()
        assert iterator.peek_next_key() == next_key
        assert iterator.peek_next_key() == iterator.next().key
        assert not iterator.has_next()


def test_test_value_iterator_peek(store: Any) -> None:
    store.put(1, "one", 0)
    with store.fetch(1, 0, 10) as iterator:
        assert iterator.has_next()
        next_key = iterator.peek_next_key()
        assert iterator.peek_next_key() == next_key
        assert iterator.peek_next_key() == iterator.next().key
        assert not iterator.has_next()


def test_should_not_throw_concurrent_modification_exception(store: Any) -> None:
    store.put(1, "one", 0)
    store.put(1, "two", WINDOW_SIZE * 10)
    with store.all() as iterator:
        store.put(1, "three", WINDOW_SIZE * 20)
        store.put(2, "four", WINDOW_SIZE * 30)
        assert iterator.next() == windowed_pair(1, "one", 0)
        assert iterator.next() == windowed_pair(1, "two", WINDOW_SIZE * 10)
        assert iterator.next() == windowed_pair(1, "three", WINDOW_SIZE * 20)
        assert iterator.next() == windowed_pair(2, "four", WINDOW_SIZE * 30)
        assert not iterator.has_next()


def test_test_fetch_duplicates(store: Any, build: Any) -> None:
    store.close()
    store = build(duplicates=True)
    store.put(1, "one", 0)
    store.put(1, "one-2", 0)
    store.put(1, "two", WINDOW_SIZE * 10)
    store.put(1, "two-2", WINDOW_SIZE * 10)
    store.put(1, "three", WINDOW_SIZE * 20)
    store.put(1, "three-2", WINDOW_SIZE * 20)
    with store.fetch(1, 0, WINDOW_SIZE * 10) as iterator:
        assert iterator.next() == ks.KeyValue(0, "one")
        assert iterator.next() == ks.KeyValue(0, "one-2")
        assert iterator.next() == ks.KeyValue(WINDOW_SIZE * 10, "two")
        assert iterator.next() == ks.KeyValue(WINDOW_SIZE * 10, "two-2")
        assert not iterator.has_next()
