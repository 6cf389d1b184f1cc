"""The built-in renderer: a layered top-to-bottom layout of the render model, drawn as SVG.

It needs only networkx (a kslab dependency), so a plain ``pip install kslab`` always shows a
picture. Layers come from the longest path on the graph with back edges removed, rows from a
barycenter sweep, and each sub-topology gets its own vertical band so cluster boxes never
overlap. Invariant: the output is a pure function of the render model (same model, same bytes).
"""

from __future__ import annotations

from collections import defaultdict
from html import escape

from kslab.topology.rendering import RenderedNode, RenderedTopology

__all__ = ["layout_svg"]

_CHAR_W = 6.2  # average width of a 10px Helvetica glyph
_NODE_H = 26
_ROW_GAP = 30
_COL_GAP = 46
_PAD = 12
_FILL = {
    "source": "#e8f5e9",
    "processor": "#e3f2fd",
    "sink": "#fce4ec",
    "topic": "#fff8e1",
    "store": "#ede7f6",
    "more": "#f5f5f5",
}
_HIGHLIGHT = "#ffd54f"


def layout_svg(model: RenderedTopology) -> str:
    """SVG of ``model`` top to bottom: clusters as boxes, topics as tags, stores as cylinders."""
    layers = _layers(model)
    widths = {n.key: _CHAR_W * len(n.label) + 22 for n in model.nodes}
    x_of, boxes, width = _columns(model, layers, widths)
    y_of = {key: _PAD + 18 + n * (_NODE_H + _ROW_GAP) for key, n in layers.items()}
    height = max(y_of.values(), default=0) + _NODE_H + _PAD
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="kslab-svg" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="10">',
        '<defs><marker id="kslab-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
    ]
    by_key = {n.key: n for n in model.nodes}
    for cluster in model.clusters:
        members = [k for k in cluster.members if k in y_of]
        if not members:
            continue
        left, right = boxes[cluster.id]
        top = min(y_of[k] for k in members) - 18
        bottom = max(y_of[k] for k in members) + _NODE_H + 8
        dash = ' stroke-dasharray="5,3"' if cluster.is_global else ""
        parts.append(
            f'<g class="cluster" data-cluster="{cluster.id}"><rect x="{left:.1f}" y="{top:.1f}" '
            f'width="{right - left:.1f}" height="{bottom - top:.1f}" rx="6" fill="#fafafa" '
            f'stroke="#888"{dash}/><text x="{left + 6:.1f}" y="{top + 12:.1f}" fill="#555">'
            f"{escape(cluster.label)}</text></g>"
        )
    for edge in model.edges:
        if edge.source in x_of and edge.target in x_of:
            parts.append(_edge(edge.kind, x_of, y_of, widths, edge.source, edge.target))
    for key in x_of:
        parts.append(_node(by_key[key], x_of[key], y_of[key], widths[key]))
    parts.append("</svg>")
    return "".join(parts)


# -- layout ---------------------------------------------------------------------------------------


def _layers(model: RenderedTopology) -> dict[str, int]:
    """Longest-path layer of every node, back edges (cycles through topics) ignored."""
    children: dict[str, list[str]] = defaultdict(list)
    for edge in model.edges:
        children[edge.source].append(edge.target)
    order: list[str] = []
    state: dict[str, int] = {}
    back: set[tuple[str, str]] = set()
    for node in model.nodes:
        if node.key in state:
            continue
        stack = [(node.key, iter(children[node.key]))]
        state[node.key] = 1
        while stack:
            key, it = stack[-1]
            child = next(it, None)
            if child is None:
                stack.pop()
                state[key] = 2
                order.append(key)
            elif state.get(child) == 1:
                back.add((key, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(children[child])))
    layer = dict.fromkeys(state, 0)
    for key in reversed(order):  # reverse post-order is a topological order
        for child in children[key]:
            if (key, child) not in back:
                layer[child] = max(layer[child], layer[key] + 1)
    return layer


def _band_of(model: RenderedTopology) -> dict[str, int]:
    """Each node's band: its cluster, or (topics) the cluster that reads or writes it."""
    band = {k: c.id for c in model.clusters for k in c.members}
    for edge in model.edges:  # topics go with the sub-topology that reads them...
        if edge.source not in band and edge.target in band:
            band[edge.source] = band[edge.target]
    for edge in model.edges:  # ...or else with the one that writes them
        if edge.target not in band and edge.source in band:
            band[edge.target] = band[edge.source]
    return band


