"""Interactive queries across instances: who holds what, and asking the instance that does.

Every stream thread publishes its ``application.server``, its instance and its partitions to
the application's hosts topic on each assignment (``KafkaStreams.publish_assignment``); reading
that topic gives every instance's metadata as Kafka's ``metadataForAllStreamsClients`` does:
its host, the stores of the tasks it runs and their partitions, and the standby copies the
placement gives it (``kslab.runtime._placement``). A key query that reaches an instance not
holding the key is forwarded to the one that does, the way a streex node serves any key, with a
timeout and an error naming the host when it does not answer. Invariant: a forwarded request is
never forwarded again (it carries ``X-Kslab-Forwarded``), so stale metadata cannot make a loop.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from kslab.records import TaskId
from kslab.runtime._placement import live_members, owners

if TYPE_CHECKING:
    from kslab.runtime.streams import KafkaStreams

__all__ = ["FORWARDED", "StreamsMetadata", "all_metadata", "forward", "published_entries"]

FORWARDED = "X-Kslab-Forwarded"  # the header a forwarded query carries


class _MetadataFields(NamedTuple):
    host_info: Any
    state_store_names: frozenset[str]
    topic_partitions: frozenset[tuple[str, int]]
    standby_state_store_names: frozenset[str]
    standby_topic_partitions: frozenset[tuple[str, int]]


class StreamsMetadata(_MetadataFields):
    """One instance of the application (Java's ``StreamsMetadata``): its ``application.server``
    as ``host_info`` (``None`` without one), the stores and partitions of its active tasks,
    and those of the standby tasks it keeps. The collections are frozen when it is made (Java's
    ``StreamsMetadataImpl`` wraps them unmodifiable), so it is hashable and equal by value."""

    __slots__ = ()

    def __new__(cls, host_info: Any, state_store_names: Any, topic_partitions: Any,
                standby_state_store_names: Any, standby_topic_partitions: Any
                ) -> StreamsMetadata:
        return super().__new__(cls, host_info, frozenset(state_store_names),
                               frozenset(topic_partitions), frozenset(standby_state_store_names),
                               frozenset(standby_topic_partitions))


def published_entries(streams: KafkaStreams) -> dict[str, dict[str, Any]]:
    """The latest hosts-topic entry of every stream thread that ever published one."""
    from kslab.runtime._state import ChangelogReader

    latest: dict[str, dict[str, Any]] = {}

    def apply(_topic: str, _partition: int, batch: list[tuple[Any, ...]]) -> None:
        for key, value, _ in batch:
            latest[key.decode()] = json.loads(value) if value else {"closed": True}

    reader = ChangelogReader(streams.restore_config(), idle_timeout=10)
    try:
        reader.restore({(streams.hosts_topic, 0): 0}, apply)
    finally:
        reader.close()
    return latest


def all_metadata(streams: KafkaStreams, entries: Mapping[str, Mapping[str, Any]] | None = None
                 ) -> list[StreamsMetadata]:
    """Every live instance's metadata, by host, from the published ``entries`` (read if not
    given); an instance whose threads all left is not listed."""
    from kslab.runtime._iq import parse_host

    entries = published_entries(streams) if entries is None else entries
    members = live_members(entries)
    plan = streams.plan
    stores_of = {group.id: set(group.stores) for group in plan.groups}
    active: dict[str, set[tuple[str, int]]] = {}
    for tp, member in owners(members).items():
        active.setdefault(member.host, set()).add(tp)
    standby: dict[str, set[TaskId]] = {}
    if streams.standbys is not None:
        for task_id, hosts in streams.standbys.placement().items():
            for host in hosts:
                standby.setdefault(host, set()).add(task_id)
    out = []
    for host in sorted(set(active) | set(standby)):
        partitions = active.get(host, set())
        tasks = {plan.task_of(t, p) for t, p in partitions}
        standby_tasks = standby.get(host, set())
        out.append(StreamsMetadata(
            parse_host(host),
            frozenset(s for task in tasks for s in stores_of.get(task.subtopology, ())),
            frozenset(partitions),
            frozenset(s for task in standby_tasks for s in stores_of.get(task.subtopology, ())),
            frozenset(tp for task in standby_tasks for tp in _inputs(streams, task))))
    return out


def _inputs(streams: KafkaStreams, task: TaskId) -> list[tuple[str, int]]:
    group = streams.plan.group(task.subtopology)
    return [(streams.plan.real(t), task.partition) for t in group.source_topics]


def forward(host: Any, path: str, headers: Mapping[str, str], timeout: float
            ) -> tuple[int, Any]:
    """GET ``path`` from the instance at ``host``, as one forwarded query; its status and body,
    or 503/504 naming the host when it cannot be reached or does not answer in time."""
    request = urllib.request.Request(f"http://{host}{path}", headers={
        FORWARDED: "1", **({"Authorization": headers["Authorization"]}
                           if headers.get("Authorization") else {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:  # the other instance answered with an error
        try:
            return exc.code, json.loads(exc.read() or b"null")
        except ValueError:
            return exc.code, {"error": f"{host} answered {exc.code} {exc.reason}"}
    except TimeoutError:
        return 504, {"error": f"the instance at {host} holding this key did not answer within "
                              f"{timeout:g} s (kslab.iq.forward.timeout.ms); retry, or check "
                              "that instance", "host": str(host)}
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            return 504, {"error": f"the instance at {host} holding this key did not answer "
                                  f"within {timeout:g} s (kslab.iq.forward.timeout.ms); retry, "
                                  "or check that instance", "host": str(host)}
        return 503, {"error": f"the instance at {host} holding this key cannot be reached "
                              f"({reason}); it may be down: retry after the group rebalances",
                     "host": str(host)}
