"""Key-value writes held as objects until the commit: the live runtime's write-behind.

An engine that sends a changelog's writes at the commit may let a plain in-memory key-value
store hold what its processors put, as objects, when its serdes map objects to bytes one to one:
exact ``str`` (String), ``int`` in range (Long, Integer, Short) or ``bytes`` (Bytes) keys, and
those or ``float`` (Double) values. ``get`` answers from the held objects, equal to what the
serdes would give back; ``write_behind()`` serializes each held key's last object once into the
backend and every held put, in order, into the changelog batch (a ``list`` of ``(key, value,
headers, timestamp)``: Java logs every put of a store without a cache), and the engine's
collector calls it before it sends the batch. The held objects are pending writes
(``kslab.state.pending.PendingWrites``: key -> ``(key, value, timestamp)``, each key's last, in
first-written order) beside the list of every put. Everything else (the bytes, the changelog
records and their timestamps, errors) is what the plain store gives.

Invariant: outside ``get`` and ``put`` on the owning thread, the backend holds every write: every
other method writes the held objects behind first. Another thread (interactive queries) never
writes: its scans merge a copy of the held objects over the backend's entries.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from kslab.state.backends.memory import InMemoryKeyValueBackend
from kslab.state.iterators import KeyValueIterator
from kslab.state.keyvalue import KEY_SERDE, KeyValueStore
from kslab.state.pending import PendingWrites

__all__ = ["WriteBehindKeyValueStore", "hold_writes"]

_get_ident = threading.get_ident


def _held_form(serde: Any, *, key: bool) -> tuple[type, int | None] | None:
    """The class a serde's objects must have to be held, and the bound of an ``int`` one
    (``serdes._base.one_to_one``); not ``float`` keys: ``-0.0 == 0.0``, their bytes differ."""
    from kslab.serdes._base import one_to_one  # state never needs kslab.serdes at import time

    form = one_to_one(serde)
    return None if form is None or (key and form[0] is float) else form


def hold_writes(store: Any, context: Any, batch: list[Any] | None) -> bool:
    """Let ``store`` hold its puts as objects until ``write_behind()``, if it can; ``context``
    gives the current record's timestamp, ``batch`` is the engine's changelog batch
    (``RecordCollector.changelog_batch``; ``None`` for an unlogged store). The calling thread owns
    the store from here on. Returns whether it now holds writes.

    Only an open plain ``KeyValueStore`` on the in-memory backend (not an LRU map, whose
    evictions follow its reads and writes; RocksDB stores are left as they are) with holdable
    serdes qualifies, logged through a batch or not logged at all.
    """
    if type(store) is not KeyValueStore or not store.is_open:
        return False
    if type(store._impl) is not InMemoryKeyValueBackend:
        return False
    if (store._log is None) != (batch is None):  # logged, but not through a batch
        return False
    key_form = _held_form(store.key_serde, key=True)
    value_form = _held_form(store.value_serde, key=False)
    if key_form is None or value_form is None:
        return False
    store.__class__ = WriteBehindKeyValueStore
    store._held = held = PendingWrites()
    store._held_puts = []  # every held put, in order: what the changelog gets
    store._held_get = held.get  # (bound once: CPython specializes a method call on an exact
    # dict only, and a get per record is the hot path)
    store._held_key_class, store._held_key_bound = key_form
    store._held_value_class, store._held_value_bound = value_form
    store._held_context = context
    store._held_batch = batch
    store._held_owner = _get_ident()
    return True


def _same(data: bytes) -> bytes:
    """The Bytes serde's serialize of an exact ``bytes`` (it has no C-level codec)."""
    return data


