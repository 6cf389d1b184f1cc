"""Kafka Streams configuration: the known property names, their defaults, and typo checks.

A config is a plain dict of Kafka Streams property names. ``StreamsConfig`` validates the names
once (an unknown key raises, naming the closest known one) and reads typed values; every engine
reads its settings through it, so a typo fails the same way in the driver and in production.
``KEY_SUPPORT`` is the one table of what kslab does with each key of Java's StreamsConfig:
implements it, hands it to the clients, ignores it (with a ``ConfigWarning`` in the live
runtime) or refuses it; ``check_support`` applies it for an engine.

This module sits in the bottom layer with the serdes it builds: it names the built-in timestamp
extractors rather than importing them, and ``ConfigError`` lives in ``kslab.errors`` (re-exported
here) so that serdes and extractors can raise it without importing the config.

Over 600 lines because ``KEY_SUPPORT`` has a row for each of Java's ~130 StreamsConfig keys
beside the defaults and bounds it checks: one table, read in one place.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Mapping
from typing import Any, NamedTuple

from kslab.errors import ConfigError, ConfigWarning, KslabError

__all__ = [
    "JAVA_PROCESSOR_PACKAGE", "KEY_SUPPORT", "TIMESTAMP_EXTRACTORS", "ConfigError",
    "ConfigWarning", "KeySupport", "StreamsConfig",
]

DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024
NO_OPTIMIZATION, OPTIMIZE = "none", "all"
REUSE_KTABLE_SOURCE_TOPICS = "reuse.ktable.source.topics"
MERGE_REPARTITION_TOPICS = "merge.repartition.topics"
SINGLE_STORE_SELF_JOIN = "single.store.self.join"
_OPTIMIZATIONS = (
    NO_OPTIMIZATION, OPTIMIZE, REUSE_KTABLE_SOURCE_TOPICS, MERGE_REPARTITION_TOPICS,
    SINGLE_STORE_SELF_JOIN,
)
_OPTIMIZATION_HELP = (
    f'Acceptable values are: "{NO_OPTIMIZATION}", "{OPTIMIZE}", or a comma separated list of '
    f'specific optimizations: ("{REUSE_KTABLE_SOURCE_TOPICS}", "{MERGE_REPARTITION_TOPICS}", '
    f'"{SINGLE_STORE_SELF_JOIN}").'
)

# The Java classes of the built-in timestamp extractors a config may name, by their simple names
# (or with the package below in front); kslab.processor.timestamps implements them.
TIMESTAMP_EXTRACTORS = (
    "FailOnInvalidTimestamp", "LogAndSkipOnInvalidTimestamp",
    "UsePartitionTimeOnInvalidTimestamp", "WallclockTimestampExtractor",
)
JAVA_PROCESSOR_PACKAGE = "org.apache.kafka.streams.processor."

_DEFAULTS: dict[str, Any] = {
    "application.id": None,
    "bootstrap.servers": None,
    "application.server": "",
    "processing.guarantee": "at_least_once",
    "num.stream.threads": 1,
    "commit.interval.ms": None,  # 30000, or 100 under exactly_once_v2
    "state.dir": None,
    "default.key.serde": "json",
    "default.value.serde": "json",
    "default.timestamp.extractor": None,
    "default.deserialization.exception.handler": "log_and_fail",
    "deserialization.exception.handler": None,
    "default.production.exception.handler": "default",
    "production.exception.handler": None,
    "processing.exception.handler": "log_and_fail",
    "replication.factor": -1,
    "statestore.cache.max.bytes": DEFAULT_CACHE_MAX_BYTES,
    "cache.max.bytes.buffering": None,
    "topology.optimization": "none",
    "max.task.idle.ms": 0,
    "buffered.records.per.partition": 1000,
    "windowstore.changelog.additional.retention.ms": 24 * 60 * 60 * 1000,
    "errors.dead.letter.queue.topic.name": None,  # KIP-1034 (Kafka 4.2)
    "errors.deadletterqueue.topic.name": None,  # Connect's spelling, accepted as an alias
    "acceptable.recovery.lag": 10_000,
    "num.standby.replicas": 0,
    "max.warmup.replicas": 2,
    "probing.rebalance.interval.ms": 10 * 60 * 1000,
    "task.timeout.ms": 5 * 60 * 1000,
    "default.dsl.store": "rocksDB",
    "metrics.recording.level": "INFO",
    "built.in.metrics.version": "latest",
    "rack.aware.assignment.strategy": "none",
    "send.buffer.bytes": 128 * 1024,
    "receive.buffer.bytes": 32 * 1024,
    # the interactive-query HTTP endpoint (application.server): an idle connection is closed
    # after the read timeout, and connections beyond the bound get a 503
    "kslab.http.read.timeout.ms": 30_000,
    "kslab.http.max.connections": 64,
    # a bearer token every interactive-query request must carry (None: none asked), and how
    # long a key query forwarded to the instance holding the key waits for it
    "kslab.iq.token": None,
    "kslab.iq.forward.timeout.ms": 5_000,
    # Prometheus metrics (kslab.runtime.prometheus): off unless "prometheus"; loopback
    "metrics.exporter": "none",
    "metrics.exporter.host": "127.0.0.1",
    "metrics.exporter.port": 9464,
}

# Java's ConfigDef validators for the settings kslab reads or that apps commonly set:
# ("at_least", bound) for LONG/INT ranges, ("one_of", values) for enumerated strings.
_VALIDATORS: dict[str, tuple[str, Any]] = {
    "acceptable.recovery.lag": ("at_least", 0),
    "cache.max.bytes.buffering": ("at_least", 0),
    "statestore.cache.max.bytes": ("at_least", 0),
    "commit.interval.ms": ("at_least", 0),
    "repartition.purge.interval.ms": ("at_least", 0),
    "task.timeout.ms": ("at_least", 0),
    "max.warmup.replicas": ("at_least", 1),
    "num.standby.replicas": ("at_least", 0),
    "num.stream.threads": ("integer", None),
    "max.task.idle.ms": ("integer", None),
    "buffered.records.per.partition": ("integer", None),
    "replication.factor": ("integer", None),
    "window.size.ms": ("integer", None),
    "windowstore.changelog.additional.retention.ms": ("integer", None),
    "probing.rebalance.interval.ms": ("at_least", 60 * 1000),
    "metadata.max.age.ms": ("at_least", 0),
    "metrics.num.samples": ("at_least", 1),
    "metrics.sample.window.ms": ("at_least", 0),
    "receive.buffer.bytes": ("at_least", -1),
    "send.buffer.bytes": ("at_least", -1),
    "kslab.http.read.timeout.ms": ("at_least", 1),
    "kslab.http.max.connections": ("at_least", 1),
    "kslab.iq.forward.timeout.ms": ("at_least", 1),
    "metrics.exporter": ("one_of", ("none", "prometheus")),
    "metrics.exporter.port": ("at_least", 0),
    "reconnect.backoff.ms": ("at_least", 0),
    "reconnect.backoff.max.ms": ("at_least", 0),
    "retry.backoff.ms": ("at_least", 0),
    "request.timeout.ms": ("at_least", 0),
    "processing.guarantee": ("one_of", ("at_least_once", "exactly_once_v2")),
    "default.dsl.store": ("one_of", ("rocksDB", "in_memory")),
    "metrics.recording.level": ("one_of", ("INFO", "DEBUG", "TRACE")),
    "built.in.metrics.version": ("one_of", ("latest",)),
    "rack.aware.assignment.strategy": ("one_of", ("none", "min_traffic", "balance_subtopology")),
    "security.protocol": ("one_of_any_case", ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")),
    "processing.exception.handler": ("handler", None),
    "deserialization.exception.handler": ("handler", None),
    "default.deserialization.exception.handler": ("handler", None),
    "production.exception.handler": ("handler", None),
    "default.production.exception.handler": ("handler", None),
    "default.timestamp.extractor": ("timestamp_extractor", None),
}

# How kslab treats every key of Kafka Streams' StreamsConfig, in one table (README's "Config keys"
# table is generated from it and checked by tests/test_config_support.py):
#   IMPLEMENTED  kslab acts on it (the note says where); silent
#   CLIENTS      the live runtime hands it to its confluent-kafka clients (the note says which,
#                under which librdkafka name); silent
#   NO_EFFECT    accepted; a value other than Java's default warns (ConfigWarning) in the live
#                runtime, naming the key and what kslab does instead; the driver and Spark
#                replay data, where these keys could not matter, and stay silent
#   REFUSED      a value other than Java's default raises ConfigError, as ignoring it would
#                change what the app does; in the live runtime, or everywhere when ``everywhere``
IMPLEMENTED, CLIENTS, NO_EFFECT, REFUSED = "implemented", "clients", "no effect", "refused"
_ASSIGNOR = ("kslab's stream threads join the group with the consumer's range assignor, which "
             "places tasks by partition")
_METRICS = ("kslab's sampled metrics keep two 30 s samples, reported by streams.metrics() and "
            "driver.metrics(), with no reporters")
_SERDES = "the serdes built from default.key.serde / default.value.serde (kslab.serdes)"
_PROBING = ("kslab's warm-up replicas report their lag locally every 0.5 s and the instance "
            "joins the group once they are caught up (kslab.runtime._warmup): no probing "
            "rebalance is needed")


class KeySupport(NamedTuple):
    """One row of the table: how kslab treats a key, and Java's default for it."""

    status: str
    note: str
    java_default: Any = None
    everywhere: bool = False  # a REFUSED key refused by every engine, not only the live one
    clients: str = "consumer producer admin"  # the clients a CLIENTS key goes to


