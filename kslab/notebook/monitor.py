"""The runtime monitor: a live ``KafkaStreams`` app's state, lag, throughput, stores and DLQ.

The widget reads only the public runtime API (``state``, ``metrics()``, ``store(name)``,
``topology``, ``dlq_topic``, ``bootstrap_servers``); ``refresh()`` takes one sample and redraws,
and ``start()``/``stop()`` run it on a timer thread. Invariant: a runtime error while
refreshing shows as one line in the widget and never stops the app or the timer.
"""

from __future__ import annotations

import itertools
import threading
import time
from html import escape
from typing import Any

import ipywidgets as w

from kslab.notebook.display import _STYLE, html_table

__all__ = ["RuntimeMonitor", "lag_rows", "rate_svg"]

_HISTORY = 120  # throughput samples kept (two minutes at the default interval)
_LATEST = 2**63 - 1  # the last window start a fetch can ask for


class RuntimeMonitor(w.VBox):
    """Watch a running ``ks.KafkaStreams``: refresh on a timer, look keys up in its stores."""

    def __init__(self, streams: Any, *, interval: float = 1.0, auto: bool = True) -> None:
        self.streams = streams
        self.interval = interval
        self.samples: list[tuple[float, int]] = []  # (monotonic seconds, records processed)
        self.dlq: list[tuple[Any, Any, int]] = []
        self.error: str | None = None
        self._timer: threading.Thread | None = None
        self._stop = threading.Event()
        self._dlq_consumer: Any = None
        self.state_view = w.HTML()
        self.lag_view = w.HTML()
        self.rate_view = w.HTML()
        self.dlq_view = w.HTML()
        self.store_picker = w.Dropdown(options=self.store_names(), description="store")
        self.key_box = w.Text(placeholder="key (JSON or text)", description="key")
        self.lookup_button = w.Button(description="Look up", icon="search")
        self.lookup_view = w.HTML()
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.lookup_button.on_click(lambda _: self.lookup(self.key_box.value))
        self.refresh_button.on_click(lambda _: self.refresh())
        tabs = w.Tab(children=[
            self.lag_view, self.rate_view,
            w.VBox([w.HBox([self.store_picker, self.key_box, self.lookup_button]),
                    self.lookup_view]),
            self.dlq_view,
        ])
        for i, title in enumerate(("lag", "throughput", "stores", "dead letters")):
            tabs.set_title(i, title)
        super().__init__([w.HBox([self.state_view, self.refresh_button]), tabs])
        self.add_class("kslab-runtime-monitor")
        self.refresh()
        if auto:
            self.start()

    # -- public API ---------------------------------------------------------------------------

    def store_names(self) -> list[str]:
        """The stores of the app's topology, global ones included."""
        topology = getattr(self.streams, "topology", None)
        names = set(getattr(topology, "state_stores", {}) or {})
        names.update(getattr(topology, "global_stores", {}) or {})
        return sorted(names)

    def refresh(self) -> None:
        """Take one sample of state, lag and throughput, and redraw."""
        try:
            metrics = self.streams.metrics()
            self.error = None
        except Exception as exc:
            metrics = {}
            self.error = f"metrics unavailable: {type(exc).__name__}: {exc}"
        processed = sum(t.get("process-total", 0) for t in metrics.get("threads", {}).values())
        self.samples.append((time.monotonic(), processed))
        del self.samples[:-_HISTORY]
        state = getattr(getattr(self.streams, "state", None), "name", "?")
        client = metrics.get("client", {})
        error = f'<div class="kslab-error">{escape(self.error)}</div>' if self.error else ""
        self.state_view.value = (
            f'{_STYLE}<div class="kslab-state"><b>{escape(str(state))}</b> · '
            f"{client.get('alive-stream-threads', 0)} thread(s) · {processed} records processed"
            f" · {client.get('dropped-records-total', 0)} dropped · "
            f"{client.get('dead-letter-records', 0)} dead letters</div>{error}"
        )
        rows = lag_rows(metrics)
        self.lag_view.value = _STYLE + (html_table(["thread", "task", "partition", "lag"], rows)
                                        if rows else "no assigned partitions yet")
        self.rate_view.value = rate_svg(self.samples)
        self._read_dlq()
        self.dlq_view.value = _STYLE + (
            html_table(["key", "value", "timestamp"], self.dlq[-20:]) if self.dlq
            else f"no dead letters{'' if self._dlq_topic() else ' (no DLQ topic configured)'}"
        )

    def lookup(self, key: str) -> Any:
        """Interactive query: the value of ``key`` in the picked store (shown and returned).

        A window or session store answers with every window of the key, as
        ``[(Windowed, value), ...]`` in the store's order.
        """
        import json

        name = self.store_picker.value
        try:
            parsed = json.loads(key)
        except ValueError:
            parsed = key
        try:
            store = self.streams.store(name)
            value = store.get(parsed) if hasattr(store, "get") else _windows_of(store, parsed)
        except Exception as exc:
            self.lookup_view.value = (f'<div class="kslab-error">{escape(type(exc).__name__)}: '
                                      f"{escape(str(exc))}</div>")
            return None
        if isinstance(value, list):
            rows = [(name, parsed, windowed.window.start, windowed.window.end, v)
                    for windowed, v in value]
            self.lookup_view.value = _STYLE + html_table(
                ["store", "key", "start", "end", "value"], rows)
        else:
            self.lookup_view.value = _STYLE + html_table(["store", "key", "value"],
                                                         [(name, parsed, value)])
        return value

    def start(self) -> None:
        """Refresh every ``interval`` seconds on a daemon thread until ``stop()``."""
        if self._timer is not None and self._timer.is_alive():
            return
        self._stop.clear()
        self._timer = threading.Thread(target=self._loop, name="kslab-monitor", daemon=True)
        self._timer.start()

    def stop(self) -> None:
        """Stop refreshing: end the timer thread and close the consumer its refreshes read the
        dead letters with (a later ``refresh()`` opens a new one)."""
        self._stop.set()
        timer = self._timer
        if timer is not None and timer is not threading.current_thread():
            timer.join(10)
        consumer, self._dlq_consumer = self._dlq_consumer, None
        if consumer is not None:
            consumer.close()

    def close(self) -> None:
        """Stop refreshing and close the widget (the app keeps running)."""
        self.stop()
        super().close()

    # -- internals ----------------------------------------------------------------------------

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.refresh()
            except Exception as exc:  # the monitor must outlive a bad sample
                self.error = f"refresh failed: {exc}"

    def _dlq_topic(self) -> str | None:
        return getattr(self.streams, "dlq_topic", None)

    def _read_dlq(self) -> None:
        topic = self._dlq_topic()
        if not topic:
            return
        try:
            if self._dlq_consumer is None:
                from confluent_kafka import Consumer

                self._dlq_consumer = Consumer({
                    "bootstrap.servers": self.streams.bootstrap_servers,
                    "group.id": f"kslab-monitor-{id(self)}",
                    "auto.offset.reset": "earliest",
                    "enable.auto.commit": False,
                })
                self._dlq_consumer.subscribe([topic])
            for msg in self._dlq_consumer.consume(100, timeout=0.05):
                if msg.error() is None:
                    self.dlq.append((msg.key(), msg.value(), msg.timestamp()[1]))
        except Exception as exc:
            self.error = f"dead letters unavailable: {exc}"


