"""The timestamped key-value store (what KTables materialize into) and its plain-value facade.

Invariant: the backend holds ``8-byte big-endian signed timestamp + value bytes`` (Java's
``ValueAndTimestampSerializer``), while the changelog gets what Java's
``ChangeLoggingTimestampedKeyValueBytesStore`` sends: the plain value bytes, with the value's
timestamp as the record timestamp. So a changelog restore needs each record's timestamp, and a
source topic can double as the changelog of a table's store.

Over 600 lines because the store, its plain-value facade and its batch form
(``HeldTimestampedWrites``) share the store's codec and backend, which no other module reads.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from itertools import compress, repeat
from operator import getitem, is_not, itemgetter
from pathlib import Path
from typing import Any

from kslab.errors import StoreError
from kslab.processor.batch import Encoded, Flushed
from kslab.records import KeyValue, ValueAndTimestamp
from kslab.state._frames import to_pandas, to_polars
from kslab.state._typed import MEMO_KEY_TYPES, preview
from kslab.state.base import KeyValueBackend, StoreContext
from kslab.state.held_reads import HeldReads
from kslab.state.keyvalue import KEY_SERDE, KeyValueStore
from kslab.state.pending import PendingWrites

__all__ = [
    "NO_TIMESTAMP",
    "HeldTimestampedWrites",
    "KeyValueStoreFacade",
    "PlainValueIterator",
    "TimestampDroppingBackend",
    "TimestampedKeyValueStore",
]

NO_TIMESTAMP = -1
"""Kafka's ``RecordBatch.NO_TIMESTAMP``: what the facade writes and timestamp-less stores read."""

_TIMESTAMP = struct.Struct(">q")
_pack_timestamp = _TIMESTAMP.pack
_unpack_timestamp = _TIMESTAMP.unpack_from
_NO_TIMESTAMP_BYTES = _pack_timestamp(NO_TIMESTAMP)
_AFTER_TIMESTAMP = slice(8, None)  # a stored value's bytes, after its timestamp
# NamedTuple.__new__ is a Python function; building the tuple directly halves the cost per read.
_new_tuple = tuple.__new__


