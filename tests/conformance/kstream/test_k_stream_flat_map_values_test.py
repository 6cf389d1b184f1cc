"""Kafka's ``KStreamFlatMapValuesTest``, translated to kslab's ``flat_map_values``.

Java's ``ValueMapperWithKey`` overload is ``with_key=True``; ``MockApiProcessorSupplier`` is
``_mock_api_processor.MockApiProcessorSupplier`` and a ``KeyValueTimestamp`` a
``(key, value, timestamp)`` tuple. Nothing skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

TOPIC = "topic"
PROPS = {"application.id": "kstream-flat-map-values-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def run(flat_mapped) -> list:
    builder = ks.StreamsBuilder()
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.Integer(), serdes.Integer()))
    supplier = MockApiProcessorSupplier()
    flat_mapped(stream).process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.Integer(), serdes.Integer(), 0, 0)
        for key in [0, 1, 2, 3]:
            inp.pipe_input(key, key, 0)
    return supplier.the_captured_processor().processed


def test_flat_map_values():
    # testFlatMapValues
    processed = run(lambda s: s.flat_map_values(lambda value: [f"v{value}", f"V{value}"]))
    assert processed == [(0, "v0", 0), (0, "V0", 0), (1, "v1", 0), (1, "V1", 0),
                         (2, "v2", 0), (2, "V2", 0), (3, "v3", 0), (3, "V3", 0)]


def test_flat_map_values_with_keys():
    # testFlatMapValuesWithKeys
    processed = run(lambda s: s.flat_map_values(lambda key, value: [f"v{value}", f"k{key}"],
                                                with_key=True))
    assert processed == [(0, "v0", 0), (0, "k0", 0), (1, "v1", 0), (1, "k1", 0),
                         (2, "v2", 0), (2, "k2", 0), (3, "v3", 0), (3, "k3", 0)]
