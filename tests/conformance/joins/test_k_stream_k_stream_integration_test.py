"""Kafka's ``KStreamKStreamIntegrationTest`` (streams/src/test/.../integration), translated to
kslab on the TopologyTestDriver with Java's partition counts (4 for each topic, the driver's
``partitions=``) instead of an embedded cluster. ``leftStream.outerJoin(rightStream, joiner,
JoinWindows.ofTimeDifferenceWithNoGrace(10 ms))`` with the outer-join emit interval 0; the first
left batch (``MockTime`` one millisecond apart) gets its null-padded results when the second
batch, 10 s later, moves each task's stream time past the windows; the record with a null key
is joined with null at once (KIP-962). Java compares the set of records read; so do we, and that
nothing else came out.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

LEFT_STREAM, RIGHT_STREAM, OUTPUT = "leftStream", "rightStream", "output"
S = serdes.String()
NOW = 1_700_000_000_000


def test_should_outer_join():
    builder = ks.StreamsBuilder()
    stream1, stream2 = builder.stream(LEFT_STREAM), builder.stream(RIGHT_STREAM)
    stream1.outer_join(stream2, lambda v1, v2: f"value1={v1},value2={'null' if v2 is None else v2}",
                       ks.JoinWindows.of_time_difference_with_no_grace(10)).to(OUTPUT)
    config = {"application.id": "KStream-KStream-join", "commit.interval.ms": 100,
              "default.key.serde": "string", "default.value.serde": "string",
              "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": 0}
    partitions = {LEFT_STREAM: 4, RIGHT_STREAM: 4, OUTPUT: 4}
    with ks.TopologyTestDriver(builder.build(config), config, partitions=partitions) as driver:
        left = driver.create_input_topic(LEFT_STREAM, S, S)
        driver.create_input_topic(RIGHT_STREAM, S, S)
        left.pipe_key_value_list([("Key-1", "left-1a"), ("Key-2", "left-2a"), ("Key-3", "left-3a"),
                                  ("Key-4", "left-4a"), (None, "left-5a")], NOW, 1)
        left.pipe_key_value_list([("Key-1", "left-1b"), ("Key-2", "left-2b"), ("Key-3", "left-3b"),
                                  ("Key-4", "left-4b")], NOW + 5 + 10_000, 1)
        result = driver.create_output_topic(OUTPUT, S, S).read_key_values_to_list()
    expected = {("Key-1", "value1=left-1a,value2=null"), ("Key-2", "value1=left-2a,value2=null"),
                ("Key-3", "value1=left-3a,value2=null"), ("Key-4", "value1=left-4a,value2=null"),
                (None, "value1=left-5a,value2=null")}
    assert {tuple(kv) for kv in result} == expected
    assert len(result) == 5
