"""Java's ``CachingKeyValueStore``: a key-value store behind its thread's record cache.

Stores built with ``with_caching_enabled()`` get one in front (DSL stores by default). Writes
stay in the store's ``NamedCache`` as serialized bytes until the task commits or the cache
evicts a dirty entry; then the dirty keys go to the store in write order and, for DSL tables, to
the flush listener as ``(key, new, old, record)``. Invariant: a read sees the latest write,
whether it is still cached or already in the store.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Iterator
from typing import Any

from kslab.errors import StreamsError
from kslab.records import ValueAndTimestamp
from kslab.state.base import StateStore
from kslab.state.cache import LRUCacheEntry, ThreadCache, thread_cache_for, total_cache_size
from kslab.state.fresh import IMMUTABLE, fresh_value
from kslab.state.held_cache import HeldCachedWrites
from kslab.state.held_reads import HeldCachedReads
from kslab.state.keyvalue import KEY_SERDE
from kslab.state.timestamped import KeyValueStoreFacade, TimestampedKeyValueStore

__all__ = ["CachingKeyValueStore", "CachingStore"]

_TIMESTAMP = struct.Struct(">q")
_NO_KEY = object()
_MEMO_TYPES = (str, int, bytes)  # immutable: the same object always serializes the same


class CachingStore(StateStore):
    """What every caching store shares: joining the thread cache, the flush listener, flushing,
    closing, and passing everything else to the wrapped store."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._listener: Callable[..., None] | None = None
        self._send_old_values = False
        self._context: Any = None
        self._cache: ThreadCache | None = None
        self._named: Any = None
        self._namespace = ""
        self._thread = 0
        self.enabled = True

    def init(self, context: Any, root: Any = None) -> None:
        """Open the store and join the thread's cache (off when its size is 0)."""
        self._inner.init(context)
        self._context = context
        total = total_cache_size(context.app_configs())
        self.enabled = total > 0
        if not self.enabled:
            return
        self._cache = thread_cache_for(context, total)
        self._namespace = ThreadCache.namespace(context.task_id, self._inner.name)
        self._cache.add_dirty_entry_flush_listener(self._namespace, self._flushed)
        self._named = self._cache.named_cache(self._namespace)
        self._thread = threading.get_ident()

    def _flushed(self, entries: list[Any]) -> None:
        raise NotImplementedError

    def _has_dirty(self) -> bool:
        """True when the cache holds entries a scan must merge (clean ones too, as Java's
        merged iterators read every cached entry, even one the store has expired)."""
        named = self._named
        return named is not None and not named.is_empty()

    def _object(self, entry: Any) -> Any:
        """The cached entry's value as an object, decoded once from its bytes."""
        if entry.obj is None and entry.value is not None:
            entry.obj = self._inner.decode_value(entry.value)
        return entry.obj

    def _dirty_entry(self, raw: bytes | None, value: Any) -> LRUCacheEntry:
        """A dirty entry for ``raw`` carrying the current record's context."""
        c = self._context
        record = c.record
        headers = record.raw_headers
        entry = LRUCacheEntry(raw, headers if headers else None, True, c.offset,
                              record.timestamp, c.partition, c.topic)
        entry.obj = None if raw is None else value
        entry.record = record
        return entry

    def _enter(self, entry: LRUCacheEntry) -> tuple[Any, ...]:
        """Make ``entry``'s record context current; return the one to put back."""
        c = self._context
        saved = (c.record, c.topic, c.partition, c.offset)
        c.record, c.topic, c.partition, c.offset = (entry.record, entry.topic, entry.partition,
                                                    entry.offset)
        return saved

    def _leave(self, saved: tuple[Any, ...]) -> None:
        c = self._context
        c.record, c.topic, c.partition, c.offset = saved

    @property
    def store_kind(self) -> str:  # type: ignore[override]
        """The wrapped store's kind (``key_value`` or ``timestamped_key_value``)."""
        return self._inner.store_kind  # type: ignore[no-any-return]

    @property
    def name(self) -> str:
        """The store name."""
        return self._inner.name  # type: ignore[no-any-return]

    @property
    def persistent(self) -> bool:
        """True when the wrapped store is on disk."""
        return self._inner.persistent  # type: ignore[no-any-return]

    @property
    def is_open(self) -> bool:
        """True between ``init`` and ``close``."""
        return self._inner.is_open  # type: ignore[no-any-return]

    @property
    def wrapped(self) -> Any:
        """The store behind the cache."""
        return self._inner

    def snapshot(self) -> object:
        """The wrapped store's bytes (the engines snapshot after a commit: nothing is dirty)."""
        return self._inner.snapshot()

    def restore_snapshot(self, snapshot: object) -> None:
        """Roll the wrapped store back and forget what is cached."""
        if self._cache is not None:
            self._cache.clear(self._namespace)
        self._inner.restore_snapshot(snapshot)

    def restore_batch(self, records: Any) -> None:
        """Restore into the wrapped store directly, as Java's restore bypasses the cache."""
        if self._cache is not None:
            self._cache.clear(self._namespace)
        self._inner.restore_batch(records)

    @property
    def thread_cache(self) -> ThreadCache | None:
        """The thread cache this store writes to (``None`` when the cache is off)."""
        return self._cache

    def set_flush_listener(self, listener: Callable[..., None], send_old_values: bool) -> bool:
        """Call ``listener(key, new, old, record)`` per flushed key; True if cached."""
        self._listener = listener
        self._send_old_values = send_old_values
        return self.enabled

    def flush_cache(self) -> None:
        """Write every dirty entry to the store and forward it, in write order."""
        if self._cache is not None:
            self._cache.flush(self._namespace)

    def flush_is_noop(self) -> bool:
        """True when ``flush_cache`` would only count itself (nothing dirty)."""
        return self._cache is None or self._cache.flush_is_noop(self._namespace)

    def count_noop_flushes(self, times: int) -> None:
        """``flush_cache()`` ``times`` times while ``flush_is_noop``: the counters only."""
        if self._cache is not None:
            self._cache.count_noop_flushes(self._namespace, times)

    def flush(self) -> None:
        """Flush the cache, then the store."""
        self.flush_cache()
        self._inner.flush()

    def close(self) -> None:
        """Flush the cache, drop its namespace and close the wrapped store, each step even when
        an earlier one fails, then raise the first failure (Java's ``executeAll`` and
        ``throwSuppressed``), so a failing flush never leaves the store open."""
        cache, namespace = self._cache, self._namespace
        steps: list[Callable[[], None]] = [self._inner.close]
        if cache is not None:
            steps[:0] = [lambda: cache.flush(namespace), lambda: cache.close(namespace)]
        errors: list[Exception] = []
        for step in steps:
            try:
                step()
            except Exception as exc:
                errors.append(exc)
        self._cache = None
        self._named = None
        if errors:
            kind = self.store_kind
            label = ("window" if "window" in kind else "session" if "session" in kind
                     else "key value")
            error = StreamsError(
                f"Caught an exception while closing caching {label} store for store {self.name}"
            )
            for later in errors[1:]:
                error.add_note(f"also failed: {later!r}")
            raise error from errors[0]

    def __getattr__(self, name: str) -> Any:
        if name == "_inner":  # not set yet while unpickling (Spark ships topologies pickled)
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._inner!r}>"


