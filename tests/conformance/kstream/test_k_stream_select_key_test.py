"""Kafka's ``KStreamSelectKeyTest``, translated to kslab's ``select_key``.

Java's ``MockApiProcessorSupplier`` is ``_mock_api_processor.MockApiProcessorSupplier`` and a
``KeyValueTimestamp`` a ``(key, value, timestamp)`` tuple. ``testTypeVariance`` checks Java
generics only; it becomes "the program builds". Nothing skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

TOPIC = "topic_key_select"
PROPS = {"application.id": "kstream-select-key-test", "default.key.serde": "string",
         "default.value.serde": "integer"}


def test_select_key():
    # testSelectKey
    builder = ks.StreamsBuilder()
    key_map = {1: "ONE", 2: "TWO", 3: "THREE"}
    expected = [("ONE", 1, 0), ("TWO", 2, 0), ("THREE", 3, 0)]
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.String(), serdes.Integer()))
    supplier = MockApiProcessorSupplier()
    stream.select_key(lambda key, value: key_map.get(value)).process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.String(), serdes.Integer(), 0, 0)
        for value in [1, 2, 3]:
            inp.pipe_input(value)

    processed = supplier.the_captured_processor().processed
    assert len(processed) == 3
    assert processed == expected


def test_type_variance():
    # testTypeVariance
    builder = ks.StreamsBuilder()
    builder.stream("empty").foreach(lambda key, value: None)
    builder.build()
