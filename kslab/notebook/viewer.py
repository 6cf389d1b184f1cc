"""The graph viewer: a topology picture at its natural size, with pan, zoom and a full-window view.

``graph_html`` wraps an SVG in a scroll box at the picture's natural size (labels about 13 px
high, never scaled to the cell's width); that is all a page without scripts shows (GitHub,
nbviewer, an untrusted notebook). ``VIEWER_SCRIPT``, a small self-contained script with no
dependency (nothing to fetch: the lab may have no internet), turns every such box on the page
into a viewer: mouse wheel zooms about the pointer, dragging pans, buttons zoom, reset and open
the picture over the whole window (Esc closes it). Zooming out stops where labels would be
smaller than ``MIN_LABEL_PX``. The script watches the page, so pictures that widgets replace
(the driver explorer's, at every step) become viewers too and keep their zoom and position
(``view`` names them). Clicking a node inside an element of class ``kslab-pick-scope`` selects
that node in the scope's ``kslab-node-pick`` drop-down, so a widget can act on it; clicking a
handle's collapsed "+N more" node opens the whole graph folded below it.

Invariant: the markup without the script is a complete, legible picture; the script only adds.
"""

from __future__ import annotations

from html import escape

from kslab.notebook.neighbourhood import MORE_KEY

__all__ = ["MIN_LABEL_PX", "VIEWER_SCRIPT", "graph_html", "viewer_bootstrap"]

MIN_LABEL_PX = 10  # no view makes a label's font smaller than this (CSS px); dot's is 13.3

_CSS = """
.kslab-graph{max-width:100%}
.kslab-graph .kslab-viewport{overflow:auto;max-width:100%}
.kslab-graph.kslab-live .kslab-viewport{overflow:hidden;position:relative;cursor:grab;
  border:1px solid #e0e0e0;border-radius:3px;background:#fff;touch-action:none}
.kslab-graph.kslab-live .kslab-viewport.kslab-dragging{cursor:grabbing}
.kslab-graph .kslab-canvas{transform-origin:0 0;width:max-content}
.kslab-graph .kslab-canvas svg{max-width:none!important;display:block}
.kslab-graph-bar{display:flex;gap:2px;align-items:center;margin:2px 0;font:11px Helvetica,
  Arial,sans-serif;color:#555}
.kslab-graph-bar button{font:11px Helvetica,Arial,sans-serif;padding:0 6px;height:20px;
  border:1px solid #ccc;background:#f7f7f7;border-radius:3px;cursor:pointer;color:#333}
.kslab-graph-bar button:hover{background:#eee}
.kslab-graph-bar .kslab-zoom{min-width:3.5em;text-align:center}
.kslab-pickable g.node{cursor:pointer}
.kslab-graph.kslab-full{position:fixed;inset:0;z-index:100000;background:#fff;padding:8px;
  display:flex;flex-direction:column;box-sizing:border-box}
.kslab-graph.kslab-full .kslab-viewport{flex:1;width:auto!important;height:auto!important;
  max-height:none!important}
"""

