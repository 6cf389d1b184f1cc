"""The ``count`` at the end of a bulk chain: per record, on the store, in record-path order.

An uncached non-windowed count is done on the store directly, exactly as ``KStreamAggregate``
with the count initializer and adder does it (read, add one, keep the larger timestamp, write
through the store, so bytes and changelog are the store's own). Any other count (a record
cache, windows) runs its real processor per record, with the task's context set as the record
path sets it and a commit after each record; only what it forwards is taken over: ``to_stream``
and the sink become one serialization into the output rows.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import count as count_from
from itertools import islice, repeat
from operator import add, le
from typing import Any

from kslab.core.bulk.columns import ByteColumn, LogBatch
from kslab.core.bulk.plan import built_in
from kslab.dsl._processors import skip_record
from kslab.errors import KslabError
from kslab.records import Record, ValueAndTimestamp
from kslab.serdes import Bytes, Integer, Long, String
from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, entry_size, headers_size
from kslab.state.caching import CachingKeyValueStore
from kslab.state.timestamped import TimestampedKeyValueStore

__all__ = ["Tally", "capture_forwards", "count_cached", "count_direct", "count_with_processor",
           "flush_final_entries", "replays_cache"]

_new_tuple = tuple.__new__
_TIMESTAMP = struct.Struct(">q")  # the store's layout: timestamp, then the value's bytes
_MEMO = (str, int, bytes)  # immutable key types: one serialization per key and chunk
# serdes whose bytes depend on nothing but the object: a store's and a sink's of the same one
# of these types write the same bytes, so the sink can take the store's
_SAME_BYTES = (String, Long, Integer, Bytes)
_STORE_PARTS = ("_kser", "_vser", "_vdes", "_bget", "_bput", "_topic", "_name", "_log")


def _byte_level(store: Any) -> tuple[Any, ...] | None:
    """The store's own serializers, backend calls and changelog writer, if it exposes them."""
    parts = tuple(getattr(store, name, None) for name in _STORE_PARTS)
    if any(part is None for part in parts[:-1]) or not getattr(store, "is_open", False):
        return None
    return parts


