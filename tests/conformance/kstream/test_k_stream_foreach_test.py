"""Kafka's ``KStreamForeachTest``, translated to kslab's ``foreach``.

``testTypeVariance`` checks Java generics only; it becomes "the program builds". Nothing skipped.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

TOPIC = "topic"
PROPS = {"application.id": "kstream-foreach-test", "default.key.serde": "integer",
         "default.value.serde": "string"}


def test_foreach():
    # testForeach
    input_records = [(0, "zero"), (1, "one"), (2, "two"), (3, "three")]
    expected_records = [(0, "ZERO"), (2, "ONE"), (4, "TWO"), (6, "THREE")]
    actual_records = []

    builder = ks.StreamsBuilder()
    stream = builder.stream(TOPIC, ks.Consumed.with_(serdes.Integer(), serdes.String()))
    stream.foreach(lambda key, value: actual_records.append(ks.KeyValue(key * 2, value.upper())))
    with ks.TopologyTestDriver(builder.build(), PROPS) as driver:
        inp = driver.create_input_topic(TOPIC, serdes.Integer(), serdes.String())
        for key, value in input_records:
            inp.pipe_input(key, value)

    assert len(actual_records) == len(expected_records)
    assert actual_records == expected_records


def test_type_variance():
    # testTypeVariance
    builder = ks.StreamsBuilder()
    builder.stream("emptyTopic").foreach(lambda key, value: None)
    builder.build()
