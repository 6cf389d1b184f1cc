"""Static membership (``group.instance.id``) with several stream threads on the LocalBroker.

Each thread's consumer joins with its own instance id (the configured id plus ``-<thread
index>``, as Java's ``getMainConsumerConfigs``). With one id shared by two members, Kafka
fences one of them, and Tansu gives both every partition (see notes/broker.md): either way
the threads must not share it.
"""

from __future__ import annotations

from apps import lines, reference_counts, word_count_papi
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes


def test_two_static_threads_split_the_partitions_and_count_once(kafka):
    source, sink = kafka.create(kafka.name("in"), 2), kafka.create(kafka.name("out"), 2)
    streams = kafka.track(ks.KafkaStreams(
        word_count_papi(source, sink, persistent=False),
        kafka.config("static", num__stream__threads=2, group__instance__id="pod-0")))
    streams.start()

    def tasks_by_thread() -> dict[str, list[str]]:
        return {t.thread_name: sorted(str(m.task_id) for m in t.active_tasks)
                for t in streams.metadata_for_local_threads()}

    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.RUNNING
                    and len(tasks_by_thread()) == 2 and all(tasks_by_thread().values()))
    owned = tasks_by_thread()
    prefix = f"{streams.client_id}-StreamThread-"
    assert sorted(owned) == [f"{prefix}1", f"{prefix}2"]
    assert sorted(owned.values()) == [["0_0"], ["0_1"]]  # one partition each, none shared

    text = " ".join(lines(100, seed=3)).split()  # one word a record, keyed by the word:
    kafka.produce(source, [(w.encode(), w.encode()) for w in text])  # one partition per word
    expected = reference_counts(text)
    total = sum(expected.values())  # one update per word occurrence, none twice
    got = kafka.read(sink, total, partitions=2, settle=1.0)
    assert len(got) == total
    latest = {serdes.String().deserialize(sink, k): serdes.Long().deserialize(sink, v)
              for k, v, _ in got}
    assert latest == expected
