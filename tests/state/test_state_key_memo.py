"""A key-value store serializes an immutable key once for a get followed by a put of it."""

from __future__ import annotations

import kslab as ks
from kslab import serdes


class CountingString(serdes.String):
    """String serde that counts serialize calls."""

    calls = 0

    def serialize(self, topic, data, headers=None):
        CountingString.calls += 1
        return super().serialize(topic, data, headers)


def counting_topology(keys):
    class Count(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("counts")

        def process(self, record):
            for key in keys:
                self.store.put(key, (self.store.get(key) or 0) + 1)

    topo = ks.Topology().add_source("src", "in", key_serde="string", value_serde="string")
    topo.add_processor("count", Count, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("counts"), CountingString(), serdes.Long()
        ).with_logging_disabled(),
        "count",
    )
    return topo


def test_get_then_put_of_one_str_key_serializes_it_once():
    CountingString.calls = 0
    with ks.TopologyTestDriver(counting_topology(["a", "b"])) as driver:
        driver.create_input_topic("in").pipe_input("k", "v", 0)
        store = driver.get_key_value_store("counts")
        assert (store.get("a"), store.get("b")) == (1, 1)
    assert CountingString.calls == 4  # 2 in process (one per key) + 2 for the reads above


def test_mutable_keys_are_serialized_every_time():
    store = ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("s"), "json", "long"
    ).with_logging_disabled()
    topo = ks.Topology().add_source("src", "in", key_serde="string", value_serde="string")

    class Mutate(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("s")

        def process(self, record):
            key = ["x"]
            self.store.put(key, 1)
            key.append("y")  # the same object now serializes differently
            self.store.put(key, 2)

    topo.add_processor("m", Mutate, "src").add_state_store(store, "m")
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("in").pipe_input("k", "v", 0)
        kv = driver.get_key_value_store("s")
        assert (kv.get(["x"]), kv.get(["x", "y"])) == (1, 2)
