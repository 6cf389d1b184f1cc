"""Kafka's ``KStreamNewProcessorApiTest``, translated to kslab's ``process_values``.

Java's ``FixedKeyProcessorSupplier`` that is also a ``ConnectedStoreProvider`` is a callable
object with a ``stores()`` method returning the store builders (or ``None``, as Java's
``null``); ``ContextualFixedKeyProcessor`` is ``ks.FixedKeyProcessor``. Nothing skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes


class UpdatingProcessor(ks.FixedKeyProcessor):
    """Stores ``value + "Updated"`` if the key is new and forwards the updated value."""

    def init(self, context):
        self.store = context.get_state_store("store")
        assert self.store is not None, "State store can't be null"
        self.context = context

    def process(self, record):
        self.store.put_if_absent(record.key, record.value + "Updated")
        self.context.forward(record.with_value(record.value + "Updated"))


class TransformerSupplier:
    """Java's ``TransformerSupplier``: supplies ``UpdatingProcessor`` and maybe its store."""

    def __init__(self, store_builder):
        self.store_builder = store_builder

    def __call__(self):
        return UpdatingProcessor()

    def stores(self):
        if self.store_builder is not None:
            return {self.store_builder}
        return None


def run_test(should_add_store_directly):
    builder = ks.StreamsBuilder()
    store_builder = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("store"), serdes.String(), serdes.String())
    if should_add_store_directly:
        builder.add_state_store(store_builder)
    (builder.stream("input", ks.Consumed.with_(serdes.String(), serdes.String()))
     .process_values(TransformerSupplier(None if should_add_store_directly else store_builder),
                     "store")
     .to("output", ks.Produced.with_(serdes.String(), serdes.String())))

    words = [("a", "foo"), ("b", "bar"), ("c", "baz")]
    with ks.TopologyTestDriver(builder.build()) as test_driver:
        inp = test_driver.create_input_topic("input", serdes.String(), serdes.String())
        for key, value in words:
            inp.pipe_input(key, value)
        expected_output = ["fooUpdated", "barUpdated", "bazUpdated"]
        actual_output = test_driver.create_output_topic(
            "output", serdes.String(), serdes.String()).read_values_to_list()
        state_store = test_driver.get_key_value_store("store")
        assert actual_output == expected_output
        assert state_store.get("a") == "fooUpdated"
        assert state_store.get("b") == "barUpdated"
        assert state_store.get("c") == "bazUpdated"


def test_should_get_state_store_with_connected_store_provider():
    # shouldGetStateStoreWithConnectedStoreProvider
    run_test(False)


def test_should_get_state_store_with_stream_builder():
    # shouldGetStateStoreWithStreamBuilder
    run_test(True)
