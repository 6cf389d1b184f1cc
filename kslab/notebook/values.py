"""Values as a person reads them: the one formatter of every table, preview, widget and plot.

``format_value(obj, kind=...)`` is the text; ``html_cell`` the table cell, with the raw value
in its ``title`` (shown on hover) wherever the text differs from it. The rules:

- numpy scalars as the plain Python values they hold (``ada``, not ``np.str_('ada')``), also
  inside dicts and lists; enum members by name (``RUNNING``);
- timestamps (``kind="time"``, and the ``timestamp``/``start``/``end``... columns of a table)
  as times: below one day (the lab's samples count ms from 0) as ``m:ss`` (``h:mm:ss`` past an
  hour), with ``.mmm`` when not on a whole second; from one day on as an ISO date-time in UTC
  (``2024-05-01T12:00:00Z``); the raw ms on hover. Negative timestamps (Kafka's "none") stay
  numbers;
- windows as ``[0:00, 1:00)``, a ``Windowed`` key as ``/docs [0:00, 1:00)`` (Kafka's
  ``[/docs@0/60000]`` on hover);
- a ``ValueAndTimestamp`` as its value, its time on hover; a change as ``new (was old)``;
- long texts cut at ``MAX_CHARS`` with the whole text on hover.

``html_table`` puts it together; it also spreads a ``value`` column of dicts into one column
per field when they fit (at most ``MAX_FIELDS`` fields). Invariant: formatting never raises
(an object whose ``repr`` fails shows as its type).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from html import escape
from typing import Any, Literal

__all__ = ["DAY_MS", "MAX_CHARS", "MAX_FIELDS", "Kind", "column_kind", "format_time",
           "format_value", "format_window", "hover_text", "html_cell", "html_table", "plain",
           "raw_text", "spread_dicts"]

Kind = Literal["value", "key", "time", "window"]

DAY_MS = 86_400_000  # timestamps below this are read as ms from 0 (m:ss), from it as dates
MAX_CHARS = 200  # longer texts are cut (the whole text on hover)
MAX_FIELDS = 8  # a value column of dicts spreads into columns up to this many fields
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TIME_COLUMNS = frozenset({"timestamp", "time", "start", "end", "window_start", "window_end",
                           "buffer_time", "valid_to", "at"})


def column_kind(name: str) -> Kind:
    """How a table column's values read, by its name: times, keys or values."""
    if name in _TIME_COLUMNS:
        return "time"
    return "key" if name == "key" else "value"


