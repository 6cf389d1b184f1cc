"""Kafka's ``SubscriptionJoinProcessorSupplierTest`` (kstream/internals/foreignkeyjoin),
translated through kslab's driver (``tests/conformance/joins/foreign_key/_fk_harness.py``).

Java hands the subscription-join processor ``Change(ValueAndTimestamp(subscription, 1), null)``
records and a value getter holding ``fk1 -> ("foo", 1)``; here the right table gets
``fk1 -> foo`` at time 1, the subscription is piped into the FK join's subscription topic at
time 1 (the receive processor turns it into that record), and a processor hung under the
subscription-join node captures what it forwards. Two deviations, both forced by the wire
format: Java's one-element hash ``new long[]{1L}`` is the pair ``(1, 2)`` here (the serde writes
two longs), and the v1 primary partition is 0 instead of 12 (the driver's response topic has one
partition, and the response is routed to the primary partition).
"""

from __future__ import annotations

import pytest

from kslab.dsl._fk_wire import Instruction, SubscriptionResponseWrapper, SubscriptionWrapper
from tests.conformance.joins.foreign_key._fk_harness import SUBSCRIPTION_JOIN, FkJoinHarness

HASH = (1, 2)
V0, V1 = SubscriptionWrapper.VERSION_0, SubscriptionWrapper.VERSION_1
V1_PARTITION = 0


@pytest.fixture
def h():
    harness = FkJoinHarness(capture=SUBSCRIPTION_JOIN)
    harness.right.pipe_input("fk1", "foo", 1)
    harness.drain()
    yield harness
    harness.close()


def _wrapper(instruction: Instruction, version: int) -> SubscriptionWrapper:
    partition = None if version == V0 else V1_PARTITION
    return SubscriptionWrapper(HASH, instruction, "pk1", partition, version=version)


def _process(h: FkJoinHarness, foreign_key: str, new_value: SubscriptionWrapper) -> list:
    h.subscriptions.pipe_input(foreign_key, new_value, 1)
    return h.drain()


def test_should_detect_version_change():
    # a reminder to add tests once SubscriptionWrapper's version is bumped
    assert SubscriptionWrapper.CURRENT_VERSION == SubscriptionWrapper.VERSION_1


def _should_delete_key_and_propagate_fk(h: FkJoinHarness, version: int) -> None:
    new_value = _wrapper(Instruction.DELETE_KEY_AND_PROPAGATE, version)
    assert _process(h, "fk1", new_value) == [
        ("pk1", SubscriptionResponseWrapper(HASH, None, new_value.primary_partition), 1)]


def test_should_delete_key_and_propagate_fk_v0(h):
    _should_delete_key_and_propagate_fk(h, V0)


def test_should_delete_key_and_propagate_fk_v1(h):
    _should_delete_key_and_propagate_fk(h, V1)


def _should_propagate_only_if_fk_available(h: FkJoinHarness, version: int) -> None:
    new_value = _wrapper(Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, version)
    assert _process(h, "fk1", new_value) == [
        ("pk1", SubscriptionResponseWrapper(HASH, "foo", new_value.primary_partition), 1)]


def test_should_propagate_only_if_fk_available_v0(h):
    _should_propagate_only_if_fk_available(h, V0)


def test_should_propagate_only_if_fk_available_v1(h):
    _should_propagate_only_if_fk_available(h, V1)


def _should_propagate_null_if_no_fk_available(h: FkJoinHarness, version: int) -> None:
    new_value = _wrapper(Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE, version)
    partition = new_value.primary_partition
    # propagate matched FK
    assert _process(h, "fk1", new_value) == [
        ("pk1", SubscriptionResponseWrapper(HASH, "foo", partition), 1)]
    # propagate null if there is no match
    assert _process(h, "fk9000", new_value) == [
        ("pk1", SubscriptionResponseWrapper(HASH, None, partition), 1)]


def test_should_propagate_null_if_no_fk_available_v0(h):
    _should_propagate_null_if_no_fk_available(h, V0)


def test_should_propagate_null_if_no_fk_available_v1(h):
    _should_propagate_null_if_no_fk_available(h, V1)


def _should_delete_key_no_propagate(h: FkJoinHarness, version: int) -> None:
    assert _process(h, "fk1", _wrapper(Instruction.DELETE_KEY_NO_PROPAGATE, version)) == []


def test_should_delete_key_no_propagate_v0(h):
    _should_delete_key_no_propagate(h, V0)


def test_should_delete_key_no_propagate_v1(h):
    _should_delete_key_no_propagate(h, V1)
