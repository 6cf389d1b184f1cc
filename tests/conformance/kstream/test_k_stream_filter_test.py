"""Kafka's ``KStreamFilterTest``, translated to kslab's ``filter`` / ``filter_not``.

Java's ``MockApiProcessorSupplier`` is ``_mock_api_processor.MockApiProcessorSupplier``;
``StreamsTestUtils.getStreamsConfig(Integer, String)`` is the config dict below.
``testTypeVariance`` checks Java generics only; it becomes "the program builds". Nothing skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from tests.conformance._mock_api_processor import MockApiProcessorSupplier

TOPIC = "topic"
PROPS = {"application.id": "kstream-filter-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def is_multiple_of_three(key, value):
    return key % 3 == 0


def run(filtered) -> MockApiProcessorSupplier:
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    filtered(stream).process(supplier)
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.Integer(), serdes.String())
        for key in [1, 2, 3, 4, 5, 6, 7]:
            inp.pipe_input(key, f"V{key}")
    return supplier


def test_filter():
    # testFilter
    supplier = run(lambda s: s.filter(is_multiple_of_three))
    assert len(supplier.the_captured_processor().processed) == 2


def test_filter_not():
    # testFilterNot
    supplier = run(lambda s: s.filter_not(is_multiple_of_three))
    assert len(supplier.the_captured_processor().processed) == 5


def test_type_variance():
    # testTypeVariance
    def number_key_predicate(key, value):
        return False

    builder = ks.StreamsBuilder()
    builder.stream("empty").filter(number_key_predicate).filter_not(number_key_predicate).to(
        "nirvana")
    builder.build()
