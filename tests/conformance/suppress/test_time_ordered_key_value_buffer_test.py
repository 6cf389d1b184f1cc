"""Kafka's ``TimeOrderedKeyValueBufferTest`` (its one parameter: the in-memory buffer), against
kslab's suppression buffer ``kslab.state.buffer.SuppressionBuffer``.

Mapping: ``InMemoryTimeOrderedKeyValueChangeBuffer.Builder(name, String, NullRejecting...)`` is
``SuppressionBufferBuilder`` with the same serdes, opened on a small store context whose
changelog writes are Java's ``MockRecordCollector`` (``collected``). ``buffer.put(time,
Record(key, Change(new, old)), recordContext)`` is ``buffer.put(time, key, new, old, context)``
with a record context ``(timestamp, offset, topic, partition, headers)`` (Java's
``ProcessorRecordContext(timestamp, offset, partition, topic, headers)``); an ``Eviction(key,
Change(new, old), context)`` is the callback's ``(key, new, old, context)``, kept here as
``(key, (new, old), context)``. ``priorValueForBuffered`` gives ``(True, value)`` for Java's
``Maybe.defined(ValueAndTimestamp.make(value, -1))`` (the suppressed table's getter adds the
``ValueAndTimestamp``) and ``(False, None)`` for ``Maybe.undefined()``. The restore callback's
``ConsumerRecord``s are ``ChangelogRecord``s (key, value, timestamp, headers, topic, partition,
offset). Java's changelog records carry no timestamp (the producer stamps them), so the
collected records' timestamps are not compared.

Skipped: ``shouldRejectNullValues`` (Java puts a ``Record`` whose ``Change`` is null; kslab's
``put`` takes the change's parts, so there is no change object to be null).
"""

from __future__ import annotations

import random
import struct
from typing import Any

import pytest

import kslab as ks
from kslab.records import Headers, TaskId
from kslab.serdes import Serde
from kslab.state.buffer import LONG_MAX, BufferValue, ChangelogRecord, SuppressionBufferBuilder

APP_ID = "test-app"
STRING = ks.serdes.String()
V = "v"


class NullRejectingString(Serde):
    """Java's ``NullRejectingStringSerializer`` with a ``StringDeserializer``."""

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        if data is None:
            msg = "null data not allowed"
            raise ValueError(msg)
        return STRING.serialize(topic, data)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        return STRING.deserialize(topic, data)


class _Context:
    """``MockInternalProcessorContext`` with a ``MockRecordCollector``: changelog writes are
    collected as ``(topic, key, value, headers)``."""

    def __init__(self) -> None:
        self.application_id = APP_ID
        self.task_id = TaskId(0, 0)
        self.default_key_serde = STRING
        self.default_value_serde = STRING
        self.collected: list[tuple[str, bytes, bytes | None, Headers]] = []

    def app_configs(self) -> dict[str, Any]:
        return {}

    def changelog_topic(self, store_name: str) -> str:
        return f"{APP_ID}-{store_name}-changelog"

    def log_change(self, store_name: str, key: bytes, value: bytes | None,
                   timestamp: int | None = None, headers: Any = None) -> None:
        self.collected.append((self.changelog_topic(store_name), key, value,
                               headers if headers is not None else Headers()))


@pytest.fixture
def test_name() -> str:
    return f"in-memory buffer_{random.randrange(2**31 - 1)}"


@pytest.fixture
def context() -> _Context:
    return _Context()


@pytest.fixture
def buffer(test_name: str, context: _Context) -> Any:
    opened = SuppressionBufferBuilder(test_name, STRING, NullRejectingString()).build()
    opened.init(context, opened)
    yield opened
    opened.close()


def get_context(record_timestamp: int) -> tuple[int, int, str, int, Headers]:
    return (record_timestamp, 0, "topic", 0, Headers())


def put_record(buffer: Any, stream_time: int, record_timestamp: int, key: str,
               value: str) -> None:
    buffer.put(stream_time, key, value, None, get_context(record_timestamp))


