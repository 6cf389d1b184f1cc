"""Kafka's ``SubscriptionSendProcessorSupplierTest`` (kstream/internals/foreignkeyjoin),
translated through kslab's driver.

Java feeds ``Change(new, old)`` records straight into the send processor with a
``MockInternalNewProcessorContext`` and checks what it forwards. kslab's send processor is not
public, so each test builds a foreign-key join (left or inner) whose left table holds String
values that *are* the foreign key (``"null"`` stands for Java's ``LeftValue(null)``: the
extractor maps it to ``None``), pipes the old value (if any) and then the new one (``None`` is a
tombstone) for primary key ``pk``, and reads what the second pipe wrote to the
subscription-registration topic, decoded with ``SubscriptionWrapperSerde`` from
``kslab.dsl._fk_wire``. ``hash(LeftValue)`` is ``murmur3_hash128`` of the value's String bytes,
as Java's ``LeftValueSerializer`` writes them. The record metadata partition (0) becomes the
wrapper's primary partition, as in Java. Java's dropped-records sensor is the driver's
``dropped-records-total`` for task ``0_0``, counted for the second pipe only.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.dsl._fk_wire import (
    Instruction,
    SubscriptionWrapper,
    SubscriptionWrapperSerde,
    murmur3_hash128,
)

S = serdes.String()
APP = "app"
SUBSCRIPTION_TOPIC = f"{APP}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic"
PK, FK1, FK2 = "pk", "fk1", "fk2"
ABSENT = object()  # no old value: the new value is the row's first
NULL_FK = "null"  # Java's LeftValue(null)

DELETE_KEY_NO_PROPAGATE = Instruction.DELETE_KEY_NO_PROPAGATE
DELETE_KEY_AND_PROPAGATE = Instruction.DELETE_KEY_AND_PROPAGATE
PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE = Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE
PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE = Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE


def hash_(value: str | None) -> tuple[int, int] | None:
    return None if value is None else murmur3_hash128(value.encode())


def _extract(value: str) -> str | None:
    return None if value == NULL_FK else value


def process(left_join: bool, new: str | None, old: object = ABSENT) -> tuple[list, int]:
    """What the send processor forwards for ``Change(new, old)`` of ``pk``, and what it drops."""
    builder = ks.StreamsBuilder()
    left = builder.table("left", ks.Consumed.with_(S, S))
    right = builder.table("right", ks.Consumed.with_(S, S))
    join = left.left_join if left_join else left.join
    join(right, _extract, lambda a, b: f"{a}+{b}").to_stream().to("out")
    with ks.TopologyTestDriver(builder.build(), {"application.id": APP}) as driver:
        topic = driver.create_input_topic("left", S, S)
        subscriptions = driver.create_output_topic(SUBSCRIPTION_TOPIC, S,
                                                   SubscriptionWrapperSerde("", S))
        if old is not ABSENT:
            topic.pipe_input(PK, old, 0)
        subscriptions.read_records_to_list()
        dropped = driver.metrics()["0_0"]["dropped-records-total"]
        topic.pipe_input(PK, new, 0)
        forwarded = [(r.key, r.value, r.timestamp) for r in subscriptions.read_records_to_list()]
        return forwarded, driver.metrics()["0_0"]["dropped-records-total"] - dropped


def record(foreign_key: str | None, hashed: object, instruction: Instruction) -> tuple:
    return (foreign_key, SubscriptionWrapper(hashed, instruction, PK, 0), 0)


# Left join tests

def test_left_join_should_propagate_new_primary_key_with_non_null_fk():
    forwarded, _ = process(True, FK1)
    assert forwarded == [record(FK1, hash_(FK1), PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)]


def test_left_join_should_propagate_new_primary_key_with_null_fk():
    forwarded, _ = process(True, NULL_FK)
    assert forwarded == [record(None, hash_(NULL_FK), PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)]


def test_left_join_should_propagate_change_of_fk_from_non_null_to_non_null_value():
    forwarded, _ = process(True, FK2, FK1)
    assert len(forwarded) == 2
    assert forwarded[1] == record(FK2, hash_(FK2), PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)


def test_left_join_should_propagate_new_record_of_unchanged_fk():
    forwarded, _ = process(True, FK1, FK1)
    assert forwarded == [record(FK1, hash_(FK1), PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)]


def test_left_join_should_propagate_change_of_fk_from_non_null_to_null_value():
    forwarded, _ = process(True, NULL_FK, FK1)
    assert len(forwarded) > 0
    assert forwarded[0] == record(FK1, hash_(NULL_FK), DELETE_KEY_AND_PROPAGATE)


def test_left_join_should_propagate_change_from_null_fk_to_non_null_fk_value():
    forwarded, _ = process(True, FK1, NULL_FK)
    assert forwarded == [record(FK1, hash_(FK1), PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)]


def test_left_join_should_propagate_change_from_null_fk_to_null_fk_value():
    forwarded, _ = process(True, NULL_FK, NULL_FK)
    assert forwarded == [record(None, hash_(NULL_FK), PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)]


def test_left_join_should_propagate_deletion_of_a_primary_key():
    forwarded, _ = process(True, None, FK1)
    assert len(forwarded) > 0
    assert forwarded[0] == record(FK1, None, DELETE_KEY_AND_PROPAGATE)


def test_left_join_should_propagate_deletion_of_a_primary_key_that_had_null_fk():
    forwarded, _ = process(True, None, NULL_FK)
    assert forwarded == [record(None, None, PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)]


def test_left_join_should_propagate_nothing_when_old_and_new_left_value_is_null():
    forwarded, _ = process(True, None)
    assert forwarded == []


# Inner join tests

def test_inner_join_should_propagate_new_primary_key():
    forwarded, _ = process(False, FK1)
    assert forwarded == [record(FK1, hash_(FK1), PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE)]


def test_inner_join_should_not_propagate_new_primary_key_with_null_fk():
    forwarded, dropped = process(False, NULL_FK)
    assert forwarded == []
    assert dropped == 1


def test_inner_join_should_delete_old_and_propagate_new_fk():
    forwarded, _ = process(False, FK2, FK1)
    assert forwarded == [record(FK1, hash_(FK2), DELETE_KEY_NO_PROPAGATE),
                         record(FK2, hash_(FK2), PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)]


def test_inner_join_should_propagate_nothing_when_old_and_new_fk_is_null():
    forwarded, dropped = process(False, NULL_FK, NULL_FK)
    assert forwarded == []
    assert dropped == 1


def test_inner_join_should_propagate_deletion_of_primary_key():
    forwarded, _ = process(False, None, FK1)
    assert forwarded == [record(FK1, None, DELETE_KEY_AND_PROPAGATE)]


def test_inner_join_should_propagate_nothing_when_old_and_new_left_value_is_null():
    forwarded, _ = process(False, None)
    assert forwarded == []
