"""Typed Spark columns for Kafka records: keys and values decoded with their serdes, and back.

``decode`` turns a frame's binary ``key``/``value`` columns (``run_batch``'s output, or what the
``kslab-kafka`` source reads, batch or streaming) into typed columns, decoded in Spark's Python
workers (``mapInArrow``) with the serdes of the topic's sink (or the ones given); ``encode``
serializes typed columns into the binary ones a source reads. Which Spark type a serde gives is
``kslab.spark._types``'s. Invariant: every record is decoded (or encoded) or the job fails with
an error naming its topic, partition, offset (``run_batch``'s rows: writing task and sequence)
and the serde; no record is dropped and no value is changed to fit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kslab.errors import SerdeError, StreamsError
from kslab.spark._types import (
    DoesNotFit,
    from_column,
    infer,
    parse_type,
    shape_of,
    to_column,
    unwindowed,
)

__all__ = ["SAMPLE_ROWS", "decode", "encode", "sink_serdes", "source_serdes"]

SAMPLE_ROWS = 200  # values decoded on the driver to infer a Json or user serde's column type


@dataclass(frozen=True)
class _Side:
    """How one of a topic's columns (``key`` or ``value``) is decoded."""

    name: str
    serde: Any
    type: Any  # the Spark type of the decoded column (a windowed key's inner key)
    windowed: bool


def decode(frame: Any, key_serde: Any = None, value_serde: Any = None, *,
           topology: Any = None, topic: str | None = None,
           config: Mapping[str, Any] | None = None, key_type: Any = None,
           value_type: Any = None, keep_raw: bool = False) -> Any:
    """``frame`` with its binary ``key`` and ``value`` decoded into typed Spark columns.

    The serdes are ``key_serde``/``value_serde``, else those of the sink writing ``topic`` in
    ``topology`` (a ``Topology`` or ``StreamsBuilder``; a topic no sink writes: its source's),
    with ``config``'s default serdes where a node has none; a side with no serde stays binary.
    Column types follow the serde (``String`` string, ``Long`` long, ``Double`` double,
    ``Avro`` and ``Protobuf`` structs from the schema); ``key_type``/``value_type`` (a Spark
    ``DataType`` or DDL string) set them, and are how ``Json`` and user serdes get a struct
    without a sampling job: otherwise the first ``SAMPLE_ROWS`` non-null values are decoded
    on the driver and a type inferred (a streaming frame is not sampled: a string of each
    value's JSON text). A windowed key becomes ``key``, ``window_start`` and ``window_end``
    (ms, long). ``keep_raw=True`` keeps the bytes as ``raw_key``/``raw_value``. Works on
    streaming frames too (a ``foreachBatch`` function then gets typed rows).
    """
    key_serde, value_serde = _serdes(frame, key_serde, value_serde, topology, topic, config,
                                     sink_serdes)
    return decoded_frame(frame, key_serde, value_serde, topic, key_type, value_type, keep_raw)


def encode(frame: Any, key_serde: Any = None, value_serde: Any = None, *,
           topology: Any = None, topic: str | None = None,
           config: Mapping[str, Any] | None = None) -> Any:
    """``frame`` with typed ``key``/``value`` columns serialized into binary ones, as a source
    of ``topic`` reads them (for the ``kslab-kafka`` writer, or ``run_batch``, which does it
    itself). The serdes are the ones given, else the source of ``topic`` in ``topology`` (else
    its sink). Binary columns are kept; string columns are taken as the record's text (their
    UTF-8 bytes, what ``run_batch`` has always done); every other type (numbers, structs,
    arrays, maps, timestamps) is written by the serde (a struct as a dict)."""
    key_serde, value_serde = _serdes(frame, key_serde, value_serde, topology, topic, config,
                                     source_serdes)
    return encoded_frame(frame, key_serde, value_serde, topic)


# -- which serdes ------------------------------------------------------------------------------


