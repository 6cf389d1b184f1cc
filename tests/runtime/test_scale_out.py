"""Scale-out: two processes share an application's partitions; one dies, the other takes over."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from apps import lines, reference_counts, word_count_papi
from runtime_fixtures import wait_for
from test_crash import APP, _sequences, _wait_running
from test_iq import _free_port

import kslab as ks


@pytest.mark.slow
def test_two_processes_share_then_one_takes_over(kafka):
    source, sink = kafka.create(kafka.name("in"), 2), kafka.create(kafka.name("out"), 2)
    words = kafka.create(kafka.name("words"), 2)
    app_id = kafka.name("scale")
    first, second = lines(300, seed=21), lines(300, seed=22)
    expected = reference_counts(first + second)
    port_a, port_b = _free_port(), _free_port()
    child = subprocess.Popen(
        [sys.executable, str(APP), kafka.bootstrap, app_id, source, words, sink,
         str(kafka.tmp_path / "b"), "at_least_once", f"localhost:{port_b}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        _wait_running(child)
        config = kafka.config("scale", application__server=f"localhost:{port_a}")
        config.update({"application.id": app_id, "state.dir": str(kafka.tmp_path / "a"),
                       "consumer.session.timeout.ms": 3000,
                       "consumer.heartbeat.interval.ms": 300})
        streams = kafka.track(ks.KafkaStreams(word_count_papi(source, sink, repartition=words),
                                              config))
        streams.start()
        kafka.produce(source, [(f"k{i}".encode(), t.encode()) for i, t in enumerate(first)])
        assert wait_for(lambda: streams.state is ks.KafkaStreams.State.RUNNING
                        and 0 < len(streams.local_tasks()) < 4, timeout=30)
        local = {(t.subtopology, t.partition) for t in streams.local_tasks()}
        remote_word = next(w for w in expected
                           if (1, streams.query_metadata_for_key("counts", w).partition)
                           not in local)
        meta = streams.query_metadata_for_key("counts", remote_word)
        assert str(meta.active_host) == f"localhost:{port_b}"

        def answer(port: int, **headers: str) -> tuple[int, object]:
            url = f"http://127.0.0.1:{port}/stores/counts/{remote_word}"
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                            timeout=10) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read())

        # A asks B for B's key and answers what B does (counts only grow: B read last)
        assert wait_for(lambda: answer(port_a) == answer(port_b)
                        == (200, {"key": remote_word,
                                  "value": reference_counts(first)[remote_word]}),
                        timeout=30)
        status, body = answer(port_a, **{"X-Kslab-Forwarded": "1"})  # never forwarded twice
        assert (status, body["host"]) == (421, f"localhost:{port_b}")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    kafka.produce(source, [(f"x{i}".encode(), t.encode()) for i, t in enumerate(second)])
    assert wait_for(lambda: len(streams.local_tasks()) == 4, timeout=30)

    def done(records):
        seqs = _sequences(records)
        return all(max(seqs.get(w, [0])) >= n for w, n in expected.items())

    records = kafka.read_until(sink, done, timeout=60, partitions=2)
    seqs = _sequences(records)
    for word, count in expected.items():  # at least once: nothing lost across the takeover
        assert set(range(1, count + 1)) <= set(seqs[word]), word
    assert streams.store("counts").get(remote_word) >= expected[remote_word]
