"""Kafka's ``StreamsConfigTest`` (streams), the parts ``kslab.config.StreamsConfig`` expresses.

``new StreamsConfig(props)`` is ``StreamsConfig(props)`` (bad values raise
``kslab.config.ConfigError``, Java's ``ConfigException``, with Java's message); ``getString``/
``getLong``/``getInt`` are ``get``; ``defaultKeySerde()``/``defaultValueSerde()`` are
``default_key_serde()``/``default_value_serde()`` (failures are a ``StreamsError`` "Failed to
configure key serde ..." as in Java); ``totalCacheSize(config)`` is ``config.total_cache_size()``
and ``verifyTopologyOptimizationConfigs`` is ``StreamsConfig.verify_topology_optimization_configs``.
Java's ``Serdes$StringSerde`` with ``key.serializer.encoding`` is ``serdes.String(encoding=...)``.
Differences by design: kslab's default key/value serde is ``serdes.Json()`` (API.md), not "none
set", so ``shouldUseCorrectDefaultsWhenNoneSpecified`` checks that default; ``-1L`` for an INT
setting (Java: a type error) is ``-1``, refused by range.
Skipped, as outside kslab's config: the producer/consumer/admin/restore/global client configs,
EOS, client ids, group instance ids, rack-aware assignment tags, metrics reporters, RocksDB
setters, task assignor, upgrade.from, ``dsl.store.suppliers.class`` classes, log capture of the
deprecated handler configs and the handler accessors (kslab's error policy reads those), Java's
timestamp extractor class instances, ``shouldThrowExceptionIfApplicationIdIsNotSet``/
``...BootstrapServersIsNotSet`` (the test driver and notebooks run without them), and
``shouldStateDirStartsWithJavaIOTmpDir`` (kslab's driver makes a fresh temporary state dir when
``state.dir`` is unset).
"""

from __future__ import annotations

import pytest

from kslab import serdes
from kslab.config import ConfigError, StreamsConfig
from kslab.errors import StreamsError

STRING_SERDE = "org.apache.kafka.common.serialization.Serdes$StringSerde"
LONG_SERDE = "org.apache.kafka.common.serialization.Serdes$LongSerde"


@pytest.fixture
def props() -> dict:
    return {
        "application.id": "example-application",
        "bootstrap.servers": "localhost:9092",
        "default.key.serde": STRING_SERDE,
        "default.value.serde": STRING_SERDE,
        "key.deserializer.encoding": "UTF-8",
        "value.deserializer.encoding": "UTF-16",
    }


class MisconfiguredSerde(serdes.Serde):
    def configure(self, is_key: bool) -> serdes.Serde:
        raise RuntimeError("boom")

    def serialize(self, topic, data, headers=None):
        return None

    def deserialize(self, topic, data, headers=None):
        return None


def test_illegal_metrics_recording_level(props: dict) -> None:
    props["metrics.recording.level"] = "illegalConfig"
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_os_default_socket_buffer_sizes(props: dict) -> None:
    props["send.buffer.bytes"] = -1
    props["receive.buffer.bytes"] = -1
    StreamsConfig(props)


def test_invalid_socket_send_buffer_size(props: dict) -> None:
    props["send.buffer.bytes"] = -2
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_invalid_socket_receive_buffer_size(props: dict) -> None:
    props["receive.buffer.bytes"] = -2
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_default_serde_should_be_configured(props: dict) -> None:
    streams_config = StreamsConfig(props)
    text, topic = "my string for testing", "my topic"
    key_bytes = serdes.String(encoding="UTF-8").serialize(topic, text)
    assert streams_config.default_key_serde().deserialize(topic, key_bytes) == text
    value_bytes = serdes.String(encoding="UTF-16").serialize(topic, text)
    assert streams_config.default_value_serde().deserialize(topic, value_bytes) == text


def test_should_throw_streams_exception_if_key_serde_config_fails(props: dict) -> None:
    props["default.key.serde"] = MisconfiguredSerde
    with pytest.raises(StreamsError):
        StreamsConfig(props).default_key_serde()


def test_should_throw_streams_exception_if_value_serde_config_fails(props: dict) -> None:
    props["default.value.serde"] = MisconfiguredSerde
    with pytest.raises(StreamsError):
        StreamsConfig(props).default_value_serde()


def test_should_not_throw_if_transaction_timeout_smaller_than_commit_interval_for_at_least_once(
    props: dict,
) -> None:
    props["commit.interval.ms"] = 40000
    assert StreamsConfig(props).get("commit.interval.ms") == 40000


