"""Kafka's ``GlobalProcessorContextImplTest``, translated to a global store's processor running in
kslab's driver.

Java builds a ``GlobalProcessorContextImpl`` over a mocked global state manager; here the
context is the one a global store's state-update processor (``add_global_store``) gets in its
``init``, and each case runs while that processor handles a record of the global topic. The
mocked stores become real in-memory stores of each kind, added as global stores.
``UnsupportedOperationException`` from the context is ``ks.StreamsError`` with Java's message;
from a store's ``init``/``close`` it is ``ks.StoreError`` ("This method may only be called by
Kafka Streams"), as in the ``ProcessorContextImplTest`` port. ``forward(key, value, To.all())``
(the old API's ``To``) is ``forward(record, child_name)``, which the global context refuses
outright in Java's current API (``forward(Record, String)``);
``shouldFailToForwardUsingToParameter`` checks that.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes

S = serdes.String()
GLOBAL_STORE_NAME = "global"
GLOBAL_KEY_VALUE_STORE_NAME = "global-key-value"
GLOBAL_TIMESTAMPED_KEY_VALUE_STORE_NAME = "global-timestamped-key-value"
GLOBAL_WINDOW_STORE_NAME = "global-window"
GLOBAL_TIMESTAMPED_WINDOW_STORE_NAME = "global-timestamped-window"
GLOBAL_SESSION_STORE_NAME = "global-session"
UNKNOWN_STORE = "unknown-store"

STORES = {
    GLOBAL_KEY_VALUE_STORE_NAME: lambda n: ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store(n), S, S),
    GLOBAL_TIMESTAMPED_KEY_VALUE_STORE_NAME:
        lambda n: ks.Stores.timestamped_key_value_store_builder(
            ks.Stores.in_memory_key_value_store(n), S, S),
    GLOBAL_WINDOW_STORE_NAME: lambda n: ks.Stores.window_store_builder(
        ks.Stores.in_memory_window_store(n, 1000, 100, False), S, S),
    GLOBAL_TIMESTAMPED_WINDOW_STORE_NAME: lambda n: ks.Stores.timestamped_window_store_builder(
        ks.Stores.in_memory_window_store(n, 1000, 100, False), S, S),
    GLOBAL_SESSION_STORE_NAME: lambda n: ks.Stores.session_store_builder(
        ks.Stores.in_memory_session_store(n, 1000), S, S),
}


def run_in_global_processor(check, store_name=GLOBAL_KEY_VALUE_STORE_NAME):
    """Run ``check(context, record)`` inside a global store's processor as it handles one record
    of the store's topic; return what ``check`` returned."""
    results = []

    class GlobalProcessor(ks.Processor):
        def init(self, context):
            self.context = context

        def process(self, record):
            results.append(check(self.context, record))

    topology = ks.Topology()
    topology.add_global_store(STORES[store_name](store_name).with_logging_disabled(),
                              "global-source", "global-topic", "testNode", GlobalProcessor,
                              key_serde=S, value_serde=S)
    with ks.TopologyTestDriver(topology, {"application.id": "dummy-id"}) as driver:
        driver.create_input_topic("global-topic", S, S).pipe_input("key", "value", 0)
    assert len(results) == 1
    return results[0]


def test_should_return_global_or_null_store():
    def check(context, record):
        return context.get_state_store(GLOBAL_KEY_VALUE_STORE_NAME), context.get_state_store(
            UNKNOWN_STORE)

    store, unknown = run_in_global_processor(check)
    assert store is not None
    assert store.name == GLOBAL_KEY_VALUE_STORE_NAME
    assert unknown is None


def test_should_forward_to_single_child():
    # a global processor's forward goes to its children (none here): it does not fail
    assert run_in_global_processor(
        lambda context, record: context.forward(record.with_key(None).with_value(None))) is None


def test_should_fail_to_forward_using_to_parameter():
    def check(context, record):
        with pytest.raises(ks.StreamsError,
                           match="forward\\(\\) not supported in global processor context"):
            context.forward(record, "child")
        return "checked"

    assert run_in_global_processor(check) == "checked"


def test_should_not_fail_on_no_op_commit():
    assert run_in_global_processor(lambda context, record: context.commit()) is None


def test_should_not_allow_to_schedule_punctuations():
    def check(context, record):
        with pytest.raises(ks.StreamsError,
                           match="schedule\\(\\) not supported in global processor context"):
            context.schedule(10, ks.PunctuationType.STREAM_TIME, lambda timestamp: None)
        return "checked"

    assert run_in_global_processor(check) == "checked"


def _store_call_refused(method):
    def check(context, record):
        store = context.get_state_store(check.store_name)
        with pytest.raises(ks.StoreError, match="This method may only be called by Kafka Streams"):
            method(store)
        return "checked"

    return check


@pytest.mark.parametrize("store_name", list(STORES))
def test_should_not_allow_init_for_store(store_name):
    """``shouldNotAllowInitFor{KeyValue,TimestampedKeyValue,Window,TimestampedWindow,Session}Store``."""
    check = _store_call_refused(lambda store: store.init(None, None))
    check.store_name = store_name
    assert run_in_global_processor(check, store_name) == "checked"


@pytest.mark.parametrize("store_name", list(STORES))
def test_should_not_allow_close_for_store(store_name):
    """``shouldNotAllowCloseFor{KeyValue,TimestampedKeyValue,Window,TimestampedWindow,Session}Store``."""
    check = _store_call_refused(lambda store: store.close())
    check.store_name = store_name
    assert run_in_global_processor(check, store_name) == "checked"


def test_should_throw_on_current_stream_time():
    def check(context, record):
        with pytest.raises(ks.StreamsError,
                           match="There is no concept of stream-time for a global processor"):
            context.current_stream_time_ms()
        return "checked"

    assert run_in_global_processor(check) == "checked"


def test_global_processor_context_keeps_its_other_answers():
    """What the global context still answers (``AbstractProcessorContext``'s part): the
    record's metadata, the task id ``-1_-1``, the wall clock and the app's configs."""
    def check(context, record):
        return (context.record_metadata(), context.task_id, context.current_system_time_ms(),
                context.app_configs()["application.id"])

    metadata, task_id, now, app_id = run_in_global_processor(check)
    assert (metadata.topic, metadata.partition, metadata.offset) == ("global-topic", 0, 0)
    assert task_id == ks.TaskId(-1, -1)
    assert now == 0
    assert app_id == "dummy-id"
