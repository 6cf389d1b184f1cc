"""Kafka's ``WordCountDemoTest`` (streams/examples), translated to kslab's DSL and driver.

The demo's ``createWordCountStream`` and ``streamsConfig(null)`` defaults are in
``_wordcount_examples``. Skipped: ``testStreamsConfig``, which tests the demo's own
properties-file loader, not Kafka Streams.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from tests.conformance.examples._wordcount_examples import (
    INPUT_TOPIC,
    OUTPUT_TOPIC,
    create_word_count_stream,
    streams_config,
)


@pytest.fixture
def topics():
    builder = ks.StreamsBuilder()
    create_word_count_stream(builder)
    with ks.TopologyTestDriver(builder.build(), streams_config()) as test_driver:
        input_topic = test_driver.create_input_topic(INPUT_TOPIC, serdes.String(), serdes.String())
        output_topic = test_driver.create_output_topic(OUTPUT_TOPIC, serdes.String(),
                                                       serdes.Long())
        yield input_topic, output_topic


def test_one_word(topics):
    input_topic, output_topic = topics
    input_topic.pipe_input("Hello")
    assert output_topic.read_key_value() == ks.KeyValue("hello", 1)
    assert output_topic.is_empty() is True


def test_count_list_of_words(topics):
    input_topic, output_topic = topics
    input_values = [
        "Apache   Kafka Streams   Example",
        "Using  \t\t Kafka   Streams\tTest Utils",
        "Reading and Writing Kafka Topic",
    ]
    expected_word_counts = {
        "apache": 1, "kafka": 3, "streams": 2, "example": 1, "using": 1, "test": 1,
        "utils": 1, "reading": 1, "and": 1, "writing": 1, "topic": 1,
    }
    input_topic.pipe_value_list(input_values)
    assert output_topic.read_key_values_to_map() == expected_word_counts