class CachingKeyValueStore(CachingStore):
    """Java's ``CachingKeyValueStore`` over a (timestamped) key-value store.

    Writes go to this store's ``NamedCache`` in the thread's ``ThreadCache`` as serialized
    bytes (so sizes are Java's); a flush (the task's commit) or the eviction of a dirty entry
    writes the dirty keys to the store in write order and hands each to the flush listener with
    the record context of its last write. Reads that miss load the stored bytes into the cache as
    clean entries, as Java does. With ``statestore.cache.max.bytes`` 0 the cache is off and
    every write goes straight through.
    """

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self._timestamped = isinstance(inner, TimestampedKeyValueStore)
        self._memo_key: Any = _NO_KEY
        self._memo_bytes = b""

    def init(self, context: Any, root: Any = None) -> None:
        """Open the store and join the thread's cache (off when its size is 0)."""
        self._memo_key = _NO_KEY
        super().init(context, root)

    def forget_clean(self) -> None:
        """Drop this store's cached entries when none is dirty (a commit flushed them all).
        Each is then in the store, so a read that follows loads it again: nothing changes
        but the cache's hits. A Spark streaming task kept open between micro-batches calls
        it after each one's commit (``kslab.spark._streaming``), so it starts the next as a
        task built on its store does, with an empty cache (kept full of clean entries, its
        batch runs would work out evictions the rebuilt task does not make)."""
        if self._cache is not None and self._cache.is_clean(self._namespace):
            self._cache.clear(self._namespace)

    def held_writes(self, batch: Any, run: Any, *, puts_only: bool = False) -> Any:
        """Writes held for a batch run over ``batch`` (``kslab.processor.batch``): with the
        record cache off (``statestore.cache.max.bytes`` 0: every write goes through) the
        wrapped store's; with it on, ``HeldCachedWrites`` where the cache is this thread's
        and, when the run commits after every record, clean; else ``None``. ``puts_only``:
        each update is a put with no get before it."""
        held = getattr(self._inner, "held_writes", None)
        if self._cache is None:
            return None if held is None else held(batch, run, puts_only=puts_only)
        if held is None or not self._timestamped or not run.holds_cache(self._namespace) \
                or threading.get_ident() != self._thread \
                or (run.commit_each and not self._cache.is_clean(self._namespace)):
            return None
        inner = held(batch, run, memo=False)  # the cache's reads never reach the store's get
        if inner is None:
            return None
        return HeldCachedWrites(self._cache, self._namespace, inner, batch, run,
                                decode=self._object, send_old_values=self._send_old_values,
                                remember=self._remember_key, puts_only=puts_only)

    def held_reads(self, batch: Any, run: Any) -> Any:
        """The ``get`` calls of a batch run (``kslab.state.held_reads``): with the record
        cache off the wrapped store's; with it on, ``HeldCachedReads`` where the cache is
        this thread's (a query thread's gets read nothing back into it); else ``None``."""
        reads = getattr(self._inner, "held_reads", None)
        held = None if reads is None else reads(batch, run)
        if self._cache is None or held is None:
            return held
        if not self._timestamped or threading.get_ident() != self._thread:
            return None
        return HeldCachedReads(self._cache, self._namespace, self._inner, run,
                               decode=self._object, remember=self._remember_key)

    def _remember_key(self, key: Any, key_bytes: bytes) -> None:
        """Remember ``key``'s bytes as a get or put of it does (``_key_bytes``)."""
        if key.__class__ in _MEMO_TYPES:
            self._memo_key, self._memo_bytes = key, key_bytes

    def plain_view(self) -> KeyValueStoreFacade:
        """This (timestamped) store seen with plain values, reads and writes still going through
        the cache (``driver.get_key_value_store``: Java's facade wraps the caching layer)."""
        if not self._timestamped:
            msg = f"plain_view: store '{self.name}' is not timestamped; use it as it is"
            raise AttributeError(msg)
        return KeyValueStoreFacade(self)

    def _key_bytes(self, key: Any) -> bytes:
        """``key`` serialized; the bytes of the last str/int/bytes key are remembered, so the
        usual get-then-put of one key serializes it once."""
        if key is self._memo_key:
            return self._memo_bytes
        key_bytes = self._inner.serialize_key(key)
        if key.__class__ in _MEMO_TYPES:
            self._memo_key, self._memo_bytes = key, key_bytes
        return key_bytes

    def get(self, key: Any) -> Any:
        """The cached value of ``key``, else the stored one (then cached, clean)."""
        cache = self._cache
        if cache is None:
            return self._inner.get(key)
        inner = self._inner
        key_bytes = self._key_bytes(key)
        entry = cache.get(self._namespace, key_bytes)
        if entry is not None:
            if entry.obj is None and entry.value is not None:
                entry.obj = inner.decode_value(entry.value)
            found = entry.obj  # handed out as an object of its own, as Java's get decodes
            kind = found.__class__  # one (kslab.state.fresh): immutable ones as they are
            if kind in IMMUTABLE or (kind is ValueAndTimestamp
                                     and found[0].__class__ in IMMUTABLE):
                return found
            return fresh_value(found)
        raw = inner.backend.get(key_bytes)
        if raw is None:
            return None
        value = inner.decode_value(raw)
        if threading.get_ident() == self._thread:  # never let a query thread evict
            clean = LRUCacheEntry(raw)
            clean.obj = value
            cache.put(self._namespace, key_bytes, clean)
        return value

    def put(self, key: Any, value: Any) -> None:
        """Write to the cache (to the store when the cache is off)."""
        cache = self._cache
        if cache is None:
            self._inner.put(key, value)
            return
        inner = self._inner
        key_bytes = self._key_bytes(key)
        if self._timestamped:
            encoded = inner.encode_value(value)
            raw = None if encoded is None else encoded[0]
        else:
            raw = inner.serialize_value(value)
        entry = self._dirty_entry(raw, value)
        entry.key_obj = key
        cache.put(self._namespace, key_bytes, entry)

    def put_if_absent(self, key: Any, value: Any) -> Any:
        """Write only if ``key`` has no value; return the value that was there."""
        old = self.get(key)
        if old is None:
            self.put(key, value)
        return old

    def put_all(self, entries: Any) -> None:
        """``put`` each ``(key, value)`` in order."""
        for key, value in entries:
            self.put(key, value)

    def delete(self, key: Any) -> Any:
        """Remove ``key`` (a cached tombstone until flushed); return what was there."""
        old = self.get(key)
        self.put(key, None)
        return old

    def range(self, from_key: Any = None, to_key: Any = None) -> Any:
        """Entries in ``[from_key, to_key]``, cached writes merged over the store."""
        return self._merged("range", from_key, to_key, reverse=False)

    def reverse_range(self, from_key: Any = None, to_key: Any = None) -> Any:
        """``range`` in descending key order."""
        return self._merged("reverse_range", from_key, to_key, reverse=True)

    def all(self) -> Any:
        """Every entry, cached writes merged over the store."""
        return self._merged("all", None, None, reverse=False)

    def reverse_all(self) -> Any:
        """``all`` in descending key order."""
        return self._merged("reverse_all", None, None, reverse=True)

    def prefix_scan(self, prefix: Any, prefix_serde: Any = KEY_SERDE) -> Any:
        """Entries whose serialized key starts with ``prefix``, cached writes merged in."""
        inner = self._inner
        named = self._named
        if named is None or not named.dirty_keys():
            return inner.prefix_scan(prefix, prefix_serde)
        prefix_bytes = inner.prefix_key_bytes(prefix, prefix_serde)
        dirty = {}
        for key_bytes in named.key_range(prefix_bytes, None):
            if not key_bytes.startswith(prefix_bytes):
                break
            entry = named.get(key_bytes)
            if entry is not None and entry.is_dirty:
                dirty[key_bytes] = entry.value
        if not dirty:
            return inner.prefix_scan(prefix, prefix_serde)
        source = inner.backend.prefix_scan(prefix_bytes)
        return inner.bytes_iterator(_merge(source, dirty, False))

    def _merged(self, method: str, from_key: Any, to_key: Any, *, reverse: bool) -> Any:
        inner = self._inner
        args = () if method.endswith("all") else (from_key, to_key)
        named = self._named
        if named is None or not named.dirty_keys():
            return getattr(inner, method)(*args)
        lower = None if from_key is None else inner.serialize_key(from_key)
        upper = None if to_key is None else inner.serialize_key(to_key)
        dirty = {}  # clean entries equal the store, so only dirty ones change the scan
        for key_bytes in named.key_range(lower, upper):
            entry = named.get(key_bytes)
            if entry is not None and entry.is_dirty:
                dirty[key_bytes] = entry.value
        if not dirty:
            return getattr(inner, method)(*args)
        backend = inner.backend
        source = (backend.reverse_range(lower, upper) if reverse
                  else backend.range(lower, upper))
        return inner.bytes_iterator(_merge(source, dirty, reverse))

    # -- flushing -----------------------------------------------------------------------------

    def _flushed(self, entries: list[Any]) -> None:
        """Write flushed entries to the store and forward them (Java's ``putAndMaybeForward``)."""
        inner, listener, c = self._inner, self._listener, self._context
        send_old = self._send_old_values
        saved = (c.record, c.topic, c.partition, c.offset)
        try:
            for dirty in entries:
                entry = dirty.entry
                new_raw = dirty.new_value
                if listener is None:
                    c.record, c.topic, c.partition, c.offset = (entry.record, entry.topic,
                                                                entry.partition, entry.offset)
                    self._write(dirty.key, new_raw, entry)
                    continue
                old_raw = inner.backend.get(dirty.key) if new_raw is None or send_old else None
                if new_raw is None and old_raw is None:
                    continue
                c.record, c.topic, c.partition, c.offset = (entry.record, entry.topic,
                                                            entry.partition, entry.offset)
                self._write(dirty.key, new_raw, entry)
                old = None if old_raw is None or not send_old else inner.decode_value(old_raw)
                new = entry.obj
                if new is None and new_raw is not None:
                    new = inner.decode_value(new_raw)
                elif new.__class__ not in IMMUTABLE:  # forwarded: downstream may change it,
                    new = fresh_value(new)  # the cached object stays as its bytes read
                listener(entry.key_obj, new, old, entry.record)
        finally:
            c.record, c.topic, c.partition, c.offset = saved

    def _write(self, key_bytes: bytes, raw: bytes | None, entry: Any) -> None:
        inner = self._inner
        if raw is None:
            inner.delete_bytes(key_bytes)
            return
        inner.backend.put(key_bytes, raw)
        log = inner.changelog_writer
        if log is not None:
            if self._timestamped:
                log(inner.name, key_bytes, raw[8:], _TIMESTAMP.unpack_from(raw)[0])
            else:
                log(inner.name, key_bytes, raw)


def _merge(source: Iterator[tuple[bytes, bytes]], dirty: dict[bytes, bytes | None],
           reverse: bool) -> Iterator[tuple[bytes, bytes]]:
    """Store ``(key, value)`` bytes with the cache's dirty writes laid over them, in order."""
    keys = sorted(dirty, reverse=reverse)
    i, n = 0, len(keys)
    for key, value in source:
        while i < n and (keys[i] > key if reverse else keys[i] < key):
            cached = dirty[keys[i]]
            if cached is not None:
                yield keys[i], cached
            i += 1
        if i < n and keys[i] == key:
            cached = dirty[key]
            i += 1
            if cached is not None:
                yield key, cached
            continue
        yield key, value
    for key in keys[i:]:
        cached = dirty[key]
        if cached is not None:
            yield key, cached
