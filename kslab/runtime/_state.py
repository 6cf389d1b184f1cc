"""Task state on disk and its restoration: directories, checkpoint files, changelog replay.

A task's persistent stores live in ``state.dir/<application.id>/<task id>/``; its checkpoint
file there records, per changelog partition, an offset from which replaying the changelog
rebuilds the stores. Invariant: restoration never trusts a reported high watermark to decide it
is done: it reads until the broker's fetch reports the partition's end (partition EOF), because
some brokers (Tansu) under-report the watermark from ListOffsets. A checkpoint offset may lie
before the true end (replaying a changelog tail is idempotent), never after it.

Local state is used only when it can be trusted: ``.kslab-stores`` in a task directory names
the application and each store's type, so a directory of another application or a store of
another type is wiped and restored in full, as is every changelogged store beside a corrupt or
truncated checkpoint file; ``StateDirLock`` keeps a second live instance out of the directory.
A restore that stalls waits (and says so) rather than failing: a slow restore is not an error.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
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

__all__ = [
    "ChangelogReader", "Checkpoint", "CommittedMetadata", "StateDirLock", "check_local_stores",
    "clean_state_dir", "process_id", "store_type", "task_dir",
]

log = logging.getLogger("kslab.runtime")

CHECKPOINT = ".checkpoint"
_VERSION = 0


def task_dir(root: Path, task_id: Any) -> Path:
    """``root/<task id>`` (``0_1``), created on demand."""
    path = root / str(task_id)
    path.mkdir(parents=True, exist_ok=True)
    return path


def clean_state_dir(root: Path) -> None:
    """Delete an application's local state under ``root`` (``state.dir/<application.id>``), as
    Java's ``StateDirectory.clean()``: every task directory and the global one, then ``root``
    itself only if nothing else is left in it (a file of the user's stays, and with it the
    process id)."""
    if not root.is_dir():
        return
    for child in root.iterdir():
        if child.is_dir() and (child.name == "global" or _TASK_DIR.fullmatch(child.name)):
            shutil.rmtree(child, ignore_errors=True)
    with contextlib.suppress(OSError):  # not empty: kept, as Java's File.delete()
        root.rmdir()


_TASK_DIR = re.compile(r"\d+_\d+")


def process_id(root: Path) -> str:
    """This instance's stable id, kept in ``kafka-streams-process-metadata`` under ``root``
    (created, and checked to be writable, here: a state directory kslab cannot write is a
    clear error when the app is made, not a failed task later)."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".kslab-write-test-{uuid.uuid4().hex}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        msg = (f"state.dir: cannot write the state directory {root} ({exc}); make it a "
               "writable directory or set state.dir to one")
        raise StreamsError(msg) from exc
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
        self.corrupt: str | None = None

    def read(self) -> dict[tuple[str, int], int]:
        """The offsets in the file; empty when there is none or it is unreadable, and then
        ``corrupt`` says why (a truncated file, a bad line, an unknown version)."""
        self.corrupt = None
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            return self._corrupt(f"unreadable ({exc})")
        lines = text.splitlines()
        try:
            if int(lines[0]) != _VERSION:
                return self._corrupt(f"version {lines[0]!r}, not {_VERSION}")
            count = int(lines[1])
            out = {}
            for line in lines[2:2 + count]:
                topic, partition, offset = line.rsplit(" ", 2)
                out[(topic, int(partition))] = int(offset)
        except (IndexError, ValueError):
            return self._corrupt("a line that is not 'topic partition offset'")
        if len(out) != count or len(lines) != 2 + count:
            return self._corrupt(f"{len(out)} of {count} entries")
        if not text.endswith("\n"):  # the last offset may have lost digits
            return self._corrupt("truncated inside its last entry")
        return out

    def _corrupt(self, reason: str) -> dict[tuple[str, int], int]:
        self.corrupt = reason
        log.warning("checkpoint file %s is corrupt: %s", self.path, reason)
        return {}

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

    The file is a log: each save appends one line, the whole copy as a JSON list, and a read
    takes the last line that parses (one cut short by a crash never does: a JSON list ends
    with its last character). Saves come with every commit (ten a second under exactly-once),
    and replacing an ext4 file (truncating it, or renaming another over it) waits for the
    disk: 1.5-4 ms a save against microseconds for an append. The first save of a process and
    every ``COMPACT_EVERY``-th after it rewrite the file with the current copy alone (written
    beside it, then renamed over it).
    """

    COMPACT_EVERY = 1000

    def __init__(self, path: Path) -> None:
        self.path = path
        self.saved: dict[tuple[str, int], tuple[int, str]] = {}
        self._appends: int | None = None  # lines appended since the last rewrite

    def read(self) -> dict[tuple[str, int], tuple[int, str]]:
        """``(offset, metadata)`` per partition from the last complete save; empty when
        missing or unreadable."""
        try:
            lines = self.path.read_text().splitlines()
        except OSError:
            return {}
        for line in reversed(lines):
            try:
                return {(topic, int(partition)): (int(offset), str(text))
                        for topic, partition, offset, text in json.loads(line)}
            except (ValueError, TypeError):
                continue
        return {}

    def save(self, committed: dict[tuple[str, int], tuple[int, str]]) -> None:
        """Record ``committed`` (merged into what was saved): one line appended, or the file
        rewritten with it alone (the first save, then every ``COMPACT_EVERY``-th)."""
        self.saved.update(committed)
        rows = [[t, p, o, m] for (t, p), (o, m) in sorted(self.saved.items())]
        line = json.dumps(rows) + "\n"
        if self._appends is not None and self._appends < self.COMPACT_EVERY:
            with open(self.path, "a") as log:
                log.write(line)
            self._appends += 1
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(line)
        os.replace(tmp, self.path)
        self._appends = 0

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


class StateDirLock:
    """An exclusive lock on an application's state directory (``.lock``, as Java's
    ``StateDirectory``), held from ``start()`` until the stream threads have ended, so two live
    instances never share task directories; the kernel drops it when the process dies."""

    def __init__(self, root: Path) -> None:
        self.path = root / ".lock"
        self._file: Any = None

    def acquire(self) -> None:
        """Take the lock, or raise naming the directory and what to do."""
        import fcntl

        handle = self.path.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            handle.close()
            msg = (f"state.dir: the state directory {self.path.parent} is locked by another "
                   f"live KafkaStreams instance of this application ({exc.strerror}); give "
                   "each instance on this machine its own state.dir, or close the other one")
            raise StreamsError(msg) from exc
        self._file = handle

    def release(self) -> None:
        """Give the lock up (closing the file releases it)."""
        handle, self._file = self._file, None
        if handle is not None:
            handle.close()


STORES_FILE = ".kslab-stores"


def check_local_stores(directory: Path, application_id: str, stores: dict[str, str],
                       checkpoint: Checkpoint, logged: set[str]) -> set[str]:
    """The persistent stores of a task directory whose local copy must not be used: all of
    them when the directory belongs to another application id, each one written as another
    store type (``stores``: name -> type), and every changelogged one (``logged``) when the
    checkpoint file is corrupt. Each is logged with the reason; the caller wipes them and
    restores them in full from their changelogs. Records this application and the types in
    ``.kslab-stores`` for the next start (a directory without the file is trusted, as kslab
    before it wrote none)."""
    if not stores:
        return set()
    path = directory / STORES_FILE
    try:
        saved = json.loads(path.read_text())
        owner, types = saved["application.id"], dict(saved["stores"])
    except FileNotFoundError:
        owner, types = application_id, {}
    except (OSError, ValueError, KeyError, TypeError):
        owner, types = None, {}  # unreadable: trust nothing
    bad: dict[str, str] = {}
    for name, kind in stores.items():
        if owner != application_id:
            bad[name] = f"the directory belongs to application.id {owner!r}"
        elif types.get(name, kind) != kind:
            bad[name] = f"it was written as a {types[name]}, the topology makes a {kind}"
        elif checkpoint.corrupt is not None and name in logged:
            bad[name] = f"the checkpoint file is corrupt ({checkpoint.corrupt})"
    for name, reason in sorted(bad.items()):
        log.warning("store %s in %s cannot be used: %s; wiping it and restoring it in full "
                    "from its changelog", name, directory, reason)
    if bad:
        checkpoint.delete()
    tmp = path.with_name(STORES_FILE + ".tmp")
    tmp.write_text(json.dumps({"application.id": application_id,
                               "stores": {**(types if owner == application_id else {}),
                                          **stores}}))
    os.replace(tmp, path)
    return set(bad)


def store_type(builder: Any) -> str:
    """What a store builder makes, as far as its bytes on disk go: the builder class and the
    supplier's (``TimestampedKeyValueStoreBuilder/RocksDBKeyValueBytesStoreSupplier``, with
    ``+timestamped`` for a timestamped backend)."""
    supplier = getattr(builder, "supplier", None)
    stamped = "+timestamped" if getattr(supplier, "timestamped", False) else ""
    return f"{type(builder).__name__}/{type(supplier).__name__}{stamped}"


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
            # as Java's restore consumer ("none"): an offset out of range is an error, never a
            # silent jump to the end that would leave a store without records it should have
            "auto.offset.reset": "error",
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
                limits: dict[tuple[str, int], int] | None = None,
                ) -> dict[tuple[str, int], int]:
        """Read every partition from its start offset to its end, or to its offset in
        ``limits`` (exclusive: a source topic serving as a changelog restores up to the
        committed offset, as Java's); return the end positions (the positions reached, when
        ``halt`` was set first).

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
        limits = limits or {}
        pending = {tp for tp, start in starts.items() if start < limits.get(tp, start + 1)}
        if not pending:
            return positions
        consumer.assign([TopicPartition(t, p, o if o > 0 else OFFSET_BEGINNING)
                         for (t, p), o in starts.items() if (t, p) in pending])
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
                        if error.code() == KafkaError._AUTO_OFFSET_RESET:
                            msg = (f"restoring {tp[0]}-{tp[1]} from offset {positions[tp]} "
                                   "failed: the offset is outside the partition (the changelog "
                                   "was deleted and recreated, or lost records to retention) "
                                   f"({error}); close the app and call cleanup() to restore "
                                   "its stores in full")
                        raise StreamsError(msg, topic=tp[0], partition=tp[1])
                    if tp not in pending:
                        continue  # past its limit
                    limit = limits.get(tp)
                    if limit is not None and message.offset() >= limit:
                        positions[tp] = limit  # (a compacted gap or a marker ends on it)
                        pending.discard(tp)
                        continue
                    batches.setdefault(tp, []).append(
                        _changelog_record(message) if with_headers
                        else (message.key(), message.value(), message.timestamp()[1]))
                    positions[tp] = message.offset() + 1
                    if limit is not None and positions[tp] >= limit:
                        pending.discard(tp)
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
        reason += ("; on a broker that answers a fetch past the end with nothing (Tansu), an "
                   "offset past the end of a recreated changelog looks the same")
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
