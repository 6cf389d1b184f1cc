"""Kafka's ``KTableMapKeysTest``: ``to_stream(key_mapper)`` re-keys a table's updates.

Mapping: ``MockApiProcessorSupplier`` is ``Capture``. Nothing is skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

INT, S = serdes.Integer(), serdes.String()
PROPS = {"default.key.serde": "integer", "default.value.serde": "string"}


class Capture(ks.Processor):
    """Java's MockApiProcessor: records (key, value, timestamp)."""

    processed: list = []

    def process(self, record):
        Capture.processed.append((record.key, record.value, record.timestamp))


def test_map_keys_converting_to_stream():
    Capture.processed = []
    builder = ks.StreamsBuilder()
    table1 = builder.table("topic_map_keys", ks.Consumed.with_(INT, S))
    key_map = {1: "ONE", 2: "TWO", 3: "THREE"}
    converted_stream = table1.to_stream(lambda key, value: key_map.get(key))
    expected = [("ONE", "V_ONE", 5), ("TWO", "V_TWO", 10), ("THREE", "V_THREE", 15)]
    original_keys = [1, 2, 3]
    values = ["V_ONE", "V_TWO", "V_THREE"]
    converted_stream.process(Capture)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        for i, key in enumerate(original_keys):
            inp = driver.create_input_topic("topic_map_keys", INT, S)
            inp.pipe_input(key, values[i], 5 + i * 5)
    assert len(Capture.processed) == 3
    assert Capture.processed == expected