def count_direct(context: Any, topic: str, store: Any, sink: Any, keys: list[Any],
                 values: list[Any], timestamps: list[int], headers: list[Any],
                 first_offset: int, origins: list[int],
                 changelog: list[LogBatch] | None = None,
                 key_bytes_of: dict[Any, bytes] | None = None) -> tuple[LogBatch, bool]:
    """Count ``keys`` read from ``topic`` into an uncached timestamped store; the output, and
    whether the chunk was counted at once (``_count_direct_chunk``).

    The store's bytes are written as its own ``get``/``put`` write them (8-byte timestamp,
    then the value serde's bytes; the changelog gets the value bytes at that timestamp).
    With ``changelog`` (the engine said its writes only append to the topic's log), the
    changelog's records are collected there for one append instead of one write per update.
    ``key_bytes_of`` holds keys the store already serialized (the chunk's, checked first).
    """
    parts = _byte_level(store)
    if parts is None:
        return LogBatch.of_rows(_count_through_store(context, topic, store, sink, keys, values,
                                                     timestamps, headers, first_offset,
                                                     origins)), False
    if key_bytes_of is not None and (changelog is not None or parts[-1] is None):
        done = _count_direct_chunk(store, sink, parts, keys, values, timestamps, headers,
                                   key_bytes_of)
        if done is not None:
            if changelog is not None:
                changelog.append(done[1])
            return done[0], True
    kser, vser, vdes, bget, bput, store_topic, name, log = parts
    changelog_rows: list[tuple[Any, ...]] = []
    collect = None if changelog is None else changelog_rows.append
    pack, unpack = _TIMESTAMP.pack, _TIMESTAMP.unpack_from
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    # the serdes' C-level codecs (serdes._base): a Long count's bytes without a method call;
    # where one refuses, the serde's own method gives the bytes or the error
    vdec, vidx, venc = store._vdec, store._vdec_indexed, store._venc
    key_enc, value_enc = sink._key_enc, sink._value_enc
    fast = vdec is not None and venc is not None and key_enc is not None \
        and value_enc is not None
    out: list[tuple[Any, ...]] = []
    append = out.append
    if key_bytes_of is None:
        key_bytes_of = {}
    last_key: Any = None
    key_bytes = b""
    for key, value, timestamp, header, origin in zip(keys, values, timestamps, headers,
                                                     origins, strict=True):
        if key is None or value is None:
            context.topic, context.partition = topic, 0
            context.offset = first_offset + origin
            skip_record(context, "null key or value")
            continue
        key_bytes = key_bytes_of.get(key)  # type: ignore[assignment]  # one serde: one type
        if key_bytes is None:
            key_bytes = kser(store_topic, key)
            if key_bytes.__class__ is not bytes:
                key_bytes = bytes(key_bytes)
            key_bytes_of[key] = key_bytes
        last_key = key
        stored = bget(key_bytes)
        if stored is None:
            new = 1
        else:
            new = None
            if fast:
                try:
                    new = vdec(stored[8:])
                except Exception:
                    pass
                else:
                    if vidx:
                        new = new[0]
            if new is None:
                new = vdes(store_topic, stored[8:])
            new += 1
            old_timestamp = unpack(stored)[0]
            if old_timestamp > timestamp:
                timestamp = old_timestamp
        raw = None
        if fast:
            try:
                raw = venc(new)
            except Exception:
                pass
        if raw is None:
            raw = vser(store_topic, new)
        bput(key_bytes, pack(timestamp) + raw)
        if collect is not None:
            collect((key_bytes, raw, None, timestamp, 0))
        elif log is not None:
            log(name, key_bytes, raw, timestamp)
        row = None
        if fast:
            try:
                row = (key_enc(key), value_enc(new), header, timestamp, 0)
            except Exception:
                pass
        if row is None:
            row = (key_ser(out_topic, key, header), value_ser(out_topic, new, header), header,
                   timestamp, 0)
        append(row)
    if last_key is not None and last_key.__class__ in _MEMO:  # as the store's get-then-put
        store._memo_key, store._memo_key_bytes = last_key, key_bytes  # of the last key leaves it
    if changelog is not None and changelog_rows:
        changelog.append(LogBatch.of_rows(changelog_rows))
    return LogBatch.of_rows(out), False


class Tally:
    """A chunk's distinct keys (first-seen order), their serialized bytes, their stored counts
    and timestamps (0 and -1 for none), and per update the index of its key: lists indexed by
    key id instead of dicts hashed per update."""

    __slots__ = ("counts", "distinct", "distinct_bytes", "ids", "stamps")

    def __init__(self, keys: list[Any], key_bytes_of: dict[Any, bytes]) -> None:
        self.distinct = list(dict.fromkeys(keys))
        index = dict(zip(self.distinct, range(len(self.distinct)), strict=True))
        self.ids = list(map(index.__getitem__, keys))
        self.distinct_bytes = list(map(key_bytes_of.__getitem__, self.distinct))  # None raises
        self.counts = [0] * len(self.distinct)
        self.stamps = [-1] * len(self.distinct)

    def key_bytes(self) -> list[bytes]:
        """Each update's key bytes."""
        return list(map(self.distinct_bytes.__getitem__, self.ids))

    def read(self, stored: Iterable[bytes | None], decode: Callable[[bytes], Any],
             indexed: bool) -> None:
        """Start each key (in order) from its stored bytes, if any: an 8-byte timestamp, then
        the count's bytes for the serde's C-level ``decode`` (``indexed``: a 1-tuple)."""
        counts, stamps, unpack = self.counts, self.stamps, _TIMESTAMP.unpack_from
        for i, raw in enumerate(stored):
            if raw is not None:
                count = decode(raw[8:])
                counts[i], stamps[i] = count[0] if indexed else count, unpack(raw)[0]

    def run(self, timestamps: list[int], ordered: bool | None = None
            ) -> tuple[list[int], list[int], list[int]]:
        """Each update's count and store timestamp (the larger of the stored one and the
        record's), and each key's last update; ``counts`` and ``stamps`` end as the store
        holds them after the last update (``KStreamAggregate``'s count). Timestamps in
        order (the usual case; ``ordered``: known already) are counted in C iterators
        (``_run_ordered``)."""
        if not self.ids:
            return [], [], []
        if ordered is None:
            ordered = all(map(le, timestamps, islice(timestamps, 1, None)))
        if ordered:
            return self._run_ordered(timestamps)
        counts, stamps = self.counts, self.stamps
        news: list[int] = []
        stamped: list[int] = []
        last = [0] * len(counts)
        add_count, add_stamp = news.append, stamped.append
        for position, (key, timestamp) in enumerate(zip(self.ids, timestamps, strict=True)):
            n = counts[key] + 1
            counts[key] = n
            add_count(n)
            stamp = stamps[key]
            if timestamp > stamp:
                stamps[key] = stamp = timestamp
            add_stamp(stamp)
            last[key] = position
        return news, stamped, last

    def _run_ordered(self, timestamps: list[int]) -> tuple[list[int], list[int], list[int]]:
        """``run`` for timestamps in order: each key's counts from a C counter, a key's
        largest timestamp so far its latest one (or the stored one, when that is larger)."""
        ids, counts, stamps = self.ids, self.counts, self.stamps
        counters = list(map(count_from, map(add, counts, repeat(1))))
        news = list(map(next, map(counters.__getitem__, ids)))
        last_of = dict(zip(ids, range(len(ids)), strict=True))  # each key id's last place
        last = list(map(last_of.__getitem__, range(len(counts))))
        if max(stamps) <= timestamps[0]:
            stamped = list(timestamps)  # no stored timestamp is larger than a record's
        else:
            stamped = list(map(max, map(stamps.__getitem__, ids), timestamps))
        counts[:] = map(news.__getitem__, last)
        stamps[:] = map(stamped.__getitem__, last)
        return news, stamped, last