def _windows_of(store: Any, key: Any) -> list[tuple[Any, Any]]:
    """Every ``(Windowed, value)`` of ``key`` in a window or session store view."""
    if hasattr(store, "find_sessions"):  # a session store: fetch(key) gives Windowed keys
        scan = store.fetch(key)
    else:  # a window store: the key-range fetch gives Windowed keys, with their ends
        scan = store.fetch(key, key, 0, _LATEST)
    with scan as entries:
        return [(windowed, value) for windowed, value in entries]


def lag_rows(metrics: dict[str, Any]) -> list[tuple[str, str, str, int]]:
    """``(thread, task, topic-partition, lag)`` rows from ``KafkaStreams.metrics()``."""
    rows = []
    for thread, values in sorted(metrics.get("threads", {}).items()):
        for task, entry in sorted(values.get("tasks", {}).items()):
            for partition, lag in sorted(entry.get("records-lag", {}).items()):
                rows.append((thread, task, partition, lag))
    return rows


def rate_svg(samples: list[tuple[float, int]], width: int = 480, height: int = 120) -> str:
    """Records per second between consecutive samples, as an SVG line."""
    rates = [(t1, (n1 - n0) / max(t1 - t0, 1e-9))
             for (t0, n0), (t1, n1) in itertools.pairwise(samples)]
    if not rates:
        return "<i>throughput appears after the second sample</i>"
    top = max(max(r for _, r in rates), 1.0)
    t0, t1 = rates[0][0], max(rates[-1][0], rates[0][0] + 1e-9)
    xs = [10 + (t - t0) / (t1 - t0) * (width - 20) for t, _ in rates]
    ys = [height - 20 - r / top * (height - 40) for _, r in rates]
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="kslab-rate" width="{width}" '
            f'height="{height}" font-family="Helvetica, Arial, sans-serif" font-size="10">'
            f'<text x="10" y="12">records/s (max {top:.0f}, now {rates[-1][1]:.0f})</text>'
            f'<polyline points="{points}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>'
            "</svg>")
