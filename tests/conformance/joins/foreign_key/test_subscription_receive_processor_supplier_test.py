"""Kafka's ``SubscriptionReceiveProcessorSupplierTest`` (kstream/internals/foreignkeyjoin),
translated through kslab's driver (``tests/conformance/joins/foreign_key/_fk_harness.py``).

Java puts an old subscription under ``CombinedKey(fk1, pk1)`` into the processor's store, feeds
it a new subscription for ``fk1`` and checks the store and the forwarded
``Change(new, old)``. Here the old subscription is put into the FK join's subscription store
through the driver, the new one is piped into the subscription topic, and a processor hung
under the receive node captures what it forwards. kslab's receive processor keys its output by
``(foreign key, serialized primary key)`` -- Java's ``CombinedKey`` -- and its store holds
primary keys as their serialized bytes, so ``pk1`` reads ``b"pk1"`` in those places. The new
v1 subscription's primary partition is 0 instead of Java's 1: the driver's response topic has
one partition, and the join downstream routes responses to the primary partition.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.dsl import Change
from kslab.dsl._fk_wire import Instruction, SubscriptionWrapper
from tests.conformance.joins.foreign_key._fk_harness import (
    COMBINED_KEY_SCHEMA,
    RECEIVE,
    FkJoinHarness,
)

FK, PK1, PK2 = "fk1", "pk1", "pk2"
V0, V1 = SubscriptionWrapper.VERSION_0, SubscriptionWrapper.VERSION_1
DELETES = (Instruction.DELETE_KEY_AND_PROPAGATE, Instruction.DELETE_KEY_NO_PROPAGATE)


@pytest.fixture
def h():
    harness = FkJoinHarness(capture=RECEIVE)
    yield harness
    harness.close()


def check_receive(h: FkJoinHarness, instruction: Instruction, version: int) -> None:
    old_partition, new_partition = (None, None) if version == V0 else (1, 0)
    old_wrapper = SubscriptionWrapper((1, 2), instruction, PK2.encode(), old_partition,
                                      version=version)
    old_value = ks.ValueAndTimestamp(old_wrapper, 0)
    key = COMBINED_KEY_SCHEMA.to_bytes(FK, PK1)
    h.store.put(key, old_value)
    h.subscriptions.pipe_input(
        FK, SubscriptionWrapper((1, 2), instruction, PK1, new_partition, version=version), 1)
    new_value = ks.ValueAndTimestamp(
        SubscriptionWrapper((1, 2), instruction, PK1.encode(), new_partition, version=version), 1)
    assert h.store.get(key) == (None if instruction in DELETES else new_value)
    assert h.drain() == [((FK, PK1.encode()), Change(new_value, old_value), 1)]


def test_should_detect_version_change():
    # a reminder to add tests once SubscriptionWrapper's version is bumped
    assert SubscriptionWrapper.CURRENT_VERSION == SubscriptionWrapper.VERSION_1


def test_should_delete_key_and_propagate_v0(h):
    check_receive(h, Instruction.DELETE_KEY_AND_PROPAGATE, V0)


def test_should_delete_key_and_propagate_v1(h):
    check_receive(h, Instruction.DELETE_KEY_AND_PROPAGATE, V1)


def test_should_delete_key_no_propagate_v0(h):
    check_receive(h, Instruction.DELETE_KEY_NO_PROPAGATE, V0)


def test_should_delete_key_no_propagate_v1(h):
    check_receive(h, Instruction.DELETE_KEY_NO_PROPAGATE, V1)


def test_should_propagate_only_if_fk_val_available_v0(h):
    check_receive(h, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, V0)


def test_should_propagate_only_if_fk_val_available_v1(h):
    check_receive(h, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, V1)


def test_should_propagate_null_if_no_fk_val_available_v0(h):
    check_receive(h, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE, V0)


def test_should_propagate_null_if_no_fk_val_available_v1(h):
    check_receive(h, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE, V1)
