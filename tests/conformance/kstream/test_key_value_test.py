"""Kafka's ``KeyValueTest`` (streams), translated to ``ks.KeyValue``.

``KeyValue.pair(k, v)`` is ``ks.KeyValue.pair(k, v)`` (or ``ks.KeyValue(k, v)``), a named tuple;
Java's ``equals``/``hashCode`` are ``==``/``hash``. Nothing is skipped.
"""

from __future__ import annotations

import kslab as ks


def test_should_have_same_equals_and_hash_code() -> None:
    kv = ks.KeyValue.pair("key1", 1)
    copy_of_kv = ks.KeyValue.pair(kv.key, kv.value)

    # Reflexive
    assert kv == kv
    assert hash(kv) == hash(kv)

    # Symmetric
    assert kv == copy_of_kv
    assert hash(kv) == hash(copy_of_kv)
    assert hash(copy_of_kv) == hash(kv)

    # Transitive
    copy_of_copy_of_kv = ks.KeyValue.pair(copy_of_kv.key, copy_of_kv.value)
    assert copy_of_kv == copy_of_copy_of_kv
    assert hash(copy_of_kv) == hash(copy_of_copy_of_kv)
    assert kv == copy_of_copy_of_kv
    assert hash(kv) == hash(copy_of_copy_of_kv)

    # Inequality scenarios
    assert kv != None  # noqa: E711
    assert kv != ks.KeyValue.pair(None, kv.value)
    assert kv != ks.KeyValue.pair(kv.key, None)
    assert kv != ks.KeyValue.pair(1, kv.value)
    assert kv != ks.KeyValue.pair(kv.key, "anyString")
    assert kv != ks.KeyValue.pair(1, "anyString")
    assert kv != object()

    different_key = ks.KeyValue.pair(kv.key + "suffix", kv.value)
    assert kv != different_key
    assert different_key != kv

    different_value = ks.KeyValue.pair(kv.key, kv.value + 1)
    assert kv != different_value
    assert different_value != kv

    different_key_and_value = ks.KeyValue.pair(kv.key + "suffix", kv.value + 1)
    assert kv != different_key_and_value
    assert different_key_and_value != kv