def _serdes(frame: Any, key_serde: Any, value_serde: Any, topology: Any, topic: str | None,
            config: Mapping[str, Any] | None, pick: Any) -> tuple[Any, Any]:
    from kslab.serdes import resolve

    if topology is not None:
        if topic is None:
            msg = ("pass topic= with topology=: the serdes are those of the node reading or "
                   "writing that topic")
            raise StreamsError(msg)
        topology = _built(topology, config)
        wired_key, wired_value = pick(topology, topic, config)
        key_serde = wired_key if key_serde is None else key_serde
        value_serde = wired_value if value_serde is None else value_serde
    missing = [c for c in ("key", "value") if c not in frame.columns]
    if missing:
        msg = (f"the frame has no column {missing[0]!r} (it has {', '.join(frame.columns)}); "
               "give it key and value columns")
        raise StreamsError(msg, topic=topic)
    return (None if key_serde is None else resolve(key_serde, is_key=True),
            None if value_serde is None else resolve(value_serde, is_key=False))


def _built(topology: Any, config: Mapping[str, Any] | None) -> Any:
    from kslab.topology.topology import Topology

    if hasattr(topology, "build") and not isinstance(topology, Topology):
        return topology.build(dict(config or {}))
    return topology


def sink_serdes(topology: Any, topic: str, config: Mapping[str, Any] | None = None,
                application_id: str | None = None) -> tuple[Any, Any]:
    """The (key, value) serdes records of ``topic`` are written with: its sink node's, wired
    as the core wires them (defaults from ``config``); a topic no sink writes: its source's."""
    from kslab.topology._nodes import SinkNode

    return _serdes_of(topology, topic, config, application_id, SinkNode, "sink or source")


def source_serdes(topology: Any, topic: str, config: Mapping[str, Any] | None = None,
                  application_id: str | None = None) -> tuple[Any, Any]:
    """The (key, value) serdes a source of ``topic`` reads with (a topic nothing reads: the
    serdes its sink writes with)."""
    from kslab.topology._nodes import SourceNode

    return _serdes_of(topology, topic, config, application_id, SourceNode, "source or sink")


def _serdes_of(topology: Any, topic: str, config: Mapping[str, Any] | None,
               application_id: str | None, preferred: type, what: str) -> tuple[Any, Any]:
    """The serdes of ``topic``'s ``preferred`` kind of node, else of any node naming it."""
    found = _node_serdes(topology, topic, config, application_id, preferred)
    if found is None:
        found = _node_serdes(topology, topic, config, application_id, None)
    if found is None:
        msg = f"no {what} of the topology names topic '{topic}'; pass key_serde and value_serde"
        raise StreamsError(msg, topic=topic)
    return found


def _node_serdes(topology: Any, topic: str, config: Mapping[str, Any] | None,
                 application_id: str | None, kind: type | None) -> tuple[Any, Any] | None:
    from kslab.config import StreamsConfig
    from kslab.core.task import wired_serde
    from kslab.serdes import resolve
    from kslab.topology._nodes import SinkNode, SourceNode

    settings = StreamsConfig(dict(config or {}))
    app_id = application_id or settings.get("application.id") or "kslab-spark"
    kinds = (kind,) if kind is not None else (SinkNode, SourceNode)
    found: list[tuple[Any, Any]] = []
    for node in topology.nodes.values():
        if not isinstance(node, kinds):
            continue
        names = [node.topic] if isinstance(node, SinkNode) else list(node.topics)
        if not any(n is not None and topology.resolve_topic(n, app_id) == topic for n in names):
            continue
        key_default = resolve(settings.get("default.key.serde"), is_key=True)
        value_default = resolve(settings.get("default.value.serde"), is_key=False)
        found.append((wired_serde(node.key_serde, key_default, is_key=True),
                      wired_serde(node.value_serde, value_default, is_key=False)))
    if len({repr(f) for f in found}) > 1:
        msg = (f"the topology's nodes use different serdes for topic '{topic}' "
               f"({', '.join(sorted({repr(f) for f in found}))}); pass key_serde and "
               "value_serde")
        raise StreamsError(msg, topic=topic)
    return found[0] if found else None


