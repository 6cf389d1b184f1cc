"""Kafka's ``HostInfoTest`` (streams/src/test/.../state): ``HostInfo.buildFromEndpoint`` parses
``host:port``, gives ``None`` for a missing or blank endpoint and refuses anything else, and a
``KafkaStreams`` refuses such an ``application.server`` when it is made, as Java's.

Mapping: ``HostInfo`` is ``kslab.runtime.HostInfo`` (``host``/``port`` fields);
``ConfigException`` is ``ConfigError``.
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab.errors import ConfigError
from kslab.runtime import HostInfo


def test_should_create_host_info():
    host_info = HostInfo.build_from_endpoint("host:9090")
    assert (host_info.host, host_info.port) == ("host", 9090)


def test_should_return_null_host_info_for_null_end_point():
    assert HostInfo.build_from_endpoint(None) is None


def test_should_return_null_host_info_for_empty_end_point():
    assert HostInfo.build_from_endpoint("  ") is None


def test_should_throw_config_exception_for_nonsense_end_point():
    with pytest.raises(ConfigError, match=r"Error parsing host address nonsense\. Expected "
                                          r"format host:port\."):
        HostInfo.build_from_endpoint("nonsense")


def test_a_bracketed_ipv6_host_parses_as_javas_client_utils():
    assert HostInfo.build_from_endpoint("[::1]:9090") == HostInfo("::1", 9090)


def test_kafka_streams_refuses_a_nonsense_application_server(tmp_path):
    topology = ks.Topology().add_source("src", "in").add_sink("out", "out", "src")
    with pytest.raises(ConfigError, match="Error parsing host address nonsense"):
        ks.KafkaStreams(topology, {"application.id": "app", "bootstrap.servers": "x:9",
                                   "state.dir": str(tmp_path), "application.server": "nonsense"})
