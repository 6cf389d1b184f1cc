"""``WindowedStreamPartitioner``: windowed keys go to the partition of their base key.

Java's ``StreamSinkNode`` gives a ``to()`` whose key serde is windowed (and that has no
partitioner of its own) this partitioner, so a windowed result topic is partitioned like the
un-windowed key: Kafka's default partitioner over the inner key's bytes, not the whole windowed
key's. On a one-partition topic it always picks partition 0, which engines may take as the
default (``default_on_one_partition``) and keep their direct writers.
"""

from __future__ import annotations

from typing import Any

from kslab.processor.partitioner import default_partition
from kslab.serdes import SessionWindowed, TimeWindowed

__all__ = ["WindowedStreamPartitioner", "windowed_partitioner"]


class WindowedStreamPartitioner:
    """``(topic, windowed_key, value, num_partitions) -> partition`` by the base key's bytes."""

    __slots__ = ("_default_partition", "_inner")

    default_on_one_partition = True

    def __init__(self, serde: TimeWindowed | SessionWindowed) -> None:
        self._inner = serde.inner
        self._default_partition = default_partition  # the producer's own formula

    def __call__(self, topic: str, key: Any, value: Any, num_partitions: int) -> int:
        """Kafka's ``BuiltInPartitioner.partitionForKey`` of the serialized base key."""
        return self._default_partition(self._inner.serialize(topic, key.key), num_partitions)

    def __repr__(self) -> str:
        return f"WindowedStreamPartitioner({self._inner!r})"


def windowed_partitioner(key_serde: Any, partitioner: Any) -> Any:
    """The partitioner a ``to()`` sink gets: its own, else ``WindowedStreamPartitioner`` for a
    windowed key serde, else none (the default partitioner), as Java's ``StreamSinkNode``."""
    if partitioner is None and isinstance(key_serde, TimeWindowed | SessionWindowed):
        return WindowedStreamPartitioner(key_serde)
    return partitioner
