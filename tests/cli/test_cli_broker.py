"""``kslab broker``: prints its address, serves produce and consume, stops on SIGTERM with 0."""

from __future__ import annotations

import signal
import socket
import subprocess
import time

import pytest
from cli_fixtures import KSLAB, ROOT, accepts, clean_env, free_port, kslab
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_broker_serves_produce_and_consume_then_stops_on_a_signal(stop):
    port = free_port()
    process = subprocess.Popen([str(KSLAB), "broker", "--port", str(port)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=clean_env())
    try:
        first = process.stdout.readline()
        assert first.startswith(f"kslab broker: bootstrap servers 127.0.0.1:{port} (pid ")
        assert first.endswith("); Ctrl-C stops it\n")
        servers = f"127.0.0.1:{port}"
        admin = AdminClient({"bootstrap.servers": servers})
        admin.create_topics([NewTopic("cli-broker", 1)])["cli-broker"].result(10)
        producer = Producer({"bootstrap.servers": servers})
        for i in range(3):
            producer.produce("cli-broker", key=f"k{i}".encode(), value=f"v{i}".encode())
        assert producer.flush(10) == 0
        consumer = Consumer({"bootstrap.servers": servers, "group.id": "cli-broker-reader"})
        consumer.assign([TopicPartition("cli-broker", 0, 0)])
        got: list[tuple[bytes, bytes]] = []
        deadline = time.monotonic() + 20
        while len(got) < 3 and time.monotonic() < deadline:
            got += [(m.key(), m.value()) for m in consumer.consume(10, 0.2) if not m.error()]
        consumer.close()
        assert got == [(b"k0", b"v0"), (b"k1", b"v1"), (b"k2", b"v2")]
        del producer, admin
        process.send_signal(stop)  # SIGINT is what Ctrl-C sends
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out == "kslab broker: stopped\n"
    assert not accepts(port)  # the Tansu process went with it


def test_a_taken_port_is_one_line_and_exit_1():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = kslab("broker", "--port", str(port), timeout=30)
    assert done.returncode == 1
    assert done.stderr == (f"kslab broker: error: port {port} on 127.0.0.1 is in use; pass "
                           f"another --port (0 picks a free one)\n")
