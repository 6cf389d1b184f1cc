"""The README's path, command for command: export the quickstart notebook, test it, describe
it, then ``kslab broker`` and ``kslab run ... --dev`` serve it live until SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from cli_fixtures import KSLAB, ROOT, clean_env, free_port, kslab
from confluent_kafka import Consumer, Producer, TopicPartition

from kslab.serdes import Json, Long

NOTEBOOK = ROOT / "notebooks" / "01-quickstart-word-count.ipynb"
LINES = ["the quick brown fox", "the lazy dog", "The dog barks"]



def _stop(process: subprocess.Popen[str]) -> tuple[str, str]:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()


@pytest.mark.slow
def test_export_describe_broker_run(tmp_path):
    app = tmp_path / "wordcount"
    done = kslab("export", str(NOTEBOOK), "-o", str(app), timeout=300)
    assert done.returncode == 0, done.stderr
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            str(app / "tests")], capture_output=True, text=True, cwd=tmp_path,
                           timeout=300, check=False)
    assert tests.returncode == 0, tests.stdout
    described = kslab("describe", str(app / "topology.py"))
    assert described.returncode == 0, described.stderr
    assert described.stdout.startswith("Topologies:\n   Sub-topology: 0\n")
    assert "Sink: KSTREAM-SINK-0000000008 (topic: word-counts-out)" in described.stdout

    port = free_port()
    servers = f"127.0.0.1:{port}"
    broker = subprocess.Popen([str(KSLAB), "broker", "--port", str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=clean_env())
    runner = None
    try:
        assert broker.stdout.readline().startswith(f"kslab broker: bootstrap servers {servers}")
        runner = subprocess.Popen(
            [str(KSLAB), "run", str(app / "topology.py"), "--config", str(app / "config.toml"),
             "--dev", "--set", f"state.dir={tmp_path / 'state'}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
            env=clean_env(KSLAB_BOOTSTRAP_SERVERS=servers))
        producer = Producer({"bootstrap.servers": servers})
        deadline = time.monotonic() + 30
        while "text-lines" not in producer.list_topics(timeout=5).topics:  # --dev creates it
            assert time.monotonic() < deadline and runner.poll() is None, _stop(runner)
            time.sleep(0.1)
        for line in LINES:  # the notebook's source reads the default serdes: JSON
            producer.produce("text-lines", value=Json().serialize("text-lines", line))
        assert producer.flush(10) == 0
        expected = dict(Counter(w for line in LINES for w in line.lower().split()))
        got = _read_counts(servers, expected)
        assert got == expected
        out, err = _stop(runner)
        assert runner.returncode == 0, err
        assert out.splitlines()[-1] == "kslab run: closed"
        assert "as quickstart-word-count on" in out  # config.toml's application.id
    finally:
        if runner is not None and runner.poll() is None:
            _stop(runner)
        out, _ = _stop(broker)
    assert broker.returncode == 0
    assert out == "kslab broker: stopped\n"


def _read_counts(servers: str, expected: dict[str, int]) -> dict[str, int]:
    consumer = Consumer({"bootstrap.servers": servers, "group.id": "user-path-reader"})
    got: dict[str, int] = {}
    deadline = time.monotonic() + 40
    try:
        while "word-counts-out" not in consumer.list_topics(timeout=5).topics:
            assert time.monotonic() < deadline, "the app never created word-counts-out"
            time.sleep(0.1)
        consumer.assign([TopicPartition("word-counts-out", 0, 0)])
        while got != expected and time.monotonic() < deadline:
            for message in consumer.consume(100, 0.1):
                if message.error() is None:
                    key = Json().deserialize("word-counts-out", message.key())
                    got[key] = Long().deserialize("word-counts-out", message.value())
    finally:
        consumer.close()
    return got
