"""Standby tasks (``num.standby.replicas``): warm copies of other instances' stores.

One updater thread per ``KafkaStreams`` reads the hosts topic (the group's members and their
partitions, ``kslab.runtime._placement``) and, for every task the placement gives this instance
as a standby, opens the task's stores only (no processor runs) and applies its changelogs to them
as they grow, from the checkpoint on, writing checkpoints as an active task does. When a stream
thread of this instance is given one of these tasks as active it takes the standby over
(``release``): the updater flushes the stores, writes their checkpoint and closes them, or, for
in-memory stores, hands over a snapshot and the changelog position, so the active task restores
only the tail written since. The placement is acted on only while the client is RUNNING and
no member published for a second, so a view read halfway through a rebalance moves nothing.
The same thread runs the instance's warm-up before its stream threads join
(``kslab.runtime._warmup``): warm-up replicas are standbys opened for that reason.
Invariant: a task is never open as a standby and as an active task
in this instance at once; a task a local thread holds is ``claimed`` until the thread closes it.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from kslab.core.task import StreamTask
from kslab.errors import StoreError, StreamsError
from kslab.records import Headers, TaskId
from kslab.runtime._placement import live_members, owners, standby_processes
from kslab.runtime._state import Checkpoint, task_dir, wipe_store
from kslab.state.buffer import ChangelogRecord

if TYPE_CHECKING:
    from kslab.runtime._placement import Member
    from kslab.runtime._warmup import WarmUp
    from kslab.runtime.streams import KafkaStreams

__all__ = ["Handoff", "StandbyUpdater", "SuspendReason"]

log = logging.getLogger("kslab.runtime")

_CHECKPOINT_EVERY = 10.0  # s between checkpoints of a standby's persistent stores
_REPLAN_EVERY = 1.0  # s between placements when nothing was published
# s without a new hosts entry before the placement acts: in a rebalance the members publish one
# after another, and a view read halfway could close a standby only to open it again
_SETTLE = 1.0


class SuspendReason(enum.Enum):
    """Why a standby stopped updating (Kafka's ``StandbyUpdateListener.SuspendReason``)."""

    MIGRATED = 0  # the placement moved it to another instance
    PROMOTED = 1  # a stream thread of this instance took it over as an active task


class Handoff(NamedTuple):
    """What a released standby leaves to the active task that replaces it: the changelog
    position per partition and, for in-memory stores, a snapshot of their contents (persistent
    stores leave their checkpoint file instead)."""

    positions: dict[tuple[str, int], int]
    snapshots: dict[str, object]


class _NoOutput:
    """A standby's record collector: a standby never writes."""

    def send(self, topic: str, *_: Any) -> None:
        msg = f"a standby task wrote to '{topic}'; standby tasks only read changelogs"
        raise StreamsError(msg, topic=topic)

    def partitions_for(self, topic: str) -> int:
        msg = f"a standby task asked for the partitions of '{topic}'; standby tasks only read"
        raise StreamsError(msg, topic=topic)


class _Standby:
    """One standby task: its stores, changelogs and position."""

    __slots__ = ("changelogs", "checkpoint", "persistent", "positions", "task")

    def __init__(self, task: StreamTask, changelogs: dict[str, str], persistent: set[str],
                 checkpoint: Checkpoint, positions: dict[tuple[str, int], int]) -> None:
        self.task = task
        self.changelogs = changelogs
        self.persistent = persistent
        self.checkpoint = checkpoint
        self.positions = positions


class StandbyUpdater(threading.Thread):
    """Keeps this instance's standby tasks up to date; see the module doc."""

    def __init__(self, streams: KafkaStreams, replicas: int, warmup: WarmUp | None = None
                 ) -> None:
        super().__init__(name=f"{streams.client_id}-StandbyUpdater", daemon=True)
        self.streams = streams
        self.replicas = replicas
        self.warmup = warmup  # run before the stream threads join, if any
        self.tasks: dict[TaskId, _Standby] = {}
        self.listener: Any = None  # a StandbyUpdateListener, set before start()
        self.updates = 0  # changelog records applied to standbys
        self.failed: BaseException | None = None
        self._entries: dict[str, dict[str, Any]] = {}  # the hosts topic: thread -> entry
        self._hosts_position = 0
        self._hosts_end: int | None = None  # the hosts topic's end when the updater started
        self._lock = threading.RLock()
        self._claimed: set[TaskId] = set()
        self._routes: dict[tuple[str, int], tuple[TaskId, str]] = {}  # changelog -> standby
        self._halt = threading.Event()
        self._reassign = True
        self._replan = True
        self._last_plan = 0.0
        self._last_entry = 0.0  # monotonic time of the last hosts entry read
        self._last_checkpoint = time.monotonic()
        self._consumer: Any = None

    # -- what stream threads ask --------------------------------------------------------------

    def release(self, task_id: TaskId) -> Handoff | None:
        """A local stream thread takes ``task_id`` as active: stop its standby (if any) and
        return what the active task starts from; the task stays claimed until ``unclaim``."""
        with self._lock:
            self._claimed.add(task_id)
            standby = self.tasks.pop(task_id, None)
            if standby is None:
                return None
            self._reassign = True
            return self._suspend(task_id, standby, SuspendReason.PROMOTED)

    def unclaim(self, task_id: TaskId) -> None:
        """The local stream thread closed ``task_id``: it may become a standby here again."""
        with self._lock:
            self._claimed.discard(task_id)
            self._replan = True

    def stores(self, name: str) -> list[tuple[TaskId, Any]]:
        """``(task id, store)`` for store ``name`` in every standby task, by task id."""
        with self._lock:
            return [(tid, s.task.stores[name]) for tid, s in sorted(self.tasks.items())
                    if name in s.task.stores]

    def placement(self) -> dict[TaskId, list[str]]:
        """Standby task -> the hosts (application.server) the placement gives it to."""
        with self._lock:
            members = live_members(self._entries)
        hosts = {m.process: m.host for m in members}
        return {tid: [hosts.get(p, "") for p in processes]
                for tid, processes in self._plan(members).items()}

    def shutdown(self) -> None:
        """Ask the thread to checkpoint its standbys and end."""
        self._halt.set()

    # -- what the warm-up asks (on this thread) ----------------------------------------------

    def members(self) -> list[Member]:
        """The group's members as the hosts topic shows them."""
        with self._lock:
            return live_members(self._entries)

    def hosts_read(self) -> bool:
        """Whether the hosts topic was read up to where it ended when the updater started."""
        if self._hosts_end is None:
            from confluent_kafka import TopicPartition

            _, high = self._consumer.get_watermark_offsets(
                TopicPartition(self.streams.hosts_topic, 0), timeout=5)
            self._hosts_end = max(high or 0, 0)
        return self._hosts_position >= self._hosts_end

    def positions(self, task_id: TaskId) -> dict[tuple[str, int], int] | None:
        """The changelog positions of the standby (or warm-up) of ``task_id``; ``None``
        without one."""
        with self._lock:
            standby = self.tasks.get(task_id)
            return None if standby is None else dict(standby.positions)

    def end_offsets(self, tps: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """Each changelog partition's end, as the broker reports it now (0 if it cannot)."""
        from confluent_kafka import TopicPartition

        out = {}
        for tp in tps:
            try:
                _, high = self._consumer.get_watermark_offsets(TopicPartition(*tp), timeout=5)
            except Exception:
                high = 0
            out[tp] = max(high or 0, 0)
        return out

    def open_warmup(self, task_id: TaskId) -> bool:
        """Open a warm-up replica of ``task_id`` (a standby, whatever the placement says)."""
        with self._lock:
            if task_id in self.tasks or task_id in self._claimed:
                return task_id in self.tasks
            opened = self._open(task_id)
            if opened:
                self._reassign = True
            return opened

    # -- the thread ---------------------------------------------------------------------------

    def run(self) -> None:
        """Read the hosts topic and the standbys' changelogs until ``shutdown``."""
        from confluent_kafka import Consumer

        streams = self.streams
        conf = {"enable.partition.eof": False, "enable.auto.commit": False,
                "fetch.wait.max.ms": 100, "group.id": f"{streams.application_id}-standby",
                **streams.restore_config(),
                "client.id": f"{streams.client_id}-standby-consumer"}
        self._consumer = Consumer(conf)
        try:
            while not self._halt.is_set():
                if self._reassign:
                    self._assign()
                messages = self._consumer.consume(1000, 0.1)
                if messages:
                    self._apply(messages)
                now = time.monotonic()
                if self.warmup is not None:
                    self.warmup.step(self)
                if self._replan or now - self._last_plan >= _REPLAN_EVERY:
                    self._update_placement()
                if now - self._last_checkpoint >= _CHECKPOINT_EVERY:
                    self._last_checkpoint = now
                    self._checkpoint_all()
        except BaseException as exc:
            self.failed = exc
            log.error("the standby updater of %s failed: %s", streams.client_id, exc,
                      exc_info=exc)
        finally:
            with self._lock:
                for task_id in list(self.tasks):
                    self._close(task_id, SuspendReason.MIGRATED)
            self._consumer.close()

    def _assign(self) -> None:
        from confluent_kafka import OFFSET_BEGINNING, TopicPartition

        with self._lock:
            self._reassign = False
            wanted = [TopicPartition(self.streams.hosts_topic, 0,
                                     self._hosts_position or OFFSET_BEGINNING)]
            for standby in self.tasks.values():
                wanted += [TopicPartition(t, p, o if o > 0 else OFFSET_BEGINNING)
                           for (t, p), o in standby.positions.items()]
        self._consumer.assign(wanted)

    def _apply(self, messages: list[Any]) -> None:
        import json

        hosts = self.streams.hosts_topic
        batches: dict[tuple[str, int], list[Any]] = {}
        for message in messages:
            if message.error() is not None:
                log.warning("standby updater of %s: %s", self.streams.client_id,
                            message.error())
                continue
            topic = message.topic()
            if topic == hosts:
                self._hosts_position = message.offset() + 1
                key = (message.key() or b"").decode()
                try:
                    entry = json.loads(message.value()) if message.value() else {}
                except ValueError:
                    log.warning("ignoring an unreadable entry of %s: %r", hosts, message.value())
                    continue
                with self._lock:  # placement() reads the entries from other threads
                    self._entries[key] = entry
                self._last_entry = time.monotonic()
                self._replan = True
                continue
            batches.setdefault((topic, message.partition()), []).append(ChangelogRecord(
                message.key(), message.value(), message.timestamp()[1],
                Headers(message.headers() or ()), topic, message.partition(),
                message.offset()))
        if not batches:
            return
        with self._lock:
            for tp, batch in batches.items():
                self._apply_batch(tp, batch)

    def _apply_batch(self, tp: tuple[str, int], batch: list[ChangelogRecord]) -> None:
        route = self._routes.get(tp)
        standby = self.tasks.get(route[0]) if route is not None else None
        if standby is None:
            return  # a standby released while its records were in flight
        store = route[1]  # type: ignore[index]
        standby.task.restore_changelog(store, batch)
        end = batch[-1].offset + 1
        standby.positions[tp] = end
        self.updates += len(batch)
        if self.listener is not None:
            self._tell("on_batch_loaded", tp, store, standby.task.id, end - 1, len(batch),
                       self._end_offset(tp))

    # -- placement ----------------------------------------------------------------------------

    def _plan(self, members: list[Any]) -> dict[TaskId, list[str]]:
        """Task -> standby processes, for the tasks with logged stores and an active owner
        (a task whose owner left is in none until a member claims it)."""
        plan = self.streams.plan
        owned = owners(members)
        out: dict[TaskId, list[str]] = {}
        for group in plan.groups:
            if not plan.changelogs_of(group.id):
                continue
            source = next(plan.real(t) for t in group.source_topics)
            count = plan.task_counts[group.id]
            for partition in range(count):
                owner = owned.get((source, partition))
                if owner is None:
                    continue
                out[TaskId(group.id, partition)] = standby_processes(
                    partition, count, owner.process, members, self.replicas)
        return out

    def _update_placement(self) -> None:
        streams = self.streams
        self._last_plan = time.monotonic()
        if streams.state.name != "RUNNING" or self._last_plan - self._last_entry < _SETTLE:
            return  # act once the group and the published view settled
        self._replan = False
        with self._lock:
            members = live_members(self._entries)
        me = streams.process_id
        placed = self._plan(members)
        wanted = {tid for tid, processes in placed.items() if me in processes}
        active = set(streams.local_tasks())
        with self._lock:
            # a task between owners keeps its standbys: the next owner may be this instance
            wanted |= set(self.tasks) - set(placed)
            wanted -= self._claimed | active
            for task_id in sorted(set(self.tasks) - wanted):
                self._close(task_id, SuspendReason.MIGRATED)
                self._reassign = True
            for task_id in sorted(wanted - set(self.tasks)):
                if self._open(task_id):
                    self._reassign = True

    def _open(self, task_id: TaskId) -> bool:
        streams = self.streams
        plan = streams.plan
        group = plan.group(task_id.subtopology)
        changelogs = plan.changelogs_of(task_id.subtopology)
        directory = task_dir(streams.state_root, task_id)
        persistent = {s for s in group.stores
                      if getattr(streams.topology.state_stores.get(s), "persistent", False)}
        checkpoint = Checkpoint(directory / ".checkpoint")
        checkpointed = checkpoint.read()
        positions: dict[tuple[str, int], int] = {}
        for store, topic in changelogs.items():
            tp = (topic, task_id.partition)
            if store in persistent and tp in checkpointed:
                positions[tp] = checkpointed[tp]
            else:
                if store in persistent and streams.eos:
                    wipe_store(directory, store)
                positions[tp] = 0
        sources = [(plan.real(t), task_id.partition) for t in group.source_topics]
        task = StreamTask(task_id, streams.topology, group.nodes, config=streams.config,
                          application_id=streams.application_id, collector=_NoOutput(),
                          clock=lambda: int(time.time() * 1000), input_partitions=sources,
                          state_dir=directory, global_stores=streams.global_stores)
        try:
            task.open_stores()
        except StoreError as exc:  # a local thread still holds the RocksDB lock: next time
            log.info("standby %s not opened yet: %s", task_id, exc)
            try:
                task.close_stores()
            except Exception:
                pass
            return False
        self.tasks[task_id] = _Standby(task, changelogs, persistent, checkpoint, positions)
        for store, topic in changelogs.items():
            self._routes[(topic, task_id.partition)] = (task_id, store)
        log.info("standby task %s opened at %s", task_id, positions)
        if self.listener is not None:
            for store, topic in changelogs.items():
                tp = (topic, task_id.partition)
                self._tell("on_update_start", tp, store, positions[tp])
        return True

    # -- closing ------------------------------------------------------------------------------

    def _suspend(self, task_id: TaskId, standby: _Standby, reason: SuspendReason) -> Handoff:
        """Flush, checkpoint and close a standby; what an active task starts from."""
        task = standby.task
        for topic in standby.changelogs.values():
            self._routes.pop((topic, task_id.partition), None)
        snapshots = {name: task.stores[name].snapshot() for name in standby.changelogs
                     if name not in standby.persistent and name in task.stores
                     and reason is SuspendReason.PROMOTED}
        task.flush()
        self._write_checkpoint(standby)
        try:
            task.close_stores()
        except Exception as exc:
            log.warning("closing standby task %s: %s", task_id, exc)
        if self.listener is not None:
            for store, topic in standby.changelogs.items():
                tp = (topic, task_id.partition)
                # Java's storeOffset: the last changelog record in the store (-1: none)
                self._tell("on_update_suspended", tp, store, standby.positions.get(tp, 0) - 1,
                           self._end_offset(tp), reason)
        log.info("standby task %s suspended (%s) at %s", task_id, reason.name,
                 standby.positions)
        return Handoff(dict(standby.positions), snapshots)

    def _close(self, task_id: TaskId, reason: SuspendReason) -> None:
        standby = self.tasks.pop(task_id, None)
        if standby is not None:
            self._suspend(task_id, standby, reason)

    def _write_checkpoint(self, standby: _Standby) -> None:
        partition = standby.task.id.partition
        offsets = {(topic, partition): standby.positions[(topic, partition)]
                   for store, topic in standby.changelogs.items()
                   if store in standby.persistent and (topic, partition) in standby.positions}
        if offsets:
            standby.checkpoint.write(offsets)

    def _checkpoint_all(self) -> None:
        with self._lock:
            for standby in self.tasks.values():
                if standby.persistent:
                    standby.task.flush()
                    self._write_checkpoint(standby)

    # -- the listener -------------------------------------------------------------------------

    def _end_offset(self, tp: tuple[str, int]) -> int:
        """The changelog's end as the consumer last saw it (-1 when unknown; on Tansu a lower
        bound, see ``kslab.runtime._state``)."""
        from confluent_kafka import TopicPartition

        try:
            _, high = self._consumer.get_watermark_offsets(TopicPartition(*tp), cached=True)
        except Exception:
            return -1
        return high if high is not None else -1

    def _tell(self, method: str, *args: Any) -> None:
        call: Callable[..., Any] | None = getattr(self.listener, method, None)
        if call is None:
            return
        try:
            call(*args)
        except Exception as exc:  # a listener bug must not stop the standbys
            log.error("standby update listener %s raised: %s", method, exc)
