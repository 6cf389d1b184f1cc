"""Wire formats of the foreign-key join's internal topics and store, byte-identical to Kafka 4.0.

``SubscriptionWrapper`` travels on the subscription-registration topic and sits in the
subscription store, ``SubscriptionResponseWrapper`` on the response topic, and the subscription
store is keyed by ``CombinedKeySchema`` bytes (``len(fk) + fk + pk``). The left value's hash is
Java's ``Murmur3.hash128`` (x64 128-bit MurmurHash3, seed 104729) as two signed 64-bit ints.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Callable
from typing import Any

import mmh3

from kslab.errors import InvalidArgumentError, MissingArgumentError, SerdeError
from kslab.serdes import Serde
from kslab.serdes import resolve as resolve_serde

__all__ = [
    "CombinedKey",
    "CombinedKeySchema",
    "Instruction",
    "SubscriptionResponseWrapper",
    "SubscriptionResponseWrapperSerde",
    "SubscriptionWrapper",
    "SubscriptionWrapperSerde",
    "murmur3_hash128",
    "upgrade_from_v0",
]

DEFAULT_SEED = 104729
_HASH = struct.Struct(">qq")
_INT = struct.Struct(">i")
_NULL_HASH = 0x80
# upgrade.from values before 3.4 make Java write subscriptions in the v0 layout
_V0_UPGRADES = frozenset({"0.10.0", "0.10.1", "0.10.2", "0.11.0", "1.0", "1.1", "2.0", "2.1",
                          "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "3.0", "3.1", "3.2",
                          "3.3"})

Hash = tuple[int, int]


class NullFieldError(MissingArgumentError, InvalidArgumentError):
    """A required field is ``None`` (Java's ``NullPointerException``): a ``TypeError`` like every
    missing argument in kslab, and a ``ValueError`` for callers that check the value."""


class NullPartitionError(SerdeError, MissingArgumentError):
    """A v1 subscription without its primary partition cannot be written (Java's
    ``NullPointerException`` inside the serializer)."""


def murmur3_hash128(data: bytes, seed: int = DEFAULT_SEED) -> Hash:
    """Java's ``Murmur3.hash128(data)``: MurmurHash3 x64 128 as two signed longs (h1, h2)."""
    if seed < 0:
        msg = f"murmur3 seed must be non-negative (Java sign-extends it), got {seed}"
        raise InvalidArgumentError(msg)
    return mmh3.hash64(data, seed, x64arch=True, signed=True)


def upgrade_from_v0(upgrade_from: Any) -> bool:
    """True if ``upgrade.from`` asks for the pre-3.4 (v0) subscription layout."""
    return upgrade_from is not None and str(upgrade_from) in _V0_UPGRADES


class Instruction(enum.IntEnum):
    """What the right side does with a subscription (Java's ``SubscriptionWrapper.Instruction``)."""

    DELETE_KEY_NO_PROPAGATE = 0
    DELETE_KEY_AND_PROPAGATE = 1
    PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE = 2
    PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE = 3


def _as_hash(value: Any) -> Hash | None:
    if value is None:
        return None
    h1, h2 = value
    return (int(h1), int(h2))


class SubscriptionWrapper:
    """A left row's subscription: hash of its value, instruction, primary key, its partition."""

    VERSION_0 = 0
    VERSION_1 = 1
    CURRENT_VERSION = 1
    __slots__ = ("hash", "instruction", "primary_key", "primary_partition", "version")

    def __init__(self, hash: Any, instruction: Instruction | int, primary_key: Any,
                 primary_partition: int | None = None, *, version: int = CURRENT_VERSION) -> None:
        if instruction is None:
            msg = "instruction cannot be null: the right side needs it"
            raise NullFieldError(msg)
        if primary_key is None:
            msg = "primary_key cannot be null: the response is keyed by it"
            raise NullFieldError(msg)
        if not 0 <= version <= self.CURRENT_VERSION:
            msg = f"SubscriptionWrapper does not support version {version}"
            raise InvalidArgumentError(msg)
        self.hash = _as_hash(hash)
        self.instruction = Instruction(instruction)
        self.primary_key = primary_key
        self.primary_partition = primary_partition
        self.version = version

    def _fields(self) -> tuple[Any, ...]:
        return (self.version, self.hash, self.instruction, self.primary_key,
                self.primary_partition)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SubscriptionWrapper):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"SubscriptionWrapper(version={self.version}, primary_key={self.primary_key!r}, "
                f"instruction={self.instruction.name}, hash={self.hash}, "
                f"primary_partition={self.primary_partition})")


