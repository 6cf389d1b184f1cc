"""A stream-table join with a grace period releases buffered records under their own record
context: downstream, ``record_metadata()`` gives the topic, partition and offset the record was
read at, as Java's ``KStreamKTableJoinProcessor.emit`` restores the buffered
``ProcessorRecordContext`` (not those of the record whose arrival released it)."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()


def _topology(out: list) -> ks.Topology:
    b = ks.StreamsBuilder()
    stream = b.stream("stream", ks.Consumed.with_(S, S))
    table = b.table("table", ks.Consumed.with_(S, S), ks.Materialized.as_(
        ks.Stores.persistent_versioned_key_value_store("versioned", 60_000)))

    class Metadata(ks.Processor):
        def init(self, context: ks.ProcessorContext) -> None:
            self.context = context

        def process(self, record: ks.Record) -> None:
            m = self.context.record_metadata()
            out.append((record.key, record.value, record.timestamp,
                        (m.topic, m.partition, m.offset)))

    stream.left_join(table, lambda v, t: f"{v}+{t}",
                     ks.Joined.with_(S, S, S, "Grace", 10)).process(Metadata)
    return b.build()


def test_released_records_carry_their_own_topic_partition_and_offset() -> None:
    out: list = []
    with ks.TopologyTestDriver(_topology(out)) as driver:
        table = driver.create_input_topic("table", S, S)
        stream = driver.create_input_topic("stream", S, S)
        table.pipe_input("k", "T", 0)  # table offset 0
        stream.pipe_input("k", "a", 5)  # stream offset 0: buffered
        stream.pipe_input("x", "b", 8)  # offset 1: buffered
        assert out == []
        stream.pipe_input("k", "c", 20)  # offset 2: releases a and x (stream time 20 - 10)
        assert out == [("k", "a+T", 5, ("stream", 0, 0)), ("x", "b+None", 8, ("stream", 0, 1))]
        out.clear()
        stream.pipe_input("k", "late", 1)  # offset 3: older than stream time - grace, joined now
        assert out == [("k", "late+T", 1, ("stream", 0, 3))]
        out.clear()
        stream.pipe_input("k", "d", 40)  # offset 4: releases c
        assert out == [("k", "c+T", 20, ("stream", 0, 2))]
