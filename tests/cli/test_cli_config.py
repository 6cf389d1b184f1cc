"""``kslab run``'s config: TOML flattened to property names; file, environment, flags in order."""

from __future__ import annotations

import pytest

from kslab.cli._common import CliError
from kslab.cli._config import env_overrides, load_config, parse_setting, read_toml


def test_tables_and_quoted_keys_flatten_to_property_names(tmp_path):
    path = tmp_path / "app.toml"
    path.write_text('"application.id" = "wc"\ncommit.interval.ms = 100\n'
                    '[consumer]\n"session.timeout.ms" = 6000\n')
    assert read_toml(path) == {"application.id": "wc", "commit.interval.ms": 100,
                               "consumer.session.timeout.ms": 6000}


def test_a_streams_table_is_the_root_when_present(tmp_path):
    path = tmp_path / "app.toml"
    path.write_text('[deploy]\nreplicas = 3\n[streams]\n"application.id" = "wc"\n')
    assert read_toml(path) == {"application.id": "wc"}


def test_environment_names_only_kafka_streams_properties():
    environ = {"KSLAB_BOOTSTRAP_SERVERS": "b:9092", "KSLAB_CONSUMER_SESSION_TIMEOUT_MS": "6000",
               "KSLAB_BROKER_PORT": "9092", "KSLAB_APPLICATION_ID": "", "HOME": "/root"}
    assert env_overrides(environ) == {"bootstrap.servers": "b:9092",
                                      "consumer.session.timeout.ms": "6000"}


def test_file_then_environment_then_flags(tmp_path):
    path = tmp_path / "app.toml"
    path.write_text('"application.id" = "file"\n"bootstrap.servers" = "file:1"\n'
                    '"commit.interval.ms" = 100\n')
    props = load_config(path, {"application.id": "flag", "bootstrap.servers": None},
                        {"KSLAB_BOOTSTRAP_SERVERS": "env:2", "KSLAB_APPLICATION_ID": "env"})
    assert props == {"application.id": "flag", "bootstrap.servers": "env:2",
                     "commit.interval.ms": 100}


def test_settings_parse_numbers_and_refuse_a_missing_value():
    assert parse_setting("commit.interval.ms=100") == ("commit.interval.ms", 100)
    assert parse_setting(" client.id = app-1 ") == ("client.id", "app-1")
    with pytest.raises(CliError, match="--set expects KEY=VALUE"):
        parse_setting("=1")
