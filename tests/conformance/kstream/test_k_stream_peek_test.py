"""Kafka's ``KStreamPeekTest``, translated to kslab's ``peek``.

Java's ``NullPointerException`` for a null action is ``MissingArgumentError`` (kslab raises
an error that is also a ``ks.TopologyError``). Nothing skipped.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import MissingArgumentError

TOPIC = "topic"
PROPS = {"application.id": "kstream-peek-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def collect(into):
    return lambda key, value: into.append(ks.KeyValue(key, value))


def test_should_observe_stream_elements():
    # shouldObserveStreamElements
    builder = ks.StreamsBuilder()
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    peek_observed, stream_observed = [], []
    stream.peek(collect(peek_observed)).foreach(collect(stream_observed))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.Integer(), serdes.String())
        expected = []
        for key in range(32):
            value = f"V{key}"
            inp.pipe_input(key, value)
            expected.append(ks.KeyValue(key, value))
        assert peek_observed == expected
        assert stream_observed == expected


def test_should_not_allow_null_action():
    # shouldNotAllowNullAction
    builder = ks.StreamsBuilder()
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    with pytest.raises(MissingArgumentError):
        stream.peek(None)
