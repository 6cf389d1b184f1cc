"""Kafka's ``KStreamMapTest``, translated to kslab's ``map``.

Java's ``MockApiProcessorSupplier`` is ``_mock_api_processor.MockApiProcessorSupplier`` and a
``KeyValueTimestamp`` a ``(key, value, timestamp)`` tuple. ``testKeyValueMapperResultNotNull``
calls Java's ``KStreamMap`` processor directly; here the record goes through ``map`` in the test
driver, which raises the same error. Java's ``NullPointerException`` is
``MissingArgumentError``.
``testTypeVariance`` checks Java generics only; it becomes "the program builds". Nothing skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

PROPS = {"application.id": "kstream-map-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def test_map():
    # testMap
    builder = ks.StreamsBuilder()
    topic = "topic"
    supplier = MockApiProcessorSupplier()
    stream = builder.stream(topic, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    stream.map(lambda key, value: ks.KeyValue(value, key)).process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        for key in [0, 1, 2, 3]:
            inp = driver.create_input_topic(topic, serdes.Integer(), serdes.String(), 0, 0)
            inp.pipe_input(key, f"V{key}", 10 - key)

    processed = supplier.the_captured_processor().processed
    assert len(processed) == 4
    assert processed == [("V0", 0, 10), ("V1", 1, 9), ("V2", 2, 8), ("V3", 3, 7)]


def test_key_value_mapper_result_not_null():
    # testKeyValueMapperResultNotNull
    builder = ks.StreamsBuilder()
    builder.stream("topic").map(lambda key, value: None).to("out")
    with ks.TopologyTestDriver(builder.build()) as driver, \
            pytest.raises(MissingArgumentError) as info:
        driver.create_input_topic("topic").pipe_input("K", 0)
    assert str(info.value) == "The provided KeyValueMapper returned null which is not allowed."


def test_type_variance():
    # testTypeVariance
    builder = ks.StreamsBuilder()
    builder.stream("numbers").map(lambda key, value: (key, f"{key}:{value}")).to("strings")
    builder.build()
