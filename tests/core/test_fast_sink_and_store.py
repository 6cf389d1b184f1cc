"""Sinks and stores over built-in serdes take their C-level codecs, with the same bytes, the
same None handling and the same errors as the serdes' own methods."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import StoreError, StreamsError


class Emit(ks.Processor):
    """Forwards the key and value it finds in the input value (a tuple)."""

    def init(self, context):
        self.forward = context.forward
        self.store = context.get_state_store("s")

    def process(self, record):
        key, value = record.value
        if key is not None:
            self.store.put(key, value)
            value = self.store.get(key)
        self.forward(ks.Record(key, value, record.timestamp, record.headers))


def _topology(value_serde=None):
    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=serdes.String(), value_serde=serdes.Json())
    topo.add_processor("emit", Emit, "src")
    topo.add_state_store(
        ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("s"), serdes.String(), serdes.Long()
        ).with_logging_disabled(),
        "emit",
    )
    topo.add_sink("out", "out", "emit", key_serde=serdes.String(),
                  value_serde=value_serde or serdes.Long())
    return topo


def test_sink_and_store_write_the_serdes_bytes_with_null_keys_and_headers():
    with ks.TopologyTestDriver(_topology()) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input("k", ["a", 1], 10)
        inp.pipe_input("k", [None, 7], 11, [("h", b"x")])
        inp.pipe_input("k", ["b", -(2**63)], 12)
        out = driver.create_output_topic("out", key_serde=serdes.Bytes(),
                                         value_serde=serdes.Bytes())
        records = out.read_records_to_list()
        assert [(r.key, r.value, r.timestamp) for r in records] == [
            (b"a", b"\x00" * 7 + b"\x01", 10),
            (None, b"\x00" * 7 + b"\x07", 11),
            (b"b", b"\x80" + b"\x00" * 7, 12),
        ]
        assert records[1].headers == ks.Headers([("h", b"x")])
        assert driver.get_key_value_store("s").get("b") == -(2**63)


def test_read_back_decodes_columns_with_nulls():
    with ks.TopologyTestDriver(_topology()) as driver:
        inp = driver.create_input_topic("in")
        inp.pipe_input("k", ["a", 1], 10)
        inp.pipe_input("k", [None, 2], 11)
        out = driver.create_output_topic("out", key_serde=serdes.String(),
                                         value_serde=serdes.Long())
        assert out.read_key_values_to_list() == [ks.KeyValue("a", 1), ks.KeyValue(None, 2)]


def test_a_value_the_sink_serde_refuses_raises_the_sinks_error():
    topology = _topology(serdes.String())
    with ks.TopologyTestDriver(topology) as driver, pytest.raises(StreamsError) as info:
        driver.create_input_topic("in").pipe_input("k", [None, 5], 1)
    assert str(info.value).startswith(
        "sink 'out' cannot serialize the value 5 (int) for topic 'out' with String(): "
    )


def test_a_value_the_store_serde_refuses_raises_the_stores_error():
    with ks.TopologyTestDriver(_topology()) as driver, pytest.raises(StoreError) as info:
        driver.create_input_topic("in").pipe_input("k", ["a", "five"], 1)
    assert str(info.value).startswith(
        "Store 's' cannot serialize value 'five' (str) with value serde Long(): "
    )


def test_a_key_the_store_serde_refuses_raises_the_stores_error():
    with ks.TopologyTestDriver(_topology()) as driver, pytest.raises(StoreError) as info:
        driver.create_input_topic("in").pipe_input("k", [3, 1], 1)
    assert str(info.value).startswith(
        "Store 's' cannot serialize key 3 (int) with key serde String(): "
    )
