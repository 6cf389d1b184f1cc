"""The exported app, run as a subprocess on a LocalBroker, writes what the notebook's driver
session wrote for the same input, then stops cleanly on SIGTERM (exit 0, group left)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from export_fixtures import NOTEBOOKS, load_module

import kslab as ks
from kslab.export._fixtures import field_bytes, shape_field

pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, ConsumerGroupState, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

FAST = {  # a one-machine group joins in seconds (see /work/shared/notes/broker.md)
    "KSLAB_CONSUMER_SESSION_TIMEOUT_MS": "6000",
    "KSLAB_CONSUMER_HEARTBEAT_INTERVAL_MS": "500",
    "KSLAB_COMMIT_INTERVAL_MS": "100",
    "KSLAB_STATESTORE_CACHE_MAX_BYTES": "0",  # every update out, as the driver commits each
}


@pytest.fixture(scope="module")
def broker():
    with ks.LocalBroker() as running:
        yield running


# the notebook that promotes its topology to the live runtime instead of driving it
UNDRIVEN = {"04-promote-to-the-live-runtime.ipynb"}
DRIVEN = [p for p in NOTEBOOKS if p.name not in UNDRIVEN]


def _sessions(out_dir: Path) -> list[Path]:
    return sorted((out_dir / "tests" / "fixtures").glob("session-*.json"))


@pytest.mark.parametrize("name", sorted(UNDRIVEN))
def test_a_notebook_without_a_driver_session_exports_no_session(exported, name):
    (path,) = [p for p in NOTEBOOKS if p.name == name]
    assert _sessions(exported(path).out_dir) == []


@pytest.mark.slow
@pytest.mark.parametrize("path", DRIVEN, ids=[p.stem for p in DRIVEN])
def test_app_on_a_broker_writes_what_the_driver_session_wrote(exported, broker, path,
                                                              tmp_path):
    result = exported(path)
    fixtures = _sessions(result.out_dir)
    assert fixtures, f"{path.name} recorded no driver session"
    session = json.loads(fixtures[0].read_text())
    steps, expected = _live_part(result.out_dir, session)
    servers = broker.bootstrap_servers
    topology = load_module(result.out_dir / "topology.py").build_topology(session["config"])
    _create_topics(servers, topology, expected)
    _produce(servers, topology, session["config"], steps)
    app_id = f"export-{path.stem[:20]}-{uuid.uuid4().hex[:6]}"
    env = {**os.environ, **FAST, "KSLAB_BOOTSTRAP_SERVERS": servers,
           "KSLAB_APPLICATION_ID": app_id, "KSLAB_STATE_DIR": str(tmp_path / "state")}
    started = int(time.time() * 1000)
    app = subprocess.Popen([sys.executable, str(result.out_dir / "app.py")], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        got = _read(servers, topology, session["config"], expected, timeout=90, settle=1.5)
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            out, err = app.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            app.kill()
            out, err = app.communicate()
    assert _zero_as_written(got, expected, started) == expected, err[-3000:]
    assert app.returncode == 0, err[-3000:]
    assert "RUNNING -> PENDING_SHUTDOWN" in out and "PENDING_SHUTDOWN -> NOT_RUNNING" in out
    assert _group_state(servers, app_id) is ConsumerGroupState.EMPTY  # close() left it


def _group_state(servers: str, group: str) -> Any:
    """The consumer group's state, asked until the broker answers (its first try may not)."""
    admin = AdminClient({"bootstrap.servers": servers})
    deadline = time.monotonic() + 30
    while True:
        try:
            found = admin.describe_consumer_groups([group], request_timeout=5)[group]
            return found.result(8).state
        except Exception:
            if time.monotonic() > deadline:
                raise


def _zero_as_written(got: dict[str, list], expected: dict[str, list],
                     started: int) -> dict[str, list]:
    """``got`` with timestamp 0 where the driver wrote 0 and the app wrote its clock.

    librdkafka reads a record timestamp of 0 as "now", so a live app cannot write 0; any other
    timestamp must be the driver's exactly.
    """
    fixed = {}
    for topic, records in got.items():
        fixed[topic] = [
            {**r, "timestamp": 0} if i < len(expected[topic])
            and expected[topic][i]["timestamp"] == 0 and r["timestamp"] >= started else r
            for i, r in enumerate(records)]
    return fixed


