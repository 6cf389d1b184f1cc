"""Kafka's ``MaterializedTest``, translated to kslab's ``Materialized`` (``kslab/dsl/config.py``).

Java's ``NullPointerException`` is ``MissingArgumentError``, ``IllegalArgumentException``
``InvalidArgumentError`` and ``TopologyException`` ``ks.TopologyError``, with Java's messages.
Java's ``as(WindowBytesStoreSupplier)``, ``as(KeyValueBytesStoreSupplier)``,
``as(SessionBytesStoreSupplier)`` and ``as(StoreType)`` are one Python ``Materialized.as_``, so
``as_(None)`` says "supplier can't be null" for all four (Java: "store type can't be null" for
the last). Nothing skipped.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

import kslab as ks
from kslab.errors import InvalidArgumentError, MissingArgumentError


def test_should_allow_valid_topic_names_as_store_name():
    # shouldAllowValidTopicNamesAsStoreName
    ks.Materialized.as_("valid-name")
    ks.Materialized.as_("valid.name")
    ks.Materialized.as_("valid_name")


def test_should_not_allow_invalid_topic_names():
    # shouldNotAllowInvalidTopicNames
    invalid_name = "not:valid"
    with pytest.raises(ks.TopologyError) as info:
        ks.Materialized.as_(invalid_name)
    assert str(info.value) == (
        f'Invalid topology: Name "{invalid_name}" is illegal, it contains a character other '
        "than ASCII alphanumerics, '.', '_' and '-'")


def test_should_throw_null_pointer_if_window_bytes_store_supplier_is_null():
    # shouldThrowNullPointerIfWindowBytesStoreSupplierIsNull
    with pytest.raises(MissingArgumentError) as info:
        ks.Materialized.as_(None)
    assert str(info.value) == "supplier can't be null"


def test_should_throw_null_pointer_if_key_value_bytes_store_supplier_is_null():
    # shouldThrowNullPointerIfKeyValueBytesStoreSupplierIsNull
    with pytest.raises(MissingArgumentError) as info:
        ks.Materialized.as_(None)
    assert str(info.value) == "supplier can't be null"


def test_should_throw_null_pointer_if_store_type_is_null():
    # shouldThrowNullPointerIfStoreTypeIsNull (one Python as_: see the module docstring)
    with pytest.raises(MissingArgumentError) as info:
        ks.Materialized.as_(None)
    assert str(info.value).endswith("can't be null")


def test_should_throw_null_pointer_if_session_bytes_store_supplier_is_null():
    # shouldThrowNullPointerIfSessionBytesStoreSupplierIsNull
    with pytest.raises(MissingArgumentError) as info:
        ks.Materialized.as_(None)
    assert str(info.value) == "supplier can't be null"


def test_should_throw_illegal_argument_exception_if_retention_is_negative():
    # shouldThrowIllegalArgumentExceptionIfRetentionIsNegative
    with pytest.raises(InvalidArgumentError) as info:
        ks.Materialized.as_("valid-name").with_retention(timedelta(days=-1))
    assert str(info.value) == "Retention must not be negative."


def test_should_throw_illegal_argument_exception_if_store_supplier_and_store_type_both_set():
    # shouldThrowIllegalArgumentExceptionIfStoreSupplierAndStoreTypeBothSet
    with pytest.raises(InvalidArgumentError) as info:
        ks.Materialized.as_(ks.Stores.persistent_key_value_store("test")).with_store_type(
            ks.Materialized.StoreType.ROCKS_DB)
    assert str(info.value) == "Cannot set store type when store supplier is pre-configured."


def test_should_throw_topology_exception_if_store_name_exceeds_max_allowed_length():
    # shouldThrowTopologyExceptionIfStoreNameExceedsMaxAllowedLength
    max_name_length = 249
    invalid_store_name = "a" * (max_name_length + 1)
    with pytest.raises(ks.TopologyError) as info:
        ks.Materialized.as_(invalid_store_name)
    assert str(info.value) == (
        f"Invalid topology: Name is illegal, it can't be longer than {max_name_length} "
        f"characters, name: {invalid_store_name}")