def _encodable(text: str) -> bool:
    """Whether ``text`` has UTF-8 bytes (a lone surrogate has none)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


class WriteBehindKeyValueStore(KeyValueStore):
    """A ``KeyValueStore`` holding its puts as objects until ``write_behind()`` (see the module)."""

    __slots__ = ()

    def get(self, key: Any) -> Any:
        """As ``KeyValueStore.get``, from the held objects first."""
        if key.__class__ is self._held_key_class:
            held = self._held_get(key)
            if held is not None:
                return held[1]
            return KeyValueStore.get(self, key)
        self._settle()  # another class (True for 1, say) may equal a held key
        return KeyValueStore.get(self, key)

    def put(self, key: Any, value: Any) -> None:
        """As ``KeyValueStore.put``; a key and value of the held classes are held as objects."""
        if key.__class__ is self._held_key_class and value.__class__ is self._held_value_class:
            # in the serde's range: an int within its bound; a str with UTF-8 bytes (inlined:
            # a call per check would cost what holding saves)
            key_bound, value_bound = self._held_key_bound, self._held_value_bound
            if ((-key_bound <= key < key_bound) if key_bound else (
                    key.__class__ is not str or key.isascii() or _encodable(key))) and (
                    (-value_bound <= value < value_bound) if value_bound else (
                    value.__class__ is not str or value.isascii() or _encodable(value))):
                self._held[key] = put = (key, value, self._held_context.record.timestamp)
                self._held_puts.append(put)
                return
        self._settle()  # None, another class or a value the serde refuses: the plain put
        KeyValueStore.put(self, key, value)

    # -- the engine's side ----------------------------------------------------------------------

    def write_behind(self) -> None:
        """Serialize each held key's last object into the backend, and every held put in
        order into the changelog batch, stamped with the timestamp of the record that put it."""
        held = self._held
        if not held:
            return
        kenc, venc = self._kenc or _same, self._venc or _same
        encoded = {key: kenc(key) for key in held}  # each key once
        batch = self._held_batch
        if batch is not None:
            batch.extend([(encoded[key], venc(value), None, timestamp)
                          for key, value, timestamp in self._held_puts])
        bput = self._bput
        for key, (_key, value, _timestamp) in held.drain():
            bput(encoded[key], venc(value))
        self._held_puts.clear()

    def drop_held(self) -> None:
        """Forget the held objects (their transaction is being aborted)."""
        self._held.drop()
        self._held_puts.clear()

    def held_writes(self) -> int:
        """How many keys are held."""
        return len(self._held)

    def held_put_count(self) -> int:
        """How many puts are held (each goes to the changelog): what bounds the memory."""
        return len(self._held_puts)

    def _settle(self) -> bool:
        """Write behind when on the owning thread; ``False`` when another thread finds
        objects held (it must merge them in instead)."""
        if not self._held:
            return True
        if _get_ident() == self._held_owner:
            self.write_behind()
            return True
        return False

    # -- everything else reads and writes the backend --------------------------------------------

    def put_if_absent(self, key: Any, value: Any) -> Any:
        """As ``KeyValueStore.put_if_absent``."""
        self._settle()
        return KeyValueStore.put_if_absent(self, key, value)

    def put_all(self, entries: Any) -> None:
        """As ``KeyValueStore.put_all``."""
        self._settle()
        KeyValueStore.put_all(self, entries)

    def delete(self, key: Any) -> Any:
        """As ``KeyValueStore.delete``."""
        self._settle()
        return KeyValueStore.delete(self, key)

    def range(self, from_key: Any = None, to_key: Any = None) -> KeyValueIterator:
        """As ``KeyValueStore.range``."""
        if self._settle():
            return KeyValueStore.range(self, from_key, to_key)
        lower, upper = self._bounds(from_key, to_key)
        return self._merged(self._backend.range(lower, upper), _within(lower, upper), False)

    def reverse_range(self, from_key: Any = None, to_key: Any = None) -> KeyValueIterator:
        """As ``KeyValueStore.reverse_range``."""
        if self._settle():
            return KeyValueStore.reverse_range(self, from_key, to_key)
        lower, upper = self._bounds(from_key, to_key)
        return self._merged(self._backend.reverse_range(lower, upper), _within(lower, upper),
                            True)

    def all(self) -> KeyValueIterator:
        """As ``KeyValueStore.all``."""
        if self._settle():
            return KeyValueStore.all(self)
        return self._merged(self._backend.all(), _within(None, None), False)

    def reverse_all(self) -> KeyValueIterator:
        """As ``KeyValueStore.reverse_all``."""
        if self._settle():
            return KeyValueStore.reverse_all(self)
        return self._merged(self._backend.reverse_all(), _within(None, None), True)

    def prefix_scan(self, prefix: Any, prefix_serde: Any = KEY_SERDE) -> KeyValueIterator:
        """As ``KeyValueStore.prefix_scan``."""
        if self._settle():
            return KeyValueStore.prefix_scan(self, prefix, prefix_serde)
        start = self.prefix_key_bytes(prefix, prefix_serde)
        return self._merged(self._backend.prefix_scan(start), lambda k: k.startswith(start),
                            False)

    def approximate_num_entries(self) -> int:
        """As ``KeyValueStore.approximate_num_entries``."""
        if self._settle():
            return KeyValueStore.approximate_num_entries(self)
        kenc, bget = self._kenc or _same, self._bget
        new = sum(1 for key in dict(self._held) if bget(kenc(key)) is None)
        return self._backend.approximate_num_entries() + new

    def flush(self) -> None:
        """Write behind, then flush the backend."""
        self._settle()
        KeyValueStore.flush(self)

    def close(self) -> None:
        """Drop what is held (a clean close wrote it behind at its commit; an unclean one
        rebuilds from the changelog) and close as a plain store, which it is again."""
        self.drop_held()
        self.__class__ = KeyValueStore
        KeyValueStore.close(self)

    def restore_batch(self, records: Any) -> None:
        self._settle()
        KeyValueStore.restore_batch(self, records)

    def snapshot(self) -> object:
        self._settle()
        return KeyValueStore.snapshot(self)

    def restore_snapshot(self, snapshot: object) -> None:
        self.drop_held()
        KeyValueStore.restore_snapshot(self, snapshot)

    def _merged(self, entries: Iterator[tuple[bytes, bytes]], keep: Callable[[bytes], bool],
                backward: bool) -> KeyValueIterator:
        """A scan for another thread: the backend's ``entries`` with a copy of the held objects
        that ``keep`` admits laid over them, in key order."""
        merged = dict(entries)
        kenc, venc = self._kenc or _same, self._venc or _same
        for key, (_key, value, _timestamp) in dict(self._held).items():  # a copy: the owner
            # writes on
            key_bytes = kenc(key)
            if keep(key_bytes):
                merged[key_bytes] = venc(value)
        return self.bytes_iterator(iter(sorted(merged.items(), reverse=backward)))


def _within(lower: bytes | None, upper: bytes | None) -> Callable[[bytes], bool]:
    """Whether a key's bytes lie between the optional bounds (both inclusive)."""
    return lambda key: (lower is None or key >= lower) and (upper is None or key <= upper)