def evict_all(buffer: Any, predicate: Any = lambda: True) -> list[tuple[Any, ...]]:
    evicted: list[tuple[Any, ...]] = []
    buffer.evict_while(predicate, lambda k, new, old, ctx: evicted.append((k, (new, old), ctx)))
    return evicted


def get_buffer_value(value: str, timestamp: int) -> BufferValue:
    return BufferValue.of(None, None, value.encode(), get_context(timestamp))


def test_should_init(buffer: Any) -> None:
    assert buffer.is_open


def test_should_accept_data(buffer: Any) -> None:
    put_record(buffer, 0, 0, "asdf", "2p93nf")


def test_should_remove_data(buffer: Any) -> None:
    put_record(buffer, 0, 0, "asdf", "qwer")
    assert buffer.num_records() == 1
    evict_all(buffer)
    assert buffer.num_records() == 0


def test_should_respect_eviction_predicate(buffer: Any) -> None:
    put_record(buffer, 0, 0, "asdf", "eyt")
    put_record(buffer, 1, 0, "zxcv", "rtg")
    assert buffer.num_records() == 2
    evicted = evict_all(buffer, lambda: buffer.num_records() > 1)
    assert buffer.num_records() == 1
    assert evicted == [("asdf", ("eyt", None), get_context(0))]


def test_should_track_count(buffer: Any) -> None:
    put_record(buffer, 0, 0, "asdf", "oin")
    assert buffer.num_records() == 1
    put_record(buffer, 1, 0, "asdf", "wekjn")
    assert buffer.num_records() == 1
    put_record(buffer, 0, 0, "zxcv", "24inf")
    assert buffer.num_records() == 2


def test_should_track_size(buffer: Any) -> None:
    put_record(buffer, 0, 0, "asdf", "23roni")
    assert buffer.buffer_size() == 43
    put_record(buffer, 1, 0, "asdf", "3l")
    assert buffer.buffer_size() == 39
    put_record(buffer, 0, 0, "zxcv", "qfowin")
    assert buffer.buffer_size() == 82


def test_should_track_min_timestamp(buffer: Any) -> None:
    put_record(buffer, 1, 0, "asdf", "2093j")
    assert buffer.min_timestamp() == 1
    put_record(buffer, 0, 0, "zxcv", "3gon4i")
    assert buffer.min_timestamp() == 0


def test_should_evict_oldest_and_update_size_and_count_and_min_timestamp(buffer: Any) -> None:
    put_record(buffer, 1, 0, "zxcv", "o23i4")
    assert (buffer.num_records(), buffer.buffer_size(), buffer.min_timestamp()) == (1, 42, 1)
    put_record(buffer, 0, 0, "asdf", "3ng")
    assert (buffer.num_records(), buffer.buffer_size(), buffer.min_timestamp()) == (2, 82, 0)

    seen: list[tuple[Any, ...]] = []

    def callback(key: Any, new: Any, old: Any, ctx: Any) -> None:
        seen.append((key, buffer.num_records(), buffer.buffer_size(), buffer.min_timestamp()))

    buffer.evict_while(lambda: True, callback)
    assert seen == [("asdf", 2, 82, 0), ("zxcv", 1, 42, 1)]
    assert (buffer.num_records(), buffer.buffer_size(), buffer.min_timestamp()) == (0, 0, LONG_MAX)


def test_should_return_undefined_on_prior_value_for_not_buffered_key(buffer: Any) -> None:
    assert buffer.prior_value_for_buffered("ASDF") == (False, None)


def test_should_return_prior_value_for_buffered_key(buffer: Any) -> None:
    record_context = get_context(0)
    buffer.put(1, "A", "new-value", "old-value", record_context)
    buffer.put(1, "B", "new-value", None, record_context)
    assert buffer.prior_value_for_buffered("A") == (True, "old-value")
    assert buffer.prior_value_for_buffered("B") == (True, None)