_R, _C, _N, _X = IMPLEMENTED, CLIENTS, NO_EFFECT, REFUSED
KEY_SUPPORT: dict[str, KeySupport] = {
    "application.id": KeySupport(_R, "group id, internal topic prefix, state directory"),
    "bootstrap.servers": KeySupport(_R, "every client of the live runtime"),
    "application.server": KeySupport(_R, "interactive queries over HTTP (kslab.runtime._iq)"),
    "processing.guarantee": KeySupport(
        _R, "at_least_once or exactly_once_v2 (transactions); the retired values are refused"),
    "num.stream.threads": KeySupport(_R, "stream threads per KafkaStreams"),
    "commit.interval.ms": KeySupport(_R, "the live runtime's commits (30000, 100 under EOS)"),
    "poll.ms": KeySupport(_R, "the stream threads' poll timeout"),
    "state.dir": KeySupport(_R, "task directories, RocksDB stores and checkpoint files"),
    "client.id": KeySupport(_R, "prefix of every client's client.id"),
    "replication.factor": KeySupport(_R, "internal topics the live runtime creates"),
    "default.key.serde": KeySupport(_R, "every engine (kslab.serdes)"),
    "default.value.serde": KeySupport(_R, "every engine (kslab.serdes)"),
    "default.list.key.serde.inner": KeySupport(_R, _SERDES),
    "default.list.key.serde.type": KeySupport(_R, _SERDES),
    "default.list.value.serde.inner": KeySupport(_R, _SERDES),
    "default.list.value.serde.type": KeySupport(_R, _SERDES),
    "windowed.inner.class.serde": KeySupport(_R, _SERDES),
    "window.size.ms": KeySupport(_R, _SERDES),
    "default.windowed.key.serde.inner": KeySupport(_R, _SERDES),
    "default.windowed.value.serde.inner": KeySupport(_R, _SERDES),
    "serializer.encoding": KeySupport(_R, _SERDES),
    "deserializer.encoding": KeySupport(_R, _SERDES),
    "key.serializer.encoding": KeySupport(_R, _SERDES),
    "value.serializer.encoding": KeySupport(_R, _SERDES),
    "key.deserializer.encoding": KeySupport(_R, _SERDES),
    "value.deserializer.encoding": KeySupport(_R, _SERDES),
    "default.timestamp.extractor": KeySupport(_R, "every engine (kslab.processor.timestamps)"),
    "default.deserialization.exception.handler": KeySupport(
        _R, "every engine (kslab.core.error_policy)"),
    "deserialization.exception.handler": KeySupport(_R, "every engine (kslab.core.error_policy)"),
    "default.production.exception.handler": KeySupport(
        _R, "every engine (kslab.core.error_policy)"),
    "production.exception.handler": KeySupport(_R, "every engine (kslab.core.error_policy)"),
    "processing.exception.handler": KeySupport(_R, "every engine (kslab.core.error_policy)"),
    "errors.dead.letter.queue.topic.name": KeySupport(_R, "every engine (KIP-1034)"),
    "errors.deadletterqueue.topic.name": KeySupport(
        _R, "Connect's spelling of errors.dead.letter.queue.topic.name"),
    "statestore.cache.max.bytes": KeySupport(_R, "the record caches of every engine"),
    "cache.max.bytes.buffering": KeySupport(
        _R, "the deprecated name of statestore.cache.max.bytes"),
    "topology.optimization": KeySupport(_R, "StreamsBuilder.build(props)"),
    "max.task.idle.ms": KeySupport(
        _R, "a task waits for an empty input partition until it is fetched, then this long "
        "(kslab.core.partition_group); the test driver holds every record piped in"),
    "windowstore.changelog.additional.retention.ms": KeySupport(
        _R, "window stores' changelog retention.ms"),
    "upgrade.from": KeySupport(_R, "the foreign-key join and table-change wire formats (dsl)"),
    "default.dsl.store": KeySupport(_R, "StreamsBuilder.build(props): the DSL's store type"),
    "dsl.store.suppliers.class": KeySupport(_R, "StreamsBuilder.build(props)"),
    "built.in.metrics.version": KeySupport(_R, "only 'latest' exists; kslab's metric names"),
    "__emit.interval.ms.kstreams.windowed.aggregation__": KeySupport(
        _R, "emit-final windowed aggregations' wall-clock throttle"),
    "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": KeySupport(
        _R, "outer stream-stream joins' wall-clock throttle"),
    "security.protocol": KeySupport(_C, "every client"),
    "metadata.max.age.ms": KeySupport(_C, "every client"),
    "metadata.recovery.strategy": KeySupport(_C, "every client"),
    "metadata.recovery.rebootstrap.trigger.ms": KeySupport(_C, "every client"),
    "connections.max.idle.ms": KeySupport(_C, "every client"),
    "reconnect.backoff.ms": KeySupport(_C, "every client"),
    "reconnect.backoff.max.ms": KeySupport(_C, "every client"),
    "retry.backoff.ms": KeySupport(_C, "every client"),
    "retry.backoff.max.ms": KeySupport(_C, "every client"),
    "send.buffer.bytes": KeySupport(_C, "every client, as socket.send.buffer.bytes (-1: 0)"),
    "receive.buffer.bytes": KeySupport(
        _C, "every client, as socket.receive.buffer.bytes (-1: 0)"),
    "request.timeout.ms": KeySupport(_C, "the producers (librdkafka's consumer has none)",
                                     clients="producer"),
    "retries": KeySupport(_C, "the producers", clients="producer"),
    "client.rack": KeySupport(_C, "the consumers (fetch from the closest replica)",
                              clients="consumer"),
    "enable.metrics.push": KeySupport(_C, "every client (KIP-714)"),
    "num.standby.replicas": KeySupport(
        _R, "standby tasks kept warm from changelogs (kslab.runtime._standby)"),
    "acceptable.recovery.lag": KeySupport(
        _R, "a starting instance joins the group once each stateful task it will take is "
        "within this many records of its changelog's end, warming up the others first "
        "(kslab.runtime._warmup; with num.standby.replicas > 0 or a warm-up key set)"),
    "max.warmup.replicas": KeySupport(
        _R, "warm-up replicas catching up at once on a starting instance "
        "(kslab.runtime._warmup)"),
    "probing.rebalance.interval.ms": KeySupport(_N, _PROBING, 600_000),
    "task.assignor.class": KeySupport(_N, _ASSIGNOR),
    "rack.aware.assignment.strategy": KeySupport(_N, _ASSIGNOR, "none"),
    "rack.aware.assignment.tags": KeySupport(_N, _ASSIGNOR, []),
    "rack.aware.assignment.traffic_cost": KeySupport(_N, _ASSIGNOR),
    "rack.aware.assignment.non_overlap_cost": KeySupport(_N, _ASSIGNOR),
    "metric.reporters": KeySupport(_N, _METRICS, []),
    "metrics.num.samples": KeySupport(_N, _METRICS, 2),
    "metrics.sample.window.ms": KeySupport(_N, _METRICS, 30_000),
    "metrics.recording.level": KeySupport(
        _N, "kslab records the same metrics at every level", "INFO"),
    "log.summary.interval.ms": KeySupport(
        _N, "kslab logs no periodic summary; streams.metrics() has the counts", 120_000),
    "rocksdb.config.setter": KeySupport(
        _N, "kslab opens RocksDB (rocksdict) with its own options; the data is the same"),
    "state.cleanup.delay.ms": KeySupport(
        _N, "kslab keeps a migrated task's directory; cleanup() deletes the application's",
        600_000),
    "buffered.records.per.partition": KeySupport(
        _R, "the live runtime stops fetching a partition while its task holds more of its "
        "records (a task waiting for another partition: max.task.idle.ms)"),
    "repartition.purge.interval.ms": KeySupport(
        _N, "kslab deletes no consumed records from repartition topics; their retention.ms "
        "applies", 30_000),
    "task.timeout.ms": KeySupport(
        _N, "librdkafka retries client timeouts itself; an operation that still fails fails "
        "the thread, a stalled changelog restore keeps waiting", 300_000),
    "__state.updater.enabled__": KeySupport(
        _N, "kslab restores on the stream thread, in the rebalance callback", True),
    "__processing.threads.enabled__": KeySupport(
        _N, "kslab processes on the stream threads", False),
    "__internal.override.topic.prefix__": KeySupport(
        _X, "internal topics are named after application.id alone; another prefix would "
        "have the app use other topics than the ones it was given"),
    "group.protocol": KeySupport(
        _X, "kslab's stream threads join with the classic protocol and the range assignor; "
        "the 'streams' protocol (KIP-1071) is not implemented", "classic"),
    # kslab's own keys: a typo among them raises as any unknown key does
    "kslab.driver.bulk": KeySupport(_R, "the test driver's batch path (False: record by record)"),
    "kslab.runtime.bulk": KeySupport(_R, "the live runtime's batch path (False: off)"),
    "kslab.spark.bulk": KeySupport(_R, "the Spark engine's batch path (False: off)"),
    "kslab.spark.keep.tasks": KeySupport(
        _R, "Spark streaming keeps each task open in its Python worker between micro-batches "
        "(False: rebuilt from Spark state every micro-batch)"),
    "kslab.spark.query.restarts": KeySupport(
        _R, "how often SparkStreams.await_termination restarts a query from its checkpoint after "
        "a Python worker failed to start in time (Spark gives it 10 s; default 3, 0: never)"),
    "kslab.http.bind": KeySupport(_R, "the address the interactive-query endpoint binds"),
    "kslab.http.read.timeout.ms": KeySupport(
        _R, "the interactive-query endpoint closes a connection idle this long"),
    "kslab.http.max.connections": KeySupport(
        _R, "the interactive-query endpoint's connections at once (503 beyond)"),
    "kslab.iq.token": KeySupport(
        _R, "the bearer token every interactive-query request must carry (401 without)"),
    "kslab.iq.forward.timeout.ms": KeySupport(
        _R, "how long a key query asked of the instance holding the key waits (504 after)"),
    "metrics.exporter": KeySupport(
        _R, "prometheus: metrics() served for Prometheus (kslab.runtime.prometheus)", "none"),
    "metrics.exporter.host": KeySupport(_R, "the address the Prometheus endpoint binds"),
    "metrics.exporter.port": KeySupport(_R, "the Prometheus endpoint's port (0: a free one)"),
    "kslab.idle.stream.time.advance.ms": KeySupport(
        _R, "windows that close on a quiet topic (opt in; kslab.core.idle)"),
    "default.client.supplier": KeySupport(
        _X, "kslab makes its own confluent-kafka clients; set their configs with the "
        "'consumer.', 'producer.' and 'admin.' prefixes"),
    "ensure.explicit.internal.resource.naming": KeySupport(
        _X, "kslab does not check that internal topics and stores are named; name them with "
        "Named, Grouped, Materialized and Repartitioned instead", False, everywhere=True),
}
# keys whose prefix kslab reads: "topic." (internal topics' configs), "client.tag." (rack-aware
# assignment: no effect) and the clients' prefixes
CLIENT_TAG_PREFIX = "client.tag."
_KNOWN = set(KEY_SUPPORT)
# librdkafka's names for the common client configs that differ from Java's
_LIBRDKAFKA_NAMES = {"send.buffer.bytes": "socket.send.buffer.bytes",
                     "receive.buffer.bytes": "socket.receive.buffer.bytes"}

