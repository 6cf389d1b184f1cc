"""Small time-series charts as SVG, with axes a person can read: a unit on the value axis and
a time scale ("-2 min" ... "now") under it.

The runtime monitor draws throughput and lag with them. Plain SVG, no plotting library: the
charts redraw on every refresh of a live widget and must stay a few kilobytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

__all__ = ["nice_ticks", "time_label", "time_series_svg"]

_LEFT, _RIGHT, _TOP, _BOTTOM = 52, 12, 22, 22  # room for the axes' labels


def nice_ticks(top: float, count: int = 3) -> list[float]:
    """``0`` and about ``count`` round values (1, 2 or 5 times a power of ten) up to ``top``."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]


def time_label(seconds_ago: float) -> str:
    """``"now"``, ``"-30 s"``, ``"-2 min"``: how far back a point of the time axis is."""
    if seconds_ago < 0.5:
        return "now"
    if seconds_ago < 90:
        return f"-{seconds_ago:.0f} s"
    return f"-{seconds_ago / 60:.0f} min"


def _value_label(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


def time_series_svg(points: Sequence[tuple[float, float]], unit: str, *, title: str = "",
                    width: int = 480, height: int = 140, css_class: str = "kslab-chart") -> str:
    """``points`` (monotonic seconds, value) as a line over a value axis labelled ``unit`` and
    a time axis relative to the last point; at least two points."""
    t_last = points[-1][0]
    span = max(t_last - points[0][0], 1e-9)
    ticks = nice_ticks(max(value for _, value in points))
    top = ticks[-1]
    plot_w, plot_h = width - _LEFT - _RIGHT, height - _TOP - _BOTTOM

    def x(t: float) -> float:
        return _LEFT + (t - points[0][0]) / span * plot_w

    def y(value: float) -> float:
        return _TOP + plot_h - value / top * plot_h

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" width="{width}" '
             f'height="{height}" font-family="Helvetica, Arial, sans-serif" font-size="10">']
    if title:
        parts.append(f'<text x="{_LEFT}" y="12" font-weight="bold">{escape(title)}</text>')
    for value in ticks:  # the value axis: grid lines labelled with the unit
        parts.append(f'<line x1="{_LEFT}" x2="{width - _RIGHT}" y1="{y(value):.1f}" '
                     f'y2="{y(value):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{_LEFT - 4}" y="{y(value) + 3:.1f}" text-anchor="end">'
                     f"{_value_label(value)}</text>")
    parts.append(f'<text x="4" y="{_TOP + plot_h / 2:.1f}" transform="rotate(-90 8 '
                 f'{_TOP + plot_h / 2:.1f})" text-anchor="middle">{escape(unit)}</text>')
    for fraction in (0.0, 0.5, 1.0):  # the time axis: how long ago, "now" at the right
        t = points[0][0] + fraction * span
        anchor = ("start", "middle", "end")[int(fraction * 2)]
        parts.append(f'<text x="{x(t):.1f}" y="{height - 6}" text-anchor="{anchor}">'
                     f"{time_label(t_last - t)}</text>")
    line = " ".join(f"{x(t):.1f},{y(value):.1f}" for t, value in points)
    parts.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" '
                 'stroke-width="1.5"/>')
    parts.append("</svg>")
    return "".join(parts)
