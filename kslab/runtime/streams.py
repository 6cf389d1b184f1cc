"""KafkaStreams: a built topology run against a Kafka broker by stream threads in one process.

The facade owns the client-level state machine (Kafka's ``KafkaStreams.State`` and its allowed
transitions), the internal topics, the global thread, the stream threads and the uncaught
exception handling; threads do the I/O and the core does the processing. Invariant: every
state change goes through ``_set_state``, which refuses transitions Kafka does not allow and
calls the state listener exactly once per change.

Over 600 lines because ``KafkaStreams`` is one public object: its state machine, lifecycle, the
three clients' configs, queries and metrics; its threads, collector and queries' views have
modules of their own.
"""

from __future__ import annotations

import enum
import logging
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kslab.config import ADMIN_CONFIGS, CONSUMER_CONFIGS, PRODUCER_CONFIGS, StreamsConfig
from kslab.core.topic_admin import create_topics, existing_topics
from kslab.core.topic_plan import TopicPlan
from kslab.errors import (
    InvalidArgumentError,
    KslabError,
    MissingArgumentError,
    StoreError,
    StreamsError,
    TopologyError,
)
from kslab.runtime._clients import close_producer
from kslab.runtime._errors import ErrorPolicy, dlq_headers
from kslab.runtime._global import GlobalThread
from kslab.runtime._standby import StandbyUpdater
from kslab.runtime._state import StateDirLock, clean_state_dir, process_id
from kslab.runtime._thread import StreamThread
from kslab.runtime._warmup import WARMUP_KEYS, WarmUp
from kslab.topology._nodes import SourceNode
from kslab.topology.topology import Topology

__all__ = ["KafkaStreams", "StreamThreadExceptionResponse"]

log = logging.getLogger("kslab.runtime")


class StreamThreadExceptionResponse(enum.Enum):
    """What an uncaught exception handler asks for (Java's ``StreamThreadExceptionResponse``)."""

    REPLACE_THREAD = 0
    SHUTDOWN_CLIENT = 1
    SHUTDOWN_APPLICATION = 2


class State(enum.Enum):
    """The client state; ``value`` is Kafka's ordinal."""

    CREATED = 0
    REBALANCING = 1
    RUNNING = 2
    PENDING_SHUTDOWN = 3
    NOT_RUNNING = 4
    PENDING_ERROR = 5
    ERROR = 6

    def is_running_or_rebalancing(self) -> bool:
        """True in RUNNING and REBALANCING, as Java's ``isRunningOrRebalancing``."""
        return self in (State.RUNNING, State.REBALANCING)

    def is_valid_transition(self, new_state: State) -> bool:
        """Whether Kafka allows going from this state to ``new_state``."""
        return new_state in _TRANSITIONS[self]


_TRANSITIONS: dict[State, tuple[State, ...]] = {
    State.CREATED: (State.REBALANCING, State.PENDING_SHUTDOWN, State.PENDING_ERROR),
    State.REBALANCING: (State.RUNNING, State.PENDING_SHUTDOWN, State.PENDING_ERROR),
    State.RUNNING: (State.REBALANCING, State.RUNNING, State.PENDING_SHUTDOWN,
                    State.PENDING_ERROR),
    State.PENDING_SHUTDOWN: (State.NOT_RUNNING,),
    State.NOT_RUNNING: (),
    State.PENDING_ERROR: (State.ERROR,),
    State.ERROR: (),
}

_GUARANTEES = ("at_least_once", "exactly_once_v2")
_JAVA_ONLY = {"max.poll.records", "max.poll.interval.ms.java", "default.api.timeout.ms"}


