"""Kafka's ``AbstractStreamTest``, translated to kslab's DSL internals.

``testShouldBeExtensible`` extends the DSL the way Java's ``ExtendedKStream`` does: a new
processor name from the builder, a ``ProcessorGraphNode`` added under the stream's graph node,
and a new ``KStream`` around it (kslab's ``KStream`` constructor takes what Java's
``KStreamImpl`` does).

Skipped: ``testToInternalValueTransformerSupplierSuppliesNewTransformers`` and
``testToInternalValueTransformerWithKeySupplierSuppliesNewTransformers`` test the deprecated
``ValueTransformer`` adapters with Mockito; kslab has no Transformer API.
"""

from __future__ import annotations

import random

import kslab as ks
from kslab import serdes
from kslab.dsl._graph import ProcessorGraphNode
from tests.conformance._mock_api_processor import MockApiProcessorSupplier


class ExtendedKStreamDummyProcessor(ks.Processor):
    """Flips a coin per record and forwards it on heads."""

    def __init__(self, rand: random.Random) -> None:
        self.rand = rand

    def init(self, context):
        self.context = context

    def process(self, record):
        if self.rand.random() < 0.5:
            self.context.forward(record)


class ExtendedKStreamDummy:
    """Java's ``ExtendedKStreamDummy`` processor supplier."""

    def __init__(self) -> None:
        self.rand = random.Random()

    def __call__(self):
        return ExtendedKStreamDummyProcessor(self.rand)


class ExtendedKStream:
    """Java's ``ExtendedKStream``: adds a ``random_filter`` operator to a stream."""

    def __init__(self, stream: ks.KStream) -> None:
        self.stream = stream
        self.builder = stream.builder

    def random_filter(self) -> ks.KStream:
        name = self.builder.new_processor_name("RANDOM-FILTER-")
        processor_node = ProcessorGraphNode(name, ExtendedKStreamDummy())
        self.builder.add_node(self.stream.node, processor_node)
        return ks.KStream(self.builder, name, None, None, self.stream.source_nodes, False,
                          processor_node)


def test_should_be_extensible():
    # testShouldBeExtensible
    builder = ks.StreamsBuilder()
    expected_keys = [1, 2, 3, 4, 5, 6, 7]
    supplier = MockApiProcessorSupplier()
    topic_name = "topic"
    stream = ExtendedKStream(
        builder.stream(topic_name, ks.Consumed.with_(serdes.Integer(), serdes.String())))
    stream.random_filter().process(supplier)
    with ks.TopologyTestDriver(builder.build()) as driver:
        inp = driver.create_input_topic(topic_name, serdes.Integer(), serdes.String())
        for key in expected_keys:
            inp.pipe_input(key, f"V{key}")
        assert len(supplier.the_captured_processor().processed) <= len(expected_keys)
