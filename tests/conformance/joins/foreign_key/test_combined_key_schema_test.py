"""Kafka's ``CombinedKeySchemaTest`` (kstream/internals/foreignkeyjoin), against kslab's FK wire
module (``kslab.dsl._fk_wire.CombinedKeySchema``).

Java's ``NullPointerException`` for a null key is ``kslab.errors.MissingArgumentError`` (a
``TypeError``); Java's ``Bytes`` are plain ``bytes``. Nothing is skipped.
"""

from __future__ import annotations

import struct

import pytest

from kslab import serdes
from kslab.dsl._fk_wire import CombinedKeySchema
from kslab.errors import MissingArgumentError


def _schema() -> CombinedKeySchema:
    return CombinedKeySchema(lambda: "fkTopic", serdes.String(), lambda: "pkTopic",
                             serdes.Integer())


def test_non_null_primary_key_serde_test():
    cks = _schema()
    primary = -999
    result = cks.to_bytes("foreignKey", primary)
    deserialized_key = cks.from_bytes(result)
    assert deserialized_key.foreign_key == "foreignKey"
    assert deserialized_key.primary_key == primary


def test_null_primary_key_serde_test():
    cks = _schema()
    with pytest.raises(MissingArgumentError):
        cks.to_bytes("foreignKey", None)


def test_null_foreign_key_serde_test():
    cks = _schema()
    with pytest.raises(MissingArgumentError):
        cks.to_bytes(None, 10)


def test_prefix_key_serde_test():
    cks = _schema()
    foreign_key = "someForeignKey"
    serialized = serdes.String().serialize("fkTopic", foreign_key)
    expected_prefix_bytes = struct.pack(">i", len(serialized)) + serialized
    assert cks.prefix_bytes(foreign_key) == expected_prefix_bytes


def test_null_prefix_key_serde_test():
    cks = _schema()
    with pytest.raises(MissingArgumentError):
        cks.prefix_bytes(None)