def _chunk_outputs(store: Any, sink: Any, keys: list[Any], key_bytes: list[bytes],
                   tally: Tally, news: list[int], raws: list[bytes], headers: list[Any],
                   stamped: list[int]) -> tuple[LogBatch, LogBatch]:
    """The output's and the changelog's records of a chunk's counts (``key_bytes``: each
    update's, ``tally.key_bytes()``): the store's key and value bytes laid out once for both
    when the sink's serdes write the same bytes (else the sink's codecs, which may raise:
    call before changing anything)."""
    store_keys = ByteColumn(key_bytes, dictionaries=[(0, tally.distinct_bytes, tally.ids)])
    store_values = ByteColumn(raws)
    out_keys = store_keys if _same_bytes(sink.key_serde, store._key_serde) \
        else ByteColumn(list(map(sink._key_enc, keys)))
    out_values = store_values if _same_bytes(sink.value_serde, store._value_serde) \
        else ByteColumn(list(map(sink._value_enc, news)))
    return (LogBatch(out_keys, out_values, headers, stamped),
            LogBatch(store_keys, store_values, None, stamped))


def _count_direct_chunk(store: Any, sink: Any, parts: tuple[Any, ...], keys: list[Any],
                        values: list[Any], timestamps: list[int], headers: list[Any],
                        key_bytes_of: dict[Any, bytes]) -> tuple[LogBatch, LogBatch] | None:
    """``count_direct`` a chunk at a time: read each distinct key once, count over key ids,
    write each key's last count once; the output and changelog records are every update's, as the
    record path writes them. ``None``, with nothing changed, where a codec or a key is not
    the common case (no null, the serdes' C-level codecs taking everything)."""
    bget = parts[3]
    vdec, vidx, venc = store._vdec, store._vdec_indexed, store._venc
    if vdec is None or venc is None or sink._key_enc is None or sink._value_enc is None:
        return None
    try:
        if None in values:
            return None  # the record path skips it, logs and counts it
        tally = Tally(keys, key_bytes_of)
        key_bytes = tally.key_bytes()
        tally.read(map(bget, tally.distinct_bytes), vdec, vidx)
        news, stamped, _ = tally.run(timestamps)
        raws = list(map(venc, news))
        out, logged = _chunk_outputs(store, sink, keys, key_bytes, tally, news, raws, headers,
                                     stamped)
    except Exception:
        return None  # the record-at-a-time loop gives the outcome or the error
    pack = _TIMESTAMP.pack
    store._backend.put_all(zip(tally.distinct_bytes,  # first-seen order, as the puts add keys
                               map(add, map(pack, tally.stamps), map(venc, tally.counts)),
                               strict=True))
    last = keys[-1] if keys else None  # (no record may reach the count: filtered out)
    if last.__class__ in _MEMO:  # as the store's get-then-put of the last key leaves it
        store._memo_key, store._memo_key_bytes = last, key_bytes[-1]
    return out, logged


