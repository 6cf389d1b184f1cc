"""The DSL's config objects: Consumed, Produced, Grouped, Materialized, Repartitioned and friends.

Each mirrors its Java class: the static factories (``Materialized.as_("counts")``) and the
``with_...`` refinements are the same methods, callable on the class (starting from the empty
config) or on an instance. Invariant: a config object is never changed in place; every method
returns a new object, so one ``Materialized`` can be shared by several operators safely.
"""

from __future__ import annotations

import copy
import enum
import functools
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from kslab.dsl._processors import MissingDslArgumentError, require_callable, require_not_none
from kslab.errors import InvalidArgumentError, TopologyError
from kslab.state.base import check_restore_listener

__all__ = [
    "Branched",
    "Consumed",
    "Grouped",
    "Materialized",
    "Named",
    "Printed",
    "Produced",
    "Repartitioned",
    "StoreType",
    "internal",
]

_LEGAL_NAME = re.compile(r"[a-zA-Z0-9._-]+")
_MAX_NAME_LENGTH = 249


class hybrid_method:  # noqa: N801 - a descriptor used like a decorator
    """A method callable on the class (on a fresh default instance) or on an instance."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    def __get__(self, obj: Any, cls: type) -> Callable[..., Any]:
        return functools.partial(self.fn, obj if obj is not None else cls())


def replaced(obj: Any, **fields: Any) -> Any:
    new = copy.copy(obj)
    for field, value in fields.items():
        setattr(new, "_" + field, value)
    return new


class InvalidConfigError(TopologyError, InvalidArgumentError):
    """A config value Java refuses with ``IllegalArgumentException``; also a ``TopologyError``."""


def check_name(name: str | None, what: str = "Named") -> str | None:
    """``name`` if Kafka accepts it as a processor or topic name part; else ``TopologyError``.

    The checks and messages are Java's ``Named.validate`` (a ``TopologyException``, whose
    message starts with "Invalid topology: ").
    """
    if name is None:
        return None
    if not isinstance(name, str):
        msg = f"{what} got name {name!r}; pass a str"
        raise TopologyError(msg)
    if not name:
        msg = "Invalid topology: Name is illegal, it can't be empty"
    elif name in (".", ".."):
        msg = 'Invalid topology: Name cannot be "." or ".."'
    elif len(name) > _MAX_NAME_LENGTH:
        msg = (
            f"Invalid topology: Name is illegal, it can't be longer than {_MAX_NAME_LENGTH} "
            f"characters, name: {name}"
        )
    elif not _LEGAL_NAME.fullmatch(name):
        msg = (
            f"Invalid topology: Name \"{name}\" is illegal, it contains a character other than "
            "ASCII alphanumerics, '.', '_' and '-'"
        )
    else:
        return name
    raise TopologyError(msg)


def millis(duration: Any, what: str) -> int | None:
    if duration is None:
        return None
    if isinstance(duration, timedelta):
        return int(duration.total_seconds() * 1000)
    if isinstance(duration, bool) or not isinstance(duration, int) or duration < 0:
        msg = f"{what} got {duration!r}; pass milliseconds as a non-negative int or a timedelta"
        raise TopologyError(msg)
    return duration


def _reset(policy: Any) -> str | None:
    # Java's AutoOffsetReset enums print in upper case; topology sources compare lower case.
    return policy.lower() if isinstance(policy, str) else policy


class ConfigBase:
    """Shared repr for config objects."""

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{k.lstrip('_')}={v!r}" for k, v in vars(self).items() if v not in (None, {}, ())
        )
        return f"{type(self).__name__}({fields})"


class Internal:
    """A config object's settings, read only, each under its name without the underscore
    (``internal(materialized).key_serde``).

    What the DSL's operators read of the config objects users pass, as Java's
    ``MaterializedInternal`` or ``GroupedInternal`` do: the user's classes keep their Java
    surface (factories and ``with_...`` refinements, no getters), and the operators have one
    public way in. A snapshot: config objects never change in place.
    """

    __slots__ = ("_config", "_settings")

    def __init__(self, config: ConfigBase) -> None:
        object.__setattr__(self, "_config", type(config).__name__)
        object.__setattr__(self, "_settings",
                           {name.removeprefix("_"): value for name, value in vars(config).items()})

    def __getattr__(self, name: str) -> Any:
        try:
            return self._settings[name]
        except KeyError:
            msg = f"{self._config} has no setting {name!r}"
            raise AttributeError(msg) from None

    def __setattr__(self, name: str, value: object) -> None:
        msg = f"the settings of a {self._config} are read only"
        raise AttributeError(msg)


def internal(config: ConfigBase) -> Any:
    """``config``'s settings for the DSL's operators, read only (see ``Internal``)."""
    return Internal(config)


class Named(ConfigBase):
    """A user-given name for the processor an operator creates."""

    def __init__(self, name: str | None = None) -> None:
        self._name = check_name(name)

    @staticmethod
    def as_(name: str) -> Named:
        """A ``Named`` with ``name``."""
        require_not_none(name, "name", "Named.as_")
        return Named(name)

    @hybrid_method
    def with_name(self, name: str) -> Named:
        """A copy named ``name``."""
        return Named(name)

    @staticmethod
    def validate(name: str) -> None:
        """Java's ``Named.validate``: ``TopologyError`` unless Kafka accepts ``name``."""
        require_not_none(name, "name", "Named.validate")
        check_name(name)

    @property
    def name(self) -> str | None:
        """The name, or ``None`` to let Kafka's rules generate one."""
        return self._name