class SubscriptionResponseWrapper:
    """The right side's answer: the hash it answers for and the foreign value (or ``None``)."""

    CURRENT_VERSION = 0
    __slots__ = ("foreign_value", "original_value_hash", "primary_partition", "version")

    def __init__(self, original_value_hash: Any, foreign_value: Any,
                 primary_partition: int | None = None, *, version: int = CURRENT_VERSION) -> None:
        if not 0 <= version <= self.CURRENT_VERSION:
            msg = f"SubscriptionWrapper does not support version {version}"  # Java's words
            raise InvalidArgumentError(msg)
        self.original_value_hash = _as_hash(original_value_hash)
        self.foreign_value = foreign_value
        self.primary_partition = primary_partition
        self.version = version

    def _fields(self) -> tuple[Any, ...]:
        return (self.version, self.original_value_hash, self.foreign_value,
                self.primary_partition)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SubscriptionResponseWrapper):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"SubscriptionResponseWrapper(version={self.version}, "
                f"hash={self.original_value_hash}, foreign_value={self.foreign_value!r}, "
                f"primary_partition={self.primary_partition})")


def _topic(topic: str | Callable[[], str]) -> str:
    return topic() if callable(topic) else topic


class SubscriptionWrapperSerde(Serde):
    """Java's ``SubscriptionWrapperSerde``: ``{null-hash bit|7-bit version}{instruction}``
    ``{16-byte hash?}{primary key}{4-byte partition, v1 only}``; the key uses ``pk_topic``."""

    def __init__(self, pk_topic: str | Callable[[], str], pk_serde: Any,
                 upgrade_from: str | None = None) -> None:
        self.pk_topic = pk_topic
        self.pk_serde = None if pk_serde is None else resolve_serde(pk_serde, is_key=True)
        self.v0 = upgrade_from_v0(upgrade_from)

    def _config(self) -> tuple[Any, ...]:
        return (self.pk_serde, self.v0)

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The wrapper's bytes (v0 layout when the wrapper is v0 or ``upgrade.from`` < 3.4)."""
        if data is None:
            return None
        version = data.version
        if version > 0x7F:
            msg = f"SubscriptionWrapper version {version} is larger than the maximum 0x7F"
            raise SerdeError(msg, topic=topic)
        if self.pk_serde is None:
            msg = "SubscriptionWrapperSerde has no primary-key serde; give it one"
            raise SerdeError(msg, topic=topic)
        v0 = self.v0 or version == 0
        pk = self.pk_serde.serialize(_topic(self.pk_topic), data.primary_key)
        first = 0 if v0 else version
        parts = [bytes((first if data.hash is not None else first | _NULL_HASH,
                        data.instruction))]
        if data.hash is not None:
            parts.append(_HASH.pack(*data.hash))
        parts.append(pk)
        if not v0:
            if data.primary_partition is None:
                msg = (f"a v{version} subscription for primary key {data.primary_key!r} needs "
                       "its primary partition (the record has no partition metadata)")
                raise NullPartitionError(msg, topic=topic)
            parts.append(_INT.pack(data.primary_partition))
        return b"".join(parts)

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``SubscriptionWrapper`` in ``data``."""
        if data is None:
            return None
        if self.pk_serde is None:
            msg = "SubscriptionWrapperSerde has no primary-key serde; give it one"
            raise SerdeError(msg, topic=topic, raw=data)
        try:
            first, instruction = data[0], data[1]
            version = first & 0x7F
            pos = 2
            hash_ = None
            if not first & _NULL_HASH:
                hash_ = _HASH.unpack_from(data, pos)
                pos += _HASH.size
            end = len(data) - (_INT.size if version > 0 else 0)
            if end < pos:
                msg = "record too short"
                raise ValueError(msg)
            partition = _INT.unpack_from(data, end)[0] if version > 0 else None
            primary_key = self.pk_serde.deserialize(_topic(self.pk_topic), data[pos:end])
            return SubscriptionWrapper(hash_, instruction, primary_key, partition,
                                       version=version)
        except (IndexError, ValueError, struct.error) as exc:
            msg = f"bad subscription record on topic '{topic}': {exc}"
            raise SerdeError(msg, topic=topic, raw=data) from exc


class SubscriptionResponseWrapperSerde(Serde):
    """Java's ``SubscriptionResponseWrapperSerde``: ``{null-hash bit|7-bit version}``
    ``{16-byte hash?}{foreign value bytes?}``; no foreign value bytes means ``None``."""

    def __init__(self, foreign_value_serde: Any) -> None:
        self.inner = (None if foreign_value_serde is None
                      else resolve_serde(foreign_value_serde, is_key=False))

    def _config(self) -> tuple[Any, ...]:
        return (self.inner,)

    def bind_default(self, default: Any) -> SubscriptionResponseWrapperSerde:
        """This serde with its foreign value serde resolved (``None`` means ``default``)."""
        return SubscriptionResponseWrapperSerde(default if self.inner is None else self.inner)

    def serialize(self, topic: str, data: Any, headers: Any = None) -> bytes | None:
        """The response's bytes; the foreign value is serialized for ``topic``."""
        if data is None:
            return None
        if data.version < 0:
            msg = "SubscriptionResponseWrapper version cannot be negative"
            raise SerdeError(msg, topic=topic)
        value = None
        if data.foreign_value is not None:
            if self.inner is None:
                msg = "SubscriptionResponseWrapperSerde has no foreign value serde; give it one"
                raise SerdeError(msg, topic=topic)
            value = self.inner.serialize(topic, data.foreign_value, headers)
        h = data.original_value_hash
        head = (bytes((data.version,)) + _HASH.pack(*h) if h is not None
                else bytes((data.version | _NULL_HASH,)))
        return head + value if value is not None else head

    def deserialize(self, topic: str, data: bytes | None, headers: Any = None) -> Any:
        """The ``SubscriptionResponseWrapper`` in ``data``."""
        if data is None:
            return None
        try:
            first = data[0]
            pos = 1
            hash_ = None
            if not first & _NULL_HASH:
                hash_ = _HASH.unpack_from(data, pos)
                pos += _HASH.size
        except (IndexError, struct.error) as exc:
            msg = f"bad subscription response record on topic '{topic}': {exc}"
            raise SerdeError(msg, topic=topic, raw=data) from exc
        value = None
        if len(data) > pos:
            if self.inner is None:
                msg = "SubscriptionResponseWrapperSerde has no foreign value serde; give it one"
                raise SerdeError(msg, topic=topic, raw=data)
            value = self.inner.deserialize(topic, data[pos:], headers)
        try:
            return SubscriptionResponseWrapper(hash_, value, version=first & 0x7F)
        except InvalidArgumentError as exc:
            msg = f"{exc} (topic '{topic}')"
            raise SerdeError(msg, topic=topic, raw=data) from exc