VIEWER_SCRIPT = r"""
(function () {
  if (window.kslabGraphs && document.getElementById('kslab-graph-style')) {
    window.kslabGraphs.scan();  // installed in this page already
    return;
  }
  var MIN_PX = %(min_px)s, MAX_SCALE = 4, views = {};
  function px(v) {
    var m = /^\s*([\d.]+)\s*(pt|px)?\s*$/.exec(v || '');
    return m ? parseFloat(m[1]) * (m[2] === 'pt' ? 4 / 3 : 1) : 0;
  }
  function labelPx(svg, width) {  // the smallest label's font size in CSS px at scale 1
    var size = parseFloat(svg.getAttribute('font-size') || '1000');
    var texts = svg.querySelectorAll('text[font-size]');
    for (var i = 0; i < texts.length && i < 500; i++) {
      size = Math.min(size, parseFloat(texts[i].getAttribute('font-size')) || size);
    }
    if (size === 1000) size = 10;
    var box = (svg.getAttribute('viewBox') || '').split(/[\s,]+/).map(parseFloat);
    return size * (box.length === 4 && box[2] > 0 ? width / box[2] : 1);
  }
  function button(bar, text, title, act) {
    var b = document.createElement('button');
    b.type = 'button'; b.textContent = text; b.title = title;
    b.addEventListener('click', function (e) { e.stopPropagation(); act(); });
    bar.appendChild(b); return b;
  }
  function pick(graph, target) {
    var node = target && target.closest ? target.closest('g.node') : null;
    if (!node) return;
    var title = node.querySelector('title');
    var key = node.getAttribute('data-key') || (title ? title.textContent : '');
    graph.dispatchEvent(new CustomEvent('kslab-node', {detail: {key: key}, bubbles: true}));
    if (key === '%(more)s') {  // the collapsed rest: open the whole graph folded below
      var view = (graph.kslabOwner || graph).closest('.kslab-view');
      var whole = view ? view.querySelector('details.kslab-whole') : null;
      if (whole) { whole.open = true; whole.scrollIntoView({block: 'nearest'}); }
      return;
    }
    var owner = graph.kslabOwner || graph, scope = owner.closest('.kslab-pick-scope');
    var select = scope ? scope.querySelector('.kslab-node-pick select') : null;
    if (!select) return;
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === key) {
        select.value = key;
        select.dispatchEvent(new Event('change', {bubbles: true}));
        return;
      }
    }
  }
  function enhance(graph, owner) {
    var vp = graph.querySelector('.kslab-viewport'), canvas = graph.querySelector('.kslab-canvas');
    var svg = canvas ? canvas.querySelector('svg') : null;
    if (!vp || !svg) return;
    graph.classList.add('kslab-live');
    graph.kslabOwner = owner || null;
    var full = !!owner, w = px(svg.getAttribute('width')), h = px(svg.getAttribute('height'));
    if (!w || !h) { var r = svg.getBoundingClientRect(); w = r.width; h = r.height; }
    svg.style.width = w + 'px'; svg.style.height = h + 'px';
    var min = Math.min(1, MIN_PX / labelPx(svg, w));
    var maxH = +graph.getAttribute('data-max-height') || 480;
    var id = graph.getAttribute('data-view'), v = {s: 1, x: 0, y: 0};
    if (id && views[id] && !full) v = views[id];
    vp.style.overflow = 'hidden'; vp.style.maxHeight = full ? 'none' : maxH + 'px';
    if (!full) { vp.style.width = (w + 2) + 'px'; vp.style.height = Math.min(h + 2, maxH) + 'px'; }
    function shrink() {  // the box: no bigger than the fitted picture (the same at each redraw)
      if (full || vp.clientWidth === 0) return;
      var s = fit();
      vp.style.height = Math.min(h * s + 2, maxH) + 'px';
      vp.style.width = (w * s + 2) + 'px';
    }
    var scope = (owner || graph).closest('.kslab-pick-scope');
    if (scope) graph.classList.add('kslab-pickable');
    var bar = document.createElement('div'); bar.className = 'kslab-graph-bar';
    graph.insertBefore(bar, graph.firstChild);
    var label = document.createElement('span'); label.className = 'kslab-zoom';
    function apply() {
      canvas.style.transform = 'translate(' + v.x + 'px,' + v.y + 'px) scale(' + v.s + ')';
      label.textContent = Math.round(v.s * 100) + '%%';
      if (id && !full) views[id] = v;
    }
    function zoom(f, cx, cy) {
      var s = Math.max(min, Math.min(MAX_SCALE, v.s * f));
      v = {s: s, x: cx - (cx - v.x) * s / v.s, y: cy - (cy - v.y) * s / v.s}; apply();
    }
    function centre(f) { zoom(f, vp.clientWidth / 2, vp.clientHeight / 2); }
    function fit() {  // the whole picture if labels stay legible, else as much as they allow
      var f = Math.min(full ? 2 : 1, vp.clientWidth / w, vp.clientHeight / h);
      return vp.clientWidth > 0 ? Math.max(min, f) : 1;
    }
    function reset() {
      var s = fit();
      v = {s: s, x: full ? Math.max(0, (vp.clientWidth - w * s) / 2) : 0, y: 0};
      apply();
    }
    function natural() { v = {s: 1, x: 0, y: 0}; apply(); }
    button(bar, '\u2212', 'zoom out (or turn the mouse wheel)', function () { centre(1 / 1.25); });
    bar.appendChild(label);
    button(bar, '+', 'zoom in (or turn the mouse wheel)', function () { centre(1.25); });
    button(bar, '1:1', 'natural size', natural);
    button(bar, 'fit', 'as much of the picture as legible labels allow', reset);
    if (full) {
      var close = function () { graph.remove(); document.removeEventListener('keydown', esc); };
      var esc = function (e) { if (e.key === 'Escape') close(); };
      document.addEventListener('keydown', esc);
      button(bar, 'close \u2715', 'back to the notebook (Esc)', close);
    } else {
      button(bar, 'full window \u2922', 'open the picture over the whole window', function () {
        var over = document.createElement('div');
        over.className = 'kslab-graph kslab-full';
        over.appendChild(vp.cloneNode(true));
        over.querySelector('.kslab-canvas').style.transform = '';
        document.body.appendChild(over);
        enhance(over, graph);
      });
    }
    var hint = document.createElement('span');
    hint.textContent = ' drag to pan, wheel to zoom'
      + (scope ? ', click a node to see its records' : '');
    bar.appendChild(hint);
    vp.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = vp.getBoundingClientRect();
      zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    }, {passive: false});
    var drag = null;
    vp.addEventListener('pointerdown', function (e) {
      if (e.button !== 0) return;
      drag = {px: e.clientX, py: e.clientY, x: v.x, y: v.y, moved: false, target: e.target};
      vp.setPointerCapture(e.pointerId);
    });
    vp.addEventListener('pointermove', function (e) {
      if (!drag) return;
      var dx = e.clientX - drag.px, dy = e.clientY - drag.py;
      if (Math.abs(dx) + Math.abs(dy) > 3) {
        drag.moved = true; vp.classList.add('kslab-dragging');
      }
      if (drag.moved) { v = {s: v.s, x: drag.x + dx, y: drag.y + dy}; apply(); }
    });
    vp.addEventListener('pointerup', function () {
      if (drag && !drag.moved) pick(graph, drag.target);
      drag = null; vp.classList.remove('kslab-dragging');
    });
    if (id && views[id] && !full) { shrink(); apply(); } else { reset(); shrink(); }
    if (!full) {  // fit again once the box gets its size, if the viewer has not moved
      var moved = false, box = graph.closest('details');
      vp.addEventListener('pointerdown', function () { moved = true; });
      vp.addEventListener('wheel', function () { moved = true; });
      if (box) box.addEventListener('toggle', function () { if (!moved) { reset(); shrink(); } });
    }
  }
  function scan() {
    var found = document.querySelectorAll('.kslab-graph:not(.kslab-live)');
    for (var i = 0; i < found.length; i++) enhance(found[i], null);
  }
  var style = document.createElement('style');
  style.id = 'kslab-graph-style';
  style.textContent = %(css)s;
  document.head.appendChild(style);
  var queued = false;
  new MutationObserver(function () {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; scan(); });
  }).observe(document.body, {childList: true, subtree: true});
  window.kslabGraphs = {scan: scan, views: views};
  scan();
})();
"""


def _script() -> str:
    import json

    return VIEWER_SCRIPT % {"min_px": MIN_LABEL_PX, "css": json.dumps(_CSS), "more": MORE_KEY}


def viewer_bootstrap() -> str:
    """The ``<script>`` that makes every graph on the page a viewer (idempotent per page)."""
    return f"<script>{_script()}</script>"


def graph_html(svg: str, renderer: str, *, max_height: int = 480, view: str | None = None,
               script: bool = True) -> str:
    """``svg`` in a natural-size scroll box (at most ``max_height`` px high), and the script.

    ``view`` names the picture so a redrawn one keeps its zoom and position; ``script=False``
    leaves the script out (a widget's HTML cannot run one: ``viewer_bootstrap`` goes into an
    output area once instead).
    """
    named = f' data-view="{escape(view)}"' if view else ""
    box = (f'<div class="kslab-graph" data-renderer="{escape(renderer)}" '
           f'data-max-height="{max_height}"{named}>'
           f'<div class="kslab-viewport" style="max-height:{max_height}px;overflow:auto">'
           f'<div class="kslab-canvas">{svg}</div></div></div>')
    return box + (viewer_bootstrap() if script else "")