class Consumed(ConfigBase):
    """How a source topic is read: serdes, timestamp extractor, offset reset, source name."""

    def __init__(self) -> None:
        self._key_serde: Any = None
        self._value_serde: Any = None
        self._timestamp_extractor: Callable[..., int] | None = None
        self._offset_reset: str | None = None
        self._name: str | None = None

    @staticmethod
    def with_(
        key_serde: Any = None,
        value_serde: Any = None,
        timestamp_extractor: Callable[..., int] | None = None,
        offset_reset: str | None = None,
    ) -> Consumed:
        """Serdes, and optionally a timestamp extractor and an offset reset policy."""
        return replaced(
            Consumed(), key_serde=key_serde, value_serde=value_serde,
            timestamp_extractor=timestamp_extractor, offset_reset=_reset(offset_reset),
        )

    @hybrid_method
    def as_(self, name: str) -> Consumed:
        """Name the source node."""
        return replaced(self, name=check_name(name, "Consumed"))

    with_name = as_

    @hybrid_method
    def with_key_serde(self, serde: Any) -> Consumed:
        """Read keys with ``serde``."""
        return replaced(self, key_serde=serde)

    @hybrid_method
    def with_value_serde(self, serde: Any) -> Consumed:
        """Read values with ``serde``."""
        return replaced(self, value_serde=serde)

    @hybrid_method
    def with_timestamp_extractor(self, extractor: Callable[..., int]) -> Consumed:
        """Take record timestamps from ``extractor(record, partition_time)``."""
        return replaced(self, timestamp_extractor=extractor)

    @hybrid_method
    def with_offset_reset_policy(self, policy: str) -> Consumed:
        """``"earliest"`` or ``"latest"``."""
        return replaced(self, offset_reset=_reset(policy))

    @property
    def name(self) -> str | None:
        """The source node name, if given."""
        return self._name


