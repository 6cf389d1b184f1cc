"""Interactive queries: read-only store views, key metadata and the optional HTTP endpoint.

Views read the stores of this instance's active tasks, and its standby tasks' too when the caller
allows stale reads (``StoreQueryParameters.enable_stale_stores()``); where a key lives is computed
as the producer computes it (murmur2 of the serialized key over the store's partition count), and
other instances are found through the hosts topic every instance publishes its partitions to,
which also gives the standby placement (``kslab.runtime._placement``). Invariant: a
view never writes; a query for a key held elsewhere answers with that instance's address.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from kslab.errors import ConfigError, StoreError, StreamsError
from kslab.processor.partitioner import default_partition
from kslab.records import TaskId
from kslab.runtime._http import BoundedHTTPServer, serve_json
from kslab.runtime._iq_cluster import FORWARDED, forward
from kslab.runtime._iq_keys import parse_key, parse_time
from kslab.serdes import resolve as resolve_serde
from kslab.state.composite import CompositeStoreView
from kslab.state.composite_windows import ReadOnlySessionView, ReadOnlyWindowView

if TYPE_CHECKING:
    from kslab.runtime.streams import KafkaStreams

__all__ = ["HostInfo", "KeyQueryMetadata", "StoreQueryParameters", "TaskMetadata",
           "ThreadMetadata", "handle_get", "parse_host", "serve", "store_view"]

_UNAVAILABLE = None
_MIN_TS = -(2**63)
_MAX_TS = 2**63 - 1


class HostInfo(NamedTuple):
    """An instance's ``application.server`` address."""

    host: str
    port: int

    @classmethod
    def build_from_endpoint(cls, endpoint: str | None) -> HostInfo | None:
        """``host:port`` parsed as Java's ``HostInfo.buildFromEndpoint`` (and its client's
        ``Utils.getHost``/``getPort``: a ``[v6]`` host and a ``scheme://`` prefix are fine);
        ``None`` for a blank one; ``ConfigError`` for anything else."""
        if endpoint is None or not endpoint.strip():
            return None
        match = _HOST_PORT.fullmatch(endpoint)
        if match is None:
            msg = (f"Error parsing host address {endpoint}. Expected format host:port.; set "
                   "application.server to this instance's host:port")
            raise ConfigError(msg)
        return cls(match.group(1), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


_HOST_PORT = re.compile(r".*?\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)")  # Java's HOST_PORT_PATTERN


class KeyQueryMetadata(NamedTuple):
    """Where a key lives: the active instance, the instances with a standby of it (with
    ``num.standby.replicas``; only those with an ``application.server``) and the partition."""

    active_host: HostInfo | None
    standby_hosts: tuple[HostInfo, ...]
    partition: int


class StoreQueryParameters(NamedTuple):
    """Which store an interactive query reads (Java's ``StoreQueryParameters``).

    >>> p = StoreQueryParameters.from_name_and_type("counts").enable_stale_stores()
    >>> p.stale_stores, p.partition
    (True, None)
    """

    store_name: str
    kind: str | None = None
    stale_stores: bool = False
    partition: int | None = None

    @classmethod
    def from_name_and_type(cls, store_name: str, kind: str | None = None
                           ) -> StoreQueryParameters:
        """Store ``store_name``, optionally of ``kind`` (``key_value``, ``window``, ...)."""
        return cls(store_name, kind)

    def enable_stale_stores(self) -> StoreQueryParameters:
        """Also read this instance's standby copies (which may lag the active one)."""
        return self._replace(stale_stores=True)

    def with_partition(self, partition: int) -> StoreQueryParameters:
        """Read only the task of ``partition``."""
        return self._replace(partition=partition)

    def with_all_partitions(self) -> StoreQueryParameters:
        """Read every partition this instance holds (the default)."""
        return self._replace(partition=None)


@dataclass(frozen=True)
class TaskMetadata:
    """A task, the partitions it reads and, as Java's ``TaskMetadata``, per partition the
    offset its last commit stored (``committed_offsets``; -1 before its first commit) and the
    highest offset the task has read (``end_offsets``; -1 before its first record). Equal and
    hashed by task and partitions only, as Java's (the offsets move on)."""

    task_id: Any
    topic_partitions: tuple[tuple[str, int], ...]
    committed_offsets: Mapping[tuple[str, int], int] = field(
        default_factory=lambda: MappingProxyType({}), compare=False)
    end_offsets: Mapping[tuple[str, int], int] = field(
        default_factory=lambda: MappingProxyType({}), compare=False)


class ThreadMetadata(NamedTuple):
    """A stream thread and its active tasks."""

    thread_name: str
    thread_state: str
    active_tasks: tuple[TaskMetadata, ...]


class ReadOnlyStoreView(CompositeStoreView):
    """A store across this instance's tasks; writes raise ``StoreError``."""

    def __getattr__(self, name: str) -> Any:
        if name in ("put", "put_if_absent", "put_all", "delete", "remove"):
            msg = f"store '{self.name}' is read-only here; write to it from a processor"
            raise StoreError(msg)
        raise AttributeError(name)


def parse_host(text: str) -> HostInfo | None:
    """``HostInfo.build_from_endpoint``: an ``application.server`` value, ``None`` if blank."""
    return HostInfo.build_from_endpoint(text)


def store_view(streams: KafkaStreams, name: Any, kind: str | None = None) -> Any:
    """A read-only view of store ``name`` (or ``StoreQueryParameters``) across the local tasks:
    the active ones, and the standby ones for stale reads.

    As Java's ``WrappingStoreProvider``, the view looks its stores up again on every read: a
    view handed out before a rebalance reads the tasks this instance holds after it (a failed
    over task included), and a read while none is open raises ``StoreError`` (retry it)."""
    params = name if isinstance(name, StoreQueryParameters) \
        else StoreQueryParameters(name, kind)
    params = params._replace(kind=kind or params.kind)
    global_store = streams.global_stores.get(params.store_name)
    if global_store is not None:
        check_running(streams, f"store '{params.store_name}'")
        return ReadOnlyStoreView(params.store_name, [global_store])
    stores, store_kind = _local_stores(streams, params)
    live = _LiveStores(lambda: _local_stores(streams, params)[0])
    live.first = stores[0]
    if store_kind in ("window", "timestamped_window"):
        return ReadOnlyWindowView(params.store_name, live)
    if store_kind == "session":
        return ReadOnlySessionView(params.store_name, live)
    return ReadOnlyStoreView(params.store_name, live)


class StreamsNotStartedError(StoreError, StreamsError):
    """A query of a client not started yet (Java's ``StreamsNotStartedException``)."""


class StreamsNotRunningError(StoreError, StreamsError):
    """A query of a client that has stopped or failed (Java's ``IllegalStateException`` from
    ``validateIsRunningOrRebalancing``)."""


def check_running(streams: KafkaStreams, what: str) -> None:
    """Java's ``validateIsRunningOrRebalancing``, which every query of the client's state
    (``store``, the metadata calls) runs first; ``what`` names the query for the message."""
    state = streams.state
    if state.name == "CREATED":
        msg = (f"KafkaStreams has not been started, you can retry after calling start(); "
               f"{what} needs a started client (this one is CREATED)")
        raise StreamsNotStartedError(msg)
    if not state.is_running_or_rebalancing():
        msg = (f"KafkaStreams is not running. State is {state.name}. ({what} needs a client "
               "in RUNNING or REBALANCING); query it while it runs")
        raise StreamsNotRunningError(msg)


def _local_stores(streams: KafkaStreams, params: StoreQueryParameters
                  ) -> tuple[list[Any], str | None]:
    """The open stores ``params`` names on this instance now, partition order, and their
    kind (a timestamped store as the plain kind asked for, as Java's ``keyValueStore()``)."""
    name, kind = params.store_name, params.kind
    check_running(streams, f"store '{name}'")
    known = name in streams.topology.state_stores
    found = [(tid, task.stores[name]) for tid, task in streams.local_tasks().items()
             if name in task.stores]
    if params.stale_stores and streams.standbys is not None:
        found += streams.standbys.stores(name)
    stores = [store for tid, store in sorted(found, key=lambda e: e[0])
              if params.partition is None or tid.partition == params.partition]
    if not stores:
        if not known:
            msg = (f"store '{name}' is not in this topology (stores: "
                   f"{sorted(streams.topology.state_stores) or 'none'}); check the name")
        else:
            msg = (f"store '{name}' has no task on this instance now (rebalancing, or its "
                   "partitions live elsewhere); retry, or ask query_metadata_for_key")
        raise StoreError(msg)
    store_kind = getattr(stores[0], "store_kind", None)
    if kind is not None and store_kind not in (kind, f"timestamped_{kind}"):
        msg = f"store '{name}' is a {store_kind} store, not {kind}; ask for kind={store_kind!r}"
        raise StoreError(msg)
    if kind != store_kind and store_kind in ("timestamped_key_value", "timestamped_window"):
        stores = [s.plain_view() for s in stores]  # as Java's keyValueStore()/windowStore()
        store_kind = store_kind.removeprefix("timestamped_")
    return stores, store_kind


class _LiveStores(Sequence):
    """The stores a view reads, looked up on each use (``resolve``); ``first`` is the store
    the view was made from, for what never changes (kind, serdes, changelog topic)."""

    first: Any = None

    def __init__(self, resolve: Callable[[], list[Any]]) -> None:
        self._resolve = resolve

    def __iter__(self) -> Iterator[Any]:
        return iter(self._resolve())

    def __len__(self) -> int:
        return len(self._resolve())

    def __getitem__(self, index: Any) -> Any:
        if index == 0 and self.first is not None:
            return self.first
        return self._resolve()[index]


def local_thread_metadata(threads: list[Any]) -> list[ThreadMetadata]:
    """Per stream thread (``KafkaStreams``' live ones): name, state and active tasks."""
    out = []
    for thread in threads:
        tasks = tuple(_task_metadata(tid, state) for tid, state in sorted(thread.tasks.items()))
        status = "PARTITIONS_REVOKED" if thread.rebalancing else "RUNNING"
        out.append(ThreadMetadata(thread.name, status, tasks))
    return out


def _task_metadata(task_id: Any, state: Any) -> TaskMetadata:
    """A running task's metadata; its offsets as of now (the thread moves them on)."""
    partitions = tuple(state.task.input_partitions)
    committed, processed = dict(state.committed), dict(state.offsets)
    return TaskMetadata(task_id, partitions, MappingProxyType(
        {tp: committed.get(tp, -1) for tp in partitions}), MappingProxyType(
        {tp: processed[tp] - 1 if tp in processed else -1 for tp in partitions}))


def _store_partitions(streams: KafkaStreams, store_name: str) -> tuple[int, int]:
    plan = streams.plan
    for group in plan.groups:
        if store_name in group.stores:
            return group.id, plan.task_counts[group.id]
    msg = f"store '{store_name}' is not a local store of this topology; check the name"
    raise StoreError(msg)


def _members(streams: KafkaStreams) -> dict[tuple[str, int], HostInfo | None]:
    """(topic, partition) -> the application.server of the thread that owns it, newest first.

    Read from the hosts topic every instance publishes its assignments to (group descriptions
    with member assignments are not available from every broker).
    """
    from kslab.runtime._state import ChangelogReader

    latest: dict[bytes, dict[str, Any]] = {}

    def apply(_topic: str, _partition: int, batch: list[tuple[Any, ...]]) -> None:
        for key, value, _ in batch:
            latest[key] = json.loads(value) if value else {}

    reader = ChangelogReader(streams.restore_config(), idle_timeout=10)
    try:
        reader.restore({(streams.hosts_topic, 0): 0}, apply)
    finally:
        reader.close()
    owners: dict[tuple[str, int], HostInfo | None] = {}
    for entry in sorted(latest.values(), key=lambda e: e.get("time", 0)):
        host = parse_host(entry.get("host", ""))
        for topic, partition in entry.get("partitions", []):
            owners[(topic, partition)] = host
    return owners


def query_metadata_for_key(streams: KafkaStreams, store_name: str, key: Any,
                           key_serde: Any = None) -> KeyQueryMetadata:
    """The instance and partition holding ``key`` in ``store_name``."""
    gid, count = _store_partitions(streams, store_name)
    builder = streams.topology.state_stores[store_name]
    serde = resolve_serde(key_serde or builder.key_serde or streams.config.get(
        "default.key.serde"), is_key=True)
    topic = streams.plan.changelogs_of(gid).get(store_name, store_name)
    key_bytes = serde.serialize(topic, key)
    partition = default_partition(key_bytes, count) if count > 1 else 0
    standbys = _standby_hosts(streams, TaskId(gid, partition))
    local = parse_host(streams.application_server)
    for task_id in streams.local_tasks():
        if task_id.subtopology == gid and task_id.partition == partition:
            return KeyQueryMetadata(local, standbys, partition)
    source = next(streams.plan.real(t) for t in streams.plan.group(gid).source_topics)
    try:
        host = _members(streams).get((source, partition))
    except Exception:
        host = None
    return KeyQueryMetadata(host, standbys, partition)


def _standby_hosts(streams: KafkaStreams, task_id: TaskId) -> tuple[HostInfo, ...]:
    """The application.server of the instances the standby placement gives ``task_id``."""
    if streams.standbys is None:
        return ()
    hosts = (parse_host(h) for h in streams.standbys.placement().get(task_id, []))
    return tuple(h for h in hosts if h is not None)


def serve(streams: KafkaStreams) -> BoundedHTTPServer:
    """Start the HTTP endpoint at ``application.server`` (loopback unless ``kslab.http.bind``).

    Connections are bounded by ``kslab.http.max.connections`` and closed after
    ``kslab.http.read.timeout.ms`` without a request.
    """
    address = parse_host(streams.application_server)
    assert address is not None
    config = streams.config
    return serve_json(config.get("kslab.http.bind") or "127.0.0.1", address.port,
                      lambda path, headers: handle_get(streams, path, headers),
                      read_timeout=config.get_int("kslab.http.read.timeout.ms") / 1000,
                      max_connections=config.get_int("kslab.http.max.connections"),
                      name="kslab-iq-http", token=config.get("kslab.iq.token"))


def handle_get(streams: KafkaStreams, path: str, headers: Mapping[str, str] | None = None
               ) -> tuple[int, Any]:
    """Answer one GET: ``/metadata``, ``/stores/<store>/<key>``, ``/stores/<store>?from=&to=``.

    ``path`` is the request target as ``http.server`` reads it (ISO-8859-1); keys and bounds
    are percent-encoded UTF-8 (raw bytes for a ``Bytes`` key serde). A key or bound the store's
    key serde cannot take answers 400 naming it. For window and session stores ``from``/``to``
    are times in ms (window starts; for a key's sessions the earliest end and latest start, else
    session ends) and ``backward=true`` reverses. ``stale=true`` also reads this instance's
    standby tasks: a key whose standby is here is answered from it rather than forwarded. A key
    another instance holds is asked of that instance (``kslab.runtime._iq_cluster.forward``);
    a query that was itself forwarded answers 421 with the holder's address instead.
    """
    headers = headers or {}
    target = _target_bytes(path)
    route, _, raw_query = target.partition(b"?")
    parts = [urllib.parse.unquote_to_bytes(p) for p in route.strip(b"/").split(b"/") if p]
    try:
        if parts == [b"metadata"]:
            return 200, _metadata(streams)
        if len(parts) in (2, 3) and parts[0] == b"stores":
            query = {name.decode("latin-1"): values[0] for name, values in
                     urllib.parse.parse_qs(raw_query).items()}
            return _store_get(streams, parts[1].decode("utf-8", "replace"),
                              parts[2] if len(parts) == 3 else None, query, path, headers)
    except StoreError as exc:
        return 404, {"error": str(exc)}
    except (ValueError, TypeError) as exc:
        return 400, {"error": str(exc)}
    shown = route.decode("latin-1")
    return 404, {"error": f"no route {shown}; use /metadata or /stores/<store>[/<key>]"}


def _target_bytes(path: str) -> bytes:
    """The request target's bytes: ``http.server`` decodes them as ISO-8859-1."""
    try:
        return path.encode("latin-1")
    except UnicodeEncodeError:  # a str given by hand
        return path.encode("utf-8")


def _metadata(streams: KafkaStreams) -> dict[str, Any]:
    instances = [{"host": str(m.host_info) if m.host_info else None,
                  "stores": sorted(m.state_store_names),
                  "partitions": sorted(f"{t}-{p}" for t, p in m.topic_partitions),
                  "standby_stores": sorted(m.standby_state_store_names),
                  "standby_partitions": sorted(f"{t}-{p}" for t, p in m.standby_topic_partitions)}
                 for m in streams.metadata_for_all_streams_clients()]
    return {
        "application.server": streams.application_server,
        "instances": instances,
        "state": streams.state.name,
        "threads": [{"name": t.thread_name, "state": t.thread_state,
                     "tasks": [{"id": str(m.task_id), "partitions":
                                [f"{a}-{b}" for a, b in m.topic_partitions]}
                               for m in t.active_tasks]}
                    for t in streams.metadata_for_local_threads()],
    }


def _store_get(streams: KafkaStreams, name: str, raw_key: bytes | None,
               query: dict[str, bytes], path: str, headers: Mapping[str, str]
               ) -> tuple[int, Any]:
    builder = streams.topology.state_stores.get(name)
    serde = resolve_serde((builder.key_serde if builder else None)
                          or streams.config.get("default.key.serde"), is_key=True)
    params = StoreQueryParameters(name)
    if query.get("stale", b"false").lower() in (b"1", b"true", b"yes"):
        params = params.enable_stale_stores()
    if raw_key is not None:
        key = parse_key(raw_key, serde, name)
        meta = query_metadata_for_key(streams, name, key)
        local = parse_host(streams.application_server)
        if meta.active_host is not None and meta.active_host != local \
                and not _standby_here(streams, params, meta.partition):
            if not headers.get(FORWARDED):
                timeout = streams.config.get_int("kslab.iq.forward.timeout.ms") / 1000
                return forward(meta.active_host, path, headers, timeout)
            return 421, {"error": f"key {key!r} of store '{name}' lives on another instance; "
                                  f"ask {meta.active_host}",
                         "host": str(meta.active_host), "partition": meta.partition}
        view = streams.store(params)
        if isinstance(view, ReadOnlyWindowView | ReadOnlySessionView):
            return 200, _windows(view, key, query, name)
        value = view.get(key)
        if value is None:
            return 404, {"key": key, "error": f"key {key!r} not found in store '{name}'"}
        return 200, {"key": key, "value": _plain(value)}
    view = streams.store(params)
    if isinstance(view, ReadOnlyWindowView | ReadOnlySessionView):
        return 200, _windows(view, None, query, name)
    low, high = (parse_key(query[bound], serde, name, bound) if bound in query else None
                 for bound in ("from", "to"))
    with view.range(low, high) as entries:
        return 200, [{"key": kv.key, "value": _plain(kv.value)} for kv in entries]


def _standby_here(streams: KafkaStreams, params: StoreQueryParameters, partition: int) -> bool:
    """Whether a stale read of ``partition`` of the store can be answered by a local standby."""
    return params.stale_stores and streams.standbys is not None and any(
        tid.partition == partition for tid, _ in streams.standbys.stores(params.store_name))


def _windows(view: Any, key: Any, query: dict[str, bytes], name: str) -> list[dict[str, Any]]:
    """Windows or sessions as JSON rows: of ``key`` (``from``/``to`` bound the window start, or
    session end/start as ``find_sessions``), or of every key (window starts, session ends)."""
    low = parse_time(query["from"], name, "from") if "from" in query else _MIN_TS
    high = parse_time(query["to"], name, "to") if "to" in query else _MAX_TS
    backward = query.get("backward", b"false").lower() in (b"1", b"true", b"yes")
    if isinstance(view, ReadOnlyWindowView):
        if key is not None:
            scan = view.backward_fetch(key, key, low, high) if backward \
                else view.fetch(key, key, low, high)
        else:
            scan = view.backward_fetch_all(low, high) if backward else view.fetch_all(low, high)
    elif key is not None:
        scan = view.backward_find_sessions(key, low, high) if backward \
            else view.find_sessions(key, low, high)
    else:
        scan = view.find_sessions(low, high)
    with scan as entries:
        return [{"key": kv.key.key, "start": kv.key.window.start, "end": kv.key.window.end,
                 "value": _plain(kv.value)} for kv in entries]


def _plain(value: Any) -> Any:
    inner = getattr(value, "value", None)
    if inner is not None and hasattr(value, "timestamp"):
        return inner
    return value