def _columns(model: RenderedTopology, layers: dict[str, int], widths: dict[str, float]
             ) -> tuple[dict[str, float], dict[int, tuple[float, float]], float]:
    """x of every node, the x extent of each cluster box, and the total width.

    Each band (a sub-topology with its topics) is a run of columns; inside a band, column
    ``i`` holds the ``i``-th node of every layer. Topics that share layers with their
    sub-topology's members get columns right of its box, so boxes hold members only.
    """
    band = _band_of(model)
    members = {k for c in model.clusters for k in c.members}
    span: dict[int, tuple[int, int]] = {}
    for key in members:
        lo, hi = span.get(band[key], (layers[key], layers[key]))
        span[band[key]] = (min(lo, layers[key]), max(hi, layers[key]))
    slots: dict[tuple[int, int, bool], list[str]] = defaultdict(list)
    for node in model.nodes:
        b = band.get(node.key, -1)
        lo, hi = span.get(b, (1, 0))
        outside = node.key not in members and lo <= layers[node.key] <= hi
        slots[(b, layers[node.key], outside)].append(node.key)
    _barycenter(model, slots)
    x_of: dict[str, float] = {}
    boxes: dict[int, tuple[float, float]] = {}
    x = float(_PAD)
    for b in sorted({key[0] for key in slots}):
        left = x
        for outside in (False, True):
            columns: dict[int, list[str]] = defaultdict(list)
            for (bb, _, out), keys in slots.items():
                if bb == b and out == outside:
                    for i, key in enumerate(keys):
                        columns[i].append(key)
            if outside and columns:
                x += 10
            for i in sorted(columns):
                col_w = max(widths[k] for k in columns[i])
                for key in columns[i]:
                    x_of[key] = x + 8 + (col_w - widths[key]) / 2
                x += col_w + 16 + _COL_GAP / 4
            if not outside:
                boxes[b] = (left, x - _COL_GAP / 4)
        x += _COL_GAP / 2
    return x_of, boxes, x


def _barycenter(model: RenderedTopology, slots: dict[tuple[int, int, bool], list[str]]) -> None:
    """Order each slot by the mean row of its neighbours, two sweeps, stable otherwise."""
    neighbours: dict[str, list[str]] = defaultdict(list)
    for edge in model.edges:
        neighbours[edge.target].append(edge.source)
        neighbours[edge.source].append(edge.target)
    for _ in range(2):
        index = {k: i for keys in slots.values() for i, k in enumerate(keys)}
        for keys in slots.values():
            keys.sort(key=lambda k: _mean([index[n] for n in neighbours[k]], index[k]))


def _mean(values: list[int], default: int) -> float:
    return sum(values) / len(values) if values else float(default)


# -- drawing --------------------------------------------------------------------------------------


def _node(node: RenderedNode, x: float, y: float, w: float) -> str:
    fill = _HIGHLIGHT if node.highlighted else _FILL[node.kind]
    dash = ""
    if node.internal or node.dynamic or node.kind == "more":
        dash = ' stroke-dasharray="4,2"'
    elif node.pattern is not None and node.kind == "topic":
        dash = ' stroke-dasharray="1,2"'
    stroke = f'fill="{fill}" stroke="#333"{dash}'
    h = _NODE_H
    if node.kind == "topic":
        shape = (f'<path d="M{x:.1f},{y:.1f} h{w - 8:.1f} l8,{h / 2} l-8,{h / 2} '
                 f'h{-(w - 8):.1f} z" {stroke}/>')
    elif node.kind == "store":
        shape = (f'<path d="M{x:.1f},{y + 4:.1f} a{w / 2:.1f},4 0 0,0 {w:.1f},0 '
                 f'v{h - 8} a{w / 2:.1f},4 0 0,1 {-w:.1f},0 z" {stroke}/>'
                 f'<ellipse cx="{x + w / 2:.1f}" cy="{y + 4:.1f}" rx="{w / 2:.1f}" ry="4" '
                 f'{stroke}/>')
    else:
        rx = 0 if node.kind == "processor" else 8
        width = ' stroke-width="2"' if node.kind == "sink" else ""
        shape = (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h}" rx="{rx}" '
                 f'{stroke}{width}/>')
    mark = " highlighted" if node.highlighted else ""
    internal = " internal" if node.internal else ""
    label = escape(node.label)
    return (
        f'<g class="node {node.kind}{internal}{mark}" data-key="{escape(node.key)}">'
        f"<title>{escape(node.kind)}: {label}</title>{shape}"
        f'<text x="{x + w / 2:.1f}" y="{y + h / 2 + 3.5:.1f}" text-anchor="middle">{label}</text>'
        "</g>"
    )


def _edge(kind: str, x_of: dict[str, float], y_of: dict[str, float], widths: dict[str, float],
          source: str, target: str) -> str:
    x1, y1 = x_of[source] + widths[source] / 2, y_of[source] + _NODE_H
    x2, y2 = x_of[target] + widths[target] / 2, y_of[target]
    if kind == "store":  # a store sits beside its processor: join their sides
        x1, y1 = x_of[source] + widths[source], y_of[source] + _NODE_H / 2
        x2, y2 = x_of[target], y_of[target] + _NODE_H / 2
        if x2 < x1:
            x1, x2 = x_of[source], x_of[target] + widths[target]
    if y2 <= y1 and kind != "store":  # a back edge: loop round the right of both nodes
        side = max(x_of[source] + widths[source], x_of[target] + widths[target]) + 30
        path = (f"M{x1:.1f},{y1:.1f} C{side:.1f},{y1 + 20:.1f} {side:.1f},{y2 - 20:.1f} "
                f"{x2:.1f},{y2:.1f}")
    else:
        mid = (y1 + y2) / 2
        path = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2:.1f}"
    style = {
        "record": ' marker-end="url(#kslab-arrow)"',
        "topic": ' marker-end="url(#kslab-arrow)"',
        "store": ' stroke-dasharray="2,3"',
        "changelog": ' stroke-dasharray="6,3" marker-end="url(#kslab-arrow)"',
        "more": ' stroke-dasharray="3,3"',
    }[kind]
    return f'<path class="edge {kind}" d="{path}" fill="none" stroke="#555"{style}/>'