def _count_through_store(context: Any, topic: str, store: Any, sink: Any, keys: list[Any],
                         values: list[Any], timestamps: list[int], headers: list[Any],
                         first_offset: int, origins: list[int]) -> list[tuple[Any, ...]]:
    """``count_direct`` through the store's ``get`` and ``put``."""
    get, put = store.get, store.put
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    out: list[tuple[Any, ...]] = []
    append = out.append
    vat = ValueAndTimestamp
    for key, value, timestamp, header, origin in zip(keys, values, timestamps, headers,
                                                     origins, strict=True):
        if key is None or value is None:
            context.topic, context.partition = topic, 0
            context.offset = first_offset + origin
            skip_record(context, "null key or value")
            continue
        stored = get(key)
        if stored is None:
            new = 1
        else:
            new = stored[0] + 1
            if stored[1] > timestamp:
                timestamp = stored[1]
        put(key, _new_tuple(vat, (new, timestamp)))
        append((key_ser(out_topic, key, header), value_ser(out_topic, new, header), header,
                timestamp, 0))
    return out


class _Capture:
    """Stands in for ``to_stream`` -> sink under the count: serializes each forwarded change."""

    __slots__ = ("append", "call", "key_ser", "name", "topic", "value_ser")

    def __init__(self, name: str, sink: Any, out: list[tuple[Any, ...]]) -> None:
        self.name = name
        self.topic = sink.topic
        self.key_ser, self.value_ser = sink._key_ser, sink._value_ser
        self.append = out.append
        self.call = self._write

    def _write(self, record: Record) -> None:
        headers = record._headers
        topic = self.topic
        self.append((self.key_ser(topic, record.key, headers),
                     self.value_ser(topic, record.value.new_value, headers),
                     headers, record.timestamp, 0))


@contextmanager
def capture_forwards(aggregate: Any, sink: Any, out: list[tuple[Any, ...]]
                     ) -> Iterator[Callable[[str, int, Record], None]]:
    """While open, what ``aggregate`` forwards lands serialized in ``out``; yields
    ``process(topic, offset, record)``, which runs its processor as the record path does."""
    context = aggregate.context
    run = aggregate.processor.process
    children = aggregate.children
    aggregate.children = [_Capture(children[0].name, sink, out)]

    def process(topic: str, offset: int, record: Record) -> None:
        context.topic, context.partition, context.offset = topic, 0, offset
        context.record = record
        context.current = aggregate
        try:
            run(record)
        except KslabError:
            raise
        except Exception as exc:
            raise context.processing_error(aggregate.name, record, exc) from exc

    try:
        yield process
    finally:
        aggregate.children = children
        context.current = None


def count_with_processor(task: Any, topic: str, aggregate: Any, sink: Any, keys: list[Any],
                         values: list[Any], timestamps: list[int], headers: list[Any],
                         first_offset: int, origins: list[int]) -> list[tuple[Any, ...]]:
    """Run the count's processor on each record, committing after each consumed record (so a
    record cache emits once per key and consumed record, as the record path does); the rows.

    ``origins`` is the consumed record (offset ``first_offset + origin``) each record came
    from: a flat_map may hand the count several records of one consumed record.
    """
    commit = task.commit
    out: list[tuple[Any, ...]] = []
    count = len(keys)
    with capture_forwards(aggregate, sink, out) as process:
        for i, (key, value, timestamp, header, origin) in enumerate(
                zip(keys, values, timestamps, headers, origins, strict=True)):
            process(topic, first_offset + origin, Record(key, value, timestamp, header))
            if i + 1 == count or origins[i + 1] != origin:
                commit()
    return out


def _same_bytes(sink_serde: Any, store_serde: Any) -> bool:
    """True when the sink's serde writes exactly the store's bytes for every object."""
    return type(sink_serde) is type(store_serde) and isinstance(sink_serde, _SAME_BYTES) \
        and type(sink_serde) in _SAME_BYTES


