"""Kafka's ``ResetPartitionTimeIntegrationTest.shouldPreservePartitionTimeOnKafkaStreamRestart``
on the live runtime (a LocalBroker): a pass-through application whose timestamp extractor records
the partition time it is handed commits a record at ``NOW + 5000`` on close; restarted, its
extractor must be handed that partition time (restored from the committed offset's metadata, or
kslab's local copy of it when the broker drops offset metadata) for the next record, although
that record is older (``NOW + 4999``). The first record sees no partition time (-1).
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()
NOW = 1_700_000_000_000


def test_should_preserve_partition_time_on_kafka_stream_restart(kafka):
    source = kafka.create(kafka.name("input"), partitions=2)
    sink = kafka.create(kafka.name("output-raw"), partitions=2)
    seen: list[int] = []

    class MaxTimestampExtractor(ks.TimestampExtractor):
        def extract(self, record, partition_time: int) -> int:
            seen.append(partition_time)
            return record.timestamp

    builder = ks.StreamsBuilder()
    builder.stream(source, ks.Consumed.with_(S, S)).to(sink)
    config = kafka.config("reset-partition-time", commit__interval__ms=60_000,
                          default__timestamp__extractor=MaxTimestampExtractor)

    def run_once(key: str, timestamp: int, expected_output: int) -> None:
        streams = kafka.track(ks.KafkaStreams(builder.build(), config))
        streams.start()
        assert streams.wait_until_running(30)
        kafka.produce(source, [(key.encode(), b"v")], partition=0, timestamp=timestamp)
        assert len(kafka.read(sink, expected_output, partitions=2, settle=0.5)) == \
            expected_output
        assert streams.close(timeout=10_000)

    run_once("k3", NOW + 5000, 1)
    assert seen == [-1]
    run_once("k5", NOW + 4999, 2)
    assert seen == [-1, NOW + 5000]
