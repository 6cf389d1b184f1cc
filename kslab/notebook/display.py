"""Rich display of topologies and DSL handles: the graph, the handle's node, a live preview.

``mimebundle(obj)`` is what ``Topology``, ``StreamsBuilder``, ``KStream``, ``KTable`` and the
grouped objects return from ``_repr_mimebundle_``. The SVG sits inside the ``text/html`` entry
because JupyterLab shows HTML in preference to SVG; ``image/svg+xml`` is there too for
frontends without HTML. Invariant: displaying never raises and never changes the builder
(building is idempotent and cached per builder version); a failure shows as one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

from kslab.notebook._options import options
from kslab.notebook.neighbourhood import MORE_KEY
from kslab.notebook.preview import PreviewRows, preview_for, topology_for
from kslab.notebook.render import Drawing, draw
from kslab.notebook.values import format_time, format_value, format_window, html_table
from kslab.notebook.viewer import viewer_bootstrap

__all__ = ["html_table", "mimebundle", "preview_html"]

_HANDLE_HEIGHT = 360  # a handle's picture: at most this high (pan and zoom show the rest)

STYLE = (
    "<style>.kslab-view{font-family:Helvetica,Arial,sans-serif;font-size:12px}"
    ".kslab-note,.kslab-error{color:#a33;margin:4px 0}"
    ".kslab-handle{display:flex;flex-wrap:wrap;gap:4px 16px;align-items:flex-start}"
    ".kslab-handle-graph{flex:0 1 auto;min-width:0;max-width:max(calc(100% - 340px),60%)}"
    ".kslab-handle-preview{flex:1 1 320px;min-width:0;overflow-x:auto}"
    ".kslab-handle-preview td,.kslab-handle-preview th{white-space:nowrap}"
    ".kslab-whole>summary{cursor:pointer;color:#555;margin:4px 0}"
    ".kslab-table{border-collapse:collapse;margin:4px 0}.kslab-table td,.kslab-table th"
    "{border:1px solid #ddd;padding:2px 6px;text-align:left;font-family:monospace;"
    "line-height:1.35}"
    ".kslab-muted{color:#777}</style>"
)


def mimebundle(obj: Any, include: Iterable[str] | None = None,
               exclude: Iterable[str] | None = None) -> dict[str, str]:
    """The display bundle of a topology, builder or DSL handle.

    A topology or builder shows its whole graph. A handle shows its node's neighbourhood (what
    feeds it, the rest collapsed: ``kslab.notebook.neighbourhood``) with the preview beside
    it, and the whole graph folded below, opened on demand.
    """
    title, drawing, preview, whole = _view(obj)
    parts = [STYLE, '<div class="kslab-view">', f"<div><b>{escape(title)}</b></div>"]
    beside = preview is not None or whole is not None  # a handle: picture and preview
    graph = (f'<div class="kslab-error">{escape(drawing)}</div>' if isinstance(drawing, str)
             else drawing.html(max_height=_HANDLE_HEIGHT if beside else 480, script=False))
    if beside:
        windows = getattr(obj, "windows", None) if hasattr(obj, "grouped") else None
        side = preview_html(preview, windows) if preview is not None else ""
        parts.append(f'<div class="kslab-handle"><div class="kslab-handle-graph">{graph}</div>'
                     f'<div class="kslab-handle-preview">{side}</div></div>')
    else:
        parts.append(graph)
    if whole is not None:
        parts.append('<details class="kslab-whole"><summary>the whole topology</summary>'
                     f"{whole.html(script=False)}</details>")
    parts.append(f"</div>{viewer_bootstrap()}")
    bundle = {"text/plain": repr(obj), "text/html": "".join(parts)}
    if not isinstance(drawing, str) and drawing.svg.startswith("<svg"):
        bundle["image/svg+xml"] = drawing.svg
    if include is not None:
        bundle = {k: v for k, v in bundle.items() if k in set(include)}
    if exclude is not None:
        bundle = {k: v for k, v in bundle.items() if k not in set(exclude)}
    return bundle


def _view(obj: Any) -> tuple[str, Drawing | str, PreviewRows | None, Drawing | None]:
    """Title, picture, preview, and (for a handle whose picture leaves nodes out) the whole
    graph."""
    from kslab.topology.topology import Topology

    if isinstance(obj, Topology):
        return "Topology", _draw(lambda: obj, None), None, None
    builder = getattr(obj, "builder", None)
    if builder is None and hasattr(obj, "build") and hasattr(obj, "samples"):
        return "StreamsBuilder", _draw(lambda: topology_for(obj), None), None, None
    inner = getattr(obj, "grouped", None) or getattr(obj, "cogrouped", None)
    if builder is None and inner is not None:
        builder = getattr(inner, "builder", None)
    if builder is None:
        return type(obj).__name__, f"kslab: cannot draw {type(obj).__name__}", None, None
    # a windowed stream has no node of its own yet: show the grouped stream it windows
    node = getattr(obj, "name", None) or getattr(inner, "name", None)
    title = f"{type(obj).__name__} {node}" if node else type(obj).__name__
    if inner is not None and getattr(obj, "windows", None) is not None:
        title += f" windowed by {obj.windows!r}"
    drawing = _draw(lambda: topology_for(builder), node, focus=node)
    whole = None
    if node and not isinstance(drawing, str) and MORE_KEY in drawing.svg:
        full = _draw(lambda: topology_for(builder), node)
        whole = None if isinstance(full, str) else full
    preview = None
    if node and options.preview and not isinstance(drawing, str):
        try:
            preview = preview_for(builder, node)
        except Exception as exc:  # a preview bug must not cost the picture
            preview = PreviewRows(node, [], 0, 0, f"kslab: no preview: {_one_line(exc)}")
    return title, drawing, preview, whole


def _draw(topology: Any, highlight: str | None, focus: str | None = None) -> Drawing | str:
    try:
        topo = topology()
    except Exception as exc:
        return (f"kslab: cannot build the topology yet ({_one_line(exc)}); "
                "add the missing operators, then display it again")
    if not getattr(topo, "nodes", True):
        return "kslab: the topology is empty; add a source with builder.stream(topic)"
    try:
        return draw(topo, highlight, focus=focus)
    except Exception as exc:
        return (f"kslab: cannot draw the topology ({_one_line(exc)}); "
                "print(topology.describe()) shows it as text")


def preview_html(preview: PreviewRows, windows: Any = None) -> str:
    """The preview as HTML: rows, then the error with its record, or a one-line problem.

    With ``windows`` that can tell (``TimeWindows``), each row also lists the windows its
    timestamp falls in, as ``[start, end)``. Keys, values and times read as
    ``kslab.notebook.values`` writes them.
    """
    if preview.problem:
        return f'<div class="kslab-preview kslab-error">{escape(preview.problem)}</div>'
    parts = ['<div class="kslab-preview">']
    rows = [_row(k, v, ts) for k, v, ts in preview.rows]
    header = ["key", "value", "timestamp"]
    if any(len(r) > 3 and r[3] is not None for r in rows):
        header.append("old value")
    else:
        rows = [r[:3] for r in rows]
    if hasattr(windows, "windows_for") and len(header) == 3:
        header.append("windows")
        rows = [(*r, _windows_of(windows, r[2])) for r in rows]
    status = f"{len(rows)} first record(s) forwarded by this node; {preview.driven} of " \
             f"{preview.total} sample rows driven"
    if not preview.complete:
        status += " (time budget reached)"
    parts.append(f'<div class="kslab-muted">{escape(status)}</div>')
    if rows:
        parts.append(html_table(header, rows))
    error = preview.error
    if error is not None:
        where = f"in node {error.node}" if error.node else f"reading topic '{error.topic}'"
        parts.append(
            f'<div class="kslab-error"><b>{escape(error.error)}</b> {escape(where)} on record '
            f"key={escape(format_value(error.key, kind='key'))}, "
            f"value={escape(format_value(error.value))}, "
            f"timestamp={escape(format_time(error.timestamp))} (sample row {error.row} of topic "
            f"{escape(repr(error.topic))}); driving stopped there</div>"
        )
    parts.append("</div>")
    return "".join(parts)


def _row(key: Any, value: Any, ts: int) -> tuple[Any, ...]:
    new = getattr(value, "new_value", None)
    if hasattr(value, "old_value"):
        return (key, new, ts, value.old_value)
    return (key, value, ts)


def _windows_of(windows: Any, timestamp: int) -> str:
    return " ".join(format_window(w) for w in windows.windows_for(timestamp).values())


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def driver_bundle(driver: Any, include: Any = None, exclude: Any = None) -> dict[str, str]:
    """A driver at a glance: its graph, the records driven, and the topics it has written."""
    drawing = _draw(lambda: driver.topology, None)
    parts = [STYLE, '<div class="kslab-view">', f"<div><b>{escape(repr(driver))}</b></div>"]
    parts.append(f'<div class="kslab-error">{escape(drawing)}</div>'
                 if isinstance(drawing, str) else drawing.html(script=False))
    produced = sorted(driver.produced_topic_names()) if not driver.closed else []
    if produced:
        parts.append(html_table(["topic written"], [(t,) for t in produced]))
    parts.append(f"</div>{viewer_bootstrap()}")
    return {"text/plain": repr(driver), "text/html": "".join(parts)}