def _listens_for(store: Any, aggregate: Any) -> bool:
    """True when ``store`` forwards its flushes from ``aggregate`` (``forward_flushed``)."""
    listener = store._listener
    cells = getattr(listener, "__closure__", None) or ()
    return getattr(listener, "__qualname__", "").startswith("forward_flushed.") \
        and any(cell.cell_contents is aggregate for cell in cells)


def replays_cache(task: Any, aggregate: Any, store: Any) -> bool:
    """True when the record path's use of ``store``'s record cache can be replayed exactly:
    the task's only cache, nothing dirty, flushes forwarded from ``aggregate`` without old
    values, this thread."""
    cache, named = store._cache, store._named
    return not (cache is None or named is None
                or cache._caches.get(store._namespace) is not named or named._dirty
                or named.listener != store._flushed or store._send_old_values
                or len(task._caches) != 1 or task._caches[0] is not store
                or threading.get_ident() != store._thread or not _listens_for(store, aggregate))


def _cached_store(task: Any, aggregate: Any, store: Any) -> Any:
    """The timestamped store behind ``store``'s record cache when ``count_cached`` can replay
    the record path exactly (``replays_cache``); ``None`` otherwise."""
    if type(store) is not CachingKeyValueStore or not store._timestamped \
            or not replays_cache(task, aggregate, store):
        return None
    inner = store._inner
    if type(inner) is not TimestampedKeyValueStore or _byte_level(inner) is None \
            or not (built_in(inner._key_serde) and built_in(inner._value_serde)):
        return None  # a custom serde may see that keys are serialized once per chunk
    return inner


