"""Kafka's ``KStreamPrintTest``, translated to kslab's ``print_``.

Java builds ``KStreamPrint`` around a ``PrintForeachAction`` writing to a byte stream, with a
Mockito context; kslab's public spelling of the same processor is
``print_(Printed.to_file(path).with_key_value_mapper(...).with_label("test-stream"))`` driven by
the test driver, and the file is read back after the driver (and so the processor) is closed.
Nothing skipped.
"""

from __future__ import annotations

import re

import kslab as ks
from kslab import serdes


def test_print_stream_with_provided_key_value_mapper(tmp_path):
    # testPrintStreamWithProvidedKeyValueMapper
    path = tmp_path / "print.txt"
    printed = (ks.Printed.to_file(str(path))
               .with_key_value_mapper(lambda key, value: f"{key}, {value}")
               .with_label("test-stream"))
    builder = ks.StreamsBuilder()
    builder.stream("topic", ks.Consumed.with_(serdes.Integer(), serdes.String())).print_(printed)
    input_records = [(0, "zero"), (1, "one"), (2, "two"), (3, "three")]
    expected_result = ["[test-stream]: 0, zero", "[test-stream]: 1, one",
                       "[test-stream]: 2, two", "[test-stream]: 3, three"]
    with ks.TopologyTestDriver(builder.build()) as driver:
        inp = driver.create_input_topic("topic", serdes.Integer(), serdes.String())
        for key, value in input_records:
            inp.pipe_input(key, value, 0)

    flush_out_datas = re.split(r"\r*\n", path.read_text(encoding="utf-8"))
    while flush_out_datas and not flush_out_datas[-1]:  # Java's split drops trailing empties
        flush_out_datas.pop()
    assert flush_out_datas == expected_result