# -- decoding ------------------------------------------------------------------------------------


def decoded_frame(frame: Any, key_serde: Any, value_serde: Any, topic: str | None,
                  key_type: Any = None, value_type: Any = None, keep_raw: bool = False,
                  sample: Any = None) -> Any:
    """``decode`` with resolved serdes; ``sample`` is a batch frame of the same records to
    infer types from when ``frame`` is streaming."""
    from pyspark.sql import types as st

    types = {f.name: f.dataType for f in frame.schema.fields}
    sides = []
    for name, serde, given in (("key", key_serde, key_type), ("value", value_serde,
                                                               value_type)):
        if serde is None:
            continue
        if not isinstance(types[name], st.BinaryType):
            msg = (f"the frame's {name} column is {types[name].simpleString()}, not binary; "
                   "decode reads serialized records (run_batch's output, kslab-kafka)")
            raise StreamsError(msg, topic=topic)
        inner, windowed = unwindowed(serde)
        typed = parse_type(given) or shape_of(inner)
        if typed is None:
            source = sample if frame.isStreaming else frame
            typed = st.StringType() if source is None else \
                _sampled_type(source, name, serde, topic)
        sides.append(_Side(name, serde, typed, windowed))
    fields = []
    for field in frame.schema.fields:
        side = next((s for s in sides if s.name == field.name), None)
        if side is None:
            fields.append(field)
            continue
        fields.append(st.StructField(side.name, side.type, True))
        if side.windowed:
            fields.extend([st.StructField("window_start", st.LongType(), True),
                           st.StructField("window_end", st.LongType(), True)])
    if keep_raw:
        fields.extend(st.StructField(f"raw_{s.name}", st.BinaryType(), True) for s in sides)
    if not sides:
        return frame
    schema = st.StructType(fields)
    return frame.mapInArrow(_decoder(sides, frame.columns, schema, topic, keep_raw), schema)


def _sampled_type(frame: Any, name: str, serde: Any, topic: str | None) -> Any:
    """The type inferred from up to ``SAMPLE_ROWS`` of the column's values, decoded here."""
    from pyspark.sql import functions as sf

    place = [c for c in ("topic", "partition", "offset", "task", "seq") if c in frame.columns]
    rows = frame.where(sf.col(name).isNotNull()).select(name, *place).limit(SAMPLE_ROWS) \
        .collect()
    windowed = unwindowed(serde)[1]
    values = []
    for row in rows:
        fields = row.asDict()
        value = _decode_one(serde, fields.get("topic") or topic or "", fields[name],
                            name, fields)
        values.append(value.key if windowed else value)
    return infer(values)


def _decode_one(serde: Any, topic: str, data: Any, side: str, place: Mapping[str, Any]) -> Any:
    try:
        return serde.deserialize(topic, None if data is None else bytes(data))
    except Exception as e:
        raise _located(e, side, serde, topic, place) from e


def _located(error: Exception, side: str, serde: Any, topic: str,
             place: Mapping[str, Any], verb: str = "read") -> SerdeError:
    """``error`` for one record's key or value, with where the record is and the serde that
    ``verb`` it (read or wrote)."""
    where = [f"topic {topic!r}"] if topic else []
    where += [f"{c} {place[c]}" for c in ("partition", "offset", "task", "seq")
              if place.get(c) is not None]
    if isinstance(error, DoesNotFit):
        message = (f"the {side} {serde!r} read ({', '.join(where)}) does not fit its "
                   f"column: {error}; pass {side}_type= (run_batch: "
                   f"schemas={{topic: {{'{side}': type}}}}) with a type that holds it")
    else:
        message = f"{error} (the record's {side}, {verb} by {serde!r}; {', '.join(where)})"
    return SerdeError(message, topic=topic or None, partition=place.get("partition"),
                      offset=place.get("offset"))


