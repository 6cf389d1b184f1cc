"""Kafka's ``ResponseJoinProcessorSupplierTest`` (kstream/internals/foreignkeyjoin), translated
through kslab's driver (``tests/conformance/joins/foreign_key/_fk_harness.py``).

Java gives the response-join processor a value getter over a map and feeds it responses; here
the left table's row (``lhs1``) is piped into a foreign-key join (its subscription finds no
right row, so nothing comes out), then the response is piped straight into the join's response
topic and the join's output is read. A left value that "has become null" is a row that was
never written. The response wire format does not carry Java's ``primaryPartition`` argument.
Java's dropped-records sensor is the driver's ``dropped-records-total``.
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.dsl._fk_wire import SubscriptionResponseWrapper, murmur3_hash128
from tests.conformance.joins.foreign_key._fk_harness import FkJoinHarness

S = serdes.String()


def _hash(value: str) -> tuple[int, int]:
    return murmur3_hash128(S.serialize("topic-join-resolver", value))


@pytest.fixture
def harness():
    made: list[FkJoinHarness] = []

    def make(left_join: bool, lhs_value: str | None) -> FkJoinHarness:
        h = FkJoinHarness(left_join)
        made.append(h)
        if lhs_value is not None:
            h.left.pipe_input("lhs1", lhs_value, 0)
        h.out.read_records_to_list()
        return h

    yield make
    for h in made:
        h.close()


def _forwarded(h: FkJoinHarness, response: SubscriptionResponseWrapper) -> list:
    h.responses.pipe_input("lhs1", response, 0)
    return [(r.key, r.value, r.timestamp) for r in h.out.read_records_to_list()]


def test_should_not_forward_when_hash_does_not_match(harness):
    h = harness(False, "lhsValue")
    before = h.dropped()
    old_hash = _hash("oldLhsValue")
    assert _forwarded(h, SubscriptionResponseWrapper(old_hash, "rhsValue", 0)) == []
    assert h.dropped() - before == 1


def test_should_ignore_update_when_left_has_become_null(harness):
    h = harness(False, None)
    before = h.dropped()
    assert _forwarded(h, SubscriptionResponseWrapper(_hash("lhsValue"), "rhsValue", 0)) == []
    assert h.dropped() - before == 1


def test_should_forward_when_hash_matches(harness):
    h = harness(False, "lhsValue")
    assert _forwarded(h, SubscriptionResponseWrapper(_hash("lhsValue"), "rhsValue", 0)) == [
        ("lhs1", "(lhsValue,rhsValue)", 0)]


def test_should_emit_tombstone_for_inner_join_when_right_is_null(harness):
    h = harness(False, "lhsValue")
    assert _forwarded(h, SubscriptionResponseWrapper(_hash("lhsValue"), None, 0)) == [
        ("lhs1", None, 0)]


def test_should_emit_result_for_left_join_when_right_is_null(harness):
    h = harness(True, "lhsValue")
    assert _forwarded(h, SubscriptionResponseWrapper(_hash("lhsValue"), None, 0)) == [
        ("lhs1", "(lhsValue,null)", 0)]


def test_should_emit_tombstone_for_left_join_when_right_is_null_and_left_is_null(harness):
    h = harness(True, None)
    assert _forwarded(h, SubscriptionResponseWrapper(None, None, 0)) == [("lhs1", None, 0)]
