"""The processor context of one task: the current node, the current record's origin, forwarding.

One ``TaskContext`` serves every processor of a task, as Kafka's ``ProcessorContextImpl`` does:
the task points ``current`` at the node that runs, and ``forward`` walks the children depth
first, sets ``record`` to the forwarded record while they run (so stores stamp changelog writes
with it, as Kafka's record context does), turns what user code raises into a ``StreamsError``
naming the node, and restores both afterwards. Invariant: outside a ``forward`` call,
``current`` is the node whose user code is running (or ``None``).
"""

from __future__ import annotations

import inspect
from datetime import timedelta
from pathlib import Path
from types import BuiltinMethodType, MethodType
from typing import TYPE_CHECKING, Any

from kslab.core.global_task import GLOBAL_TASK
from kslab.errors import InvalidArgumentError, KslabError, StoreError, StreamsError
from kslab.processor import FixedKeyProcessorContext, ProcessorContext, PunctuationType
from kslab.records import FixedKeyRecord, Record, RecordMetadata, TaskId, plain_record
from kslab.state.base import check_restore_listener

if TYPE_CHECKING:
    from kslab.core.nodes import RuntimeNode, SinkRuntime
    from kslab.core.punctuation import Schedule
    from kslab.core.task import StreamTask

__all__ = ["FixedKeyContext", "InvalidScheduleError", "RecordContext", "TaskContext"]


class InvalidScheduleError(StreamsError, InvalidArgumentError):
    """A punctuation interval below one millisecond (Java's ``IllegalArgumentException`` from
    ``ProcessorContext.schedule``)."""


# what a global store's processor may not do (Java's GlobalProcessorContextImpl throws
# UnsupportedOperationException): Java's message, then the fix
_GLOBAL_FORWARD_TO_CHILD = ("this should not happen: forward() not supported in global processor "
                            "context; a global store's processor forwards to all its children")
_GLOBAL_SCHEDULE = ("this should not happen: schedule() not supported in global processor "
                    "context; a global store's processor only updates its store from its "
                    "topic: schedule from a processor of a stream task")
_GLOBAL_STREAM_TIME = ("There is no concept of stream-time for a global processor; use the "
                       "record's timestamp")


_NO_RECORD = Record(None, None, 0)


def _type_name(obj: Any, what: str) -> str:
    return f"unknown because {what} is None" if obj is None else type(obj).__name__


def _type_error_hint(node: str, record: Record) -> str:
    """Java's hint for a ``ClassCastException`` in a processor, for its Python kin ``TypeError``:
    wrong serdes hand a processor objects of types it does not expect."""
    return (
        f"TypeError invoking processor: {node}. Do the Processor's input types match the "
        "deserialized types? Check the Serde setup and change the default Serdes in "
        "StreamsConfig or provide correct Serdes via method parameters. Make sure the Processor "
        f"can accept the deserialized input of type key: {_type_name(record.key, 'key')}, and "
        f"value: {_type_name(record.value, 'value')}.\nNote that although incorrect Serdes are "
        "a common cause of error, the TypeError might have another cause (in user code, for "
        "example)."
    )


_STREAMS_ONLY = "This method may only be called by Kafka Streams"
_GLOBAL_READ_ONLY = "Global store is read only"
_WRITES = frozenset({"put", "put_if_absent", "put_all", "delete", "remove", "flush"})


class _StoreView:
    """A store as a processor sees it, as Java's store decorators: ``init`` and ``close`` are
    Kafka Streams' (it opens and closes stores with the task), and a global store is read only
    outside its global task (only the global store's processor updates it, from its topic).

    Everything else is the store's own. ``store_view`` makes a class per viewed store whose
    attributes are that store's bound methods (a call costs what a call on the store costs:
    no instance dict, no ``__getattr__``) and properties reading its data; ``isinstance`` sees
    the store's class."""

    __slots__ = ("_kslab_viewed",)

    def __repr__(self) -> str:
        return repr(self._kslab_viewed)


def _members(kind: type) -> list[tuple[str, Any]]:
    """The attributes a class gives its instances (dunders aside)."""
    return [(attr, inspect.getattr_static(kind, attr)) for attr in dir(kind)
            if not (attr.startswith("__") and attr.endswith("__"))]


def _reader(attr: str) -> property:
    return property(lambda view: getattr(view._kslab_viewed, attr))


