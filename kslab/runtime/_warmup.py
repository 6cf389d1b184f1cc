"""Warm-up replicas (KIP-441): an instance takes an active task only once it is caught up.

Kafka's assignor keeps a stateful task on its caught-up owner while a new instance copies the
task's changelog into a warm-up replica, and moves it at a probing rebalance once the copy is
within ``acceptable.recovery.lag`` records of the end. kslab's threads join the group with the
range assignor, which decides alone, from the members' sort keys, which member takes which
partition (``kslab.runtime._placement``). What kslab decides is *when* an instance joins: a
starting instance first reads the group's members from the hosts topic, computes the stateful
tasks the range assignor will give its threads once they join (``partitions_on_join``), and
copies each task whose local state lags more than ``acceptable.recovery.lag`` into a warm-up
replica: a standby task of the ``StandbyUpdater``, at most ``max.warmup.replicas`` of them
catching up at once (a caught-up one keeps following its changelog and no longer counts). Its
stream threads join the group once every such task is caught up, and the active task that
replaces a warm-up starts from its position (``StandbyUpdater.release``), so it restores only
the tail. Until then the tasks stay with their owners, which go on processing.

Where this differs from Kafka: the warm-ups report their lag here, locally, each
``_CHECK_EVERY`` s, so no probing rebalance is needed (``probing.rebalance.interval.ms`` has no
effect); the joining instance takes nothing, stateless tasks included, until its warm-ups are
caught up; and the partitions the range assignor moves between the instances already in the
group when one joins are not warmed up (their new owners restore them, from a standby when they
hold one). Lags are computed against the broker's reported end, which on Tansu may fall short
of the true end by one record batch (``kslab.runtime._state``): then the active task restores
that batch too.

Invariant: the stream threads of a warming instance have not joined the group, so every task
stays with an owner that is processing it; nothing waits on a warm-up but the joining instance.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from kslab.records import TaskId
from kslab.runtime._placement import partitions_on_join
from kslab.runtime._state import Checkpoint, task_dir

if TYPE_CHECKING:
    from kslab.runtime._standby import StandbyUpdater
    from kslab.runtime.streams import KafkaStreams

__all__ = ["WARMUP_KEYS", "WarmUp"]

log = logging.getLogger("kslab.runtime")

WARMUP_KEYS = ("acceptable.recovery.lag", "max.warmup.replicas", "probing.rebalance.interval.ms")
_CHECK_EVERY = 0.5  # s between lag checks
_REPORT_EVERY = 30.0  # s between progress log lines while warming


class WarmUp:
    """One instance's warm-up before its threads join; ``step`` runs on the standby updater's
    thread, ``ready`` is set once the threads may join."""

    def __init__(self, streams: KafkaStreams, acceptable_lag: int, max_warmups: int) -> None:
        self.streams = streams
        self.acceptable_lag = acceptable_lag
        self.max_warmups = max_warmups
        self.ready = threading.Event()
        self.lags: dict[TaskId, int] = {}  # the tasks this instance will take: their last lag
        self.warming: list[TaskId] = []  # open warm-ups not caught up yet
        self.joined_because = ""
        self._last_check = 0.0
        self._last_report = time.monotonic()

    def joining_keys(self) -> list[str]:
        """What the range assignor will order this instance's threads by: each consumer's
        ``group.instance.id``, else its ``client.id`` and ``-`` (a member id's prefix)."""
        keys = []
        for index in range(1, self.streams.num_threads + 1):
            conf = self.streams.consumer_config(index)
            keys.append(str(conf.get("group.instance.id") or f"{conf['client.id']}-"))
        return keys

    def targets(self, members: list[Any]) -> list[TaskId]:
        """The stateful tasks this instance's threads will own once they join ``members``."""
        plan = self.streams.plan
        keys = self.joining_keys()
        out = []
        for group in plan.groups:
            if plan.changelogs_of(group.id):
                out += [TaskId(group.id, p)
                        for p in partitions_on_join(members, keys, plan.task_counts[group.id])]
        return sorted(out)

    def lag(self, updater: StandbyUpdater, task_id: TaskId) -> int:
        """Changelog records between the task's local state (its warm-up's position, else its
        checkpoint, else nothing) and the end of its changelogs, summed."""
        streams = self.streams
        changelogs = streams.plan.changelogs_of(task_id.subtopology)
        tps = [(topic, task_id.partition) for topic in changelogs.values()]
        positions = updater.positions(task_id)
        if positions is None:
            persistent = {topic for store, topic in changelogs.items()
                          if getattr(streams.topology.state_stores.get(store), "persistent",
                                     False)}
            saved = Checkpoint(task_dir(streams.state_root, task_id) / ".checkpoint").read()
            positions = {tp: saved.get(tp, 0) for tp in tps if tp[0] in persistent}
        ends = updater.end_offsets(tps)
        return sum(max(ends[tp] - positions.get(tp, 0), 0) for tp in tps)

    def step(self, updater: StandbyUpdater) -> None:
        """Check the lags, open warm-ups up to ``max.warmup.replicas``, or let the threads
        join."""
        now = time.monotonic()
        if self.ready.is_set() or now - self._last_check < _CHECK_EVERY:
            return
        self._last_check = now
        if not updater.hosts_read():
            return  # the members are not all known yet
        me = self.streams.process_id
        members = [m for m in updater.members() if m.process != me]
        if not members:
            self._join("no other instance is in the group")
            return
        self.lags = {t: self.lag(updater, t) for t in self.targets(members)}
        pending = [t for t, lag in sorted(self.lags.items()) if lag > self.acceptable_lag]
        if not pending:
            self._join(f"every task it takes is within acceptable.recovery.lag="
                       f"{self.acceptable_lag} of its changelog's end: {self._lags()}")
            return
        warming = [t for t in pending if updater.positions(t) is not None]
        for task_id in pending:
            if len(warming) >= self.max_warmups:
                break
            if task_id not in warming and updater.open_warmup(task_id):
                warming.append(task_id)
                log.info("%s: warm-up replica of task %s opened (lag %d)",
                         self.streams.client_id, task_id, self.lags[task_id])
        self.warming = sorted(warming)
        if now - self._last_report >= _REPORT_EVERY:
            self._last_report = now
            log.info("%s warms up before joining the group: %s", self.streams.client_id,
                     self._lags())

    def _lags(self) -> str:
        return ", ".join(f"{t} lag {n}" for t, n in sorted(self.lags.items())) or "no task"

    def _join(self, because: str) -> None:
        self.joined_because = because
        self.warming = []
        log.info("%s joins the group: %s", self.streams.client_id, because)
        self.ready.set()

    def metrics(self) -> dict[str, Any]:
        """What ``KafkaStreams.metrics()`` shows of the warm-up."""
        return {"joined": self.ready.is_set(), "warming": [str(t) for t in self.warming],
                "lag": {str(t): n for t, n in sorted(self.lags.items())}}