# What Kafka's TopologyTestDriver sets, and what every engine that replays data (the test
# driver, Spark) starts from: windowed final results and outer joins' null-padded results are
# emitted without a wall-clock throttle, so replaying a history gives the same records
REPLAY_DEFAULTS: dict[str, Any] = {
    "__emit.interval.ms.kstreams.windowed.aggregation__": 0,
    "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": 0,
}

# Java's client configs (ConsumerConfig / ProducerConfig / AdminClientConfig.configNames(), the
# ones users set): given without a prefix, Streams hands each to the clients that know it, as
# StreamsConfig.getClientPropsWithPrefix does; a prefixed one ("consumer.", ...) wins
CONSUMER_CONFIGS = frozenset({
    "auto.offset.reset", "group.instance.id", "isolation.level", "max.poll.records",
    "max.poll.interval.ms", "session.timeout.ms", "heartbeat.interval.ms", "fetch.min.bytes",
    "fetch.max.bytes", "fetch.max.wait.ms", "max.partition.fetch.bytes", "check.crcs",
    "allow.auto.create.topics", "auto.commit.interval.ms", "enable.auto.commit",
    "partition.assignment.strategy", "group.id", "key.deserializer", "value.deserializer",
    "exclude.internal.topics", "default.api.timeout.ms", "group.protocol",
})
PRODUCER_CONFIGS = frozenset({
    "acks", "linger.ms", "batch.size", "buffer.memory", "compression.type",
    "max.in.flight.requests.per.connection", "enable.idempotence", "delivery.timeout.ms",
    "max.block.ms", "max.request.size", "transaction.timeout.ms", "transactional.id",
    "partitioner.class", "key.serializer", "value.serializer", "batch.num.messages",
    "compression.level",
})
ADMIN_CONFIGS = frozenset({"default.api.timeout.ms"})
CLIENT_CONFIGS = CONSUMER_CONFIGS | PRODUCER_CONFIGS | ADMIN_CONFIGS