def _live_part(out_dir: Path, session: dict[str, Any]) -> tuple[list[dict], dict[str, list]]:
    """The session's records up to its first wall-clock advance, and what they produce.

    A live app's wall clock is real time, so what a mocked clock advance made cannot be
    compared; without one, the expected output is the notebook's, as recorded.
    """
    advance = next((i for i, s in enumerate(session["steps"])
                    if "advance_wall_clock_time" in s), None)
    if advance is None:
        return session["steps"], session["outputs"]
    steps = session["steps"][:advance]
    topology = load_module(out_dir / "topology.py").build_topology(session["config"])
    with ks.TopologyTestDriver(topology, session["config"],
                               session["initial_wall_clock_time"]) as driver:
        for step in steps:
            serdes = driver.create_input_topic(step["topic"])
            raw = driver.create_input_topic(step["topic"], "bytes", "bytes")
            raw.pipe_input(field_bytes(serdes.key_serde, step["topic"], step, "key"),
                           field_bytes(serdes.value_serde, step["topic"], step, "value"),
                           step["timestamp"])
        expected = {}
        for topic in session["outputs"]:
            typed = driver.create_output_topic(topic)
            records = driver.create_output_topic(topic, "bytes", "bytes").read_records_to_list()
            expected[topic] = [_shaped(typed, topic, r.key, r.value, r.timestamp)
                               for r in records]
    return steps, expected


def _shaped(typed: Any, topic: str, key: Any, value: Any, timestamp: int) -> dict[str, Any]:
    return {**shape_field(typed.key_serde, topic, key, "key"),
            **shape_field(typed.value_serde, topic, value, "value"), "timestamp": timestamp}


def _create_topics(servers: str, topology: Any, outputs: dict[str, list]) -> None:
    """Input and output topics, one partition each, as the notebook's driver had them."""
    inputs = [t for t in topology.source_topics()
              if isinstance(t, str) and t not in topology.internal_topics]
    admin = AdminClient({"bootstrap.servers": servers})
    for future in admin.create_topics([NewTopic(t, 1, 1) for t in {*inputs, *outputs}]).values():
        future.result(10)


def _produce(servers: str, topology: Any, config: dict, steps: list[dict]) -> None:
    """The session's records, as the exact bytes the driver was given, with their timestamps.

    kafka-python, because librdkafka reads a timestamp of 0 as "now" and notebooks start at 0.
    """
    kafka = pytest.importorskip("kafka")
    producer = kafka.KafkaProducer(bootstrap_servers=servers, linger_ms=5)
    with ks.TopologyTestDriver(topology, config) as driver:
        for step in steps:
            topic = step["topic"]
            serdes = driver.create_input_topic(topic)
            producer.send(topic, value=field_bytes(serdes.value_serde, topic, step, "value"),
                          key=field_bytes(serdes.key_serde, topic, step, "key"),
                          timestamp_ms=step["timestamp"], partition=0)
    producer.flush(30)
    producer.close()


def _read(servers: str, topology: Any, config: dict, expected: dict[str, list],
          timeout: float, settle: float) -> dict[str, list]:
    """Every output topic read from the start until it has as many records as expected, and
    ``settle`` seconds more, so records beyond those show up too (counted, never trusting
    the high watermark)."""
    consumer = Consumer({"bootstrap.servers": servers, "group.id": f"reader-{uuid.uuid4()}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(t, 0, 0) for t in expected])
    got: dict[str, list] = {t: [] for t in expected}
    deadline = time.monotonic() + timeout
    try:
        with ks.TopologyTestDriver(topology, config) as driver:
            typed = {t: driver.create_output_topic(t) for t in expected}
            complete_at = None
            while time.monotonic() < deadline:
                if complete_at is None and all(len(got[t]) >= len(expected[t]) for t in got):
                    complete_at = time.monotonic()
                if complete_at is not None and time.monotonic() - complete_at >= settle:
                    break
                for message in consumer.consume(500, 0.2):
                    if message.error() is None:
                        topic = message.topic()
                        got[topic].append(_shaped(typed[topic], topic, message.key(),
                                                  message.value(), message.timestamp()[1]))
    finally:
        consumer.close()
    return got
