"""Task state on disk and its restoration: directories, checkpoint files, changelog replay.

A task's persistent stores live in ``state.dir/<application.id>/<task id>/``; its checkpoint
file there records, per changelog partition, an offset from which replaying the changelog
rebuilds the stores. Invariant: restoration never trusts a reported high watermark to decide it
is done: it reads until the broker's fetch reports the partition's end (partition EOF), because
some brokers (Tansu) under-report the watermark from ListOffsets. A checkpoint offset may lie
before the true end (replaying a changelog tail is idempotent), never after it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kslab.errors import StreamsError
from kslab.records import Headers
from kslab.state.buffer import ChangelogRecord

__all__ = ["ChangelogReader", "Checkpoint", "CommittedMetadata", "process_id", "task_dir"]

log = logging.getLogger("kslab.runtime")

CHECKPOINT = ".checkpoint"
_VERSION = 0


def task_dir(root: Path, task_id: Any) -> Path:
    """``root/<task id>`` (``0_1``), created on demand."""
    path = root / str(task_id)
    path.mkdir(parents=True, exist_ok=True)
    return path


def process_id(root: Path) -> str:
    """This instance's stable id, kept in ``kafka-streams-process-metadata`` under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "kafka-streams-process-metadata"
    with contextlib.suppress(OSError, ValueError, KeyError):
        return str(json.loads(path.read_text())["processId"])
    pid = str(uuid.uuid4())
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"processId": pid}))
    os.replace(tmp, path)
    return pid


