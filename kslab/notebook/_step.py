"""What one driven record did, for the driver explorer: new output rows, changed store entries,
records dropped, stream time and where each window stands.

The explorer observes the driver just before it drives a step's record (``observe``) and compares
with what it sees after (``effects``): store frames row by row (any store kind: key-value,
window, session, a suppress buffer), the output records the trace puts at that step, and the
tasks' ``dropped-records-total``. Window states come from the windowed aggregations themselves
(``window_state``: the rule of when a window closes lives with the processor), this module only
lists them. Invariant: nothing here drives records or changes a store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from kslab.notebook.values import format_time, format_window, html_cell, html_table
from kslab.records import Window

__all__ = ["Before", "StepEffects", "WindowRow", "diff_rows", "dropped_total", "effects",
           "observe", "stores_html", "stream_time_html", "window_rows", "windows_html"]

_IDENTITY = ("key", "start", "end")  # a store row's identity columns, where the frame has them
_SHOWN_WINDOWS = 8  # the latest windows listed; older ones are counted by state
_STATE_TEXT = {"open": "open", "grace": "in grace", "closed": "closed"}
_STATE_HELP = {
    "open": "stream time is before the window's end: records for it are counted",
    "grace": "stream time is past the window's end but before end + grace: late records "
             "for it are still counted",
    "closed": "stream time reached end + grace: the result is final, and a record for it "
              "is dropped (Kafka's \"Skipping record for expired window\")",
}
STYLE = (
    "<style>.kslab-table tr.kslab-new td{background:#fff3c4}"
    ".kslab-table tr.kslab-removed td{color:#999;text-decoration:line-through}"
    ".kslab-window{display:inline-block;border-radius:3px;padding:0 5px;margin:1px 3px 1px 0;"
    "font-family:monospace;font-size:11px;border:1px solid #ccc}"
    ".kslab-window.open{background:#dff3df;border-color:#7bbf7b}"
    ".kslab-window.grace{background:#fff0c8;border-color:#d9b44a}"
    ".kslab-window.closed{background:#eee;color:#666}"
    ".kslab-dropped{color:#a33}</style>"
)


@dataclass
class Before:
    """The driver just before a step's record: store frames and records dropped so far."""

    frames: dict[str, Any]
    dropped: int


@dataclass
class StepEffects:
    """What the step's record did: ``new_outputs`` (per topic, how many of its last records this
    step wrote), per store the ``changed`` row positions (added or updated) and the ``removed``
    rows, and ``dropped`` (records dropped while processing it)."""

    new_outputs: dict[str, int] = field(default_factory=dict)
    changed: dict[str, set[int]] = field(default_factory=dict)
    removed: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    dropped: int = 0


@dataclass
class WindowRow:
    """One window of a windowed aggregation's store and where it stands at stream time."""

    store: str
    start: int
    end: int
    state: str  # "open" | "grace" | "closed"
    closes_at: int


def dropped_total(driver: Any) -> int:
    """Records dropped so far over all tasks (``dropped-records-total``)."""
    return int(sum(m.get("dropped-records-total", 0) for m in driver.metrics().values()))


def observe(driver: Any, frames: dict[str, Any]) -> Before:
    """Remember ``frames`` (the explorer's ``stores()``) and the dropped count before a step."""
    return Before(frames, dropped_total(driver))


def effects(driver: Any, step: int, sinks: dict[str, str], before: Before | None,
            frames: dict[str, Any]) -> StepEffects:
    """What driving input ``step`` did, compared with ``before`` (``None``: nothing to compare,
    only the outputs are known); ``sinks`` maps sink nodes to their topics."""
    found = StepEffects()
    for ev in driver.trace:
        topic = sinks.get(ev.node)
        if topic is not None and ev.step == step and ev.event == "receive":
            found.new_outputs[topic] = found.new_outputs.get(topic, 0) + 1
    if before is None:
        return found
    found.dropped = dropped_total(driver) - before.dropped
    for name, after in frames.items():
        changed, removed = diff_rows(before.frames.get(name), after)
        if changed:
            found.changed[name] = changed
        if removed:
            found.removed[name] = removed
    return found