_PREFIXES = (
    "topic.", "consumer.", "main.consumer.", "restore.consumer.", "global.consumer.",
    "producer.", "admin.", "client.tag.", "sasl.", "ssl.",
)


class StreamsConfig:
    """A validated Kafka Streams config: ``get(name)`` returns the value or its default."""

    def __init__(self, props: Mapping[str, Any] | None = None, *, strict: bool = True) -> None:
        props = dict(props or {})
        for key in props:
            if not isinstance(key, str):
                msg = f"config key {key!r} must be a str property name like 'application.id'"
                raise KslabError(msg)
            if strict and key not in _KNOWN and key not in CLIENT_CONFIGS \
                    and not key.startswith(_PREFIXES):
                close = difflib.get_close_matches(key, sorted(_KNOWN), n=1)
                hint = f"did you mean '{close[0]}'?" if close else (
                    "client settings go under a 'consumer.', 'producer.' or 'admin.' prefix"
                )
                msg = f"unknown config '{key}'; {hint}"
                raise KslabError(msg)
        for key, value in props.items():
            if value is not None:
                _validate(key, value)
        self._props = props
        self._warned: set[str] = set()

    def check_support(self, engine: str) -> None:
        """Warn about, or refuse, the keys ``engine`` would ignore (``KEY_SUPPORT``'s rule).

        ``engine`` is ``"runtime"`` (the live ``KafkaStreams``: every NO_EFFECT key with a
        value other than Java's default warns, every REFUSED one raises) or a replaying engine
        (``"driver"``, ``"spark"``: only keys refused ``everywhere`` raise). Each key warns at
        most once per config, however often this is called.
        """
        live = engine == "runtime"
        for key, value in self._props.items():
            row = KEY_SUPPORT.get(key)
            if row is None and live and key.startswith(CLIENT_TAG_PREFIX):
                row = KeySupport(NO_EFFECT, _ASSIGNOR)
            if row is None or _is_default(value, row.java_default):
                continue
            if row.status == REFUSED and (live or row.everywhere):
                msg = f"config '{key}' = {value!r} is not supported by kslab; {row.note}"
                raise ConfigError(msg)
            if row.status == NO_EFFECT and live and key not in self._warned:
                self._warned.add(key)
                msg = f"config '{key}' = {value!r} has no effect in kslab: {row.note}"
                warnings.warn(msg, ConfigWarning, stacklevel=3)

    def client_configs(self, client: str) -> dict[str, Any]:
        """The CLIENTS keys given for ``client`` (``"consumer"``, ``"producer"`` or
        ``"admin"``), under librdkafka's names (``send.buffer.bytes`` -1, "the OS default",
        is librdkafka's 0)."""
        out = {}
        for key, value in self._props.items():
            row = KEY_SUPPORT.get(key)
            if row is None or row.status != CLIENTS or value is None \
                    or client not in row.clients.split():
                continue
            if key in _LIBRDKAFKA_NAMES:
                key, value = _LIBRDKAFKA_NAMES[key], max(int(value), 0)
            out[key] = value
        return out

    def get(self, name: str, default: Any = None) -> Any:
        """The configured value of ``name``, else kslab's default for it, else ``default``."""
        if name in self._props and self._props[name] is not None:
            value = self._props[name]
            if name in _SERDE_CONFIGS and _needs_configs(value, self._props, name):
                return self._default_serde(is_key=name == "default.key.serde")
            return value
        value = _DEFAULTS.get(name)
        return default if value is None else value

    def get_int(self, name: str, default: int | None = None) -> int | None:
        """``get`` as an int, accepting numeric strings and timedeltas (as ms)."""
        value = self.get(name, default)
        if value is None:
            return None
        if hasattr(value, "total_seconds"):
            return int(value.total_seconds() * 1000)
        try:
            return int(value)
        except (TypeError, ValueError):
            msg = f"config '{name}' = {value!r} is not an integer; give a number"
            raise KslabError(msg) from None

    def default_key_serde(self) -> Any:
        """The configured ``default.key.serde``, built and configured for keys.

        As Java's ``defaultKeySerde()``: serdes named by a Java class that read further configs
        (``WindowedSerdes$TimeWindowedSerde`` with ``windowed.inner.class.serde`` and
        ``window.size.ms``, ``Serdes$ListSerde`` with ``default.list.key.serde.inner`` / ``.type``,
        ``Serdes$StringSerde`` with ``key.deserializer.encoding``) are built from them; any failure
        is a ``StreamsError`` "Failed to configure key serde <setting>" caused by the reason.
        """
        return self._default_serde(is_key=True)

    def default_value_serde(self) -> Any:
        """The configured ``default.value.serde``, built and configured for values."""
        return self._default_serde(is_key=False)

    def _default_serde(self, *, is_key: bool) -> Any:
        from kslab.errors import StreamsError
        from kslab.serdes._from_config import serde_from_config

        name = "default.key.serde" if is_key else "default.value.serde"
        setting = self._props.get(name)
        setting = _DEFAULTS[name] if setting is None else setting
        try:
            return serde_from_config(setting, self._props, is_key=is_key)
        except Exception as e:
            shown = (f"class {setting.__module__}.{setting.__qualname__}"
                     if isinstance(setting, type) else setting)
            msg = f"Failed to configure {'key' if is_key else 'value'} serde {shown}"
            raise StreamsError(msg) from e

    def total_cache_size(self) -> int:
        """The record cache's size: ``statestore.cache.max.bytes``, else the deprecated
        ``cache.max.bytes.buffering``, else 10 MiB (Java's ``totalCacheSize``)."""
        for name in ("statestore.cache.max.bytes", "cache.max.bytes.buffering"):
            if self._props.get(name) is not None:
                return int(self._props[name])
        return DEFAULT_CACHE_MAX_BYTES

    @staticmethod
    def verify_topology_optimization_configs(value: str) -> set[str]:
        """The optimizations ``topology.optimization`` = ``value`` turns on; bad values raise."""
        configs = [part.strip() for part in str(value).split(",")]
        if (NO_OPTIMIZATION in configs or OPTIMIZE in configs) and len(configs) > 1:
            msg = f'"{value}" is not a valid optimization config. {_OPTIMIZATION_HELP}'
            raise ConfigError(msg)
        if any(conf not in _OPTIMIZATIONS for conf in configs):
            msg = f"Unrecognized config. {_OPTIMIZATION_HELP}"
            raise ConfigError(msg)
        if OPTIMIZE in configs:
            return {REUSE_KTABLE_SOURCE_TOPICS, MERGE_REPARTITION_TOPICS, SINGLE_STORE_SELF_JOIN}
        return set() if NO_OPTIMIZATION in configs else set(configs)

    def as_dict(self) -> dict[str, Any]:
        """The properties exactly as given."""
        return dict(self._props)

    def __contains__(self, name: str) -> bool:
        return name in self._props

    def __repr__(self) -> str:
        return f"StreamsConfig({self._props!r})"