def test_should_accept_at_least_once(props: dict) -> None:
    props["processing.guarantee"] = "at_least_once"
    StreamsConfig(props)


def test_should_throw_exception_if_commit_interval_ms_is_negative(props: dict) -> None:
    props["commit.interval.ms"] = -1
    with pytest.raises(ConfigError) as caught:
        StreamsConfig(props)
    assert str(caught.value) == (
        "Invalid value -1 for configuration commit.interval.ms: Value must be at least 0")


def test_should_use_new_configs_when_present() -> None:
    config = StreamsConfig({"application.id": "app", "bootstrap.servers": "localhost:9092",
                            "default.key.serde": LONG_SERDE, "default.value.serde": LONG_SERDE})
    assert isinstance(config.default_key_serde(), serdes.Long)
    assert isinstance(config.default_value_serde(), serdes.Long)


def test_should_use_correct_defaults_when_none_specified() -> None:
    config = StreamsConfig({"application.id": "app", "bootstrap.servers": "localhost:9092"})
    assert config.default_key_serde() == serdes.Json()
    assert config.default_value_serde() == serdes.Json()


def test_should_specify_correct_key_serde_class_on_error() -> None:
    config = StreamsConfig({"default.key.serde": MisconfiguredSerde})
    with pytest.raises(StreamsError) as caught:
        config.default_key_serde()
    assert str(caught.value) == (
        f"Failed to configure key serde class {__name__}.MisconfiguredSerde")


def test_should_specify_correct_value_serde_class_on_error() -> None:
    config = StreamsConfig({"default.value.serde": MisconfiguredSerde})
    with pytest.raises(StreamsError) as caught:
        config.default_value_serde()
    assert str(caught.value) == (
        f"Failed to configure value serde class {__name__}.MisconfiguredSerde")


def test_should_specify_no_optimization_when_not_explicitly_added_to_configs(props: dict) -> None:
    assert StreamsConfig(props).get("topology.optimization") == "none"


def test_should_specify_optimization_when_explicitly_added_to_configs(props: dict) -> None:
    props["topology.optimization"] = "all"
    assert StreamsConfig(props).get("topology.optimization") == "all"


def test_should_throw_config_exception_when_optimization_config_not_value_in_range(
    props: dict,
) -> None:
    props["topology.optimization"] = "maybe"
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_should_specify_rocksdb_when_not_explicitly_added_to_configs(props: dict) -> None:
    assert StreamsConfig(props).get("default.dsl.store") == "rocksDB"


def test_should_specify_in_memory_when_explicitly_added_to_configs(props: dict) -> None:
    props["default.dsl.store"] = "in_memory"
    assert StreamsConfig(props).get("default.dsl.store") == "in_memory"


def test_should_throw_config_exception_when_store_type_config_not_value_in_range(
    props: dict,
) -> None:
    props["default.dsl.store"] = "bad_config"
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_should_set_default_acceptable_recovery_lag(props: dict) -> None:
    assert StreamsConfig(props).get("acceptable.recovery.lag") == 10000


def test_should_throw_config_exception_if_acceptable_recovery_lag_is_outside_bounds(
    props: dict,
) -> None:
    props["acceptable.recovery.lag"] = -1
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_should_set_default_num_standby_replicas(props: dict) -> None:
    assert StreamsConfig(props).get("num.standby.replicas") == 0


def test_should_throw_config_exception_if_num_standby_replicas_is_outside_bounds(
    props: dict,
) -> None:
    props["num.standby.replicas"] = -1
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_should_set_default_max_warmup_replicas(props: dict) -> None:
    assert StreamsConfig(props).get("max.warmup.replicas") == 2


def test_should_throw_config_exception_if_max_warmup_replicas_is_outside_bounds(
    props: dict,
) -> None:
    props["max.warmup.replicas"] = 0
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_should_set_default_probing_rebalance_interval(props: dict) -> None:
    assert StreamsConfig(props).get("probing.rebalance.interval.ms") == 10 * 60 * 1000


def test_should_throw_config_exception_if_probing_rebalance_interval_is_outside_bounds(
    props: dict,
) -> None:
    props["probing.rebalance.interval.ms"] = 60 * 1000 - 1
    with pytest.raises(ConfigError):
        StreamsConfig(props)