class TimestampedKeyValueStore(KeyValueStore):
    """Java's ``TimestampedKeyValueStore<K, V>``: values are ``ValueAndTimestamp(value, ts)``.

    A ``ValueAndTimestamp`` whose value is ``None`` is stored as a delete, as Java's
    ``ValueAndTimestamp.make(null, ts)`` is ``null``.
    """

    __slots__ = ()

    store_kind = "timestamped_key_value"

    def get(self, key: Any) -> ValueAndTimestamp | None:
        """The ``ValueAndTimestamp`` stored for ``key``, or ``None``."""
        topic = self._topic
        if key is self._memo_key:  # the usual get-then-put of one key serializes it once
            key_bytes = self._memo_key_bytes
        else:
            key_bytes = self._key_to_bytes(topic, key)
        stored = self._bget(key_bytes)
        if stored is None:
            return None
        try:
            return _new_tuple(
                ValueAndTimestamp, (self._vdes(topic, stored[8:]), _unpack_timestamp(stored)[0])
            )
        except StoreError:
            raise
        except Exception as exc:
            raise self._value_read_failure(stored, exc) from exc

    def put(self, key: Any, value_and_timestamp: ValueAndTimestamp | None) -> None:
        """Store ``ValueAndTimestamp(value, timestamp)`` for ``key``; ``None`` deletes."""
        topic = self._topic
        if key is self._memo_key:  # the usual get-then-put of one key serializes it once
            key_bytes = self._memo_key_bytes
        else:
            key_bytes = self._key_to_bytes(topic, key)
        if value_and_timestamp.__class__ is not ValueAndTimestamp:
            # None, a subclass, or a mistake: the general path sorts them out.
            encoded = self.encode_value(value_and_timestamp)
            if encoded is None:
                self.delete_bytes(key_bytes)
                return
            stored, raw, timestamp = encoded
        else:
            value, timestamp = value_and_timestamp
            if value is None:
                self.delete_bytes(key_bytes)
                return
            try:
                raw = self._vser(topic, value)
                if raw.__class__ is not bytes:
                    raise TypeError(raw)
                stored = _pack_timestamp(timestamp) + raw
            except Exception:
                # Serde failures, non-bytes results and bad timestamps get their messages here.
                encoded = self.encode_value(value_and_timestamp)
                if encoded is None:
                    self.delete_bytes(key_bytes)
                    return
                stored, raw, timestamp = encoded
        self._bput(key_bytes, stored)
        log = self._log
        if log is not None:
            log(self._name, key_bytes, raw, timestamp)

    def put_if_absent(
        self, key: Any, value_and_timestamp: ValueAndTimestamp | None
    ) -> ValueAndTimestamp | None:
        """Store only if ``key`` has no value; return the ``ValueAndTimestamp`` that was there."""
        key_bytes = self.serialize_key(key)
        encoded = self.encode_value(value_and_timestamp)
        if encoded is None:
            old = self._bget(key_bytes)
        else:
            old = self._backend.put_if_absent(key_bytes, encoded[0])
        if old is not None:
            return self.decode_value(old)
        self._log_encoded(key_bytes, encoded)
        return None

    def put_all(self, entries: Iterable[tuple[Any, ValueAndTimestamp | None]]) -> None:
        """Store every ``(key, ValueAndTimestamp)`` pair in order; all are checked first."""
        encoded = [(self.serialize_key(k), self.encode_value(v)) for k, v in entries]
        self._backend.put_all([(kb, None if e is None else e[0]) for kb, e in encoded])
        if self._log is not None:
            for key_bytes, entry in encoded:
                self._log_encoded(key_bytes, entry)

    def delete(self, key: Any) -> ValueAndTimestamp | None:
        """Remove ``key``; return the ``ValueAndTimestamp`` that was there."""
        return super().delete(key)  # type: ignore[no-any-return]

    def read_stored(self, keys: list[bytes]
                    ) -> tuple[list[bytes | None], list[ValueAndTimestamp | None]]:
        """The stored bytes of each of ``keys`` (serialized; ``None`` for none) and the
        ``ValueAndTimestamp`` a ``get`` decodes of them, read and decoded in C where the
        value serde has a C-level codec that takes them all: a batch run's reads (a read
        changes nothing in the backends that hold writes, ``held_writes``)."""
        raws = list(map(self._bget, keys))
        present = list(compress(range(len(raws)), map(is_not, raws, repeat(None))))
        decoded = dict(zip(present, _decode_all(self, list(map(raws.__getitem__, present))),
                           strict=True))
        return raws, list(map(decoded.get, range(len(raws))))

    def remember_key(self, key: Any, key_bytes: bytes) -> None:
        """Remember ``key``'s bytes as the last ``get`` or ``put`` of it leaves the store (a
        batch run's last key: the store serializes an immutable key once per get-then-put)."""
        if key.__class__ in MEMO_KEY_TYPES:
            self._memo_key, self._memo_key_bytes = key, key_bytes

    def held_reads(self, batch: Any, run: Any) -> HeldReads | None:
        """The ``get`` calls of a batch run (``kslab.state.held_reads``), or ``None`` when this
        store cannot read them at once (a backend whose reads change it, as the LRU map's)."""
        if not self.is_open or not self._backend.last_write_wins:
            return None
        return HeldReads(self)

    def held_writes(self, batch: Any, run: Any, *, memo: bool = True, puts_only: bool = False
                    ) -> HeldTimestampedWrites | None:
        """Writes held for a batch run over ``batch`` (``kslab.processor.batch``), or ``None``
        when this store cannot hold them (a backend whose state depends on the order of
        writes). ``memo``: see ``HeldTimestampedWrites``; ``puts_only``: each update is a
        put with no get before it (so nothing is remembered: no ``memo``)."""
        if not self.is_open or not self._backend.last_write_wins:
            return None
        return HeldTimestampedWrites(self, batch, run, memo and not puts_only)

    def plain_view(self) -> KeyValueStoreFacade:
        """This store seen as a plain key-value store, as Java's test driver shows it."""
        return KeyValueStoreFacade(self)

    def to_pandas(self) -> Any:
        """The contents as a pandas DataFrame: ``key``, ``value``, ``timestamp``, in key order."""
        return to_pandas(self._columns())

    def to_polars(self) -> Any:
        """The contents as a polars DataFrame: ``key``, ``value``, ``timestamp``, in key order."""
        return to_polars(self._columns())

    # -- engine hooks -------------------------------------------------------------------------

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        """Apply changelog ``(key, value, timestamp)`` records, unlogged; ``None`` deletes."""
        pairs: list[tuple[bytes, bytes | None]] = []
        for record in records:
            if len(record) < 3 or not isinstance(record[2], int):
                msg = (
                    f"Store '{self._name}' is timestamped and restores from (key, value, "
                    f"timestamp) records, got {preview(record)}; pass each changelog record's "
                    "timestamp too"
                )
                raise StoreError(msg)
            key, value, timestamp = record[0], record[1], record[2]
            pairs.append((key, None if value is None else _pack_timestamp(timestamp) + value))
        self._backend.restore_batch(pairs)

    # -- helpers -------------------------------------------------------------------------------

    def encode_value(self, value_and_timestamp: Any) -> tuple[bytes, bytes, int] | None:
        """``(stored, raw value, timestamp)``, or ``None`` when the write is a delete."""
        if value_and_timestamp is None:
            return None
        if not isinstance(value_and_timestamp, ValueAndTimestamp):
            msg = (
                f"Store '{self._name}' is timestamped and got {preview(value_and_timestamp)}; "
                "put ValueAndTimestamp(value, timestamp) (or use store.plain_view().put)"
            )
            raise StoreError(msg)
        value, timestamp = value_and_timestamp
        raw = self.serialize_value(value)
        if raw is None:
            return None
        try:
            return _pack_timestamp(timestamp) + raw, raw, timestamp
        except struct.error as exc:
            msg = (
                f"Store '{self._name}' got timestamp {timestamp!r} in {value_and_timestamp!r}: "
                f"{exc}; timestamps are int milliseconds"
            )
            raise StoreError(msg) from exc

    def _log_encoded(self, key_bytes: bytes, encoded: tuple[bytes, bytes, int] | None) -> None:
        log = self._log
        if log is None:
            return
        if encoded is None:
            log(self._name, key_bytes, None)
        else:
            log(self._name, key_bytes, encoded[1], encoded[2])

    def decode_value(self, value_bytes: bytes) -> ValueAndTimestamp:
        return _new_tuple(
            ValueAndTimestamp,
            (super().decode_value(value_bytes[8:]), _unpack_timestamp(value_bytes)[0]),
        )

    def _columns(self) -> dict[str, list[Any]]:
        keys: list[Any] = []
        values: list[Any] = []
        timestamps: list[int] = []
        with self.all() as entries:
            for key, (value, timestamp) in entries:
                keys.append(key)
                values.append(value)
                timestamps.append(timestamp)
        return {"key": keys, "value": values, "timestamp": timestamps}


