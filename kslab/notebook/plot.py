"""Windowed results in one call: counts (or any value) per window over time, as an SVG chart.

``plot_windows(df)`` reads a frame with window start and end columns (``start``/``end``,
``window_start``/``window_end``) or a ``key`` column of ``ks.Windowed`` keys, and draws one
line per key with a point at each window's start. Invariant: the chart shows the last value of
each (key, window), which is the final result of a windowed aggregation's update stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from typing import Any

from kslab.notebook.values import DAY_MS, format_time, format_value

__all__ = ["WindowChart", "plot_windows"]

_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
_W, _H, _M = 640, 300, 48


@dataclass(frozen=True)
class WindowChart:
    """A drawn chart: the SVG and the data behind it (key -> [(window start, value)])."""

    svg: str
    series: dict[Any, list[tuple[int, Any]]]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        html = f'<div class="kslab-window-plot">{self.svg}</div>'
        return {"text/plain": f"<WindowChart: {len(self.series)} keys>", "text/html": html,
                "image/svg+xml": self.svg}


def plot_windows(df: Any, value: str = "value", key: str = "key", *,
                 title: str | None = None, max_keys: int = 10) -> WindowChart:
    """Plot ``value`` per window start for each key (the ``max_keys`` largest totals)."""
    rows = _rows(df)
    columns = list(rows[0]) if rows else []
    start_col = next((c for c in ("start", "window_start") if c in columns), None)
    if value not in columns or (start_col is None and key not in columns):
        msg = (f"plot_windows needs a '{value}' column and window start/end columns "
               f"(start/end or window_start/window_end) or Windowed keys; got {columns}")
        raise ValueError(msg)
    last: dict[tuple[Any, int], Any] = {}
    for row in rows:
        k = row.get(key)
        if start_col is not None:
            start = _millis(row[start_col])
        elif hasattr(k, "window"):
            start, k = k.window.start, k.key
        else:
            msg = f"row {row} has no window: give start/end columns or Windowed keys"
            raise ValueError(msg)
        if hasattr(k, "window"):
            k = k.key
        last[(k, start)] = row[value]
    series: dict[Any, list[tuple[int, Any]]] = {}
    for (k, start), v in sorted(last.items(), key=lambda kv: (repr(kv[0][0]), kv[0][1])):
        series.setdefault(k, []).append((start, v))
    top = sorted(series, key=lambda k: -sum(_num(v) for _, v in series[k]))[:max_keys]
    series = {k: series[k] for k in top}
    return WindowChart(_svg(series, title or f"{value} per window", value), series)


def _rows(df: Any) -> list[dict[str, Any]]:
    if type(df).__module__.startswith("polars"):
        return list(df.iter_rows(named=True))
    return df.to_dict("records")


def _millis(value: Any) -> int:
    from kslab.testing.frames import to_millis

    return int(to_millis(value) or 0)


def _num(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _svg(series: dict[Any, list[tuple[int, Any]]], title: str, value: str = "value") -> str:
    points = [(t, _num(v)) for pts in series.values() for t, v in pts]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="kslab-svg" width="{_W}" '
             f'height="{_H}" font-family="Helvetica, Arial, sans-serif" font-size="10">',
             f'<rect width="{_W}" height="{_H}" fill="white"/>',
             f'<text x="{_W / 2}" y="16" text-anchor="middle" font-size="12">'
             f"{escape(title)}</text>"]
    if not points:
        parts.append(f'<text x="{_W / 2}" y="{_H / 2}" text-anchor="middle">no windows</text>')
        return "".join(parts) + "</svg>"
    starts = sorted({t for t, _ in points})
    t0, t1 = starts[0], starts[-1]
    integral = all(v.is_integer() for _, v in points)  # counts: no 0.5 gridlines
    ticks = _ticks(max(max(v for _, v in points), 0.0), integral)
    v1 = ticks[-1]
    right = _W - _M - 90  # room for the legend

    def x(t: int) -> float:
        return (_M + right) / 2 if t1 == t0 else _M + (t - t0) / (t1 - t0) * (right - _M)

    def y(v: float) -> float:
        return _H - _M - v / v1 * (_H - 2 * _M)

    for tick in ticks:  # grid lines and y labels
        parts.append(f'<line x1="{_M}" y1="{y(tick):.1f}" x2="{right}" y2="{y(tick):.1f}" '
                     f'stroke="{"#333" if tick == 0 else "#e5e5e5"}"/>')
        parts.append(f'<text x="{_M - 4}" y="{y(tick) + 3:.1f}" text-anchor="end">'
                     f"{tick:g}</text>")
    parts.append(f'<line x1="{_M}" y1="{_M}" x2="{_M}" y2="{_H - _M}" stroke="#333"/>')
    fmt = _time_format(starts)
    relative = t1 < DAY_MS  # ms from 0, as the lab's samples: m:ss, as every table shows them
    step = max(1, -(-len(starts) // 8))  # at most 8 labels on the time axis
    for t in starts[::step]:
        label = format_time(t) if relative else \
            datetime.fromtimestamp(t / 1000, UTC).strftime(fmt)
        parts.append(f'<line x1="{x(t):.1f}" y1="{_H - _M}" x2="{x(t):.1f}" '
                     f'y2="{_H - _M + 4}" stroke="#333"/>')
        parts.append(f'<text x="{x(t):.1f}" y="{_H - _M + 15}" text-anchor="middle">'
                     f"{label}</text>")
    parts.append(f'<text x="{(_M + right) / 2}" y="{_H - _M + 32}" text-anchor="middle">'
                 f"window start{' (m:ss)' if relative else ' (UTC)'}</text>")
    parts.append(f'<text transform="translate(12 {_H / 2}) rotate(-90)" '
                 f'text-anchor="middle">{escape(value)}</text>')
    for i, (k, pts) in enumerate(series.items()):
        color = _COLORS[i % len(_COLORS)]
        line = " ".join(f"{x(t):.1f},{y(_num(v)):.1f}" for t, v in pts)
        parts.append(f'<polyline class="series" points="{line}" fill="none" '
                     f'stroke="{color}" stroke-width="1.5"/>')
        parts.extend(f'<circle cx="{x(t):.1f}" cy="{y(_num(v)):.1f}" r="2.5" fill="{color}">'
                     f"<title>{escape(format_value(k, kind='key'))} at "
                     f"{escape(format_time(t))}: {escape(format_value(v))}</title></circle>"
                     for t, v in pts)
        parts.append(f'<text x="{right + 10}" y="{_M + 12 * i}" fill="{color}">'
                     f"{escape(format_value(k, kind='key'))}</text>")
    return "".join(parts) + "</svg>"


def _ticks(top: float, integral: bool = False) -> list[float]:
    """0 up to at least ``top`` in 1, 2 or 5 times a power of ten: about five gridlines."""
    if top <= 0:
        return [0, 1]
    raw = top / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    step = max(step, 1) if integral else step
    count = math.ceil(top / step)
    return [round(i * step, 12) for i in range(count + 1)]


def _time_format(starts: list[int]) -> str:
    """Epoch times on the axis: minutes when every window starts on a minute; the date too
    when they span days (times below a day read as ``m:ss``, see ``values.format_time``)."""
    fmt = "%H:%M" if all(t % 60_000 == 0 for t in starts) else "%H:%M:%S"
    if starts[-1] - starts[0] >= 86_400_000:
        fmt = "%m-%d " + fmt
    return fmt