def test_should_flush(buffer: Any, context: _Context, test_name: str) -> None:
    put_record(buffer, 2, 0, "asdf", "2093j")
    put_record(buffer, 1, 1, "zxcv", "3gon4i")
    put_record(buffer, 0, 2, "deleteme", "deadbeef")
    # replace "deleteme" with a tombstone
    evict_all(buffer, lambda: buffer.min_timestamp() < 1)
    # flush everything to the changelog
    buffer.flush()

    def nice(value: bytes | None) -> tuple[int, BufferValue] | None:
        if value is None:
            return None
        buffer_value, pos = BufferValue.deserialize(value)
        return struct.unpack_from(">q", value, pos)[0], buffer_value

    collected = [(topic, key.decode(), nice(value), headers)
                 for topic, key, value, headers in context.collected]
    changelog = f"{APP_ID}-{test_name}-changelog"
    v3 = Headers().add(V, b"\x03")
    assert collected == [
        (changelog, "deleteme", None, Headers()),
        (changelog, "zxcv", (1, get_buffer_value("3gon4i", 1)), v3),
        (changelog, "asdf", (2, get_buffer_value("2093j", 0)), v3),
    ]


def _changelog(key: str, value: str | None, timestamp: int, headers: Headers,
               offset: int) -> ChangelogRecord:
    return ChangelogRecord(key.encode(), None if value is None else bytes.fromhex(value),
                           timestamp, headers, "changelog-topic", 0, offset)


def _restore_and_check(buffer: Any, records: list[ChangelogRecord], sizes: tuple[int, int],
                       evicted: list[tuple[Any, ...]]) -> None:
    """The shared second half of the restore tests: counts, tombstone, priors, evictions."""
    buffer.restore_batch(records)
    assert buffer.num_records() == 3
    assert buffer.min_timestamp() == 0
    assert buffer.buffer_size() == sizes[0]

    buffer.restore_batch([_changelog("todelete", None, 3, Headers(), 3)])
    assert buffer.num_records() == 2
    assert buffer.min_timestamp() == 1
    assert buffer.buffer_size() == sizes[1]

    assert buffer.prior_value_for_buffered("todelete") == (False, None)
    assert buffer.prior_value_for_buffered("asdf") == (True, None)
    assert buffer.prior_value_for_buffered("zxcv") == (True, "previous")
    assert evict_all(buffer) == evicted


# captured from Kafka 2.4 (version 3 bytes), as in Java: do not change them
V3_TO_DELETE = ("0000000000000000000000000000000000000005746F70696300000000FFFFFFFFFFFFFFFFFFFF"
                "FFFF00000006646F6F6D65640000000000000000")
V3_ASDF = ("0000000000000001000000000000000000000005746F70696300000000FFFFFFFFFFFFFFFFFFFFFFFF"
           "00000004717765720000000000000002")
V3_ZXCV_1 = ("0000000000000002000000000000000000000005746F70696300000000FFFFFFFF000000087072657"
             "6696F75730000000749474E4F52454400000005336F34696D0000000000000001")
V3_ZXCV_2 = ("0000000000000003000000000000000000000005746F70696300000000FFFFFFFF000000087072657"
             "6696F757300000005336F34696D000000046E6578740000000000000001")
V3_EVICTED = [("zxcv", ("next", "3o4im"), get_context(3)),
              ("asdf", ("qwer", None), get_context(1))]


def _v3_records(headers: Headers) -> list[ChangelogRecord]:
    return [_changelog("todelete", V3_TO_DELETE, 999, headers, 0),
            _changelog("asdf", V3_ASDF, 9999, headers, 1),
            _changelog("zxcv", V3_ZXCV_1, 99, headers, 2),
            _changelog("zxcv", V3_ZXCV_2, 100, headers, 2)]


