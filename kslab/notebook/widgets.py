"""Notebook widgets over the test driver: the driver explorer and the store browser.

A widget is state plus public methods (``step``, ``seek``, ``play``, ``select``...) that the
front end's events and the tests call alike; the driver computes records, traces and store
contents, and the widget only renders them. Invariant: after any call, ``position`` records of
the inputs have been driven, and every view (record, path, outputs, stores) shows that point.
"""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as w

from kslab.notebook import _step
from kslab.notebook._static import StaticFallback
from kslab.notebook.display import STYLE
from kslab.notebook.preview import merge_frames
from kslab.notebook.render import draw
from kslab.notebook.values import format_time, format_value, format_window, html_cell, html_table
from kslab.notebook.viewer import viewer_bootstrap
from kslab.records import Window, Windowed

__all__ = ["DriverExplorer", "StoreBrowser", "frame_html", "store_frame"]

CHECKPOINT_EVERY = 50  # a snapshot every this many records: rewinding replays at most that many
_PROGRESS_FROM = 200  # replays longer than this show the progress bar
_TABLE_ROWS = 20
_GRAPH_HEIGHT = 380  # the explorer's graph: at most this high, so it fits a laptop's screen
_NODE_ROWS = 5  # a picked node's last records shown
_TABLES_WIDTH = "330px"  # room for both tab titles at ipywidgets' 144px tab width
_EMPTY = '<div class="kslab-muted">{}</div>'  # an empty tab's text
_BUTTON = {"width": "auto", "flex": "0 0 auto"}  # a button as wide as its label, never squeezed