class KafkaStreams:
    """Runs a topology (or a ``StreamsBuilder``) against a broker, as Java's ``KafkaStreams``.

    >>> import kslab as ks
    >>> topo = ks.Topology().add_source("src", "in").add_sink("out", "out", "src")
    >>> streams = ks.KafkaStreams(topo, {"application.id": "doc", "bootstrap.servers": "x:9"})
    >>> streams.state
    <State.CREATED: 0>
    """

    State = State
    REPLACE_THREAD = StreamThreadExceptionResponse.REPLACE_THREAD
    SHUTDOWN_CLIENT = StreamThreadExceptionResponse.SHUTDOWN_CLIENT
    SHUTDOWN_APPLICATION = StreamThreadExceptionResponse.SHUTDOWN_APPLICATION

    def __init__(self, topology: Any, config: Mapping[str, Any]) -> None:
        props = dict(config)
        if hasattr(topology, "build") and not isinstance(topology, Topology):
            topology = topology.build(props)
        if not isinstance(topology, Topology):
            msg = f"KafkaStreams needs a ks.Topology or ks.StreamsBuilder; got {type(topology)}"
            raise KslabError(msg)
        self.config = StreamsConfig(props)
        self.config.check_support("runtime")  # keys kslab ignores warn, or raise: KEY_SUPPORT
        if not any(isinstance(node, SourceNode) for node in topology.nodes.values()):
            msg = ("Invalid topology: Topology has no stream threads and no global threads, "
                   "must subscribe to at least one source topic or global table.")
            raise TopologyError(msg)  # Java's TopologyMetadata, when the client is made
        self.topology = topology
        self.application_id = _required(self.config, "application.id")
        self.bootstrap_servers = _required(self.config, "bootstrap.servers")
        guarantee = str(self.config.get("processing.guarantee")).lower()
        if guarantee not in _GUARANTEES:
            msg = (f"processing.guarantee={guarantee!r} is not supported; use one of "
                   f"{', '.join(_GUARANTEES)}")
            raise KslabError(msg)
        self.eos = guarantee == "exactly_once_v2"
        default_interval = 100 if self.eos else 30000
        self.commit_interval_ms = self.config.get_int("commit.interval.ms", default_interval) \
            or default_interval
        threads = self.config.get_int("num.stream.threads")
        self.num_threads = 1 if threads is None else threads  # 0 is allowed, as in Java
        self.poll_ms = self.config.get_int("poll.ms", 100) or 100
        self.max_poll_records = int(self._prefixed("consumer.").get("max.poll.records", 1000))
        root = self.config.get("state.dir") or str(Path(tempfile.gettempdir()) / "kafka-streams")
        self.state_root = Path(root) / self.application_id
        self.process_id = process_id(self.state_root)
        self._dir_lock = StateDirLock(self.state_root)
        self.client_id = self.config.get("client.id") or f"{self.application_id}-{self.process_id}"
        self.application_server = self.config.get("application.server") or ""
        from kslab.runtime._iq import HostInfo

        HostInfo.build_from_endpoint(self.application_server)  # refuse a bad one now, as Java
        self.num_standby_replicas = self.config.get_int("num.standby.replicas") or 0
        # KIP-441 warm-ups (kslab.runtime._warmup): with standbys, or when a key of theirs is set
        self.warmup_enabled = bool(self.num_standby_replicas) or any(
            key in self.config for key in WARMUP_KEYS)
        self.warmup: WarmUp | None = None  # set in start() when warm-ups apply
        self.standbys: StandbyUpdater | None = None  # with standbys or warm-ups
        self._standby_listener: Any = None
        self.errors_policy = ErrorPolicy(self)
        self.production_handler = self.errors_policy.production
        self.dlq_topic = self.errors_policy.dlq_topic
        self.plan: TopicPlan = None  # type: ignore[assignment] # set in start()
        self.global_stores: dict[str, Any] = {}
        self._state = State.CREATED
        self._lock = threading.RLock()
        self._state_listener: Callable[[State, State], None] | None = None
        self._exception_handler: Callable[[BaseException], Any] | None = None
        self.restore_listener: Any = None  # see set_global_state_restore_listener
        self._threads: list[StreamThread] = []
        self._events = _ThreadEvents(self)  # what the threads tell this client
        self._global: GlobalThread | None = None
        self._counts: dict[str, int] = {}
        self._admin: Any = None
        self._iq_server: Any = None
        self._paused = threading.Event()  # KafkaStreams.pause(): the threads fetch nothing
        self._metrics_server: Any = None
        self.metrics_address: tuple[str, int] | None = None  # where Prometheus scrapes
        self._hosts_producer: Any = None
        self._control: threading.Thread | None = None
        self._closing = threading.Event()
        self._released = False  # the shared clients are closed: make no new ones
        self.dropped = {"deserialization": 0, "processing": 0, "production": 0, "dlq": 0}
        self.errors: list[BaseException] = []

    # -- configuration for the clients --------------------------------------------------------

    def _prefixed(self, prefix: str) -> dict[str, Any]:
        props = self.config.as_dict()
        return {k[len(prefix):]: v for k, v in props.items() if k.startswith(prefix)}

    def _client(self, *prefixes: str, names: frozenset[str] = frozenset(),
                kind: str = "producer") -> dict[str, Any]:
        """A ``kind`` client's config (consumer, producer or admin): connection settings and
        the common client configs (``StreamsConfig.client_configs``), the unprefixed client
        configs in ``names``, then each prefix's settings (later ones win), without Java-only
        names."""
        conf: dict[str, Any] = {"bootstrap.servers": self.bootstrap_servers}
        conf.update(self.config.client_configs(kind))
        for prefix in ("sasl.", "ssl."):
            conf.update({prefix + k: v for k, v in self._prefixed(prefix).items()})
        given = self.config.as_dict()
        conf.update({k: v for k, v in given.items() if k in names})
        for prefix in prefixes:
            conf.update(self._prefixed(prefix))
        for key in _JAVA_ONLY:
            conf.pop(key, None)
        return conf

    def thread_name(self, index: int) -> str:
        """The name of stream thread ``index`` (also its clients' id prefix), as Java's."""
        return f"{self.client_id}-StreamThread-{index}"

    def consumer_config(self, index: int) -> dict[str, Any]:
        """The main consumer's config for stream thread ``index``.

        Under static membership each thread's consumer gets its own ``group.instance.id``,
        the configured one plus ``-<index>`` (Java's ``getMainConsumerConfigs``): members
        sharing one id are fenced by Kafka (and all given every partition by Tansu).
        """
        server = f"@{self.application_server}" if self.application_server else ""
        conf = {
            "group.id": self.application_id,
            "client.id": self.thread_name(index) + server,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "partition.assignment.strategy": "range",
            "isolation.level": "read_committed" if self.eos else "read_uncommitted",
        }
        conf.update(self._client("consumer.", "main.consumer.", names=CONSUMER_CONFIGS,
                                 kind="consumer"))
        # what Streams decides whatever the user set, as Java's getMainConsumerConfigs (and,
        # as Java, it says so); the end-of-partition events tell a task waiting for an empty
        # partition that it is caught up (Kafka's fetched lag: StreamThread._fetched_lag)
        decided = {"group.id": self.application_id, "enable.auto.commit": False,
                   "enable.partition.eof": True}
        for key, value in decided.items():
            if str(conf.get(key, value)).lower() != str(value).lower():
                log.warning("unexpected user-specified consumer config: %s; the user setting "
                            "(%s) is ignored and the Streams setting (%s) used", key, conf[key],
                            value)
        conf.update(decided)
        if self.eos:
            conf["isolation.level"] = "read_committed"
        if conf.get("group.instance.id"):
            conf["group.instance.id"] = f"{conf['group.instance.id']}-{index}"
        return conf

    def restore_config(self) -> dict[str, Any]:
        """The config of consumers that read changelogs and global topics (no group)."""
        conf = {"isolation.level": "read_committed" if self.eos else "read_uncommitted",
                "client.id": f"{self.client_id}-restore-consumer"}
        conf.update(self._client("consumer.", "restore.consumer.", names=CONSUMER_CONFIGS,
                                 kind="consumer"))
        if self.eos:
            conf["isolation.level"] = "read_committed"
        # group settings mean nothing to a consumer without a group, and librdkafka refuses a
        # max.poll.interval.ms below its default session timeout (45 s) even there
        for key in ("session.timeout.ms", "heartbeat.interval.ms", "group.instance.id",
                    "max.poll.interval.ms"):
            conf.pop(key, None)
        return conf

    def producer_config(self, index: int) -> dict[str, Any]:
        """The producer's config for stream thread ``index``.

        Kafka Streams defaults ``linger.ms`` to 100; kslab to 5 (10 under exactly-once), as
        librdkafka fills its batches within that at any rate batching pays off at. Under
        exactly-once, with the default 100 ms commit interval, a linger as long as the interval
        would leave each transaction's records queued until the commit's flush, so the commit
        would send them all and wait (W1 live: spans 1.35-1.39 s at 100 against 0.88-1.19 s at
        10). The consumer's settings are librdkafka's defaults, which are Java's (fetch sizes,
        ``fetch.wait.max.ms`` 500) plus ``max.poll.records`` 1000 as Streams sets it."""
        conf: dict[str, Any] = {
            "client.id": f"{self.thread_name(index)}-producer",
            "linger.ms": 5 if not self.eos else 10,
            "delivery.report.only.error": True,
            "enable.idempotence": True,
        }
        if self.eos:
            conf["transactional.id"] = f"{self.application_id}-{self.process_id}-{index}"
            conf["transaction.timeout.ms"] = 10000
        conf.update(self._client("producer.", names=PRODUCER_CONFIGS))
        if self.eos:  # Streams owns the transactions
            conf["transactional.id"] = f"{self.application_id}-{self.process_id}-{index}"
            conf["enable.idempotence"] = True
        return conf

    def admin(self) -> Any:
        """The admin client (created on first use, released by ``close``)."""
        with self._lock:
            if self._released:
                msg = (f"KafkaStreams {self.client_id} is closed and its clients with it; "
                       "create a new KafkaStreams to talk to the brokers again")
                raise StreamsError(msg)
            if self._admin is None:
                from confluent_kafka.admin import AdminClient

                conf = {"client.id": f"{self.client_id}-admin",
                        **self._client("admin.", names=ADMIN_CONFIGS, kind="admin")}
                self._admin = AdminClient(conf)
            return self._admin

    def partition_count(self, topic: str) -> int:
        """Partitions of ``topic`` (from the plan, else the broker's metadata, cached)."""
        count = self._counts.get(topic) or (self.plan.partitions.get(topic) if self.plan else None)
        if count is None:
            metadata = self.admin().list_topics(topic, timeout=10)
            info = metadata.topics.get(topic)
            if info is None or info.error is not None or not info.partitions:
                msg = f"topic '{topic}' is unknown to the broker; create it before writing to it"
                raise StreamsError(msg, topic=topic)
            count = len(info.partitions)
        self._counts[topic] = count
        return count

    # -- state --------------------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The current client state."""
        return self._state

    def set_state_listener(self, listener: Callable[[State, State], None]) -> None:
        """Call ``listener(new_state, old_state)`` on every state change."""
        if self._state is not State.CREATED:
            msg = "set_state_listener must be called before start(); the client already runs"
            raise StreamsError(msg)
        self._state_listener = listener

    def set_uncaught_exception_handler(self, handler: Callable[[BaseException], Any]) -> None:
        """``handler(exc)`` returns REPLACE_THREAD, SHUTDOWN_CLIENT or SHUTDOWN_APPLICATION."""
        if self._state is not State.CREATED:
            msg = "set_uncaught_exception_handler must be called before start()"
            raise StreamsError(msg)
        if handler is None:  # Java's requireNonNull
            msg = "set_uncaught_exception_handler() got None; pass a handler function"
            raise MissingArgumentError(msg)
        self._exception_handler = handler

    def set_standby_update_listener(self, listener: Any) -> None:
        """Tell ``listener`` about standby tasks' updates (Kafka's ``StandbyUpdateListener``):
        ``on_update_start((topic, partition), store, start_offset)``, ``on_batch_loaded((topic,
        partition), store, task_id, batch_end_offset, batch_size, current_end_offset)`` and
        ``on_update_suspended((topic, partition), store, store_offset, current_end_offset,
        reason)`` with ``reason`` ``SuspendReason.PROMOTED`` or ``MIGRATED`` (also when the
        client closes, as Java's); each method is optional. ``start_offset`` is the next offset
        the standby reads, ``store_offset`` the last record in the store (-1: none),
        ``current_end_offset`` the broker's reported end (-1 when unknown)."""
        if self._state is not State.CREATED:
            msg = "set_standby_update_listener must be called before start()"
            raise StreamsError(msg)
        self._standby_listener = listener

    def set_global_state_restore_listener(self, listener: Any) -> None:
        """Hear of every changelog restore (Java's ``StateRestoreListener``; the methods and
        kslab's ``on_restore_waiting`` for a stalled one are in ``kslab.runtime._restore``)."""
        if self._state is not State.CREATED:
            msg = "set_global_state_restore_listener must be called before start()"
            raise StreamsError(msg)
        self.restore_listener = listener

    def _set_state(self, new: State) -> bool:
        with self._lock:
            old = self._state
            if old is new and new is not State.RUNNING:
                return False
            if not old.is_valid_transition(new):
                if old in (State.PENDING_SHUTDOWN, State.NOT_RUNNING, State.PENDING_ERROR,
                           State.ERROR):
                    return False  # shutting down: late thread events are ignored
                msg = f"Stream-client {self.client_id}: Unexpected state transition from " \
                      f"{old.name} to {new.name}"
                raise StreamsError(msg)
            if old is new:
                return False
            self._state = new
            listener = self._state_listener
        log.info("stream-client %s: state transition from %s to %s", self.client_id, old.name,
                 new.name)
        if listener is not None:
            try:
                listener(new, old)
            except Exception as exc:  # pragma: no cover - a listener bug must not kill us
                log.error("state listener raised: %s", exc)
        return True

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Create internal topics, fill global stores and start the stream threads (once the
        warm-up, if any, let them join: ``kslab.runtime._warmup``; the client is REBALANCING
        until then)."""
        if self._state is not State.CREATED:
            msg = f"start() can only be called once, in state CREATED (now {self._state.name})"
            raise StreamsError(msg)
        self._set_state(State.REBALANCING)
        try:
            if any(getattr(b, "persistent", False) for b in self.topology.state_stores.values()):
                self._dir_lock.acquire()  # as Java: only apps with persistent stores lock it
            self._prepare_topics()
            if self.num_threads and not self.plan.source_topics():
                log.info("Overriding number of StreamThreads to zero for global-only topology")
                self.num_threads = 0
            if self.topology.global_stores:
                self._global = GlobalThread(self, self._events)
                self._global.bootstrap()
                self._global.start()
            self._control = threading.Thread(target=self._watch_control, daemon=True,
                                             name=f"{self.client_id}-control")
            self._control.start()
            if self.warmup_enabled and any(self.plan.changelogs_of(g.id)
                                           for g in self.plan.groups):
                self.warmup = WarmUp(self, self.config.get_int("acceptable.recovery.lag", 10_000)
                                     or 0, self.config.get_int("max.warmup.replicas", 2) or 1)
            if self.num_standby_replicas or self.warmup is not None:
                self.standbys = StandbyUpdater(self, self.num_standby_replicas, self.warmup)
                self.standbys.listener = self._standby_listener
                self.standbys.start()
            if self.warmup is None:
                for _ in range(self.num_threads):
                    self._start_thread()
                if not self.num_threads and self._global is not None:
                    self._thread_rebalanced()  # no stream thread: RUNNING with the global one
            else:
                threading.Thread(target=self._join_when_warm, daemon=True,
                                 name=f"{self.client_id}-warmup").start()
            if self.config.get("metrics.exporter") == "prometheus":
                from kslab.runtime.prometheus import serve_metrics

                self._metrics_server, self.metrics_address = serve_metrics(
                    self, self.config.get("metrics.exporter.host"),
                    self.config.get_int("metrics.exporter.port"))
            if self.application_server:
                from kslab.runtime._iq import serve

                self._iq_server = serve(self)
        except BaseException:
            self._set_state(State.PENDING_ERROR)
            self._stop_all()
            self._set_state(State.ERROR)
            raise

    def _join_when_warm(self) -> None:
        """Start the stream threads once the warm-up lets them join (``kslab.runtime._warmup``),
        or at once if the standby updater that runs it failed; never after close()."""
        warmup, updater = self.warmup, self.standbys
        assert warmup is not None and updater is not None
        while not warmup.ready.wait(0.2):
            if self._closing.is_set():
                return
            if not updater.is_alive():
                log.error("%s: the warm-up ended with the standby updater (%s); the stream "
                          "threads join now", self.client_id, updater.failed)
                break
        with self._lock:
            if self._closing.is_set():
                return
            for _ in range(self.num_threads - len(self._threads)):  # add_stream_thread's
                self._start_thread()  # (called during the warm-up) joined already

    def _prepare_topics(self) -> None:
        admin = self.admin()
        self.plan = TopicPlan.build(self.topology, self.application_id, existing_topics(admin),
                                    self.config)
        wanted = {t: (self.plan.partitions[t], cfg) for t, cfg in self.plan.internal.items()}
        if self.application_server or self.num_standby_replicas or self.warmup_enabled:
            wanted[self.hosts_topic] = (1, {"cleanup.policy": "compact"})
        wanted[self.control_topic] = (1, {"cleanup.policy": "delete"})
        replication = self.config.get_int("replication.factor") or -1
        created = create_topics(admin, wanted, replication)
        if created:
            log.info("created internal topics %s", created)
            self._wait_for_topics(created)

    @property
    def control_topic(self) -> str:
        """Where a SHUTDOWN_APPLICATION request reaches every instance of the application."""
        return f"{self.application_id}-kslab-control"

    def _watch_control(self) -> None:
        from confluent_kafka import OFFSET_END, Consumer, TopicPartition

        consumer = Consumer({**self.restore_config(), "group.id": f"{self.application_id}-ctl"})
        consumer.assign([TopicPartition(self.control_topic, 0, OFFSET_END)])
        try:
            while not self._closing.is_set():
                for message in consumer.consume(10, 0.3):
                    if message.error() is None and message.value() == b"SHUTDOWN_APPLICATION":
                        log.error("stream-client %s: shutdown requested by %s", self.client_id,
                                  (message.key() or b"?").decode())
                        if self._set_state(State.PENDING_ERROR):
                            threading.Thread(target=self._shutdown_to_error, daemon=True).start()
        finally:
            consumer.close()

    def _request_application_shutdown(self) -> None:
        from confluent_kafka import Producer

        producer = Producer({"client.id": f"{self.client_id}-control-producer",
                             **self._client("producer.")})
        producer.produce(self.control_topic, b"SHUTDOWN_APPLICATION", self.client_id.encode())
        close_producer(producer, 10, f"the control producer of {self.client_id}")

    @property
    def hosts_topic(self) -> str:
        """Where instances publish their application.server and partitions (for IQ routing),
        and their group members (for standby placement, ``kslab.runtime._placement``)."""
        return f"{self.application_id}-kslab-hosts-changelog"

    def publish_assignment(self, member: str, partitions: list[tuple[str, int]], *,
                           sort_key: str = "", closed: bool = False) -> None:
        """Tell other instances which partitions ``member`` (a thread) owns at this server;
        ``sort_key`` is what the range assignor orders it by (its ``group.instance.id``, else
        its member id), ``closed`` says it left the group."""
        if not self.application_server and not self.num_standby_replicas \
                and not self.warmup_enabled:
            return
        import json

        from confluent_kafka import Producer

        with self._lock:
            if self._released:
                return  # closed: the other instances see this one's group membership end
            if self._hosts_producer is None:
                self._hosts_producer = Producer({"client.id": f"{self.client_id}-hosts-producer",
                                                 **self._client("producer.")})
            producer = self._hosts_producer
        value = json.dumps({"host": self.application_server, "time": time.time(),
                            "partitions": sorted(partitions), "process": self.process_id,
                            "sort": sort_key, "closed": closed}).encode()
        producer.produce(self.hosts_topic, value, member.encode())
        producer.flush(10)

    def _wait_for_topics(self, topics: list[str]) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            known = existing_topics(self.admin())
            if all(t in known for t in topics):
                return
            time.sleep(0.05)

    def pause(self) -> None:
        """Stop processing (Kafka's ``pause()``): the threads keep polling, so the group
        membership holds, but fetch and process nothing, and wall-clock punctuators wait. A
        rebalance while paused ends in ``REBALANCING`` until ``resume()``, as Java's paused
        tasks are not made running (a client started paused stays ``REBALANCING``)."""
        self._paused.set()

    def resume(self) -> None:
        """Process again after ``pause()``, from where each partition stopped."""
        self._paused.clear()
        self._thread_rebalanced()

    def is_paused(self) -> bool:
        """Whether ``pause()`` is in effect."""
        return self._paused.is_set()

    def add_stream_thread(self) -> str | None:
        """Start one more stream thread (the group rebalances); its name, or ``None`` when the
        client is not running or rebalancing (Java returns an empty Optional)."""
        if not self._state.is_running_or_rebalancing():
            return None
        return self._start_thread(adding=True).name

    def remove_stream_thread(self, timeout: Any = None) -> str | None:
        """Stop one stream thread (it commits and leaves the group, which rebalances its
        partitions to the others); its name, or ``None`` when the client is not running or has
        no thread. The thread is the live one of highest index (the last added), never the
        calling stream thread unless it is the last. Java stops the oldest instead, but that is
        usually the group's leader, and a leader that leaves mid-rebalance stalls the group for
        good on the LocalBroker (``bench/leader_leave.py``). Raises ``StreamsError`` when it
        does not end within ``timeout`` (a ``timedelta`` or ms; it goes on shutting down)."""
        if not self._state.is_running_or_rebalancing():
            return None
        current = threading.current_thread()
        with self._lock:  # choose and mark it at once: concurrent removals stop two threads
            alive = sorted(self._live_threads(), key=lambda t: -t.index)
            thread = next((t for t in alive if t is not current or len(alive) == 1), None)
            if thread is None:
                return None
            thread.stopping = True
        thread.shutdown()
        seconds = None if timeout is None else (
            timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout / 1000)
        if thread is not current and (seconds is None or seconds > 0):
            thread.join(seconds)
        with self._lock:
            size = self._cache_size_per_thread(len(self._live_threads()))
            log.info("Resizing thread cache due to thread removal, new cache size per thread "
                     "is %d", size)
            self._resize_thread_caches(size)
        if thread is not current and thread.is_alive():
            msg = (f"stream thread {thread.name} did not end within {seconds} s; it is "
                   "still shutting down")
            raise StreamsError(msg)
        return thread.name

    def _start_thread(self, *, adding: bool = False) -> StreamThread:
        """Start a stream thread with the lowest index no live thread has (Java's
        ``getNextThreadIndex``): a replacement thread takes its predecessor's name, producer
        ``transactional.id`` and static ``group.instance.id``. Every thread's record cache gets
        ``statestore.cache.max.bytes`` over the live threads (and the global thread, if any),
        as Java sizes them; ``adding`` logs the new share as Java's ``addStreamThread``."""
        with self._lock:
            taken = {t.index for t in self._threads}
            index = next(i for i in range(1, len(taken) + 2) if i not in taken)
            live = len(self._live_threads()) + 1 if adding else self.num_threads
            size = self._cache_size_per_thread(live)
            if adding:
                log.info("Adding StreamThread-%d, there will now be %d live threads and the new "
                         "cache size per thread is %d", index, live, size)
            self._resize_thread_caches(size)
            thread = StreamThread(self, index, self._events)
            thread.resize_cache(size)
            self._threads.append(thread)
        thread.start()
        return thread

    def _live_threads(self) -> list[StreamThread]:
        """The stream threads running and not being removed (Java's live threads: neither
        ``PENDING_SHUTDOWN`` nor ``DEAD``)."""
        return [t for t in self._threads if t.is_alive() and not t.stopping]

    def _cache_size_per_thread(self, threads: int) -> int:
        """Each thread's share of ``statestore.cache.max.bytes`` (Java's
        ``cacheSizePerThread``: the global thread counts as one)."""
        total = self.config.total_cache_size()
        if threads == 0:
            return total
        return total // (threads + (1 if self.topology.global_stores else 0))

    def _resize_thread_caches(self, size: int) -> None:
        for thread in self._live_threads():
            thread.resize_cache(size)

    def _thread_rebalancing(self) -> None:
        if self._state is State.RUNNING:
            self._set_state(State.REBALANCING)

    def _thread_rebalanced(self) -> None:
        """RUNNING once every live thread has its assignment (Java's ``maybeSetRunning``: a
        thread being removed does not hold the client back)."""
        with self._lock:
            done = all(not t.rebalancing for t in self._live_threads())
        if done and self._state is State.REBALANCING and not self.is_paused():
            self._set_state(State.RUNNING)

    def _thread_finished(self, thread: StreamThread) -> None:
        with self._lock:
            if thread in self._threads:
                self._threads.remove(thread)
            last = not self._threads
        if last and self._closing.is_set():
            self._release_clients()  # close() timed out before this thread ended
        exc = thread.failed
        if exc is None:  # removed, or closing: the others may be all that RUNNING waited for
            self._thread_rebalanced()
            return
        if self._state in (State.PENDING_SHUTDOWN, State.NOT_RUNNING):
            return
        self.errors.append(exc)
        response = self._handle(exc)
        if response is StreamThreadExceptionResponse.REPLACE_THREAD:
            log.warning("replacing %s after: %s", thread.name, exc)
            if self._state.is_running_or_rebalancing():
                self._set_state(State.REBALANCING)
                self._start_thread(adding=True)
            return
        self._shut_down_to_error(response)

    def _shut_down_to_error(self, response: StreamThreadExceptionResponse, *,
                            can_ask: bool = True) -> None:
        """End in ERROR; under SHUTDOWN_APPLICATION ask every instance to stop first (when
        ``can_ask``: a stream thread here is alive to send it)."""
        if response is StreamThreadExceptionResponse.SHUTDOWN_APPLICATION and can_ask:
            try:
                self._request_application_shutdown()
            except Exception as error:
                log.error("could not ask the other instances to shut down: %s", error)
        if self._set_state(State.PENDING_ERROR):
            threading.Thread(target=self._shutdown_to_error, daemon=True).start()

    def _global_failed(self, exc: BaseException) -> None:
        """The global thread died: the handler hears of it, and the client goes to ERROR
        whatever it answers (Java: the global thread cannot be replaced; SHUTDOWN_APPLICATION
        asks the other instances to stop too, when a stream thread here can send it)."""
        if self._state in (State.PENDING_SHUTDOWN, State.NOT_RUNNING):
            return
        self.errors.append(exc)
        response = self._handle(exc)
        if response is StreamThreadExceptionResponse.REPLACE_THREAD:
            log.warning("the global thread cannot be replaced; shutting the client down")
        with self._lock:
            live = any(t.is_alive() for t in self._threads)
        self._shut_down_to_error(response, can_ask=live)

    def _handle(self, exc: BaseException) -> StreamThreadExceptionResponse:
        handler = self._exception_handler
        if handler is None:
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT
        try:
            response = handler(exc)
        except Exception as error:
            log.error("the uncaught exception handler raised %s; shutting the client down", error)
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT
        if isinstance(response, str):
            response = StreamThreadExceptionResponse[response.upper()]
        if not isinstance(response, StreamThreadExceptionResponse):
            log.error("the uncaught exception handler returned %r; shutting down", response)
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT
        return response

    def _shutdown_to_error(self) -> None:
        self._stop_all()
        self._set_state(State.ERROR)

    def _stop_all(self, timeout: float | None = None) -> bool:
        """Stop every thread and close every client; True if all ended within ``timeout`` s.

        Stream threads close their own clients as they end; the clients they share (admin,
        hosts producer) are closed once the last of them has ended, here or, after a
        timeout, by that last thread (``_thread_finished``).
        """
        self._closing.set()
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.shutdown()
        if self.standbys is not None:
            self.standbys.shutdown()
        deadline = None if timeout is None else time.monotonic() + timeout

        def remaining() -> float | None:
            return None if deadline is None else max(deadline - time.monotonic(), 0)

        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(remaining())
        if self.standbys is not None and self.standbys is not threading.current_thread():
            self.standbys.join(remaining())
        if self._global is not None:
            self._global.shutdown()
            if self._global.is_alive():
                self._global.join(10 if deadline is None else min(10, remaining() or 0))
            else:
                self._global.close()
        if self._control is not None and self._control is not threading.current_thread():
            self._control.join(remaining())
        for server in (self._iq_server, self._metrics_server):
            if server is not None:
                server.shutdown()
                server.server_close()
        self._iq_server = self._metrics_server = None
        done = not any(t.is_alive() for t in threads)
        if done:
            self._release_clients(5 if deadline is None else min(5, remaining() or 0))
        return done

    def _release_clients(self, wait: float = 5) -> None:
        """Close the clients the stream threads share (once none of them runs any more),
        flushing the hosts producer for up to ``wait`` s."""
        with self._lock:
            if self._released:
                return
            self._released = True
            hosts, self._hosts_producer = self._hosts_producer, None
            self._admin = None  # an AdminClient has no close(): its last reference ends it
            self._dir_lock.release()  # no stream thread writes the state directory any more
        if hosts is not None:
            close_producer(hosts, wait, f"the hosts producer of {self.client_id}")

    def close(self, timeout: Any = None) -> bool:
        """Finish in-flight work, commit, leave the group; True if done within ``timeout``."""
        seconds = None
        if timeout is not None:
            seconds = timeout.total_seconds() if hasattr(timeout, "total_seconds") \
                else timeout / 1000
            if seconds < 0:
                msg = f"Timeout can't be negative. (close() got {timeout!r}); pass 0 or more ms"
                raise InvalidArgumentError(msg)
        if self._state in (State.NOT_RUNNING, State.ERROR):
            return True
        if self._state is State.CREATED:
            self._set_state(State.PENDING_SHUTDOWN)
            self._release_clients()  # partition_count may have made the admin client
            self._set_state(State.NOT_RUNNING)
            return True
        if self._state is State.PENDING_ERROR:
            done = self._stop_all(seconds)
            self._set_state(State.ERROR)
            return done
        self._set_state(State.PENDING_SHUTDOWN)
        done = self._stop_all(seconds)
        self._set_state(State.NOT_RUNNING)
        return done

    def cleanup(self) -> None:
        """Delete this application's local state (only when not running): its task and global
        directories, and the application's directory if nothing else is in it (Java's
        ``cleanUp``: the process id and a file of the user's stay)."""
        if self._state.is_running_or_rebalancing() or self._state is State.PENDING_SHUTDOWN:
            msg = "cleanup() cannot run while the client runs; call close() first"
            raise StreamsError(msg)
        clean_state_dir(self.state_root)

    def wait_until_running(self, timeout: float = 30.0) -> bool:
        """Block until RUNNING (True), or until ``timeout`` s pass or the client fails."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._state is State.RUNNING:
                return True
            if self._state in (State.ERROR, State.NOT_RUNNING, State.PENDING_ERROR):
                return False
            time.sleep(0.02)
        return False

    def __enter__(self) -> KafkaStreams:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<KafkaStreams {self.application_id} {self._state.name} " \
               f"threads={len(self._threads)}>"

    # -- errors -------------------------------------------------------------------------------

    def _skipped_record(self, record: Any, error: BaseException) -> None:
        self.dropped["deserialization"] += 1
        if self.dlq_topic:
            self.errors_policy.write_dead_letter(
                threading.current_thread(), record.key, record.value,
                dlq_headers(record.headers, error, record.topic, record.partition,
                            record.offset), record.timestamp)

    def _production_error(self, message: Any, error: Exception, skipped: bool) -> None:
        """A record the broker refused: count it when ``log_and_continue`` skips it, and write
        it to the DLQ if there is one (under ``log_and_fail`` too, as Java's default handlers)."""
        if skipped:
            self.dropped["production"] += 1
        if self.dlq_topic and message is not None:
            self.errors_policy.write_dead_letter(
                threading.current_thread(), message.key(), message.value(),
                dlq_headers(message.headers(), error, message.topic(), message.partition(), -1),
                message.timestamp()[1])

    # -- queries ------------------------------------------------------------------------------

    def local_tasks(self) -> dict[Any, Any]:
        """Task id -> running ``StreamTask`` across this instance's threads."""
        with self._lock:
            threads = list(self._threads)
        out = {}
        for thread in threads:
            for task_id, state in list(thread.tasks.items()):
                out[task_id] = state.task
        return out

    def task_positions(self) -> dict[Any, dict[tuple[str, int], int]]:
        """Task id -> the next offset of each input partition this instance's active task of
        it has processed (what IQv2's positions are made of)."""
        with self._lock:
            threads = list(self._threads)
        return {task_id: dict(state.offsets) for thread in threads
                for task_id, state in list(thread.tasks.items())}

    def query(self, request: Any) -> Any:
        """Run a typed interactive query (Kafka's IQv2: ``kslab.runtime.iq_v2``) on this
        instance's tasks of the request's store: a ``StateQueryResult`` by partition."""
        from kslab.runtime.iq_v2 import run_query

        return run_query(self, request)

    def store(self, name: Any, *, kind: str | None = None) -> Any:
        """A read-only view of store ``name`` over this instance's active tasks.

        ``name`` may be a ``StoreQueryParameters`` (``kslab.runtime``), as Java's
        ``store(StoreQueryParameters)``: ``enable_stale_stores()`` adds this instance's standby
        tasks (stale reads), ``with_partition(p)`` keeps one partition.
        """
        from kslab.runtime._iq import store_view

        return store_view(self, name, kind)

    def metadata_for_local_threads(self) -> list[Any]:
        """One ``ThreadMetadata`` per stream thread: its name, state and active tasks."""
        from kslab.runtime._iq import local_thread_metadata

        with self._lock:
            threads = list(self._threads)
        return local_thread_metadata(threads)

    def metadata_for_all_streams_clients(self) -> list[Any]:
        """Every running instance of this application: ``StreamsMetadata(host_info,
        state_store_names, topic_partitions, standby_state_store_names,
        standby_topic_partitions)``, from the hosts topic the instances publish to."""
        from kslab.runtime._iq import check_running
        from kslab.runtime._iq_cluster import all_metadata

        check_running(self, "metadata_for_all_streams_clients()")
        return all_metadata(self)

    def streams_metadata_for_store(self, store_name: str) -> list[Any]:
        """The instances whose active tasks hold ``store_name``."""
        from kslab.runtime._iq import check_running

        check_running(self, "streams_metadata_for_store()")
        if store_name not in self.topology.state_stores:
            msg = f"store '{store_name}' is not a local store of this topology; check the name"
            raise StoreError(msg)
        return [m for m in self.metadata_for_all_streams_clients()
                if store_name in m.state_store_names]

    def query_metadata_for_key(self, store_name: str, key: Any, key_serde: Any = None) -> Any:
        """Where ``key`` of ``store_name`` lives: ``KeyQueryMetadata(active_host, ...)``."""
        from kslab.runtime._iq import check_running, query_metadata_for_key

        check_running(self, "query_metadata_for_key()")
        return query_metadata_for_key(self, store_name, key, key_serde)

    def metrics(self) -> dict[str, Any]:
        """Metrics by thread and task: processed, rates, commit latency, lag, drops, restores."""
        with self._lock:
            threads = list(self._threads)
        out: dict[str, Any] = {"client": {
            "state": self._state.name,
            "dropped-records-total": sum(self.dropped.values()) - self.dropped["dlq"],
            "deserialization-errors-skipped": self.dropped["deserialization"],
            "processing-errors-skipped": self.dropped["processing"],
            "production-errors-skipped": self.dropped["production"],
            "dead-letter-records": self.dropped["dlq"],
            "alive-stream-threads": len(threads),
        }, "threads": {}}
        for thread in threads:
            out["threads"][thread.name] = thread.metrics()
        if self._global is not None:
            out["global"] = {"process-total": self._global.processed}
        if self.standbys is not None:
            failed = self.standbys.failed
            out["standby"] = {"standby-tasks": sorted(str(t) for t in list(self.standbys.tasks)),
                              "update-total": self.standbys.updates,
                              "failed": None if failed is None else repr(failed)}
        if self.warmup is not None:
            out["warmup"] = self.warmup.metrics()
        return out


def _required(config: StreamsConfig, name: str) -> str:
    value = config.get(name)
    if not value:
        msg = f"config '{name}' is required by KafkaStreams; set it in the config dict"
        raise KslabError(msg)
    return str(value)


class _ThreadEvents:
    """The ``ThreadEvents`` of one client (``kslab.runtime._events``): what its threads tell
    it, handed to its state machine, exception handling and error counters."""

    __slots__ = ("_streams",)

    def __init__(self, streams: KafkaStreams) -> None:
        self._streams = streams

    def rebalancing(self) -> None:
        self._streams._thread_rebalancing()

    def rebalanced(self) -> None:
        self._streams._thread_rebalanced()

    def finished(self, thread: Any) -> None:
        self._streams._thread_finished(thread)

    def global_failed(self, error: BaseException) -> None:
        self._streams._global_failed(error)

    def skipped_record(self, record: Any, error: BaseException) -> None:
        self._streams._skipped_record(record, error)

    def production_error(self, message: Any, error: Exception, skipped: bool) -> None:
        self._streams._production_error(message, error, skipped)
