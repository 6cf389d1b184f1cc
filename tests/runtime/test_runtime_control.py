"""Issue 22 item 4: control at run time. ``pause()`` stops processing while the group
membership holds and ``resume()`` goes on from where it stopped; ``add_stream_thread()`` and
``remove_stream_thread()`` rebalance the partitions with no record lost or counted twice."""

from __future__ import annotations

import time

from apps import final_counts, word_count_dsl
from runtime_fixtures import wait_for

import kslab as ks


def test_pause_stops_processing_and_resume_goes_on(kafka):
    source, sink = kafka.create(kafka.name("lines")), kafka.create(kafka.name("counts"))
    app = kafka.track(ks.KafkaStreams(word_count_dsl(source, sink).build(),
                                      kafka.config("wc", statestore__cache__max__bytes=0)))
    app.start()
    assert app.wait_until_running(60)
    kafka.produce(source, [(None, b"kafka streams")])
    assert final_counts(kafka.read(sink, 2)) == {"kafka": 1, "streams": 1}
    app.pause()
    assert app.is_paused()
    time.sleep(1)  # takes effect at each thread's next poll, as in Kafka
    processed = sum(t["process-total"] for t in app.metrics()["threads"].values())
    kafka.produce(source, [(None, b"kafka lab")])
    time.sleep(3)  # several polls and commits: nothing processed, the member stays
    assert sum(t["process-total"] for t in app.metrics()["threads"].values()) == processed
    assert app.state is ks.KafkaStreams.State.RUNNING
    assert len(kafka.read(sink, 2, timeout=2, settle=0.5)) == 2
    app.resume()
    assert not app.is_paused()
    out = kafka.read(sink, 4, timeout=30)
    assert final_counts(out) == {"kafka": 2, "streams": 1, "lab": 1} and len(out) == 4


def test_adding_and_removing_threads_rebalances_with_nothing_lost(kafka):
    source = kafka.create(kafka.name("lines"), partitions=2)
    sink = kafka.create(kafka.name("counts"), partitions=2)
    app = kafka.track(ks.KafkaStreams(word_count_dsl(source, sink).build(),
                                      kafka.config("wc", statestore__cache__max__bytes=0)))
    app.start()
    assert app.wait_until_running(60)
    kafka.produce(source, [(None, b"a b")] * 10)
    assert wait_for(lambda: final_counts(kafka.read(sink, 20, timeout=1)) == {"a": 10, "b": 10},
                    timeout=30)
    added = app.add_stream_thread()
    assert added == app.thread_name(2)
    assert wait_for(lambda: app.state is ks.KafkaStreams.State.RUNNING and len(
        [t for t in app.metadata_for_local_threads() if t.active_tasks]) == 2, timeout=60)
    kafka.produce(source, [(None, b"a b")] * 10)
    assert wait_for(lambda: final_counts(kafka.read(sink, 40, timeout=1)) == {"a": 20, "b": 20},
                    timeout=30)
    assert app.remove_stream_thread(timeout=30_000) == added
    assert app.metrics()["client"]["alive-stream-threads"] == 1
    assert wait_for(lambda: app.state is ks.KafkaStreams.State.RUNNING
                    and len(app.local_tasks()) == 4, timeout=60)
    kafka.produce(source, [(None, b"a b")] * 10)
    out = kafka.read_until(sink, lambda o: final_counts(o) == {"a": 30, "b": 30}, timeout=30,
                           partitions=2)
    assert final_counts(out) == {"a": 30, "b": 30}  # every update once: 60 in all
    assert len(kafka.read(sink, 60, timeout=5, settle=1.0, partitions=2)) == 60
    app.close(timeout=10_000)
    assert app.add_stream_thread() is None and app.remove_stream_thread() is None
