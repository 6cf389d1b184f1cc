"""Kafka's ``KTableReduceTest``: a table reduce subtracts the old value, then adds the new one,
and keeps the newest timestamp.

Mapping: Java drives a bare ``KTableReduce`` processor through ``InternalMockProcessorContext``
with hand-made ``Change`` records; here the same three changes reach the reduce through the
public API (a table of sets, ``group_by`` keeping the key, ``reduce(union, difference)``), which
turns the table updates into exactly those changes, and the store is read through the driver.
The reducers assert that they never see ``None``, as Java's do. Nothing is skipped.
"""

from __future__ import annotations

import json

import kslab as ks
from kslab import serdes

S = serdes.String()
SET_SERDE = serdes.from_functions(
    lambda data: None if data is None else json.dumps(sorted(data)).encode(),
    lambda data: None if data is None else set(json.loads(data)))


def union_not_null_args(left, right):
    assert left is not None
    assert right is not None
    return set(left) | set(right)


def difference_not_null_args(left, right):
    assert left is not None
    assert right is not None
    return set(left) - set(right)


def test_should_add_and_subtract():
    builder = ks.StreamsBuilder()
    (builder.table("t", ks.Consumed.with_(S, SET_SERDE))
     .group_by(ks.KeyValue, ks.Grouped.with_(S, SET_SERDE))
     .reduce(union_not_null_args, difference_not_null_args,
             ks.Materialized.as_("myStore").with_value_serde(SET_SERDE)))
    with ks.TopologyTestDriver(builder.build()) as driver:
        inp = driver.create_input_topic("t", S, SET_SERDE)
        my_store = driver.get_timestamped_key_value_store("myStore")
        inp.pipe_input("A", {"a"}, 10)  # Change({a}, None)
        assert my_store.get("A") == ks.ValueAndTimestamp({"a"}, 10)
        inp.pipe_input("A", {"b"}, 15)  # Change({b}, {a})
        assert my_store.get("A") == ks.ValueAndTimestamp({"b"}, 15)
        inp.pipe_input("A", None, 12)  # Change(None, {b})
        assert my_store.get("A") == ks.ValueAndTimestamp(set(), 15)
