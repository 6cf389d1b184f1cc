"""A suppressed change leaves the buffer under its own record context: downstream,
``record_metadata()`` gives the topic, partition and offset it was read at (Java's
``KTableSuppressProcessorSupplier.emit`` restores the buffered ``ProcessorRecordContext``),
not those of the record whose arrival evicted it."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()


def test_evicted_changes_carry_their_own_topic_partition_and_offset() -> None:
    out: list = []

    class Metadata(ks.Processor):
        def init(self, context: ks.ProcessorContext) -> None:
            self.context = context

        def process(self, record: ks.Record) -> None:
            m = self.context.record_metadata()
            out.append((record.key, record.value, record.timestamp,
                        (m.topic, m.partition, m.offset)))

    b = ks.StreamsBuilder()
    (b.table("in", ks.Consumed.with_(S, L), ks.Materialized.with_(S, L).with_caching_disabled())
     .suppress(ks.Suppressed.until_time_limit(10, ks.BufferConfig.unbounded()))
     .to_stream().process(Metadata))
    with ks.TopologyTestDriver(b.build()) as driver:
        topic = driver.create_input_topic("in", S, L)
        topic.pipe_input("a", 1, 0)  # offset 0
        topic.pipe_input("b", 2, 3)  # offset 1
        assert out == []
        topic.pipe_input("c", 3, 12)  # offset 2: evicts a (due at 10)
        assert out == [("a", 1, 0, ("in", 0, 0))]
        topic.pipe_input("d", 4, 30)  # offset 3: evicts b and c
        assert out[1:] == [("b", 2, 3, ("in", 0, 1)), ("c", 3, 12, ("in", 0, 2))]