def _decoder(sides: list[_Side], columns: list[str], schema: Any, topic: str | None,
             keep_raw: bool) -> Any:
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(schema, timezone="UTC")
    by_name = {s.name: s for s in sides}

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            n = batch.num_rows
            topics = batch.column("topic").to_pylist() if "topic" in columns \
                else [topic or ""] * n
            decoded: dict[str, list[Any]] = {}
            for side in sides:
                decoded.update(_decode_column(side, batch, topics, columns))
            arrays = []
            for name in columns:
                if name in by_name:
                    arrays.append(decoded[name])
                    if by_name[name].windowed:
                        arrays.extend([decoded["window_start"], decoded["window_end"]])
                else:
                    arrays.append(batch.column(name))
            if keep_raw:
                arrays.extend(batch.column(s.name) for s in sides)
            yield pa.RecordBatch.from_arrays(_fitted(arrays, arrow_schema), schema=arrow_schema)

    return run


def _decode_column(side: _Side, batch: Any, topics: list[str],
                   columns: list[str]) -> dict[str, list[Any]]:
    """One side's decoded column (a windowed key: and its window's bounds), as Python values
    that fit its Spark type."""
    raw = batch.column(side.name).to_pylist()
    values, starts, ends = [], [], []
    serde, typed = side.serde, side.type
    for i, data in enumerate(raw):
        try:
            value = serde.deserialize(topics[i], data)
            if side.windowed and value is not None:
                starts.append(value.window.start)
                ends.append(value.window.end)
                value = value.key
            elif side.windowed:
                starts.append(None)
                ends.append(None)
            values.append(to_column(value, typed))
        except Exception as e:
            place = {c: batch.column(c)[i].as_py() for c in ("partition", "offset", "task",
                                                               "seq") if c in columns}
            raise _located(e, side.name, serde, topics[i], place) from e
    out = {side.name: values}
    if side.windowed:
        out.update(window_start=starts, window_end=ends)
    return out


# -- encoding ------------------------------------------------------------------------------------


def encoded_frame(frame: Any, key_serde: Any, value_serde: Any, topic: str | None) -> Any:
    """``encode`` with resolved serdes: typed key/value columns written by them."""
    from pyspark.sql import types as st

    types = {f.name: f.dataType for f in frame.schema.fields}
    sides = [(name, serde, types[name]) for name, serde in (("key", key_serde),
                                                            ("value", value_serde))
             if serde is not None
             and not isinstance(types[name], st.BinaryType | st.StringType | st.NullType)]
    if not sides:
        return frame
    schema = st.StructType([st.StructField(f.name, st.BinaryType(), True)
                            if any(f.name == s[0] for s in sides) else f
                            for f in frame.schema.fields])
    return frame.mapInArrow(_encoder(sides, frame.columns, schema, topic), schema)


def _encoder(sides: list[tuple[str, Any, Any]], columns: list[str], schema: Any,
             topic: str | None) -> Any:
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(schema, timezone="UTC")

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            topics = batch.column("topic").to_pylist() if "topic" in columns \
                else [topic or ""] * batch.num_rows
            written = {}
            for name, serde, typed in sides:
                out = []
                for i, value in enumerate(batch.column(name).to_pylist()):
                    try:
                        out.append(serde.serialize(topics[i], from_column(value, typed)))
                    except Exception as e:
                        place = {c: batch.column(c)[i].as_py() for c in ("partition", "offset")
                                 if c in columns}
                        raise _located(e, name, serde, topics[i], place, "written") from e
                written[name] = pa.array(out, type=pa.binary())
            yield pa.RecordBatch.from_arrays(
                _fitted([written.get(name, batch.column(name)) for name in columns],
                        arrow_schema), schema=arrow_schema)

    return run


def _fitted(arrays: list[Any], arrow_schema: Any) -> list[Any]:
    """Each column as an Arrow array of its field's type: decoded lists built, passed-through
    columns cast where Spark sent another flavour of the type (a timestamp's time zone)."""
    import pyarrow as pa

    out = []
    for array, field in zip(arrays, arrow_schema, strict=True):
        if isinstance(array, list):
            array = pa.array(array, type=field.type)
        elif array.type != field.type:
            array = array.cast(field.type)
        out.append(array)
    return out
