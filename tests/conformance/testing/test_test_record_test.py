"""Kafka's ``TestRecordTest`` (test-utils), translated to ``ks.TestRecord``.

Mapping: Java's ``key()``/``getKey()`` etc. are the attributes ``key``, ``value``,
``headers``, ``timestamp`` (int ms); ``getRecordTime()`` (an ``Instant``) is ``record_time``
(a UTC ``datetime``). ``new TestRecord<>(value)`` is ``TestRecord(value)``; Java's argument
order ``(key, value, headers, time)`` is accepted beside kslab's ``(key, value, timestamp,
headers)``. ``IllegalArgumentException`` for a negative timestamp maps to
``kslab.errors.InvalidArgumentError`` (a ``ks.KslabError`` and a ``ValueError``).
``toString()`` is ``str()``, in Java's format.

Skipped, as outside kslab's API: ``testConsumerRecord`` and ``testProducerRecord`` (the
constructors from Kafka client records; kslab has no ConsumerRecord/ProducerRecord).
``testMultiFieldMatcher`` (Hamcrest ``hasProperty``) becomes attribute checks.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import kslab as ks
from kslab.errors import InvalidArgumentError

KEY = "testKey"
VALUE = 1
HEADERS = ks.Headers([("foo", b"value"), ("bar", None), ('"A\\u00ea\\u00f1\\u00fcC"', b"value")])
RECORD_TIME = datetime(2019, 6, 1, 10, tzinfo=UTC)
RECORD_MS = 1559383200000


def test_fields():
    # testFields
    record = ks.TestRecord(KEY, VALUE, RECORD_TIME, HEADERS)
    assert record.key == KEY
    assert record.value == VALUE
    assert record.headers == HEADERS
    assert record.timestamp == RECORD_MS
    assert record.record_time == RECORD_TIME


def test_multi_field_matcher():
    # testMultiFieldMatcher
    record = ks.TestRecord(KEY, VALUE, RECORD_TIME, HEADERS)
    assert (record.key, record.value, record.headers) == (KEY, VALUE, HEADERS)
    assert (record.key, record.value, record.headers, record.record_time) == \
        (KEY, VALUE, HEADERS, RECORD_TIME)
    assert (record.key, record.value) == (KEY, VALUE)


def test_equals_and_hash_code():
    # testEqualsAndHashCode
    record = ks.TestRecord(KEY, VALUE, RECORD_TIME, HEADERS)
    assert record == record
    assert hash(record) == hash(record)

    equal = ks.TestRecord(KEY, VALUE, RECORD_TIME, HEADERS)
    assert record == equal
    assert hash(record) == hash(equal)

    equal_ms = ks.TestRecord(KEY, VALUE, RECORD_MS, HEADERS)
    assert record == equal_ms
    assert hash(record) == hash(equal_ms)

    headers2 = ks.Headers([("foo", b"value"), ("bar", None)])
    assert record != ks.TestRecord(KEY, VALUE, RECORD_TIME, headers2)
    assert record != ks.TestRecord("test-mismatch", VALUE, RECORD_TIME, HEADERS)
    assert record != ks.TestRecord(KEY, 2, RECORD_TIME, HEADERS)
    assert record != ks.TestRecord(KEY, VALUE, RECORD_TIME + timedelta(milliseconds=1), HEADERS)

    null_fields = ks.TestRecord(None, None, None, None)
    assert null_fields == null_fields
    assert hash(null_fields) == hash(null_fields)


def test_partial_constructor_equals():
    # testPartialConstructorEquals
    assert ks.TestRecord(VALUE) == ks.TestRecord(None, VALUE, None, None)
    assert ks.TestRecord(VALUE).key is None
    assert ks.TestRecord(KEY, VALUE) == ks.TestRecord(KEY, VALUE, None, None)
    assert ks.TestRecord(KEY, VALUE, headers=HEADERS) == ks.TestRecord(KEY, VALUE, None, HEADERS)
    assert ks.TestRecord(KEY, VALUE, HEADERS) == ks.TestRecord(KEY, VALUE, None, HEADERS)
    assert ks.TestRecord(KEY, VALUE, RECORD_TIME) == ks.TestRecord(KEY, VALUE, RECORD_MS)
    # Java's argument order: (key, value, headers, time)
    assert ks.TestRecord(KEY, VALUE, HEADERS, RECORD_TIME) == \
        ks.TestRecord(KEY, VALUE, RECORD_MS, HEADERS)
    assert ks.TestRecord(KEY, VALUE, None, RECORD_MS) == ks.TestRecord(KEY, VALUE, RECORD_MS)


def test_invalid_records():
    # testInvalidRecords
    with pytest.raises(InvalidArgumentError, match="negative"):
        ks.TestRecord(KEY, VALUE, -1, HEADERS)
    with pytest.raises(ValueError, match="negative"):
        ks.TestRecord(KEY, VALUE, HEADERS, -1)


def test_to_string():
    # testToString
    record = ks.TestRecord(KEY, VALUE, RECORD_TIME, HEADERS)
    assert str(record) == (
        "TestRecord[key=testKey, value=1, "
        "headers=RecordHeaders(headers = [RecordHeader(key = foo, value = [118, 97, 108, 117, "
        "101]), RecordHeader(key = bar, value = null), RecordHeader(key = "
        '"A\\u00ea\\u00f1\\u00fcC", value = [118, 97, 108, 117, 101])], isReadOnly = false), '
        "recordTime=2019-06-01T10:00:00Z]"
    )


def test_repr_is_python():
    # beyond Java: repr() shows the fields as Python values
    record = ks.TestRecord("k", 1, 5)
    assert repr(record) == "TestRecord(key='k', value=1, timestamp=5)"
    assert str(ks.TestRecord(None, None, None)) == (
        "TestRecord[key=null, value=null, headers=RecordHeaders(headers = [], "
        "isReadOnly = false), recordTime=null]"
    )


def test_timestamp_forms():
    # beyond Java: numpy integers and naive datetimes (UTC) are timestamps too; floats are not
    np = pytest.importorskip("numpy")
    assert ks.TestRecord("k", "v", np.int64(5)) == ks.TestRecord("k", "v", 5)
    assert ks.TestRecord("k", "v", datetime(2019, 6, 1, 10)).timestamp == RECORD_MS
    assert ks.TestRecord("k", "v").record_time is None
    with pytest.raises(TypeError, match="int milliseconds or a datetime"):
        ks.TestRecord("k", "v", 1.5)
