"""Where standby tasks go: the group's members as instances publish them, and Kafka's rule.

kslab's stream threads join a classic consumer group with librdkafka's range assignor, which
Python cannot replace, so there is no assignment protocol to carry standby tasks. Instead every
thread publishes, on each assignment, its member id, its instance (``process``) and its
partitions to the application's hosts topic, and every instance computes the same placement from
what it read there. Kafka's rules hold: a task's standbys never sit on its active instance, at
most one copy per instance. The first standby goes where the range assignor will put the task
when its active instance leaves (the range assignment recomputed without that instance's
members), so the instance that takes the task over is the one holding a warm copy; further
standbys take the next instances after the active one, in process id order.

The same recomputation tells an instance that has not joined yet which partitions the range
assignor will give its threads once they join (``partitions_on_join``): what KIP-441's warm-up
replicas (``kslab.runtime._warmup``) copy before it joins.

Invariant: the placement is a function of the published entries alone, so instances that have
read the same entries agree on it. An entry marked ``closed`` (a thread that left) and an entry
all of whose partitions newer entries of other threads claim (a member that died without saying
so, whose partitions were given out again) are not members.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["Member", "live_members", "owners", "partitions_on_join", "range_owner",
           "standby_processes"]


class Member(NamedTuple):
    """One stream thread in the group, as it published itself."""

    name: str  # the thread's name, the entry's key
    process: str  # the instance's process id
    host: str  # its application.server ("" without one)
    sort_key: str  # what the range assignor orders members by (group.instance.id or member id)
    partitions: tuple[tuple[str, int], ...]
    time: float


def live_members(entries: Mapping[str, Mapping[str, Any]]) -> list[Member]:
    """The members among the latest published entry per thread, oldest first.

    Entries without a ``process`` (published with no standbys configured) or without a member id
    cannot be placed and are skipped, as are closed and superseded ones (see the module doc).
    """
    members = []
    for name, entry in entries.items():
        if entry.get("closed") or not entry.get("process") or not entry.get("sort"):
            continue
        members.append(Member(name, str(entry["process"]), str(entry.get("host", "")),
                              str(entry["sort"]),
                              tuple((str(t), int(p)) for t, p in entry.get("partitions", [])),
                              float(entry.get("time", 0))))
    members.sort(key=lambda m: (m.time, m.name))
    alive = []
    for member in members:
        superseded = bool(member.partitions) and all(
            _claimed_later(members, member, tp) for tp in member.partitions)
        if not superseded:
            alive.append(member)
    return alive


def _claimed_later(members: list[Member], member: Member, tp: tuple[str, int]) -> bool:
    return any(other.name != member.name and other.time > member.time and tp in other.partitions
               for other in members)


def owners(members: list[Member]) -> dict[tuple[str, int], Member]:
    """The member owning each partition: the newest claim wins."""
    out: dict[tuple[str, int], Member] = {}
    for member in sorted(members, key=lambda m: (m.time, m.name)):
        for tp in member.partitions:
            out[tp] = member
    return out


def range_owner(sort_keys: list[str], partition: int, count: int) -> int:
    """The index (in ``sorted(sort_keys)``) of the member the range assignor gives ``partition``
    of a topic with ``count`` partitions to: members in order take ``count // n`` partitions
    each, the first ``count % n`` one more."""
    n = len(sort_keys)
    per, extra = divmod(count, n)
    first_small = extra * (per + 1)  # partitions before the members with ``per`` each
    if partition < first_small:
        return partition // (per + 1)
    return extra + (partition - first_small) // per  # per > 0 here: count >= n


def standby_processes(partition: int, count: int, active: str, members: list[Member],
                      replicas: int) -> list[str]:
    """The instances that keep standbys of partition ``partition`` (of ``count``) of a task
    whose active copy is on instance ``active``: first the instance the range assignor hands
    it to when ``active`` leaves, then the instances after ``active`` in process id order;
    never ``active``, each at most once, at most ``replicas``."""
    if replicas <= 0:
        return []
    others = sorted((m for m in members if m.process != active), key=lambda m: m.sort_key)
    if not others:
        return []
    heir = others[range_owner([m.sort_key for m in others], partition, count)].process
    processes = sorted({m.process for m in members} | {active})
    at = processes.index(active)
    ring = processes[at + 1:] + processes[:at]
    order = [heir] + [p for p in ring if p not in (heir, active)]
    return order[:replicas]


def partitions_on_join(members: list[Member], joining: list[str], count: int) -> list[int]:
    """The partitions (of a topic with ``count``) the range assignor gives the threads whose
    sort keys are ``joining`` once they join ``members``. A sort key may be a member id's
    prefix (the ``client.id`` plus ``-``, the broker adding a unique suffix): it sorts where
    the member id will, unless another member's id starts with the same prefix."""
    keys = sorted([m.sort_key for m in members] + list(joining))
    mine = {i for i, key in enumerate(keys) if key in set(joining)}
    return [p for p in range(count) if range_owner(keys, p, count) in mine]