class DriverExplorer(StaticFallback, w.VBox):
    """Step, play and rewind a topology over input frames; see each record's path and effects.

    Rewinding with ``rewind="replay"`` (the default) drives the records again on a fresh
    driver, so state processors keep outside stores (a window's or suppress's observed stream
    time) is right too; ``rewind="snapshot"`` restores the nearest checkpoint, faster on long
    inputs, but only for topologies whose processors keep all their state in stores.
    """

    def __init__(self, topology: Any, inputs: dict[str, Any], *, rewind: str = "replay",
                 config: dict[str, Any] | None = None) -> None:
        from kslab.testing import TopologyTestDriver

        if rewind not in ("snapshot", "replay"):
            msg = f"rewind={rewind!r}; pick 'snapshot' or 'replay'"
            raise ValueError(msg)
        if hasattr(topology, "build") and hasattr(topology, "samples"):
            topology = topology.build_detached()  # the explorer's own copy
        self.topology = topology
        self.rewind_mode = rewind
        self.driver = TopologyTestDriver(topology, config, trace=True)
        self.events, problem = merge_frames(inputs, set(topology.source_topics()))
        if problem:
            raise ValueError(problem.removeprefix("kslab: "))
        self._topics = {t: self.driver.create_input_topic(t) for t, _, _ in self.events}
        self._sinks = {name: node.topic for name, node in topology.nodes.items()
                       if type(node).__name__ == "SinkNode" and isinstance(node.topic, str)
                       and node.topic not in topology.internal_topics}
        self.position = 0
        self.error: str | None = None
        self._checkpoints = {0: self.driver.snapshot()}
        self._syncing = False
        self._svg_cache: dict[tuple[str, ...], str] = {}
        self._before: _step.Before | None = None  # the driver before the last step's record
        self.effects = _step.StepEffects()  # what the last step's record did

        n = len(self.events)
        self.step_button = w.Button(description="Step", icon="step-forward",
                                    tooltip="drive the next record (keys: → on the slider)",
                                    layout=w.Layout(**_BUTTON))
        self.back_button = w.Button(description="Back", icon="step-backward",
                                    tooltip="rewind one record (keys: ← on the slider)",
                                    layout=w.Layout(**_BUTTON))
        self.reset_button = w.Button(description="Reset", icon="undo",
                                     tooltip="rewind to before the first record",
                                     layout=w.Layout(**_BUTTON))
        # The front end's timer, hidden: its own buttons carry no tooltips, so the explorer
        # shows its own Play, Stop and Loop and sets the timer's playing and repeat.
        self.player = w.Play(value=0, min=0, max=n, interval=600, description="play",
                             layout=w.Layout(display="none"))
        self.play_button = w.Button(
            description="Play", icon="play", layout=w.Layout(**_BUTTON),
            tooltip="drive a record every 0.6 s until the end (or Stop)")
        self.stop_button = w.Button(
            description="Stop", icon="stop", layout=w.Layout(**_BUTTON),
            tooltip="stop playing; the records driven so far stay")
        self.loop_button = w.ToggleButton(
            description="Loop", icon="repeat", layout=w.Layout(**_BUTTON),
            tooltip="when playing reaches the end, start again from record 0")
        self.slider = w.IntSlider(
            value=0, min=0, max=n, continuous_update=False, readout=False,
            description="records", tooltip="drag to rewind or skip ahead; click it, then ← → "
            "step back and forth, Home/End jump", layout=w.Layout(flex="1 1 auto", width="auto",
                                                                  min_width="160px"))
        self.counter = w.HTML(self._counter_html(), layout=w.Layout(flex="0 0 auto",
                                                                    min_width="70px"))
        self.counter.add_class("kslab-counter")
        self.progress = w.IntProgress(value=0, min=0, max=max(n, 1), description="replaying",
                                      layout=w.Layout(display="none"))  # shown while replaying
        self.record_view = w.HTML()
        self.graph_view = w.HTML()
        self.graph_panel = self._graph_panel()
        self.outputs_view = w.HTML()
        self.stores_view = w.HTML()
        self.outputs_view.add_class("kslab-outputs")
        self.stores_view.add_class("kslab-stores")
        self.step_button.on_click(lambda _: self.step())
        self.back_button.on_click(lambda _: self.back())
        self.reset_button.on_click(lambda _: self.seek(0))
        self.play_button.on_click(lambda _: self.play())
        self.stop_button.on_click(lambda _: self.pause())
        w.link((self.loop_button, "value"), (self.player, "repeat"))
        self.slider.observe(self._on_slider, names="value")
        self.player.observe(self._on_slider, names="value")
        # The tables' width never follows their contents (it would change at each step and
        # squeeze the tab titles): at least _TABLES_WIDTH, the rest of the graph's row, and
        # below the graph when the row is too narrow for both; wide tables scroll inside.
        self.tables = w.Tab(children=[self.outputs_view, self.stores_view],
                            titles=("output topics", "stores"),
                            layout=w.Layout(flex=f"1 1 {_TABLES_WIDTH}",
                                            min_width=_TABLES_WIDTH))
        super().__init__([
            w.HBox([self.back_button, self.step_button, self.play_button, self.stop_button,
                    self.loop_button, self.slider, self.counter, self.reset_button,
                    self.player, self.progress], layout=w.Layout(width="100%")),
            self.record_view,
            w.HBox([self.graph_panel, self.tables],  # the path beside what it did
                   layout=w.Layout(flex_flow="row wrap")),
        ])
        self.add_class("kslab-driver-explorer")
        self.layout.width = "100%"  # the output's width, so the slider's row has room to give
        self.add_class("kslab-pick-scope")  # a click on a graph node picks it in node_pick
        self._refresh()

    # -- public API: what buttons and tests call ------------------------------------------------

    def step(self) -> None:
        """Drive the next record (no-op at the end)."""
        if self.position < len(self.events):
            self.seek(self.position + 1)

    def back(self) -> None:
        """Rewind one record (no-op at 0)."""
        if self.position > 0:
            self.seek(self.position - 1)

    def play(self) -> None:
        """Start stepping on the front end's timer (from 0 again when at the end)."""
        if self.position >= len(self.events):
            self.seek(0)
        self.player.playing = True

    def pause(self) -> None:
        """Stop stepping."""
        self.player.playing = False

    @property
    def playing(self) -> bool:
        """Whether the player is running."""
        return bool(self.player.playing)

    def seek(self, position: int) -> None:
        """Show the state after ``position`` records: drive forward, or rewind and replay."""
        position = max(0, min(int(position), len(self.events)))
        if position < self.position:  # to one record before: the step's record is compared
            self._rewind(max(position - 1, 0))
        todo = position - self.position
        show = todo > _PROGRESS_FROM
        if show:
            self.progress.max = todo
            self.progress.value = 0
            self.progress.layout.display = ""
        while self.position < position and self.error is None:
            if self.position == position - 1:
                self._before = _step.observe(self.driver, self.stores())
            self._drive_one()
            if show and self.position % 50 == 0:
                self.progress.value = todo - (position - self.position)
        self.progress.layout.display = "none"
        self._refresh()

    def select_node(self, name: str | None) -> None:
        """Show the records node ``name`` received so far under the graph (``None``: none);
        clicking a node in the graph does this."""
        if name is not None and name not in self.topology.nodes:
            known = ", ".join(self.topology.nodes)
            msg = f"no node {name!r} in this topology; pick one of: {known}"
            raise ValueError(msg)
        self.node_pick.value = name

    def node_records(self, name: str) -> list[tuple[int, Any, Any, int]]:
        """``(record number, key, value, timestamp)`` of each record node ``name`` received,
        the number counting driven inputs from 1."""
        return [(ev.step + 1, ev.key, ev.value, ev.timestamp) for ev in self.driver.trace
                if ev.node == name and ev.event == "receive"]

    def current(self) -> dict[str, Any] | None:
        """The last driven record (topic, key, value, timestamp, row), or ``None`` at 0."""
        if self.position == 0:
            return None
        topic, row, (key, value, ts, _, _) = self.events[self.position - 1]
        if ts is None:
            ts = self.driver.history[self.position - 1].timestamp
        return {"topic": topic, "key": key, "value": value, "timestamp": ts, "row": row}

    def path(self) -> list[str]:
        """The nodes the last driven record reached, in order."""
        return [] if self.position == 0 else self.driver.trace.path(self.position - 1)

    def outputs(self) -> dict[str, list[tuple[Any, Any, int]]]:
        """Records written to each output topic so far, as ``(key, value, timestamp)``."""
        out: dict[str, list[tuple[Any, Any, int]]] = {t: [] for t in self._sinks.values()}
        for ev in self.driver.trace:
            topic = self._sinks.get(ev.node)
            if topic is not None and ev.event == "receive":
                out[topic].append((ev.key, ev.value, ev.timestamp))
        return out

    def stores(self) -> dict[str, Any]:
        """Every store's contents now, as frames."""
        frames = {}
        for name, store in sorted(self.driver.get_all_state_stores().items()):
            if store is not None:
                frames[name] = store_frame(store)
        return frames

    def windows(self) -> list[_step.WindowRow]:
        """Every window the windowed aggregations keep, with its state at their stream time
        (``open``, ``grace``: past its end, late records still counted, ``closed``)."""
        return _step.window_rows(self.driver, self.stores())

    def static_text(self) -> str:
        """``DriverExplorer: record 3 of 6`` (what a plain-text viewer shows)."""
        return f"DriverExplorer: record {self.position} of {len(self.events)}"

    def close(self) -> None:
        """Close the widget and its driver."""
        self.driver.close()
        super().close()

    # -- internals ----------------------------------------------------------------------------

    def _on_slider(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self.seek(change["new"])

    def _drive_one(self) -> None:
        topic, row, (key, value, ts, headers, partition) = self.events[self.position]
        try:
            self._topics[topic].pipe_row(key, value, ts, headers, partition)
        except Exception as exc:
            root = exc
            while isinstance(root.__cause__, Exception):
                root = root.__cause__
            self.error = (f"{type(root).__name__}: {root} (record {self.position}: topic "
                          f"{topic!r} row {row}, key={format_value(key, kind='key')}, "
                          f"value={format_value(value)}); the records after it are not driven")
            self.position += 1
            return
        self.position += 1
        if self.position % CHECKPOINT_EVERY == 0 and self.rewind_mode == "snapshot":
            self._checkpoints[self.position] = self.driver.snapshot()

    def _rewind(self, position: int) -> None:
        self.error = None
        self._before = None
        if self.rewind_mode == "replay":  # seek() drives forward again, with the progress bar
            old = self.driver
            self.driver = old.replay(until=0)
            old.close()
            self._topics = {t: self.driver.create_input_topic(t) for t in self._topics}
            self.position = 0
            return
        mark = max(p for p in self._checkpoints if p <= position)
        self.driver.restore(self._checkpoints[mark])
        self.position = mark

    def _refresh(self) -> None:
        self._syncing = True
        try:
            self.slider.value = self.position
            self.player.value = self.position
        finally:
            self._syncing = False
        self.counter.value = self._counter_html()
        frames = self.stores()
        self.effects = _step.effects(self.driver, self.position - 1, self._sinks, self._before,
                                     frames) if self.position else _step.StepEffects()
        self.record_view.value = self._record_html(frames)
        self.graph_view.value = self._graph_html()
        self._show_node()
        outputs, new = self.outputs(), self.effects.new_outputs
        self.outputs_view.value = STYLE + _step.STYLE + ("".join(
            f"<div><b>{escape(topic)}</b> ({len(rows)} records"
            + (f", {new[topic]} new from this record" if new.get(topic) else "") + ")</div>"
            + _output_table(rows, new.get(topic, 0))
            for topic, rows in sorted(outputs.items())
        ) or _EMPTY.format("no output topics"))
        self.stores_view.value = STYLE + _step.STYLE + ("".join(
            _step.stores_html(name, df, self.effects.changed.get(name, set()),
                              self.effects.removed.get(name, []), _TABLE_ROWS)
            for name, df in frames.items()
        ) or _EMPTY.format("no stores"))

    def _counter_html(self) -> str:
        return f"<b>{self.position}</b> of {len(self.events)}"

    def _record_html(self, frames: dict[str, Any]) -> str:
        head = f"<b>record {self.position} of {len(self.events)}</b>"
        record = self.current()
        if record is None:
            body = "nothing driven yet: press Step or Play"
        else:
            body = (f"topic <code>{escape(record['topic'])}</code> key "
                    + html_cell(record["key"], kind="key", tag="code") + " value "
                    + html_cell(record["value"], tag="code") + " timestamp "
                    + html_cell(record["timestamp"], kind="time", tag="code"))
        error = f'<div class="kslab-error">{escape(self.error)}</div>' if self.error else ""
        time = _step.stream_time_html(self.driver)
        windows = _step.window_rows(self.driver, frames)  # = windows(), frames at hand
        return (f'{STYLE}{_step.STYLE}<div class="kslab-record">{head}: {body}</div>{error}'
                f'<div class="kslab-effects">{self._effects_text(windows)}'
                f'{" · " + time if time else ""}</div>{_step.windows_html(windows)}')

    def _effects_text(self, windows: list[_step.WindowRow]) -> str:
        """One line: what the last record wrote, changed and whether it was dropped."""
        if self.position == 0:
            return '<span class="kslab-muted">no record driven</span>'
        found = self.effects
        parts = []
        outputs = sum(found.new_outputs.values())
        parts.append(f"{outputs} output record{'s' * (outputs != 1)}")
        changed = sum(len(c) for c in found.changed.values())
        removed = sum(len(r) for r in found.removed.values())
        parts.append(f"{changed} store entr{'ies' if changed != 1 else 'y'} changed"
                     + (f", {removed} removed" if removed else ""))
        text = "this record wrote " + ", ".join(parts)
        if found.dropped:
            ts = int((self.current() or {}).get("timestamp") or 0)
            closed = [r for r in windows if r.state == "closed" and r.start <= ts < r.end]
            why = (" (a null key or value, or a record a processor skipped: the kslab log "
                   "says which)")
            if closed:
                window = format_window(Window(closed[0].start, closed[0].end))
                why = (f": its window had closed ({window} at stream time "
                       f"{format_time(closed[0].closes_at)}, its end + grace)")
            text += (f' · <span class="kslab-dropped">dropped{escape(why)}; counted in '
                     f"dropped-records-total</span>")
        return text

    # -- the graph panel: the path on the graph, and a picked node's records ------------------

    def _graph_panel(self) -> w.VBox:
        """The graph (a viewer: ``kslab.notebook.viewer``), the node picker and its records."""
        viewer = w.Output(layout=w.Layout(display="none"))  # runs the viewer's script once
        viewer.outputs = ({"output_type": "display_data", "metadata": {},
                           "data": {"text/html": viewer_bootstrap(), "text/plain": ""}},)
        names = list(self.topology.nodes)
        self.node_pick = w.Dropdown(options=names, value=None, description="node",
                                    tooltip="or click a node in the graph",
                                    layout=w.Layout(width="auto", max_width="100%"))
        self.node_pick.add_class("kslab-node-pick")
        self.node_view = w.HTML()
        self.node_pick.observe(lambda _: self._show_node(), names="value")
        return w.VBox([self.graph_view, self.node_pick, self.node_view, viewer],
                      layout=w.Layout(flex="1 1 440px", min_width="0"))

    def _graph_html(self) -> str:
        path = tuple(self.path())
        html = self._svg_cache.get(path)
        if html is None:
            html = self._svg_cache[path] = draw(self.topology, list(path)).html(
                max_height=_GRAPH_HEIGHT, view=f"explorer-{id(self)}", script=False)
        return html

    def _show_node(self) -> None:
        name = self.node_pick.value
        if name is None:
            self.node_view.value = _EMPTY.format("click a node in the graph to see its records")
            return
        rows = self.node_records(name)
        self.node_view.value = STYLE + (
            f"<div><b>{escape(name)}</b> received {len(rows)} record(s)"
            + (f", the last {_NODE_ROWS}:" if len(rows) > _NODE_ROWS else "") + "</div>"
            + html_table(["record", "key", "value", "timestamp"], rows[-_NODE_ROWS:]))


class StoreBrowser(StaticFallback, w.VBox):
    """Browse the stores of a ``TopologyTestDriver`` (or a ``DriverExplorer``): pick, look up."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.selector = w.Dropdown(options=self.store_names(), description="store")
        self.key_box = w.Text(placeholder="key (empty: all)", description="key")
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.table = w.HTML()
        self.selector.observe(lambda _: self.refresh(), names="value")
        self.key_box.observe(lambda _: self.refresh(), names="value")
        self.refresh_button.on_click(lambda _: self.refresh())
        super().__init__([w.HBox([self.selector, self.key_box, self.refresh_button]),
                          self.table])
        self.add_class("kslab-store-browser")
        self.refresh()

    def _driver(self) -> Any:
        return getattr(self.source, "driver", self.source)

    def store_names(self) -> list[str]:
        """The stores there are to browse."""
        stores = self._driver().get_all_state_stores()
        return sorted(name for name, store in stores.items() if store is not None)

    def select(self, name: str) -> None:
        """Show store ``name``."""
        self.selector.options = self.store_names()
        self.selector.value = name

    def lookup(self, key: str) -> None:
        """Show only ``key`` (the text is tried as JSON, then as a string)."""
        self.key_box.value = key

    def refresh(self) -> None:
        """Render the selected store (or the looked-up key) again."""
        name = self.selector.value
        if name is None:
            self.table.value = "no stores"
            return
        store = self._driver().get_all_state_stores()[name]  # any kind, unlike get_state_store
        text = self.key_box.value.strip()
        if text and hasattr(store, "get"):
            key = _parse_key(text)
            found = store.get(key)
            if hasattr(found, "value") and hasattr(found, "timestamp"):  # ValueAndTimestamp
                row = [(key, found.value, found.timestamp)]
                self.table.value = STYLE + html_table(["key", "value", "timestamp"], row)
            else:
                self.table.value = STYLE + html_table(["key", "value"], [(key, found)])
        elif text:  # window, session and suppression stores: every row of that key
            frame, key = store_frame(store), _parse_key(text)
            if frame is not None:
                frame = frame[frame["key"] == key]
            self.table.value = STYLE + frame_html(frame, limit=100)
        else:
            self.table.value = STYLE + frame_html(store_frame(store), limit=100)


def store_frame(store: Any) -> Any:
    """A store's contents as a pandas frame; a suppress buffer lists what it holds back."""
    if hasattr(store, "to_pandas"):
        return store.to_pandas()
    if getattr(store, "store_kind", None) != "suppression_buffer" or not store.is_open:
        return None
    import pandas as pd

    topic, des = store.topic, store.value_serde.deserialize
    rows = [(store.key_serde.deserialize(topic, e.key),
             None if e.new is None else des(topic, e.new), e.time, e.context[0])
            for e in store.entries()]
    if rows and all(isinstance(r[0], Windowed) for r in rows):  # as window stores show them
        return pd.DataFrame([(k.key, k.window.start, k.window.end, *rest) for k, *rest in rows],
                            columns=["key", "start", "end", "value", "buffer_time", "timestamp"])
    return pd.DataFrame(rows, columns=["key", "value", "buffer_time", "timestamp"])


def _output_table(rows: list[tuple[Any, Any, int]], new: int) -> str:
    """The last ``_TABLE_ROWS`` records of a topic, the ``new`` last ones marked."""
    shown = rows[-_TABLE_ROWS:]
    marks = {at: "kslab-new" for at in range(len(shown) - min(new, len(shown)), len(shown))}
    return html_table(["key", "value", "timestamp"], shown, marks=marks)


def frame_html(df: Any, limit: int = _TABLE_ROWS) -> str:
    """The first ``limit`` rows of a pandas or polars frame as a kslab table."""
    if df is None:
        return "<i>not browsable</i>"
    columns = [str(c) for c in df.columns]
    if type(df).__module__.startswith("polars"):
        rows = list(df.head(limit).iter_rows())
    else:
        rows = list(df.head(limit).itertuples(index=False, name=None))
    more = f"<div class='kslab-muted'>{len(df) - limit} more rows</div>" if len(df) > limit \
        else ""
    return html_table(columns, rows) + more


def _parse_key(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text
