"""What the schema-registry serdes (``Avro``, ``Protobuf``, ``JsonSchema``) share: the registry
client, the in-process ``mock://`` registries, subject name strategies and the framing errors.

Invariant: with a registry every record is written and read by confluent-kafka's own serializers
in Confluent's wire format (magic byte 0, the schema id as 4 big-endian bytes, for Protobuf the
message-index array, then the payload), so Java's and every other Confluent client read what kslab
writes and the other way round. ``mock://NAME`` is one in-process registry per NAME, shared by
every serde of the process that names it, as the scopes of Java's ``MockSchemaRegistry`` are.
A serde pickles as its settings (a Spark worker rebuilds the client); one naming a ``mock://``
registry carries that registry's schemas and restores them, with their ids, in the process that
unpickles it, where it registers nothing new: two workers registering on their own would give
one id to different schemas, so a schema the pickling process had not registered is an error
naming the subject, never a silently diverging id.

confluent-kafka is imported when a serde with a registry is built, never by ``import kslab``.
"""

from __future__ import annotations

import abc
import importlib
import os
import threading
import urllib.parse
from typing import Any, ClassVar, NamedTuple

from kslab.errors import SerdeError
from kslab.serdes._base import Serde, deserialize_error, preview_value

__all__ = ["RegistrySerde", "drop_mock_registry", "mock_registry", "require"]

_MOCK = "mock://"
# Subject name strategies by kslab name, with confluent-kafka's function for each.
_STRATEGIES = {
    "topic": "topic_subject_name_strategy",
    "record": "record_subject_name_strategy",
    "topic_record": "topic_record_subject_name_strategy",
}
_MOCKS: dict[str, Any] = {}
_MOCKS_LOCK = threading.Lock()


class Options(NamedTuple):
    """How a serde uses its registry: the subject name strategy and the two lookup switches."""

    strategy: str = "topic"
    auto_register: bool = True
    use_latest: bool = False


