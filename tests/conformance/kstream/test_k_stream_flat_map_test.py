"""Kafka's ``KStreamFlatMapTest``, translated to kslab's ``flat_map``.

Java's ``MockApiProcessorSupplier`` is ``_mock_api_processor.MockApiProcessorSupplier`` and a
``KeyValueTimestamp`` a ``(key, value, timestamp)`` tuple. ``testKeyValueMapperResultNotNull``
calls Java's ``KStreamFlatMap`` processor directly; here the record goes through ``flat_map`` in
the test driver, which raises the same error. Java's ``NullPointerException`` is
``MissingArgumentError``. Nothing skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

PROPS = {"application.id": "kstream-flat-map-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def test_flat_map():
    # testFlatMap
    builder = ks.StreamsBuilder()
    topic = "topic"

    def mapper(key, value):
        return [(str(key * 10 + i), str(value)) for i in range(key)]

    supplier = MockApiProcessorSupplier()
    stream = builder.stream(topic, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    stream.flat_map(mapper).process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(topic, serdes.Integer(), serdes.String(), 0, 0)
        for key in [0, 1, 2, 3]:
            inp.pipe_input(key, f"V{key}")

    processed = supplier.the_captured_processor().processed
    assert len(processed) == 6
    assert processed == [("10", "V1", 0), ("20", "V2", 0), ("21", "V2", 0), ("30", "V3", 0),
                         ("31", "V3", 0), ("32", "V3", 0)]


def test_key_value_mapper_result_not_null():
    # testKeyValueMapperResultNotNull
    builder = ks.StreamsBuilder()
    builder.stream("topic").flat_map(lambda key, value: None).to("out")
    with ks.TopologyTestDriver(builder.build()) as driver, \
            pytest.raises(MissingArgumentError) as info:
        driver.create_input_topic("topic").pipe_input("K", 0)
    assert str(info.value) == "The provided KeyValueMapper returned null which is not allowed."
