"""Kafka's ``ForeignTableJoinProcessorSupplierTests`` (kstream/internals/foreignkeyjoin),
translated through kslab's driver (``tests/conformance/joins/foreign_key/_fk_harness.py``).

Java puts subscriptions into the processor's store and feeds right-table changes to it; here
the subscriptions are put into the FK join's subscription store through the driver (keys built
with ``CombinedKeySchema``; the store holds primary keys as their serialized bytes), the right
table gets the records, and a processor hung under the foreign-table-join node captures what it
forwards. ``Change(null, "new_value")`` is the right row's tombstone after ``new_value``. A
null-keyed right record never reaches the processor in a running topology: the table source
drops it, counted in the driver's ``dropped-records-total`` (Java's dropped-records sensor).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.dsl._fk_wire import Instruction, SubscriptionResponseWrapper, SubscriptionWrapper
from tests.conformance.joins.foreign_key._fk_harness import (
    COMBINED_KEY_SCHEMA,
    FOREIGN_TABLE_JOIN,
    FkJoinHarness,
)

PK1, PK2, FK1 = "pk1", "pk2", "fk1"
HASH = (1, 2)


@pytest.fixture
def h():
    harness = FkJoinHarness(capture=FOREIGN_TABLE_JOIN)
    yield harness
    harness.close()


def put_in_store(h: FkJoinHarness, fk: str, pk: str) -> None:
    old_wrapper = SubscriptionWrapper(HASH, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE,
                                      pk.encode(), None, version=SubscriptionWrapper.VERSION_0)
    h.store.put(COMBINED_KEY_SCHEMA.to_bytes(fk, pk), ks.ValueAndTimestamp(old_wrapper, 0))


def test_should_propagate_right_record_for_each_matching_primary_key(h):
    put_in_store(h, FK1, PK1)
    put_in_store(h, FK1, PK2)
    h.right.pipe_input(FK1, "new_value", 0)
    assert h.drain() == [(PK1, SubscriptionResponseWrapper(HASH, "new_value", None), 0),
                         (PK2, SubscriptionResponseWrapper(HASH, "new_value", None), 0)]


def test_should_propagate_nothing_if_no_matching_primary_key(h):
    put_in_store(h, FK1, PK1)
    h.right.pipe_input("fk2", "new_value", 0)
    assert h.drain() == []


def test_should_propagate_tombstone_right_record_for_each_matching_primary_key(h):
    h.right.pipe_input(FK1, "new_value", 0)
    put_in_store(h, FK1, PK1)
    put_in_store(h, FK1, PK2)
    h.right.pipe_input(FK1, None, 0)
    assert h.drain() == [(PK1, SubscriptionResponseWrapper(HASH, None, None), 0),
                         (PK2, SubscriptionResponseWrapper(HASH, None, None), 0)]


def test_should_not_match_foreign_keys_having_this_fk_as_prefix(h):
    put_in_store(h, FK1, PK1)
    put_in_store(h, "fk", PK2)
    h.right.pipe_input("fk", "new_value", 0)
    assert h.drain() == [(PK2, SubscriptionResponseWrapper(HASH, "new_value", None), 0)]


def test_should_ignore_record_with_null_key(h):
    put_in_store(h, FK1, PK1)
    before = h.dropped()
    h.right.pipe_input(None, "new_value", 0)
    assert h.drain() == []
    assert h.dropped() - before == 1
