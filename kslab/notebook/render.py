"""Topology pictures for notebooks: the renderer chain from the render model to SVG.

The chain is ``dot`` (Graphviz, a subprocess), then ``graphviz-pure`` (the PyPI port, the same
command line), then the built-in layered layout, so some picture always comes out; the text of
``describe()`` is the last resort. Invariant: ``draw`` never raises for a renderer failure; it
returns the next renderer's picture and a one-line note saying what failed and what to do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from kslab.notebook._layout import layout_svg
from kslab.notebook._options import options
from kslab.notebook.neighbourhood import neighbourhood
from kslab.notebook.viewer import graph_html
from kslab.topology.rendering import RenderedTopology, dot_source, to_rendered

if TYPE_CHECKING:
    from kslab.topology.topology import Topology

__all__ = ["RENDERERS", "Drawing", "draw", "find_program"]

RENDERERS = ("dot", "graphviz-pure", "builtin", "text")
_TIMEOUT_S = 20
_PROLOG = re.compile(r"^.*?(?=<svg)", re.S)


@dataclass(frozen=True)
class Drawing:
    """A picture of a topology: SVG (or ``<pre>`` text), the renderer used and any note."""

    svg: str
    renderer: str
    note: str | None = None

    def html(self, max_height: int = 480, view: str | None = None, script: bool = True) -> str:
        """The picture in the graph viewer (``kslab.notebook.viewer.graph_html``), with the
        note above it when a renderer failed."""
        note = f'<div class="kslab-note">{escape(self.note)}</div>' if self.note else ""
        if not self.svg.startswith("<svg"):  # the text renderer's <pre>
            return f'{note}<div class="kslab-graph-text">{self.svg}</div>'
        return note + graph_html(self.svg, self.renderer, max_height=max_height, view=view,
                                 script=script)


def draw(topology: Topology, highlight: str | Iterable[str] | None = None,
         renderer: str | None = None, focus: str | None = None) -> Drawing:
    """Draw ``topology`` with the first renderer of the chain that works (or ``renderer``).

    With ``focus`` (a node name), only that node's neighbourhood: what feeds it back to the
    sources and the stores used on the way, the rest collapsed into one node
    (``kslab.notebook.neighbourhood``).
    """
    choice = renderer or options.renderer
    if choice not in (*RENDERERS, "auto"):
        msg = f"unknown renderer {choice!r}; pick one of {', '.join(RENDERERS)} or 'auto'"
        raise ValueError(msg)
    chain = list(RENDERERS) if choice == "auto" else [choice, *RENDERERS]
    chain = list(dict.fromkeys(chain))
    try:
        model = to_rendered(topology, highlight)
    except Exception:  # an unknown highlight name must not cost the picture
        model = to_rendered(topology)
    if focus is not None:
        model = neighbourhood(model, focus)
    failures: list[str] = []
    for name in chain:
        try:
            svg = _RUN[name](topology, model)
        except _Unavailable as exc:
            if choice != "auto" or name == "builtin":
                failures.append(str(exc))
            continue
        except Exception as exc:
            failures.append(f"{name} failed ({type(exc).__name__}: {_first_line(exc)})")
            continue
        note = None
        if failures:
            note = (f"kslab: {'; '.join(failures)}; drew with {name} instead. "
                    f"{_ADVICE[name]}")
        return Drawing(svg, name, note)
    msg = "the text renderer cannot fail"  # pragma: no cover
    raise AssertionError(msg)  # pragma: no cover


class _Unavailable(Exception):
    """This renderer is not installed here."""


def find_program(name: str) -> str | None:
    """The path of ``name`` on PATH or beside this Python (a venv's bin), or ``None``."""
    found = shutil.which(name)
    if found:
        return found
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _run_dot(program: str, model: RenderedTopology) -> str:
    path = find_program(program)
    if path is None:
        msg = f"{program} is not installed"
        raise _Unavailable(msg)
    # top to bottom (long node names make left-to-right pictures too wide for a notebook),
    # sub-topologies side by side (a tall picture of stacked ones wastes the cell's width)
    source = dot_source(model, rankdir="TB", side_by_side=True)
    done = subprocess.run(
        [path, "-Tsvg"], input=source.encode(), capture_output=True, timeout=_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        msg = f"{program} exited {done.returncode}: {_first_line(done.stderr.decode())}"
        raise RuntimeError(msg)
    svg = _PROLOG.sub("", done.stdout.decode(), count=1)
    return svg.replace("<svg ", '<svg class="kslab-svg" ', 1)


def _dot(topology: Topology, model: RenderedTopology) -> str:
    return _run_dot("dot", model)


def _graphviz_pure(topology: Topology, model: RenderedTopology) -> str:
    return _run_dot("graphviz-pure", model)


def _builtin(topology: Topology, model: RenderedTopology) -> str:
    return layout_svg(model)


def _text(topology: Topology, model: RenderedTopology) -> str:
    return f'<pre class="kslab-describe">{escape(str(topology.describe()))}</pre>'


def _first_line(error: object) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "no message"


_RUN = {"dot": _dot, "graphviz-pure": _graphviz_pure, "builtin": _builtin, "text": _text}
_ADVICE = {
    "dot": "",
    "graphviz-pure": "Install Graphviz (apt-get install graphviz) for dot's layout.",
    "builtin": "Install Graphviz (apt-get install graphviz) or `pip install graphviz-pure`.",
    "text": "Set kslab.notebook.options.renderer = 'builtin' and report the error above.",
}
