"""Kafka's ``TimestampedCacheFlushListenerTest``: a cached table store's flush listener forwards
``Change(new, old)`` from the table's node, stamped with the new value's timestamp, or with the
record's when the row was deleted, and restores the current node afterwards.

Mapping: Java's internal ``TimestampedCacheFlushListener(context)`` is kslab's internal
``kslab.dsl._stores.forward_flushed(context, node)``, a function
``listener(key, new, old, record_context)``; Java's ``setCurrentNode`` calls are kslab's
``context.current`` being set to the table's node during the forward and restored after it.
Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import kslab as ks
from kslab.dsl import Change
from kslab.dsl._stores import forward_flushed


def flush(new, old, timestamp):
    context = mock.Mock()
    context.current = "previous"
    seen = []
    context.forward.side_effect = lambda record: seen.append((context.current, record))
    forward_flushed(context, "my-node")("key", new, old, ks.Record("key", None, timestamp))
    assert context.current == "previous"
    return seen


def test_should_forward_value_timestamp_if_new_value_exists():
    seen = flush(ks.ValueAndTimestamp("newValue", 42), ks.ValueAndTimestamp("oldValue", 21), 73)
    assert seen == [("my-node", ks.Record("key", Change("newValue", "oldValue"), 42))]


def test_should_forward_parameter_timestamp_if_new_value_is_null():
    seen = flush(None, ks.ValueAndTimestamp("oldValue", 21), 73)
    assert seen == [("my-node", ks.Record("key", Change(None, "oldValue"), 73))]