class KeyValueStoreFacade:
    """A timestamped store seen as a plain key-value store (Java's test-driver facade).

    Reads drop the timestamp; writes store ``NO_TIMESTAMP`` (-1) as the timestamp, as
    ``TopologyTestDriver.KeyValueStoreFacade`` does.
    """

    __slots__ = ("_inner",)

    store_kind = "key_value"

    def __init__(self, inner: TimestampedKeyValueStore) -> None:
        self._inner = inner

    @property
    def wrapped(self) -> TimestampedKeyValueStore:
        """The timestamped store behind the facade."""
        return self._inner

    @property
    def name(self) -> str:
        """The store name."""
        return self._inner.name

    @property
    def persistent(self) -> bool:
        """True when the store keeps data on disk."""
        return self._inner.persistent

    @property
    def is_open(self) -> bool:
        """True between ``init`` and ``close``."""
        return self._inner.is_open

    @property
    def key_serde(self) -> Any:
        """The key serde in use."""
        return self._inner.key_serde

    @property
    def changelog_topic(self) -> str | None:
        """The store's changelog topic."""
        return self._inner.changelog_topic

    @property
    def timestamped_store(self) -> TimestampedKeyValueStore:
        """The store behind this facade."""
        return self._inner

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Initialize the store behind the facade (with ``root`` when one is given)."""
        if root is None:
            self._inner.init(context)
        else:
            self._inner.init(context, root)

    def flush(self) -> None:
        """Flush the store behind the facade."""
        self._inner.flush()

    def close(self) -> None:
        """Close the store behind the facade."""
        self._inner.close()

    def get(self, key: Any) -> Any:
        """The value stored for ``key`` (without its timestamp), or ``None``."""
        found = self._inner.get(key)
        return None if found is None else found.value

    def put(self, key: Any, value: Any) -> None:
        """Store ``value`` with timestamp -1; ``None`` deletes."""
        self._inner.put(key, None if value is None else ValueAndTimestamp(value, NO_TIMESTAMP))

    def put_if_absent(self, key: Any, value: Any) -> Any:
        """Store ``value`` (timestamp -1) only if ``key`` has none; return the old value."""
        old = self._inner.put_if_absent(
            key, None if value is None else ValueAndTimestamp(value, NO_TIMESTAMP)
        )
        return None if old is None else old.value

    def put_all(self, entries: Iterable[tuple[Any, Any]]) -> None:
        """Store every ``(key, value)`` pair in order, each with timestamp -1."""
        for key, value in entries:
            self.put(key, value)

    def delete(self, key: Any) -> Any:
        """Remove ``key``; return its old value."""
        old = self._inner.delete(key)
        return None if old is None else old.value

    def range(self, from_key: Any = None, to_key: Any = None) -> PlainValueIterator:
        """As ``KeyValueStore.range``, with plain values."""
        return PlainValueIterator(self._inner.range(from_key, to_key))

    def reverse_range(self, from_key: Any = None, to_key: Any = None) -> PlainValueIterator:
        """As ``KeyValueStore.reverse_range``, with plain values."""
        return PlainValueIterator(self._inner.reverse_range(from_key, to_key))

    def all(self) -> PlainValueIterator:
        """Every entry in key order, with plain values."""
        return PlainValueIterator(self._inner.all())

    def reverse_all(self) -> PlainValueIterator:
        """Every entry from the largest key down, with plain values."""
        return PlainValueIterator(self._inner.reverse_all())

    def prefix_scan(self, prefix: Any, prefix_serde: Any = KEY_SERDE) -> PlainValueIterator:
        """As ``KeyValueStore.prefix_scan``, with plain values."""
        if prefix_serde is KEY_SERDE:
            return PlainValueIterator(self._inner.prefix_scan(prefix))
        return PlainValueIterator(self._inner.prefix_scan(prefix, prefix_serde))

    def approximate_num_entries(self) -> int:
        """How many keys the store holds."""
        return self._inner.approximate_num_entries()

    def to_pandas(self) -> Any:
        """The contents as a pandas DataFrame with columns ``key`` and ``value``."""
        return to_pandas(self._columns())

    def to_polars(self) -> Any:
        """The contents as a polars DataFrame with columns ``key`` and ``value``."""
        return to_polars(self._columns())

    def __repr__(self) -> str:
        return f"<KeyValueStoreFacade over {self._inner!r}>"

    def _columns(self) -> dict[str, list[Any]]:
        keys: list[Any] = []
        values: list[Any] = []
        with self.all() as entries:
            for key, value in entries:
                keys.append(key)
                values.append(value)
        return {"key": keys, "value": values}


class PlainValueIterator:
    """A scan of a timestamped store seen with plain values (Java's ``KeyValueIteratorFacade``):
    every call goes to the inner iterator, so the inner store's semantics (its cache included)
    hold, and each ``ValueAndTimestamp`` loses its timestamp."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __iter__(self) -> PlainValueIterator:
        return self

    def __next__(self) -> KeyValue:
        return _plain_pair(next(self._inner))

    def has_next(self) -> bool:
        """True when another pair follows."""
        return self._inner.has_next()  # type: ignore[no-any-return]

    def next(self) -> KeyValue:
        """The next pair; ``NoSuchElementError`` at the end."""
        return _plain_pair(self._inner.next())

    def peek_next_key(self) -> Any:
        """The key ``next()`` would return, without moving."""
        return self._inner.peek_next_key()

    def close(self) -> None:
        """Close the inner scan."""
        self._inner.close()

    def __enter__(self) -> PlainValueIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<PlainValueIterator over {self._inner!r}>"


def _plain_pair(pair: Any) -> KeyValue:
    """``KeyValue(key, ValueAndTimestamp)`` as ``KeyValue(key, value)`` (``None`` stays)."""
    key, value_and_timestamp = pair
    return _new_tuple(
        KeyValue, (key, None if value_and_timestamp is None else value_and_timestamp[0])
    )


class TimestampDroppingBackend(KeyValueBackend):
    """Java's ``KeyValueToTimestampedKeyValueByteStoreAdapter``: a plain persistent backend
    under a timestamped store keeps values only, and reads come back with timestamp -1.
    """

    def __init__(self, inner: KeyValueBackend) -> None:
        super().__init__(inner.name)
        self._inner = inner
        self.persistent = inner.persistent

    def replace_inner(self, backend: KeyValueBackend) -> None:
        """Close the plain backend and adapt ``backend`` instead (an engine's own storage)."""
        self._inner.close()
        self._inner = backend

    def open(self, directory: Path | None) -> None:
        """Open the plain backend."""
        self._inner.open(directory)

    def close(self) -> None:
        """Close the plain backend."""
        self._inner.close()

    def flush(self) -> None:
        """Flush the plain backend."""
        self._inner.flush()

    def get(self, key: bytes) -> bytes | None:
        """The stored value with a -1 timestamp in front."""
        value = self._inner.get(key)
        return None if value is None else _NO_TIMESTAMP_BYTES + value

    def put(self, key: bytes, value: bytes) -> None:
        """Store the value without its timestamp."""
        self._inner.put(key, value[8:])

    def put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        """As ``put``, only when ``key`` is absent."""
        old = self._inner.put_if_absent(key, value[8:])
        return None if old is None else _NO_TIMESTAMP_BYTES + old

    def put_all(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Store every pair without timestamps."""
        self._inner.put_all([(k, None if v is None else v[8:]) for k, v in entries])

    def restore_batch(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Restore every pair without timestamps."""
        self._inner.restore_batch([(k, None if v is None else v[8:]) for k, v in entries])

    def delete(self, key: bytes) -> bytes | None:
        """Remove ``key``; its old value comes back with a -1 timestamp."""
        old = self._inner.delete(key)
        return None if old is None else _NO_TIMESTAMP_BYTES + old

    def range(self, from_key: bytes | None, to_key: bytes | None) -> Iterator[tuple[bytes, bytes]]:
        """Ascending pairs, each value with a -1 timestamp."""
        return _with_no_timestamp(self._inner.range(from_key, to_key))

    def reverse_range(
        self, from_key: bytes | None, to_key: bytes | None
    ) -> Iterator[tuple[bytes, bytes]]:
        """Descending pairs, each value with a -1 timestamp."""
        return _with_no_timestamp(self._inner.reverse_range(from_key, to_key))

    def prefix_scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Prefix pairs, each value with a -1 timestamp."""
        return _with_no_timestamp(self._inner.prefix_scan(prefix))

    def approximate_num_entries(self) -> int:
        """As the plain backend."""
        return self._inner.approximate_num_entries()

    def snapshot(self) -> object:
        """The plain backend's snapshot."""
        return self._inner.snapshot()

    def restore_snapshot(self, snapshot: object) -> None:
        """Restore the plain backend's snapshot."""
        self._inner.restore_snapshot(snapshot)


def _with_no_timestamp(pairs: Iterator[tuple[bytes, bytes]]) -> Iterator[tuple[bytes, bytes]]:
    for key, value in pairs:
        yield key, _NO_TIMESTAMP_BYTES + value


def _decode_all(store: TimestampedKeyValueStore, stored: list[bytes]
                ) -> list[ValueAndTimestamp]:
    """``store.decode_value`` of each of ``stored`` (timestamp, then the value's bytes): in C
    iterators through the value serde's C-level codec where it takes them all, else one by
    one (which raises the store's error for bytes it cannot read)."""
    decode = store._vdec
    if decode is not None and stored:
        try:
            values = list(map(decode, map(getitem, stored, repeat(_AFTER_TIMESTAMP))))
        except Exception:
            pass  # the store's own decoding below: the values, or its error
        else:
            if store._vdec_indexed:  # (a struct's unpack: 1-tuples)
                values = list(map(itemgetter(0), values))
            stamps = map(itemgetter(0), map(_unpack_timestamp, stored))
            return list(map(_new_tuple, repeat(ValueAndTimestamp), zip(values, stamps,
                                                                       strict=True)))
    return list(map(store.decode_value, stored))


class HeldTimestampedWrites:
    """What a batch run writes to a ``TimestampedKeyValueStore``, held until ``apply``.

    A stateful batch form reads the stored values of the run's keys (``read``), folds its
    records over them, and hands over the result as ``update_all``: at each position, the
    record path's ``get`` then ``put`` of that record's key. The store and its changelog see
    nothing before ``apply``, which leaves both as the record path's puts would have: each
    key's last bytes in the backend (keys new to it added in the order they were first
    written), every write in the changelog, in order. Keys are identified by their bytes, as
    the store does. ``flushed`` serializes what was put (in phase one: a value the serde
    refuses raises its error) and works out each key's last stored bytes, so phase two writes
    one value per key and the columns the changelog takes as they are. A delete (a ``None``
    value) is held as ``None`` bytes: the key leaves the backend and the changelog gets a
    tombstone stamped with its record's timestamp (the record path's context).
    ``memo``: the record path's reads go through this store (no record cache before it), so
    its last key is remembered as theirs leave it. A record cache in front writes through
    ``write_columns`` what its flushes write (``kslab.state.held_cache.HeldCachedWrites``).
    """

    __slots__ = ("_batch", "_finals", "_keys", "_memo", "_read", "_run", "_store",
                 "_updates", "_written")

    def __init__(self, store: TimestampedKeyValueStore, batch: Any, run: Any,
                 memo: bool) -> None:
        self._store = store
        self._batch = batch
        self._keys = batch.keys  # the batch's keys, by position
        self._run = run
        self._memo = memo
        self._read: dict[bytes, bytes] = {}  # stored bytes read from the backend
        # positions, key bytes, values and timestamps of the puts
        self._updates: tuple[list[int], list[bytes], list[Any], list[int]] = ([], [], [], [])
        # the writes: key bytes, value bytes, timestamps, positions
        self._written: tuple[list[bytes], list[bytes], list[int], list[int]] | None = None
        self._finals: tuple[list[bytes], list[int], list[bytes]] = ([], [], [])  # finals

    @property
    def key_serde(self) -> Any:
        """The serde that wrote ``key_bytes``."""
        return self._store.key_serde

    @property
    def value_serde(self) -> Any:
        """The serde that wrote the value bytes (``Flushed.value_bytes``)."""
        return self._store.value_serde

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``keys`` (none ``None``) as the store serializes them; a key the store refuses
        raises its error."""
        return self._store.serialize_keys(keys)

    def read(self, distinct: list[bytes]) -> list[ValueAndTimestamp | None]:
        """The stored value of each of the ``distinct`` keys (``None`` for none): read and
        decoded in C where the value serde has a C-level codec that takes them all."""
        raws, values = self._store.read_stored(distinct)
        present = list(compress(range(len(raws)), map(is_not, raws, repeat(None))))
        self._read.update(zip(map(distinct.__getitem__, present),
                              map(raws.__getitem__, present), strict=True))
        return values

    def stored_bytes(self, key_bytes: bytes) -> bytes:
        """The bytes ``read`` found in the backend for the key."""
        return self._read[key_bytes]

    def decode_stored(self, stored: bytes) -> Any:
        """The value stored as ``stored`` (timestamp, then the value's bytes), decoded anew,
        as a record cache's flush decodes a key's old value from the store."""
        return self._store.decode_value(stored)[0]

    def update_all(self, positions: list[int], key_bytes: list[bytes], values: list[Any],
                   timestamps: list[int]) -> None:
        """Hold, for each position in order, the record path's ``get`` then
        ``put(key, ValueAndTimestamp(value, timestamp))`` of that record's key (a ``None``
        value, a delete, is not held: ``flushed`` says so)."""
        self._updates = (positions, key_bytes, values, timestamps)

    def missed(self, count: int) -> None:
        """``count`` more gets of keys the store does not hold: they change nothing."""

    def flushed(self) -> Flushed | None:
        """Serialize what was put (phase one): no forwards (a plain store's writer forwards
        each update itself), every update's value bytes (``None`` for a delete, whose
        tombstone the changelog stamps with its record's timestamp, as the record path's
        context does). ``None`` (record by record) for a value the serde writes as
        ``None``."""
        positions, keys, values, timestamps = self._updates
        raws = self.encode_all(values)
        if raws is None:
            raws = self.encode_deletes(values)
            if raws is None:
                return None
            timestamps = self.delete_stamps(positions, raws, timestamps)
        self.write_columns(keys, raws, timestamps, positions)
        return Flushed(None, None, raws)

    def encode_all(self, values: list[Any]) -> list[bytes] | None:
        """The value bytes of ``values`` as the store writes them (the serde's error for one
        it refuses); ``None`` if one is a delete (``TypedStore.encode_values``)."""
        return self._store.encode_values(values)  # type: ignore[no-any-return]

    def encode_deletes(self, values: list[Any]) -> list[bytes | None] | None:
        """``encode_all`` of values some of which are ``None`` (deletes: ``None`` bytes);
        ``None`` when the serde writes a value that is not ``None`` as ``None`` (a delete
        the record path's store finds only as it serializes)."""
        present = list(compress(range(len(values)), map(is_not, values, repeat(None))))
        raws = self.encode_all(list(map(values.__getitem__, present)))
        if raws is None:
            return None
        encoded: list[bytes | None] = [None] * len(values)
        for index, raw in zip(present, raws, strict=True):
            encoded[index] = raw
        return encoded

    def delete_stamps(self, positions: Any, raws: list[bytes | None],
                      timestamps: list[int]) -> list[int]:
        """``timestamps`` with each delete's (a ``None`` in ``raws``) replaced by the
        timestamp of the record it is for (``positions``: each write's in the batch): a
        delete's tombstone carries the record context's timestamp, a put its value's."""
        records = self._run.timestamps(self._batch)
        return [stamp if raw is not None else records[position]
                for position, raw, stamp in zip(positions, raws, timestamps, strict=True)]

    def write_columns(self, keys: list[bytes], raws: list[bytes | None],
                      timestamps: list[int], positions: list[int]) -> None:
        """Hold these writes (in order; ``positions``: the batch record each writes for;
        ``None`` bytes: a delete)
        for ``apply``: what a flush of the cache in front, or ``flushed``, writes. Each key's
        last write and stored bytes (timestamp, then value) are worked out here, in phase
        one (``finals``): a timestamp the store cannot write raises here (``struct.error``;
        a key's last is its largest, and records' timestamps are 8-byte ones already)."""
        self._finals = self.encode_finals(keys, raws, timestamps)
        self._written = (keys, raws, timestamps, positions)

    @staticmethod
    def encode_finals(keys: list[bytes], raws: list[bytes | None], timestamps: list[int]
                      ) -> tuple[list[bytes], list[int], list[bytes | None]]:
        """Of writes of ``raws`` (value bytes) at ``timestamps`` to ``keys``, in order: each
        written key (first-written order), the index of its last write and its stored bytes
        after it (timestamp, then value), as ``finals`` gives them; a timestamp the store
        cannot write raises here (``struct.error``)."""
        last = PendingWrites.last_of(keys, range(len(keys)))  # first-written order, each
        pack = _pack_timestamp  # key's last write
        indexes = list(last.values())
        return list(last), indexes, [None if raws[index] is None
                                     else pack(timestamps[index]) + raws[index]
                                     for index in indexes]

    def finals(self) -> tuple[list[bytes], list[int], list[bytes | None]]:
        """Each written key (first-written order), the index of its last write among those
        ``write_columns`` held, and its stored bytes after it."""
        return self._finals

    def apply(self) -> None:
        """Write what was held to the backend and the changelog."""
        store, written = self._store, self._written
        if written is None or not written[0]:
            return
        keys, raws, timestamps, positions = written
        finals = self._finals
        store._backend.put_all(zip(finals[0], finals[2], strict=True))
        if store._log is not None:
            append = self._run.changelog(store._name, store._log)
            if append is not None:
                origin = self._batch.origin
                append(keys, Encoded(store.value_serde, raws), timestamps,
                       origin if positions.__class__ is range and positions == range(
                           len(origin))  # (one write per record of the batch, in order)
                       else lambda: list(map(origin.__getitem__, positions)))
            else:
                log, name = store._log, store._name
                for key_bytes, raw, timestamp in zip(keys, raws, timestamps, strict=True):
                    log(name, key_bytes, raw, timestamp)
        if self._memo:  # as the last get leaves it
            store.remember_key(self._keys[positions[-1]], keys[-1])
