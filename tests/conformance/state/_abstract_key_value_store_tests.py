"""Kafka's ``AbstractKeyValueStoreTest``: the tests every key-value store runs, imported by the
module of each concrete Java subclass (``InMemoryKeyValueStoreTest``, ``InMemoryLRUCacheStoreTest``,
``RocksDBStoreTest``, ``CachingInMemoryKeyValueStoreTest``), which defines ``create_store``.

Mapping: the ``KeyValueStoreTestDriver`` is ``RecordingContext`` (``_kv_store_support``), with
Integer keys and String values as Java's ``create(Integer.class, String.class)``;
``context.restore(name, entries)`` is the engine's ``store.restore_batch``. Java's
``NullPointerException`` is ``MissingArgumentError``; the invalid-range warning is matched word
for word in ``caplog.messages``, as Java's ``LogCaptureAppender``.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

import kslab as ks
from kslab.errors import MissingArgumentError
from tests.conformance.state._kv_store_support import RecordingContext, contents, size_of

INVALID_RANGE = (
    "Returning empty iterator for fetch with invalid key range: from > to. This may be due to "
    "range arguments set in the wrong order, or serdes that don't preserve ordering when "
    "lexicographically comparing the serialized bytes. Note that the built-in numerical serdes "
    "do not follow this for negative numbers"
)


@pytest.fixture
def context(tmp_path: Any) -> RecordingContext:
    return RecordingContext(state_dir=tmp_path / "0_0")


@pytest.fixture
def store(create_store: Any, context: RecordingContext) -> Any:
    opened = create_store(context)
    yield opened
    opened.close()


class _StringSerde:
    """Serdes.serdeFrom(serializer, new StringDeserializer()) with a custom serializer."""

    def __init__(self, serialize: Any) -> None:
        self._serialize = serialize

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        return self._serialize(topic, data)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        return None if data is None else data.decode()


def _put_five(store: Any) -> None:
    for key, value in [(0, "zero"), (1, "one"), (2, "two"), (4, "four"), (5, "five")]:
        store.put(key, value)


def _check_flushed(context: RecordingContext, *, removed_five: bool = True) -> None:
    assert context.flushed_entry_stored(0) == "zero"
    assert context.flushed_entry_stored(1) == "one"
    assert context.flushed_entry_stored(2) == "two"
    assert context.flushed_entry_stored(4) == "four"
    assert context.flushed_entry_stored(5) is None
    for key in (0, 1, 2, 4):
        assert not context.flushed_entry_removed(key)
    assert context.flushed_entry_removed(5) is removed_five


def test_should_not_include_deleted_from_range_result(
        store: Any, create_store: Any, context: RecordingContext) -> None:
    store.close()
    calls = [0]

    def serialize(topic: str, data: Any) -> bytes | None:
        calls[0] += 1
        if calls[0] > 3:
            pytest.fail("Value serializer is called; it should never happen")
        return None if data is None else data.encode()

    context.default_value_serde = _StringSerde(serialize)
    store = create_store(context)
    try:
        store.put(0, "zero")
        store.put(1, "one")
        store.put(2, "two")
        store.delete(0)
        store.delete(1)
        assert contents(store.all()) == {2: "two"}
    finally:
        store.close()


def test_should_delete_if_serialized_value_is_null(
        store: Any, create_store: Any, context: RecordingContext) -> None:
    store.close()

    def serialize(topic: str, data: Any) -> bytes | None:
        return None if data == "null" else data.encode()

    context.default_value_serde = _StringSerde(serialize)
    store = create_store(context)
    try:
        store.put(0, "zero")
        store.put(1, "one")
        store.put(2, "two")
        store.put(0, "null")
        store.put(1, "null")
        assert contents(store.all()) == {2: "two"}
    finally:
        store.close()


def test_put_get_range(store: Any, context: RecordingContext) -> None:
    _put_five(store)
    assert size_of(store) == 5
    assert [store.get(k) for k in range(6)] == ["zero", "one", "two", None, "four", "five"]
    store.flush()
    store.delete(5)
    assert size_of(store) == 4
    store.flush()
    _check_flushed(context)
    expected = {2: "two", 4: "four"}
    assert contents(store.range(2, 4)) == expected
    assert contents(store.range(2, 6)) == expected
    expected.update({0: "zero", 1: "one"})
    assert contents(store.all()) == expected


def test_put_get_reverse_range(store: Any, context: RecordingContext) -> None:
    _put_five(store)
    assert size_of(store) == 5
    assert [store.get(k) for k in range(6)] == ["zero", "one", "two", None, "four", "five"]
    store.flush()
    store.delete(5)
    assert size_of(store) == 4
    store.flush()
    _check_flushed(context)
    expected = {2: "two", 4: "four"}
    assert contents(store.reverse_range(2, 4)) == expected
    assert contents(store.reverse_range(2, 6)) == expected
    expected.update({0: "zero", 1: "one"})
    assert contents(store.reverse_all()) == expected


def test_put_get_with_default_serdes(store: Any, context: RecordingContext) -> None:
    _put_five(store)
    assert size_of(store) == 5
    assert [store.get(k) for k in range(6)] == ["zero", "one", "two", None, "four", "five"]
    store.flush()
    store.delete(5)
    store.flush()
    _check_flushed(context)


def _restore_four(store: Any, create_store: Any, context: RecordingContext) -> Any:
    store.close()
    for key, value in [(0, "zero"), (1, "one"), (2, "two"), (3, "three")]:
        context.add_entry_to_restore_log(key, value)
    store = create_store(context)
    context.restore(store)
    return store


def test_restore(store: Any, create_store: Any, context: RecordingContext) -> None:
    store = _restore_four(store, create_store, context)
    try:
        assert [store.get(k) for k in range(4)] == ["zero", "one", "two", "three"]
        assert size_of(store) == 4
        assert context.changelog == []
    finally:
        store.close()


def test_restore_with_default_serdes(
        store: Any, create_store: Any, context: RecordingContext) -> None:
    store = _restore_four(store, create_store, context)
    try:
        assert [store.get(k) for k in range(4)] == ["zero", "one", "two", "three"]
        assert size_of(store) == 4
    finally:
        store.close()


def test_put_if_absent(store: Any, context: RecordingContext) -> None:
    assert store.put_if_absent(0, "zero") is None
    assert store.put_if_absent(1, "one") is None
    assert store.put_if_absent(2, "two") is None
    assert store.put_if_absent(4, "four") is None
    assert store.put_if_absent(4, "unexpected value") == "four"
    assert size_of(store) == 4
    assert [store.get(k) for k in range(5)] == ["zero", "one", "two", None, "four"]
    store.flush()
    assert context.flushed_entry_stored(0) == "zero"
    assert context.flushed_entry_stored(1) == "one"
    assert context.flushed_entry_stored(2) == "two"
    assert context.flushed_entry_stored(4) == "four"
    for key in (0, 1, 2, 4):
        assert not context.flushed_entry_removed(key)


def test_should_throw_null_pointer_exception_on_put_null_key(store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        store.put(None, "anyValue")


def test_should_not_throw_null_pointer_exception_on_put_null_value(store: Any) -> None:
    store.put(1, None)


def test_should_throw_null_pointer_exception_on_put_if_absent_null_key(store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        store.put_if_absent(None, "anyValue")


def test_should_not_throw_null_pointer_exception_on_put_if_absent_null_value(store: Any) -> None:
    store.put_if_absent(1, None)


def test_should_throw_null_pointer_exception_on_put_all_null_key(store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        store.put_all([ks.KeyValue(None, "anyValue")])


def test_should_not_throw_null_pointer_exception_on_put_all_null_key(store: Any) -> None:
    store.put_all([ks.KeyValue(1, None)])


def test_should_throw_null_pointer_exception_on_delete_null_key(store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        store.delete(None)


def test_should_throw_null_pointer_exception_on_get_null_key(store: Any) -> None:
    with pytest.raises(MissingArgumentError):
        store.get(None)


def _put_three(store: Any) -> None:
    store.put(0, "zero")
    store.put(1, "one")
    store.put(2, "two")


def test_should_return_value_on_range_null_to_key(store: Any) -> None:
    _put_three(store)
    with store.range(None, 1) as iterator:
        assert list(iterator) == [ks.KeyValue(0, "zero"), ks.KeyValue(1, "one")]


def test_should_return_value_on_range_key_to_null(store: Any) -> None:
    _put_three(store)
    with store.range(1, None) as iterator:
        assert list(iterator) == [ks.KeyValue(1, "one"), ks.KeyValue(2, "two")]


def test_should_return_value_on_range_null_to_null(store: Any) -> None:
    _put_three(store)
    with store.range(None, None) as iterator:
        assert list(iterator) == [
            ks.KeyValue(0, "zero"), ks.KeyValue(1, "one"), ks.KeyValue(2, "two")
        ]


def test_should_return_value_on_reverse_range_null_to_key(store: Any) -> None:
    _put_three(store)
    with store.reverse_range(None, 1) as iterator:
        assert list(iterator) == [ks.KeyValue(1, "one"), ks.KeyValue(0, "zero")]


def test_should_return_value_on_reverse_range_key_to_null(store: Any) -> None:
    _put_three(store)
    with store.reverse_range(1, None) as iterator:
        assert list(iterator) == [ks.KeyValue(2, "two"), ks.KeyValue(1, "one")]


def test_should_return_value_on_reverse_range_null_to_null(store: Any) -> None:
    _put_three(store)
    with store.reverse_range(None, None) as iterator:
        assert list(iterator) == [
            ks.KeyValue(2, "two"), ks.KeyValue(1, "one"), ks.KeyValue(0, "zero")
        ]


def test_size(store: Any) -> None:
    assert store.approximate_num_entries() == 0, "A newly created store should have no entries"
    _put_five(store)
    store.flush()
    assert store.approximate_num_entries() == 5


def test_should_put_all(store: Any) -> None:
    store.put_all([ks.KeyValue(1, "one"), ks.KeyValue(2, "two")])
    iterator = store.all()
    returned = []
    while iterator.has_next():
        returned.append(iterator.next())
    assert returned == [ks.KeyValue(1, "one"), ks.KeyValue(2, "two")]


def test_should_put_reverse_all(store: Any) -> None:
    store.put_all([ks.KeyValue(1, "one"), ks.KeyValue(2, "two")])
    iterator = store.reverse_all()
    returned = []
    while iterator.has_next():
        returned.append(iterator.next())
    assert returned == [ks.KeyValue(2, "two"), ks.KeyValue(1, "one")]


def test_should_delete_from_store(store: Any) -> None:
    store.put(1, "one")
    store.put(2, "two")
    store.delete(2)
    assert store.get(2) is None


def _put_one_two_three(store: Any) -> None:
    store.put_all([ks.KeyValue(1, "one"), ks.KeyValue(2, "two"), ks.KeyValue(3, "three")])


def test_should_return_same_results_for_get_and_range_with_equal_keys(store: Any) -> None:
    _put_one_two_three(store)
    iterator = store.range(2, 2)
    assert iterator.next().value == store.get(2)
    assert not iterator.has_next()


def test_should_return_same_results_for_get_and_reverse_range_with_equal_keys(store: Any) -> None:
    _put_one_two_three(store)
    iterator = store.reverse_range(2, 2)
    assert iterator.next().value == store.get(2)
    assert not iterator.has_next()


def test_should_not_throw_concurrent_modification_exception(store: Any) -> None:
    store.put(0, "zero")
    with store.range(0, 2) as results:
        store.put(1, "one")
        assert results.next() == ks.KeyValue(0, "zero")


def _assert_empty_with_warning(caplog: Any, scan: Any) -> None:
    with caplog.at_level(logging.WARNING), scan() as iterator:
        assert not iterator.has_next()
    assert INVALID_RANGE in caplog.messages


def test_should_not_throw_invalid_range_exception_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    _assert_empty_with_warning(caplog, lambda: store.range(-1, 1))


def test_should_not_throw_invalid_reverse_range_exception_with_negative_from_key(
        store: Any, caplog: Any) -> None:
    _assert_empty_with_warning(caplog, lambda: store.reverse_range(-1, 1))


def test_should_not_throw_invalid_range_exception_with_from_larger_than_to(
        store: Any, caplog: Any) -> None:
    _assert_empty_with_warning(caplog, lambda: store.range(2, 1))


def test_should_not_throw_invalid_reverse_range_exception_with_from_larger_than_to(
        store: Any, caplog: Any) -> None:
    _assert_empty_with_warning(caplog, lambda: store.reverse_range(2, 1))


def test_prefix_scan_should_not_throw_concurrent_modification_exception(store: Any) -> None:
    for key, value in [(0, "zero"), (1, "one"), (222, "two-hundred-twenty-two"), (2, "two"),
                       (22, "twenty-two"), (3, "three")]:
        store.put(key, value)
    with store.prefix_scan(2, ks.serdes.Integer()) as iterator:
        store.delete(22)
        while iterator.has_next():
            iterator.next()
