"""What a changelog restore tells the application's restore listener (Java's
``StateRestoreListener``) and each store's own one, and kslab's addition: a restore that waits.

A listener has any of ``on_restore_start(topic_partition, store_name, start_offset,
end_offset)``, ``on_batch_restored(topic_partition, store_name, batch_end_offset,
num_restored)``, ``on_restore_end(topic_partition, store_name, total_restored)`` and
``on_restore_waiting(topic_partition, store_name, offset, waited_ms)``; ``topic_partition`` is a
``(topic, partition)`` pair. A store's own listener (``StoreBuilder.with_restore_listener`` or
``context.register(store, callback)`` in its ``init``, Java's notifying restore callback) hears
the same calls for that store's changelog, after the global one. Invariant: a listener that
raises is logged and never stops the restore (Java's listeners run on the stream thread too,
but a lab must not lose a task to a print statement).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["RestoreNotifier"]

log = logging.getLogger("kslab.runtime")


class RestoreNotifier:
    """Calls one task's restore events on the global ``listener`` (which may be ``None``) and
    on the stores' own listeners (``own``: store name -> listener)."""

    def __init__(self, listener: Any, stores: dict[str, str],
                 own: dict[str, Any] | None = None) -> None:
        self.listener = listener
        self.stores = stores  # changelog topic -> store name
        self.own = own or {}
        self.totals: dict[tuple[str, int], int] = {}

    def _call(self, name: str, *args: Any) -> None:
        """``args[1]`` is the store name: its own listener hears the call after the global."""
        for listener in (self.listener, self.own.get(args[1])):
            method: Callable[..., Any] | None = getattr(listener, name, None)
            if method is None:
                continue
            try:
                method(*args)
            except Exception as exc:
                log.error("the restore listener %r's %s raised %r; the restore goes on",
                          listener, name, exc)

    def start(self, starts: dict[tuple[str, int], int], end_offset: Callable[[str, int], int]
              ) -> None:
        """Each partition's restore begins at its start offset (the end as the broker reports
        it, -1 if it cannot say)."""
        if getattr(self.listener, "on_restore_start", None) is None and not any(
                hasattr(own, "on_restore_start") for own in self.own.values()):
            return
        for (topic, partition), start in sorted(starts.items()):
            try:
                end = end_offset(topic, partition)
            except Exception:
                end = -1
            self._call("on_restore_start", (topic, partition), self.stores[topic], start, end)

    def batch(self, topic: str, partition: int, last_offset: int, count: int) -> None:
        """A batch of ``count`` records up to ``last_offset`` went into the store."""
        tp = (topic, partition)
        self.totals[tp] = self.totals.get(tp, 0) + count
        self._call("on_batch_restored", tp, self.stores[topic], last_offset, count)

    def waiting(self, topic: str, partition: int, offset: int, waited_s: float) -> None:
        """The partition gave neither records nor its end for ``waited_s`` s."""
        self._call("on_restore_waiting", (topic, partition), self.stores[topic], offset,
                   int(waited_s * 1000))

    def end(self, starts: dict[tuple[str, int], int]) -> None:
        """Each partition's restore is complete."""
        for tp in sorted(starts):
            self._call("on_restore_end", tp, self.stores[tp[0]], self.totals.get(tp, 0))
