"""The runtime monitor: a live ``KafkaStreams`` app's state, lag, throughput, stores and DLQ.

The widget reads only the public runtime API (``state``, ``metrics()``, ``store(name)``,
``topology``, ``dlq_topic``, ``bootstrap_servers``); ``refresh()`` takes one sample and redraws,
and ``start()``/``stop()`` run it on a timer thread. Invariants: a runtime error while
refreshing shows as one line in the widget and never stops the app or the timer; what the
widget shows is the app's state now: once the app stops (closed, or failed) the lag table and
the dead-letter reads stop with it, and ``stop()`` draws one last sample.
"""

from __future__ import annotations

import itertools
import threading
import time
from html import escape
from typing import Any

import ipywidgets as w

from kslab.notebook._static import StaticFallback
from kslab.notebook.charts import time_series_svg
from kslab.notebook.display import STYLE
from kslab.notebook.values import html_table

__all__ = ["RuntimeMonitor", "lag_rows", "lag_svg", "rate_svg", "restore_bars",
           "short_thread_name"]

_HISTORY = 120  # throughput samples kept (two minutes at the default interval)
_LATEST = 2**63 - 1  # the last window start a fetch can ask for
_LIVE = frozenset({"CREATED", "REBALANCING", "RUNNING"})  # states in which an app holds tasks


class RuntimeMonitor(StaticFallback, w.VBox):
    """Watch a running ``ks.KafkaStreams``: refresh on a timer, look keys up in its stores."""

    def __init__(self, streams: Any, *, interval: float = 1.0, auto: bool = True) -> None:
        self.streams = streams
        self.interval = interval
        self.samples: list[tuple[float, int]] = []  # (monotonic seconds, records processed)
        self.lags: list[tuple[float, int]] = []  # (monotonic seconds, total lag)
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
        self._sample(read_dlq=True)

    def _sample(self, *, read_dlq: bool) -> None:
        try:
            metrics = self.streams.metrics()
            self.error = None
        except Exception as exc:
            metrics = {}
            self.error = f"metrics unavailable: {type(exc).__name__}: {exc}"
        state = getattr(getattr(self.streams, "state", None), "name", "?")
        live = state in _LIVE
        rows = lag_rows(metrics) if live else []
        processed = sum(t.get("process-total", 0) for t in metrics.get("threads", {}).values())
        if live:  # a stopped app's threads are gone: its counters say nothing any more
            now = time.monotonic()
            self.samples.append((now, processed))
            self.lags.append((now, sum(row[3] for row in rows)))
            del self.samples[:-_HISTORY], self.lags[:-_HISTORY]
        elif self.samples:
            processed = self.samples[-1][1]
        client = metrics.get("client", {})
        threads = client.get("alive-stream-threads", 0) if live else 0
        error = f'<div class="kslab-error">{escape(self.error)}</div>' if self.error else ""
        self.state_view.value = (
            f'{STYLE}<div class="kslab-state"><b>{escape(str(state))}</b> · '
            f"{threads} thread(s) · {processed} records processed"
            f" · {client.get('dropped-records-total', 0)} dropped · "
            f"{client.get('dead-letter-records', 0)} dead letters</div>{error}"
            + (restore_bars(metrics) if live else "")
        )
        if not live:
            self.lag_view.value = (f"{STYLE}<i>the app is {escape(str(state))}: it reads no "
                                   "partitions, so there is no lag to show</i>")
        elif rows:
            self.lag_view.value = STYLE + html_table(
                ["thread", "task", "partition", "lag (records)"], rows) + lag_svg(self.lags)
        else:
            self.lag_view.value = STYLE + "no assigned partitions yet"
        self.rate_view.value = rate_svg(self.samples)
        if read_dlq and live:
            self._read_dlq()
        else:
            self._close_dlq_consumer()
        self.dlq_view.value = STYLE + (
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
            self.lookup_view.value = STYLE + html_table(
                ["store", "key", "start", "end", "value"], rows)
        else:
            self.lookup_view.value = STYLE + html_table(["store", "key", "value"],
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
        self._close_dlq_consumer()
        try:  # the last picture: the app's state now (stopped, when it was closed first)
            self._sample(read_dlq=False)
        except Exception as exc:  # the monitor must outlive a bad sample
            self.error = f"refresh failed: {exc}"

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

    def _close_dlq_consumer(self) -> None:
        consumer, self._dlq_consumer = self._dlq_consumer, None
        if consumer is not None:
            consumer.close()

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


def restore_bars(metrics: dict[str, Any]) -> str:
    """A progress bar per changelog partition being restored, from ``metrics()``' threads'
    ``restoring`` entries (records restored of the total the broker reported)."""
    bars = []
    for thread, values in sorted(metrics.get("threads", {}).items()):
        for partition, entry in sorted(values.get("restoring", {}).items()):
            done, total = entry["restored"], max(entry["total"], entry["restored"], 1)
            bars.append(
                f'<div class="kslab-restore">restoring {escape(partition)} '
                f"({escape(short_thread_name(thread))}): "
                f'<progress value="{done}" max="{total}"></progress> '
                f"{done:,} of {total:,} records ({100 * done // total}%)</div>")
    return "".join(bars)


def short_thread_name(name: str) -> str:
    """``StreamThread-1`` for ``<application>-<process uuid>-StreamThread-1``."""
    at = name.rfind("StreamThread")
    return name[at:] if at >= 0 else name


def lag_rows(metrics: dict[str, Any]) -> list[tuple[str, str, str, int]]:
    """``(thread, task, topic-partition, lag)`` rows from ``KafkaStreams.metrics()``, threads
    by their short names."""
    rows = []
    for thread, values in sorted(metrics.get("threads", {}).items()):
        for task, entry in sorted(values.get("tasks", {}).items()):
            for partition, lag in sorted(entry.get("records-lag", {}).items()):
                rows.append((short_thread_name(thread), task, partition, lag))
    return rows


def lag_svg(lags: list[tuple[float, int]]) -> str:
    """The app's total lag over time (records behind the end of its input partitions)."""
    if len(lags) < 2:
        return ""
    return time_series_svg(lags, "records behind", title=f"total lag (now {lags[-1][1]})",
                           css_class="kslab-lag")


def rate_svg(samples: list[tuple[float, int]], width: int = 480, height: int = 140) -> str:
    """Records per second between consecutive samples, as a step line over time."""
    steps = []
    for (t0, n0), (t1, n1) in itertools.pairwise(samples):
        rate = max(n1 - n0, 0) / max(t1 - t0, 1e-9)
        steps += [(t0, rate), (t1, rate)]
    if not steps:
        return "<i>throughput appears after the second sample</i>"
    top = max(rate for _, rate in steps)
    return time_series_svg(steps, "records/s",
                           title=f"throughput (max {top:.0f}/s, now {steps[-1][1]:.0f}/s)",
                           width=width, height=height, css_class="kslab-rate")