_SERDE_CONFIGS = ("default.key.serde", "default.value.serde")


def _needs_configs(value: Any, props: Mapping[str, Any], name: str) -> bool:
    """Whether the serde a default-serde config names is built from other configs."""
    from kslab.serdes._from_config import needs_configs

    return needs_configs(value, props, is_key=name == "default.key.serde")


def _is_default(value: Any, default: Any) -> bool:
    """Whether a configured ``value`` equals Java's ``default`` (as Java would parse it: a
    numeric string for a number, a comma-separated string or list for a list, either case for
    a boolean; ``None`` and the empty string for "no value")."""
    if value is None or value == "" or value == []:
        return default is None or default == []
    if isinstance(default, bool):
        return str(value).lower() == str(default).lower()
    if isinstance(default, int):
        try:
            return _as_number("", value) == default
        except ConfigError:
            return False
    if isinstance(default, list):
        items = value.split(",") if isinstance(value, str) else list(value)
        return [str(i).strip() for i in items if str(i).strip()] == default
    return default is not None and str(value) == str(default)


def _validate(name: str, value: Any) -> None:
    """Refuse ``value`` for ``name`` as Java's ConfigDef would, with its message."""
    if name == "topology.optimization":
        StreamsConfig.verify_topology_optimization_configs(value)
        return
    rule = _VALIDATORS.get(name)
    if rule is None:
        return
    kind, arg = rule
    if kind == "one_of":
        if value not in arg:
            _invalid(name, value, f"String must be one of: {', '.join(arg)}")
        return
    if kind == "one_of_any_case":
        if str(value).upper() not in arg:
            _invalid(name, value, f"String must be one of (case insensitive): {', '.join(arg)}")
        return
    if kind == "handler":
        _check_handler_name(name, value)
        return
    if kind == "timestamp_extractor":
        _check_timestamp_extractor(value)
        return
    number = _as_number(name, value)
    if kind == "at_least" and number < arg:
        _invalid(name, value, f"Value must be at least {arg}")