class RegistrySerde(Serde):
    """A serde writing Confluent's wire format with a registry, its format's plain bytes without.

    A subclass gives its plain codec (``_write_plain``/``_read_plain``), confluent-kafka's
    serializer pair (``_confluent_pair``), and what its messages call the schema (``_label``,
    ``_record_name``, ``_expected``); the framing, ``configure(is_key)``, the subjects, the
    errors and the identity live here, once for all three formats.
    """

    __slots__ = ("_client", "_copied", "_deserializer", "_field", "_is_key", "_options", "_read",
                 "_registry", "_serializer", "_write")

    _format: ClassVar[str]   # "Avro": how messages name the format
    _payload: ClassVar[str]  # what follows the framing: "Avro binary"
    _plain: ClassVar[str]    # what the bytes are without a registry: "schemaless Avro binary"
    _rebuilt: ClassVar[tuple[str, ...]] = ()  # a format's slots _rebuild makes, never pickled

    def _setup(self, registry: Any, is_key: bool, subject_name_strategy: str,
               auto_register_schemas: bool | None, use_latest_version: bool) -> None:
        """Check and keep the registry settings, then bind the wire format they choose."""
        name = type(self).__name__
        strategy = strategy_name(subject_name_strategy, name)
        if not isinstance(use_latest_version, bool):
            msg = f"serdes.{name} use_latest_version must be True or False"
            raise TypeError(msg)
        if auto_register_schemas is None:
            auto_register_schemas = not use_latest_version
        if auto_register_schemas and use_latest_version:
            msg = (f"serdes.{name} cannot both auto-register its schema and write with the "
                   "subject's latest version; pass auto_register_schemas=False with "
                   "use_latest_version=True")
            raise ValueError(msg)
        self._options = Options(strategy, bool(auto_register_schemas), use_latest_version)
        if registry is None and self._options != Options():
            msg = (f"serdes.{name} subject_name_strategy, auto_register_schemas and "
                   "use_latest_version need a schema registry; pass registry=<url> "
                   "(e.g. 'mock://tests' for an in-process one)")
            raise ValueError(msg)
        self._registry = registry
        self._is_key = is_key
        self._copied = None  # the mock:// name when unpickled from another process
        self._client = None if registry is None else registry_client(registry, name)
        self._bind()

    @property
    def is_key(self) -> bool:
        """Whether this serde is for keys: its subjects are ``<topic>-key`` under the topic
        strategy, and it reads a key's schema id."""
        return self._is_key

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The bytes of ``data``, framed with its schema id when there is a registry."""
        if data is None:
            return None
        try:
            return self._write(topic, data, headers)
        except SerdeError:
            raise
        except Exception as e:
            raise self._write_error(topic, data, e) from e

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The value encoded in ``data``."""
        if data is None:
            return None
        try:
            return self._read(topic, data, headers)
        except SerdeError:
            raise
        except Exception as e:
            raise self._read_error(topic, data, e) from e

    def configure(self, is_key: bool) -> RegistrySerde:
        """This serde for keys (``True``) or values (``False``); the registry client is shared."""
        if is_key == self._is_key:
            return self
        other = object.__new__(type(self))
        for name in _slots(type(self)):
            if hasattr(self, name):
                object.__setattr__(other, name, getattr(self, name))
        other._is_key = is_key
        other._bind()
        return other

    # -- pickling: the settings travel, the client is rebuilt -------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        """The serde's settings and schema state, without the client and confluent's serdes
        (which do not pickle); a ``mock://`` registry's schemas go along with their ids."""
        if self._registry is not None and not isinstance(self._registry, str | dict):
            msg = (f"{self!r} cannot be pickled (sent to a Spark worker or another process): its "
                   f"registry is a {type(self._registry).__name__} object, which does not pickle; "
                   "pass the registry's URL (registry='http://host:8081') or its config dict "
                   "instead, so the other process builds its own client")
            raise TypeError(msg)
        state = {name: getattr(self, name) for name in _slots(type(self))
                 if name not in _TRANSIENT and name not in self._rebuilt and hasattr(self, name)}
        name = mock_name(self._registry)
        if name is not None:
            state[_SNAPSHOT] = (name, snapshot(self._client), os.getpid())
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the client from the settings (restoring a ``mock://`` registry's schemas into
        this process's registry of that name) and bind the wire format again."""
        state = dict(state)
        carried = state.pop(_SNAPSHOT, None)
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._copied = None
        if carried is not None:
            restore(carried[0], carried[1])
            if carried[2] != os.getpid():
                self._copied = carried[0]
        self._rebuild()
        self._client = (None if self._registry is None
                        else registry_client(self._registry, type(self).__name__))
        self._bind()

    # -- what a format gives ------------------------------------------------------------------

    @abc.abstractmethod
    def _write_plain(self, topic: str, data: Any, headers: Any) -> bytes:
        """The format's bytes for ``data`` without a registry."""

    @abc.abstractmethod
    def _read_plain(self, topic: str, data: bytes, headers: Any) -> Any:
        """The value of plain bytes."""

    @abc.abstractmethod
    def _confluent_pair(self, client: Any, write_conf: dict, read_conf: dict) -> tuple[Any, Any]:
        """confluent-kafka's serializer and deserializer for this schema."""

    @abc.abstractmethod
    def _label(self) -> str:
        """The schema as messages name it: ``com.acme.Order``."""

    @abc.abstractmethod
    def _record_name(self) -> str | None:
        """The name the record strategies put in subjects (``None`` when the schema has none)."""

    @abc.abstractmethod
    def _expected(self) -> str:
        """What a value to write must be, for the error when it is not."""

    @abc.abstractmethod
    def _schema_key(self) -> Any:
        """What, besides the registry settings, makes two serdes of this class equal."""

    @abc.abstractmethod
    def _schema_repr(self) -> str:
        """The schema argument as ``repr`` shows it."""

    def _rebuild(self) -> None:
        """Make the ``_rebuilt`` slots again after unpickling (a format's unpicklable state)."""

    def _coerce(self, data: Any) -> Any:
        """``data`` as confluent's serializer takes it (Protobuf builds a message from a dict)."""
        return data

    # -- the two wire formats -------------------------------------------------------------------

    def _write_framed(self, topic: str, data: Any, headers: Any) -> bytes:
        pairs = _header_pairs(headers)
        out = self._serializer(self._coerce(data), _Context(topic, self._field, pairs))
        if pairs and len(pairs) > len(headers):  # a header schema-id serializer added one
            for key, value in pairs[len(headers):]:
                headers.add(key, value)
        return out

    def _read_framed(self, topic: str, data: bytes, headers: Any) -> Any:
        return self._deserializer(data, _Context(topic, self._field, _header_pairs(headers)))

    def _bind(self) -> None:
        """Point the hot path at this serde's wire format, with confluent's serdes if registered."""
        self._serializer = self._deserializer = self._field = None
        if self._client is None:
            self._write, self._read = self._write_plain, self._read_plain
            return
        self._write, self._read = self._write_framed, self._read_framed
        name = type(self).__name__
        module = require("confluent_kafka.schema_registry", name)
        fields = _bind_context(name)
        self._field = fields.KEY if self._is_key else fields.VALUE
        # The strategy is always named: newer confluent-kafka clients default to asking the
        # registry for topic "associations" first, which Java's TopicNameStrategy never does.
        strategy = getattr(module, _STRATEGIES[self._options.strategy])
        read_conf = {"subject.name.strategy": strategy,
                     "use.latest.version": self._options.use_latest}
        # A mock registry copied into another process registers nothing there (see the module).
        register = self._options.auto_register and self._copied is None
        write_conf = {**read_conf, "auto.register.schemas": register}
        self._serializer, self._deserializer = self._confluent_pair(
            self._client, write_conf, read_conf)

    # -- errors ---------------------------------------------------------------------------------

    def _write_error(self, topic: str, data: Any, cause: Exception) -> SerdeError:
        if is_registry_failure(cause):
            subject = self._subject(topic)
            if self._copied is not None and not self._options.use_latest:
                msg = (f"{self!r} cannot write to topic {topic!r} in this process (a Spark "
                       f"worker): its schema is not under subject {subject!r} in the mock://"
                       f"{self._copied} registry copied from the driver, and a schema registered "
                       "here would get an id other processes do not know; register it in the "
                       "driver before the job is built (serialize one value for this topic with "
                       "this serde there), or use an http:// registry")
                return SerdeError(msg, topic=topic, raw=None)
            if self._options.use_latest:
                how = "find the latest schema"
                fix = (f"register a schema under subject {subject!r} first, and check the "
                       "registry is reachable")
            elif not self._options.auto_register:
                how = "look up its schema"
                fix = (f"register the schema under subject {subject!r} first (or pass "
                       "auto_register_schemas=True), and check the registry is reachable")
            else:
                how = "register its schema"
                fix = ("check the registry is reachable and the schema is compatible with the "
                       "subject's registered versions")
            msg = (f"{self!r} could not {how} for topic {topic!r} (subject {subject!r}) at the "
                   f"schema registry ({type(cause).__name__}: {cause}); {fix}")
            return SerdeError(msg, topic=topic, raw=None)
        msg = (
            f"{self!r} cannot serialize {type(data).__name__} {preview_value(data)} for topic "
            f"{topic!r}: expected {self._expected()} ({type(cause).__name__}: {cause}); fix "
            "the value (map_values) or the schema"
        )
        return SerdeError(msg, topic=topic, raw=None)

    def _read_error(self, topic: str, data: bytes, cause: Exception) -> SerdeError:
        schema_id = framed_schema_id(data)
        if is_registry_failure(cause) and schema_id is not None:
            msg = (
                f"{self!r} could not fetch the writer's schema id {schema_id} for topic "
                f"{topic!r} from the schema registry ({type(cause).__name__}: {cause}); check "
                "the registry is reachable and is the one the producer wrote with"
            )
            return SerdeError(msg, topic=topic, raw=data)
        detail = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
        if self._client is not None and schema_id is not None:
            msg = (
                f"{self!r} cannot read the record written with schema id {schema_id} on topic "
                f"{topic!r} as {self._label()} ({detail}); check this reader's schema is "
                "compatible with the writer's, and that the topic's serde is the producer's"
            )
            return SerdeError(msg, topic=topic, raw=data)
        if self._client is not None:
            expected = (f"Confluent-framed {self._format} (magic byte 0 + 4-byte schema id + "
                        f"{self._payload})")
        else:
            expected = self._plain
        expected = f"expected {expected} for schema {self._label()} ({detail})"
        return deserialize_error(self, topic, data, expected)

    def _subject(self, topic: str) -> str:
        """The subject this serde writes under for ``topic``, by its strategy."""
        record = self._record_name() or "<no record name>"
        field = "key" if self._is_key else "value"
        return {"topic": f"{topic}-{field}", "record": record,
                "topic_record": f"{topic}-{record}"}[self._options.strategy]

    # -- identity -------------------------------------------------------------------------------

    def _config(self) -> tuple[Any, ...]:
        return (self._schema_key(), _registry_key(self._registry), self._is_key, self._options)

    def _repr_args(self) -> str:
        args = [self._schema_repr()]
        if self._registry is not None:
            args.append(f"registry={_registry_label(self._registry)!r}")
        if self._is_key:
            args.append("is_key=True")
        options = self._options
        if options.strategy != "topic":
            args.append(f"subject_name_strategy={options.strategy!r}")
        if options.use_latest:
            args.append("use_latest_version=True")
        elif not options.auto_register:
            args.append("auto_register_schemas=False")
        return ", ".join(args)


# -- the registry client ----------------------------------------------------------------------


def mock_registry(name: str) -> Any:
    """The in-process registry ``registry="mock://<name>"`` names, made empty on first use.

    Every serde of this process naming the same ``mock://`` URL shares it, as Java's
    ``MockSchemaRegistry`` scopes are shared: a test's input and output serdes and the
    topology's own serdes see one registry without a server. It is confluent-kafka's
    ``MockSchemaRegistryClient``: ``get_subjects()``, ``get_latest_version(subject)`` and
    ``register_schema(subject, Schema(...))`` inspect and prepare it. It numbers schemas 1, 2, ...
    per registration and checks no compatibility.
    """
    if not isinstance(name, str):
        msg = f"mock_registry(name) takes the name after mock://, a str; got {preview_value(name)}"
        raise TypeError(msg)
    with _MOCKS_LOCK:
        client = _MOCKS.get(name)
        if client is None:
            module = require("confluent_kafka.schema_registry", "mock_registry")
            url = _MOCK + urllib.parse.quote(name, safe="")  # the client parses it as a URL
            client = module.SchemaRegistryClient.new_client({"url": url})
            _MOCKS[name] = client
        return client


def mock_name(registry: Any) -> str | None:
    """The NAME of a ``mock://NAME`` registry setting (a URL or a config dict), else ``None``."""
    url = registry.get("url") if isinstance(registry, dict) else registry
    if isinstance(url, str) and url.strip().startswith(_MOCK):
        return url.strip()[len(_MOCK):].rstrip("/")
    return None


def snapshot(client: Any) -> list[tuple[int, str, int, Any]]:
    """Every schema registered in a mock registry, as ``(schema id, subject, version, Schema)``
    in id order: what ``restore`` needs to rebuild it with the same ids elsewhere."""
    entries = []
    for subject in client.get_subjects():
        for version in client.get_versions(subject):
            found = client.get_version(subject, version)
            entries.append((found.schema_id, subject, found.version, found.schema))
    return sorted(entries, key=lambda entry: entry[0])


def restore(name: str, entries: list[tuple[int, str, int, Any]]) -> None:
    """Register ``entries`` (a ``snapshot``) into this process's ``mock://<name>`` with their ids.

    Confluent's mock numbers schemas 1, 2, ... in registration order, so registering in id order
    reproduces the ids; entries it already holds with the same id (a reused Spark worker, a
    second serde of the same job) are skipped. An id this registry gives to another schema, or
    one the numbering cannot reach (the snapshot's registry had schemas deleted), is an error.
    """
    if not entries:
        return
    client = mock_registry(name)
    errors = require("confluent_kafka.schema_registry.error", "mock_registry")
    with _MOCKS_LOCK:
        for schema_id, subject, version, schema in entries:
            try:
                held = client.lookup_schema(subject, schema).schema_id
            except errors.SchemaRegistryError:
                held = None
            if held is None:
                try:
                    client.get_schema(schema_id)
                except errors.SchemaRegistryError:
                    held = client.register_schema(subject, schema)
            if held != schema_id:
                msg = (f"mock://{name} in this process cannot take schema id {schema_id} (subject "
                       f"{subject!r}, version {version}) from the pickled serde: here "
                       + (f"that schema has id {held}" if held is not None
                          else f"id {schema_id} is another schema")
                       + "; register schemas only in the driver's mock registry (before the job "
                       "is built), drop_mock_registry(name) here first, or use an http:// "
                       "registry")
                raise ValueError(msg)


def drop_mock_registry(name: str) -> None:
    """Forget the in-process registry ``mock://<name>`` (Java's ``MockSchemaRegistry.dropScope``):
    the next serde naming it starts an empty one; serdes already built keep the old one."""
    with _MOCKS_LOCK:
        _MOCKS.pop(name, None)


def registry_client(registry: Any, owner: str) -> Any:
    """A client for a URL (``http(s)://`` or ``mock://name``) or a ``SchemaRegistryClient``
    config dict; an object with ``register_schema`` is taken as a client already."""
    if isinstance(registry, str | dict):
        config = {"url": registry} if isinstance(registry, str) else dict(registry)
        name = mock_name(config)
        if name is not None:
            if "," in name:
                msg = (f"serdes.{owner} registry {config['url']!r} mixes a mock:// registry with "
                       "other URLs; a mock registry takes exactly one URL, mock://<name>")
                raise ValueError(msg)
            return mock_registry(name)
        return require("confluent_kafka.schema_registry", owner).SchemaRegistryClient(config)
    if callable(getattr(registry, "register_schema", None)):
        return registry
    msg = (
        f"serdes.{owner} registry={preview_value(registry)} is not a URL, a config dict or a "
        "SchemaRegistryClient; pass e.g. registry='http://localhost:8081' or 'mock://tests'"
    )
    raise TypeError(msg)


def strategy_name(strategy: Any, owner: str) -> str:
    """``'topic'``, ``'record'`` or ``'topic_record'`` for any spelling of the three strategies,
    Java's class names included (``io.confluent...TopicRecordNameStrategy``)."""
    if isinstance(strategy, str):
        key = strategy.strip().rsplit(".", 1)[-1].removesuffix("NameStrategy").lower()
        key = key.replace("-", "").replace("_", "")
        found = {"topic": "topic", "record": "record", "topicrecord": "topic_record"}.get(key)
        if found is not None:
            return found
    msg = (f"serdes.{owner} subject_name_strategy={preview_value(strategy)} is not one of "
           "'topic' (<topic>-key/value, the default), 'record' (<record name>) or "
           "'topic_record' (<topic>-<record name>)")
    raise ValueError(msg)


def require(module: str, owner: str) -> Any:
    """Import an optional dependency, or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        msg = (f"serdes.{owner} needs {module!r}, which cannot be imported ({e}); "
               "pip install 'kslab[kafka]'")
        raise ImportError(msg) from e


def framed_schema_id(data: bytes) -> int | None:
    """The schema id in bytes framed with Confluent's magic byte 0, else ``None``."""
    if len(data) >= 5 and data[0] == 0:
        return int.from_bytes(data[1:5], "big")
    return None


def is_registry_failure(error: Exception) -> bool:
    """Whether ``error`` came from talking to the registry rather than from the data."""
    module = type(error).__module__
    return type(error).__name__ == "SchemaRegistryError" or module.startswith(
        ("httpx", "httpcore", "requests", "urllib3")
    )


# Bound on first use so that ``import kslab`` never imports confluent-kafka.
_Context: Any = None


def _bind_context(owner: str) -> Any:
    """Bind confluent's ``SerializationContext`` and return its ``MessageField``."""
    global _Context
    serialization = require("confluent_kafka.serialization", owner)
    _Context = serialization.SerializationContext
    return serialization.MessageField


_SNAPSHOT = "__mock_registry__"  # the state key a mock:// registry's snapshot travels under
# Slots rebuilt on unpickling, never pickled: the client and what is bound to it.
_TRANSIENT = frozenset({"_client", "_copied", "_deserializer", "_field", "_read", "_serializer",
                        "_write"})


def _slots(cls: type) -> list[str]:
    """Every slot ``cls`` and its bases declare."""
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        declared = klass.__dict__.get("__slots__", ())
        names.extend([declared] if isinstance(declared, str) else declared)
    return names


def _header_pairs(headers: Any) -> list[tuple[str, bytes | None]] | None:
    """Headers as the list of pairs confluent's serdes read and append to."""
    if not headers:
        return None
    if isinstance(headers, list | dict):
        return headers  # type: ignore[return-value]
    return [(key, value) for key, value in headers]


def _registry_label(registry: Any) -> str:
    """The registry's URL, never its credentials."""
    if isinstance(registry, str):
        return registry
    if isinstance(registry, dict):
        return str(registry.get("url", "<config>"))
    return f"<{type(registry).__name__}>"


def _registry_key(registry: Any) -> Any:
    """What makes two registries the same for equality: URL, config, or client identity."""
    if registry is None or isinstance(registry, str):
        return registry
    if isinstance(registry, dict):
        return tuple(sorted((str(k), repr(v)) for k, v in registry.items()))
    return ("client", id(registry))