def store_view(store: Any, read_only: bool) -> _StoreView:
    """``store`` behind Java's decorator rules (see ``_StoreView``)."""
    kind = type(store)
    namespace: dict[str, Any] = {"__slots__": (),
                                 "__class__": property(lambda view: kind)}  # isinstance
    for attr, member in _members(kind):
        if attr in ("init", "close"):
            namespace[attr] = _refuse(store, attr, _STREAMS_ONLY,
                                      "stores open and close with their task")
        elif read_only and attr in _WRITES:
            namespace[attr] = _refuse(store, attr, _GLOBAL_READ_ONLY,
                                      "only the global store's own processor updates it")
        elif callable(member) and not isinstance(member, type | property):
            method = getattr(store, attr)  # bound: not a descriptor, kept as it is
            namespace[attr] = method if isinstance(method, MethodType | BuiltinMethodType) \
                else staticmethod(method)
        else:
            namespace[attr] = _reader(attr)
    view = type(f"{kind.__name__}View", (_StoreView,), namespace)()
    view._kslab_viewed = store
    return view  # type: ignore[no-any-return]


def _refuse(store: Any, method: str, reason: str, why: str) -> Any:
    name = getattr(store, "name", "?")

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        msg = f"{reason}: a processor cannot call {method}() on store '{name}'; {why}"
        raise StoreError(msg)

    return staticmethod(refuse)


class RecordContext:
    """What a topic extractor or partitioner may know of the record: where it came from."""

    __slots__ = ("headers", "offset", "partition", "timestamp", "topic")

    def __init__(self, topic: str | None, partition: int, offset: int, timestamp: int, headers):
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.timestamp = timestamp
        self.headers = headers


