"""Kafka's ``KStreamMapValuesTest``, translated to kslab's ``map_values``.

Java's ``ValueMapperWithKey`` overload is ``with_key=True``; ``MockApiProcessorSupplier`` is
``_mock_api_processor.MockApiProcessorSupplier`` and a ``KeyValueTimestamp`` a
``(key, value, timestamp)`` tuple. Nothing skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

TOPIC = "topic"
PROPS = {"application.id": "kstream-map-values-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def test_flat_map_values():
    # testFlatMapValues (Java's name; it tests mapValues)
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    stream.map_values(len).process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        for key in [1, 10, 100, 1000]:
            inp = driver.create_input_topic(TOPIC, serdes.Integer(), serdes.String())
            inp.pipe_input(key, str(key), key // 2)
    assert supplier.the_captured_processor().processed == [
        (1, 1, 0), (10, 2, 5), (100, 3, 50), (1000, 4, 500)]


def test_map_values_with_keys():
    # testMapValuesWithKeys
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    stream.map_values(lambda key, value: len(value) + key, with_key=True).process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.Integer(), serdes.String())
        for key in [1, 10, 100, 1000]:
            inp.pipe_input(key, str(key), key // 2)
    assert supplier.the_captured_processor().processed == [
        (1, 2, 0), (10, 12, 5), (100, 103, 50), (1000, 1004, 500)]
