"""Streaming word count Kafka -> Spark -> Kafka: availableNow, more input, restart, exact counts;
then the counter's last micro-batch run again in the same session (its commit removed), where
the Python workers still hold its task open from the first time: its state is the one before the
batch, so the task kept after it must not be taken (``kslab.spark._warm``'s token)."""

from __future__ import annotations

from collections import Counter

import spark_apps as apps
from confluent_kafka import Consumer, TopicPartition

from conftest import produce, uncommit_last_batch
from kslab import serdes
from kslab.spark import start

S, L = serdes.String(), serdes.Long()


def read_all(broker, topic, partitions):
    """Every record of ``topic`` (read to the end of each partition)."""
    consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": "reader",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out, eof = [], set()
    try:
        while len(eof) < partitions:
            for m in consumer.consume(1000, 1.0):
                if m.error() is None:
                    out.append((S.deserialize(topic, m.key()), L.deserialize(topic, m.value()),
                                m.partition()))
                    eof.discard(m.partition())
                else:
                    eof.add(m.partition())
    finally:
        consumer.close()
    return out


def test_word_count_restarts_from_the_checkpoint_with_exact_counts(spark, broker, topics,
                                                                  tmp_path):
    lines_topic, counts_topic = topics("lines", 2), topics("counts", 2)
    first, second = apps.lines(40), apps.lines(70)[40:]

    def send(rows):
        produce(broker, lines_topic, [(p, S.serialize("", k), S.serialize("", v), ts)
                                      for p, k, v, ts in rows])

    config = {"application.id": lines_topic.replace("-lines", "-app"),
              "bootstrap.servers": broker.bootstrap_servers}

    def run(limit=None, preload=None):
        topo = apps.word_count_on(lines_topic, counts_topic)
        streams = start(topo, config, checkpoint_location=str(tmp_path / "ckpt"),
                        trigger={"availableNow": True}, spark=spark,
                        max_offsets_per_trigger=limit, preload_state=preload)
        assert streams.await_termination(300)
        assert len(streams.queries) == 2  # one query per sub-topology
        return [len(q.recentProgress) for q in streams.queries]

    send(first)
    run()
    words = Counter(w for _, _, line, _ in first for w in line.split())
    got = read_all(broker, counts_topic, 2)
    assert len(got) == sum(words.values())
    send(second)
    # a new run: offsets and counts come back from the checkpoint, each micro-batch reading
    # only the counts it looks up
    batches = run(limit=20, preload=False)
    assert batches[0] >= 2 and batches[1] >= 3  # 20 records per micro-batch: state carried
    words.update(w for _, _, line, _ in second for w in line.split())
    got = read_all(broker, counts_topic, 2)
    assert len(got) == sum(words.values())  # nothing lost, nothing counted twice
    final = {}
    for word, count, _ in got:
        final[word] = max(final.get(word, 0), count)
    assert final == dict(words)
    from kslab.processor.partitioner import default_partition

    assert all(p == default_partition(S.serialize("", w), 2) for w, _, p in got)

    # the counter's last micro-batch again: it writes its counts again (at-least-once), and a
    # task kept open from its first run (one count ahead) would count its words twice
    uncommit_last_batch(tmp_path / "ckpt", 1)
    third = apps.lines(90)[70:]
    send(third)
    run(limit=20)
    words.update(w for _, _, line, _ in third for w in line.split())
    got = read_all(broker, counts_topic, 2)
    runs: dict[str, list[int]] = {}
    for word, count, _ in got:
        runs.setdefault(word, []).append(count)
    assert {w: c[-1] for w, c in runs.items()} == dict(words)
    rewound = 0
    for counts in runs.values():
        backs = [i for i in range(1, len(counts)) if counts[i] != counts[i - 1] + 1]
        assert all(counts[i] <= counts[i - 1] for i in backs), counts  # never past a count
        assert len(backs) <= 1, counts
        rewound += len(backs)
    assert rewound >= 1  # the replayed batch wrote counts again