class TaskContext(ProcessorContext):
    """The ``ProcessorContext`` and ``StoreContext`` of one task."""

    def __init__(self, task: StreamTask) -> None:
        self._task = task
        if type(self).send is TaskContext.send:
            self.send = task.collector.send  # type: ignore[method-assign] # skip a hop
        self.current: RuntimeNode | None = None
        self.topic: str | None = None
        self.partition = -1
        self.offset = -1
        self.record: Record = _NO_RECORD
        self._changelog_writers: dict[str, Any] = {}  # store name -> write(k, v, h, ts, p)
        self._store_views: dict[tuple[str, bool], _StoreView] = {}
        # a global store's processor runs in the global task, whose context (Java's
        # GlobalProcessorContextImpl) has no stream time, punctuation or named children
        self.is_global = task.id == GLOBAL_TASK

    @property
    def timestamp(self) -> int:
        """The timestamp of the record being handled (the fire time inside a punctuation)."""
        return self.record.timestamp

    @property
    def headers(self) -> Any:
        """The headers of the record being handled."""
        return self.record.raw_headers

    # -- forwarding -------------------------------------------------------------------------------

    def forward(self, record: Record, child_name: str | None = None) -> None:
        """Send ``record`` to every child of the current node, or only to ``child_name``."""
        node = self.current
        if child_name is None:
            try:
                children = node.children  # type: ignore[union-attr]
            except AttributeError:
                msg = "forward() was called outside process() and punctuation; forward from those"
                raise StreamsError(msg) from None
        else:
            if self.is_global:
                raise StreamsError(_GLOBAL_FORWARD_TO_CHILD, node=node.name if node else None)
            child = node.children_by_name.get(child_name) if node is not None else None
            if child is None:
                known = ", ".join(repr(c) for c in node.children_by_name) if node else "none"
                msg = (
                    f"Unknown downstream node: '{child_name}' either does not exist or is not "
                    f"connected to this processor ('{node.name if node else '?'}'); its "
                    f"children are: {known or 'none'}"
                )
                raise StreamsError(msg, node=node.name if node else None)
            children = (child,)
        previous = self.record
        self.record = record
        for child in children:
            self.current = child
            try:
                child.call(record)
            except KslabError:
                raise
            except Exception as exc:
                raise self.processing_error(child.name, record, exc) from exc
        self.current = node
        self.record = previous

    # A source only forwards: handing it a freshly read record is a forward from it. This
    # name is the seam where tracing notes the source (``current`` is the source).
    process_source = forward

    def for_node(self, node: RuntimeNode) -> ProcessorContext:
        """The context handed to ``node``'s processor in ``init``."""
        self.current = node
        if getattr(node, "fixed_key", False):
            return FixedKeyContext(self, node)
        return self

    # -- scheduling -------------------------------------------------------------------------------

    def schedule(
        self, interval: Any, punctuation_type: PunctuationType, punctuator: Any
    ) -> Schedule:
        """Call ``punctuator(timestamp)`` every ``interval`` of stream or wall-clock time."""
        if self.is_global:
            raise StreamsError(_GLOBAL_SCHEDULE)
        node = self.current
        if node is None:
            msg = "schedule() needs a current node; call it from init(), process() or a punctuator"
            raise StreamsError(msg)
        if isinstance(interval, timedelta):
            interval = int(interval.total_seconds() * 1000)
        if not isinstance(interval, int) or interval < 1:
            msg = (
                "The minimum supported scheduling interval is 1 millisecond. (processor "
                f"'{node.name}' scheduled a punctuation every {interval!r} ms)"
            )
            raise InvalidScheduleError(msg, node=node.name)
        if not isinstance(punctuation_type, PunctuationType):
            msg = (
                f"processor '{node.name}' passed {punctuation_type!r} as the punctuation type; "
                "use ks.PunctuationType.STREAM_TIME or WALL_CLOCK_TIME"
            )
            raise StreamsError(msg, node=node.name)
        if not callable(punctuator):
            punctuate = getattr(punctuator, "punctuate", None)
            if punctuate is None:
                msg = f"punctuator {punctuator!r} of '{node.name}' is not callable"
                raise StreamsError(msg, node=node.name)
            punctuator = punctuate
        return self._task.schedule(node, interval, punctuation_type, punctuator)

    # -- stores -----------------------------------------------------------------------------------

    def get_state_store(self, name: str) -> Any:
        """The typed store ``name``, if the current processor is connected to it."""
        task = self._task
        node = self.current
        store = task.global_stores.get(name)
        if store is not None:
            # read only, except for the global task's own processor (its store is local there)
            return self._user_view(node, name, store, read_only=name not in task.stores)
        allowed = getattr(node, "stores", ())
        if name in allowed or (self.is_global and name in task.stores):
            return self._user_view(node, name, task.stores[name], read_only=False)
        if self.is_global:
            return None  # Java's global context: any global store, else null
        node_name = node.name if node is not None else "?"
        visible = sorted({*allowed, *task.global_stores})
        if name in task.stores or name in task.topology.state_stores:
            msg = (
                f"Processor '{node_name}' has no access to StateStore '{name}' as the store is "
                "not connected to the processor; connect it with "
                f"add_state_store(builder, '{node_name}') or connect_processor_and_state_stores"
                f"('{node_name}', '{name}') (stores it can see: {visible or 'none'})"
            )
        else:
            msg = (
                f"Processor '{node_name}' asked for unknown StateStore '{name}'; stores it can "
                f"see: {visible or 'none'} — check the name, or add the store to the topology"
            )
        raise StoreError(msg)

    def _user_view(self, node: Any, name: str, store: Any, *, read_only: bool) -> Any:
        """``store`` as a user processor sees it (Java's read-write and read-only store
        decorators); kslab's own processors get the store itself."""
        processor = getattr(node, "processor", None)
        if processor is None or type(processor).__module__.startswith("kslab."):
            return store
        views = self._store_views
        view = views.get((name, read_only))
        if view is None or view._kslab_viewed is not store:
            view = views[(name, read_only)] = store_view(store, read_only)
        return view

    # -- metadata ---------------------------------------------------------------------------------

    def commit(self) -> None:
        """Ask the engine to commit soon."""
        self._task.commit_requested = True

    @property
    def application_id(self) -> str:
        """The ``application.id``."""
        return self._task.application_id

    @property
    def task_id(self) -> TaskId:
        """This task's id."""
        return self._task.id

    @property
    def record_collector(self) -> Any:
        """Engine plumbing: the task's record collector, which the engine's thread writes
        through (and which owns that thread's record cache)."""
        return self._task.collector

    def record_metadata(self) -> RecordMetadata | None:
        """Topic, partition and offset of the record being processed; ``None`` in punctuation."""
        if self.topic is None:
            return None
        return RecordMetadata(self.topic, self.partition, self.offset)

    def current_stream_time_ms(self) -> int:
        """The task's stream time."""
        if self.is_global:
            raise StreamsError(_GLOBAL_STREAM_TIME)
        return self._task.stream_time

    def record_dropped(self) -> None:
        """Count a record an operator skipped (Kafka's ``dropped-records-total``)."""
        self._task.metrics.dropped_records += 1

    def current_system_time_ms(self) -> int:
        """The engine's wall clock."""
        return self._task.clock()

    def node_metrics(self, name: str | None = None) -> dict[str, float]:
        """The metrics dict of the current node (or of ``name``, e.g. a store), which the
        engines' ``metrics()`` report under that name; processors write Kafka's metric names
        into it."""
        if name is None:
            current = self.current
            if current is None:
                msg = "node_metrics() needs a node name outside a processor's init or process"
                raise KslabError(msg)
            name = current.name
        return self._task.metrics.nodes.setdefault(name, {})

    def processor_metadata_for_key(self, key: str) -> int | None:
        """A value a processor of this task kept across restarts (committed with the offsets)."""
        return self._task.processor_metadata.get(key)

    def add_processor_metadata_key_value(self, key: str, value: int) -> None:
        """Keep ``value`` under ``key`` across restarts: it is committed with the next offsets."""
        self._task.processor_metadata.put(key, value)

    def app_configs(self) -> dict[str, Any]:
        """The configuration as given."""
        return self._task.config.as_dict()

    @property
    def state_dir(self) -> Path | None:
        """This task's directory for persistent stores."""
        return self._task.state_dir

    # -- the StoreContext side ----------------------------------------------------------------

    @property
    def default_key_serde(self) -> Any:
        """The configured default key serde."""
        return self._task.default_key_serde

    @property
    def default_value_serde(self) -> Any:
        """The configured default value serde."""
        return self._task.default_value_serde

    def changelog_topic(self, store_name: str) -> str:
        """``<application.id>-<store>-changelog`` (or the topic a read-only store reuses)."""
        topic = self._task.changelog_topics.get(store_name)
        return topic or f"{self._task.application_id}-{store_name}-changelog"

    def log_change(self, store_name: str, key: bytes, value: bytes | None,
                   timestamp: int | None = None, headers: Any = None) -> None:
        """Send a store write to its changelog, stamped ``timestamp`` or the record's time
        (``headers``: e.g. the suppression buffer's version header, as Java writes it)."""
        try:
            write = self._changelog_writers[store_name]
        except KeyError:
            write = self._changelog_writer(store_name)
        if write is None:
            return
        if timestamp is None:
            timestamp = self.record.timestamp
        if write.__class__ is list:  # the engine holds every write, in order, until the
            # commit (its changelog batch)
            write.append((key, value, headers, timestamp))
        else:
            write(key, value, headers, timestamp, self._task.id.partition)

    def register(self, store: Any, callback: Any) -> None:
        """Java's ``StateStoreContext.register(store, callback)``: ``callback`` becomes
        ``store``'s own restore listener (``kslab.state.base.check_restore_listener``), told of
        its changelog restores; the records go through the store's ``restore_batch``."""
        name = store.name
        self._task.restore_listeners[name] = check_restore_listener(callback, name)

    def _changelog_writer(self, store_name: str) -> Any:
        """How ``log_change`` writes to ``store_name``'s changelog (``None``: not logged): the
        engine's batch of held writes when it keeps one (``changelog_batch``), else
        its direct writer or ``send``."""
        task = self._task
        topic = task.changelog_topics.get(store_name)
        write = None
        if topic is not None:
            batch = getattr(task.collector, "changelog_batch", None)
            write = None if batch is None else batch(topic, task.id.partition)
            if write is None and task.id.partition == 0:
                write = self.writer(topic)
            if write is None:
                send = task.collector.send

                def write(key: Any, value: Any, headers: Any, timestamp: int,
                          partition: int) -> None:
                    send(topic, key, value, headers, timestamp, partition, None)

        self._changelog_writers[store_name] = write
        return write

    # -- helpers for runtime nodes -------------------------------------------------------------

    def processing_error(self, node: str, record: Record, exc: BaseException) -> StreamsError:
        """A ``StreamsError`` for ``exc`` raised by ``node`` while handling ``record``."""
        where = (
            f"topic '{self.topic}', partition {self.partition}, offset {self.offset}"
            if self.topic is not None
            else "a punctuation"
        )
        msg = (
            f"Exception caught in process. taskId={self._task.id}, processor={node}, {where}, "
            f"key={record.key!r}, value={record.value!r}: {exc!r}; fix the processor or "
            "filter the record before it"
        )
        if isinstance(exc, TypeError):
            msg = f"{_type_error_hint(node, record)}\n{msg}"
        return StreamsError(
            msg, node=node, topic=self.topic, partition=self.partition, offset=self.offset,
            key=record.key, value=record.value,
        )

    def extract_topic(self, sink: SinkRuntime, record: Record) -> str:
        """Ask a sink's topic extractor where ``record`` goes."""
        try:
            topic = sink.topic_extractor(record.key, record.value, self._record_context())
        except Exception as exc:
            raise self.processing_error(sink.name, record, exc) from exc
        if not isinstance(topic, str) or not topic:
            msg = (
                f"the topic extractor of sink '{sink.name}' returned {topic!r}; it must return "
                "a topic name"
            )
            raise StreamsError(msg, node=sink.name, key=record.key, value=record.value)
        return self._task.resolve_topic(topic)

    def custom_partition(self, sink: SinkRuntime, topic: str, key: Any, value: Any) -> Any:
        """The partition(s) a sink's partitioner picks, or ``None`` for the default."""
        count = self._task.collector.partitions_for(topic)
        return sink.partitioner(topic, key, value, count)

    def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        headers: Any,
        timestamp: int,
        partition: Any,
        sink: str,
    ) -> None:
        """Hand a serialized record to the engine."""
        self._task.collector.send(topic, key, value, headers, timestamp, partition, sink)

    def writer(self, topic: str) -> Any:
        """The collector's direct writer for ``topic`` (``writer(k, v, headers, ts, 0)``), if any.

        Engines may offer one for topics where the default partitioner always picks partition 0
        and nothing else must happen on a send; sinks then skip ``send``'s general path.
        """
        make = getattr(self._task.collector, "writer", None)
        return None if make is None else make(topic)

    def _record_context(self) -> RecordContext:
        record = self.record
        return RecordContext(self.topic, self.partition, self.offset, record.timestamp,
                             record.raw_headers)

    def run_punctuation(self, schedule: Schedule, now: int) -> None:
        """Fire ``schedule`` at ``now`` with no record context, as Kafka does."""
        saved = (self.current, self.topic, self.partition, self.offset, self.record)
        self.current = schedule.node
        self.topic, self.partition, self.offset = None, -1, -1
        self.record = Record(None, None, now)
        try:
            schedule.punctuator(now)
        except (StreamsError, StoreError):
            raise
        except Exception as exc:
            msg = (
                f"Exception caught while punctuating processor '{schedule.node.name}' at {now}: "
                f"{exc!r}; fix the punctuator"
            )
            raise StreamsError(msg, node=schedule.node.name) from exc
        finally:
            self.current, self.topic, self.partition, self.offset, self.record = saved