class Checkpoint:
    """Kafka's ``OffsetCheckpoint`` text file: version, count, then ``topic partition offset``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[tuple[str, int], int]:
        """The offsets in the file; empty when there is none or it is unreadable."""
        try:
            lines = self.path.read_text().splitlines()
        except OSError:
            return {}
        try:
            if int(lines[0]) != _VERSION:
                return {}
            count = int(lines[1])
            out = {}
            for line in lines[2:2 + count]:
                topic, partition, offset = line.rsplit(" ", 2)
                out[(topic, int(partition))] = int(offset)
        except (IndexError, ValueError):
            log.warning("ignoring corrupt checkpoint file %s", self.path)
            return {}
        return out

    def write(self, offsets: dict[tuple[str, int], int]) -> None:
        """Replace the file atomically with ``offsets``."""
        lines = [str(_VERSION), str(len(offsets))]
        lines += [f"{t} {p} {o}" for (t, p), o in sorted(offsets.items())]
        tmp = self.path.with_name(CHECKPOINT + ".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        os.replace(tmp, self.path)

    def delete(self) -> None:
        """Remove the file (under exactly-once a missing file means: do not trust local state)."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class CommittedMetadata:
    """The offset metadata this task last committed, per input partition, kept beside its state.

    Kafka keeps a committed offset's metadata string with the offset; some brokers (Tansu)
    accept the commit but hand back no metadata. A restarted task takes the local copy only
    for a partition whose broker-side offset equals the one saved with it, so the broker's
    own metadata always wins and a commit that never happened (an aborted transaction) is
    never trusted.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.saved: dict[tuple[str, int], tuple[int, str]] = {}

    def read(self) -> dict[tuple[str, int], tuple[int, str]]:
        """``(offset, metadata)`` per partition; empty when missing or unreadable."""
        try:
            data = json.loads(self.path.read_text())
            return {(topic, int(partition)): (int(offset), str(text))
                    for topic, partition, offset, text in data}
        except (OSError, ValueError, TypeError):
            return {}

    def save(self, committed: dict[tuple[str, int], tuple[int, str]]) -> None:
        """Record ``committed`` (merged into what was saved) and replace the file atomically."""
        self.saved.update(committed)
        rows = [[t, p, o, m] for (t, p), (o, m) in sorted(self.saved.items())]
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(rows))
        os.replace(tmp, self.path)

    @staticmethod
    def resolve(broker: dict[tuple[str, int], tuple[int, str | None]],
                local: dict[tuple[str, int], tuple[int, str]]) -> dict[tuple[str, int], str]:
        """The metadata to start from per partition with a committed offset: the broker's,
        else the local copy saved with that same offset."""
        out: dict[tuple[str, int], str] = {}
        for tp, (offset, text) in broker.items():
            if offset < 0:
                continue  # nothing committed
            if not text:
                saved = local.get(tp)
                text = saved[1] if saved is not None and saved[0] == offset else None
            if text:
                out[tp] = text
        return out


def wipe_store(directory: Path, store: str) -> None:
    """Delete the on-disk copy of ``store`` in a task directory."""
    shutil.rmtree(directory / store, ignore_errors=True)


class ChangelogReader:
    """Replays changelog partitions into stores with a consumer that is in no group.

    ``restore(parts, apply)`` reads each ``(topic, partition)`` from its start offset until
    the broker reports the end, handing ``(key, value, timestamp)`` batches to
    ``apply(topic, partition, batch)``; returns the offset after the last record read.

    A partition that gives neither records nor its end is waited for, as Kafka Streams waits
    for a slow restore (it is not an error): the poll backs off to ``MAX_BACKOFF`` s, a warning
    names each waiting partition, its offset and what it waits for (first after ``WARN_AFTER``
    s, then at doubling intervals), ``waiting`` shows since when, and ``on_wait`` hears of it.
    Only ``idle_timeout`` (for one-off reads such as interactive queries' routing table) turns
    the wait into an error; ``halt`` ends it, returning the positions reached.
    """

    WARN_AFTER = 10.0
    MAX_BACKOFF = 0.5

    def __init__(self, config: dict[str, Any], *, idle_timeout: float | None = None) -> None:
        from confluent_kafka import Consumer

        conf = {
            "enable.partition.eof": True,
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 10,
            "group.id": "kslab-restore",  # never joins: partitions are assigned by hand
            **config,
        }
        self._committed_only = conf.get("isolation.level") == "read_committed"
        self._consumer = Consumer(conf)
        self._idle_timeout = idle_timeout
        self.restored = 0
        # (topic, partition) -> monotonic time since which it gave neither records nor its end
        self.waiting: dict[tuple[str, int], float] = {}

    def end_offset(self, topic: str, partition: int) -> int:
        """The broker's reported high watermark (a lower bound on Tansu, exact on Kafka)."""
        from confluent_kafka import TopicPartition

        _, high = self._consumer.get_watermark_offsets(
            TopicPartition(topic, partition), timeout=10, cached=False)
        return max(high, 0)

    def restore(self, starts: dict[tuple[str, int], int],
                apply: Callable[[str, int, list[tuple[Any, ...]]], None],
                progress: Callable[[str, int, int], None] | None = None,
                *, with_headers: bool = False, halt: threading.Event | None = None,
                on_wait: Callable[[str, int, int, float], None] | None = None,
                ) -> dict[tuple[str, int], int]:
        """Read every partition from its start offset to its end; return the end positions
        (the positions reached, when ``halt`` was set first).

        Records are ``(key, value, timestamp)``; ``with_headers`` makes them ``ChangelogRecord``s
        (the same three fields first, then headers, topic, partition and offset), which stores
        reading a format version header (the suppression buffer) need. ``on_wait(topic,
        partition, offset, waited_s)`` is called with each stall warning.
        """
        from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition

        if not starts:
            return {}
        consumer = self._consumer
        positions = dict(starts)
        consumer.assign([TopicPartition(t, p, o if o > 0 else OFFSET_BEGINNING)
                         for (t, p), o in starts.items()])
        pending = set(starts)
        last_progress = time.monotonic()
        backoff, warn_at = 0.05, self.WARN_AFTER
        try:
            while pending and not (halt is not None and halt.is_set()):
                messages = consumer.consume(10000, backoff)
                if not messages:
                    idle = time.monotonic() - last_progress
                    backoff = min(backoff * 2, self.MAX_BACKOFF)
                    if self._idle_timeout is not None and idle > self._idle_timeout:
                        msg = (f"restoring {sorted(pending)} got no data and no end of "
                               f"partition for {self._idle_timeout:.0f} s; check the broker")
                        raise StreamsError(msg)
                    for tp in pending:
                        self.waiting.setdefault(tp, last_progress)
                    if idle >= warn_at:
                        warn_at *= 2
                        self._warn_stalled(sorted(pending), positions, idle, on_wait)
                    continue
                last_progress = time.monotonic()
                backoff, warn_at = 0.05, self.WARN_AFTER
                batches: dict[tuple[str, int], list[tuple[Any, ...]]] = {}
                for message in messages:
                    error = message.error()
                    tp = (message.topic(), message.partition())
                    self.waiting.pop(tp, None)
                    if error is not None:
                        if error.code() == KafkaError._PARTITION_EOF:
                            positions[tp] = max(positions[tp], message.offset())
                            pending.discard(tp)
                            continue
                        msg = f"restoring {tp[0]}-{tp[1]} failed: {error}"
                        raise StreamsError(msg, topic=tp[0], partition=tp[1])
                    batches.setdefault(tp, []).append(
                        _changelog_record(message) if with_headers
                        else (message.key(), message.value(), message.timestamp()[1]))
                    positions[tp] = message.offset() + 1
                for (topic, partition), batch in batches.items():
                    apply(topic, partition, batch)
                    self.restored += len(batch)
                    if progress is not None:
                        progress(topic, partition, len(batch))
        finally:
            for tp in starts:
                self.waiting.pop(tp, None)
            consumer.unassign()
        return positions

    def _warn_stalled(self, pending: list[tuple[str, int]], positions: dict[tuple[str, int], int],
                      idle: float, on_wait: Callable[[str, int, int, float], None] | None,
                      ) -> None:
        """Say which partitions the restore waits for, at which offset, and for what."""
        reason = (
            "a read_committed reader stops at the last stable offset, so an open transaction "
            "on it (a producer that died mid-transaction and was not yet fenced or timed out "
            "by the broker) holds it back until the transaction ends"
            if self._committed_only else
            "the broker answers its fetches with no record and no end of partition")
        for topic, partition in pending:
            log.warning(
                "restoring changelog %s-%d: no record and no end of partition at offset %d for "
                "%.0f s; %s. Still waiting (a slow restore is not an error); close() stops it",
                topic, partition, positions[(topic, partition)], idle, reason)
            if on_wait is not None:
                on_wait(topic, partition, positions[(topic, partition)], idle)

    def close(self) -> None:
        """Close the consumer."""
        self._consumer.close()


def _changelog_record(message: Any) -> ChangelogRecord:
    """A consumed changelog message as the ``ChangelogRecord`` stores restore from."""
    return ChangelogRecord(message.key(), message.value(), message.timestamp()[1],
                           Headers(message.headers() or ()), message.topic(),
                           message.partition(), message.offset())


def batched(items: Iterable[Any], size: int) -> Iterable[list[Any]]:
    """``items`` in lists of at most ``size``."""
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