def plain(obj: Any) -> Any:
    """``obj`` with numpy scalars as Python values, inside dicts, lists and tuples too."""
    if type(obj).__module__ == "numpy" and getattr(obj, "ndim", None) == 0:
        return obj.item()
    if isinstance(obj, dict):
        return {plain(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    if type(obj) is tuple:
        return tuple(plain(v) for v in obj)
    return obj


def raw_text(obj: Any) -> str:
    """The raw value, as Python writes it (numpy scalars as plain values): the hover text."""
    try:
        return repr(plain(obj))
    except Exception:  # a repr that fails must not cost the table
        return f"<{type(obj).__name__}>"


def format_time(ms: Any) -> str:
    """A timestamp in ms as a time: ``m:ss[.mmm]`` below a day, ISO UTC from a day on."""
    ms = plain(ms)
    if isinstance(ms, datetime):
        return _iso(ms if ms.tzinfo else ms.replace(tzinfo=UTC))
    if hasattr(ms, "to_pydatetime"):  # a pandas Timestamp
        return format_time(ms.to_pydatetime())
    if isinstance(ms, float) and ms.is_integer():
        ms = int(ms)
    if isinstance(ms, bool) or not isinstance(ms, int):
        return format_value(ms)
    if ms < 0:
        return str(ms)
    if ms < DAY_MS:
        seconds, millis = divmod(ms, 1000)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        text = f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
        return f"{text}.{millis:03d}" if millis else text
    try:
        return _iso(_EPOCH + timedelta(milliseconds=ms))
    except OverflowError:  # past year 9999 (Long.MAX_VALUE: an open end)
        return str(ms)


def _iso(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    millis = moment.microsecond // 1000
    return f"{text}.{millis:03d}Z" if millis else f"{text}Z"


def format_window(window: Any) -> str:
    """A window ``[start, end)`` with both bounds as times."""
    return f"[{format_time(window.start)}, {format_time(window.end)})"


def format_value(obj: Any, *, kind: Kind = "value") -> str:
    """``obj`` as a person reads it (see the module's rules); ``kind="time"`` for timestamps."""
    if kind == "time":
        return format_time(obj)
    if kind == "window" and hasattr(obj, "start") and hasattr(obj, "end"):
        return format_window(obj)
    obj = plain(obj)
    if obj is None or isinstance(obj, (bool, int, float)):
        return str(obj)
    if isinstance(obj, str):
        return _cut(obj) if obj else '""'
    if obj is _Missing.MISSING:
        return "—"
    if isinstance(obj, enum.Enum):
        return obj.name
    if _is_windowed(obj):
        return f"{format_value(obj.key, kind='key')} {format_window(obj.window)}"
    if _is_window(obj):
        return format_window(obj)
    if type(obj).__name__ == "ValueAndTimestamp":
        return format_value(obj.value)
    if hasattr(obj, "new_value") and hasattr(obj, "old_value"):  # a table's change
        return f"{format_value(obj.new_value)} (was {format_value(obj.old_value)})"
    if isinstance(obj, datetime) or hasattr(obj, "to_pydatetime"):
        return format_time(obj)
    return _cut(raw_text(obj))


def _is_windowed(obj: Any) -> bool:
    return type(obj).__name__ == "Windowed" and hasattr(obj, "window") and hasattr(obj, "key")


def _is_window(obj: Any) -> bool:
    return type(obj).__name__ in ("Window", "TimeWindow", "SessionWindow") \
        and hasattr(obj, "start") and hasattr(obj, "end")


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 1] + "…"


def hover_text(obj: Any, *, kind: Kind = "value") -> str | None:
    """What the cell shows on hover: the raw value, or ``None`` when the text says it all."""
    obj = plain(obj)
    if obj is _Missing.MISSING:
        return "no such field"
    if kind == "time" and isinstance(obj, int) and not isinstance(obj, bool):
        return None if obj < 0 else f"{obj} ms"
    if type(obj).__name__ == "ValueAndTimestamp":
        return f"{raw_text(obj.value)} at {format_time(obj.timestamp)} ({obj.timestamp} ms)"
    if _is_windowed(obj):
        return str(obj)  # Kafka's [key@start/end]
    if _is_window(obj):
        return f"[{obj.start}, {obj.end}) ms"
    if isinstance(obj, str):  # the text itself, unless cut
        return obj if len(obj) > MAX_CHARS else None
    text = raw_text(obj)
    return None if text == format_value(obj, kind=kind) else text


def html_cell(obj: Any, *, kind: Kind = "value", tag: str = "td") -> str:
    """A table cell: the person's text, the raw value in ``title`` where it differs."""
    text = escape(format_value(obj, kind=kind))
    hover = hover_text(obj, kind=kind)
    title = "" if hover is None else f' title="{escape(hover, quote=True)}"'
    return f"<{tag}{title}>{text}</{tag}>"


def html_table(header: Sequence[str], rows: Iterable[Sequence[Any]],
               kinds: Mapping[str, Kind] | None = None,
               marks: Mapping[int, str] | None = None) -> str:
    """A small HTML table of formatted cells; a ``value`` column of dicts that fit becomes a
    column per field (not beside an ``old value`` column: the two would not line up), and a
    ``headers`` column no record fills is left out.
    ``kinds`` overrides the kind a column's name gives (``column_kind``); ``marks`` gives rows
    (by position) a CSS class, as the explorer marks what a step changed."""
    header, rows = list(header), [tuple(r) for r in rows]
    if "headers" in header:  # a record's headers, shown only when some record has them
        at = header.index("headers")
        if not any(len(r) > at and r[at] is not None and len(r[at]) for r in rows):
            header = header[:at] + header[at + 1:]
            rows = [r[:at] + r[at + 1:] for r in rows]
    if "old value" not in header:
        header, rows = spread_dicts(header, rows)
    kinds = dict(kinds or {})
    column_kinds = [kinds.get(h) or column_kind(h) for h in header]
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    marks = marks or {}
    body = "".join(
        (f'<tr class="{escape(marks[at])}">' if at in marks else "<tr>")
        + "".join(html_cell(c, kind=k) for c, k in zip(row, column_kinds, strict=False))
        + "</tr>" for at, row in enumerate(rows)
    )
    return f'<table class="kslab-table"><tr>{head}</tr>{body}</table>'


def spread_dicts(header: list[str], rows: list[tuple[Any, ...]], column: str = "value"
                 ) -> tuple[list[str], list[tuple[Any, ...]]]:
    """``column``'s dicts as one column per field when every value is a dict (or ``None``)
    with text field names, at most ``MAX_FIELDS`` in all; the table unchanged otherwise.
    A field named as another column is shown as ``value.field``."""
    if column not in header or not rows:
        return header, rows
    at = header.index(column)
    values = [r[at] for r in rows if at < len(r)]
    dicts = [v for v in values if v is not None]
    if not dicts or len(values) != len(rows) or not all(isinstance(v, dict) for v in dicts):
        return header, rows
    fields: dict[Any, None] = {}
    for v in dicts:
        fields.update(dict.fromkeys(v))
    if len(fields) > MAX_FIELDS or not all(isinstance(f, str) for f in fields):
        return header, rows
    others = set(header) - {column}
    names = [f"{column}.{f}" if f in others else f for f in fields]
    new_header = [*header[:at], *names, *header[at + 1:]]
    new_rows = [(*r[:at], *(_field(r[at], f) for f in fields), *r[at + 1:]) for r in rows]
    return new_header, new_rows


def _field(value: Any, name: str) -> Any:
    return None if value is None else value.get(name, _Missing.MISSING)


class _Missing(enum.Enum):
    """A field this row's dict does not have (shown as a dash)."""

    MISSING = "—"
