"""A stage's sink steps in phase one: their records serialized into columns for each topic's
log (``SinkOut``), and the serde helpers the executor reads and writes columns with.

A sink with a fixed topic writes all its records there; a sink with a topic extractor calls
the user's extractor once per record, in order, with the record's context, as the record
path's sink does, and writes each topic's records as one column. A topic the engine cannot
write as the record path would (unknown to it: ``EnginePort.writable``, read back by a task,
round-robin partitions) declines the run, so the record path meets it (and raises its error).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, repeat
from operator import add
from typing import Any, NamedTuple

from kslab.core.bulk.columns import ByteColumn, LogBatch, picked
from kslab.core.bulk.plan import built_in
from kslab.core.bulk.stage import SinkOut
from kslab.core.context import RecordContext
from kslab.processor.batch import Batch, Encoded
from kslab.records import Headers
from kslab.serdes import Bytes, Integer, Json, Long, String
from kslab.serdes._base import fast_deserializer, fast_serializer, writes_alike

__all__ = ["SinkWriter", "Written", "decoded", "encoded", "fields", "readable", "round_trips"]

# serdes whose round trip gives back an equal object of exactly this (immutable) type
_IDENTITY = {String: str, Long: int, Integer: int, Bytes: bytes}


def decoded(serde: Any, topic: str, fields: list[Any], headers: list[Any]) -> list[Any]:
    """``serde.deserialize(topic, field, header)`` of each field: in C through the serde's
    fast codec when it takes them all (``serdes._base.fast_deserializer``), else the serde's
    own method (which gives the value or raises its error)."""
    fast = fast_deserializer(serde)
    if fast is not None:
        decode, indexed = fast
        try:
            values, nulls = _coded(decode, fields)
        except Exception:
            pass
        else:
            if not indexed:
                return values
            if not nulls:
                return list(chain.from_iterable(values))
            return [None if value is None else value[0] for value in values]
    # a deserializer always gets headers, as Kafka's do (``RecordDeserializer``'s rule)
    headers = [Headers() if h is None else h for h in headers]
    return list(map(serde.deserialize, repeat(topic), fields, headers))


def encoded(serde: Any, topic: str, items: list[Any], headers: list[Any]) -> list[Any]:
    """``serde.serialize(topic, item, header)`` of each item, in C through the serde's fast
    codec where it takes them all (``serdes._base.fast_serializer``)."""
    encode = fast_serializer(serde)
    if encode is not None:
        try:
            return _coded(encode, items)[0]
        except Exception:
            pass
    column = getattr(serde, "serialize_column", None)  # (a user's serde may not have one)
    if column is not None:
        return column(topic, items, headers)  # type: ignore[no-any-return]
    return list(map(serde.serialize, repeat(topic), items, headers))


def _coded(code: Callable[[Any], Any], column: list[Any]) -> tuple[list[Any], bool]:
    """``code`` (a fast codec) of each item of ``column``, a ``None`` item staying ``None``,
    and whether there was one; raises what ``code`` raises for another item. All in C where
    no item is ``None`` (the usual column): a fast codec raises for ``None`` (the contract of
    ``serdes._base.fast_serializer``), so the column is searched for one only then."""
    try:
        return list(map(code, column)), False
    except Exception:
        if not column.count(None):
            raise
    return [None if item is None else code(item) for item in column], True


def fields(column: Any) -> list[Any]:
    """The fields of a column: a ``ByteColumn``'s or a plain list."""
    return column.fields if isinstance(column, ByteColumn) else column  # type: ignore[no-any-return]


def _known(serde: Any, written: Encoded | None) -> Encoded | None:
    """``written`` when ``serde`` writes exactly its bytes for the column: a built-in serde
    (whose bytes depend on nothing but the data) configured for writing as the one that
    wrote them (``writes_alike``); else ``None``."""
    if written is None or not built_in(serde) or not writes_alike(written.serde, serde):
        return None
    return written


def _same_fields(sink: Any, keys: list[Any], values: list[Any]) -> bool:
    """True when a sink writes the same bytes for ``values`` as for ``keys``: equal objects
    of the one type its key and value serdes (the same built-in) serialize alike."""
    kind = _IDENTITY.get(type(sink.key_serde))
    return kind is not None and type(sink.value_serde) is type(sink.key_serde) \
        and keys == values and set(map(type, keys)) == {kind}


def round_trips(sink_serde: Any, source_serde: Any, objects: list[Any]) -> bool:
    """True when ``objects`` read back through ``source_serde`` as themselves: ``None`` or
    exactly the type the (same) built-in serde round-trips (checked in C)."""
    kind = _IDENTITY.get(type(sink_serde))
    if kind is None or type(source_serde) is not type(sink_serde):
        return False
    return set(map(type, objects)) <= {kind, type(None)}