class CombinedKey:
    """A subscription store key: the foreign key and the primary key of the subscribing row."""

    __slots__ = ("foreign_key", "primary_key")

    def __init__(self, foreign_key: Any, primary_key: Any) -> None:
        self.foreign_key = foreign_key
        self.primary_key = primary_key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CombinedKey):
            return NotImplemented
        return (self.foreign_key, self.primary_key) == (other.foreign_key, other.primary_key)

    def __hash__(self) -> int:
        return hash((self.foreign_key, self.primary_key))

    def __repr__(self) -> str:
        return f"CombinedKey(foreign_key={self.foreign_key!r}, primary_key={self.primary_key!r})"


class CombinedKeySchema:
    """Java's ``CombinedKeySchema``: ``{4-byte len(fk)}{fk bytes}{pk bytes}``, prefix = no pk."""

    def __init__(self, fk_topic: str | Callable[[], str], fk_serde: Any,
                 pk_topic: str | Callable[[], str], pk_serde: Any) -> None:
        self._fk_topic_spec, self._pk_topic_spec = fk_topic, pk_topic
        self.fk_serde = None if fk_serde is None else resolve_serde(fk_serde, is_key=True)
        self.pk_serde = None if pk_serde is None else resolve_serde(pk_serde, is_key=True)
        self.fk_topic = self.pk_topic = ""
        if not callable(fk_topic) and not callable(pk_topic):
            self.fk_topic, self.pk_topic = fk_topic, pk_topic

    def init(self, context: Any) -> None:
        """Resolve the pseudo topics and fill missing serdes with the default key serde."""
        self.fk_topic = _topic(self._fk_topic_spec)
        self.pk_topic = _topic(self._pk_topic_spec)
        default = context.default_key_serde
        self.fk_serde = self.fk_serde or default
        self.pk_serde = self.pk_serde or default

    def _fk_bytes(self, foreign_key: Any) -> bytes:
        if foreign_key is None:
            msg = "a combined key needs a non-null foreign key"
            raise NullFieldError(msg)
        return self.fk_serde.serialize(self.fk_topic, foreign_key)  # type: ignore[union-attr]

    def to_bytes(self, foreign_key: Any, primary_key: Any) -> bytes:
        """The store key of ``primary_key``'s subscription to ``foreign_key``."""
        fk = self._fk_bytes(foreign_key)
        if primary_key is None:
            msg = "a combined key needs a non-null primary key"
            raise NullFieldError(msg)
        pk = self.pk_serde.serialize(self.pk_topic, primary_key)  # type: ignore[union-attr]
        return _INT.pack(len(fk)) + fk + pk

    def from_bytes(self, data: bytes) -> CombinedKey:
        """The ``CombinedKey`` in ``data``."""
        (length,) = _INT.unpack_from(data)
        fk = self.fk_serde.deserialize(self.fk_topic, data[4:4 + length])  # type: ignore[union-attr]
        pk = self.pk_serde.deserialize(self.pk_topic, data[4 + length:])  # type: ignore[union-attr]
        return CombinedKey(fk, pk)

    def prefix_bytes(self, foreign_key: Any) -> bytes:
        """The prefix every subscription to ``foreign_key`` starts with."""
        fk = self._fk_bytes(foreign_key)
        return _INT.pack(len(fk)) + fk