class Produced(ConfigBase):
    """How a stream is written to a topic: serdes, partitioner, sink name."""

    def __init__(self) -> None:
        self._key_serde: Any = None
        self._value_serde: Any = None
        self._partitioner: Callable[..., Any] | None = None
        self._name: str | None = None

    @staticmethod
    def with_(key_serde: Any = None, value_serde: Any = None,
              partitioner: Callable[..., Any] | None = None) -> Produced:
        """Serdes and optionally a partitioner ``(topic, key, value, num_partitions)``."""
        return replaced(Produced(), key_serde=key_serde, value_serde=value_serde,
                        partitioner=partitioner)

    @hybrid_method
    def as_(self, name: str) -> Produced:
        """Name the sink node."""
        return replaced(self, name=check_name(name, "Produced"))

    with_name = as_

    @hybrid_method
    def key_serde(self, serde: Any) -> Produced:
        """Write keys with ``serde``."""
        return replaced(self, key_serde=serde)

    with_key_serde = key_serde

    @hybrid_method
    def value_serde(self, serde: Any) -> Produced:
        """Write values with ``serde``."""
        return replaced(self, value_serde=serde)

    with_value_serde = value_serde

    @hybrid_method
    def stream_partitioner(self, partitioner: Callable[..., Any]) -> Produced:
        """Choose partitions with ``partitioner(topic, key, value, num_partitions)``."""
        return replaced(self, partitioner=partitioner)

    with_stream_partitioner = stream_partitioner


class Grouped(ConfigBase):
    """Serdes and a name for the repartition topic a grouping may need."""

    def __init__(self) -> None:
        self._key_serde: Any = None
        self._value_serde: Any = None
        self._name: str | None = None

    @staticmethod
    def with_(key_serde: Any = None, value_serde: Any = None, name: str | None = None) -> Grouped:
        """Serdes (and optionally a name) for the grouped records."""
        return replaced(Grouped(), key_serde=key_serde, value_serde=value_serde,
                        name=check_name(name, "Grouped"))

    @hybrid_method
    def as_(self, name: str) -> Grouped:
        """Name the repartition topic (``<name>-repartition``) and its nodes."""
        return replaced(self, name=check_name(name, "Grouped"))

    with_name = as_

    @hybrid_method
    def key_serde(self, serde: Any) -> Grouped:
        """Group keys use ``serde``."""
        return replaced(self, key_serde=serde)

    with_key_serde = key_serde

    @hybrid_method
    def value_serde(self, serde: Any) -> Grouped:
        """Grouped values use ``serde``."""
        return replaced(self, value_serde=serde)

    with_value_serde = value_serde


class StoreType(enum.StrEnum):
    """The store kinds ``Materialized`` can ask for (Java's ``Materialized.StoreType``)."""

    IN_MEMORY = "in_memory"
    ROCKS_DB = "persistent"


