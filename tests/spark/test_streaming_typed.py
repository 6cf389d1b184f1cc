"""SparkStreams.read_output: a foreachBatch function gets the sink's records as typed columns."""

from __future__ import annotations

from collections import Counter

import pytest
import spark_apps as apps

from conftest import produce
from kslab import StreamsError, serdes
from kslab.spark import start

S, L = serdes.String(), serdes.Long()


def test_foreach_batch_gets_the_sinks_typed_columns(spark, broker, topics, tmp_path):
    lines_topic, counts_topic = topics("lines", 2), topics("counts", 2)
    rows = apps.lines(30)
    produce(broker, lines_topic, [(p, S.serialize("", k), S.serialize("", v), ts)
                                  for p, k, v, ts in rows])
    config = {"application.id": lines_topic.replace("-lines", "-app"),
              "bootstrap.servers": broker.bootstrap_servers}
    streams = start(apps.word_count_on(lines_topic, counts_topic), config,
                    checkpoint_location=str(tmp_path / "ckpt"),
                    trigger={"availableNow": True}, spark=spark)
    assert streams.await_termination(300)
    with pytest.raises(StreamsError, match=(
            f"the application writes no topic '{lines_topic}' .*; read one of those")):
        streams.read_output(lines_topic)

    seen: list[tuple[str, list[tuple]]] = []

    def collect(batch, batch_id):
        rows = batch.select("key", "value", "raw_key", "raw_value", "partition").collect()
        seen.append((batch.schema.simpleString(), [tuple(r) for r in rows]))

    query = (streams.read_output(counts_topic, keep_raw=True).writeStream
             .foreachBatch(collect).trigger(availableNow=True)
             .option("checkpointLocation", str(tmp_path / "view")).start())
    query.awaitTermination(300)
    assert not query.isActive
    words = Counter(w for _, _, line, _ in rows for w in line.split())
    assert {s for s, _ in seen} == {
        "struct<key:string,value:bigint,topic:string,partition:int,offset:bigint,"
        "timestamp:bigint,headers:array<struct<key:string,value:binary>>,raw_key:binary,"
        "raw_value:binary>"}
    got = [row for _, batch in seen for row in batch]
    assert len(got) == sum(words.values())
    assert all(raw_key == S.serialize("", key) and raw_value == L.serialize("", value)
               for key, value, raw_key, raw_value, _ in got)
    final: dict[str, int] = {}
    for key, value, *_ in got:
        final[key] = max(final.get(key, 0), value)
    assert final == dict(words)