def _rows(frame: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
    if frame is None:
        return [], []
    columns = [str(c) for c in frame.columns]
    if type(frame).__module__.startswith("polars"):
        return columns, list(frame.iter_rows())
    return columns, list(frame.itertuples(index=False, name=None))


def diff_rows(before: Any, after: Any) -> tuple[set[int], list[tuple[Any, ...]]]:
    """The positions of ``after``'s rows that are new or changed since ``before``, and
    ``before``'s rows whose identity (key, and window where there is one) is gone."""
    columns, rows = _rows(after)
    old_columns, old_rows = _rows(before)
    if not columns:
        return set(), []
    ids = [columns.index(c) for c in _IDENTITY if c in columns] or [0]

    def ident(row: tuple[Any, ...]) -> str:
        return repr(tuple(row[i] for i in ids))

    old = {ident(r): repr(r) for r in old_rows} if old_columns == columns else {}
    changed = {i for i, r in enumerate(rows) if old.get(ident(r)) != repr(r)}
    kept = {ident(r) for r in rows}
    removed = [r for r in old_rows if ident(r) not in kept] if old_columns == columns else []
    return changed, removed


def window_rows(driver: Any, frames: dict[str, Any]) -> list[WindowRow]:
    """Every window in the stores of the driver's windowed aggregations, with its state at the
    aggregation's stream time, oldest first."""
    rows: dict[tuple[str, int, int], WindowRow] = {}
    for task in driver.tasks.values():
        for node in task.nodes.values():
            processor = getattr(node, "processor", None)
            if not callable(getattr(processor, "window_state", None)):
                continue
            name = processor.store_name
            columns, values = _rows(frames.get(name))
            if "start" not in columns or "end" not in columns:
                continue
            at_start, at_end = columns.index("start"), columns.index("end")
            for row in values:
                start, end = int(row[at_start]), int(row[at_end])
                rows[(name, start, end)] = WindowRow(name, start, end,
                                                     processor.window_state(end),
                                                     processor.closes_at(end))
    return sorted(rows.values(), key=lambda r: (r.start, r.end, r.store))


def stream_time_html(driver: Any) -> str:
    """``stream time 1:05`` (each task's where tasks differ); empty before the first record."""
    times = {str(task.id): task.stream_time for task in driver.tasks.values()
             if task.stream_time >= 0}
    if not times:
        return ""
    if len(set(times.values())) == 1:
        return "stream time " + html_cell(next(iter(times.values())), kind="time", tag="code")
    return "stream time " + ", ".join(
        html_cell(t, kind="time", tag="code") + f" (task {escape(task)})"
        for task, t in sorted(times.items()))


def windows_html(windows: list[WindowRow]) -> str:
    """The windows as coloured chips, latest ``_SHOWN_WINDOWS`` of them, older ones counted."""
    if not windows:
        return ""
    shown = windows[-_SHOWN_WINDOWS:]
    older: dict[str, int] = {}
    for row in windows[:-_SHOWN_WINDOWS]:
        older[row.state] = older.get(row.state, 0) + 1
    stores = {row.store for row in windows}
    chips = []
    for row in shown:
        where = f"{row.store} " if len(stores) > 1 else ""
        label = f"{where}{format_window(Window(row.start, row.end))} {_STATE_TEXT[row.state]}"
        title = (f"{_STATE_HELP[row.state]}; closes at stream time {format_time(row.closes_at)}"
                 f" ({row.closes_at} ms)")
        chips.append(f'<span class="kslab-window {row.state}" title="{escape(title)}">'
                     f"{escape(label)}</span>")
    more = ", ".join(f"{n} {_STATE_TEXT[state]}" for state, n in sorted(older.items()))
    earlier = f' <span class="kslab-muted">(and {more} before)</span>' if more else ""
    return f'<div class="kslab-windows">windows: {"".join(chips)}{earlier}</div>'


def stores_html(name: str, frame: Any, changed: set[int], removed: list[tuple[Any, ...]],
                limit: int) -> str:
    """A store's table with the rows this step changed marked (``kslab-new``) and the rows it
    removed listed after them struck through; a long table keeps the changed rows in view."""
    columns, rows = _rows(frame)
    if frame is None:
        return "<i>not browsable</i>"
    keep = sorted(changed)[:limit]
    keep_set = set(keep)
    for i in range(len(rows)):
        if len(keep_set) >= limit:
            break
        keep_set.add(i)
    shown = sorted(keep_set)
    marks = {at: "kslab-new" for at, i in enumerate(shown) if i in changed}
    table_rows = [rows[i] for i in shown]
    for row in removed[:limit]:
        marks[len(table_rows)] = "kslab-removed"
        table_rows.append(row)
    note = []
    if changed:
        note.append(f"{len(changed)} changed")
    if removed:
        note.append(f"{len(removed)} removed")
    head = f"<div><b>{escape(name)}</b> ({len(rows)} entries"
    head += (": " + ", ".join(note) + " by this record") if note else ""
    more = len(rows) - len(shown)
    tail = f"<div class='kslab-muted'>{more} more rows</div>" if more > 0 else ""
    return head + ")</div>" + html_table(columns, table_rows, marks=marks) + tail