def test_should_restore_old_unversioned_format(buffer: Any) -> None:
    # captured from Kafka 2.1, as in Java: do not change them
    records = [
        _changelog("todelete", "0000000000000000FFFFFFFF00000006646F6F6D6564", 0, Headers(), 0),
        _changelog("asdf", "0000000000000002FFFFFFFF0000000471776572", 1, Headers(), 1),
        _changelog("zxcv", "00000000000000010000000870726576696F757300000005656F34696D", 2,
                   Headers(), 2),
        _changelog("zxcv", "000000000000000100000005656F34696D000000046E657874", 3, Headers(), 3),
    ]
    # the record topic is the changelog topic: an oversight of the original format, kept
    _restore_and_check(buffer, records, (172, 115), [
        ("zxcv", ("next", "eo4im"), (3, 3, "changelog-topic", 0, Headers())),
        ("asdf", ("qwer", None), (1, 1, "changelog-topic", 0, Headers())),
    ])


def test_should_restore_v1_format(buffer: Any) -> None:
    v1 = Headers().add(V, b"\x01")
    # captured from Kafka 2.2, as in Java: do not change them
    records = [
        _changelog("todelete", "00000000000000000000000000000000000000000000000000000005746F706"
                   "96300000000FFFFFFFF0000000EFFFFFFFF00000006646F6F6D6564", 999, v1, 0),
        _changelog("asdf", "00000000000000020000000000000001000000000000000000000005746F7069630"
                   "0000000FFFFFFFF0000000CFFFFFFFF0000000471776572", 9999, v1, 1),
        _changelog("zxcv", "00000000000000010000000000000002000000000000000000000005746F7069630"
                   "0000000FFFFFFFF000000150000000870726576696F757300000005336F34696D", 99, v1, 2),
        _changelog("zxcv", "00000000000000010000000000000003000000000000000000000005746F7069630"
                   "0000000FFFFFFFF0000001100000005336F34696D000000046E657874", 100, v1, 3),
    ]
    _restore_and_check(buffer, records, (142, 95), V3_EVICTED)


def test_should_restore_v2_format(buffer: Any) -> None:
    v2 = Headers().add(V, b"\x02")
    # captured from Kafka 2.3, as in Java: do not change them
    records = [
        _changelog("todelete", "0000000000000000000000000000000000000005746F70696300000000FFFFF"
                   "FFF0000000EFFFFFFFF00000006646F6F6D6564FFFFFFFF0000000000000000", 999, v2, 0),
        _changelog("asdf", "0000000000000001000000000000000000000005746F70696300000000FFFFFFFF0"
                   "000000CFFFFFFFF0000000471776572FFFFFFFF0000000000000002", 9999, v2, 1),
        _changelog("zxcv", "0000000000000002000000000000000000000005746F70696300000000FFFFFFFF0"
                   "00000140000000749474E4F52454400000005336F34696D0000000870726576696F757300000"
                   "00000000001", 99, v2, 2),
        _changelog("zxcv", "0000000000000003000000000000000000000005746F70696300000000FFFFFFFF0"
                   "000001100000005336F34696D000000046E6578740000000870726576696F75730000000000"
                   "000001", 100, v2, 2),
    ]
    _restore_and_check(buffer, records, (142, 95), V3_EVICTED)


def test_should_restore_v3_format_with_v2_header(buffer: Any) -> None:
    # 2.4.0, 2.4.1 and 2.5.0 wrote version 3 bytes under the version 2 header
    _restore_and_check(buffer, _v3_records(Headers().add(V, b"\x02")), (142, 95), V3_EVICTED)


def test_should_restore_v3_format(buffer: Any) -> None:
    _restore_and_check(buffer, _v3_records(Headers().add(V, b"\x03")), (142, 95), V3_EVICTED)


def test_should_not_restore_unrecognized_version_record(buffer: Any) -> None:
    todelete_value = get_buffer_value("doomed", 0).serialize()
    with pytest.raises(ks.errors.InvalidArgumentError):
        buffer.restore_batch([ChangelogRecord(
            b"todelete", struct.pack(">q", 0) + todelete_value, 999, Headers().add(V, b"\xff"),
            "changelog-topic", 0, 0)])
