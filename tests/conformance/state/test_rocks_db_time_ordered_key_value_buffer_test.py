"""Kafka's ``RocksDBTimeOrderedKeyValueBufferTest``: the grace buffer of stream-table joins
(KIP-923) drops records older than stream time - grace, releases the rest oldest first once
stream time passes them by the grace period, and keeps Java's count, size and minimum timestamp
(``Long.MAX_VALUE`` when empty).

Mapping: ``RocksDBTimeOrderedKeyValueBuffer(store, grace, "testing", false)`` with String serdes
is ``kslab.state.join_buffer.JoinBuffer("testing", grace, String, String,
logging_enabled=False)`` opened on a small store context; ``buffer.put(time, Record(key, value,
time), recordContext)`` is ``buffer.put(key, value, context)`` with the record context
``(time, offset, "testing", 0, Headers())`` (Java's ``ProcessorRecordContext(time, offset, 0,
"testing", headers)``); ``evictWhile`` is ``evict_while``.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.records import Headers, TaskId
from kslab.state.buffer import LONG_MAX
from kslab.state.join_buffer import JoinBuffer

STRING = ks.serdes.String()


class _Context:
    """Java's ``MockInternalNewProcessorContext`` for task 0_0 (logging is off)."""

    application_id = "test-app"
    task_id = TaskId(0, 0)
    default_key_serde = STRING
    default_value_serde = STRING

    def app_configs(self) -> dict[str, Any]:
        return {}

    def changelog_topic(self, store_name: str) -> str:
        return f"test-app-{store_name}-changelog"

    def log_change(self, *args: Any, **kwargs: Any) -> None:
        pytest.fail("logging is disabled")


class _Harness:
    def __init__(self) -> None:
        self.offset = 0
        self.buffer: Any = None

    def create_buffer(self, grace: int) -> None:
        self.buffer = JoinBuffer("testing", grace, STRING, STRING, logging_enabled=False)
        self.buffer.init(_Context(), self.buffer)

    def pipe_record(self, key: str, value: str, time: int) -> bool:
        context = (time, self.offset, "testing", 0, Headers())
        self.offset += 1
        return self.buffer.put(key, value, context)

    def evict(self, predicate: Any, count: list[int]) -> None:
        def increment(*_: Any) -> None:
            count[0] += 1

        self.buffer.evict_while(predicate, increment)

    def assert_num_size_and_timestamp(self, num: int, time: int, size: int) -> None:
        assert self.buffer.num_records() == num
        assert self.buffer.min_timestamp() == time
        assert self.buffer.buffer_size() == size


@pytest.fixture
def h() -> _Harness:
    return _Harness()


def test_should_return_if_record_was_added(h: _Harness) -> None:
    h.create_buffer(1)
    assert h.pipe_record("K", "V", 2) is True
    assert h.pipe_record("K", "V", 0) is False


def test_should_put_in_buffer_and_update_fields(h: _Harness) -> None:
    h.create_buffer(60_000)
    h.assert_num_size_and_timestamp(0, LONG_MAX, 0)
    h.pipe_record("1", "0", 0)
    h.assert_num_size_and_timestamp(1, 0, 42)
    h.pipe_record("3", "0", 2)
    h.assert_num_size_and_timestamp(2, 0, 84)


def test_should_add_and_evict_record(h: _Harness) -> None:
    h.create_buffer(0)
    count = [0]
    h.pipe_record("1", "0", 0)
    h.assert_num_size_and_timestamp(1, 0, 42)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    h.assert_num_size_and_timestamp(0, LONG_MAX, 0)
    assert count[0] == 1


def test_should_add_and_evict_record_twice(h: _Harness) -> None:
    h.create_buffer(0)
    count = [0]
    h.pipe_record("1", "0", 0)
    h.assert_num_size_and_timestamp(1, 0, 42)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    h.assert_num_size_and_timestamp(0, LONG_MAX, 0)
    assert count[0] == 1
    h.pipe_record("2", "0", 1)
    h.assert_num_size_and_timestamp(1, 1, 42)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    h.assert_num_size_and_timestamp(0, LONG_MAX, 0)
    assert count[0] == 2


def test_should_add_and_evict_record_twice_with_non_zero_grace(h: _Harness) -> None:
    h.create_buffer(1)
    count = [0]
    h.pipe_record("1", "0", 0)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    h.assert_num_size_and_timestamp(1, 0, 42)
    assert count[0] == 0
    h.pipe_record("2", "0", 1)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    h.assert_num_size_and_timestamp(1, 1, 42)
    assert count[0] == 1


def test_should_add_records_twice_and_evict_records_once(h: _Harness) -> None:
    h.create_buffer(0)
    count = [0]
    h.pipe_record("1", "0", 0)
    h.evict(lambda: h.buffer.num_records() > 1, count)
    assert count[0] == 0
    h.pipe_record("2", "0", 1)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    assert count[0] == 2


def test_should_drop_late_records(h: _Harness) -> None:
    h.create_buffer(0)
    h.pipe_record("1", "0", 1)
    h.assert_num_size_and_timestamp(1, 1, 42)
    h.pipe_record("2", "0", 0)
    h.assert_num_size_and_timestamp(1, 1, 42)


def test_should_drop_late_records_with_non_zero_grace(h: _Harness) -> None:
    h.create_buffer(1)
    h.pipe_record("1", "0", 2)
    h.assert_num_size_and_timestamp(1, 2, 42)
    h.pipe_record("2", "0", 1)
    h.assert_num_size_and_timestamp(2, 1, 84)
    h.pipe_record("3", "0", 0)
    h.assert_num_size_and_timestamp(2, 1, 84)


def test_should_handle_colliding_keys(h: _Harness) -> None:
    h.create_buffer(1)
    count = [0]
    h.pipe_record("2", "0", 0)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    assert count[0] == 0
    h.assert_num_size_and_timestamp(1, 0, 42)
    h.pipe_record("2", "2", 0)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    assert count[0] == 0
    h.assert_num_size_and_timestamp(2, 0, 84)
    h.pipe_record("1", "0", 7)
    h.assert_num_size_and_timestamp(3, 0, 126)
    h.evict(lambda: h.buffer.num_records() > 0, count)
    assert count[0] == 2
    h.assert_num_size_and_timestamp(1, 7, 42)