class SinkWriter:
    """Phase one of a chunk's sink steps (``__call__``, ``tree.walk``'s ``sink``): each
    topic's records as a ``SinkOut`` in ``stage.outs``. ``known_column``: the executor's
    ``ByteColumn`` of bytes a store wrote already (laid out once per chunk); ``looped``:
    where sink records for a topic tasks read go (``partitioned``; ``None``: declined)."""

    def __init__(self, port: Any, partitioned: bool,
                 known_column: Callable[[Encoded, Any], ByteColumn],
                 looped: list[tuple[Any, SinkOut]] | None) -> None:
        self._port = port
        self._partitioned = partitioned
        self._known_column = known_column
        self._looped = looped

    def __call__(self, stage: Any, index: int, batch: Batch) -> bool:
        """Write sink step ``index``'s records; ``False``: declined."""
        sink = stage.plan.steps[index].sink
        run = stage.run
        headers = run.headers(batch)
        timestamps = run.timestamps(batch)
        if sink.topic is not None:
            return self._write(stage, index, sink.topic, batch, headers, timestamps, None,
                               True)
        port = self._port
        writable = getattr(port, "writable", None)
        for topic, positions in self._extracted(stage, sink, batch, headers, timestamps):
            if (writable is not None and not writable(topic)) or not port.appends_only(topic):
                return False  # the record path meets the topic (and raises its error)
            part = batch if positions is None else Batch(
                [batch.keys[i] for i in positions], [batch.values[i] for i in positions],
                [batch.origin[i] for i in positions])
            if not self._write(stage, index, topic, part,
                               headers if positions is None else [headers[i] for i in positions],
                               timestamps if positions is None else [timestamps[i]
                                                                     for i in positions],
                               positions, False):
                return False
        return True

    def _read_back(self, serde: Any, topic: str, items: list[Any],
                   written: list[Any]) -> tuple[type, list[Any]] | None:
        """What a ``Json`` reader of ``topic`` would decode from ``written`` (the fields
        ``serde`` just wrote for ``items``), as fresh copies made now, as the fields were
        written (``Json.read_back_column``), where the engine's log of ``topic`` hands them
        to its reader (``EnginePort``'s optional ``reads_back(topic)``); else ``None``."""
        if type(serde) is not Json:
            return None
        reads_back = getattr(self._port, "reads_back", None)
        if reads_back is None or not reads_back(topic):
            return None
        copies = serde.read_back_column(items, written)
        return None if copies is None else (Json, copies)

    @staticmethod
    def _extracted(stage: Any, sink: Any, batch: Batch, headers: list[Any],
                   timestamps: list[int]) -> list[tuple[str, list[int] | None]]:
        """Each topic the extractor names for the records (called once per record, in
        order, with the record's context, as the record path's sink calls it) and the
        positions of its records (``None``: all). A name that is not one raises."""
        extractor = sink.topic_extractor
        if batch.contexts is not None and len(batch):  # (under other records' contexts)
            topics, partitions, offsets, _ = zip(*stage.run.contexts(batch), strict=True)
            contexts = map(RecordContext, topics, partitions, offsets, timestamps, headers)
        else:
            topic, partition = stage.topic, stage.partition
            rows = batch.origin
            offsets = stage.offsets
            offsets = list(map(add, rows, repeat(stage.first_offset))) if offsets is None \
                else list(map(offsets.__getitem__, rows))
            shared = stage.shared  # (several tasks' rows: each its own task's partition)
            partitions = repeat(partition) if shared is None else map(
                shared.partitions().__getitem__, rows)
            contexts = map(RecordContext, repeat(topic), partitions, offsets, timestamps,
                           headers)
        names = list(map(extractor, batch.keys, batch.values, contexts))
        resolved = {}
        for name in set(names):
            if not isinstance(name, str) or not name:
                msg = f"the topic extractor of sink '{sink.name}' returned {name!r}"
                raise TypeError(msg)  # (the record path raises its own error)
            resolved[name] = stage.task.resolve_topic(name)
        if len(resolved) <= 1:
            return [(name, None) for name in resolved.values()]
        named: dict[str, list[int]] = {}
        for position, name in enumerate(names):
            named.setdefault(resolved[name], []).append(position)
        return list(named.items())  # type: ignore[arg-type]

    def _write(self, stage: Any, index: int, topic: str, batch: Batch, headers: list[Any],
               timestamps: list[int], positions: list[int] | None, fixed: bool) -> bool:
        """``batch``'s records serialized for ``topic``'s log, as a ``SinkOut`` of the
        stage; ``False``: declined."""
        sink = stage.plan.steps[index].sink
        given = headers
        if not (built_in(sink.key_serde) and built_in(sink.value_serde)) \
                and any(h is None for h in given):
            # a user's serializers get each record's headers, an empty ``Headers`` where it
            # has none, and what they add is written (``SinkRuntime._serialize``'s rule)
            headers = [Headers() if h is None else h for h in given]
        known = _known(sink.key_serde, batch.key_bytes)  # (a store's bytes: not again)
        if known is not None:
            key_fields, keys = known.fields, self._known_column(known, sink.key_serde)
        else:
            key_fields = encoded(sink.key_serde, topic, batch.keys, headers)
            keys = ByteColumn(key_fields)
        known = _known(sink.value_serde, batch.value_bytes)
        if known is not None:
            values = self._known_column(known, sink.value_serde)
        elif _same_fields(sink, batch.keys, batch.values):  # a group_by(value): one layout
            values = keys
        else:
            value_fields = encoded(sink.value_serde, topic, batch.values, headers)
            values = ByteColumn(value_fields, read_back=self._read_back(
                sink.value_serde, topic, batch.values, value_fields))
        if headers is not given:  # none stays none where the serializers added nothing
            headers = [h if h or g is not None else None for h, g in zip(headers, given,
                                                                          strict=True)]
        partitions = None
        looped = False
        if self._partitioned:  # the default partitioner over the key column
            if fixed and not self._port.appends_only(topic):
                if self._looped is None:
                    return False  # read back by a task that cannot run in this chunk
                looped = True
            partitions = self._port.partitions(topic, key_fields)
            if partitions is None:
                return False  # a null key: round robin, which the record path keeps
            # (the first one looked at alone first: a column of None is not compared in full)
            if not looped and partitions[:1] != [None] \
                    and partitions.count(0) == len(partitions):
                # all partition 0 (a topic of one): no column to merge (a None is not 0: an
                # engine's "the default partitioner's, when sent")
                partitions = None
        out = SinkOut(index, topic, LogBatch(keys, values, headers, timestamps), partitions,
                      positions)
        stage.outs.append(out)
        if looped:
            self._looped.append((stage, out))  # type: ignore[union-attr]
        return True