def _check_handler_name(name: str, value: Any) -> None:
    """A handler named by a string must be a built-in one (``log_and_fail``,
    ``log_and_continue``, ``default``, or Java's class names for them)."""
    if not isinstance(value, str):
        return
    lowered = value.lower().replace("_", "").replace("-", "")
    if not any(word in lowered for word in ("continue", "fail", "default")):
        reason = (
            f"Class {value} could not be found. Use 'log_and_fail' or 'log_and_continue', or "
            "a handler class or function"
        )
        _invalid(name, value, reason)


def _check_timestamp_extractor(value: Any) -> None:
    """A timestamp extractor named by a string must be a built-in one (its Java class name)."""
    if (
        isinstance(value, str)
        and value.removeprefix(JAVA_PROCESSOR_PACKAGE) not in TIMESTAMP_EXTRACTORS
    ):
        _invalid("default.timestamp.extractor", value, f"Class {value} could not be found.")


def _as_number(name: str, value: Any) -> int:
    """A LONG/INT setting's value: an int, a numeric string or a timedelta (as ms)."""
    if hasattr(value, "total_seconds"):
        return int(value.total_seconds() * 1000)
    if isinstance(value, float) and value.is_integer():
        return int(value)  # 1e3 from a notebook means 1000, though Java would want a long
    if isinstance(value, bool) or not isinstance(value, int | str):
        got = type(value).__name__
        _invalid(name, value, f"Expected value to be an integer, but it was a {got}")
    try:
        return int(value)
    except ValueError:
        _invalid(name, value, "Not a number of type LONG")
    raise AssertionError  # unreachable: _invalid raises


def _invalid(name: str, value: Any, reason: str) -> None:
    msg = f"Invalid value {value} for configuration {name}: {reason}"
    raise ConfigError(msg)