def count_cached(task: Any, topic: str, aggregate: Any, store: Any, sink: Any, keys: list[Any],
                 values: list[Any], timestamps: list[int], headers: list[Any],
                 first_offset: int, origins: list[int],
                 changelog: Callable[[LogBatch], None] | None = None,
                 key_bytes_of: dict[Any, bytes] | None = None
                 ) -> tuple[LogBatch, bool] | None:
    """``count_with_processor`` for a count behind a record cache, without its calls: per
    record the cached store's get, put and the commit's flush (``ThreadCache.put_and_flush_one``
    keeps the cache's counters, sizes and LRU order), the store write, the changelog row and
    the forwarded update, in the record path's order. ``None``, with nothing changed, when that
    is not certain (see ``_cached_store``; one consumed record updating the count twice; a key
    its serde refuses): then run ``count_with_processor``. A put that would evict, or a stored
    value read back, takes the cache's own methods. With ``changelog`` (extends the changelog's
    log, whose writes only append), changelog records are handed over in batches, always
    before anything else could write there. A chunk that cannot evict is accounted at once
    (``_count_cached_chunk``): the second item says so."""
    inner = _cached_store(task, aggregate, store)
    if inner is None or len(set(origins)) != len(origins):
        return None
    if key_bytes_of is None:
        serialize_key = inner._serialize_key
        try:
            key_bytes_of = {key: serialize_key(key) for key in set(keys) if key is not None}
        except Exception:
            return None  # the record path raises the store's error at the right record
    if changelog is not None or inner._log is None:
        done = _count_cached_chunk(topic, store, inner, sink, keys, values, timestamps,
                                   headers, first_offset, origins, key_bytes_of)
        if done is not None:
            if changelog is not None:
                changelog(done[1])
            return done[0], True
    context = task.context
    cache, named, namespace = store._cache, store._named, store._namespace
    entries = named._entries
    put_and_flush_one = cache.put_and_flush_one
    decode, serialize_value, venc = inner._decode_value, inner._serialize_value, inner._venc
    bget, bput, name = inner._bget, inner._bput, inner.name
    log = inner._log
    pending: list[tuple[Any, ...]] = []
    collect = None if changelog is None else pending.append
    pack = _TIMESTAMP.pack
    out_topic = sink.topic
    key_ser, value_ser = sink._key_ser, sink._value_ser
    same_keys = _same_bytes(sink.key_serde, inner._key_serde)
    same_values = _same_bytes(sink.value_serde, inner._value_serde)
    out: list[tuple[Any, ...]] = []
    append = out.append
    vat_type = ValueAndTimestamp
    last_key: Any = None
    # the store's get counts into the caches, the commit of a skipped record flushes nothing:
    # counted here, added in one go at the end (nothing reads them meanwhile)
    gets = hits = misses = empty_flushes = 0

    def emit_changelog() -> None:
        if pending:  # pending is only filled with a changelog
            changelog(LogBatch.of_rows(pending))  # type: ignore[misc]
            pending.clear()

    def enter(offset: int, record: Record) -> None:
        context.topic, context.partition, context.offset = topic, 0, offset
        context.record = record
        context.current = aggregate

    with capture_forwards(aggregate, sink, out):
        try:
            for key, value, timestamp, header, origin in zip(keys, values, timestamps,
                                                             headers, origins, strict=True):
                offset = first_offset + origin
                record = Record(key, value, timestamp, header)
                if key is None or value is None:
                    enter(offset, record)
                    skip_record(context, "null key or value")
                    empty_flushes += 1  # the commit, with nothing dirty
                    continue
                last_key = key
                kb = key_bytes_of[key]
                try:
                    gets += 1  # the store's get
                    entry = entries.get(kb)
                    if entry is not None:
                        hits += 1
                        entries.move_to_end(kb)
                        stored = entry.obj
                        if stored is None and entry.value is not None:
                            stored = entry.obj = decode(entry.value)
                    else:
                        misses += 1
                        raw = bget(kb)
                        stored = None
                        if raw is not None:
                            stored = decode(raw)
                            clean = LRUCacheEntry(raw)
                            clean.obj = stored
                            enter(offset, record)
                            cache.put(namespace, kb, clean)
                    new_timestamp = timestamp
                    if stored is None:
                        new = 1
                    else:
                        new = stored[0] + 1
                        if stored[1] > timestamp:
                            new_timestamp = stored[1]
                    try:
                        raw_value = venc(new)  # type: ignore[misc]
                    except Exception:  # none, or refused: the store's own serialization
                        raw_value = serialize_value(new)
                    entry = LRUCacheEntry(pack(new_timestamp) + raw_value,
                                          header if header else None, True, offset, timestamp,
                                          0, topic)
                    entry.obj = _new_tuple(vat_type, (new, new_timestamp))
                    entry.record, entry.key_obj = record, key
                    if put_and_flush_one(namespace, kb, entry):  # put, then the commit's flush
                        bput(kb, entry.value)
                        if collect is not None:
                            collect((kb, raw_value, None, new_timestamp, 0))
                        elif log is not None:
                            log(name, kb, raw_value, new_timestamp)
                        append((kb if same_keys else key_ser(out_topic, key, header),
                                raw_value if same_values else value_ser(out_topic, new, header),
                                header, new_timestamp, 0))
                    else:  # the put evicts: the cache's own put and the task's commit
                        emit_changelog()
                        enter(offset, record)
                        cache.put(namespace, kb, entry)
                        task.commit()
                except KslabError:
                    raise
                except Exception as exc:
                    enter(offset, record)
                    raise context.processing_error(aggregate.name, record, exc) from exc
        finally:
            emit_changelog()
            cache.gets += gets
            named.hits += hits
            named.misses += misses
            cache.flushes += empty_flushes
            named.flushes += empty_flushes
    if last_key is not None and last_key.__class__ in _MEMO:  # the store's get-then-put
        store._memo_key, store._memo_bytes = last_key, key_bytes_of[last_key]
    return LogBatch.of_rows(out), False