class Written(NamedTuple):
    """The objects an engine serialized a chunk's key and value fields from, with the serdes
    it used: ``keys`` (``values``) each ``None`` or a list, one object per field (the user's
    own objects: a source takes them as they are only where they are immutable,
    ``round_trips``, else copies, ``Json.read_back_column``). ``fresh_values``: the values
    are made by the engine and held by nothing else (a frame's row dicts,
    ``kslab.testing.frames.RowDicts``), so a ``Json`` source may take them uncopied;
    ``value_types``: the classes of every value of every one of those dicts, each float
    finite, where the engine knows them (a frame's column dtypes; ``Json.read_back_column``
    then checks none)."""

    key_serde: Any
    keys: list[Any] | None
    value_serde: Any
    values: list[Any] | None
    fresh_values: bool = False
    value_types: frozenset[type] | None = None


def readable(plan: Any, written: Written | None, fields: tuple[list[Any], list[Any]],
             places: list[int] | None = None) -> tuple[list[Any] | None, list[Any] | None]:
    """The keys and values ``plan``'s source would decode from ``fields`` (the chunk's key
    and value fields, which ``written`` was serialized into), where they are known without
    decoding (the executor's ``known``): the same built-in serde class reads them, and the
    objects read back as themselves (``round_trips``) or, for ``Json``, as the copies its
    ``read_back_column`` makes. ``places``: the rows of the chunk this part holds (``fields``
    are this part's already)."""
    if written is None:
        return None, None
    source = plan.source
    found: list[list[Any] | None] = []
    for writer, reader, objects, fresh, types, column in (
            (written.key_serde, source.key_serde, written.keys, False, None, fields[0]),
            (written.value_serde, source.value_serde, written.values, written.fresh_values,
             written.value_types, fields[1])):
        if objects is None or type(writer) is not type(reader) or not built_in(reader) \
                or not (type(reader) is Json or type(writer) in _IDENTITY):
            found.append(None)
            continue
        if places is not None:  # (this part's objects only: each part checks its own)
            objects = picked(objects, places)
        if type(reader) is Json:
            found.append(reader.read_back_column(objects, column, fresh, types))
        else:
            found.append(objects if round_trips(writer, reader, objects) else None)
    return found[0], found[1]
