"""Crash tests: the app process is SIGKILLed at random moments and restarted each time.

Under ``exactly_once_v2`` the committed output must hold exactly the reference sequence of
counts per word; under ``at_least_once`` nothing may be lost. Tansu 0.6 writes transaction
markers but does not tell ``read_committed`` consumers which transactions were aborted, so the
check reads the output's raw log and applies the markers itself (``committed_log``), as a
``read_committed`` consumer does on Kafka. The app's own ``read_committed`` reads (its
repartition topic, its changelog on restore) cannot be corrected that way: on such a broker,
when those topics hold aborted records, the exact check is reported as skipped, and the
no-loss check still runs.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from apps import lines, reference_counts
from committed_log import aborted_record_count, read_committed_log
from confluent_kafka import Consumer, Producer, TopicPartition

APP = Path(__file__).with_name("crash_app.py")
_probe: dict[str, bool] = {}


def broker_filters_aborted(bootstrap: str, topic: str) -> bool:
    """True when a read_committed consumer does not see an aborted transaction's record."""
    if bootstrap in _probe:
        return _probe[bootstrap]
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"probe-{topic}"})
    producer.init_transactions(10)
    producer.begin_transaction()
    producer.produce(topic, b"aborted")
    producer.flush(10)
    producer.abort_transaction(10)
    producer.begin_transaction()
    producer.produce(topic, b"committed")
    producer.commit_transaction(10)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"probe-{topic}",
                         "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    seen: list[bytes] = []
    deadline = time.monotonic() + 10
    while b"committed" not in seen and time.monotonic() < deadline:
        seen += [m.value() for m in consumer.consume(100, 0.1) if m.error() is None]
    consumer.close()
    _probe[bootstrap] = b"aborted" not in seen
    return _probe[bootstrap]


def _spawn(kafka, app_id, source, sink, guarantee):
    words = kafka.name("words")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    log = open(kafka.tmp_path / f"child-{time.monotonic_ns()}.log", "w")  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, str(APP), kafka.bootstrap, app_id, source, words, sink,
         str(kafka.tmp_path / "state"), guarantee],
        stdout=subprocess.PIPE, stderr=log, env=env, text=True)


def _wait_running(child, timeout=60.0):
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(child.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    assert result and result[0].strip() == "RUNNING", "the app did not reach RUNNING"


def _sequences(records):
    seqs: dict[str, list[int]] = {}
    for key, value, _ in records:
        seqs.setdefault(key.decode(), []).append(int.from_bytes(value, "big", signed=True))
    return seqs


def crash_run(kafka, guarantee, kills, n_lines, seed=0):
    """Feed input while killing and restarting the app; return (records, expected counts)."""
    rnd = random.Random(seed)
    source, sink = kafka.create(kafka.name("in"), 2), kafka.create(kafka.name("out"), 2)
    kafka.create(kafka.name("words"), 2)
    app_id = kafka.name(f"crash-{guarantee}")
    text = lines(n_lines, seed=seed)
    expected = reference_counts(text)
    feeding = threading.Thread(target=_feed, args=(kafka, source, text), daemon=True)
    feeding.start()
    for _ in range(kills):
        child = _spawn(kafka, app_id, source, sink, guarantee)
        try:
            _wait_running(child)
            time.sleep(rnd.uniform(0.05, 1.0))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(10)
    feeding.join(60)
    child = _spawn(kafka, app_id, source, sink, guarantee)
    try:
        _wait_running(child)
        def done(r):
            return (all(max(_sequences(r).get(w, [0])) >= n for w, n in expected.items()))
        records = kafka.read_until(sink, done, timeout=60, partitions=2,
                                   committed=guarantee == "exactly_once_v2")
        time.sleep(0.5)  # let a duplicate, if any, arrive
        records = kafka.read_until(sink, lambda r: len(r) >= len(records), timeout=10,
                                   partitions=2, committed=guarantee == "exactly_once_v2")
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(30)
    return records, expected, sink


def _feed(kafka, source, text):
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5})
    for i, line in enumerate(text):
        producer.produce(source, line.encode(), f"k{i}".encode())
        if i % 25 == 24:
            producer.flush(10)
            time.sleep(0.03)
    producer.flush(30)


@pytest.mark.slow
def test_exactly_once_v2_survives_kill_9(kafka):
    records, expected, sink = crash_run(kafka, "exactly_once_v2", kills=5, n_lines=1500, seed=5)
    seqs = _sequences(records)
    for word, count in expected.items():  # nothing lost, on any broker
        assert set(range(1, count + 1)) <= set(seqs[word]), word
    exact = {w: list(range(1, n + 1)) for w, n in expected.items()}
    committed = _sequences(read_committed_log(kafka.bootstrap, sink, partitions=2))
    if committed != exact and not broker_filters_aborted(kafka.bootstrap,
                                                         kafka.create(kafka.name("probe"))):
        # The app's own inputs: the repartition topic and the count store's changelog.
        upstream = {kafka.name("words"): 2,
                    f"{kafka.name('crash-exactly_once_v2')}-counts-changelog": 2}
        aborted = {t: aborted_record_count(kafka.bootstrap, t, n) for t, n in upstream.items()}
        if any(aborted.values()):
            pytest.skip(f"the broker shows aborted transactions to read_committed consumers "
                        f"(Tansu 0.6), and the app read back aborted records of its own "
                        f"topics {aborted}, so exactly-once output can only be checked on Kafka")
    assert committed == exact


@pytest.mark.slow
def test_at_least_once_loses_nothing_under_kill_9(kafka):
    records, expected, _ = crash_run(kafka, "at_least_once", kills=5, n_lines=1500, seed=6)
    seqs = _sequences(records)
    for word, count in expected.items():
        assert max(seqs[word]) >= count, word
        assert set(range(1, count + 1)) <= set(seqs[word]), word
