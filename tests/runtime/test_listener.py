"""kslab.runtime._listener: the cluster id a port answers with, and which process holds it."""

from __future__ import annotations

import os
import socket
import threading
import time

import kslab as ks
from kslab.runtime import _listener as listener


def test_the_broker_answers_with_its_own_cluster_id_and_holds_its_port():
    with ks.LocalBroker() as broker:
        assert broker.cluster_id.startswith("kslab-")
        assert listener.cluster_id(broker.host, broker.port) == broker.cluster_id
        assert listener.holds(broker.pid, broker.port) is True
        assert listener.holds(os.getpid(), broker.port) is False
        assert [pid for pid, _ in listener.port_holders(broker.port)] == [broker.pid]
    assert listener.cluster_id(broker.host, broker.port) is None  # nothing listens now
    assert listener.port_holders(broker.port) == []
    assert listener.describe_holders(broker.port) is None


def test_a_listener_that_is_not_kafka_has_no_cluster_id():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        def answer_garbage() -> None:
            connection, _ = server.accept()
            with connection:
                connection.recv(1024)
                connection.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")

        thread = threading.Thread(target=answer_garbage)
        thread.start()
        assert listener.cluster_id("127.0.0.1", port) is None
        thread.join(5)
        started = time.monotonic()  # a listener that never answers: None after the timeout
        assert listener.cluster_id("127.0.0.1", port, timeout=0.3) is None
        assert time.monotonic() - started < 2
        assert listener.holds(os.getpid(), port) is True
        assert listener.describe_holders(port).startswith(f"pid {os.getpid()} (")