class FixedKeyContext(FixedKeyProcessorContext):
    """The context of a ``FixedKeyProcessor``: forwards only ``FixedKeyRecord``s."""

    def __init__(self, inner: TaskContext, node: RuntimeNode) -> None:
        self._inner = inner
        self._node = node

    def node_metrics(self, name: str | None = None) -> dict[str, float]:
        """This node's metrics dict (or ``name``'s), as ``TaskContext.node_metrics``."""
        return self._inner.node_metrics(name or self._node.name)

    def forward(self, record: FixedKeyRecord, child_name: str | None = None) -> None:
        """Forward a ``FixedKeyRecord`` (made from the input with ``with_value``)."""
        if not isinstance(record, FixedKeyRecord):
            msg = (
                f"FixedKeyProcessor '{self._node.name}' forwarded a {type(record).__name__}; "
                "forward record.with_value(...) of the record it received, or use process() "
                "to change keys"
            )
            raise StreamsError(msg, node=self._node.name)
        self._inner.forward(plain_record(record), child_name)

    def schedule(self, interval: Any, punctuation_type: PunctuationType, punctuator: Any):
        """As ``ProcessorContext.schedule``."""
        return self._inner.schedule(interval, punctuation_type, punctuator)

    def get_state_store(self, name: str) -> Any:
        """As ``ProcessorContext.get_state_store``."""
        return self._inner.get_state_store(name)

    def commit(self) -> None:
        """As ``ProcessorContext.commit``."""
        self._inner.commit()

    @property
    def application_id(self) -> str:
        """The ``application.id``."""
        return self._inner.application_id

    @property
    def task_id(self) -> TaskId:
        """This task's id."""
        return self._inner.task_id

    def record_metadata(self) -> RecordMetadata | None:
        """As ``ProcessorContext.record_metadata``."""
        return self._inner.record_metadata()

    def current_stream_time_ms(self) -> int:
        """The task's stream time."""
        return self._inner.current_stream_time_ms()

    def current_system_time_ms(self) -> int:
        """The engine's wall clock."""
        return self._inner.current_system_time_ms()

    def app_configs(self) -> dict[str, Any]:
        """The configuration as given."""
        return self._inner.app_configs()