def flush_final_entries(store: Any, cache_keys: list[bytes], stored: list[bytes],
                        last: list[int], topic: str, first_offset: int,
                        records: tuple[list[Any], ...], news: list[int], stamped: list[int],
                        loaded: int, misses: int, *, key_objects: bool) -> None:
    """Leave ``store``'s record cache as a chunk's per-update get, put and commit flush
    leave it: each key's final clean entry (``stored[j]`` under ``cache_keys[j]``, with the
    record context, value and timestamp of its last update ``last[j]``; ``key_objects``: the
    key object too, as the key-value cache keeps it) in the order of those last updates,
    and the counters and sizes, after ``loaded`` clean entries were read back from the
    store and ``misses`` keys were not cached. ``records``: the chunk's keys, values,
    timestamps, headers and origins (offset ``first_offset + origin``)."""
    keys, values, timestamps, headers, origins = records
    finals: list[tuple[bytes, LRUCacheEntry]] = []
    for j in sorted(range(len(last)), key=last.__getitem__):
        i = last[j]
        header = headers[i]
        entry = LRUCacheEntry(stored[j], header if header else None, False,
                              first_offset + origins[i], timestamps[i], 0, topic)
        entry.obj = _new_tuple(ValueAndTimestamp, (news[i], stamped[i]))
        entry.record = Record(keys[i], values[i], timestamps[i], header)
        if key_objects:
            entry.key_obj = keys[i]
        finals.append((cache_keys[j], entry))
    updates = len(keys)
    cache, named = store._cache, store._named
    cache.put_and_flush_many(store._namespace, finals, updates, loaded)
    cache.gets += updates  # the store's gets, as count_cached counts them
    named.hits += updates - misses
    named.misses += misses


def _count_cached_chunk(topic: str, store: Any, inner: Any, sink: Any, keys: list[Any],
                        values: list[Any], timestamps: list[int], headers: list[Any],
                        first_offset: int, origins: list[int], key_bytes_of: dict[Any, bytes]
                        ) -> tuple[LogBatch, LogBatch] | None:
    """``count_cached`` for a chunk that cannot fill the cache, accounted at once: per key,
    one read (the cached entry, else the store, read back as a clean entry) and one final
    entry, the one the key's last update leaves (its value, record context and place in the
    LRU order), with every counter and size as the record path's get, put and flush of each
    update leave them; the store gets each key's last bytes, the changelog and the output
    every update. ``None``, with nothing changed, for anything else (a null, a codec or a
    stored value not the common case, a chunk that might evict)."""
    venc = inner._venc
    cache, named = store._cache, store._named
    entries = named._entries
    decode, bget = inner._decode_value, inner._bget
    if venc is None or sink._key_enc is None or sink._value_enc is None:
        return None
    loaded = misses = 0  # keys the chunk reads back from the store; keys not cached
    try:
        if None in values:
            return None  # the record path skips it, logs and counts it
        tally = Tally(keys, key_bytes_of)
        distinct_bytes, counts, stamps = tally.distinct_bytes, tally.counts, tally.stamps
        key_bytes = tally.key_bytes()
        olds = list(map(entries.get, distinct_bytes))  # the entries before the chunk
        for i, entry in enumerate(olds):
            if entry is not None:
                stored = entry.obj
                if stored is None and entry.value is not None:
                    stored = decode(entry.value)
            else:
                raw = bget(distinct_bytes[i])
                stored = None if raw is None else decode(raw)
                loaded += raw is not None
                misses += 1
            if stored is not None:
                counts[i], stamps[i] = stored
        news, stamped, last = tally.run(timestamps)
        raws = list(map(venc, news))
        # the most the cache can grow by at any point of the chunk: nothing may be evicted
        widest = entry_size(8 + max(map(len, raws)), topic,
                            max(map(headers_size, headers)) if any(headers) else 0)
        if not cache.fits(sum(map(len, distinct_bytes))
                          + len(distinct_bytes) * (NODE_OVERHEAD + widest)):
            return None
        out, logged = _chunk_outputs(inner, sink, keys, key_bytes, tally, news, raws, headers,
                                     stamped)
    except Exception:
        return None  # count_cached's loop gives the outcome or the error
    stored_values = list(map(add, map(_TIMESTAMP.pack, tally.stamps), map(venc, tally.counts)))
    flush_final_entries(store, distinct_bytes, stored_values, last, topic, first_offset,
                        (keys, values, timestamps, headers, origins), news, stamped, loaded,
                        misses, key_objects=True)
    del olds  # the replaced entries go here, not one by one
    inner._backend.put_all(zip(distinct_bytes, stored_values, strict=True))  # as the puts
    last_key = keys[-1]
    if last_key.__class__ in _MEMO:  # the store's get-then-put of the last key leaves it
        store._memo_key, store._memo_bytes = last_key, key_bytes[-1]
    return out, logged