class Materialized(ConfigBase):
    """How a KTable is kept in a store: name, serdes, store type, changelog and caching."""

    StoreType = StoreType

    def __init__(self) -> None:
        self._store_name: str | None = None
        self._supplier: Any = None
        self._key_serde: Any = None
        self._value_serde: Any = None
        self._logging = True
        self._log_config: dict[str, str] = {}
        self._caching = True
        self._retention: int | None = None
        self._store_type: str | None = None
        self._history_retention: int | None = None
        self._restore_listener: Any = None

    @hybrid_method
    def as_(self, name_or_supplier: Any) -> Materialized:
        """Name the store (``str``), give the store supplier to use, or just a ``StoreType``."""
        if isinstance(name_or_supplier, StoreType):
            return replaced(self, store_type=name_or_supplier.value)
        if isinstance(name_or_supplier, str):
            return replaced(self, store_name=check_name(name_or_supplier, "Materialized"))
        require_not_none(name_or_supplier, "supplier", "Materialized.as_")
        if not hasattr(name_or_supplier, "get"):
            msg = (
                f"Materialized.as_ got {name_or_supplier!r}; pass a store name or a store "
                "supplier such as ks.Stores.in_memory_key_value_store('name')"
            )
            raise TopologyError(msg)
        return replaced(self, supplier=name_or_supplier)

    @staticmethod
    def as_versioned(name: str, history_retention: Any) -> Materialized:
        """A versioned store keeping ``history_retention`` ms of history (KIP-889)."""
        return replaced(Materialized(), store_name=check_name(name, "Materialized"),
                        history_retention=millis(history_retention, "as_versioned"))

    @staticmethod
    def with_(key_serde: Any = None, value_serde: Any = None) -> Materialized:
        """Serdes for an anonymous store."""
        return replaced(Materialized(), key_serde=key_serde, value_serde=value_serde)

    @hybrid_method
    def with_key_serde(self, serde: Any) -> Materialized:
        """Store keys with ``serde`` (``None``: the upstream or default serde)."""
        return replaced(self, key_serde=serde)

    @hybrid_method
    def with_value_serde(self, serde: Any) -> Materialized:
        """Store values with ``serde`` (``None``: the upstream or default serde)."""
        return replaced(self, value_serde=serde)

    @hybrid_method
    def with_logging_enabled(self, config: dict[str, Any] | None = None) -> Materialized:
        """Write a changelog topic, with ``config`` as its topic configs."""
        return replaced(self, logging=True, log_config={str(k): str(v)
                                                        for k, v in (config or {}).items()})

    @hybrid_method
    def with_logging_disabled(self) -> Materialized:
        """Write no changelog (the store is then not fault tolerant)."""
        return replaced(self, logging=False, log_config={})

    @hybrid_method
    def with_restore_listener(self, listener: Any) -> Materialized:
        """kslab's: tell ``listener`` about the store's changelog restores in the live runtime
        (``StoreBuilder.with_restore_listener``: Java's notifying restore callback, which its
        DSL stores cannot be given); it needs ``on_restore_start``, ``on_batch_restored`` or
        ``on_restore_end``."""
        check_restore_listener(listener, self._store_name or "(a Materialized store)")
        return replaced(self, restore_listener=listener)

    @hybrid_method
    def with_caching_enabled(self) -> Materialized:
        """Put a record cache in front of the store (the default)."""
        return replaced(self, caching=True)

    @hybrid_method
    def with_caching_disabled(self) -> Materialized:
        """Forward every update downstream at once."""
        return replaced(self, caching=False)

    @hybrid_method
    def with_retention(self, retention: Any) -> Materialized:
        """Retention of a window or session store."""
        if (isinstance(retention, timedelta) and retention < timedelta(0)) or (
                isinstance(retention, int) and not isinstance(retention, bool) and retention < 0):
            msg = "Retention must not be negative."
            raise InvalidConfigError(msg)
        return replaced(self, retention=millis(retention, "with_retention"))

    @hybrid_method
    def with_store_type(self, store_type: str) -> Materialized:
        """``"in_memory"`` or ``"persistent"`` (``"rocks_db"``)."""
        require_not_none(store_type, "store type", "Materialized.with_store_type")
        if self._supplier is not None:
            msg = "Cannot set store type when store supplier is pre-configured."
            raise InvalidConfigError(msg)
        if isinstance(store_type, StoreType):
            store_type = store_type.value
        kind = str(store_type).lower().replace("-", "_")
        kind = {"rocks_db": "persistent", "rocksdb": "persistent", "inmemory": "in_memory"}.get(
            kind, kind
        )
        if kind not in ("in_memory", "persistent"):
            msg = f"Materialized got store type {store_type!r}; use 'in_memory' or 'persistent'"
            raise TopologyError(msg)
        return replaced(self, store_type=kind)

    @property
    def store_name(self) -> str | None:
        """The store name given by the user (or its supplier's), else ``None``."""
        if self._supplier is not None:
            return self._supplier.name
        return self._store_name