def test_should_use_state_store_cache_max_bytes_when_both_old_and_new_configs_are_set(
    props: dict,
) -> None:
    props["statestore.cache.max.bytes"] = 100
    props["cache.max.bytes.buffering"] = 10
    assert StreamsConfig(props).total_cache_size() == 100


def test_should_use_cache_max_bytes_buffering_config_when_only_deprecated_config_is_set(
    props: dict,
) -> None:
    props["cache.max.bytes.buffering"] = 10
    assert StreamsConfig(props).total_cache_size() == 10


def test_should_use_state_store_cache_max_bytes_when_new_config_is_set(props: dict) -> None:
    props["statestore.cache.max.bytes"] = 10
    assert StreamsConfig(props).total_cache_size() == 10


def test_should_use_default_state_store_cache_max_bytes_config_when_no_config_is_set(
    props: dict,
) -> None:
    assert StreamsConfig(props).total_cache_size() == 10 * 1024 * 1024


def test_case_insensitive_security_protocol(props: dict) -> None:
    props["security.protocol"] = "sasl_ssl"
    assert StreamsConfig(props).as_dict()["security.protocol"] == "sasl_ssl"


def test_invalid_security_protocol(props: dict) -> None:
    props["security.protocol"] = "abc"
    with pytest.raises(ConfigError, match=r"security\.protocol"):
        StreamsConfig(props)


def test_should_throw_exception_when_topology_optimization_on_and_off(props: dict) -> None:
    props["topology.optimization"] = "all,none"
    with pytest.raises(ConfigError, match="is not a valid optimization config"):
        StreamsConfig(props)


def test_should_throw_exception_when_topology_optimization_off_and_set(props: dict) -> None:
    props["topology.optimization"] = "none,reuse.ktable.source.topics"
    with pytest.raises(ConfigError, match="is not a valid optimization config"):
        StreamsConfig(props)


def test_should_throw_exception_when_optimization_does_not_exist_in_list(props: dict) -> None:
    props["topology.optimization"] = (
        "reuse.ktable.source.topics,topology.optimization.does.not.exist,merge.repartition.topics")
    with pytest.raises(ConfigError, match=r"Unrecognized config\."):
        StreamsConfig(props)


def test_should_throw_exception_when_topology_optimization_does_not_exist(props: dict) -> None:
    props["topology.optimization"] = "topology.optimization.does.not.exist"
    with pytest.raises(ConfigError, match=r"Unrecognized config\."):
        StreamsConfig(props)


def test_should_enable_self_join(props: dict) -> None:
    props["topology.optimization"] = "single.store.self.join"
    assert StreamsConfig(props).get("topology.optimization") == "single.store.self.join"


def test_should_allow_multiple_optimizations(props: dict) -> None:
    props["topology.optimization"] = (
        "single.store.self.join,reuse.ktable.source.topics,merge.repartition.topics")
    configs = StreamsConfig(props).get("topology.optimization").split(",")
    assert len(configs) == 3
    assert {"single.store.self.join", "reuse.ktable.source.topics",
            "merge.repartition.topics"} <= set(configs)


def test_should_enable_all_optimizations_with_optimize_config() -> None:
    configs = StreamsConfig.verify_topology_optimization_configs("all")
    assert configs == {"reuse.ktable.source.topics", "merge.repartition.topics",
                       "single.store.self.join"}


def test_should_not_enable_any_optimizations_with_no_optimization_config() -> None:
    assert StreamsConfig.verify_topology_optimization_configs("none") == set()


def test_should_return_default_rack_aware_assignment_config(props: dict) -> None:
    assert StreamsConfig(props).get("rack.aware.assignment.strategy") == "none"


def test_should_get_default_value_processing_exception_handler(props: dict) -> None:
    assert StreamsConfig(props).get("processing.exception.handler") == "log_and_fail"


def test_should_override_default_processing_exception_handler(props: dict) -> None:
    handler = "org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler"
    props["processing.exception.handler"] = handler
    assert StreamsConfig(props).get("processing.exception.handler") == handler


def test_invalid_processing_exception_handler(props: dict) -> None:
    handler = "org.apache.kafka.streams.errors.InvalidProcessingExceptionHandler"
    props["processing.exception.handler"] = handler
    with pytest.raises(ConfigError) as caught:
        StreamsConfig(props)
    assert (
        f"Invalid value {handler} for configuration processing.exception.handler: "
        f"Class {handler} could not be found."
    ) in str(caught.value)
