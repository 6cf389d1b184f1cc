"""Kafka's ``SessionCacheFlushListenerTest``: a cached session store's flush listener forwards
the change from the aggregate's node, stamped with the session's end.

Mapping: Java's internal ``SessionCacheFlushListener(context)`` is kslab's internal
``kslab.dsl._stores.forward_flushed_session(context, node)``, a function
``listener(key, new, old, record_context)``; Java's ``SessionWindow(21, 73)`` is
``ks.Window(21, 73)``; ``setCurrentNode`` calls are ``context.current`` being set to the node
during the forward and restored after it. Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import kslab as ks
from kslab.dsl import Change
from kslab.dsl._stores import forward_flushed_session


def test_should_forward_key_new_value_old_value_and_timestamp():
    context = mock.Mock()
    context.current = "previous"
    seen = []
    context.forward.side_effect = lambda record: seen.append((context.current, record))
    key = ks.Windowed("key", ks.Window(21, 73))
    forward_flushed_session(context, "my-node")(key, "newValue", "oldValue",
                                                ks.Record(key, None, 42))
    assert seen == [("my-node", ks.Record(key, Change("newValue", "oldValue"), 73))]
    assert context.current == "previous"