class Repartitioned(ConfigBase):
    """Name, serdes, partition count and partitioner of an explicit repartition topic."""

    def __init__(self) -> None:
        self._name: str | None = None
        self._key_serde: Any = None
        self._value_serde: Any = None
        self._partitions: int | None = None
        self._partitioner: Callable[..., Any] | None = None

    @staticmethod
    def with_(key_serde: Any = None, value_serde: Any = None) -> Repartitioned:
        """Serdes of the repartition topic."""
        return replaced(Repartitioned(), key_serde=key_serde, value_serde=value_serde)

    @hybrid_method
    def as_(self, name: str) -> Repartitioned:
        """Name the topic ``<application.id>-<name>-repartition`` and its nodes."""
        return replaced(self, name=check_name(name, "Repartitioned"))

    with_name = as_

    @hybrid_method
    def with_number_of_partitions(self, partitions: int) -> Repartitioned:
        """Create the topic with ``partitions`` partitions."""
        if isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1:
            msg = f"Repartitioned got {partitions!r} partitions; pass an int >= 1"
            raise TopologyError(msg)
        return replaced(self, partitions=partitions)

    number_of_partitions = with_number_of_partitions

    @hybrid_method
    def with_stream_partitioner(self, partitioner: Callable[..., Any]) -> Repartitioned:
        """Choose partitions with ``partitioner(topic, key, value, num_partitions)``."""
        return replaced(self, partitioner=partitioner)

    stream_partitioner = with_stream_partitioner

    @hybrid_method
    def with_key_serde(self, serde: Any) -> Repartitioned:
        """The key serde."""
        return replaced(self, key_serde=serde)

    @hybrid_method
    def with_value_serde(self, serde: Any) -> Repartitioned:
        """The value serde."""
        return replaced(self, value_serde=serde)


def _not_null(value: Any, message: str) -> None:
    """Java's ``Objects.requireNonNull(value, message)`` for the config factories."""
    if value is None:
        raise MissingDslArgumentError(message)


class Branched(ConfigBase):
    """A branch's name suffix and what to do with the branch stream."""

    def __init__(self) -> None:
        self._name: str | None = None
        self._function: Callable[[Any], Any] | None = None
        self._consumer: Callable[[Any], None] | None = None

    @staticmethod
    def as_(name: str) -> Branched:
        """Name the branch (``<split name><name>``)."""
        _not_null(name, "name cannot be null")
        return replaced(Branched(), name=check_name(name, "Branched"))

    @staticmethod
    def with_function(fn: Callable[[Any], Any], name: str | None = None) -> Branched:
        """Put ``fn(branch)`` (a stream or ``None``) in the result instead of the branch."""
        _not_null(fn, "chain function cannot be null")
        return replaced(Branched(), function=fn, name=check_name(name, "Branched"))

    @staticmethod
    def with_consumer(fn: Callable[[Any], None], name: str | None = None) -> Branched:
        """Hand the branch to ``fn``; the branch is then left out of the result."""
        _not_null(fn, "chain consumer cannot be null")
        return replaced(Branched(), consumer=fn, name=check_name(name, "Branched"))


class Printed(ConfigBase):
    """Where ``print_`` writes (stdout or a file), with a label and a line format."""

    def __init__(self) -> None:
        self._label: str | None = None
        self._path: str | None = None
        self._mapper: Callable[[Any, Any], str] | None = None
        self._name: str | None = None

    @staticmethod
    def to_sys_out() -> Printed:
        """Print to standard output."""
        return Printed()

    @staticmethod
    def to_file(path: str) -> Printed:
        """Write lines to the file at ``path``, created (or emptied) now, as Java does."""
        require_not_none(path, "filePath", "Printed.to_file")
        path = str(path)
        if not path.strip():
            msg = "filePath can't be an empty string"
            raise TopologyError(msg)
        try:
            with open(path, "w", encoding="utf-8"):
                pass
        except OSError as exc:
            msg = f"Unable to write stream to file at [{path}] {exc}"
            raise TopologyError(msg) from exc
        return replaced(Printed(), path=path)

    @hybrid_method
    def with_label(self, label: str) -> Printed:
        """Start each line with ``[label]: ``."""
        require_not_none(label, "label", "Printed.with_label")
        return replaced(self, label=label)

    @hybrid_method
    def with_key_value_mapper(self, mapper: Callable[[Any, Any], str]) -> Printed:
        """Format each record as ``mapper(key, value)``."""
        require_callable(mapper, "mapper", "Printed.with_key_value_mapper")
        return replaced(self, mapper=mapper)

    @hybrid_method
    def with_name(self, name: str) -> Printed:
        """Name the printer node."""
        return replaced(self, name=check_name(name, "Printed"))
