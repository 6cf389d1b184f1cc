"""What a task commits beside each input offset: its partition time and processor metadata.

Kafka Streams stores both in the committed offset's metadata string (``TopicPartitionMetadata``:
base64 of a version byte 2, the partition time as a big-endian long, then ``ProcessorMetadata``:
an int entry count and, per entry, an int key length, the UTF-8 key and a long value). A restarted
task reads them back, so its partition time and, for example, the last window close time an
emit-final aggregation emitted survive the restart. The layout here is byte-compatible with Java's,
so kslab and Java applications can take over each other's committed offsets.
"""

from __future__ import annotations

import base64
import binascii
import logging
import struct

__all__ = ["UNKNOWN_TIME", "ProcessorMetadata", "decode_commit_metadata", "encode_commit_metadata"]

log = logging.getLogger(__name__)

UNKNOWN_TIME = -1
"""Java's ``RecordQueue.UNKNOWN``: no partition time committed."""

_VERSION_1 = 1  # partition time only
_VERSION_2 = 2  # partition time and processor metadata
_LONG = struct.Struct(">q")
_INT = struct.Struct(">i")
_HEAD = struct.Struct(">bq")


class ProcessorMetadata:
    """Named long values processors keep across restarts (Java's ``ProcessorMetadata``).

    ``put`` marks the metadata as needing a commit; a task then commits it with every input
    partition, as Java does, so whichever partition's offset is read back carries it.
    """

    __slots__ = ("needs_commit", "values")

    def __init__(self, values: dict[str, int] | None = None) -> None:
        self.values: dict[str, int] = dict(values or {})
        self.needs_commit = False

    def put(self, key: str, value: int) -> None:
        """Set ``key`` to ``value`` and mark the metadata for the next commit."""
        self.values[key] = int(value)
        self.needs_commit = True

    def get(self, key: str) -> int | None:
        """The value of ``key``, or ``None``."""
        return self.values.get(key)

    def update(self, other: ProcessorMetadata | None) -> None:
        """Merge ``other`` in, keeping the larger value of a key both hold (Java's ``update``)."""
        if other is None:
            return
        for key, value in other.values.items():
            mine = self.values.get(key)
            if mine is None or mine < value:
                self.values[key] = value

    def serialize(self) -> bytes:
        """Java's layout; empty metadata is no bytes at all."""
        if not self.values:
            return b""
        parts = [_INT.pack(len(self.values))]
        for key in sorted(self.values):
            raw = key.encode("utf-8")
            parts += (_INT.pack(len(raw)), raw, _LONG.pack(self.values[key]))
        return b"".join(parts)

    @classmethod
    def deserialize(cls, data: bytes | None) -> ProcessorMetadata:
        """Read Java's layout; ``None`` or empty bytes are empty metadata."""
        if not data:
            return cls()
        (count,), at = _INT.unpack_from(data, 0), _INT.size
        values: dict[str, int] = {}
        for _ in range(count):
            (size,) = _INT.unpack_from(data, at)
            at += _INT.size
            key = bytes(data[at:at + size]).decode("utf-8")
            at += size
            (values[key],) = _LONG.unpack_from(data, at)
            at += _LONG.size
        return cls(values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProcessorMetadata) and self.values == other.values

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.values.items())))

    def __repr__(self) -> str:
        return f"ProcessorMetadata({self.values!r})"


def encode_commit_metadata(partition_time: int, metadata: ProcessorMetadata) -> str:
    """The offset metadata string Java's ``StreamTask`` commits (version 2)."""
    raw = _HEAD.pack(_VERSION_2, partition_time) + metadata.serialize()
    return base64.b64encode(raw).decode("ascii")


def decode_commit_metadata(text: str | None) -> tuple[int, ProcessorMetadata]:
    """``(partition_time, metadata)`` from a committed offset's metadata string.

    As Java, what cannot be read (another tool's metadata, an unknown version) is logged and
    left out, an unknown partition time and empty metadata, rather than failing the task.
    """
    partition_time, metadata = UNKNOWN_TIME, ProcessorMetadata()
    if not text:
        return partition_time, metadata
    try:
        raw = base64.b64decode(text, validate=True)
        version = raw[0]
        if version in (_VERSION_1, _VERSION_2):
            partition_time = _LONG.unpack_from(raw, 1)[0]
            if version == _VERSION_2:
                metadata = ProcessorMetadata.deserialize(raw[_HEAD.size:])
        else:
            log.warning("Unsupported offset metadata version found. Supported version <= %d. "
                        "Found version %d.", _VERSION_2, version)
    except (binascii.Error, IndexError, struct.error, UnicodeDecodeError, ValueError):
        log.warning("Unsupported offset metadata found: %r", text[:80])
    return partition_time, metadata
