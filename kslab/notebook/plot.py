"""Windowed results in one call: counts (or any value) per window over time, as an SVG chart.

``plot_windows(df)`` reads a frame with window start and end columns (``start``/``end``,
``window_start``/``window_end``) or a ``key`` column of ``ks.Windowed`` keys, and draws one
line per key with a point at each window's start. Invariant: the chart shows the last value of
each (key, window), which is the final result of a windowed aggregation's update stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from typing import Any

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
    return WindowChart(_svg(series, title or f"{value} per window"), series)


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


def _svg(series: dict[Any, list[tuple[int, Any]]], title: str) -> str:
    points = [(t, _num(v)) for pts in series.values() for t, v in pts]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="kslab-svg" width="{_W}" '
             f'height="{_H}" font-family="Helvetica, Arial, sans-serif" font-size="10">',
             f'<text x="{_W / 2}" y="16" text-anchor="middle" font-size="12">'
             f"{escape(title)}</text>"]
    if not points:
        parts.append(f'<text x="{_W / 2}" y="{_H / 2}" text-anchor="middle">no windows</text>')
        return "".join(parts) + "</svg>"
    t0, t1 = min(t for t, _ in points), max(t for t, _ in points)
    v1 = max(max(v for _, v in points), 1.0)
    span = max(t1 - t0, 1)

    def x(t: int) -> float:
        return _M + (t - t0) / span * (_W - 2 * _M - 90)

    def y(v: float) -> float:
        return _H - _M - v / v1 * (_H - 2 * _M)

    parts.append(f'<line x1="{_M}" y1="{_H - _M}" x2="{_W - _M - 90}" y2="{_H - _M}" '
                 'stroke="#333"/>')
    parts.append(f'<line x1="{_M}" y1="{_M}" x2="{_M}" y2="{_H - _M}" stroke="#333"/>')
    for frac in (0, 0.5, 1):
        parts.append(f'<text x="{_M - 4}" y="{y(v1 * frac) + 3:.1f}" text-anchor="end">'
                     f"{v1 * frac:g}</text>")
    for t in (t0, t1):
        label = datetime.fromtimestamp(t / 1000, UTC).strftime("%H:%M:%S")
        parts.append(f'<text x="{x(t):.1f}" y="{_H - _M + 14}" text-anchor="middle">'
                     f"{label}</text>")
    for i, (k, pts) in enumerate(series.items()):
        color = _COLORS[i % len(_COLORS)]
        line = " ".join(f"{x(t):.1f},{y(_num(v)):.1f}" for t, v in pts)
        parts.append(f'<polyline class="series" points="{line}" fill="none" '
                     f'stroke="{color}" stroke-width="1.5"/>')
        parts.extend(f'<circle cx="{x(t):.1f}" cy="{y(_num(v)):.1f}" r="2.5" fill="{color}"/>'
                     for t, v in pts)
        parts.append(f'<text x="{_W - _M - 80}" y="{_M + 12 * i}" fill="{color}">'
                     f"{escape(str(k))}</text>")
    return "".join(parts) + "</svg>"
