"""Kafka's ``BufferValueTest``: the suppression buffer's value (prior, old and new value bytes
and the record context) shares an old value equal to the prior value, counts it once in its
size estimate, and serializes it as Java's version 3 changelog layout (``-2`` for "old equals
prior", ``-1`` for null).

Mapping: ``new BufferValue(prior, old, new, context)`` is ``BufferValue.of(prior, old, new,
context)`` from ``kslab.state.buffer`` (``of`` is Java's constructor, which does the sharing);
``assertSame`` is ``is``; a ``ProcessorRecordContext(0, 0, 0, "topic", headers)`` is the context
tuple ``(0, 0, "topic", 0, Headers())`` and its ``serialize()`` is ``serialize_context``;
``serialize(0).array()`` is ``serialize()`` and ``BufferValue.deserialize(buffer)`` returns the
value and the position after it.
"""

from __future__ import annotations

import struct

from kslab.records import Headers
from kslab.state.buffer import BufferValue, serialize_context

CONTEXT = (0, 0, "topic", 0, Headers())


def _ints(*values: int) -> bytes:
    return b"".join(struct.pack(">i", v) for v in values)


def _without_context(value: BufferValue) -> bytes:
    return value.serialize()[len(serialize_context(CONTEXT)):]


def _deserialize(tail: bytes) -> BufferValue:
    value, pos = BufferValue.deserialize(serialize_context(CONTEXT) + tail)
    assert pos == len(serialize_context(CONTEXT)) + len(tail)
    return value


def test_should_deduplicate_null_values() -> None:
    buffer_value = BufferValue.of(None, None, None, None)
    assert buffer_value.prior is buffer_value.old


def test_should_deduplicate_identical_values() -> None:
    data = bytes([0])
    buffer_value = BufferValue.of(data, data, None, None)
    assert buffer_value.prior is buffer_value.old


def test_should_deduplicate_equal_values() -> None:
    buffer_value = BufferValue.of(bytearray([0]), bytearray([0]), None, None)
    assert buffer_value.prior is buffer_value.old


def test_should_store_different_values() -> None:
    prior_value, old_value = bytes([0]), bytes([1])
    buffer_value = BufferValue.of(prior_value, old_value, None, None)
    assert buffer_value.prior is prior_value
    assert buffer_value.old is old_value
    assert buffer_value.prior != buffer_value.old


def test_should_store_different_values_with_prior_null() -> None:
    old_value = bytes([1])
    buffer_value = BufferValue.of(None, old_value, None, None)
    assert buffer_value.prior is None
    assert buffer_value.old is old_value
    assert buffer_value.prior != buffer_value.old


def test_should_store_different_values_with_old_null() -> None:
    prior_value = bytes([0])
    buffer_value = BufferValue.of(prior_value, None, None, None)
    assert buffer_value.prior is prior_value
    assert buffer_value.old is None
    assert buffer_value.prior != buffer_value.old


def test_should_account_for_deduplication_in_size_estimate() -> None:
    def size(prior: bytes | None, old: bytes | None, new: bytes | None) -> int:
        return BufferValue.of(prior, old, new, CONTEXT).resident_memory_size_estimate()

    zero, one = bytes([0]), bytes([1])
    assert size(None, None, None) == 25
    assert size(zero, None, None) == 26
    assert size(None, zero, None) == 26
    assert size(bytes([0]), bytes([0]), None) == 26
    assert size(zero, one, None) == 27
    # new value should get counted, but doesn't get deduplicated
    assert size(zero, one, bytes([0])) == 28


def test_should_serialize_nulls() -> None:
    assert _without_context(BufferValue.of(None, None, None, CONTEXT)) == _ints(-1, -1, -1)


def test_should_serialize_prior() -> None:
    prior_value = bytes([5])
    assert (_without_context(BufferValue.of(prior_value, None, None, CONTEXT))
            == _ints(1) + prior_value + _ints(-1, -1))


def test_should_serialize_old() -> None:
    old_value = bytes([5])
    assert (_without_context(BufferValue.of(None, old_value, None, CONTEXT))
            == _ints(-1, 1) + old_value + _ints(-1))


def test_should_serialize_new() -> None:
    new_value = bytes([5])
    assert (_without_context(BufferValue.of(None, None, new_value, CONTEXT))
            == _ints(-1, -1, 1) + new_value)


def test_should_compact_duplicates() -> None:
    duplicate = bytes([5])
    assert (_without_context(BufferValue.of(duplicate, duplicate, None, CONTEXT))
            == _ints(1) + duplicate + _ints(-2, -1))


def test_should_deserialize_prior() -> None:
    prior_value = bytes([5])
    assert (_deserialize(_ints(1) + prior_value + _ints(-1, -1))
            == BufferValue.of(prior_value, None, None, CONTEXT))


def test_should_deserialize_old() -> None:
    old_value = bytes([5])
    assert (_deserialize(_ints(-1, 1) + old_value + _ints(-1))
            == BufferValue.of(None, old_value, None, CONTEXT))


def test_should_deserialize_new() -> None:
    new_value = bytes([5])
    assert (_deserialize(_ints(-1, -1, 1) + new_value)
            == BufferValue.of(None, None, new_value, CONTEXT))


def test_should_deserialize_compacted_duplicates() -> None:
    duplicate = bytes([5])
    buffer_value = _deserialize(_ints(1) + duplicate + _ints(-2, -1))
    assert buffer_value == BufferValue.of(duplicate, duplicate, None, CONTEXT)
    assert buffer_value.prior is buffer_value.old
